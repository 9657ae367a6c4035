"""Undo, match end reasons, wrong match length (4.8), TD corrections (4.6, 4.7) and waivers (2.2 iii)."""

from __future__ import annotations

import pytest

from tests.rulebook.helpers import MINUTE, SECOND, Table

# -- undo -----------------------------------------------------------------------------------------


def test_undo_a_result_restores_the_game_in_progress() -> None:
    """4.7: a wrong result entry is taken back at the table before the next game."""
    t = Table().start(length=7).opening(6, 1)
    t.send("win", side="A", kind="gammon").ok()
    assert t.score() == (2, 0)
    t.send("undo").ok()
    snap = t.snap()
    assert snap["score"] == {"A": 0, "B": 0} and snap["phase"] == "playing" and snap["games"] == []
    assert t.match.in_game and t.state.turn == "A"
    t.send("undo")
    t.refused("nothing to undo")
    t.send("win", side="A", kind="single").ok()
    assert t.score() == (1, 0)


def test_undo_a_double_and_a_take() -> None:
    """4.4 ix: a wrongly entered cube action is taken back at the table."""
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()
    t.send("double", side="A").ok()
    t.send("undo").ok()
    assert t.snap()["cube"]["offered_by"] is None and t.state.turn == "A" and not t.state.rolled
    t.send("double", side="A").ok()
    t.send("take", side="B").ok()
    t.send("undo").ok()  # back to the offer
    assert t.snap()["cube"] == {
        "value": 1,
        "owner": None,
        "offered_by": "A",
        "usable": {"A": False, "B": False},
    }


def test_undo_a_match_winning_result_reopens_the_match() -> None:
    """4.7: an entry that wrongly ended the match is taken back."""
    t = Table().start(length=1).opening()
    t.send("win", side="B", kind="single").ok()
    assert t.snap()["winner"] == "B"
    t.send("undo").ok()
    snap = t.snap()
    assert snap["winner"] is None and snap["end_reason"] is None and snap["phase"] == "playing"


def test_undo_refused_once_the_next_game_started_or_both_confirmed() -> None:
    """4.6: once the next game starts, or both confirmed, only the TD corrects."""
    t = Table().start(length=7).game("A")
    t.opening()
    t.send("undo")
    t.refused("nothing to undo")
    t2 = Table().start(length=1).game("A")
    t2.send("confirm", side="A").ok()
    t2.send("confirm", side="B").ok()
    t2.send("undo")
    t2.refused("both players confirmed")


def test_undo_does_not_take_back_clock_presses() -> None:
    """4.3: undo is for score and cube entries; clock presses stand."""
    t = Table().start(length=7, clock=True).opening(1, 6)  # B's clock runs
    t.wait(20 * SECOND).move("B")  # B used 8 s of reserve
    t.wait(3 * SECOND).send("double", side="A").ok()
    t.send("press", side="A").ok()
    t.wait(30 * SECOND).send("undo").ok()
    snap = t.snap()
    assert snap["cube"]["offered_by"] is None
    assert snap["clock"]["running"] == "B"  # the presses stand
    assert snap["clock"]["reserve_ms"]["B"] == 14 * MINUTE - 8 * SECOND - 18 * SECOND


def test_undo_never_takes_back_a_td_decision() -> None:
    """4.6-4.7: the table's undo cannot take back a TD penalty made after the entry."""
    t = Table().start(length=7).opening()
    t.send("win", side="A", kind="single").ok()
    t.cmd("penalty", "pen-1", against="A", points=1, reason="conduct").ok()
    t.send("undo")
    t.refused("nothing to undo")
    assert t.score() == (1, 1)


