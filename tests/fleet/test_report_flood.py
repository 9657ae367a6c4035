"""One table's health reports cannot flood the hub or the dashboards.

A real ``bghub`` process (embedded broker), a device enrolled for real with ``bgtable enroll``,
and that table's own broker credential used to publish valid health reports as fast as the
broker takes them. Before, the reports bypassed the per-table rate limit and each became its own
push to every open Tables page (43,605 to one dashboard in 40 s). Now they take from the table's
allowance like its states and events (the excess dropped, one flood alert), and the Tables page's
rows are pushed at most every ``FLEET_PUSH_S``, each device's latest once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt

from hub.web.server import FLEET_PUSH_S
from tests.faults.support import wait_until
from tests.fleet.support import PASSWORD, WAIT, Enroll, Hub, broker_of, cleanup

EVENT = "fleet-flood"
SECONDS = 6.0


def report(device: str, n: int) -> dict[str, Any]:
    return {
        "device": device,
        "version": "0.1.0",
        "build": "abcdef0123456789",
        "slot": "factory",
        "ip": "127.0.0.1",
        "hostname": "bgtable-flood",
        "uptime_s": n,
        "cpu_temp_c": 50.0,
        "disk_free_mb": 2000,
        "disk_total_mb": 4000,
        "journal": {"ok": True, "detail": ""},
        "dice": {"configured": False, "seen": False, "last_wall": None},
        "buttons": {"configured": False, "seen": {}},
        "button_test": {"state": "idle", "pressed": [], "finished_wall": None},
        "update": {"state": "idle", "detail": "", "target": ""},
        "in_match": False,
        "screen": "idle",
        "sent_wall": int(time.time() * 1000),
    }


def flood_reports(broker: dict[str, Any], port: int, table: str, device: str, seconds: float) -> int:
    """Publish reports on the table's device topic with its own credential for ``seconds``."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=broker["username"])
    client.username_pw_set(broker["username"], broker["password"])
    client.connect("127.0.0.1", port)
    client.loop_start()
    sent = 0
    topic = f"bg/v1/{EVENT}/table/{table}/device"
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            infos = [client.publish(topic, json.dumps(report(device, sent + i)), qos=0) for i in range(200)]
            infos[-1].wait_for_publish(WAIT)
            sent += len(infos)
    finally:
        client.disconnect()
        client.loop_stop()
    return sent


async def dashboard(url: str, stop: threading.Event, counts: dict[str, int]) -> None:
    """A logged-in Tables page: count the fleet messages it is pushed."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        session = await (await http.get(url + "/api/session")).json()
        login = await http.post(
            url + "/api/login", json={"password": PASSWORD}, headers={"X-CSRF-Token": session["csrf"]}
        )
        assert login.status == 200
        async with http.ws_connect(url + "/api/ws") as ws:
            counts["ready"] = 1
            while not stop.is_set():
                try:
                    msg = await ws.receive(0.2)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                if json.loads(msg.data)["type"] == "fleet":
                    counts["fleet"] += 1


def test_a_tables_report_flood_is_limited_and_its_pushes_coalesced(tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        enroll = Enroll(tmp_path, hub.url, tmp_path / "t", "dev-flood")
        hub.td.post("/api/fleet/dev-flood/enroll", {"table": "4", "code": enroll.code()})
        assert enroll.wait() == 0
        broker = broker_of(tmp_path / "t" / "table.toml")

        counts = {"fleet": 0, "ready": 0}
        stop = threading.Event()
        page = threading.Thread(target=lambda: asyncio.run(dashboard(hub.url, stop, counts)), daemon=True)
        page.start()
        wait_until(lambda: counts["ready"], WAIT, "the dashboard's WebSocket")
        started = time.monotonic()
        sent = flood_reports(broker, hub.broker_port, "4", "dev-flood", SECONDS)
        took = time.monotonic() - started
        floods = wait_until(
            lambda: [a for a in hub.td.get("/api/alerts") if a["kind"] == "flood" and a["table"] == "4"],
            WAIT,
            "the flood alert",
        )
        stop.set()
        page.join(WAIT)
        print(f"reports sent {sent} in {took:.1f} s; fleet pushes to one dashboard: {counts['fleet']}")

        assert sent > 5000
        assert 1 <= counts["fleet"] <= (took + 30) / FLEET_PUSH_S  # the flood, and the wait after
        assert hub.td.get("/api/health")["stats"]["flood_dropped"] > 0
        assert len(floods) == 1
