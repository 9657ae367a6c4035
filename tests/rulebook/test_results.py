"""Undo, match end reasons, wrong match length (4.8), TD corrections (4.6, 4.7) and waivers (2.2 iii)."""

from __future__ import annotations

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
    t.send("win", side="A").ok()
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
    t.send("win", side="B").ok()
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
    t.send("win", side="A").ok()
    t.cmd("penalty", "pen-1", against="A", points=1, reason="conduct").ok()
    t.send("undo")
    t.refused("nothing to undo")
    assert t.score() == (1, 1)


def test_undo_keeps_an_active_pause() -> None:
    """4.3 ii: undo during a pause leaves the clock paused."""
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()
    t.send("double", side="A").ok()
    t.send("pause", reason="dispute").ok()
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


def test_end_reason_td_when_a_correction_reaches_the_length() -> None:
    """4.7: a TD score correction that reaches the length ends the match (end_reason td)."""
    t = Table().start(length=7).game("A")
    t.cmd("correct_score", score={"A": 7, "B": 3}, note="sheet").ok()
    assert (t.snap()["winner"], t.snap()["end_reason"]) == ("A", "td")


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
    t.send("win", side="B").ok()
    assert t.snap()["length"] == 11
    t.opening()
    assert t.event("length_changed")["length"] == 9
    snap = t.snap()
    assert snap["length"] == 9 and snap["pending_length"] is None
    assert snap["corrections"] == [
        {"kind": "length", "before": "11", "after": "9", "note": "schedule said 9"}
    ]


def test_4_8_length_corrected_between_games_at_once() -> None:
    t = Table().start(length=5).game("A")
    t.cmd("set_length", length=7).ok()
    assert t.event("set_length")["pending"] is False and t.snap()["length"] == 7


def test_4_8_a_finished_match_stands() -> None:
    t = Table().start(length=3).game("A", "backgammon")
    t.cmd("set_length", length=5)
    t.refused("a finished match stands (4.8)")
    assert t.snap()["winner"] == "A" and t.snap()["length"] == 3


def test_4_8_shorter_length_that_would_end_the_match_is_impossible() -> None:
    t = Table().start(length=9).game("A", "gammon").game("A", "gammon").game("A", "gammon")  # 6-0
    t.cmd("set_length", length=5)
    t.refused("impossible (4.8)", "play continues at 9")
    assert t.snap()["length"] == 9
    t.cmd("set_length", length=6)  # reaching exactly the new length would end it too
    t.refused("impossible")
    t.cmd("set_length", length=7).ok()  # 6-0 of 7 does not end the match
    assert t.snap()["length"] == 7 and t.snap()["crawford"] is True


def test_4_8_pending_correction_that_becomes_impossible_is_dropped() -> None:
    t = Table().start(length=9).game("A", "gammon").game("A", "gammon").opening()  # 4-0, in play
    t.cmd("set_length", length=5).ok()  # 4 < 5: possible when asked
    t.send("win", side="A").ok()  # 5-0: at 5 it would be over -> impossible at the next game
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
        {"kind": "score", "before": "1-1", "after": "2-1", "note": "single counted as gammon"}
    ]
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
    t.cmd("correct_score", score={"A": 0, "B": 2}).ok()
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