def test_undo_keeps_an_active_pause() -> None:
    """4.3 ii: undo during a pause leaves the clock paused."""
    t = Table().start(length=7, clock=True).opening(1, 6)
    t.pass_turn()
    t.send("double", side="A").ok()
    t.send("pause", side="A", reason="dispute").ok()
    t.send("undo").ok()
    snap = t.snap()
    assert snap["phase"] == "paused" and snap["clock"]["paused"] == "dispute"
    assert snap["cube"]["offered_by"] is None
    t.send("resume").ok()
    assert t.snap()["phase"] == "playing"


# -- match end reasons (PROTOCOL §2 end_reason) ---------------------------------------------------


def test_end_reason_points() -> None:
    """PROTOCOL §2 end_reason points: a player reached the match length."""
    t = Table().start(length=1).game("A")
    assert (t.snap()["winner"], t.snap()["end_reason"]) == ("A", "points")


def test_end_reason_forfeit() -> None:
    """1.7 v / PROTOCOL §3.3: the TD forfeits a match (end_reason forfeit)."""
    t = Table().start(length=7).game("A")
    t.cmd("forfeit", "f-1", against="A", reason="conduct").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("B", "forfeit", "finished")
    assert snap["score"] == {"A": 1, "B": 0}


def test_end_reason_lateness_by_forfeit_command() -> None:
    """2.2 iv: a forfeit for lateness (end_reason lateness)."""
    t = Table().start(length=7)
    t.cmd("forfeit", against="B", reason="late").ok()
    assert (t.snap()["winner"], t.snap()["end_reason"]) == ("A", "lateness")


def test_2_2_iv_end_reason_lateness_when_late_points_exceed_half_the_length() -> None:
    t = Table().assign(length=7)
    t.send("checkin", side="A").ok()
    for n in (1, 2, 3):
        t.cmd("penalty", f"late:m1:B:{n}", against="B", points=1, reason="late").ok()
        assert t.snap()["phase"] == "waiting" and t.snap()["winner"] is None
    t.cmd("penalty", "late:m1:B:4", against="B", points=1, reason="late").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["score"]) == ("A", "lateness", {"A": 4, "B": 0})
    assert snap["penalties"] == {"A": 0, "B": 4}


def test_4_7_a_correction_that_reaches_the_length_ends_the_match_by_points_decided_by_the_td() -> None:
    """4.7: a TD score correction that reaches the length ends the match: how it ended stays
    ``points`` (the score reached the length) and the TD's decision is recorded beside it."""
    t = Table().start(length=7).game("A")
    t.cmd("correct_score", score={"A": 7, "B": 3}, note="sheet").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["decision"]) == ("A", "points", "correct_score")


def test_4_3_iii_end_reason_time_hbf_immediate() -> None:
    t = Table().start(length=1, profile="hbf", clock={"minutes_per_point": 1, "delay_s": 10}).opening(1, 6)
    t.wait(70 * SECOND).send("tick").ok()  # B: 10 s delay + 60 s reserve
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("A", "time", "finished")


# -- 4.8 wrong match length -----------------------------------------------------------------------


def test_4_8_length_corrected_at_the_start_of_the_next_game() -> None:
    t = Table().start(length=11).game("A", "gammon").opening()
    t.cmd("set_length", length=9, note="schedule said 9").ok()
    assert t.event("set_length")["pending"] is True
    snap = t.snap()
    assert snap["length"] == 11 and snap["pending_length"] == 9  # never mid-game
    t.send("win", side="B", kind="single").ok()
    assert t.snap()["length"] == 11
    t.opening()
    assert t.event("length_changed")["length"] == 9
    snap = t.snap()
    assert snap["length"] == 9 and snap["pending_length"] is None
    assert snap["corrections"] == [
        {"kind": "length", "before": "11", "after": "9", "note": "schedule said 9", "id": "c1", "age_ms": 0}
    ]


