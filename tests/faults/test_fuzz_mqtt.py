"""Ten thousand malformed and hostile MQTT payloads on every topic the hub and a table read.

The real hub (in this process), a simulated table (real reducer, link and outbox) and a real
kiosk process (``bgtable run --headless``) sit on a Mosquitto of their own while a raw paho
client publishes :mod:`tests.faults.hostile` payloads on ``table/+/status|state|evt`` (what the
hub reads), ``table/{t}/assign|cmd|resync`` and ``hub/status`` (what a table reads), and on
topics nobody should act on. Afterwards:

* nothing crashed: the hub's loop and network threads, the table's network thread and the kiosk
  process are alive and connected, and every read-only API answers with standard JSON;
* a fresh command flows hub -> table -> ``cmd_done`` -> hub, to both tables, and a fresh table
  input reaches the hub's store;
* the hub's store holds no garbage: every row is a well-formed event; the real tables' rows are
  exactly the events those tables made (all of them, once); the invented tables' rows are
  exactly the well-formed events published for them (first delivery of each seq).

``SMART_TABLE_FUZZ_MESSAGES`` (default 10,000) and ``SMART_TABLE_FUZZ_SEED`` change the run; the
soak variant sends 100,000.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from hub.live.clock import SystemClock
from rulebook.wire import parse_event
from tests.faults.hostile import Hostile, Msg, dumps
from tests.faults.support import (
    WAIT,
    TdClient,
    event_id,
    make_table,
    read_db,
    room_schedule,
    start_hub_thread,
    stored_events,
    wait_delivered,
    wait_until,
)
from tests.support.broker import Mosquitto

MESSAGES = int(os.environ.get("SMART_TABLE_FUZZ_MESSAGES", "10000"))
SEED = int(os.environ.get("SMART_TABLE_FUZZ_SEED", "20261122"))
SIM = "1"
KIOSK = "k1"
FAKE = ["z1", "z2", "z3", "5"]


def strict_json(text: str) -> Any:
    """Parse as a browser would: NaN and Infinity are not JSON."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def publish_all(host: str, port: int, msgs: list[Msg]) -> None:
    """Publish every message with one raw client; return once the broker has taken them all."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="fuzzer")
    client.max_inflight_messages_set(200)
    client.max_queued_messages_set(0)
    client.connect(host, port)
    client.loop_start()
    try:
        for start in range(0, len(msgs), 5000):  # paho numbers messages in flight up to 65,535
            chunk = msgs[start : start + 5000]
            infos = [client.publish(m.topic, m.payload, qos=m.qos, retain=m.retain) for m in chunk]
            for info in infos:
                info.wait_for_publish(WAIT)
    finally:
        client.loop_stop()
        client.disconnect()


def start_kiosk(tmp_path: Path, broker: Mosquitto, event: str) -> tuple[subprocess.Popen, Path]:
    data = tmp_path / "kiosk"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{KIOSK}"\nevent = "{event}"\ndata_dir = "{data}"\nlog_level = "warning"\n'
        f'[broker]\nhost = "{broker.host}"\nport = {broker.port}\n[pins]\nenabled = false\n',
        encoding="utf-8",
    )
    log = open(tmp_path / "kiosk.log", "wb")  # noqa: SIM115 - the process owns it until the end
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    return proc, data


def kiosk_outbox(data: Path) -> list[dict[str, Any]]:
    """Every event the kiosk made (its outbox keeps them after sending), as the hub keys them."""
    db = sqlite3.connect(f"file:{data / 'outbox.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute("SELECT body FROM outbox ORDER BY id").fetchall()
    finally:
        db.close()
    return [{**e, "match_id": e["match_id"] or ""} for e in (json.loads(b) for (b,) in rows)]


def run_fuzz(tmp_path: Path, n: int, seed: int) -> dict[str, Any]:
    broker = Mosquitto().start()
    ev = event_id("fuzz")
    db = tmp_path / "hub.db"
    clock = SystemClock()
    hub = kiosk = None
    sim = make_table(ev, SIM, broker, clock, tmp_path / "outbox.sqlite3")
    try:
        hub = start_hub_thread(
            tmp_path,
            broker,
            ev,
            clock,
            schedule=room_schedule([SIM, KIOSK], clock.now_wall()),
            db=db,
            # about malformed payloads, not floods: test_limits.py holds the hub to its rate
            table_rate=1e9,
            table_burst=10**9,
        )
        kiosk, kiosk_data = start_kiosk(tmp_path, broker, ev)
        sim.start(WAIT)
        sim.wait_for(lambda s: s.match_id == f"r1-t{SIM}", WAIT)
        sim.checkin("A")
        sim.checkin("B")
        sim.opening_roll(5, 3)
        hub.wait_for(lambda h: KIOSK in h.views and (h.views[KIOSK].state or {}).get("match_id"), WAIT)

        gen = Hostile(ev, seed, real_tables=[SIM, KIOSK], fake_tables=FAKE)
        msgs = gen.messages(n)
        sentinel = {"seq": 1, "match_id": "sentinel", "type": "end", "wall": 1}
        msgs.append(
            Msg(f"bg/v1/{ev}/table/z1/evt", dumps(sentinel), False, 1, "store", ("z1", "sentinel", 1))
        )
        publish_all(broker.host, broker.port, msgs)

        # The hub has read everything (one publisher's messages arrive in order).
        def stored(key: tuple[str, str, int]) -> bool:
            with read_db(db) as rdb:
                row = rdb.execute(
                    "SELECT 1 FROM events WHERE tbl = ? AND match_id = ? AND seq = ?", key
                ).fetchone()
            return row is not None

        wait_until(lambda: stored(("z1", "sentinel", 1)), WAIT * 2, "the sentinel event")

        # Nothing crashed.
        assert hub._thread.is_alive() and hub.hub.link is not None
        assert hub.hub.link.client.running and hub.hub.link.online
        assert sim.link.client.running and sim.link.online
        assert kiosk.poll() is None, (tmp_path / "kiosk.log").read_text()[-3000:]
        threads = {t.name for t in threading.enumerate()}
        assert "hub-loop" in threads and f"mqtt-{SIM}" in threads

        # Every read-only view of the room answers with standard JSON.
        td = TdClient(hub.url)
        paths = ["/api/room", "/api/tables", "/api/alerts", "/api/board", "/api/health", "/api/results"]
        for table in [SIM, KIOSK, *FAKE]:
            paths += [f"/api/tables/{table}", f"/api/tables/{table}/events"]
        for path in paths:
            try:
                strict_json(td.text(path))
            except ValueError as exc:
                raise AssertionError(f"{path} does not answer with standard JSON: {exc}") from None

        # A fresh command flows end to end to both tables, and a fresh input reaches the store.
        for table in (SIM, KIOSK):
            cmd = hub.call(hub.hub.actions.td_command, table, "td_ack", {}, "test")
            wait_until(
                lambda c=cmd: (hub.call(hub.hub.store.command, c["id"]) or {}).get("done_ok") is True,
                WAIT,
                f"td_ack answered by table {table}",
            )
        sim.call_td("A")
        wait_delivered(db, [sim])

        # The kiosk's events are all in, once, in order (its outbox keeps what it sent).
        def kiosk_delivered() -> bool:
            with read_db(db) as rdb:
                return stored_events(rdb, KIOSK) == kiosk_outbox(kiosk_data)

        wait_until(kiosk_delivered, WAIT, "the kiosk's events in the hub's store")

        # No garbage in the store: the invented tables have exactly the well-formed events.
        want: set[tuple[str, str, int]] = {m.key for m in msgs if m.expect == "store" and m.key}
        with read_db(db) as rdb:
            rows = rdb.execute("SELECT tbl, match_id, seq, type, body FROM events").fetchall()
        for r in rows:
            body = json.loads(r["body"])
            # stored as the schema returned it (the store writes a null match id as "")
            assert parse_event({**body, "match_id": body["match_id"] or None}) == {
                **body,
                "match_id": body["match_id"] or None,
            }, dict(r)
            assert (body["match_id"], body["seq"], body["type"]) == (r["match_id"], r["seq"], r["type"])
        got = {(r["tbl"], r["match_id"], r["seq"]) for r in rows if r["tbl"] not in (SIM, KIOSK)}
        assert got == want, (sorted(got - want)[:10], sorted(want - got)[:10])
        stats = dict(hub.call(lambda: dict(hub.hub.stats)))
        stats["published"] = len(msgs)
        stats["well_formed_events"] = len(want)
        return stats
    finally:
        if kiosk is not None:
            kiosk.terminate()
            try:
                kiosk.wait(WAIT)
            except subprocess.TimeoutExpired:
                kiosk.kill()
        sim.stop()
        if hub is not None:
            hub.stop()
        broker.stop()


def test_ten_thousand_hostile_payloads_crash_nothing_and_store_no_garbage(tmp_path):
    print(run_fuzz(tmp_path, MESSAGES, SEED))


@pytest.mark.soak
def test_hostile_payloads_soak(tmp_path):
    print(run_fuzz(tmp_path, 100_000, SEED + 1))


# -- the two findings of the fuzz above, each on its own ----------------------------------------


def test_nan_and_infinity_from_a_table_are_not_served_to_the_dashboard(tmp_path, mosquitto):
    """``NaN``/``Infinity`` are not JSON (RFC 8259), but Python's parser takes them. A table (or
    anything on its topic) that sends them must not make the hub's API answer with them: a
    browser's ``JSON.parse`` refuses the whole response, and the TD's table view breaks."""
    ev = event_id("nan")
    clock = SystemClock()
    hub = start_hub_thread(tmp_path, mosquitto, ev, clock)
    try:
        gen = Hostile(ev, 1, real_tables=[], fake_tables=["z9"])
        state = {**gen.state_template, "seq": 3, "extra": float("nan")}
        evt = {"seq": 1, "match_id": "zz", "type": "press", "wall": 1, "side": "A", "x": float("inf")}
        base = f"bg/v1/{ev}/table/z9"
        marker = {"seq": 2, "match_id": "zz", "type": "end", "wall": 1}
        publish_all(
            mosquitto.host,
            mosquitto.port,
            [
                Msg(f"{base}/status", dumps({"online": True, "wall": 1}), False, 1, "keep"),
                Msg(f"{base}/status", dumps({"online": True, "wall": float("-inf")}), False, 1, "drop"),
                Msg(f"{base}/state", dumps(state), False, 1, "drop"),
                Msg(f"{base}/evt", dumps(evt), False, 1, "drop"),
                Msg(f"{base}/evt", dumps(marker), False, 1, "store"),
            ],
        )
        # the good status and the marker event (they may arrive in either order)
        hub.wait_for(
            lambda h: h.store.max_seq("z9", "zz") == 2 and "z9" in h.views and h.views["z9"].online,
            WAIT,
        )
        td = TdClient(hub.url)
        for path in ("/api/tables/z9", "/api/tables/z9/events", "/api/room", "/api/tables"):
            try:
                strict_json(td.text(path))
            except ValueError as exc:
                raise AssertionError(f"{path} does not answer with standard JSON: {exc}") from None
    finally:
        hub.stop()


def test_a_refused_command_never_makes_an_event_the_hub_cannot_take(tmp_path, mosquitto):
    """A command with a long field is refused with a reason that quotes the field. The quote must
    be short: an event over the 256 KiB message limit is dropped by the hub on every delivery
    (resync included), so the hub's record of the table would have a hole for good."""
    ev = event_id("echo")
    clock = SystemClock()
    hub = start_hub_thread(tmp_path, mosquitto, ev, clock, schedule=room_schedule([SIM], clock.now_wall()))
    db = tmp_path / f"hub-{ev}.db"
    sim = make_table(ev, SIM, mosquitto, clock, tmp_path / "outbox.sqlite3")
    try:
        sim.start(WAIT)
        sim.wait_for(lambda s: s.match_id == f"r1-t{SIM}", WAIT)
        cmd = {
            "id": "c-long",
            "type": "penalty",
            "against": "\\" * 120_000,
            "points": 1,
            "expires_wall": 2**41,
        }
        payload = dumps(cmd)
        assert len(payload) < 256 * 1024  # the table takes it
        publish_all(
            mosquitto.host, mosquitto.port, [Msg(f"bg/v1/{ev}/table/{SIM}/cmd", payload, False, 1, "drop")]
        )
        done = sim.wait_cmd("c-long", WAIT)
        assert done["ok"] is False
        sim.checkin("A")  # and the table goes on
        wait_delivered(db, [sim])
    finally:
        sim.stop()
        hub.stop()
