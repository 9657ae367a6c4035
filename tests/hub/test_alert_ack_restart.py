"""A TD's acknowledgement survives a hub killed right after the table answered it.

The TD acknowledges a TD call; the hub sends ``td_ack``; the table clears the call and tells its
state; the hub, seeing the call over, resolves the alert. If the hub is killed (nothing saved
beyond what was committed) before it saved that state, the restarted hub starts from the state it
cached before: still calling the TD. It must not take that stale call for a new one, and raise it
again unacknowledged.
"""

from __future__ import annotations

from pathlib import Path

from hub.live.clock import FakeClock
from hub.live.config import HubConfig
from hub.live.core import Hub
from hub.storage.store import Store
from hub.tournament.schedule import parse_schedule
from rulebook.snapshot import snapshot
from rulebook.vocab import InputType
from tests.hub.room_sim import SimRoom, wire
from tests.hub.support import MIN, T0, one_match

KEY = "call:1:r1-t1:A"


def stored_call(path: Path) -> dict:
    store = Store(path)
    try:
        row = store.db.execute("SELECT * FROM alerts WHERE key = ?", (KEY,)).fetchone()
        return dict(row)
    finally:
        store.db.close()


def test_an_acknowledged_call_answered_just_before_a_kill_is_not_raised_again(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    clock = FakeClock(T0 - 2 * MIN)
    room = SimRoom(path, parse_schedule(one_match("1")), clock, ["1"])
    room.settle()
    room.checkin("1", "A")
    room.checkin("1", "B")
    room.settle()
    room.input("1", {"input": InputType.CALL_TD, "side": "A"})
    room.settle()
    hub = room.hub
    assert hub is not None
    alert = hub.alerts.active[KEY]
    clock.advance(1_000)
    assert hub.actions.ack_alert(alert["id"], "td")
    # the table takes the td_ack and tells its state; the hub reads it (the call is over)...
    assert room.deliver()
    assert room.tables["1"].state.td_call is None
    hub.ingest.drain()
    assert KEY not in hub.alerts.active
    # ...and is killed before its next tick
    room.stop_hub()

    # restarted on the same database: it looks at the room before the table's state arrives
    clock.advance(1_000)
    hub = Hub(HubConfig(event="sim", tick_interval=None), Store(path), clock)
    room.hub = hub
    hub.ingest.post("status", "1", {"online": True})
    hub.tick()
    assert KEY not in hub.alerts.active, "the call the TD acknowledged is raised again as new"
    # the table's state arrives: the call is over, acknowledged
    hub.ingest.post("state", "1", wire(snapshot(room.tables["1"].state, clock.monotonic_ms())))
    room.settle()
    assert KEY not in hub.alerts.active
    call = stored_call(path)
    assert call["active"] == 0
    assert call["acked_wall"] is not None, "the acknowledgement was lost"
