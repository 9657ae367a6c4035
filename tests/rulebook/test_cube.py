"""The doubling cube (WBGF 4.4 ii-vii; RULES.md §1)."""

from __future__ import annotations

import dataclasses

import pytest

from rulebook.profiles import profile_from_mapping
from tests.rulebook.helpers import SECOND, Table


def test_4_4_iii_take_gives_the_cube_to_the_taker_at_twice_the_value() -> None:
    t = Table().start(length=11).opening(6, 1)
    t.double_take("B", "A")
    cube = t.snap()["cube"]
    assert (cube["value"], cube["owner"], cube["offered_by"]) == (2, "A", None)
    assert t.event("take")["value"] == 2


def test_4_4_ii_only_the_cube_owner_may_redouble() -> None:
    t = Table().start(length=11).opening(6, 1)
    t.double_take("B", "A")  # A owns 2; B on turn before rolling
    assert t.state.turn == "B" and t.snap()["cube"]["usable"] == {"A": False, "B": False}
    t.send("double", side="B")
    t.refused("the cube is owned by A")
    t.pass_turn()
    assert t.snap()["cube"]["usable"] == {"A": True, "B": False}
    t.send("double", side="A").ok()
    assert t.snap()["cube"]["offered_by"] == "A"


def test_4_4_iii_pending_offer_rules() -> None:
    t = Table().start(length=11).opening(1, 6)
    t.pass_turn()  # B moved; A on turn
    t.send("take", side="B")
    t.refused("no double to take")
    t.send("pass", side="B")
    t.refused("no double to pass")
    t.send("double", side="A").ok()
    assert t.snap()["cube"] == {
        "value": 1,
        "owner": None,
        "offered_by": "A",
        "usable": {"A": False, "B": False},
    }
    t.send("double", side="A")
    t.refused("already offered")
    t.send("take", side="A")
    t.refused("doubler cannot take")
    t.send("pass", side="A")
    t.refused("doubler cannot pass")
    t.send("roll", dice=[3, 1], source="tower")
    t.refused("a double is waiting")
    assert t.event("roll")["premature"] is True
    t.send("take", side="B").ok()
    assert t.snap()["cube"]["owner"] == "B"


def test_4_4_vii_dead_cube_cannot_be_redoubled() -> None:
    t = Table().start(length=7).game("A", "gammon").game("B", "gammon").game("A")  # 3-2
    t.opening(6, 1)
    t.double_take("B", "A")  # A owns 2 at 3-2: 3 + 2 = 5 < 7, alive
    t.double_take("A", "B")  # B owns 4 at 3-2: 2 + 4 = 6 < 7, alive
    t.double_take("B", "A")  # A owns 8: 3 + 8 >= 7: dead for A
    while t.state.turn != "A" or t.state.rolled:
        t.pass_turn()
    assert t.snap()["cube"]["usable"]["A"] is False
    t.send("double", side="A")
    t.refused("dead cube", "4.4 vii")
    assert t.snap()["cube"]["value"] == 8 and t.snap()["cube"]["offered_by"] is None
    t.send("win", side="A", kind="single").ok()
    assert t.snap()["winner"] == "A" and t.score() == (11, 2)


def test_4_4_vii_dead_cube_owned_at_exactly_the_points_needed() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", against="A", points=5, reason="conduct").ok()  # B at 5: two away
    t.opening(6, 1)
    t.double_take("A", "B")  # B owns 2: 5 + 2 = 7 -> dead for B
    while t.state.turn != "B" or t.state.rolled:
        t.pass_turn()
    t.send("double", side="B")
    t.refused("dead cube")


def test_4_4_vii_dead_cube_rule_off_in_a_custom_profile() -> None:
    t = Table().start(length=7)
    custom = profile_from_mapping({"base": "wbgf-2023", "dead_cube": False})
    t.state = dataclasses.replace(t.state, profile=custom)
    t.cmd("penalty", against="A", points=5, reason="conduct").ok()
    t.opening(6, 1)
    t.double_take("A", "B")
    while t.state.turn != "B" or t.state.rolled:
        t.pass_turn()
    t.send("double", side="B").ok()


