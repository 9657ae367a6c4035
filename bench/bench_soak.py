"""Soak: a room of 500 tables playing at a real pace against Mosquitto and ``bghub`` for 10 minutes.

Everything is real except the players: a Mosquitto, a ``bghub`` process (``--public``) with the
round's schedule, and the tables as :class:`demo.simtable.SimTable` (the rulebook reducer, the real
table link and outbox) in a few worker processes, played by :class:`demo.simtable.SimRoom` at
real time: a roll and a press per turn of 4 to 16 s at each table (about one event every 5 s plus
a state snapshot each time), late arrivals, breaks and overruns (so the hub sends lateness
penalties), cube actions, results, TD calls, now and then a flag. Beside the room
a real kiosk, ``bgtable run --headless``, plays a scripted match on the same broker.

Reported, over the measurement window (after the tables are connected and assigned):

* throughput: table messages the hub processed per second, events it stored per second;
* latency percentiles from a table's publish (the event's / snapshot's ``wall``) to the hub:
  *stored* (the event's ``received_wall`` in the hub's database, taken in the batch that commits
  it) and *pushed* (a dashboard's WebSocket receiving the table's tile);
* hub CPU (% of one core) and RSS (last and peak), the same for Mosquitto and the workers;
* the kiosk's RSS (last and peak) and CPU;
* whether every event every table made reached the hub's store (made vs stored, after drain).

Start-up at championship size: the process raises its open-file limit to the hard limit (every
table is a socket in a worker, and Mosquitto, started from here, holds one per table too), the
workers connect their tables at a paced rate (``--connect-rate`` tables a second for the room: a burst
of thousands of CONNECTs at once overflows the broker's listen backlog and the tables back off
for seconds), and a table that does not connect at once keeps retrying (the link's own back-off)
until a deadline that grows with the room.

A room larger than ``--full`` tables (500 by default) is a few hundred full tables and a *crowd*:
the other tables are raw MQTT publishers (:class:`bench.bench_hub.Room`: a few connections in one
process, no thread per table), each publishing its status, then an event and a state snapshot of
a match in play (from the real reducer) every 5 s (``CROWD_PER_TABLE_MSGS_S``), the full
tables' pace. A crowd table does not play (no lateness of its own, no result), but its messages
cost the hub and the broker what a table's cost; its events are counted in *made* and *stored*.
5,000 tables on the 2-core machine: 500 full tables in two workers and a crowd of 4,500.

Run: ``python -m bench.bench_soak [--tables 500] [--seconds 600] [--workers 2] [--full 500]``; the duration
also comes from ``SOAK_SECONDS``. ``--json FILE`` writes the figures. Prints figures; asserts
nothing. On a 2-core machine the workers playing 500 tables take a good part of one core: the
hub's figures are measured on a machine that is busy, as a hub next to a broker would be.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.support.broker import Mosquitto, free_port, wait_for_port

KIOSK = "k1"
#: players a little quicker than the simulator's default: a roll and a press per turn of about
#: 10 s, i.e. an event (and a state snapshot) every 5 s or so per table, at the busy end of a room
PACE_THINK_MS = (3_000, 12_000)
PACE_ROLL_MS = (1_000, 4_000)
#: tables one worker process plays by default: each table's link is a thread of its own (as on a
#: real table), and a Python process with a couple of thousand threads spends its time handing
#: the interpreter lock around (measured here: 2 workers of 2,500 tables each stalled at 1,963
#: threads, starting no more, with 7 minutes of system time in 5); 500 per process start briskly
TABLES_PER_WORKER = 500
#: tables played by full simulated tables (reducer, link, outbox: a thread each); the rest of a
#: larger room is the crowd of raw publishers
FULL_TABLES = 500
#: messages a second each crowd table publishes: an event and a state every 5 s, the full tables' pace
CROWD_PER_TABLE_MSGS_S = 0.4


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def raise_open_files() -> int:
    """The soft open-file limit raised to the hard one (inherited by the broker, hub and workers
    started from here): a room of thousands of tables is thousands of sockets in one process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        soft = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def start_deadline_s(tables: int, rate: float) -> float:
    """How long a share of ``tables`` tables connecting at ``rate`` per second may take to be online
    and assigned: the pacing itself, and five minutes for the back-off of those that must retry
    (on a machine this busy a CONNECT can time out, and the link waits up to 10 s between tries)."""
    return tables / rate + 300.0


