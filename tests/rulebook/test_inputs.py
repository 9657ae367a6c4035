"""Inputs and commands at the edge of the reducer (PROTOCOL §1, §3.3): once per id, expiry, garbage."""

from __future__ import annotations

from typing import Any

import pytest

from rulebook.custom_profiles import custom_profile
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
    t.cmd("penalty", "pen-1", against="B", points=0, reason="conduct")
    done = t.event("cmd_done")
    assert done["ok"] is False and "points" in done["error"] and done["code"] == "field.range"
    t.cmd("penalty", "pen-1", against="B", points=1, reason="conduct").ok()
    assert t.score() == (1, 0)


def test_3_3_expired_commands_are_refused() -> None:
    t = Table()
    t.send("assign", match_id="m", length=7, players=PLAYERS, profile="wbgf-2023", clock=False, wall=WALL0)
    t.wait(10 * SECOND)
    t.send(
        "cmd",
        id="c1",
        type="penalty",
        against="A",
        points=1,
        reason="conduct",
        expires_wall=WALL0 + 5 * SECOND,
        wall=WALL0 + 10 * SECOND,
    )
    assert t.refused("command expired", code="cmd.expired")
    t.send(
        "cmd",
        id="c2",
        type="penalty",
        against="A",
        points=1,
        reason="conduct",
        expires_wall=WALL0 + 60 * SECOND,
        wall=WALL0 + 10 * SECOND,
    ).ok()
    assert t.score() == (0, 1)


def test_3_3_expiry_uses_the_anchored_wall_clock() -> None:
    t = Table()
    t.send("assign", match_id="m", length=7, players=PLAYERS, profile="wbgf-2023", clock=False, wall=WALL0)
    t.wait(10 * SECOND)  # no wall on this line: wall = anchor + 10 s
    t.cmd("penalty", "c1", against="A", points=1, reason="conduct", expires_wall=WALL0 + 9 * SECOND)
    t.refused("command expired")
    t2 = Table().start(length=7)  # no wall time known at all: the command cannot be judged stale
    t2.cmd("penalty", "c1", against="A", points=1, reason="conduct", expires_wall=1).ok()


def test_unknown_command_type_and_missing_id() -> None:
    """PROTOCOL §3.3: a command needs an id and a known type."""
    t = Table().start()
    t.cmd("teleport")
    t.refused("unknown command type 'teleport'", code="cmd.unknown")
    t.send("cmd", type="penalty", against="A", points=1, reason="conduct")
    t.refused("id: required", code="field.missing")
    t.send("cmd", id="", type="penalty", against="A", points=1, reason="conduct")
    t.refused("id: expected a non-empty string", code="field.type")
    assert t.score() == (0, 0)


def test_5_1_td_calls_are_kept_per_side_withdrawn_and_acknowledged() -> None:
    """5.1: either player calls the TD; each side's call is kept; a call can be withdrawn; the
    TD's acknowledgement clears both."""
    t = Table().start()
    t.send("call_td", side="B").ok()
    assert t.snap()["td_call"] == "B" and t.snap()["td_calls"] == {"A": False, "B": True}
    t.send("call_td", side="B")
    t.refused(code="call.already")
    t.send("call_td", side="A").ok()
    snap = t.snap()
    assert snap["td_calls"] == {"A": True, "B": True} and snap["td_call"] == "A"
    assert snap["legal"]["A"]["withdraw_call"] and not snap["legal"]["A"]["call_td"]
    t.send("withdraw_call", side="A").ok()
    assert t.snap()["td_calls"] == {"A": False, "B": True} and t.snap()["td_call"] == "B"
    t.send("withdraw_call", side="A")
    t.refused("A has not called the TD", code="call.none")
    t.send("call_td", side="A").ok()
    t.cmd("td_ack").ok()
    assert t.snap()["td_call"] is None and t.snap()["td_calls"] == {"A": False, "B": False}


def test_4_6_both_players_confirm_the_final_score() -> None:
    t = Table().start(length=1)
    t.send("confirm", side="A")
    t.refused("not over", code="match.not_over")
    t.game("A")
    t.send("confirm", side="B").ok()
    assert t.snap()["confirmed"] == {"A": False, "B": True}
    t.send("confirm", side="B")
    t.refused(code="confirm.already")


