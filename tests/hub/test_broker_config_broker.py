"""The generated configuration, run by a real Mosquitto: who may publish and read what.

Non-delivery is proved with a control message: the forbidden publish is followed, on the same
connection, by an allowed one; once the control message has arrived, everything sent before it
has been processed by the broker, so the forbidden message's absence is final.
"""

from __future__ import annotations

import json
import queue
import signal
import ssl
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from hub.broker.mosquitto import main as broker_config_main
from tests.support.broker import Mosquitto, free_port
from tests.support.patience import patience

EVENT = "acl-room"
PREFIX = f"bg/v1/{EVENT}"
WAIT = patience(10.0)


class Peer:
    """One paho client with the credentials of a generated fragment; messages land in a queue."""

    def __init__(
        self,
        broker: Mosquitto,
        username: str | None,
        password: str | None,
        *,
        client_id: str | None = None,
        protocol: int = mqtt.MQTTv311,
        port: int | None = None,
        will: tuple[str, bytes] | None = None,
        tls_ca: Path | None = None,
    ):
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id if client_id is not None else (username or ""),
            protocol=protocol,
        )
        if username is not None:
            self.client.username_pw_set(username, password)
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1)
        if tls_ca is not None:
            self.client.tls_set(ca_certs=str(tls_ca), cert_reqs=ssl.CERT_REQUIRED)
        self.messages: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.connack: queue.Queue[mqtt.ReasonCode] = queue.Queue()
        self.subacks: queue.Queue[list[mqtt.ReasonCode]] = queue.Queue()
        self.published: dict[int, threading.Event] = {}
        self.disconnects: list[object] = []
        self.client.on_connect = lambda c, u, flags, rc, props: self.connack.put(rc)
        self.client.on_message = lambda c, u, msg: self.messages.put((msg.topic, msg.payload))
        self.client.on_subscribe = lambda c, u, mid, rcs, props: self.subacks.put(rcs)
        self.client.on_disconnect = lambda c, u, flags, rc, props: self.disconnects.append(rc)
        self.client.on_publish = self._on_publish
        self._lock = threading.Lock()
        self.client.connect(broker.host, port or broker.port, keepalive=30)
        self.client.loop_start()

    def _on_publish(self, client, userdata, mid, rc, props) -> None:
        with self._lock:
            self.published.setdefault(mid, threading.Event()).set()

    def wait_connack(self) -> mqtt.ReasonCode:
        return self.connack.get(timeout=WAIT)

    def refused(self) -> bool:
        """Whether the broker refused the connection; a refused client is stopped at once (paho
        would otherwise keep retrying in the background)."""
        failed = self.wait_connack().is_failure
        if failed:
            self.close()
        return failed

    def connected(self) -> Peer:
        rc = self.wait_connack()
        assert not rc.is_failure, f"connection refused: {rc}"
        return self

    def subscribe(self, *topics: str) -> None:
        self.client.subscribe([(t, 1) for t in topics])
        self.subacks.get(timeout=WAIT)

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for the broker's PUBACK (it acknowledges denied ones too)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        with self._lock:
            done = self.published.setdefault(info.mid, threading.Event())
        assert done.wait(WAIT), f"no PUBACK for {topic}"

    def receive_until(self, topic: str) -> list[tuple[str, bytes]]:
        """Everything received up to and including the first message on ``topic``."""
        got: list[tuple[str, bytes]] = []
        while True:
            try:
                item = self.messages.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"control message on {topic} never arrived; got {got}") from None
            got.append(item)
            if item[0] == topic:
                return got

    def drop(self) -> None:
        """Vanish without a DISCONNECT packet (power cut): the broker publishes the Will."""
        self.client.loop_stop()
        sock = self.client.socket()
        if sock is not None:
            sock.close()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Room:
    """A generated configuration directory and the real broker running it."""

    def __init__(self, out: Path, broker: Mosquitto):
        self.out = out
        self.broker = broker
        self.peers: list[Peer] = []

    def credential(self, who: str) -> tuple[str, str]:
        path = self.out / "hub.toml" if who == "hub" else self.out / "tables" / f"{who}.toml"
        broker = tomllib.loads(path.read_text())["broker"]
        return broker["username"], broker["password"]

    def peer(self, who: str, **kwargs) -> Peer:
        peer = Peer(self.broker, *self.credential(who), **kwargs)
        self.peers.append(peer)
        return peer

    def hub_watching_all(self) -> Peer:
        hub = self.peer("hub").connected()
        hub.subscribe(f"{PREFIX}/#")
        return hub


