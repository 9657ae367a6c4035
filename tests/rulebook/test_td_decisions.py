"""The decisions the rules give the TD about the cube and the match, as TD commands (docs/protocol.md
§3.4): forbid a player's doubles for the rest of the game (HU 7.9), enter the double a player must
make (FFBG 6.8), the leader's choice about a double made in the Crawford game (HU 7.5, FFBG 6.5),
and the double loss (FFBG 10.3). Each is offered only under the profiles whose text gives it.
"""

from __future__ import annotations

import pytest

from rulebook.errors import CommandError
from rulebook.legal import check_command
from rulebook.parse import parse_command
from tests.rulebook.helpers import MINUTE, SETUPS, Table, finish_turn, setup_table

PROFILES = ("wbgf-2023", "hbf", "hu", "ffbg-cdf")


def _both_judge(t: Table, fields: dict[str, object], code: str | None) -> None:
    """The hub's judgement (from the state and from the published snapshot) agrees with the
    table's: ``code`` is the refusal (None: applied)."""
    cmd = parse_command(fields)
    for judged in (t.state, t.snap()):
        try:
            check_command(judged, cmd)  # type: ignore[arg-type]
            said = None
        except CommandError as exc:
            said = exc.code
        assert said == code, (judged if isinstance(judged, dict) else "state", said, code)


# -- HU 7.9: the referee forbids a player to double in that game ----------------------------------


@pytest.mark.parametrize("setup", SETUPS)
def test_hu_7_9_the_td_forbids_a_players_doubles_for_the_rest_of_the_game(setup: str) -> None:
    """HU 7.9: "Ha egyszer a játékos megfogta a tétkockát, használnia is kell azt, ellenkező esetben
    ellenfele bírót hívhat, aki a játékost eltilthatja a duplázástól az adott partiban"."""
    t = setup_table(setup, profile="hu").opening(6, 1)
    assert t.snap()["legal"]["td"]["forbid_double"] == ["A", "B"]
    _both_judge(t, {"type": "forbid_double", "side": "B"}, None)
    t.cmd("forbid_double", side="B").ok()
    assert t.event("forbid_double")["side"] == "B"
    assert t.snap()["legal"]["td"]["forbid_double"] == ["A"]
    _both_judge(t, {"type": "forbid_double", "side": "B"}, "double.forbidden")
    finish_turn(t, "A")
    legal = t.snap()["legal"]["B"]
    assert not legal["double"] and legal["why"]["double"] == "double.forbidden"
    t.send("double", side="B")
    t.refused(code="double.forbidden")
    t.send("win", side="B", kind="single").ok()
    _both_judge(t, {"type": "forbid_double", "side": "A"}, "double.no_game")
    t.opening(1, 6)  # the next game frees him
    finish_turn(t, "B")
    t.send("double", side="A").ok()


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "ffbg-cdf"])
def test_hu_7_9_elsewhere_the_td_has_no_such_command(profile: str) -> None:
    t = Table().start(profile=profile).opening(6, 1)
    assert t.snap()["legal"]["td"]["forbid_double"] == []
    assert t.snap()["legal"]["td"]["why"]["forbid_double"] == "cmd.not_in_profile"
    _both_judge(t, {"type": "forbid_double", "side": "A"}, "cmd.not_in_profile")
    t.cmd("forbid_double", side="A")
    t.refused(profile, code="cmd.not_in_profile")


# -- FFBG 6.8: handling the cube obliges the player to double --------------------------------------


@pytest.mark.parametrize("setup", SETUPS)
def test_ffbg_6_8_the_td_enters_the_double_a_player_must_make(setup: str) -> None:
    """FFBG 6.8: "Une manipulation du videau peut donc entraîner l'obligation de doubler ou de
    redoubler": the TD enters the player's double; the opponent answers it as any other."""
    t = setup_table(setup, profile="ffbg-cdf").opening(6, 1)
    finish_turn(t, "A")  # B's turn, before B rolls
    assert "B" in t.snap()["legal"]["td"]["force_double"]
    t.cmd("force_double", side="B").ok()
    assert [e["type"] for e in t.events[:2]] == ["force_double", "double"]
    assert t.event("double")["forced"] is True and t.snap()["cube"]["offered_by"] == "B"
    assert t.snap()["legal"]["td"]["force_double"] == []  # a double waits
    _both_judge(t, {"type": "force_double", "side": "A"}, "double.offered")
    if t.state.clock.enabled:
        t.send("press", side="B").ok()  # the doubler presses, as after his own double
    t.send("take", side="A").ok()
    assert t.snap()["cube"] == t.snap()["cube"] | {"value": 2, "owner": "A"}
    _both_judge(t, {"type": "force_double", "side": "B"}, "double.cube_owned")
    t.cmd("force_double", side="B")
    t.refused(code="double.cube_owned")


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu"])
def test_ffbg_6_8_elsewhere_the_td_does_not_enter_a_double(profile: str) -> None:
    t = Table().start(profile=profile).opening(6, 1)
    assert t.snap()["legal"]["td"]["force_double"] == []
    t.cmd("force_double", side="B")
    t.refused(code="cmd.not_in_profile")