def test_4_8_length_corrected_between_games_at_once() -> None:
    t = Table().start(length=5).game("A")
    t.cmd("set_length", length=7).ok()
    assert t.event("set_length")["pending"] is False and t.snap()["length"] == 7


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu", "ffbg-cdf"])
def test_4_8_a_finished_match_stands(profile: str) -> None:
    """WBGF/HBF 4.8; HU 4.2 and FFBG 4.2 ("le perdant ne peut exiger réparation") alike."""
    t = Table().start(length=3, profile=profile).game("A", "backgammon")
    t.cmd("set_length", length=5)
    t.refused("a finished match stands (4.8)", code="length.finished")
    assert t.snap()["winner"] == "A" and t.snap()["length"] == 3


def test_4_8_shorter_length_that_would_end_the_match_is_impossible() -> None:
    t = Table().start(length=9).game("A", "gammon").game("A", "gammon").game("A", "gammon")  # 6-0
    t.cmd("set_length", length=5)
    t.refused("impossible (4.8)", "play continues at 9", code="length.impossible")
    assert t.snap()["length"] == 9
    t.cmd("set_length", length=6)  # reaching exactly the new length would end it too
    t.refused("impossible")
    t.cmd("set_length", length=7).ok()  # 6-0 of 7 does not end the match
    assert t.snap()["length"] == 7 and t.snap()["crawford"] is True


def test_4_8_pending_correction_that_becomes_impossible_is_dropped() -> None:
    t = Table().start(length=9).game("A", "gammon").game("A", "gammon").opening()  # 4-0, in play
    t.cmd("set_length", length=5).ok()  # 4 < 5: possible when asked
    t.send("win", side="A", kind="single").ok()  # 5-0: at 5 it would be over -> impossible at the next game
    assert t.snap()["winner"] is None and t.snap()["length"] == 9
    t.opening()
    refused = t.event("length_refused")
    assert refused["length"] == 5 and "impossible" in refused["reason"]
    assert t.snap()["length"] == 9 and t.snap()["pending_length"] is None


def test_4_8_match_finished_by_the_game_in_progress_stands_at_the_wrong_length() -> None:
    t = Table().start(length=3).game("A").opening()  # 1-0
    t.cmd("set_length", length=5).ok()
    t.send("win", side="A", kind="gammon").ok()  # 3-0 of the wrong length 3
    snap = t.snap()
    assert (snap["winner"], snap["length"], snap["end_reason"]) == ("A", 3, "points")


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
def test_hu_4_3_and_ffbg_4_5_the_length_is_corrected_at_once(profile: str) -> None:
    """HU 4.3 ("a szkórlap kiigazításra kerül és a játék folytatódik a hivatalos meccshossz
    szerint") and FFBG 4.5 ("ils doivent rectifier l'erreur"): corrected at once, mid-game too."""
    t = Table().start(length=11, profile=profile).game("A", "gammon").opening()  # 2-0, in play
    t.cmd("set_length", length=7).ok()
    assert t.event("set_length")["pending"] is False
    snap = t.snap()
    assert snap["length"] == 7 and snap["pending_length"] is None and snap["phase"] == "playing"
    assert snap["legal"]["td"]["length_correction"] == "at_once"


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
def test_hu_ffbg_a_correction_the_leader_has_already_reached_wins_the_match(profile: str) -> None:
    """HU 4.3 / FFBG 4.5: play is to the official length; the player who already has it has won."""
    t = Table().start(length=11, profile=profile).game("A", "gammon").game("A", "gammon").game("A", "gammon")
    t.cmd("set_length", length=5).ok()  # 6-0 of 5
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["length"], snap["phase"]) == (
        "A",
        "points",
        5,
        "finished",
    )


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
def test_hu_ffbg_a_correction_is_impossible_when_both_have_the_points(profile: str) -> None:
    """HU 4.3 / FFBG 4.5 name no winner when both players are at or past the official length:
    the correction is refused and the TD decides (correct_score)."""
    t = Table().start(length=11, profile=profile)
    t.cmd("correct_score", score={"A": 6, "B": 5}, note="sheet").ok()
    t.cmd("set_length", length=5)
    t.refused("both players", code="length.impossible_both")
    assert t.snap()["length"] == 11 and t.snap()["winner"] is None