def cpu_s(pid: int) -> float:
    """utime + stime of ``pid`` in seconds (fields 14 and 15 of /proc/pid/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def percentiles(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    values = sorted(values)

    def q(p: float) -> int:
        return values[min(len(values) - 1, int(p * len(values)))]

    return {"n": len(values), "p50": q(0.50), "p90": q(0.90), "p99": q(0.99), "max": values[-1]}


# -- worker: a share of the room's tables --------------------------------------------------------


def worker(args: argparse.Namespace) -> int:
    """Play ``args.tables_ids`` until told to stop on stdin (or ``--seconds``), drain, report."""
    from demo.simtable import SimRoom, SimTable, Temperament
    from hub.live.clock import SystemClock

    raise_open_files()
    host, port = args.broker.rsplit(":", 1)
    clock = SystemClock()
    ids = args.ids.split(",")
    sims = [SimTable(args.event, t, host, int(port), clock=clock) for t in ids]
    deadline = time.monotonic() + start_deadline_s(len(sims), args.connect_rate)
    begun = time.monotonic()
    for i, sim in enumerate(sims):  # paced: the i-th table starts at i / rate seconds
        time.sleep(max(0.0, begun + i / args.connect_rate - time.monotonic()))
        sim.start(wait=None)  # connects in the background and keeps retrying (its back-off)
    for sim in sims:
        if not sim.link.wait_online(max(0.1, deadline - time.monotonic())):
            offline = sum(not s.link.online for s in sims)
            print(json.dumps({"error": f"table {sim.table} did not connect ({offline} offline)"}), flush=True)
            return 1
    # wait for the hub's assignment before playing (players at a table without a match idle)
    for sim in sims:
        sim.wait_for(lambda s: s.match_id is not None, max(0.1, deadline - time.monotonic()))
    print("READY", flush=True)
    pace = Temperament(think_ms=PACE_THINK_MS, roll_ms=PACE_ROLL_MS)
    room = SimRoom(sims, clock=clock, seed=args.seed, temperament=pace).start()
    sys.stdin.readline()  # the parent says stop (or closes the pipe)
    room.stop()
    undrained = sum(0 if sim.link.wait_drained(60) else sim.outbox.pending_count() for sim in sims)
    made = sum(len(sim.events) for sim in sims)
    for sim in sims:
        sim.stop()
    print(json.dumps({"tables": len(sims), "events_made": made, "undrained": undrained}), flush=True)
    return 0


def crowd(args: argparse.Namespace) -> int:
    """Publish for ``args.ids`` tables as raw MQTT clients (a few connections, no thread per table)
    until told to stop on stdin; report the events published."""
    from bench.bench_hub import Room

    host, port = args.broker.rsplit(":", 1)
    ids = args.ids.split(",")
    room = Room(host, int(port), args.event, len(ids), tables=ids)
    room.announce()
    print("READY", flush=True)
    stop = threading.Event()

    def wait_for_stop() -> None:
        sys.stdin.readline()  # the parent says stop (or closes the pipe)
        stop.set()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    published = room.run(float("inf"), CROWD_PER_TABLE_MSGS_S * len(ids), until=stop)
    time.sleep(2)  # QoS 1: let the connections hand the last messages to the broker
    room.close()
    print(json.dumps({"tables": len(ids), "events_made": published // 2, "undrained": 0}), flush=True)
    return 0


# -- the parent: broker, hub, workers, kiosk, measurements ---------------------------------------


class PushWatcher:
    """A dashboard's WebSocket: for every table snapshot pushed, the push's arrival minus the
    snapshot's ``wall`` (its first push only: a tile pushed again because an alert or the time
    changed carries the same snapshot)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.samples: list[int] = []
        self._last: dict[str, int] = {}
        self.recording = False
        self.ready = threading.Event()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the dashboard push channel did not open")

    async def _run(self) -> None:
        import aiohttp

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
                if data.get("type") != "tiles":
                    continue
                for tile in data["tiles"]:
                    wall = tile.get("state_wall")
                    if not isinstance(wall, int) or wall <= self._last.get(tile["table"], 0):
                        continue  # pushed again for another reason (an alert, the time): not a new state
                    self._last[tile["table"]] = wall
                    if self.recording:
                        self.samples.append(received - wall)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