# -- HU 7.5, FFBG 6.5: a double made in the Crawford game -----------------------------------------


def _crawford(setup: str, profile: str) -> Table:
    """A 3-point match at 2-0 for A: the Crawford game in play, B (the trailer) on turn."""
    t = setup_table(setup, length=3, profile=profile)
    t.opening(6, 1).send("win", side="A", kind="gammon").ok()
    t.opening(6, 1)
    assert t.snap()["crawford"] is True and t.match.crawford_leader() == "A"
    return finish_turn(t, "A")


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf"])
def test_4_4_iv_a_double_in_the_crawford_game_is_refused(profile: str) -> None:
    """WBGF 4.4 iv: "Enhver kubeaksjon i løpet av Crawfordpartiet er ugyldig"; HBF 4.4 iv: the TD
    must void it: the table refuses it outright, and the TD has no choice to enter."""
    t = _crawford("scoreboard", profile)
    assert not t.snap()["legal"]["B"]["crawford_double"]
    t.send("double", side="B")
    t.refused(code="double.crawford")
    t.cmd("crawford_double", choice="keep")
    t.refused(code="cmd.not_in_profile")


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
@pytest.mark.parametrize("setup", SETUPS)
def test_hu_7_5_ffbg_6_5_the_leader_voids_a_crawford_double_in_the_game(setup: str, profile: str) -> None:
    """FFBG 6.5: "Si le videau est envoyé par erreur lors de la partie « Crawford », le joueur en tête
    dans le match peut invalider le double illégal"; HU 7.5 likewise. The double is recorded (the
    table's cube matches the board) and the TD enters the leader's choice; voided, the cube is back
    in the middle and the doubler's turn goes on."""
    t = _crawford(setup, profile)
    legal = t.snap()["legal"]["B"]
    assert legal["crawford_double"] and not legal["double"] and not legal["premature_double"]
    assert t.snap()["legal"]["td"]["crawford_double"] is False
    _both_judge(t, {"type": "crawford_double", "choice": "void"}, "crawford.none")
    t.send("double", side="B").ok()
    assert t.event("double")["crawford"] is True and t.snap()["cube"]["offered_by"] == "B"
    assert t.snap()["legal"]["td"]["crawford_double"] is True
    _both_judge(t, {"type": "crawford_double", "choice": "void"}, None)
    t.cmd("crawford_double", choice="void").ok()
    assert t.event("crawford_double") | {"choice": "void"} == t.event("crawford_double")
    cube = t.snap()["cube"]
    assert (cube["value"], cube["owner"], cube["offered_by"]) == (1, None, None)
    assert t.state.turn == "B" and t.snap()["legal"]["td"]["crawford_double"] is False
    t.send("win", side="B", kind="single").ok()
    assert t.score() == (2, 1)


def test_ffbg_6_10_a_take_ratifies_the_crawford_double() -> None:
    """FFBG 6.10: "L'acceptation d'un videau ratifie la validité de celui-ci": once the leader took
    it, the choice is gone, and the game is played for the cube."""
    t = _crawford("scoreboard", "ffbg-cdf")
    t.send("double", side="B").ok()
    t.send("take", side="A").ok()
    assert t.snap()["legal"]["td"]["crawford_double"] is False
    t.cmd("crawford_double", choice="void")
    t.refused(code="crawford.none")
    t.send("win", side="B", kind="gammon").ok()
    assert t.score() == (2, 4) and t.snap()["winner"] == "B"


def test_hu_7_5_the_leader_voids_a_double_he_took_until_the_next_game_starts() -> None:
    """HU 7.5: "Amennyiben a meccsben vezető játékos elfogad egy duplázást Crawford-játék alatt, a
    duplázást érvénytelenítheti a következő játék megkezdése előtti pillanatig": after the game the
    game is scored again without the cube."""
    t = setup_table("scoreboard", length=5, profile="hu")
    t.opening(6, 1).send("win", side="A", kind="backgammon").ok()  # 3-0
    t.opening(6, 1).send("win", side="A", kind="single").ok()  # 4-0: the Crawford game next
    t.opening(1, 6)
    t.send("double", side="B").ok()
    t.send("take", side="A").ok()
    assert t.snap()["legal"]["td"]["crawford_double"] is True  # HU: a take does not close it
    t.send("win", side="B", kind="gammon").ok()  # 4 points at 2: 4-4
    assert t.score() == (4, 4) and t.snap()["legal"]["td"]["crawford_double"] is True
    t.cmd("crawford_double", choice="void").ok()
    event = t.event("crawford_double")
    assert (event["game"], event["points"], event["score"]) == (3, 2, {"A": 4, "B": 2})
    assert t.score() == (4, 2) and t.snap()["games"][-1] | {"cube": 1, "points": 2} == t.snap()["games"][-1]
    t.cmd("crawford_double", choice="void")
    t.refused(code="crawford.none")