def test_4_4_iv_crawford_recomputed_after_a_length_correction() -> None:
    """4.4 iv under the corrected length: a Crawford game played one point short of the wrong
    length was not the Crawford game of the right one; it comes when someone is one away."""
    t = Table().start(length=5).game("A", "gammon").game("A", "gammon").game("B")  # 4-1: g3 Crawford
    assert t.match.crawford_game == 3
    t.cmd("set_length", length=9).ok()
    assert t.event("set_length")["crawford_game"] is None
    assert t.snap()["crawford"] is False and t.snap()["post_crawford"] is False
    t.game("A", "gammon").game("A", "gammon")  # 8-1 of 9: the next game is the Crawford game
    assert t.snap()["crawford"] is True
    t.opening()
    assert t.match.crawford_game == 6 and t.snap()["legal"]["A"]["why"]["double"] == "double.crawford"


def test_hu_crawford_recomputed_mid_game_when_the_length_changes_at_once() -> None:
    """HU 4.3 applies at once: the game in progress started one away from the right length, so it
    is the Crawford game: a double in it is one the rule forbids, recorded for the leader to keep
    or void (HU 7.5); and the other way round."""
    t = Table().start(length=11, profile="hu").game("A", "gammon").game("A", "gammon").game("A", "gammon")
    t.opening(6, 1)  # 6-0 of 11, game 4 in play with the cube
    t.cmd("set_length", length=7).ok()
    assert t.match.crawford_game == 4 and t.snap()["crawford"] is True
    assert t.snap()["legal"]["B"]["crawford_double"] and not t.snap()["legal"]["B"]["double"]
    t.send("double", side="B").ok()
    assert t.event("double")["crawford"] is True and t.snap()["legal"]["td"]["crawford_double"]
    t.cmd("crawford_double", choice="void").ok()  # A, the leader, voids it
    cube = t.snap()["cube"]
    assert (cube["value"], cube["owner"], cube["offered_by"]) == (1, None, None)
    t.cmd("set_length", length=11).ok()
    assert t.match.crawford_game is None and t.snap()["crawford"] is False


def test_4_8_length_out_of_range_refused() -> None:
    t = Table().start(length=7)
    t.cmd("set_length", length=0)
    t.refused("length")
    t.cmd("set_length", length="9")
    t.refused("length")


# -- TD corrections and waivers -------------------------------------------------------------------


def test_4_7_td_score_correction_is_logged() -> None:
    t = Table().start(length=7).game("A").game("B")
    t.cmd("correct_score", score={"A": 2, "B": 1}, note="single counted as gammon").ok()
    event = t.event("correct_score")
    assert event["before"] == "1-1" and event["score"] == {"A": 2, "B": 1}
    snap = t.snap()
    assert snap["score"] == {"A": 2, "B": 1}
    assert snap["corrections"] == [
        {
            "kind": "score",
            "before": "1-1",
            "after": "2-1",
            "note": "single counted as gammon",
            "id": "c1",
            "age_ms": 0,
        }
    ]
    assert event["note"] == "single counted as gammon"
    assert len(snap["games"]) == 2  # the game record is kept as played


def test_4_6_correcting_a_wrong_final_score_reopens_the_match() -> None:
    t = Table().start(length=3).game("A").game("A", "gammon")
    assert t.snap()["winner"] == "A"
    t.cmd("correct_score", score={"A": 2, "B": 0}, note="was a single").ok()
    snap = t.snap()
    assert (snap["winner"], snap["phase"], snap["score"]) == (None, "between_games", {"A": 2, "B": 0})
    t.game("A")
    assert t.snap()["winner"] == "A"


