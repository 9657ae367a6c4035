"""Scenes for the device-change and enrollment-attack tests, with real processes: a table playing
a scheduled match (its journal written beforehand, so that the hub's lateness falls due at a
chosen moment of the test), a read-only MQTT monitor of the room, hellos sent from a chosen
loopback address, and a watcher that notes when a table turned offline on the hub's API.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from drivers.mqtt_topics import PREFIX
from drivers.sealed_box import b64encode, new_private_key, public_key
from tests.faults.support import schedule_csv
from tests.fleet.support import WAIT, Enroll, Hub, Room, TdClient, wait_until
from tests.support.patience import patience

MIN = 60_000


def wall_now() -> int:
    return time.time_ns() // 1_000_000


def write_schedule(tmp: Path, table: str, start: int, length: int = 7) -> Path:
    """A one-match schedule: ``r1-t{table}``, Anna Berg against Jon Dahl."""
    path = tmp / "schedule.csv"
    path.write_text(
        schedule_csv([{"table": table, "player_a": "Anna Berg", "player_b": "Jon Dahl", "length": length,
                       "start": start}])
    )  # fmt: skip
    return path


def enroll(hub: Hub, tmp: Path, device: str, table: str, **extra: Any) -> Path:
    """``bgtable enroll`` for ``device``, enrolled by the TD with the code it prints; the state dir."""
    proc = Enroll(tmp, hub.url, tmp / device, device, "--timeout", "60")
    hub.td.post(f"/api/fleet/{device}/enroll", {"table": table, "code": proc.code(), **extra})
    assert proc.wait() == 0, proc.err.lines
    return tmp / device


def enroll_pending(hub: Hub, tmp: Path, device: str) -> Enroll:
    """``bgtable enroll`` for ``device``, waiting on the Tables page with its code (the TD's
    request, timed by the test, enrolls it: ``proc.code()``, then ``proc.wait()``)."""
    proc = Enroll(tmp, hub.url, tmp / device, device, "--timeout", "90")
    hub.wait_device(device, lambda r: r["state"] == "pending", f"{device} waiting")
    return proc


def seed_waiting(state: Path, table: str, match_id: str, *, first_point_in_ms: int) -> None:
    """Write the table's journal: it took ``match_id`` and Anna Berg checked in, so long ago that
    Jon Dahl's first lateness point (five minutes after the assignment) falls due
    ``first_point_in_ms`` after the kiosk starts again from this journal. A table keeps its
    journal's time across a restart (``kiosk.journal.JournalClock``)."""
    from kiosk.controller import TableController
    from kiosk.journal import Journal

    now = [1_000]
    with Journal(state / "journal.sqlite3") as journal:
        ctl = TableController(journal, table, clock_ms=lambda: now[0])
        players = {"A": {"name": "Anna Berg", "id": ""}, "B": {"name": "Jon Dahl", "id": ""}}
        ctl.submit({"input": "assign", "profile": "wbgf-2023", "match_id": match_id, "length": 7,
                    "players": players, "clock": False, "round": "1"})  # fmt: skip
        now[0] += 5 * MIN - first_point_in_ms
        ctl.submit({"input": "checkin", "side": "A"})