def test_hu_7_5_a_void_after_the_last_game_reopens_the_match() -> None:
    """The trailer won the match with the leader's cube in the Crawford game; the leader voids it
    before anything else: the match goes on (HBF 4.4 iv c spells the same out)."""
    t = setup_table("scoreboard", length=3, profile="hu")
    t.opening(6, 1).send("win", side="A", kind="gammon").ok()  # 2-0: Crawford next
    t.opening(1, 6)
    t.send("double", side="B").ok()
    t.send("take", side="A").ok()
    t.send("win", side="B", kind="gammon").ok()  # 4 points: B wins 2-4
    assert t.snap()["phase"] == "finished" and t.snap()["winner"] == "B"
    t.cmd("crawford_double", choice="void").ok()
    assert t.event("crawford_double")["reopened"] is True
    assert t.score() == (2, 2) and t.snap()["phase"] == "between_games" and t.snap()["winner"] is None


def test_hu_7_5_keep_closes_the_choice_and_a_pass_leaves_nothing_to_void() -> None:
    t = _crawford("scoreboard", "hu")  # a scoreboard: either player may double when the cube allows
    t.send("double", side="A").ok()  # the leader doubles: a double the rule forbids, his to void
    t.send("take", side="B").ok()
    t.cmd("crawford_double", choice="keep").ok()
    assert t.snap()["legal"]["td"]["crawford_double"] is False and t.snap()["cube"]["value"] == 2
    t.send("double", side="B").ok()  # B redoubles: another double the rule forbids
    assert t.snap()["legal"]["td"]["crawford_double"] is True
    t.cmd("crawford_double", choice="void").ok()  # back to the cube the leader kept
    cube = t.snap()["cube"]
    assert (cube["value"], cube["owner"], cube["offered_by"]) == (2, "B", None)
    t.send("double", side="B").ok()
    t.send("pass", side="A").ok()  # a pass: nothing was taken (HU 7.5 speaks of a double taken)
    assert t.snap()["legal"]["td"]["crawford_double"] is False and t.score() == (2, 2)


# -- FFBG 10.3: both players lose ---------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS)
def test_ffbg_10_3_the_td_declares_a_double_loss(setup: str) -> None:
    """FFBG 10.3: "Si une table est abandonnée par les 2 joueurs alors que la pendule est
    neutralisée ... même si cela fait perdre le match ... aux deux joueurs, auquel cas les deux
    joueurs marquent 0 point": the match ends with no winner; a waiver of the decision reopens it."""
    t = setup_table(setup, profile="ffbg-cdf").opening(6, 1)
    t.cmd("pause", reason="td").ok()
    t.wait(10 * MINUTE)
    assert t.snap()["legal"]["td"]["double_loss"] is True
    t.cmd("double_loss", "dl-1", note="table abandoned on a neutralised clock").ok()
    assert t.event("double_loss")["note"] == "table abandoned on a neutralised clock"
    over = t.event("match_over")
    assert over["winner"] is None and over["end_reason"] == "double_loss"
    snap = t.snap()
    assert (snap["phase"], snap["winner"], snap["end_reason"]) == ("finished", None, "double_loss")
    assert snap["legal"]["td"]["double_loss"] is False and snap["legal"]["td"]["waive"] == ["dl-1"]
    t.send("double", side="B")
    t.refused(code="match.over")
    t.cmd("waive", penalty_id="dl-1").ok()
    # as a forfeit waived: the table is as it was the moment before, the TD's pause standing again
    assert t.snap()["phase"] == "paused" and t.snap()["end_reason"] is None


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu"])
def test_ffbg_10_3_elsewhere_no_double_loss(profile: str) -> None:
    t = Table().start(profile=profile, clock=True).opening(6, 1)
    assert t.snap()["legal"]["td"]["double_loss"] is False
    t.cmd("double_loss")
    t.refused(code="cmd.not_in_profile")


def test_ffbg_10_3_a_double_loss_after_a_flag() -> None:
    """The five minutes taken from each clock made one of them flag: the TD still decides both lose."""
    t = setup_table("clock", profile="ffbg-cdf").opening(6, 1)
    t.cmd("set_time", reserve_ms={"A": 1000, "B": 60_000}).ok()
    t.wait(20_000).send("tick")
    assert t.snap()["phase"] == "flag"
    t.cmd("double_loss").ok()
    assert t.snap()["end_reason"] == "double_loss" and t.snap()["td_calls"] == {"A": False, "B": False}


@pytest.mark.parametrize("profile", PROFILES)
def test_the_new_commands_are_refused_without_a_match(profile: str) -> None:
    t = Table()
    for kind, fields in (
        ("forbid_double", {"side": "A"}),
        ("force_double", {"side": "A"}),
        ("crawford_double", {"choice": "keep"}),
        ("double_loss", {}),
    ):
        t.cmd(kind, **fields)
        assert t.rejection_code() in ("match.none", "cmd.not_in_profile"), (kind, t.events)
