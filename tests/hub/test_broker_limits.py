"""The generated broker's limits and its read-only ``monitor`` credential, on a real Mosquitto.

* A packet over ``max_packet_size`` never reaches anyone, and its sender is disconnected.
* A stranger with no credential who announces a huge CONNECT and sends part of it is dropped at
  once, and the broker's memory (RSS of the mosquitto process) stays small however many do it.
* Connections beyond ``max_connections`` are closed at once.
* ``monitor`` reads the whole event (and ``$SYS``) and can publish nothing; it never
  disconnects the hub, even when it asks for the hub's client id.
"""

from __future__ import annotations

import select
import socket
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.broker.mosquitto import MONITOR_USER, room_limits
from tests.hub.test_broker_config_broker import PREFIX, WAIT, Peer, Room, generate_and_start, topic

#: tables in the generated room (``generate_and_start``: 1-5 and A1)
TABLES = 6
MiB = 1024 * 1024


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    room = generate_and_start(tmp_path)
    yield room
    for peer in room.peers:
        peer.close()
    room.broker.stop()


def monitor(room: Room, **kwargs) -> Peer:
    broker = tomllib.loads((room.out / "monitor.toml").read_text())["broker"]
    assert broker["username"] == MONITOR_USER
    peer = Peer(room.broker, broker["username"], broker["password"], **kwargs)
    room.peers.append(peer)
    return peer


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def remaining_length(n: int) -> bytes:
    """MQTT's variable-length encoding of a packet's remaining length."""
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the other end closed the connection (waits at most ``WAIT``)."""
    sock.settimeout(WAIT)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_the_configuration_names_every_limit(room: Room):
    limits = room_limits(TABLES)
    conf = (room.out / "mosquitto.conf").read_text().splitlines()
    for line in (
        f"max_packet_size {limits.max_packet_size}",
        f"max_queued_bytes {limits.max_queued_bytes}",
        f"max_queued_messages {limits.max_queued_messages}",
        f"max_inflight_messages {limits.max_inflight_messages}",
        f"max_connections {limits.max_connections}",
    ):
        assert line in conf
    assert limits.max_connections >= TABLES + 2
    assert room_limits(500).max_connections >= 500 + 2 + 50  # a real room, with room to spare


def test_a_1_mib_publish_never_reaches_a_subscriber(room: Room):
    hub = room.hub_watching_all()
    watcher = monitor(room).connected()
    watcher.subscribe(f"{PREFIX}/#")
    t3 = room.peer("3").connected()
    t3.client.publish(topic("3", "state"), b"x" * MiB, qos=1)
    deadline = time.monotonic() + WAIT
    while not t3.disconnects and time.monotonic() < deadline:
        time.sleep(0.01)
    assert t3.disconnects, "the broker did not disconnect the sender of a 1 MiB packet"
    t3.close()
    # a large but legitimate message still goes through, and is the first thing anyone gets
    t4 = room.peer("4").connected()
    t4.publish(topic("4", "state"), b"y" * (200 * 1024))
    assert hub.receive_until(topic("4", "state")) == [(topic("4", "state"), b"y" * (200 * 1024))]
    assert watcher.receive_until(topic("4", "state")) == [(topic("4", "state"), b"y" * (200 * 1024))]


def test_half_sent_oversize_connects_are_dropped_and_memory_stays_bounded(room: Room):
    hub = room.hub_watching_all()
    pid = room.broker.proc.pid
    before = rss_mib(pid)
    strangers = []
    for i in range(30):
        sock = socket.create_connection((room.broker.host, room.broker.port), timeout=WAIT)
        if i % 3:  # a CONNECT that announces 200 MB and sends its first bytes
            sock.sendall(b"\x10" + remaining_length(200_000_000) + b"\x00\x04MQTT\x04\x02\x00\x3c")
        else:  # or a first packet that is no CONNECT at all (a PUBLISH), as large
            sock.sendall(b"\x30" + remaining_length(200_000_000) + b"\x00\x01t")
        strangers.append(sock)
    sent = 0
    for sock in strangers:
        try:
            for _ in range(32):  # then up to 2 MiB more each: 60 MiB offered in all
                sock.sendall(b"\0" * 65536)
                sent += 65536
        except OSError:
            pass
    assert all(closed_by_peer(sock) for sock in strangers)
    for sock in strangers:
        sock.close()
    after = rss_mib(pid)
    assert after - before < 16, (
        f"broker RSS {before:.1f} → {after:.1f} MiB after {sent / MiB:.0f} MiB offered"
    )
    # and the room carries on
    t3 = room.peer("3").connected()
    t3.publish(topic("3", "evt"), b"after")
    assert hub.receive_until(topic("3", "evt")) == [(topic("3", "evt"), b"after")]
    assert hub.disconnects == []


def test_connections_beyond_the_limit_are_closed_at_once(room: Room):
    """Mosquitto 2.0.11 counts a connection closed before its CONNECT twice (its issue #1460), so
    the limit drifts up by one for each: the test's broker had one (the start-up port probe)."""
    limit = room_limits(TABLES).max_connections
    address = (room.broker.host, room.broker.port)
    socks = [socket.create_connection(address, timeout=WAIT) for _ in range(limit + 5)]
    try:
        refused: list[socket.socket] = []
        deadline = time.monotonic() + WAIT
        while len(refused) < 4 and time.monotonic() < deadline:
            readable, _, _ = select.select([s for s in socks if s not in refused], [], [], 0.5)
            refused += [s for s in readable if closed_by_peer(s)]
        assert 4 <= len(refused) <= 5, f"{len(refused)} of {limit + 5} connections refused"
    finally:
        for sock in socks:
            sock.close()
    # the slots come back when those connections go
    assert room.peer("3").connected().client.is_connected()


def test_monitor_reads_everything_and_can_publish_nothing(room: Room):
    hub = room.hub_watching_all()
    watcher = monitor(room).connected()
    watcher.subscribe(f"{PREFIX}/#", "$SYS/broker/version")
    t3 = room.peer("3").connected()
    t3.subscribe(topic("3", "cmd"), topic("3", "assign"))
    t3.publish(topic("3", "evt"), b'{"seq": 1}')
    got = watcher.receive_until(topic("3", "evt"))
    assert (topic("3", "evt"), b'{"seq": 1}') in got
    hub.receive_until(topic("3", "evt"))
    assert any(t == "$SYS/broker/version" for t, _ in got) or watcher.receive_until("$SYS/broker/version")
    # nothing the monitor publishes reaches the tables or the hub
    watcher.publish(topic("3", "cmd"), b'{"id": "m", "type": "forfeit", "against": "A"}')
    watcher.publish(topic("3", "assign"), b'{"match_id": "forged"}')
    watcher.publish(topic("3", "state"), b'{"forged": true}')
    watcher.publish(f"{PREFIX}/hub/status", b'{"online": false}')
    hub.publish(topic("3", "cmd"), b'{"id": "control"}')
    assert t3.receive_until(topic("3", "cmd")) == [(topic("3", "cmd"), b'{"id": "control"}')]
    t3.publish(topic("3", "evt"), b"control")
    # the hub (subscribed to everything) saw its own command and the control, nothing forged
    assert hub.receive_until(topic("3", "evt")) == [
        (topic("3", "cmd"), b'{"id": "control"}'),
        (topic("3", "evt"), b"control"),
    ]


def test_monitor_never_kicks_the_hub_off(room: Room):
    hub = room.hub_watching_all()
    first = monitor(room).connected()
    first.subscribe(f"{PREFIX}/#")
    # even asking for the hub's client id: the broker uses the username
    second = monitor(room, client_id="hub").connected()
    second.subscribe(f"{PREFIX}/#")
    t3 = room.peer("3").connected()
    t3.publish(topic("3", "evt"), b"still here")
    assert hub.receive_until(topic("3", "evt")) == [(topic("3", "evt"), b"still here")]
    assert second.receive_until(topic("3", "evt"))[-1] == (topic("3", "evt"), b"still here")
    assert hub.disconnects == []