def generate_and_start(tmp_path: Path, *extra: str) -> Room:
    port = free_port()
    out = tmp_path / "room"
    argv = ["--event", EVENT, "--tables", "1-5,A1", "--out", str(out), "--port", str(port)]
    assert broker_config_main([*argv, "--bind", "127.0.0.1", *extra]) == 0
    broker = Mosquitto(port=port, conf_path=out / "mosquitto.conf").start()
    return Room(out, broker)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    room = generate_and_start(tmp_path)
    yield room
    for peer in room.peers:
        peer.close()
    room.broker.stop()


def topic(table: str, kind: str) -> str:
    return f"{PREFIX}/table/{table}/{kind}"


def test_table_cannot_publish_as_another_table(room: Room):
    hub = room.hub_watching_all()
    t3 = room.peer("3").connected()
    t3.publish(topic("4", "state"), b'{"forged": true}')
    t3.publish(topic("4", "status"), b'{"online": false}')
    t3.publish(topic("4", "evt"), b'{"forged": true}')
    t3.publish(topic("3", "state"), b'{"control": true}')
    got = hub.receive_until(topic("3", "state"))
    assert got == [(topic("3", "state"), b'{"control": true}')]


def test_table_cannot_issue_commands_or_assignments(room: Room):
    hub = room.hub_watching_all()
    t4 = room.peer("4").connected()
    t4.subscribe(topic("4", "cmd"), topic("4", "assign"))
    t3 = room.peer("3").connected()
    t3.publish(topic("4", "cmd"), b'{"id": "x", "type": "forfeit", "against": "A"}')
    t3.publish(topic("3", "cmd"), b'{"id": "y", "type": "penalty", "against": "B", "points": 1}')
    t3.publish(topic("3", "assign"), b'{"match_id": "forged"}')
    t3.publish(topic("3", "resync"), b"{}")
    t3.publish(f"{PREFIX}/hub/status", b'{"online": false}')
    t3.publish(topic("3", "evt"), b'{"control": true}')
    assert hub.receive_until(topic("3", "evt")) == [(topic("3", "evt"), b'{"control": true}')]
    # Table 4 received nothing either: the hub's own command to it is the first thing it sees.
    hub.publish(topic("4", "cmd"), b'{"id": "hub-1"}')
    assert t4.receive_until(topic("4", "cmd")) == [(topic("4", "cmd"), b'{"id": "hub-1"}')]


def test_table_reads_only_its_own_topics(room: Room):
    hub = room.hub_watching_all()
    t4 = room.peer("4").connected()
    t3 = room.peer("3").connected()
    t3.subscribe(topic("4", "cmd"), f"{PREFIX}/#")
    t4.publish(topic("4", "state"), b'{"table": "4"}')
    hub.receive_until(topic("4", "state"))  # routed by the broker before what the hub sends next
    hub.publish(topic("4", "cmd"), b'{"id": "for-4"}')
    hub.publish(topic("4", "assign"), b'{"match_id": "m4"}')
    hub.publish(f"{PREFIX}/hub/status", b'{"online": true}')
    hub.publish(topic("3", "resync"), b"{}")
    hub.publish(topic("3", "cmd"), b'{"id": "for-3"}')
    got = t3.receive_until(topic("3", "cmd"))
    assert got == [
        (f"{PREFIX}/hub/status", b'{"online": true}'),
        (topic("3", "resync"), b"{}"),
        (topic("3", "cmd"), b'{"id": "for-3"}'),
    ]


def test_every_table_reads_the_hubs_time_and_none_can_forge_it(room: Room):
    """``hub/time``: what a table compares its own clock with (the clock notice on its screen)."""
    hub = room.hub_watching_all()
    t3 = room.peer("3").connected()
    t4 = room.peer("4").connected()
    t3.subscribe(f"{PREFIX}/hub/time")
    t4.subscribe(f"{PREFIX}/hub/time")
    t4.publish(f"{PREFIX}/hub/time", b'{"wall": 1}')  # acknowledged, so routed before the hub's
    hub.publish(f"{PREFIX}/hub/time", b'{"wall": 1900000000000}')
    for table in (t3, t4):
        got = table.receive_until(f"{PREFIX}/hub/time")
        assert got == [(f"{PREFIX}/hub/time", b'{"wall": 1900000000000}')]


