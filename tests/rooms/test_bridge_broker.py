"""Rooms joined by bridges, run by real Mosquitto processes: what crosses a bridge, what a bridge
may not do, and what happens to messages while the link between a room and the central broker is
cut (QoS 1, persistent bridge session: delivered once it is back, none lost; at least once and
not always in the order published, which the hub does not need: it keys events by their seq).

Non-delivery is proved with a control message sent after the forbidden one on the same path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hub.test_broker_config_broker import Peer
from tests.rooms.support import Event, add_room, central_broker, start_event

EVENT = "rooms-bridge"
PREFIX = f"bg/v1/{EVENT}"


def topic(table: str, kind: str) -> str:
    return f"{PREFIX}/table/{table}/{kind}"


@pytest.fixture
def event(tmp_path: Path) -> Iterator[Event]:
    ev = central_broker(tmp_path, EVENT, "1-3")
    add_room(ev, tmp_path, "east", "E1-E3")
    add_room(ev, tmp_path, "west", "W1-W2")
    start_event(ev)
    peers: list[Peer] = []
    ev.peers = peers  # type: ignore[attr-defined]
    yield ev
    for peer in peers:
        peer.close()
    ev.stop()


def peer(ev: Event, who: str, room: str | None = None) -> Peer:
    broker = ev.central if room is None else ev.rooms[room].broker
    creds = ev.credential(who) if room is None else ev.rooms[room].credential(who)
    p = Peer(broker, *creds).connected()
    ev.peers.append(p)  # type: ignore[attr-defined]
    return p


def bridge_says(hub: Peer, room: str) -> bytes:
    """The next notification of ``room``'s bridge the hub receives (other messages skipped)."""
    return hub.receive_until(f"{PREFIX}/room/{room}/bridge")[-1][1]


def all_bridges_up(hub: Peer, rooms: tuple[str, ...]) -> None:
    """Wait until every room's bridge has said ``1`` (in whatever order they connected)."""
    up: set[str] = set()
    while up != set(rooms):
        for t, payload in hub.receive_until(f"{PREFIX}/room/{sorted(set(rooms) - up)[0]}/bridge"):
            room = t.removeprefix(f"{PREFIX}/room/").removesuffix("/bridge")
            if t.endswith("/bridge") and payload == b"1":
                up.add(room)


def test_tables_of_every_room_reach_the_hub_and_its_commands_reach_them(event: Event):
    hub = peer(event, "hub")
    hub.subscribe(f"{PREFIX}/#")
    all_bridges_up(hub, ("east", "west"))
    e2 = peer(event, "E2", "east")
    e2.subscribe(topic("E2", "cmd"), topic("E2", "assign"), f"{PREFIX}/hub/status", f"{PREFIX}/hub/time")
    w1 = peer(event, "W1", "west")
    e2.publish(topic("E2", "evt"), b'{"seq": 1}')
    w1.publish(topic("W1", "state"), b'{"w": 1}')
    # the two come over different bridges: either may reach the hub first
    got = hub.receive_until(topic("E2", "evt"))
    if (topic("W1", "state"), b'{"w": 1}') not in got:
        got += hub.receive_until(topic("W1", "state"))
    assert (topic("E2", "evt"), b'{"seq": 1}') in got
    assert (topic("W1", "state"), b'{"w": 1}') in got
    # the hub's retained status and a retained assignment reach a table of a room, then a command
    hub.publish(f"{PREFIX}/hub/status", b'{"online": true}', retain=True)
    hub.publish(topic("E2", "assign"), b'{"match_id": "m1"}', retain=True)
    hub.publish(f"{PREFIX}/hub/time", b'{"wall": 1}')
    hub.publish(topic("E2", "cmd"), b'{"id": "c1"}')
    got = e2.receive_until(topic("E2", "cmd"))
    assert (f"{PREFIX}/hub/time", b'{"wall": 1}') in got
    assert (topic("E2", "assign"), b'{"match_id": "m1"}') in got
    assert got[-1] == (topic("E2", "cmd"), b'{"id": "c1"}')


