"""The three table setups (docs/rules.md, "Table setups"): what the table can know of the turn.

A scoreboard (no clock, no tower) sees nothing between the opening roll and the result; a clock
without a tower sees the presses; a tower (with or without a clock) sees the rolls. The cube
rules (4.4 ii, v) are applied as far as the table sees the turns, never beyond.
"""

from __future__ import annotations

import pytest

from tests.rulebook.helpers import SECOND, Table


def test_scoreboard_the_owner_redoubles_after_a_double_and_a_take() -> None:
    """The reported defect: at a scoreboard, after a double and a take, the cube's owner's
    redouble was refused ("only the player on turn may double"): nothing moved the turn."""
    t = Table().start(length=9).opening(6, 1)
    snap = t.snap()
    assert snap["turn_known"] is False and snap["turn_from"] is None
    assert snap["cube"]["usable"] == {"A": True, "B": True}  # centred: either player
    t.send("double", side="B").ok()
    assert "premature" not in t.event("double")
    t.send("take", side="A").ok()
    assert t.snap()["cube"]["usable"] == {"A": True, "B": False}  # the owner only
    t.send("double", side="A").ok()  # the redouble, at once: whose turn it is the table cannot see
    t.send("take", side="B").ok()
    t.send("double", side="B").ok()
    t.send("pass", side="A").ok()
    assert t.score() == (0, 4)


def test_scoreboard_the_cube_rules_still_hold() -> None:
    t = Table().start(length=9).opening(6, 1)
    t.send("double", side="B").ok()
    t.send("double", side="A")
    t.refused(code="double.offered")
    t.send("take", side="A").ok()
    t.send("double", side="B")
    t.refused(code="double.cube_owned")
    assert t.snap()["legal"]["B"]["why"]["double"] == "double.cube_owned"


def test_clock_without_a_tower_the_turn_follows_the_presses() -> None:
    """With a clock and no tower, the player whose clock runs is on turn; the table cannot see a
    roll, so that player may double until pressing; the other's double would be premature."""
    t = Table().start(length=9, clock=True).opening(6, 1)  # B pressed: A's clock, A moving
    assert t.snap()["turn_from"] == "clock"
    assert t.snap()["cube"]["usable"] == {"A": False, "B": False}  # A has rolled (the opening)
    assert t.snap()["legal"]["B"]["premature_double"] is True
    t.wait(10 * SECOND).send("press", side="A").ok()
    legal = t.snap()["legal"]
    assert legal["B"]["double"] is True and legal["A"]["double"] is False
    assert legal["A"]["premature_double"] is True
    t.wait(30 * SECOND)  # no roll is ever read: B may still double at any moment of the turn
    t.send("double", side="B").ok()
    assert "premature" not in t.event("double")


def test_a_tower_without_a_clock_the_dice_mark_the_turns() -> None:
    """With a tower and no clock a roll starts a turn, nothing marks its end: once the mover has
    rolled, the opponent may double (his turn starts when the mover finishes); the mover may not."""
    t = Table().start(length=9).opening(6, 1)
    t.send("roll", dice=[3, 3], source="tower").ok()  # B's roll: the table now follows the dice
    assert t.snap()["turn_from"] == "dice" and t.state.turn == "B"
    assert t.snap()["cube"]["usable"] == {"A": True, "B": False}
    t.send("double", side="B")
    t.refused(code="double.after_roll")
    t.send("double", side="A").ok()
    assert "premature" not in t.event("double") and t.state.turn == "A"
    t.send("take", side="B").ok()
    t.send("roll", dice=[5, 1], source="tower").ok()
    assert t.event("roll")["side"] == "A"


@pytest.mark.parametrize("first_press", ["A", "B"])
def test_a_press_tells_a_scoreboard_whose_turn_ended(first_press: str) -> None:
    """Clock buttons without a clock mark turns too; the first press seen ends the presser's turn
    (whatever the table last guessed), later ones must follow."""
    t = Table().start(length=9).opening(1, 6)  # B first
    t.send("press", side=first_press).ok()
    other = "B" if first_press == "A" else "A"
    assert t.snap()["turn_from"] == "presses" and t.state.turn == other
    t.send("press", side=first_press)
    t.refused(code="turn.not_yours")
    t.send("press", side=other).ok()