def http_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def kiosk_script(path: Path, seconds: float) -> None:
    """A match at the kiosk: check-ins once the hub's assignment is in, then a roll and a press
    every few seconds (the clock runs) for the whole run."""
    steps: list[dict[str, Any]] = [
        {"after_ms": 4000, "input": "checkin", "side": "A"},
        {"after_ms": 500, "input": "checkin", "side": "B"},
        {"after_ms": 1000, "input": "opening_roll", "A": 6, "B": 3},
    ]
    side, other = "A", "B"
    for i in range(int(seconds / 6) + 10):
        steps.append(
            {"after_ms": 2500, "input": "roll", "dice": [1 + i % 6, 1 + (i * 5) % 6], "source": "tower"}
        )
        steps.append({"after_ms": 3500, "input": "press", "side": side})
        side, other = other, side
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    open_files = raise_open_files()
    if open_files < 2 * args.tables + 1024:
        print(f"warning: the open-file limit ({open_files}) may be too low for {args.tables} tables")
    broker = Mosquitto().start()
    event = "soak"
    n = args.tables
    ids = [str(i) for i in range(1, n + 1)]
    start = datetime.fromtimestamp((now_ms() - 2 * 60_000) / 1000, tz=UTC).isoformat()
    rows = ["round,table,player_a,player_b,length,start,clock"]
    rows += [f"1,{t},Player A{t},Player B{t},7,{start},yes" for t in [*ids, KIOSK]]
    (tmp / "schedule.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp / "password").write_text("soak-password-123\n", encoding="utf-8")
    http_port = free_port()
    db = tmp / "hub.db"
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
            str(db),
            "--http",
            f"127.0.0.1:{http_port}",
            "--password-file",
            str(tmp / "password"),
            "--public",
            "--log-level",
            "WARNING",
        ],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "hub.log", "wb"),  # noqa: SIM115 - lives as long as the process
    )
    http = f"http://127.0.0.1:{http_port}"
    workers: list[subprocess.Popen] = []
    kiosk = None
    watcher = None
    full, crowd_ids = ids[: args.full], ids[args.full :]
    try:
        wait_for_port("127.0.0.1", http_port, 60 + n / 50)  # the schedule is imported first
        watcher = PushWatcher(f"ws://127.0.0.1:{http_port}/api/ws")
        if crowd_ids:
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.bench_soak",
                        "--crowd",
                        "--event",
                        event,
                        "--broker",
                        broker.url,
                        "--ids",
                        ",".join(crowd_ids),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=open(tmp / "crowd.log", "wb"),  # noqa: SIM115
                    text=True,
                )
            )
        for k in range(args.workers):
            share = full[k :: args.workers]
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.bench_soak",
                        "--worker",
                        "--event",
                        event,
                        "--broker",
                        broker.url,
                        "--ids",
                        ",".join(share),
                        "--seed",
                        str(k + 1),
                        "--connect-rate",
                        str(args.connect_rate / args.workers),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=open(tmp / f"worker-{k}.log", "wb"),  # noqa: SIM115
                    text=True,
                )
            )
        for w in workers:
            assert w.stdout is not None
            line = w.stdout.readline().strip()
            if line != "READY":
                raise RuntimeError(f"a worker did not start: {line!r} (see {tmp})")
        data = tmp / "kiosk"
        config = tmp / "table.toml"
        config.write_text(
            f'table_id = "{KIOSK}"\nevent = "{event}"\ndata_dir = "{data}"\nlog_level = "warning"\n'
            f'[broker]\nhost = "{broker.host}"\nport = {broker.port}\n[pins]\nenabled = false\n',
            encoding="utf-8",
        )
        kiosk_script(tmp / "kiosk-script.jsonl", args.seconds)
        kiosk = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kiosk.cli",
                "run",
                "--headless",
                "--config",
                str(config),
                "--script",
                str(tmp / "kiosk-script.jsonl"),
            ],
            env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
            stdout=subprocess.DEVNULL,
            stderr=open(tmp / "kiosk.log", "wb"),  # noqa: SIM115
        )

        # measurement window
        warmup = min(10.0, args.seconds / 10)
        time.sleep(warmup)  # let every table's first burst (check-ins, announcements) pass
        procs = {"hub": hub.pid, "mosquitto": broker.proc.pid, "kiosk": kiosk.pid}
        procs.update(
            {("crowd" if crowd_ids and k == 0 else f"worker{k}"): w.pid for k, w in enumerate(workers)}
        )
        cpu0 = {name: cpu_s(pid) for name, pid in procs.items()}
        stats0 = http_json(http + "/api/health")["stats"]
        wall0, t0 = now_ms(), time.monotonic()
        watcher.recording = True
        peak_hub = 0.0
        end = t0 + args.seconds - warmup
        while time.monotonic() < end:
            time.sleep(min(5.0, max(0.0, end - time.monotonic())))  # a sample every 5 s
            peak_hub = max(peak_hub, rss_mb(hub.pid)[0])
            if hub.poll() is not None or kiosk.poll() is not None:
                raise RuntimeError(f"the hub or the kiosk stopped (see {tmp})")
        watcher.recording = False
        elapsed = time.monotonic() - t0
        wall1 = now_ms()
        cpu1 = {name: cpu_s(pid) for name, pid in procs.items()}
        stats1 = http_json(http + "/api/health")["stats"]
        rss = {name: rss_mb(pid) for name, pid in procs.items()}

        # stop playing, drain, compare what the tables made with what the hub stored
        made = undrained = 0
        for w in workers:
            assert w.stdin is not None and w.stdout is not None
            w.stdin.write("stop\n")
            w.stdin.flush()
        for w in workers:
            report = json.loads(w.stdout.readline())
            made += report["events_made"]
            undrained += report["undrained"]
            w.wait(120)

        def stored_count() -> int:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as con:
                return con.execute("SELECT COUNT(*) FROM events WHERE tbl != ?", (KIOSK,)).fetchone()[0]

        deadline = time.monotonic() + 60
        stored = stored_count()
        while stored < made and time.monotonic() < deadline:
            time.sleep(0.5)  # polling the hub's database for the last batches
            stored = stored_count()
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as con:
            lat = [
                r[0]
                for r in con.execute(
                    "SELECT received_wall - wall FROM events WHERE wall IS NOT NULL AND tbl != ? "
                    "AND received_wall BETWEEN ? AND ?",
                    (KIOSK, wall0, wall1),
                )
            ]
            penalties = con.execute("SELECT COUNT(*) FROM commands WHERE origin = 'auto'").fetchone()[0]
            kiosk_events = con.execute("SELECT COUNT(*) FROM events WHERE tbl = ?", (KIOSK,)).fetchone()[0]
        cpu = {name: 100 * (cpu1[name] - cpu0[name]) / elapsed for name in procs}
        messages = stats1["messages"] - stats0["messages"]
        events = stats1["events"] - stats0["events"]
        return {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
            "tables": n,
            "full_tables": len(full),
            "workers": args.workers,
            "window_s": round(elapsed, 1),
            "hub_msgs_per_s": round(messages / elapsed, 1),
            "hub_events_per_s": round(events / elapsed, 1),
            "events_per_table_per_min": round(60 * events / elapsed / n, 2),
            "stored_latency_ms": percentiles(lat),
            "pushed_latency_ms": percentiles(watcher.samples),
            "cpu_percent": {k: round(v, 1) for k, v in cpu.items()},
            "rss_mb": {k: round(v[0], 1) for k, v in rss.items()},
            "peak_rss_mb": {k: round(v[1], 1) for k, v in rss.items()},
            "hub_peak_rss_sampled_mb": round(peak_hub, 1),
            "events_made": made,
            "events_stored": stored,
            "undrained": undrained,
            "auto_commands": penalties,
            "kiosk_events_stored": kiosk_events,
            "hub_stats": stats1,
            "tmp": str(tmp),
        }
    finally:
        if watcher is not None:
            watcher.stop()
        for proc in [*workers, kiosk, hub]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        broker.stop()