def test_a_room_cannot_speak_for_a_table_outside_it(event: Event):
    hub = peer(event, "hub")
    hub.subscribe(f"{PREFIX}/#")
    all_bridges_up(hub, ("east", "west"))
    # the room broker's own hub credential may publish anything in its room: the bridge carries
    # it out, and the central broker keeps the bridge to its own tables
    forger = peer(event, "hub", "east")
    forger.publish(topic("1", "evt"), b'{"forged": "central table"}')
    forger.publish(topic("W1", "evt"), b'{"forged": "other room"}')
    forger.publish(f"{PREFIX}/room/west/bridge", b"0")
    forger.publish(topic("E1", "evt"), b'{"control": true}')
    got = hub.receive_until(topic("E1", "evt"))
    assert [m for m in got if b"forged" in m[1] or m[0].endswith("west/bridge")] == []
    # nor does a command for another room's table come into this one
    e1 = peer(event, "E1", "east")
    e1.subscribe(topic("E1", "cmd"))
    spy = peer(event, "hub", "east")
    spy.subscribe(topic("W1", "cmd"), topic("E1", "cmd"))
    hub.publish(topic("W1", "cmd"), b'{"id": "for-west"}')
    hub.publish(topic("E1", "cmd"), b'{"id": "for-east"}')
    assert spy.receive_until(topic("E1", "cmd")) == [(topic("E1", "cmd"), b'{"id": "for-east"}')]


def test_events_published_while_the_link_is_cut_all_arrive(event: Event):
    watch = peer(event, "monitor")  # the bridge's notifications, read-only
    watch.subscribe(f"{PREFIX}/room/east/bridge")
    assert bridge_says(watch, "east") == b"1"
    hub = peer(event, "hub")
    hub.subscribe(topic("E3", "evt"))
    e3 = peer(event, "E3", "east")
    e3.subscribe(topic("E3", "cmd"))

    def send(numbers: range) -> None:
        for n in numbers:
            e3.publish(topic("E3", "evt"), json.dumps({"seq": n}).encode())

    send(range(1, 6))
    event.rooms["east"].link.cut()
    assert bridge_says(watch, "east") == b"0"  # the bridge's Will, from the central broker
    send(range(6, 41))  # the table keeps playing: its room's broker keeps them for the bridge
    hub.publish(topic("E3", "cmd"), b'{"id": "sent-while-cut"}')  # kept for the bridge's session
    event.rooms["east"].link.mend()
    assert bridge_says(watch, "east") == b"1"
    send(range(41, 46))
    seqs: list[int] = []
    while set(seqs) != set(range(1, 46)):
        seqs += [json.loads(p)["seq"] for _t, p in hub.receive_until(topic("E3", "evt"))]
    # none lost. QoS 1 is "at least once": a message whose acknowledgement a reconnect cut off
    # comes again, and while what the room kept is sent again a newer one may overtake it; the
    # hub keys events by their seq and stores each once (test_room_outage.py checks the store)
    assert sorted(set(seqs)) == list(range(1, 46))
    assert e3.receive_until(topic("E3", "cmd"))[-1] == (topic("E3", "cmd"), b'{"id": "sent-while-cut"}')


def test_a_killed_room_broker_is_one_notification(event: Event):
    hub = peer(event, "hub")
    hub.subscribe(f"{PREFIX}/room/+/bridge")
    assert bridge_says(hub, "east") == b"1"
    event.rooms["east"].kill()
    assert bridge_says(hub, "east") == b"0"
    event.rooms["east"].broker.start()
    assert bridge_says(hub, "east") == b"1"


def test_a_bridge_registered_later_is_let_in_after_a_reload(tmp_path: Path):
    ev = central_broker(tmp_path, EVENT, "1-2")
    ev.central.start()
    try:
        room = add_room(ev, tmp_path, "north", "N1")
        ev.reload_central()
        room.link.mend()
        room.broker.start()
        hub = Peer(ev.central, *ev.credential("hub")).connected()
        try:
            hub.subscribe(f"{PREFIX}/room/north/bridge")
            assert hub.receive_until(f"{PREFIX}/room/north/bridge")[-1][1] == b"1"
        finally:
            hub.close()
    finally:
        ev.stop()