def test_4_4_vi_cube_turned_to_a_wrong_value_is_corrected() -> None:
    t = Table().start(length=11).opening(1, 6)
    t.pass_turn()
    t.send("double", side="A", value=8).ok()
    event = t.event("double")
    assert event["value"] == 2 and event["corrected_from"] == 8
    t.send("take", side="B").ok()
    assert t.snap()["cube"]["value"] == 2
    t.pass_turn()
    t.send("double", side="B", value=4).ok()  # the right value: no correction
    assert "corrected_from" not in t.event("double")


def test_4_4_ii_cube_value_has_a_top() -> None:
    t = Table().start(length=99).opening(6, 1)
    doubler, taker = "B", "A"
    for _ in range(6):  # 2, 4, ... 64
        t.double_take(doubler, taker)
        doubler, taker = taker, doubler
    assert t.snap()["cube"]["value"] == 64
    while t.state.turn != doubler or t.state.rolled:
        t.pass_turn()
    t.send("double", side=doubler)
    t.refused("highest value")


def test_4_4_v_a_double_at_the_start_of_the_opponents_turn_is_premature_and_stands() -> None:
    """4.4 v: "dersom en spiller dobler før slutføring av motstanderens tur skal doblingen stå
    dersom den ellers er gyldig": B has ended his turn, A's turn has begun (A has not rolled), B
    doubles: the double stands; A may still roll and move, then answers."""
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()  # B moved and pressed; A on turn, not rolled yet
    assert t.snap()["cube"]["usable"] == {"A": True, "B": False}  # a proper double is A's
    assert t.snap()["legal"]["B"]["premature_double"] is True
    t.send("double", side="B").ok()
    assert t.event("double")["premature"] is True and t.state.turn == "A"
    t.send("roll", dice=[3, 1], source="tower").ok()  # A finishes the turn knowing of the double
    assert t.event("roll")["side"] == "A"
    t.send("take", side="A").ok()
    t.send("press", side="A").ok()
    assert t.state.turn == "B"
    assert t.snap()["cube"] == {
        "value": 2,
        "owner": "A",
        "offered_by": None,
        "usable": {"A": False, "B": False},
    }


def test_4_4_v_premature_double_with_a_clock() -> None:
    """4.4 v with a clock: B doubles while A's clock runs for A's turn; A's clock keeps running,
    A finishes and presses, B presses to give A the decision, A takes and presses back."""
    t = Table().start(length=7, clock=True).opening(1, 6)  # A pressed: B's clock runs
    t.wait(10 * SECOND).send("press", side="B").ok()  # B moved: A's turn, A's clock
    t.wait(2 * SECOND).send("double", side="B").ok()  # before A has rolled
    assert t.event("double")["premature"] is True
    assert t.snap()["clock"]["running"] == "A" and t.state.turn == "A"
    t.send("roll", dice=[5, 2], source="tower").ok()  # A still rolls and moves
    t.wait(8 * SECOND).send("press", side="A").ok()  # A's turn ends: B's clock, B's turn
    assert t.state.turn == "B" and t.snap()["clock"]["running"] == "B"
    t.send("roll", dice=[1, 1], source="tower")
    t.refused(code="roll.double_waiting")
    t.send("press", side="B").ok()  # the doubler hands A the decision
    assert t.snap()["clock"]["running"] == "A" and t.state.turn == "B"
    t.send("take", side="A").ok()
    t.send("roll", dice=[1, 1], source="tower")
    t.refused("B's clock is not running yet", code="roll.clock_not_running")
    t.send("press", side="A").ok()
    t.send("roll", dice=[1, 1], source="tower").ok()
    assert t.event("roll")["side"] == "B"


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu", "ffbg-cdf"])
def test_premature_double_stands_in_every_profile(profile: str) -> None:
    """WBGF/HBF 4.4 v, HU 7.8 ("az ellenfél korai duplázása érvényes"), FFBG 6.8 ("un double
    prématuré ne peut être repris"): a premature double stands."""
    t = Table().start(length=7, profile=profile, clock=True).opening(6, 1)  # A moving, A's clock
    t.send("double", side="B").ok()
    assert t.event("double")["premature"] is True


