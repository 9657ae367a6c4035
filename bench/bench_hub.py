"""Hub throughput, push latency and memory with a room of 100, 500 and 1,000 simulated tables.

For each room size a real Mosquitto and a real ``bghub`` process (``--public``) are started. A
few raw paho connections play the tables (not full kiosks): each table's status, then pairs of
``evt`` + ``state`` messages shaped like a table's own (a snapshot of a match in play, about 2 KB).
A WebSocket client on the dashboard's push channel measures, for every tile it receives, the
time from the table's publish (the snapshot's ``wall``) to the push.

Two phases per size:

* **paced**: every table publishes ``--per-table`` messages/s (default 2: an input a second at
  every table, each an ``evt`` and a ``state`` — well above a real room's peak, where a turn takes
  several seconds); the hub keeps up. Latency p50/p99 are measured here.
* **flood**: the publishers offer far more (``--flood-rate``) for the same time; what the hub
  processes per second until it has caught up is its sustained capacity. Beside the hub, a bare
  paho subscriber (its own process, QoS 1 on the same topics, counting and nothing else) takes
  the same flood in the same run: the hub's rate is reported as a ratio to it, which says what the
  hub costs over merely receiving, whatever the machine and its neighbours do.

During the flood and until the hub has caught up, ``/api/health`` is asked for every quarter
second and each answer timed (a line after each room's row): whether the web server is still
served while the hub works through a backlog.

Hub RSS (VmRSS and the peak VmHWM from /proc) is read at the end. Targets: >= 5,000 messages/s,
RSS <= 150 MB at 1,000 tables (5,000: ``--tables 1000,5000``). Run:
``python -m bench.bench_hub [--tables 100,500,1000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt

from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.support.broker import Mosquitto, free_port, wait_for_port

PUBLISHERS = 4


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def template_state(table: str, match_id: str) -> dict[str, Any]:
    """A snapshot of a match in play, from the real reducer (so it has every field)."""
    st = new_table(table)
    t0 = now_ms()
    inputs = [
        {
            "input": "assign",
            "match_id": match_id,
            "length": 11,
            "players": {
                "A": {"name": "Player A" + table, "id": ""},
                "B": {"name": "Player B" + table, "id": ""},
            },
            "profile": "wbgf-2023",
            "clock": True,
            "start_wall": t0,
            "round": "1",
        },
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
    ]
    for _ in range(4):
        inputs += [{"input": "opening_roll", "A": 5, "B": 2}, {"input": "win", "side": "A", "kind": "single"}]
    inputs += [{"input": "opening_roll", "A": 1, "B": 6}, {"input": "press", "side": "A"}]
    for i, inp in enumerate(inputs):
        st, _ = apply(st, {**inp, "at": i * 1000, "wall": t0 + i * 1000})
    return snapshot(st)


class Room:
    """Raw paho publishers playing ``n`` tables of event ``event``.

    Payloads are encoded once per table and only their ``seq``/``wall`` are patched per message,
    so the publishers cost little CPU next to the hub being measured.
    """

    def __init__(self, host: str, port: int, event: str, n: int, tables: list[str] | None = None) -> None:
        self.event = event
        self.tables = tables if tables is not None else [str(i) for i in range(1, n + 1)]
        self.state_json: dict[str, str] = {}
        self.evt_json: dict[str, str] = {}
        self.seq: dict[str, int] = {}
        for t in self.tables:
            tmpl = template_state(t, f"r1-t{t}")
            self.seq[t] = tmpl["seq"]
            tmpl["seq"], tmpl["wall"] = "@SEQ@", "@WALL@"
            self.state_json[t] = json.dumps(tmpl).replace('"@SEQ@"', "@SEQ@").replace('"@WALL@"', "@WALL@")
            evt = {
                "seq": "@SEQ@",
                "match_id": f"r1-t{t}",
                "type": "press",
                "side": "A",
                "at": 1,
                "wall": "@WALL@",
            }
            self.evt_json[t] = json.dumps(evt).replace('"@SEQ@"', "@SEQ@").replace('"@WALL@"', "@WALL@")
        self.clients: list[mqtt.Client] = []
        for i in range(PUBLISHERS):
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-{event}-{i}")
            c.max_inflight_messages_set(1000)
            c.connect(host, port)
            c.loop_start()
            self.clients.append(c)

    def topic(self, table: str, kind: str) -> str:
        return f"bg/v1/{self.event}/table/{table}/{kind}"

    def announce(self) -> None:
        for i, t in enumerate(self.tables):
            c = self.clients[i % PUBLISHERS]
            status = {"online": True, "boot_id": "bench", "version": "bench", "wall": now_ms()}
            c.publish(self.topic(t, "status"), json.dumps(status), qos=1, retain=True)
            self.publish_pair(t, c, evt=False)

    def publish_pair(self, table: str, client: mqtt.Client, evt: bool = True) -> None:
        seq = self.seq[table] + 1
        self.seq[table] = seq
        wall = str(now_ms())
        if evt:
            payload = self.evt_json[table].replace("@SEQ@", str(seq)).replace("@WALL@", wall)
            client.publish(self.topic(table, "evt"), payload, qos=1)
        payload = self.state_json[table].replace("@SEQ@", str(seq)).replace("@WALL@", wall)
        client.publish(self.topic(table, "state"), payload, qos=1, retain=True)

    def run(self, seconds: float, rate: float, until: threading.Event | None = None) -> int:
        """Publish for ``seconds`` (or until ``until`` is set) at ``rate`` messages/s, every table in
        turn; returns how many were published (half of them events)."""
        stop = time.monotonic() + seconds
        counts = [0] * PUBLISHERS

        def worker(k: int) -> None:
            client = self.clients[k]
            mine = self.tables[k::PUBLISHERS]
            per_s = rate / PUBLISHERS / 2  # pairs per second
            start = time.monotonic()
            i = 0
            while time.monotonic() < stop and not (until is not None and until.is_set()):
                wait = start + i / per_s - time.monotonic()
                if wait > 0:
                    time.sleep(min(wait, 0.005))
                    continue
                self.publish_pair(mine[i % len(mine)], client)
                i += 1
            counts[k] = i * 2

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(PUBLISHERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        return sum(counts)

    def close(self) -> None:
        for c in self.clients:
            c.loop_stop()
            c.disconnect()


def bare_subscriber(event: str, host: str, port: int, count: Any, last: Any, ready: Any) -> None:
    """A bare paho client on the tables' topics (QoS 1, a persistent loop): counts the messages and
    stamps the last one's arrival (``time.monotonic``, the same clock in every process)."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-{event}-bare")

    def on_message(_c: mqtt.Client, _u: Any, _m: mqtt.MQTTMessage) -> None:
        count.value += 1
        last.value = time.monotonic()

    def on_connect(c: mqtt.Client, *_: Any) -> None:
        c.subscribe(f"bg/v1/{event}/table/+/+", qos=1)

    client.on_message = on_message
    client.on_connect = on_connect
    client.on_subscribe = lambda *_: ready.set()
    client.connect(host, port)
    client.loop_forever()


