"""What one table may cost the hub: its message rate, its events' size and number, and what one
API listing may return.

Reported: one table's flood of 2,000 events of 250 KiB grew the hub's database by 737 MB in
14 s, and ``GET /api/tables/3/events?limit=5000`` then returned 512 MB of JSON. Here a raw MQTT
client plays the hostile table next to a real simulated one, against the real hub on a real
Mosquitto; the limits are the hub's defaults unless a test says otherwise.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt

from hub.live.clock import SystemClock
from hub.live.config import HubConfig
from hub.storage.store import LISTING_BYTES, Store
from rulebook.wire import MAX_EVENT_BYTES
from tests.faults.support import (
    WAIT,
    Players,
    TdClient,
    event_id,
    make_table,
    room_schedule,
    start_hub_thread,
    wait_delivered,
)
from tests.hub.support import Spy
from tests.support.patience import patience


class Raw:
    """A client that publishes as fast as the broker takes it (QoS 1, a large window)."""

    def __init__(self, host: str, port: int) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{time.monotonic_ns()}")
        self.client.max_inflight_messages_set(1000)
        self.client.max_queued_messages_set(0)
        self.client.connect(host, port)
        self.client.loop_start()

    def send(self, topic: str, payloads: list[bytes]) -> None:
        infos = [self.client.publish(topic, p, qos=1) for p in payloads]
        for info in infos:
            info.wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _event(seq: int, match_id: str = "fl", **extra: object) -> dict:
    return {"seq": seq, "match_id": match_id, "type": "press", "side": "A", "at": seq, "wall": 1, **extra}


def _alerts(hub, kind: str) -> list[dict]:
    return [a for a in hub.call(hub.hub.alert_list) if a["kind"] == kind]


def test_a_flooding_table_is_held_to_its_rate_and_the_others_are_not(tmp_path, mosquitto):
    clock = SystemClock()
    ev = event_id("flood")
    sim = make_table(ev, "1", mosquitto, clock, tmp_path / "outbox.sqlite3")
    hub = start_hub_thread(tmp_path, mosquitto, ev, clock, schedule=room_schedule(["1"], clock.now_wall()))
    spy = Spy(mosquitto.host, mosquitto.port, ev, "table/f1/resync")
    raw = Raw(mosquitto.host, mosquitto.port)
    try:
        sim.start(WAIT)
        sim.wait_for(lambda s: s.match_id == "r1-t1", WAIT)
        players = Players([sim], clock, seed=3)
        started = time.monotonic()
        raw.send(f"bg/v1/{ev}/table/f1/evt", [json.dumps(_event(s)).encode() for s in range(1, 3001)])
        elapsed = time.monotonic() - started
        for _ in range(30):
            players.step()
        wait_delivered(tmp_path / f"hub-{ev}.db", [sim])  # the other table: every event, in order
        stored = hub.wait_for(lambda h: h.store.count_events("f1", "fl") or None)
        limits = hub.hub.ingest.limits
        allowed = limits.burst + limits.rate * (elapsed + 1)
        assert stored <= allowed < 3000, (stored, allowed)
        assert hub.call(lambda: hub.hub.stats["flood_dropped"]) >= 3000 - allowed
        flood = hub.wait_for(lambda h: [a for a in h.alert_list() if a["kind"] == "flood"])
        assert len(flood) == 1 and flood[0]["table"] == "f1" and flood[0]["urgency"] == "high"
        # once it sends at a table's pace again, the gap its flood left is asked for
        raw.send(f"bg/v1/{ev}/table/f1/evt", [json.dumps(_event(3001)).encode()])
        spy.wait_for(lambda s: s.payloads("resync"))
        assert spy.payloads("resync")[0]["match_id"] == "fl"
    finally:
        raw.close()
        spy.close()
        sim.stop()
        hub.stop()


def test_big_events_cost_the_database_a_few_kilobytes_at_most(tmp_path, mosquitto):
    """The reported flood, scaled down: 300 events of 250 KiB each (padding in a field no event
    has). What is stored is the event as the schema knows it: a few dozen bytes each."""
    ev = event_id("bigevents")
    db = tmp_path / f"hub-{ev}.db"
    hub = start_hub_thread(tmp_path, mosquitto, ev, SystemClock(), table_rate=1e9, table_burst=10**9)
    raw = Raw(mosquitto.host, mosquitto.port)
    try:
        pad = "p" * (250 * 1024)
        payloads = [json.dumps(_event(s, pad=pad)).encode() for s in range(1, 301)]
        before = db.stat().st_size
        raw.send(f"bg/v1/{ev}/table/3/evt", payloads)
        hub.wait_for(lambda h: h.stats["events"] == 300)
        hub.call(hub.hub.tick)
        grown = sum(p.stat().st_size for p in tmp_path.glob(f"hub-{ev}.db*")) - before
        assert grown < 5 * 1024 * 1024, grown  # against 75 MB sent
        # an event whose known fields alone are over the limit is not stored (and not asked for)
        huge = _event(301, type="cmd_done", id="𝄞" * 300, cmd="𝄞" * 300, error="𝄞" * 300, rejected="𝄞" * 300)
        assert len(json.dumps(huge, ensure_ascii=False).encode()) > MAX_EVENT_BYTES
        raw.send(f"bg/v1/{ev}/table/3/evt", [json.dumps(huge).encode(), json.dumps(_event(302)).encode()])
        hub.wait_for(lambda h: h.stats["events"] == 301)
        assert hub.call(lambda: hub.hub.stats["too_big"]) == 1
        assert hub.call(lambda: hub.hub.stats["resyncs"]) == 0
        assert [a["table"] for a in _alerts(hub, "event_size")] == ["3"]
    finally:
        raw.close()
        hub.stop()


def test_a_match_keeps_at_most_its_cap_of_events(tmp_path, mosquitto):
    ev = event_id("cap")
    hub = start_hub_thread(tmp_path, mosquitto, ev, SystemClock(), max_events_per_match=50)
    raw = Raw(mosquitto.host, mosquitto.port)
    try:
        raw.send(f"bg/v1/{ev}/table/4/evt", [json.dumps(_event(s)).encode() for s in range(1, 81)])
        hub.wait_for(lambda h: h.stats["messages"] >= 80)
        assert hub.call(hub.hub.store.count_events, "4", "fl") == 50
        assert hub.call(lambda: hub.hub.stats["over_cap"]) == 30
        assert hub.call(lambda: hub.hub.stats["resyncs"]) == 0
        alert = hub.wait_for(lambda h: next((a for a in h.alert_list() if a["kind"] == "event_cap"), None))
        assert "more than 50 events for match fl" in alert["message"]
        # another match of the same table is not affected
        raw.send(f"bg/v1/{ev}/table/4/evt", [json.dumps(_event(1, "fl2")).encode()])
        hub.wait_for(lambda h: h.store.count_events("4", "fl2") == 1)
    finally:
        raw.close()
        hub.stop()


def test_a_listing_never_returns_more_than_its_byte_budget(tmp_path, mosquitto):
    """A database that already holds huge events (an older hub's, or a damaged table's): the
    documented read of 5,000 events answers within the budget, and says it was cut short."""
    ev = event_id("listing")
    db = tmp_path / f"hub-{ev}.db"
    store = Store(db)
    big = "x" * (250 * 1024)
    for seq in range(1, 201):
        store.add_event("3", {"seq": seq, "match_id": "m", "type": "press", "pad": big}, seq)
    for seq in range(201, 2201):
        store.add_event("3", {"seq": seq, "match_id": "m", "type": "press", "side": "A"}, seq)
    store.commit()
    store.close()
    hub = start_hub_thread(tmp_path, mosquitto, ev, SystemClock(), db=db)
    try:
        td = TdClient(hub.url)
        request = urllib.request.Request(hub.url + "/api/tables/3/events?limit=5000")
        with td.opener.open(request, timeout=patience(30)) as response:
            body = response.read()
            truncated = response.headers.get("X-Truncated")
        assert len(body) <= LISTING_BYTES + 64 * 1024, len(body)
        assert truncated == "true"
        events = json.loads(body)
        # the newest come first in what is kept (the listing is oldest first, ending at the newest)
        assert events[-1]["seq"] == 2200 and all(e["seq"] > 200 for e in events[-2000:])
        small = json.loads(td.text("/api/tables/3/events?limit=100"))
        assert len(small) == 100
    finally:
        hub.stop()


def test_the_limits_are_the_documented_ones():
    """docs/api.md states these numbers; a change here must change the docs."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    config = HubConfig(event="e")
    assert (config.table_rate, config.table_burst, config.max_events_per_match) == (20.0, 1000, 50_000)
    assert MAX_EVENT_BYTES == 4096 and LISTING_BYTES == 2 * 1024 * 1024
    for figure in ("20 messages a second", "bursts of 1,000", "4,096 bytes", "50,000 events", "2 MiB"):
        assert figure in text, figure
