"""Inputs and commands at the edge of the reducer (PROTOCOL §1, §3.3): once per id, expiry, garbage."""

from __future__ import annotations

from typing import Any

import pytest

from rulebook.table import INTERNAL_ERROR, apply, new_table
from tests.rulebook.helpers import PLAYERS, SECOND, Table

WALL0 = 1_795_000_000_000


def test_3_3_command_applied_at_most_once_per_id() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", "pen-1", against="B", points=1, reason="conduct").ok()
    done = t.event("cmd_done")
    assert done == {**done, "id": "pen-1", "cmd": "penalty", "ok": True, "error": None}
    state = t.state
    t.cmd("penalty", "pen-1", against="B", points=1, reason="conduct").ok()
    done = t.event("cmd_done")
    assert done["duplicate"] is True and done["ok"] is True
    assert t.score() == (1, 0) and [e["type"] for e in t.events] == ["cmd_done"]
    assert t.state.match == state.match


def test_3_3_a_refused_command_is_not_applied_and_may_come_again() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", "pen-1", against="B", points=0)
    done = t.event("cmd_done")
    assert done["ok"] is False and "points" in done["error"]
    t.cmd("penalty", "pen-1", against="B", points=1).ok()
    assert t.score() == (1, 0)


def test_3_3_expired_commands_are_refused() -> None:
    t = Table()
    t.send("assign", match_id="m", length=7, players=PLAYERS, clock=False, wall=WALL0)
    t.wait(10 * SECOND)
    t.send(
        "cmd",
        id="c1",
        type="penalty",
        against="A",
        points=1,
        expires_wall=WALL0 + 5 * SECOND,
        wall=WALL0 + 10 * SECOND,
    )
    assert t.refused("command expired")
    t.send(
        "cmd",
        id="c2",
        type="penalty",
        against="A",
        points=1,
        expires_wall=WALL0 + 60 * SECOND,
        wall=WALL0 + 10 * SECOND,
    ).ok()
    assert t.score() == (0, 1)


def test_3_3_expiry_uses_the_anchored_wall_clock() -> None:
    t = Table()
    t.send("assign", match_id="m", length=7, players=PLAYERS, clock=False, wall=WALL0)
    t.wait(10 * SECOND)  # no wall on this line: wall = anchor + 10 s
    t.cmd("penalty", "c1", against="A", points=1, expires_wall=WALL0 + 9 * SECOND)
    t.refused("command expired")
    t2 = Table().start(length=7)  # no wall time known at all: the command cannot be judged stale
    t2.cmd("penalty", "c1", against="A", points=1, expires_wall=1).ok()


def test_unknown_command_type_and_missing_id() -> None:
    """PROTOCOL §3.3: a command needs an id and a known type."""
    t = Table().start()
    t.cmd("teleport")
    t.refused("unknown command type 'teleport'")
    t.send("cmd", type="penalty", against="A", points=1)
    t.refused("id: expected a non-empty string")
    assert t.score() == (0, 0)


def test_call_td_and_acknowledge() -> None:
    """5.1: a player calls the TD; the TD acknowledges from the hub."""
    t = Table().start()
    t.send("call_td", side="B").ok()
    assert t.snap()["td_call"] == "B"
    t.cmd("td_ack").ok()
    assert t.snap()["td_call"] is None


def test_4_6_both_players_confirm_the_final_score() -> None:
    t = Table().start(length=1)
    t.send("confirm", side="A")
    t.refused("not over")
    t.game("A")
    t.send("confirm", side="B").ok()
    assert t.snap()["confirmed"] == {"A": False, "B": True}


def test_assign_rules() -> None:
    """PROTOCOL §1 assign: a match in progress is replaced only with force; a repeat is a duplicate."""
    t = Table().start(length=7).game("A")
    t.send("assign", match_id="m2", length=5, players=PLAYERS)
    t.refused("m1 is still in progress")
    t.send("assign", match_id="m1", length=7, players=PLAYERS).ok()
    assert t.event("assign")["duplicate"] is True and t.score() == (1, 0)  # a retained assign again
    t.send("assign", match_id="m2", length=5, players=PLAYERS, force=True).ok()
    snap = t.snap()
    assert (snap["match_id"], snap["length"], snap["score"], snap["phase"]) == (
        "m2",
        5,
        {"A": 0, "B": 0},
        "waiting",
    )
    assert snap["seq"] == 1  # a new match numbers its events from 1


def test_assign_replaces_a_finished_match() -> None:
    """PROTOCOL §1 assign: a finished match makes way for the next one."""
    t = Table().start(length=1).game("B")
    t.send("assign", match_id="m2", length=3, players=PLAYERS, round="R2").ok()
    assert t.snap()["round"] == "R2" and t.snap()["present"] == {"A": False, "B": False}