def room_process(conn: Connection, host: str, port: int, event: str, n: int) -> None:
    """The publishers, in a process of their own so they do not share a GIL with the measuring."""
    room = Room(host, port, event, n)
    try:
        while True:
            cmd = conn.recv()
            if cmd[0] == "announce":
                room.announce()
                conn.send(2 * n)
            elif cmd[0] == "run":
                conn.send(room.run(cmd[1], cmd[2]))
            else:
                break
    finally:
        room.close()


class PushWatcher:
    """A dashboard's WebSocket, measuring publish -> push latency per tile (on its own thread)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.samples: list[int] = []
        self.recording = False
        self.ready = threading.Event()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()
        if not self.ready.wait(20):
            raise RuntimeError("the dashboard push channel did not open")

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as http, http.ws_connect(self.url, max_msg_size=0) as ws:
            self.ready.set()
            while not self._stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.5)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                received = now_ms()
                data = json.loads(msg.data)
                if data.get("type") == "tiles" and self.recording:
                    for t in data["tiles"]:
                        if isinstance(t.get("state_wall"), int):
                            self.samples.append(received - t["state_wall"])

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


class WebProbe:
    """Asks the hub's web server for ``/api/health`` every quarter second (on its own thread) and
    records how long each answer took: whether the dashboards are still served under a flood."""

    def __init__(self, http_url: str) -> None:
        self.url = http_url + "/api/health"
        self.answers_ms: list[float] = []
        self.unanswered = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=120) as r:
                    r.read()
                self.answers_ms.append((time.monotonic() - t0) * 1000)
            except OSError:
                self.unanswered += 1
            self._stop.wait(0.25)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(125)


def hub_stats(http_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(http_url + "/api/health", timeout=120) as r:  # a busy hub answers late
        return json.loads(r.read())["stats"]


def rss_mb(pid: int) -> tuple[float, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def wait_processed(http_url: str, target: int, timeout: float) -> tuple[int, float]:
    """Wait until the hub has processed ``target`` messages (or timeout); returns (count, when)."""
    deadline = time.monotonic() + timeout
    while True:
        count = hub_stats(http_url)["messages"]
        if count >= target or time.monotonic() > deadline:
            return count, time.monotonic()
        time.sleep(0.05)


def percentile(values: list[int], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def bench_room(n: int, seconds: float, rate: float, flood_rate: float) -> dict[str, Any]:
    broker = Mosquitto().start()
    tmp = Path(tempfile.mkdtemp(prefix="bench-hub-"))
    event = f"bench{n}"
    start = datetime.now(UTC).isoformat()
    rows = ["round,table,player_a,player_b,length,start"]
    rows += [f"1,{t},Player A{t},Player B{t},11,{start}" for t in range(1, n + 1)]
    (tmp / "schedule.csv").write_text("\n".join(rows) + "\n")
    (tmp / "password").write_text("bench-password-123\n")
    http_port = free_port()
    hub = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "--event",
            event,
            "--broker",
            broker.url,
            "--schedule",
            str(tmp / "schedule.csv"),
            "--db",
            str(tmp / "hub.db"),
            "--http",
            f"127.0.0.1:{http_port}",
            "--password-file",
            str(tmp / "password"),
            "--public",
            "--log-level",
            "WARNING",
            # the flood measures the hub's throughput, not its per-table limit (20/s, docs/api.md)
            "--table-rate",
            "1000000",
            "--table-burst",
            "1000000",
        ],
        stdout=subprocess.DEVNULL,
    )
    http_url = f"http://127.0.0.1:{http_port}"
    room = watcher = bare = None
    bare_count, bare_last = multiprocessing.Value("q", 0), multiprocessing.Value("d", 0.0)
    bare_ready = multiprocessing.Event()
    try:
        bare = multiprocessing.Process(
            target=bare_subscriber,
            args=(event, broker.host, broker.port, bare_count, bare_last, bare_ready),
            daemon=True,
        )
        bare.start()
        if not bare_ready.wait(30):
            raise RuntimeError("the bare subscriber did not subscribe")
        wait_for_port("127.0.0.1", http_port, 30 + n / 50)  # the schedule is imported first
        watcher = PushWatcher(f"ws://127.0.0.1:{http_port}/api/ws")
        conn, child = multiprocessing.Pipe()
        room = multiprocessing.Process(target=room_process, args=(child, broker.host, broker.port, event, n))
        room.start()
        conn.send(("announce",))
        wait_processed(http_url, conn.recv(), 60)
        idle_rss = rss_mb(hub.pid)[0]  # every table announced, nothing else yet

        # paced phase
        base = hub_stats(http_url)["messages"]
        watcher.recording = True
        t0 = time.monotonic()
        conn.send(("run", seconds, rate))
        sent = conn.recv()
        count, t1 = wait_processed(http_url, base + sent, 60)
        watcher.recording = False
        paced = (count - base) / (t1 - t0)
        samples = list(watcher.samples)

        # flood phase: the hub and the bare subscriber take the same messages at the same time
        stats = hub_stats(http_url)
        base, superseded = stats["messages"], stats.get("superseded", 0)
        bare_base = bare_count.value
        probe = WebProbe(http_url)
        t0 = time.monotonic()
        conn.send(("run", seconds, flood_rate))
        sent = conn.recv()
        count, t1 = wait_processed(http_url, base + sent, 120)
        probe.stop()
        flood = (count - base) / (t1 - t0)
        superseded = hub_stats(http_url).get("superseded", 0) - superseded
        deadline = time.monotonic() + 60
        while bare_count.value < bare_base + sent and time.monotonic() < deadline:
            time.sleep(0.05)
        bare_flood = (bare_count.value - bare_base) / (bare_last.value - t0)
        offered = sent / seconds
        rss, hwm = rss_mb(hub.pid)
        return {
            "tables": n,
            "paced_rate": rate,
            "paced_hub_msgs_s": paced,
            "p50_ms": percentile(samples, 0.50),
            "p99_ms": percentile(samples, 0.99),
            "samples": len(samples),
            "flood_offered_msgs_s": offered,
            "flood_hub_msgs_s": flood,
            "flood_bare_msgs_s": bare_flood,
            "flood_ratio": flood / bare_flood,
            # states the hub dropped for the same table's newer one while they waited (counted in
            # its rate: taken off the wire and dealt with, without the work of a state)
            "flood_superseded": superseded / max(1, count - base),
            # the web server's answers while the flood and its backlog lasted
            "web_answers": len(probe.answers_ms),
            "web_p50_ms": percentile([round(a) for a in probe.answers_ms], 0.50),
            "web_max_ms": max(probe.answers_ms, default=float("nan")),
            "web_unanswered": probe.unanswered,
            "idle_rss_mb": idle_rss,
            "rss_mb": rss,
            "peak_rss_mb": hwm,
            "cpus": os.cpu_count(),
        }
    finally:
        if watcher is not None:
            watcher.stop()
        if room is not None:
            conn.send(("stop",))
            room.join(10)
        if bare is not None:
            bare.terminate()
            bare.join(10)
        hub.terminate()
        try:
            hub.wait(20)
        except subprocess.TimeoutExpired:
            hub.kill()
        broker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="100,500,1000", help="room sizes, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument(
        "--per-table", type=float, default=2.0, help="paced phase: messages/s offered per table (default 2)"
    )
    parser.add_argument("--flood-rate", type=float, default=20000.0, help="flood phase: messages/s offered")
    if argv is None:  # `python -m bench` calls main() with its own arguments in sys.argv
        argv = sys.argv[1:] if __name__ == "__main__" else []
    args = parser.parse_args(argv)
    cpus = os.cpu_count()
    print(
        f"hub benchmark: {args.seconds:.0f} s per phase; paced at {args.per_table:g} msg/s per table, "
        f"flood offered {args.flood_rate:.0f} msg/s; {cpus} CPUs"
    )
    header = (
        f"{'tables':>6} {'paced msg/s':>12} {'p50 ms':>7} {'p99 ms':>7} {'flood sent/s':>13} "
        f"{'hub msg/s':>10} {'bare msg/s':>11} {'ratio':>6} {'superseded':>10} "
        f"{'idle MB':>8} {'RSS MB':>7} {'peak MB':>8}"
    )
    print(header)
    for n in (int(x) for x in args.tables.split(",")):
        r = bench_room(n, args.seconds, args.per_table * n, args.flood_rate)
        print(
            f"{r['tables']:>6} {r['paced_hub_msgs_s']:>12.0f} {r['p50_ms']:>7.0f} {r['p99_ms']:>7.0f} "
            f"{r['flood_offered_msgs_s']:>13.0f} {r['flood_hub_msgs_s']:>10.0f} "
            f"{r['flood_bare_msgs_s']:>11.0f} {r['flood_ratio']:>6.0%} {r['flood_superseded']:>10.0%} "
            f"{r['idle_rss_mb']:>8.1f} {r['rss_mb']:>7.1f} "
            f"{r['peak_rss_mb']:>8.1f}",
            flush=True,
        )
        print(
            f"{'':>6} web server during the flood: {r['web_answers']} answers, "
            f"p50 {r['web_p50_ms']:.0f} ms, max {r['web_max_ms']:.0f} ms, {r['web_unanswered']} unanswered",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
