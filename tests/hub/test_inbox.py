"""The hub's inbox under a backlog: a table's waiting state is replaced by its newer one, the newest
valid state is held (as if each had been handled in turn), a finished match's state is never
replaced, and every message is counted.

An in-process hub (no loop attached: the test posts and drains itself), one table at play; the
backlog is a batch's worth of statuses posted first."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from drivers.hub_link import RawState
from hub.live.clock import FakeClock
from hub.live.ingest import BATCH
from hub.tournament.schedule import parse_schedule
from rulebook.snapshot import snapshot
from tests.hub.room_sim import SimRoom, wire
from tests.hub.support import MIN, T0, one_match

TOPIC = "bg/v1/sim/table/1/state"


def _room(tmp_path: Path) -> SimRoom:
    room = SimRoom(tmp_path / "hub.db", parse_schedule(one_match("1")), FakeClock(T0 - 2 * MIN), ["1"])
    room.settle()
    room.checkin("1", "A")
    room.settle()
    return room


def _state(room: SimRoom, **changes: Any) -> dict[str, Any]:
    return {**wire(snapshot(room.tables["1"].state, room.clock.monotonic_ms())), **changes}


def _backlog(room: SimRoom) -> None:
    assert room.hub is not None
    for k in range(BATCH):  # from a thousand other tables (each within its own allowance)
        room.hub.ingest.post("status", f"x{k}", {"online": True})


def _drain(room: SimRoom) -> None:
    assert room.hub is not None
    while room.hub.ingest._inbox:
        room.hub.ingest.drain()


def test_a_waiting_state_is_replaced_by_the_newer_one_and_counted(tmp_path: Path) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    for k in range(1, 6):
        hub.ingest.post("state", "1", {**base, "seq": base["seq"] + k})
    assert len(hub.ingest._queued_states) == 1
    _drain(room)
    held = hub.views["1"].state
    assert held is not None and held["seq"] == base["seq"] + 5
    assert hub.stats["superseded"] - before["superseded"] == 4
    assert hub.stats["messages"] - before["messages"] == BATCH + 5  # every message counted once


def test_the_newest_valid_state_is_held_when_the_newest_fails_the_schema(tmp_path: Path) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    good = {**base, "seq": base["seq"] + 1}
    hub.ingest.post("state", "1", good)
    hub.ingest.post("state", "1", {**base, "seq": base["seq"] + 2, "phase": "dancing"})
    hub.ingest.post("state", "1", {**base, "seq": base["seq"] + 3, "score": {"A": "3", "B": 0}})
    _drain(room)
    held = hub.views["1"].state
    assert held is not None and held["seq"] == good["seq"] and held["phase"] == good["phase"]
    assert hub.stats["invalid"] - before["invalid"] == 2  # each bad one checked, and alerted
    assert hub.stats["superseded"] == before["superseded"]
    assert any(a["kind"] == "invalid_message" for a in hub.alerts.active.values())


def test_a_finished_matchs_state_is_never_replaced(tmp_path: Path) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    hub.ingest.post("state", "1", {**base, "seq": base["seq"] + 1, "phase": "finished"})
    hub.ingest.post("state", "1", {**base, "seq": base["seq"] + 2})
    _drain(room)
    assert hub.stats["superseded"] == before["superseded"]
    assert hub.stats["messages"] - before["messages"] == BATCH + 2


def test_without_a_backlog_every_state_is_handled_in_turn(tmp_path: Path) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    for k in range(1, 4):
        hub.ingest.post("state", "1", {**base, "seq": base["seq"] + k})
    _drain(room)
    assert hub.stats["superseded"] == before["superseded"]
    held = hub.views["1"].state
    assert held is not None and held["seq"] == base["seq"] + 3


# -- states as the link hands them on: undecoded ------------------------------------------------


def _raw(state: dict[str, Any], tail: bytes = b"") -> RawState:
    return RawState(TOPIC, json.dumps(state, separators=(",", ":")).encode() + tail)


def test_a_replaced_state_is_never_decoded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The older states are not JSON (a byte past the object): decoding one would drop and log it."""
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    for k in range(1, 5):
        hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + k}, b"x"))
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 5}))
    with caplog.at_level(logging.WARNING, logger="hub"):
        _drain(room)
    held = hub.views["1"].state
    assert held is not None and held["seq"] == base["seq"] + 5
    assert hub.stats["superseded"] - before["superseded"] == 4
    assert not [r for r in caplog.records if TOPIC in r.getMessage()]


def test_an_undecodable_newest_state_is_reported_and_the_older_one_held(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    good = {**base, "seq": base["seq"] + 1}
    hub.ingest.post("state", "1", _raw(good))
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 2, "phase": "dancing"}))
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 3}, b"}"))
    with caplog.at_level(logging.WARNING, logger="hub"):
        _drain(room)
    held = hub.views["1"].state
    assert held is not None and held["seq"] == good["seq"] and held["phase"] == good["phase"]
    assert hub.stats["invalid"] - before["invalid"] == 1  # the bad phase, alerted
    assert hub.stats["superseded"] == before["superseded"]
    assert [r.getMessage() for r in caplog.records if "not JSON" in r.getMessage()] != []
    assert any(a["kind"] == "invalid_message" for a in hub.alerts.active.values())
    # nothing stopped: the table's next state is handled in turn
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 4}))
    _drain(room)
    held = hub.views["1"].state
    assert held is not None and held["seq"] == base["seq"] + 4


def test_a_finished_matchs_undecoded_state_is_never_replaced(tmp_path: Path) -> None:
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None
    before = dict(hub.stats)
    base = _state(room)
    _backlog(room)
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 1, "phase": "finished"}))
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 2}))
    hub.ingest.post("state", "1", _raw({**base, "seq": base["seq"] + 3, "match_id": "other"}))
    _drain(room)
    assert hub.stats["superseded"] == before["superseded"]
    assert hub.stats["messages"] - before["messages"] == BATCH + 3


def test_an_undecodable_state_touches_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Not a snapshot at all: logged and dropped, as the link drops one; the table's own state is
    still its current one, and no table is made up from a topic."""
    room = _room(tmp_path)
    hub = room.hub
    assert hub is not None and hub.views["1"].state_fresh
    with caplog.at_level(logging.WARNING, logger="hub"):
        hub.ingest.post("replayed_state", "1", RawState(TOPIC, b"garbage", replayed=True))
        hub.ingest.post("state", "zz", RawState("bg/v1/sim/table/zz/state", b'{"table": "zz"'))
        _drain(room)
    assert hub.views["1"].state_fresh
    assert "zz" not in hub.views
    assert len([r for r in caplog.records if "not JSON" in r.getMessage()]) == 2