def test_assign_rules() -> None:
    """PROTOCOL §1 assign: a match in progress is replaced only with force; a repeat is a duplicate."""
    t = Table().start(length=7).game("A")
    fields = {"players": PLAYERS, "profile": "wbgf-2023", "clock": False}
    t.send("assign", match_id="m2", length=5, **fields)
    t.refused("m1 is still in progress", code="match.in_progress")
    t.send("assign", match_id="m1", length=7, **fields).ok()
    assert t.event("assign")["duplicate"] is True and t.score() == (1, 0)  # a retained assign again
    t.send("assign", match_id="m2", length=5, force=True, **fields).ok()
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
    t.send("assign", match_id="m2", length=3, players=PLAYERS, profile="hu", clock=False, round="R2").ok()
    assert t.snap()["round"] == "R2" and t.snap()["present"] == {"A": False, "B": False}


def test_reassigning_the_same_waiting_match_keeps_presence() -> None:
    """PROTOCOL §1 assign: the same match assigned again keeps who has checked in."""
    t = Table().assign(length=7)
    t.send("checkin", side="A").ok()
    t.send("assign", match_id="m1", length=9, players=PLAYERS, profile="wbgf-2023", clock=False).ok()
    assert t.snap()["length"] == 9 and t.snap()["present"] == {"A": True, "B": False}


GOOD = {"match_id": "m", "length": 7, "players": PLAYERS, "profile": "wbgf-2023", "clock": False}


def _without(key: str, **changes: Any) -> dict[str, Any]:
    fields = {**GOOD, **changes}
    fields.pop(key, None)
    return fields


@pytest.mark.parametrize(
    ("fields", "fragment", "code"),
    [
        (_without("match_id"), "match_id: required", "field.missing"),
        ({**GOOD, "length": 0}, "length", "field.range"),
        ({**GOOD, "length": 100}, "length", "field.range"),
        ({**GOOD, "length": True}, "length", "field.type"),
        (_without("players"), "players: required", "field.missing"),
        ({**GOOD, "players": {"A": {"name": "a", "id": ""}}}, "players.B", "field.type"),
        (
            {**GOOD, "players": {"A": {"name": "a"}, "B": {"name": "b", "id": ""}}},
            "players.A.id",
            "field.missing",
        ),
        ({**GOOD, "profile": "nbgf"}, "unknown profile", "profile.unknown"),
        ({**GOOD, "profile": 7}, "profile", "field.type"),
        ({**GOOD, "profile": {"base": "hbf", "delay_s": 500}}, "delay_s", "profile.range"),
        (_without("profile"), "profile: required", "field.missing"),
        (_without("clock"), "clock: required", "field.missing"),
        ({**GOOD, "clock": "yes"}, "clock", "field.type"),
        ({**GOOD, "clock": {"delay_s": 12}}, "clock.minutes_per_point: required", "field.missing"),
        ({**GOOD, "start_wall": "14:00"}, "start_wall", "field.type"),
        ({**GOOD, "final": "yes"}, "final", "field.type"),
    ],
)
def test_bad_assign_is_rejected(fields: dict[str, Any], fragment: str, code: str) -> None:
    """PROTOCOL §1: a malformed assign is refused naming the field, never completed with a default
    (issue: an assignment without clock or profile)."""
    t = Table().send("assign", **fields)
    t.refused(fragment, code=code)
    assert t.state.match is None


def test_a_custom_profile_travels_with_the_assignment() -> None:
    """A custom profile (the keys of a TOML profile) may be sent in the assignment itself, so the
    journal replays with the very rules the match was played under."""
    club = custom_profile({"base": "hbf", "name": "club", "break_minutes": 7})
    t = Table()
    t.send("assign", **{**GOOD, "profile": club.wire()}).ok()
    assert t.state.profile.name == "club" and t.state.profile.break_minutes == 7
    assert t.snap()["profile"] == "club"