def test_correcting_the_score_of_a_forfeited_match_keeps_the_forfeit() -> None:
    """4.7: a score correction does not undo a forfeit."""
    t = Table().start(length=7).game("B")
    t.cmd("forfeit", against="A", reason="conduct").ok()
    t.cmd("correct_score", score={"A": 0, "B": 2}, note="sheet").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("B", "forfeit", "finished")
    assert snap["score"] == {"A": 0, "B": 2}


def test_2_2_iii_waiving_a_penalty_gives_the_point_back() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", "late:m1:B:1", against="B", points=1, reason="late").ok()
    t.cmd("waive", penalty_id="late:m1:B:1").ok()
    snap = t.snap()
    assert snap["score"] == {"A": 0, "B": 0} and snap["penalties"] == {"A": 0, "B": 0}
    assert snap["penalty_log"][0]["waived"] is True
    t.cmd("waive", penalty_id="late:m1:B:1")
    t.refused("already waived")
    t.cmd("waive", penalty_id="nope")
    t.refused("no penalty with id nope")


def test_2_2_iii_waiving_the_penalty_that_ended_the_match_reopens_it() -> None:
    t = Table().start(length=3).game("A", "gammon").opening(1, 6)  # 2-0, B moving
    t.cmd("penalty", "pen-7", against="B", points=1, reason="conduct").ok()
    assert t.snap()["winner"] == "A"
    t.cmd("waive", penalty_id="pen-7").ok()
    assert t.event("waive")["reopened"] is True
    snap = t.snap()
    assert (snap["winner"], snap["phase"], snap["score"]) == (None, "playing", {"A": 2, "B": 0})
    assert t.match.in_game and t.state.turn == "B"  # the interrupted game goes on
    t.send("win", side="B", kind="gammon").ok()
    assert t.score() == (2, 2)


def test_2_2_iii_waiving_one_late_point_undoes_a_lateness_forfeit() -> None:
    t = Table().assign(length=7)
    for n in (1, 2, 3, 4):
        t.cmd("penalty", f"late:m1:B:{n}", against="B", points=1, reason="late").ok()
    assert t.snap()["end_reason"] == "lateness"
    t.cmd("waive", penalty_id="late:m1:B:2").ok()
    snap = t.snap()
    assert (snap["winner"], snap["phase"], snap["score"]) == (None, "waiting", {"A": 3, "B": 0})


def test_waiving_an_unrelated_penalty_does_not_undo_a_forfeit() -> None:
    """2.2 iii: a waiver reopens a match only if that penalty ended it (or the forfeit itself)."""
    t = Table().start(length=7)
    t.cmd("penalty", "pen-1", against="A", points=1, reason="conduct").ok()
    t.cmd("forfeit", "f-1", against="A", reason="conduct").ok()
    t.cmd("waive", penalty_id="pen-1").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("B", "forfeit", "finished")
    assert snap["score"] == {"A": 0, "B": 0}
    t.cmd("waive", penalty_id="f-1").ok()  # the forfeit itself taken back
    assert t.snap()["phase"] == "opening" and t.snap()["winner"] is None


def test_waiver_refused_on_a_match_finished_by_play() -> None:
    """2.2 iii / 4.6: a match finished by play is corrected by the TD's score correction, not a waiver."""
    t = Table().start(length=1)
    t.cmd("penalty", "pen-1", against="A", points=1, reason="conduct")  # B wins 1-0 by the point
    t2 = Table().start(length=3)
    t2.cmd("penalty", "pen-1", against="A", points=1, reason="conduct").ok()
    t2.game("B", "gammon")  # 0-3 by play
    t2.cmd("waive", penalty_id="pen-1")
    t2.refused("the match is over")
    assert t.snap()["winner"] == "B"


# -- lateness and break overruns together (2.2 iv) ------------------------------------------------