def test_reassigning_the_same_waiting_match_keeps_presence() -> None:
    """PROTOCOL §1 assign: the same match assigned again keeps who has checked in."""
    t = Table().assign(length=7)
    t.send("checkin", side="A").ok()
    t.send("assign", match_id="m1", length=9, players=PLAYERS).ok()
    assert t.snap()["length"] == 9 and t.snap()["present"] == {"A": True, "B": False}


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"length": 7, "players": PLAYERS}, "match_id"),
        ({"match_id": "m", "length": 0, "players": PLAYERS}, "length"),
        ({"match_id": "m", "length": 100, "players": PLAYERS}, "length"),
        ({"match_id": "m", "length": True, "players": PLAYERS}, "length"),
        ({"match_id": "m", "length": 7}, "players"),
        ({"match_id": "m", "length": 7, "players": {"A": {"name": "a"}}}, "players.B"),
        ({"match_id": "m", "length": 7, "players": PLAYERS, "profile": "nbgf"}, "unknown profile"),
        ({"match_id": "m", "length": 7, "players": PLAYERS, "profile": 7}, "profile"),
        ({"match_id": "m", "length": 7, "players": PLAYERS, "start_wall": "14:00"}, "start_wall"),
    ],
)
def test_bad_assign_is_rejected(fields: dict[str, Any], fragment: str) -> None:
    """PROTOCOL §1: a malformed assign is rejected with the field named."""
    t = Table().send("assign", **fields)
    t.refused(fragment)
    assert t.state.match is None


@pytest.mark.parametrize(
    ("inp", "fragment"),
    [
        ("press", "an input is a JSON object"),
        ([1, 2], "an input is a JSON object"),
        (None, "an input is a JSON object"),
        ({"input": "press", "side": "A"}, "at: expected ms"),
        ({"at": -1, "input": "press", "side": "A"}, "at: expected ms"),
        ({"at": 1.5, "input": "press", "side": "A"}, "at: expected ms"),
        ({"at": True, "input": "press", "side": "A"}, "at: expected ms"),
        ({"at": 500, "input": "fly"}, "unknown input 'fly'"),
        ({"at": 500}, "unknown input None"),
        ({"at": 500, "input": ["press"]}, "unknown input"),
        ({"at": 500, "input": "press"}, "side"),
        ({"at": 500, "input": "press", "side": "C"}, "side"),
        ({"at": 500, "input": "roll"}, "dice"),
        ({"at": 500, "input": "roll", "dice": [7, 1]}, "dice[0]"),
        ({"at": 500, "input": "roll", "dice": [1, 2, 3]}, "dice"),
        ({"at": 500, "input": "roll", "dice": [3, 1], "source": "hand"}, "source"),
        ({"at": 500, "input": "invalid_roll", "side": 3}, "side"),
        ({"at": 500, "input": "double", "side": "A", "value": "two"}, "value"),
        ({"at": 500, "input": "pause", "reason": 5}, "does not allow a pause"),
        ({"at": 500, "input": "cmd", "id": "x", "type": "set_length", "length": "9"}, "length"),
        ({"at": 500, "input": "cmd", "id": "x", "type": "correct_score", "score": {"A": 1}}, "score.B"),
    ],
)
def test_garbage_is_rejected_never_raised(inp: Any, fragment: str) -> None:
    """PROTOCOL §1: garbage is rejected with a reason, never an exception; state unchanged."""
    t = Table().start(length=7).opening()
    t.now = 400
    before = t.state
    t.raw(inp)
    reason = t.refused(fragment)
    assert not reason.startswith(INTERNAL_ERROR)
    assert t.state.match == before.match and t.state.phase == before.phase
    assert t.state.seq == before.seq + 1  # the rejection is an event with its own seq


def test_time_going_backwards_is_rejected() -> None:
    """PROTOCOL §1: ``at`` never goes backwards on the table's monotonic clock."""
    t = Table().start(length=7)
    t.now = 10_000
    t.send("tick").ok()
    t.raw({"at": 9_999, "input": "checkin", "side": "A"})
    t.refused("time went backwards (9999 < 10000)")
    assert t.state.now == 10_000


def test_rejected_inputs_still_let_time_run() -> None:
    """4.3 iii: a flag falls at its instant even if the next input is refused."""
    t = Table().start(length=1, clock={"minutes_per_point": 1, "delay_s": 0}).opening(6, 1)
    t.now = 2 * 60 * SECOND
    t.send("take", side="B")  # refused, but the flag that fell before it is seen
    assert [e["type"] for e in t.events] == ["flag", "take"]
    assert t.snap()["phase"] == "flag"


def test_events_are_stamped_with_seq_match_and_time() -> None:
    """PROTOCOL §3: events carry seq, match_id, at and wall."""
    state = new_table("12")
    state, events = apply(
        state,
        {"at": 5, "input": "assign", "match_id": "r3-t12", "length": 7, "players": PLAYERS, "wall": WALL0},
    )
    state, events = apply(state, {"at": 1005, "input": "checkin", "side": "A"})
    assert events == [
        {
            "type": "checkin",
            "side": "A",
            "late_ms": None,
            "seq": 2,
            "match_id": "r3-t12",
            "at": 1005,
            "wall": WALL0 + 1000,
        }
    ]


def test_opening_roll_inputs() -> None:
    """4.1 / hu 8.4: both players present; a tie is rolled again; the higher die moves first."""
    t = Table().assign(length=7)
    t.send("checkin", side="A").ok()
    t.send("opening_roll", A=5, B=2)
    t.refused("not possible in phase waiting")
    t.send("checkin", side="B").ok()
    t.send("opening_roll", A=0, B=3)
    t.refused("A: a die is a whole number from 1 to 6")
    t.send("opening_roll", A=4, B=4).ok()  # a tie is rolled again
    assert t.event("opening_roll")["tie"] is True and t.snap()["phase"] == "opening"
    t.send("opening_roll", A=2, B=5).ok()
    snap = t.snap()
    assert (snap["phase"], snap["game"], snap["turn"], snap["dice"]) == ("playing", 1, "B", [5, 2])