def test_4_4_ii_no_double_after_rolling() -> None:
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()
    t.send("roll", dice=[5, 2], source="tower").ok()
    t.send("double", side="A")
    t.refused("before any roll attempt", code="double.after_roll")
    assert t.snap()["cube"]["usable"]["A"] is False
    assert t.snap()["legal"]["A"]["why"]["double"] == "double.after_roll"


def test_4_4_ii_no_double_after_an_invalid_roll() -> None:
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()
    t.send("invalid_roll", side="A").ok()  # the dice did not land flat: a re-roll is due
    t.send("double", side="A")
    t.refused("before any roll attempt")
    t.send("roll", dice=[4, 4], source="tower").ok()  # the re-roll is accepted
    assert t.state.dice == (4, 4)


def test_4_4_ii_no_double_after_a_roll_then_invalid_roll() -> None:
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()
    t.send("roll", dice=[5, 2], source="tower").ok()
    t.send("invalid_roll", side="A").ok()
    t.send("double", side="A")
    t.refused("before any roll attempt")


def test_4_4_v_premature_double_stands() -> None:
    """4.4 v with the dice marking the turns (a tower, no clock): B doubles while A moves."""
    t = Table().start(length=7).opening(1, 6)
    t.pass_turn()  # B pressed: the table follows the turns from here
    t.send("roll", dice=[6, 5], source="tower").ok()  # A moving
    t.send("double", side="B").ok()  # B doubles before A has finished
    assert t.event("double")["premature"] is True
    assert t.state.turn == "A" and t.snap()["cube"]["offered_by"] == "B"
    t.send("press", side="A").ok()  # A finishes the move knowing of the double
    t.send("take", side="A").ok()
    t.send("roll", dice=[2, 1], source="tower").ok()  # B's own roll
    assert t.event("roll")["side"] == "B"


def test_4_4_v_premature_double_is_still_checked_for_validity() -> None:
    t = Table().start(length=7).game("A", "gammon").game("A", "gammon").game("A", "gammon")  # 6-0
    t.opening(6, 1)  # Crawford game
    t.send("double", side="B")
    t.refused("Crawford")


def test_double_outside_a_game_is_refused() -> None:
    """4.4 ii: the cube is used only during one's turn, so never between games."""
    t = Table().start(length=7)
    t.send("double", side="A")
    t.refused("not possible in phase opening")
    t.game("A")
    t.send("double", side="B")
    t.refused("phase between_games")


def test_4_4_ii_iii_with_a_clock_double_presses_take_presses_pass_stops() -> None:
    t = Table().start(length=7, clock=True).opening(1, 6)  # A presses: B's clock runs
    t.wait(5 * SECOND).move("B")  # B moves; A's clock runs
    assert t.snap()["clock"]["running"] == "A"
    t.send("double", side="A").ok()
    t.send("press", side="A").ok()  # the doubler starts the opponent's clock
    assert t.snap()["clock"]["running"] == "B" and t.state.turn == "A"
    t.send("take", side="B").ok()
    t.send("press", side="B").ok()  # the taker presses back
    assert t.snap()["clock"]["running"] == "A" and t.state.turn == "A" and not t.state.rolled
    t.send("roll", dice=[6, 5], source="tower").ok()
    t.send("press", side="A").ok()
    t.send("double", side="B").ok()
    t.send("press", side="B").ok()
    t.send("pass", side="A").ok()  # a pass ends the game: the clock stops
    snap = t.snap()
    assert snap["clock"]["running"] is None and snap["phase"] == "between_games"
    assert snap["score"] == {"A": 0, "B": 2}


def test_4_4_ii_with_a_clock_the_taker_cannot_press_before_the_doubler() -> None:
    t = Table().start(length=7, clock=True).opening(1, 6)
    t.move("B")
    t.send("double", side="A").ok()
    t.send("press", side="B")
    t.refused("it is A's clock that runs")