def test_only_the_hub_writes_a_tables_next_lines_and_only_that_table_reads_them(room: Room):
    """``table/{t}/next`` (the "Next:" lines after a draw's match): the hub writes, retained; the
    table reads its own; another table can neither read nor forge them."""
    hub = room.hub_watching_all()
    t3 = room.peer("3").connected()
    t4 = room.peer("4").connected()
    t4.subscribe(topic("3", "next"), topic("4", "cmd"))
    t4.publish(topic("3", "next"), b'{"forged": true}')
    t3.publish(topic("3", "next"), b'{"forged": true}')
    t3.publish(topic("3", "evt"), b'{"after": "forgeries"}')
    # both forgeries were dropped: the hub's subscription to everything sees the event only
    assert hub.receive_until(topic("3", "evt")) == [(topic("3", "evt"), b'{"after": "forgeries"}')]
    hub.publish(topic("3", "next"), b'{"match_id": "main-r1-m1"}', retain=True)
    t3.subscribe(topic("3", "next"), topic("3", "cmd"))
    hub.publish(topic("3", "cmd"), b'{"id": "c1"}')
    assert t3.receive_until(topic("3", "cmd")) == [
        (topic("3", "next"), b'{"match_id": "main-r1-m1"}'),
        (topic("3", "cmd"), b'{"id": "c1"}'),
    ]
    hub.publish(topic("4", "cmd"), b'{"id": "for-4"}')
    assert t4.receive_until(topic("4", "cmd")) == [(topic("4", "cmd"), b'{"id": "for-4"}')]


def test_hub_reads_events_and_writes_commands_and_assignments(room: Room):
    hub = room.hub_watching_all()
    t3 = room.peer("3").connected()
    t3.subscribe(topic("3", "cmd"), topic("3", "assign"))
    event = json.dumps({"seq": 1, "match_id": "r1-t3", "type": "press"}).encode()
    t3.publish(topic("3", "evt"), event)
    assert hub.receive_until(topic("3", "evt"))[-1] == (topic("3", "evt"), event)
    hub.publish(topic("3", "assign"), b'{"match_id": "r1-t3"}', retain=True)
    hub.publish(topic("3", "cmd"), b'{"id": "c1", "type": "pause"}')
    got = t3.receive_until(topic("3", "cmd"))
    assert got == [
        (topic("3", "assign"), b'{"match_id": "r1-t3"}'),
        (topic("3", "cmd"), b'{"id": "c1", "type": "pause"}'),
    ]


def test_hub_cannot_reach_another_events_topics(room: Room):
    hub = room.hub_watching_all()
    hub.subscribe("bg/v1/other-event/#")
    t3 = room.peer("3").connected()
    t3.publish("bg/v1/other-event/table/3/state", b"{}")
    hub.publish("bg/v1/other-event/table/3/cmd", b"{}")
    t3.publish(topic("3", "state"), b"control")
    assert hub.receive_until(topic("3", "state")) == [(topic("3", "state"), b"control")]


def test_anonymous_and_wrong_credentials_are_refused(room: Room):
    anonymous = Peer(room.broker, None, None, client_id="anon")
    room.peers.append(anonymous)
    assert anonymous.refused()
    username, password = room.credential("3")
    wrong = Peer(room.broker, username, password + "x")
    room.peers.append(wrong)
    assert wrong.refused()
    other_table = Peer(room.broker, "4", password)  # table 3's password does not open table 4
    room.peers.append(other_table)
    assert other_table.refused()
    unknown = Peer(room.broker, "99", password)
    room.peers.append(unknown)
    assert unknown.refused()
    assert room.peer("3").wait_connack() == 0


@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["mqtt311", "mqtt5"])
def test_table_cannot_take_over_another_tables_session(room: Room, protocol: int):
    hub = room.hub_watching_all()
    t4 = room.peer("4", protocol=protocol).connected()
    t4.subscribe(topic("4", "cmd"))
    impostor = room.peer("3", client_id="4", protocol=protocol).connected()
    impostor.publish(topic("3", "evt"), b"impostor connected")
    hub.receive_until(topic("3", "evt"))
    hub.publish(topic("4", "cmd"), b'{"id": "still-there"}')
    assert t4.receive_until(topic("4", "cmd")) == [(topic("4", "cmd"), b'{"id": "still-there"}')]
    assert t4.disconnects == []


def test_will_on_own_status_is_delivered_and_a_forged_will_is_not(room: Room):
    hub = room.hub_watching_all()
    forged = room.peer("3", will=(topic("4", "status"), b'{"online": false}')).connected()
    forged.drop()
    # Connecting again as table 3 settles the first connection (closed, or taken over) first.
    honest = room.peer("3", will=(topic("3", "status"), b'{"online": false}')).connected()
    honest.drop()
    assert hub.receive_until(topic("3", "status")) == [(topic("3", "status"), b'{"online": false}')]


def test_retained_state_survives_a_broker_restart(room: Room):
    t3 = room.peer("3").connected()
    t3.publish(topic("3", "state"), b'{"seq": 7}', retain=True)
    t3.close()
    room.broker.stop()
    room.broker.start()
    assert any((room.out / "data").iterdir()), "the broker wrote no persistence file"
    hub = room.hub_watching_all()
    assert hub.receive_until(topic("3", "state")) == [(topic("3", "state"), b'{"seq": 7}')]


