"""Shared helpers for the hub's tests: a hub on its own thread, simulated tables, schedules."""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from demo.simtable import SimTable
from hub.app import RunConfig
from hub.fleet.setup import FleetOptions
from hub.live.clock import FakeClock
from hub.live.config import HubConfig
from hub.service import HubThread
from tests.support.patience import WAIT

#: 2030-03-17 13:20 UTC: a fixed start so tests read the same every time
T0 = 1_900_000_000_000
MIN = 60_000
PASSWORD = "td-password-for-tests"
_events = itertools.count(1)


def event_id(name: str) -> str:
    """A distinct MQTT event id per test (they share the session broker)."""
    return f"t{next(_events)}-{name}"[:60]


def iso(wall: int) -> str:
    return datetime.fromtimestamp(wall / 1000, tz=UTC).isoformat()


def schedule_csv(rows: list[dict[str, Any]]) -> str:
    """A schedule CSV from rows with round, table, player_a, player_b, length, start (+ optional)."""
    columns = ["round", "table", "player_a", "player_b", "length", "start"]
    for extra in ("clock", "profile", "match_id", "final", "player_a_id", "player_b_id"):
        if any(extra in r for r in rows):
            columns.append(extra)
    lines = [",".join(columns)]
    for r in rows:
        cells = {**r}
        if isinstance(cells["start"], int):
            cells["start"] = iso(cells["start"])
        lines.append(",".join(str(cells.get(c, "")) for c in columns))
    return "\n".join(lines) + "\n"


def one_match(table: str = "1", length: int = 7, start: int = T0, **extra: Any) -> str:
    return schedule_csv(
        [
            {
                "round": 1,
                "table": table,
                "player_a": "Ann",
                "player_b": "Bob",
                "length": length,
                "start": start,
                **extra,
            }
        ]
    )


def start_hub(
    tmp_path: Path,
    host: str,
    port: int,
    event: str,
    clock: FakeClock | None,
    *,
    schedule: str | None = None,
    db: Path | None = None,
    embedded: bool = False,
    public: bool = False,
    draw: Path | None = None,
    public_url: str | None = None,
    **config: Any,
) -> HubThread:
    """A hub on its own loop thread; ticks only when the test calls ``tick`` (unless configured)."""
    schedule_path = None
    if schedule is not None:
        schedule_path = tmp_path / f"schedule-{event}.csv"
        schedule_path.write_text(schedule, encoding="utf-8")
    config.setdefault("tick_interval", None)
    rc = RunConfig(
        hub=HubConfig(event=event, broker_host=host, broker_port=port, **config),
        db=str(db or tmp_path / "hub.db"),
        http_host="127.0.0.1",
        http_port=0,
        schedule=str(schedule_path) if schedule_path else None,
        draw=str(draw) if draw is not None else None,
        public=public,
        embedded_broker=embedded,
        fleet=FleetOptions(public_url=public_url),
    )
    hub = HubThread(rc, clock=clock, password=PASSWORD).start()
    # Publishing before the hub's subscriptions are in place would lose messages: wait for them.
    if not hub.hub.link.client.wait_subscribed(10):
        hub.stop()
        raise TimeoutError("the hub did not subscribe to its topics")
    return hub


def tick(hub_thread: HubThread) -> None:
    hub_thread.call(hub_thread.hub.tick)


@contextlib.contextmanager
def sim_table(event: str, table: str, host: str, port: int, clock: FakeClock | None) -> Iterator[SimTable]:
    sim = SimTable(event, table, host, port, clock=clock).start()
    try:
        yield sim
    finally:
        sim.stop()


class Spy:
    """A raw MQTT subscriber recording every message under an event (to count what was sent)."""

    def __init__(self, host: str, port: int, event: str, pattern: str = "#") -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._cond = threading.Condition()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"spy-{event}")
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.connect(host, port)
        self.client.subscribe(f"bg/v1/{event}/{pattern}", 1)
        self.client.loop_start()
        if not self._subscribed.wait(WAIT):
            raise TimeoutError("spy did not subscribe")

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._cond:
            self.messages.append((msg.topic, msg.payload, msg.retain))
            self._cond.notify_all()

    def payloads(self, suffix: str) -> list[dict[str, Any]]:
        with self._cond:
            return [json.loads(p) for t, p, _ in self.messages if t.endswith(suffix) and p]

    def wait_for(self, predicate: Any, timeout: float = WAIT) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self), timeout):
                raise TimeoutError("spy: condition not met")

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def publish(host: str, port: int, items: list[tuple[str, bytes | str, bool]]) -> None:
    """Publish raw payloads (QoS 1) and return once the broker acknowledged all of them."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{next(_events)}")
    client.connect(host, port)
    client.loop_start()
    try:
        infos = [client.publish(topic, payload, qos=1, retain=retain) for topic, payload, retain in items]
        for info in infos:
            info.wait_for_publish(10)
    finally:
        client.loop_stop()
        client.disconnect()


def hub_state(hub: Any, table: str) -> dict[str, Any]:
    """The state the hub holds for a table ({} before any)."""
    view = hub.views.get(table)
    return view.state if view is not None and view.state is not None else {}


def present(hub: Any, table: str, side: str) -> bool:
    return bool(hub_state(hub, table).get("present", {}).get(side))
