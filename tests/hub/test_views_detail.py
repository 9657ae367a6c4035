"""The table page's derived facts: which penalties can be waived (by reason, points and time) and
which command ended a match so that waiving it reopens the match (pure functions of views)."""

from __future__ import annotations

from typing import Any

from hub.live.views import undoable_end, waivable_penalties


def cmd(cid: str, kind: str, origin: str = "td", done: bool | None = True, **body: Any) -> dict[str, Any]:
    return {
        "id": cid,
        "type": kind,
        "match_id": "r1-t1",
        "origin": origin,
        "actor": "hub" if origin == "auto" else "td",
        "created_wall": 1000,
        "done_ok": done,
        "body": {"id": cid, "type": kind, **body},
    }


def state(phase: str, **extra: Any) -> dict[str, Any]:
    return {"match_id": "r1-t1", "phase": phase, "penalty_log": [], **extra}


def test_waivable_penalties_say_when_and_by_whom():
    log = [
        {"id": "late:r1-t1:B:1", "against": "B", "points": 1, "reason": "late", "waived": False},
        {"id": "td:x", "against": "A", "points": 2, "reason": "conduct", "waived": True},
        {"id": "pp:3", "against": "A", "points": 1, "reason": "premature_pickup", "waived": False},
    ]
    commands = [cmd("late:r1-t1:B:1", "penalty", "auto", against="B", points=1, reason="late")]
    out = waivable_penalties(state("waiting", penalty_log=log), commands)
    assert [p["id"] for p in out] == ["late:r1-t1:B:1", "pp:3"]
    assert out[0] == {
        "id": "late:r1-t1:B:1",
        "against": "B",
        "points": 1,
        "reason": "late",
        "wall": 1000,
        "origin": "auto",
        "actor": "hub",
    }
    assert out[1]["origin"] == "table" and out[1]["wall"] is None
    # a finished match's penalties are corrected with the score, not waived
    assert waivable_penalties(state("finished", penalty_log=log), commands) == []
    assert waivable_penalties(None, commands) == []


def test_the_forfeit_that_ended_a_match_can_be_undone():
    commands = [  # newest first, as the store lists them
        cmd("td:f2", "forfeit", against="A", reason="td"),
        cmd("td:f1", "forfeit", done=False, against="B", reason="td"),
        cmd("td:p", "penalty", against="A", points=1, reason="conduct"),
    ]
    end = undoable_end(state("finished", end_reason="forfeit"), commands)
    assert end is not None and end["command_id"] == "td:f2" and end["against"] == "A"
    assert undoable_end(state("playing"), commands) is None
    assert undoable_end(state("finished", end_reason="points"), commands) is None
    assert undoable_end(state("finished", end_reason="time"), commands) is None


def test_a_lateness_forfeit_is_undone_by_waiving_the_point_that_made_it():
    commands = [
        cmd("late:r1-t1:B:4", "penalty", "auto", against="B", points=1, reason="late"),
        cmd("td:c", "penalty", against="B", points=1, reason="conduct"),
    ]
    end = undoable_end(state("finished", end_reason="lateness"), commands)
    assert end is not None and end["command_id"] == "late:r1-t1:B:4" and end["origin"] == "auto"
    forfeit = [cmd("late:r1-t1:B:forfeit", "forfeit", "auto", against="B", reason="late"), *commands]
    end = undoable_end(state("finished", end_reason="lateness"), forfeit)
    assert end is not None and end["command_id"] == "late:r1-t1:B:forfeit"
