"""The hub's time on ``hub/time``: when the hub sends it, and that every table credential may read
it and none may write it — an enrolled table's (Mosquitto's dynamic security, and the embedded
broker) as well as a hand-configured one's (``bghub broker-config``'s ACL, tested with the other
ACL rules in test_broker_config_broker.py).

Non-delivery is proved with a control message, as there: the forged time is published (and
acknowledged) before the table asks for the hub's real one; the first time that arrives is
therefore the forged one if the broker let it through.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import tomllib
from typing import Any

import paho.mqtt.client as mqtt

from drivers.hub_link import HubLink
from hub.broker.dynsec import CONFIG_NAME, DEFAULT_ACL_ACCESS, role_name
from hub.broker.mosquitto import main as broker_config_main
from hub.live.clock import FakeClock
from hub.live.time_beacon import TimeBeacon
from tests.hub.support import T0, Spy, event_id, publish, start_hub
from tests.support.broker import Mosquitto, free_port
from tests.support.patience import patience

WAIT = patience(10.0)


class Client:
    """A paho client; what it receives lands in a queue."""

    def __init__(self, port: int, username: str | None = None, password: str | None = None) -> None:
        self.messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=username or "")
        if username is not None:
            self.client.username_pw_set(username, password)
        connected, self._subacks = threading.Event(), queue.Queue[list[Any]]()
        self.client.on_connect = lambda c, u, flags, rc, props: connected.set() if not rc.is_failure else None
        self.client.on_subscribe = lambda c, u, mid, rcs, props: self._subacks.put(rcs)
        self.client.on_message = lambda c, u, msg: self.messages.put((msg.topic, msg.payload, msg.retain))
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        assert connected.wait(WAIT), f"{username} could not connect"

    def subscribe(self, topic: str) -> list[Any]:
        self.client.subscribe(topic, qos=1)
        return self._subacks.get(timeout=WAIT)

    def publish(self, topic: str, payload: Any) -> None:
        self.client.publish(topic, json.dumps(payload), qos=1).wait_for_publish(WAIT)

    def next_on(self, topic: str) -> tuple[dict[str, Any], bool]:
        while True:
            got, payload, retained = self.messages.get(timeout=WAIT)
            if got == topic:
                return json.loads(payload), retained

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


# -- when the hub sends its time ---------------------------------------------------------------


def test_the_hub_sends_its_time_when_it_connects_and_when_a_table_comes_online(tmp_path, mosquitto):
    ev = event_id("hub-time")
    topic = f"bg/v1/{ev}/hub/time"
    clock = FakeClock(T0)
    spy = Spy(mosquitto.host, mosquitto.port, ev, "hub/time")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    try:
        spy.wait_for(lambda s: s.payloads("hub/time"))
        assert spy.payloads("hub/time") == [{"wall": T0}]
        # A table comes online (it may have booted a minute ago with a clock in 1970): the hub's
        # time follows at once, not at the next half-minute.
        clock.advance(5 * 60_000)
        late = Client(mosquitto.port)
        late.subscribe(topic)
        publish(mosquitto.host, mosquitto.port, [(f"bg/v1/{ev}/table/4/status", b'{"online": true}', True)])
        # the first time a new subscriber gets is the new one: an old time is never kept (retained)
        assert late.next_on(topic) == ({"wall": T0 + 5 * 60_000}, False)
        spy.wait_for(lambda s: len(s.payloads("hub/time")) == 2)
        assert not any(retained for t, _, retained in spy.messages if t == topic)
        late.close()
    finally:
        hub.stop()
        spy.close()


def test_the_beacon_sends_the_hubs_clock_every_interval(mosquitto):
    """Between tables coming online, every ``interval_s`` (30 s in the hub; shorter here)."""
    ev = event_id("beacon")
    clock = FakeClock(T0)
    link = HubLink(ev, mosquitto.host, mosquitto.port, on_status=print, on_state=print, on_event=print)
    spy = Spy(mosquitto.host, mosquitto.port, ev, "hub/time")
    loop = asyncio.new_event_loop()
    try:
        link.start()
        assert link.wait_online(WAIT)

        async def run() -> None:
            beacon = TimeBeacon(clock, lambda: link, interval_s=0.05, min_gap_s=0.0)
            beacon.start()
            for step in range(3):
                clock.advance(1_000)
                await asyncio.to_thread(spy.wait_for, lambda s, n=step: len(s.payloads("hub/time")) > n)
            await beacon.stop()

        loop.run_until_complete(run())
        walls = [p["wall"] for p in spy.payloads("hub/time")]
        assert walls[:3] == sorted(walls[:3]) and walls[0] > T0 and all(w <= T0 + 3_000 for w in walls)
    finally:
        loop.close()
        link.stop()
        spy.close()


# -- who may read and write it --------------------------------------------------------------------


def forged_then_real(table: Client, watcher: Client, ev: str, table_id: str) -> dict[str, Any]:
    """The table forges a time, then comes online (the hub answers with its own time): the first
    time the watcher gets."""
    topic = f"bg/v1/{ev}/hub/time"
    table.publish(topic, {"wall": 1})
    table.publish(f"bg/v1/{ev}/table/{table_id}/status", {"online": True})
    return watcher.next_on(topic)[0]


def test_an_enrolled_tables_mosquitto_role_reads_the_time_and_cannot_write_it(tmp_path):
    """Dynamic security: a table enrolled now, and one whose role an older hub made (without the
    right to read ``hub/time``): enrolling again brings the role up to date. Either reads nothing
    but what its role allows, even when it subscribes to everything."""
    ev, port, out = "dynsec-time", free_port(), tmp_path / "room"
    args = ["--event", ev, "--tables", "1", "--out", str(out), "--port", str(port), "--bind", "127.0.0.1"]
    assert broker_config_main(args) == 0
    prefix = f"bg/v1/{ev}"
    old_acls = [
        {"acltype": "publishClientSend", "topic": f"{prefix}/table/9/{kind}", "allow": True}
        for kind in ("status", "state", "evt", "device")
    ] + [
        {"acltype": "subscribePattern", "topic": f"{prefix}/table/9/{kind}", "allow": True}
        for kind in ("assign", "cmd", "resync", "control")
    ]
    old_acls.append({"acltype": "subscribePattern", "topic": f"{prefix}/hub/status", "allow": True})
    (out / CONFIG_NAME).write_text(
        json.dumps(
            {
                "clients": [],
                "groups": [],
                "roles": [{"rolename": role_name("9"), "acls": old_acls}],
                "defaultACLAccess": DEFAULT_ACL_ACCESS,
            }
        )
    )
    broker = Mosquitto(port=port, conf_path=out / "mosquitto.conf").start()
    hub_credential = tomllib.loads((out / "hub.toml").read_text())["broker"]
    monitor_credential = tomllib.loads((out / "monitor.toml").read_text())["broker"]
    clock = FakeClock(T0)
    hub = start_hub(
        tmp_path,
        "127.0.0.1",
        port,
        ev,
        clock,
        username=hub_credential["username"],
        password=hub_credential["password"],
    )
    one = tomllib.loads((out / "tables" / "1.toml").read_text())["broker"]
    clients: list[Client] = []
    try:
        for table in ("9", "12"):
            username = f"table-{table}-test"
            hub.call(hub.app.fleet.fleet.provisioner.grant, username, "a-password-for-tests", table)
            watcher = Client(port, monitor_credential["username"], monitor_credential["password"])
            watcher.subscribe(f"{prefix}/hub/time")
            enrolled = Client(port, username, "a-password-for-tests")
            neighbour = Client(port, one["username"], one["password"])
            clients += [watcher, enrolled, neighbour]
            # it asks for everything, and gets only what its role lets it read
            enrolled.subscribe(f"{prefix}/#")
            neighbour.publish(f"{prefix}/table/1/state", {"table": "1"})
            assert forged_then_real(enrolled, watcher, ev, table) == {"wall": T0}, table
            got = []
            while not got or got[-1][0] != f"{prefix}/hub/time":
                got.append(enrolled.messages.get(timeout=WAIT))
            assert {topic for topic, _, _ in got} <= {f"{prefix}/hub/status", f"{prefix}/hub/time"}, got
            assert json.loads(got[-1][1]) == {"wall": T0}, table
    finally:
        for client in clients:
            client.close()
        hub.stop()
        broker.stop()


def test_an_enrolled_tables_embedded_credential_reads_the_time_and_cannot_write_it(tmp_path):
    ev, port = event_id("embedded-time"), free_port()
    clock = FakeClock(T0)
    hub = start_hub(tmp_path, "127.0.0.1", port, ev, clock, embedded=True)
    clients: list[Client] = []
    try:
        hub.call(hub.app.fleet.fleet.provisioner.grant, "table-5-test", "a-password-for-tests", "5")
        watcher = Client(port)  # the room is open: an unenrolled client reads everything
        watcher.subscribe(f"bg/v1/{ev}/hub/time")
        enrolled = Client(port, "table-5-test", "a-password-for-tests")
        clients += [watcher, enrolled]
        enrolled.subscribe(f"bg/v1/{ev}/hub/time")
        assert forged_then_real(enrolled, watcher, ev, "5") == {"wall": T0}
        assert enrolled.next_on(f"bg/v1/{ev}/hub/time")[0] == {"wall": T0}
    finally:
        for client in clients:
            client.close()
        hub.stop()