class Monitor:
    """Every message of one table's topics, as the broker's read-only ``monitor`` sees them."""

    def __init__(self, room: Room, event: str, table: str) -> None:
        broker = tomllib.loads((room.out / "monitor.toml").read_text())["broker"]
        self.messages: list[tuple[float, str, bytes, bool]] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=f"monitor-{time.monotonic_ns()}"
        )
        self.client.username_pw_set(broker["username"], broker["password"])
        self.client.on_message = self._on_message
        #: set on the broker's SUBACK: the retained messages follow it at once
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda c, u, mid, codes, p: self.subscribed.set()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(
            f"{PREFIX}/{event}/table/{table}/#", qos=1
        )
        self.client.connect("127.0.0.1", room.port, keepalive=30)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.messages.append((time.monotonic(), msg.topic, msg.payload, bool(msg.retain)))

    def on(self, kind: str, since: float = 0.0) -> list[tuple[float, bytes, bool]]:
        with self._lock:
            return [
                (t, p, r) for t, topic, p, r in self.messages if topic.endswith(f"/{kind}") and t >= since
            ]

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def retained(room: Room, event: str, topic_suffix: str) -> bytes | None:
    """The broker's retained message on ``table/...`` (None: none), read by a new monitor."""
    monitor = Monitor(room, event, topic_suffix.split("/")[0])
    try:
        # the broker sends the retained messages right behind its SUBACK: once that has come, a
        # retained message not there within a second (scaled) is none
        assert monitor.subscribed.wait(WAIT), "the monitor's subscription was not acknowledged"
        kind = topic_suffix.split("/")[1]
        try:
            found = wait_until(lambda: [p for _, p, r in monitor.on(kind) if r], patience(1.0), "retained")
        except TimeoutError:
            return None
        return bytes(found[-1])
    finally:
        monitor.stop()


@dataclass
class OfflineWatch:
    """Polls ``GET /api/tables/{table}`` and notes the first moment its tile says offline."""

    hub: Hub
    table: str
    since: float = field(default_factory=time.monotonic)
    offline_at: float | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.is_set() and self.offline_at is None:
            detail = self.hub.table(self.table)
            if detail is not None and not detail["tile"]["online"] and detail["tile"]["status"] == "offline":
                self.offline_at = time.monotonic()
                return
            self._stop.wait(0.05)

    def wait(self, timeout: float) -> float:
        """Seconds from the watch's start to "offline" (raises if it did not come in ``timeout``)."""
        wait_until(lambda: self.offline_at is not None, timeout, f"table {self.table} offline on the API")
        assert self.offline_at is not None
        return self.offline_at - self.since

    def stop(self) -> None:
        self._stop.set()


def new_key() -> str:
    return b64encode(public_key(new_private_key()))


def device_call(url: str, path: str, body: dict[str, Any], source: str = "127.0.0.1") -> tuple[int, Any]:
    """One request to the devices' endpoints from the loopback address ``source``."""
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data.decode(errors="replace")
    finally:
        conn.close()


def hello(url: str, device: str, key: str, source: str = "127.0.0.1") -> tuple[int, Any]:
    return device_call(url, "/device/v1/hello", {"device": device, "key": key, "version": "0.1"}, source)


def auto_commands(hub: Hub, table: str) -> list[dict[str, Any]]:
    """The automatic commands the hub recorded for ``table`` (sent, or about to be)."""
    return [c for c in hub.td.get(f"/api/commands?table={table}") if c.get("origin") == "auto"]


__all__ = ["WAIT", "wall_now"]


class Account(TdClient):
    """A named account's browser, reduced to its HTTP calls (``/api/login`` with a user name;
    ``""``: the hub's own password, the chief TD)."""

    def __init__(self, url: str, user: str, password: str) -> None:
        import urllib.request
        from http.cookiejar import CookieJar

        self.url = url
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = self._call("GET", "/api/session")["csrf"]
        self.csrf = self._call("POST", "/api/login", {"user": user, "password": password})["csrf"]

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def ws_messages(
    url: str, cookie: str, until: Any, then: Any = None, timeout: float = WAIT
) -> list[dict[str, Any]]:
    """The dashboard's live messages on ``/api/ws`` (with this cookie) until ``until(messages)``;
    ``then()`` runs (on a thread) once the connection is open."""
    import asyncio

    import aiohttp

    async def run() -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        headers = {"Cookie": cookie} if cookie else {}
        url_ws = url.replace("http", "ws", 1) + "/api/ws"
        async with aiohttp.ClientSession() as session, session.ws_connect(url_ws, headers=headers) as ws:
            deadline = time.monotonic() + timeout
            if then is not None:
                asyncio.get_running_loop().run_in_executor(None, then)
            while not until(got):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such messages in {timeout} s: {got[-5:]}")
                msg = await ws.receive(timeout=left)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise AssertionError(f"the live connection ended: {msg}")
                got.append(json.loads(msg.data))
        return got

    return asyncio.run(run())