def print_report(r: dict[str, Any]) -> None:
    s, p = r["stored_latency_ms"], r["pushed_latency_ms"]
    print(
        f"soak: {r['tables']} tables ({r['full_tables']} full in {r['workers']} worker processes, "
        f"{r['tables'] - r['full_tables']} raw publishers), {r['window_s']} s measured, {r['cpus']} CPUs, "
        f"load average {' '.join(f'{x:.1f}' for x in r['load_average'])}"
    )
    print(
        f"  hub: {r['hub_msgs_per_s']} msg/s processed, {r['hub_events_per_s']} events/s stored "
        f"({r['events_per_table_per_min']} events per table per minute)"
    )
    for name, q in (("publish -> stored", s), ("publish -> pushed", p)):
        if q.get("n"):
            print(
                f"  {name}: p50 {q['p50']} ms, p90 {q['p90']} ms, p99 {q['p99']} ms, "
                f"max {q['max']} ms (n={q['n']})"
            )
    cpu, rss, peak = r["cpu_percent"], r["rss_mb"], r["peak_rss_mb"]
    for name in cpu:
        print(f"  {name:<10} CPU {cpu[name]:5.1f} %   RSS {rss[name]:6.1f} MB   peak {peak[name]:6.1f} MB")
    lost = r["events_made"] - r["events_stored"]
    print(
        f"  delivery: {r['events_made']} events made, {r['events_stored']} stored "
        f"({lost} missing, {r['undrained']} left in outboxes); {r['auto_commands']} automatic commands sent"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", "600")))
    parser.add_argument(
        "--workers",
        type=int,
        help=f"processes playing the full tables (default: one per {TABLES_PER_WORKER} tables, at least 2)",
    )
    parser.add_argument(
        "--full",
        type=int,
        default=FULL_TABLES,
        help=f"tables played by full simulated tables (default {FULL_TABLES}); the rest are raw publishers",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--connect-rate",
        type=float,
        default=200.0,
        help="tables the room connects per second at start (shared among the workers)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crowd", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--event", help=argparse.SUPPRESS)
    parser.add_argument("--broker", help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    if argv is None:  # ``python -m bench`` calls main() with its own command line in sys.argv
        argv = sys.argv[1:] if __name__ == "__main__" else []
    args = parser.parse_args(argv)
    args.full = min(args.full, args.tables)
    if args.workers is None:
        args.workers = max(2, -(-args.full // TABLES_PER_WORKER))
    if args.worker:
        return worker(args)
    if args.crowd:
        return crowd(args)
    result = run(args)
    print_report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