def test_2_2_iv_lateness_and_break_overrun_points_together_forfeit_the_match() -> None:
    """2.2 iv: "Brudd på reglene for starttider og pauser kan resultere i straffepoeng ... Når det
    er ilagt straffepoeng svarende til mer enn halve kamplengden, utropes motstanderen til
    vinner": late points and break-overrun points count together."""
    t = Table().start(length=7).game("A")
    t.cmd("penalty", "late:m1:B:1", against="B", points=1, reason="late").ok()
    t.cmd("penalty", "late:m1:B:2", against="B", points=1, reason="late").ok()
    t.cmd("penalty", "overrun:m1:B:1", against="B", points=1, reason="break_overrun").ok()
    assert t.snap()["winner"] is None  # 3 of 7: not more than half
    t.cmd("penalty", "pen-by-td", against="B", points=1, reason="break_overrun").ok()  # entered by the TD
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("A", "lateness", "finished")


def test_2_2_iv_other_penalties_do_not_count_towards_the_lateness_forfeit() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", against="B", points=3, reason="conduct").ok()
    t.cmd("penalty", against="B", points=1, reason="late").ok()
    assert t.snap()["winner"] is None  # 1 lateness point; the conduct points are not lateness


def test_2_2_iii_waiving_an_overrun_point_reopens_a_lateness_forfeit() -> None:
    t = Table().start(length=3)
    t.cmd("penalty", "l1", against="B", points=1, reason="late").ok()
    t.cmd("penalty", "o1", against="B", points=1, reason="break_overrun").ok()
    assert t.snap()["end_reason"] == "lateness"
    t.cmd("waive", penalty_id="l1").ok()
    assert t.snap()["winner"] is None and t.event("waive")["reopened"] is True


# -- a doubled player who pauses the clock (4.4 iii) ------------------------------------------


def test_4_4_iii_wbgf_the_doubled_player_who_pauses_the_clock_has_passed() -> None:
    """WBGF 4.4 iii: "handlinger som å sette spillklokken på pause ... anses som å avslå
    doblingen"."""
    t = Table().start(length=7, clock=True).opening(1, 6)  # B moving; B's clock
    t.send("press", side="B").ok()  # A's turn
    t.send("double", side="A").ok()
    t.send("press", side="A").ok()  # B's clock runs for the decision
    assert t.snap()["legal"]["B"]["pause_passes"] is True
    assert t.snap()["legal"]["A"]["pause_passes"] is False
    t.send("pause", side="B", reason="dispute").ok()
    pause = t.event("pause")
    assert pause["passes"] is True
    game = t.event("game_over")
    assert (game["winner"], game["kind"], game["points"]) == ("A", "pass", 1)
    assert t.snap()["phase"] == "between_games" and t.snap()["clock"]["running"] is None


def test_4_4_iii_a_pause_by_the_doubler_is_only_a_pause() -> None:
    t = Table().start(length=7, clock=True).opening(1, 6)
    t.send("press", side="B").ok()
    t.send("double", side="A").ok()
    t.send("pause", side="A", reason="dispute").ok()
    assert "passes" not in t.event("pause") and t.snap()["phase"] == "paused"
    assert t.snap()["cube"]["offered_by"] == "A"


@pytest.mark.parametrize("profile", ["hbf", "hu", "ffbg-cdf"])
def test_4_4_iii_elsewhere_a_pause_while_doubled_is_only_a_pause(profile: str) -> None:
    """HBF 4.4 iv, HU 8.7, FFBG 11.12 describe the pass (and its pause) but not a pause as a pass."""
    t = Table().start(length=7, profile=profile, clock=True).opening(1, 6)
    t.send("press", side="B").ok()
    t.send("double", side="A").ok()
    t.send("press", side="A").ok()
    t.send("pause", side="B", reason="equipment" if profile != "hbf" else "dispute").ok()
    assert t.snap()["phase"] == "paused" and t.snap()["cube"]["offered_by"] == "A"
    assert t.snap()["legal"]["B"]["pause_passes"] is False
