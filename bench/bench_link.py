"""Table events to the hub through a real mosquitto on loopback, in one process.

Prints two figures per path, each from one run (compare them with each other, not across machines):
* **burst**: N events published as fast as the caller can, events/s until the last one arrived;
* **round trip**: one event at a time, the next sent when the previous one arrived: the
  latency from the publishing call to the receiving callback (p50/p95/p99), and events/s.

Paths: TableLink → broker → HubLink with the outbox on disk (fsync'd ``put`` per event, ack
marking), the same through bare MqttClients (QoS 1, no outbox) to show what the outbox costs,
and the outbox alone.

Run: ``python -m bench link`` (or ``python -m bench`` for every bench); ``BENCH_LINK_EVENTS``
sets N (default 1000).
"""

from __future__ import annotations

import os
import queue
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from drivers.hub_link import HubLink
from drivers.mqtt_client import MqttClient
from drivers.outbox import Outbox
from drivers.table_link import TableLink

WAIT = 60.0


def _broker():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.broker import Mosquitto

    return Mosquitto().start()


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def _line(name: str, n: int, elapsed: float, latencies_ms: list[float] | None = None) -> None:
    text = f"  {name:<36} {n:>6} events {n / elapsed:>8.0f}/s"
    if latencies_ms:
        text += (
            f"   latency ms p50 {_pct(latencies_ms, 50):5.2f}  p95 {_pct(latencies_ms, 95):5.2f}"
            f"  p99 {_pct(latencies_ms, 99):5.2f}"
        )
    print(text, flush=True)


def _run(name: str, n: int, send: Callable[[int], None], arrived: queue.Queue[int]) -> None:
    """Burst of n, then n one-at-a-time round trips, through ``send`` → ``arrived``."""
    start = time.perf_counter()
    for i in range(1, n + 1):
        send(i)
    for _ in range(n):
        arrived.get(timeout=WAIT)
    _line(f"{name}, burst", n, time.perf_counter() - start)
    latencies: list[float] = []
    start = time.perf_counter()
    for i in range(n + 1, 2 * n + 1):
        t0 = time.perf_counter()
        send(i)
        got = arrived.get(timeout=WAIT)
        latencies.append((time.perf_counter() - t0) * 1000)
        assert got == i, (got, i)
    _line(f"{name}, round trip", n, time.perf_counter() - start, latencies)


def bench_table_to_hub(broker, n: int, tmp: str) -> None:
    arrived: queue.Queue[int] = queue.Queue()
    hub = HubLink(
        "bench",
        broker.host,
        broker.port,
        on_status=lambda *a: None,
        on_state=lambda *a: None,
        on_event=lambda table, evt: arrived.put(evt["seq"]),
    )
    box = Outbox(os.path.join(tmp, "outbox.db"))
    link = TableLink(
        "bench",
        "1",
        broker.host,
        broker.port,
        outbox=box,
        state_provider=lambda: {"table": "1"},
        on_assign=lambda a: None,
        on_cmd=lambda c: None,
    )
    hub.start()
    link.start()
    assert hub.client.wait_subscribed(WAIT) and link.client.wait_subscribed(WAIT)

    def send(seq: int) -> None:
        link.publish_event({"seq": seq, "match_id": "bench", "type": "press", "side": "A", "wall": 0})

    _run("TableLink -> HubLink", n, send, arrived)
    assert link.wait_drained(WAIT)
    link.stop(5.0)
    hub.stop(5.0)
    box.close()


def bench_bare_clients(broker, n: int) -> None:
    arrived: queue.Queue[int] = queue.Queue()
    sub = MqttClient(broker.host, broker.port, "bench-sub", on_message=lambda t, p: arrived.put(int(p)))
    sub.subscribe("bench/raw", qos=1)
    pub = MqttClient(broker.host, broker.port, "bench-pub", on_message=lambda *a: None)
    sub.start()
    pub.start()
    assert sub.wait_subscribed(WAIT) and pub.wait_connected(WAIT)
    _run("MqttClient -> MqttClient", n, lambda i: pub.publish("bench/raw", str(i).encode(), qos=1), arrived)
    pub.stop(5.0)
    sub.stop(5.0)


def bench_outbox(n: int, tmp: str) -> None:
    box = Outbox(os.path.join(tmp, "alone.db"))
    costs: list[float] = []
    start = time.perf_counter()
    for seq in range(1, n + 1):
        t0 = time.perf_counter()
        rowid = box.put({"seq": seq, "match_id": "bench", "type": "press", "wall": 0})
        box.mark_sent(rowid)
        costs.append((time.perf_counter() - t0) * 1000)
    _line("Outbox put + mark_sent", n, time.perf_counter() - start, costs)
    box.close()


def main() -> int:
    n = int(os.environ.get("BENCH_LINK_EVENTS", "1000"))
    print(f"bench_link: loopback mosquitto, {os.cpu_count()} CPUs, QoS 1", flush=True)
    broker = _broker()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-link-") as tmp:
            bench_table_to_hub(broker, n, tmp)
            bench_bare_clients(broker, n)
            bench_outbox(n, tmp)
    finally:
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
