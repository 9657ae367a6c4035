"""The hub with rooms: a room whose bridge is down is one alert, its tables show "Room offline",
and no automatic lateness is decided for them until the room is back and the hub holds their
current state; then what was right all along is done (a player who arrived during the outage gets
no penalty, one still absent does).

Real brokers (a central one and a room's, bridged through a link the test cuts), the real hub on
a thread with a fake clock, simulated tables (the real table link and outbox) in the room.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from demo.simtable import SimTable
from hub.live.bridged_rooms import CATCH_UP_MS, load_rooms
from hub.live.clock import FakeClock
from hub.live.core import Hub
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, present, schedule_csv, start_hub, tick
from tests.rooms.support import Event, add_room, central_broker, start_event

EVENT = "rooms-hub"


def two_matches() -> str:
    rows = [
        {"round": 1, "table": t, "player_a": f"Ann {t}", "player_b": f"Bob {t}", "length": 7, "start": T0}
        for t in ("1", "E1", "E2")
    ]
    return schedule_csv(rows)


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock one minute before the scheduled start ``T0``."""
    return FakeClock(T0 - MIN)


@pytest.fixture
def event(tmp_path: Path) -> Iterator[Event]:
    ev = central_broker(tmp_path, EVENT, "1")
    add_room(ev, tmp_path, "east", "E1-E2")
    start_event(ev)
    yield ev
    ev.stop()


def room_hub(tmp_path: Path, ev: Event, clock: FakeClock, schedule: str | None = None) -> HubThread:
    """The hub on the central broker, with the rooms broker-config listed in its hub.toml."""
    user, password = ev.credential("hub")
    rooms = load_rooms(str(ev.central_out / "hub.toml"))
    assert set(rooms) == set(ev.rooms)
    return start_hub(
        tmp_path, ev.central.host, ev.central.port, EVENT, clock, schedule=schedule, username=user,
        password=password, rooms=tuple(rooms.items()),
    )  # fmt: skip


def table(ev: Event, name: str, clock: FakeClock, room: str | None = None) -> SimTable:
    broker = ev.central if room is None else ev.rooms[room].broker
    user, password = ev.credential(name) if room is None else ev.rooms[room].credential(name)
    sim = SimTable(EVENT, name, broker.host, broker.port, clock=clock, username=user, password=password)
    return sim.start()


def room_state(hub: HubThread, name: str = "east") -> str:
    return str(hub.call(room_look, hub.hub, name))


def room_look(h: Hub, name: str = "east") -> str:
    """The room's bridge as the hub sees it (on the hub's loop)."""
    return h.room_state.bridged_rooms.links[name].look(h.clock.now_wall())


def alerts(hub: HubThread) -> list[dict[str, Any]]:
    return hub.call(hub.hub.alert_list)


def late_ids(sim: SimTable) -> list[str]:
    return [c["id"] for c in sim.cmds if c["id"].startswith("late:")]


def test_cut_off_room_is_one_alert_and_no_penalty_until_its_state_is_back(tmp_path, event, clock):
    hub = room_hub(tmp_path, event, clock, two_matches())
    sims = [table(event, "1", clock), table(event, "E1", clock, "east"), table(event, "E2", clock, "east")]
    try:
        t1, e1, e2 = sims
        hub.wait_for(lambda h: room_look(h) == "up")
        tick(hub)
        for sim in sims:
            sim.wait_for(lambda s: s.match_id is not None)
            sim.checkin("A")
        hub.wait_for(lambda h: all(present(h, t, "A") for t in ("1", "E1", "E2")))
        tile = hub.call(hub.hub.tile, "E1")
        assert tile["room"] == "east" and tile["status"] != "room_offline"
        assert hub.call(hub.hub.tile, "1")["room"] is None

        event.rooms["east"].link.cut()
        hub.wait_for(lambda h: room_look(h) == "down")
        e1.checkin("B")  # Bob arrives at E1 while his room is cut off from the hub
        clock.set(T0 + 12 * MIN)
        tick(hub)
        # the central broker's own table gets its points; the room's tables nothing
        t1.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
        assert late_ids(e1) == [] and late_ids(e2) == []
        assert hub.call(lambda: hub.hub.store.command_ids("E2", "r1-tE2")) == {}
        for name in ("E1", "E2"):
            tile = hub.call(hub.hub.tile, name)
            assert (tile["status"], tile["status_label"]) == ("room_offline", "Room offline")
        room_alerts = [a for a in alerts(hub) if a["kind"] == "room_offline"]
        assert len(room_alerts) == 1 and room_alerts[0]["table"] is None
        assert "Room east is cut off" in room_alerts[0]["message"]
        assert not [a for a in alerts(hub) if a["table"] in ("E1", "E2")]
        rooms = hub.call(hub.hub.room)["rooms"]
        assert [(r["name"], r["state"], r["tables"]) for r in rooms] == [("east", "down", ["E1", "E2"])]

        event.rooms["east"].link.mend()
        hub.wait_for(lambda h: room_look(h) == "catching_up")
        hub.wait_for(lambda h: present(h, "E1", "B"))  # kept by the room, sent once it is back
        # each table of the room is asked for its state: automation waits for it
        hub.wait_for(lambda h: h.views["E1"].state_fresh and h.views["E2"].state_fresh)
        tick(hub)
        assert hub.call(hub.hub.tile, "E2")["status"] == "room_catching_up"
        assert late_ids(e2) == []  # still catching up: nothing decided yet
        clock.advance(CATCH_UP_MS)
        assert room_state(hub) == "up"
        tick(hub)
        # Bob at E2 is really late: automation goes on once the room is back. What the hub holds
        # of E2 may be a copy of its state sent before the outage: its durations, anchored when the
        # hub received it, can only make the hub later with a point, never earlier
        clock.advance(10 * MIN)
        tick(hub)
        e2.wait_for(lambda s: snapshot(s)["penalties"]["B"] >= 1)
        assert late_ids(e1) == []  # Bob at E1 arrived during the outage: no penalty
        assert not [a for a in alerts(hub) if a["kind"] == "room_offline"]
        assert hub.call(hub.hub.tile, "E1")["status"] != "room_offline"
    finally:
        for sim in sims:
            sim.stop()
        hub.stop()


def test_a_room_never_heard_of_is_cut_off_and_alerted_after_the_grace(tmp_path, clock):
    ev = central_broker(tmp_path, EVENT, "1")
    add_room(ev, tmp_path, "west", "W1")
    ev.central.start()  # the room's broker never starts
    hub = room_hub(tmp_path, ev, clock)
    try:
        tick(hub)
        assert room_state(hub, "west") == "unknown"
        assert hub.call(hub.hub.tile, "W1")["status"] == "room_offline"
        assert not [a for a in alerts(hub) if a["kind"] == "room_offline"]
        clock.advance(60_000)
        tick(hub)
        (alert,) = [a for a in alerts(hub) if a["kind"] == "room_offline"]
        assert "Room west has not connected" in alert["message"]
    finally:
        hub.stop()
        ev.stop()
