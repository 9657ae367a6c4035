"""Undoing a forfeit puts the table back as it was the moment before (WBGF 2.2 iii).

WBGF 2.2 iii: the TD may waive or take back a penalty ("Turneringsleder kan frafalle eller
redusere straffen"); the dashboard's *Undo forfeit* is a ``waive`` of the command that ended the
match. Taken back, the match goes on as it stood: the clock runs for the side it ran for, with the
delay that side had left, and the reserves as they were when the match was ended; a pause that
stood stands again. The time between the decision and its undoing is charged to nobody.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rulebook.helpers import SECOND, Table


def _play(t: Table) -> dict[str, Any]:
    """What play looks like at one moment (the fields the undo must give back)."""
    snap = t.snap()
    clock = snap["clock"]
    return {
        "phase": snap["phase"],
        "score": snap["score"],
        "winner": snap["winner"],
        "running": clock["running"],
        "paused": clock["paused"],
        "paused_by": clock["paused_by"],
        "reserve_ms": clock["reserve_ms"],
        "delay_ms": clock["delay_ms"],
        "turn": snap["turn"],
        "in_game": snap["in_game"],
    }


def _mid_turn(tower: bool) -> Table:
    t = Table().start(length=7, clock={"minutes_per_point": 2, "delay_s": 12}).opening(6, 1)
    if tower:
        t.wait(20 * SECOND).move("A", dice=(3, 1))  # the tower reads A's roll; A presses
    else:
        t.wait(20 * SECOND).send("press", side="A").ok()
    t.wait(5 * SECOND).send("tick").ok()  # B's turn: 5 s of B's 12 s delay gone
    return t


@pytest.mark.parametrize("tower", [False, True], ids=["clock", "clock+tower"])
@pytest.mark.parametrize("reason", ["conduct", "late"])
def test_2_2_iii_undo_forfeit_restores_the_running_clock(tower: bool, reason: str) -> None:
    t = _mid_turn(tower)
    before = _play(t)
    assert before["running"] == "B" and before["delay_ms"]["B"] == 7 * SECOND
    t.cmd("forfeit", "f1", against="B", reason=reason).ok()
    assert t.snap()["clock"]["running"] is None and t.snap()["phase"] == "finished"
    t.wait(90 * SECOND).cmd("waive", penalty_id="f1").ok()  # the TD takes it back 90 s later
    assert t.event("waive")["reopened"] is True
    assert _play(t) == before
    # and the clock runs on from there: B's delay, then B's reserve
    t.wait(10 * SECOND).send("tick").ok()
    clock = t.snap()["clock"]
    assert clock["delay_ms"]["B"] == 0
    assert clock["reserve_ms"]["B"] == before["reserve_ms"]["B"] - 3 * SECOND
    assert clock["reserve_ms"]["A"] == before["reserve_ms"]["A"]


def test_2_2_iii_undo_forfeit_given_during_a_pause_restores_the_pause() -> None:
    t = _mid_turn(False)
    t.cmd("pause", reason="td").ok()
    before = _play(t)
    assert before["phase"] == "paused" and before["paused"] == "td"
    t.wait(30 * SECOND).cmd("forfeit", "f1", against="A", reason="conduct").ok()
    t.wait(30 * SECOND).cmd("waive", penalty_id="f1").ok()
    assert _play(t) == before
    t.cmd("resume").ok()
    after = t.snap()
    assert after["phase"] == "playing" and after["clock"]["running"] == "B"
    assert after["clock"]["delay_ms"]["B"] == before["delay_ms"]["B"]


def test_2_2_iii_undo_of_the_lateness_point_that_forfeited_keeps_a_waiting_table_waiting() -> None:
    """Scoreboard (no clock): the lateness forfeit taken back returns to waiting, nothing runs."""
    t = Table().assign(length=3)
    t.send("checkin", side="A").ok()
    before = _play(t)
    t.cmd("penalty", "late:m1:B:1", against="B", points=1, reason="late").ok()
    t.cmd("penalty", "late:m1:B:2", against="B", points=1, reason="late").ok()
    assert t.snap()["end_reason"] == "lateness"
    t.cmd("waive", penalty_id="late:m1:B:2").ok()
    after = _play(t)
    assert after == {**before, "score": {"A": 1, "B": 0}}