def test_tls_listener_accepts_table_credentials(tmp_path: Path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    tls_port = free_port()
    room = generate_and_start(
        tmp_path, "--tls", "--cert", str(cert), "--key", str(key), "--tls-port", str(tls_port)
    )
    try:
        fragment = tomllib.loads((room.out / "tables" / "3.toml").read_text())["broker"]
        assert fragment["port"] == tls_port
        assert fragment["tls"] is True
        assert fragment["ca_file"] == "/etc/bgtable/broker-ca.pem"
        hub = room.hub_watching_all()
        t3 = room.peer("3", port=fragment["port"], tls_ca=cert).connected()
        t3.publish(topic("3", "state"), b"over tls")
        assert hub.receive_until(topic("3", "state")) == [(topic("3", "state"), b"over tls")]
        username, _ = room.credential("3")
        wrong = Peer(room.broker, username, "not-the-password", port=tls_port, tls_ca=cert)
        room.peers.append(wrong)
        assert wrong.refused()
    finally:
        for peer in room.peers:
            peer.close()
        room.broker.stop()


def test_adding_a_table_with_keep_and_a_reload_keeps_connected_tables(room: Room):
    hub = room.hub_watching_all()
    t3 = room.peer("3").connected()
    old_password = room.credential("3")[1]
    argv = ["--event", EVENT, "--tables", "1-6,A1", "--out", str(room.out), "--port", str(room.broker.port)]
    assert broker_config_main([*argv, "--bind", "127.0.0.1", "--keep"]) == 0
    assert room.credential("3")[1] == old_password
    room.broker.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + WAIT
    while True:  # the broker reloads its files between two network events: retry until it has
        t6 = room.peer("6")
        if not t6.refused():
            break
        assert time.monotonic() < deadline, "table 6 was never admitted after the reload"
    t6.publish(topic("6", "state"), b"new table")
    assert hub.receive_until(topic("6", "state")) == [(topic("6", "state"), b"new table")]
    t3.publish(topic("3", "state"), b"still here")
    assert hub.receive_until(topic("3", "state")) == [(topic("3", "state"), b"still here")]
    assert t3.disconnects == []


def test_product_links_work_through_the_locked_down_broker(room: Room, tmp_path: Path):
    """The hub's and a table's own MQTT links, with their generated credentials: presence, state,
    events, assignment, commands and resync all pass the ACL (and the hub's own client id is
    replaced by its username without breaking its persistent session)."""
    from drivers.hub_link import HubLink
    from drivers.outbox import Outbox
    from drivers.table_link import TableLink

    got: queue.Queue[tuple[str, str, dict]] = queue.Queue()
    hub_user, hub_password = room.credential("hub")
    hub = HubLink(
        EVENT,
        room.broker.host,
        room.broker.port,
        on_status=lambda t, o: got.put(("status", t, o)),
        on_state=lambda t, o: got.put(("state", t, o)),
        on_event=lambda t, o: got.put(("evt", t, o)),
        username=hub_user,
        password=hub_password,
        backoff=(0.05, 0.5),
    )
    hub.start()
    assert hub.wait_online(WAIT)
    to_table: queue.Queue[tuple[str, dict]] = queue.Queue()
    table_user, table_password = room.credential("3")
    box = Outbox(str(tmp_path / "outbox.db"))
    table = TableLink(
        EVENT,
        "3",
        room.broker.host,
        room.broker.port,
        outbox=box,
        state_provider=lambda: {"table": "3", "match_id": "r1-t3", "seq": 0},
        on_assign=lambda a: to_table.put(("assign", a)),
        on_cmd=lambda c: to_table.put(("cmd", c)),
        username=table_user,
        password=table_password,
        backoff=(0.05, 0.5),
    )
    table.start()
    try:
        assert table.wait_online(WAIT)

        def next_from_table(kind: str) -> dict:
            while True:
                item = got.get(timeout=WAIT)
                if item[0] == kind and item[1] == "3":
                    return item[2]

        assert next_from_table("status")["online"] is True
        assert next_from_table("state")["match_id"] == "r1-t3"
        table.publish_event({"seq": 1, "match_id": "r1-t3", "type": "press", "wall": 1})
        assert next_from_table("evt")["seq"] == 1
        hub.send_assign("3", {"match_id": "r1-t3", "length": 7})
        hub.send_cmd("3", {"id": "c1", "type": "pause", "reason": "td", "expires_wall": 2**41})
        assert to_table.get(timeout=WAIT) == ("assign", {"match_id": "r1-t3", "length": 7})
        kind, cmd = to_table.get(timeout=WAIT)
        assert (kind, cmd["id"]) == ("cmd", "c1")
        hub.request_resync("3", "r1-t3", 1)
        assert next_from_table("evt")["seq"] == 1  # re-sent from the outbox
    finally:
        table.stop(WAIT)
        hub.stop(WAIT)
        box.close()