@pytest.mark.parametrize(
    ("inp", "fragment", "code"),
    [
        ("press", "an input is a JSON object", "input.not_object"),
        ([1, 2], "an input is a JSON object", "input.not_object"),
        (None, "an input is a JSON object", "input.not_object"),
        ({"input": "press", "side": "A"}, "at: required", "field.missing"),
        ({"at": -1, "input": "press", "side": "A"}, "at: expected ms", "field.type"),
        ({"at": 1.5, "input": "press", "side": "A"}, "at: expected ms", "field.type"),
        ({"at": True, "input": "press", "side": "A"}, "at: expected ms", "field.type"),
        ({"at": 500, "wall": "now", "input": "press", "side": "A"}, "wall", "field.type"),
        ({"at": 500, "input": "fly"}, "unknown input 'fly'", "input.unknown"),
        ({"at": 500}, "input: required", "field.missing"),
        ({"at": 500, "input": ["press"]}, "unknown input", "input.unknown"),
        ({"at": 500, "input": "press"}, "side: required", "field.missing"),
        ({"at": 500, "input": "press", "side": "C"}, "side", "field.choice"),
        ({"at": 500, "input": "roll", "source": "tower"}, "dice", "field.missing"),
        ({"at": 500, "input": "roll", "dice": [7, 1], "source": "tower"}, "dice[0]", "field.range"),
        ({"at": 500, "input": "roll", "dice": [1, 2, 3], "source": "tower"}, "dice", "field.type"),
        ({"at": 500, "input": "roll", "dice": [3, 1], "source": "hand"}, "source", "field.choice"),
        ({"at": 500, "input": "roll", "dice": [3, 1]}, "source: required", "field.missing"),
        ({"at": 500, "input": "invalid_roll", "side": 3}, "side", "field.choice"),
        ({"at": 500, "input": "double", "side": "A", "value": "two"}, "value", "field.type"),
        ({"at": 500, "input": "pause", "reason": 5}, "reason", "field.choice"),
        ({"at": 500, "input": "pause", "reason": "dispute"}, "side: required", "field.missing"),
        ({"at": 500, "input": "pause", "side": "A"}, "reason: required", "field.missing"),
        ({"at": 500, "input": "win", "side": "A"}, "kind: required", "field.missing"),
        ({"at": 500, "input": "resign", "side": "A", "kind": "double"}, "kind", "field.choice"),
        ({"at": 500, "input": "cmd", "id": "x", "type": "set_length", "length": "9"}, "length", "field.type"),
        (
            {"at": 500, "input": "cmd", "id": "x", "type": "correct_score", "score": {"A": 1}},
            "score.B",
            "field.missing",
        ),
        (
            {"at": 500, "input": "cmd", "id": "x", "type": "penalty", "against": "A", "points": 1},
            "reason: required",
            "field.missing",
        ),
        (
            {"at": 500, "input": "cmd", "id": "x", "type": "forfeit", "against": "A"},
            "reason: required",
            "field.missing",
        ),
    ],
)
def test_garbage_is_rejected_never_raised(inp: Any, fragment: str, code: str) -> None:
    """PROTOCOL §1: garbage is rejected with a reason and a code, never an exception; nothing that
    is missing is completed with a default; the state is unchanged."""
    t = Table().start(length=7).opening()
    t.now = 400
    before = t.state
    t.raw(inp)
    reason = t.refused(fragment, code=code)
    assert not reason.startswith(INTERNAL_ERROR)
    assert t.state.match == before.match and t.state.phase == before.phase
    assert t.state.seq == before.seq + 1  # the rejection is an event with its own seq


def test_time_going_backwards_is_rejected() -> None:
    """PROTOCOL §1: ``at`` never goes backwards on the table's monotonic clock."""
    t = Table().start(length=7)
    t.now = 10_000
    t.send("tick").ok()
    t.raw({"at": 9_999, "input": "checkin", "side": "A"})
    t.refused("time went backwards (9999 < 10000)", code="input.time_backwards")
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
        {"at": 5, "input": "assign", "wall": WALL0, **GOOD, "match_id": "r3-t12"},
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
    t.refused("not possible in phase waiting", code="phase.wrong")
    t.send("checkin", side="B").ok()
    t.send("opening_roll", A=0, B=3)
    t.refused("A: expected a value from 1 to 6", code="field.range")
    t.send("opening_roll", A=4, B=4).ok()  # a tie is rolled again
    assert t.event("opening_roll")["tie"] is True and t.snap()["phase"] == "opening"
    t.send("opening_roll", A=2, B=5).ok()
    snap = t.snap()
    assert (snap["phase"], snap["game"], snap["turn"], snap["dice"]) == ("playing", 1, "B", [5, 2])
