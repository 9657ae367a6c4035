"""Kiosk benchmarks: CPU of ``bgtable run --headless`` with a running clock, and start-up time.

* **CPU** (target: at most 5 % of one core): the kiosk runs a match whose clock runs for the
  whole measurement; CPU time is read from ``/proc/<pid>/stat`` (utime + stime of the kiosk
  process) between two instants after its first frame. ``BENCH_KIOSK_SECONDS`` shortens the
  default 60 s window for a quick run.
* **Restore** (target: at most 0.3 s): opening and verifying the journal and rebuilding the
  table's state in process (``Journal(repair=True)`` + ``TableController.restore``), for a whole
  25-point match and for a day of matches on one table (100,000 inputs: the journal keeps every
  match the table played); from the newest checkpoint, and by full replay (checkpoints removed).
  The median of ``BENCH_KIOSK_RESTORES`` (default 7) restores is reported.
* **Start-up** (target: at most 1.5 s): from starting the process to its first frame (systemd's
  ``READY=1``, received on a notify socket as systemd would) with a restored journal of a whole
  25-point match played with a clock (presses, rolls, cube, results, breaks and a tick a second,
  about 15 000 inputs). The median of ``BENCH_KIOSK_STARTS`` (default 5) starts is reported.

Run: ``python -m bench.bench_kiosk`` (or ``make bench``). Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kiosk.controller import TableController
from kiosk.journal import Journal

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
CPU_TARGET = 5.0
START_TARGET_S = 1.5
RESTORE_TARGET_S = 0.3
DAY_INPUTS = 100_000


def _config(tmp: Path, data: Path) -> Path:
    path = tmp / "table.toml"
    path.write_text(f'table_id = "b1"\ndata_dir = "{data}"\n[pins]\nenabled = false\n', encoding="utf-8")
    return path


def _notify_socket(tmp: Path) -> tuple[socket.socket, str]:
    path = str(tmp / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    return sock, path


def _start(config: Path, notify: str, script: Path | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)]
    if script is not None:
        cmd += ["--script", str(script)]
    env = {**os.environ, "NOTIFY_SOCKET": notify, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_ready(sock: socket.socket, timeout: float = 60.0) -> float:
    sock.settimeout(timeout)
    while True:
        message = sock.recv(4096)
        if message.startswith(b"READY=1"):
            return time.perf_counter()


def _cpu_s(pid: int) -> float:
    """utime + stime of ``pid`` in seconds (fields 14 and 15 of /proc/pid/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def bench_cpu(seconds: float) -> float:
    """Percent of one core used by the kiosk while a clock runs."""
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as tmpdir:
        tmp = Path(tmpdir)
        config = _config(tmp, tmp / "data")
        script = tmp / "script.jsonl"
        steps = [
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "cpu",
                "length": 25,
                "players": PLAYERS,
                "clock": True,
            },
            {"input": "checkin", "side": "A"},
            {"input": "checkin", "side": "B"},
            {"input": "opening_roll", "A": 6, "B": 1},
            {"input": "press", "side": "B"},  # A's clock runs from here on
        ]
        script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
        sock, notify = _notify_socket(tmp)
        proc = _start(config, notify, script)
        try:
            _wait_ready(sock)
            time.sleep(1.0)  # let the start-up settle before measuring
            cpu0, wall0 = _cpu_s(proc.pid), time.monotonic()
            time.sleep(seconds)
            cpu1, wall1 = _cpu_s(proc.pid), time.monotonic()
        finally:
            _stop(proc)
            sock.close()
        rows = Journal(tmp / "data" / "journal.sqlite3").read_all()
        ticks = sum(1 for r in rows if r["input"] == "tick")
        print(f"  clock ran for the whole window: {ticks} ticks journaled")
        return 100.0 * (cpu1 - cpu0) / (wall1 - wall0)


def write_match_journal(path: Path, seed: int = 25) -> int:
    """A whole 25-point match with a clock, as a real table journals it. Returns the row count."""
    return write_day_journal(path, seed, min_inputs=1)


def write_day_journal(path: Path, seed: int = 25, min_inputs: int = DAY_INPUTS) -> int:
    """Whole 25-point matches with a clock, one after another on the same table, until the
    journal holds at least ``min_inputs`` inputs (a table's day). Returns the row count."""
    rng = random.Random(seed)
    t = [0]
    journal = Journal(path)
    ctl = TableController(journal, "b1", clock_ms=lambda: t[0], wall_ms=lambda: 1_795_000_000_000 + t[0])
    match_no = 0
    while match_no == 0 or journal.count() < min_inputs:
        match_no += 1
        _play_match(ctl, rng, t, f"m25-{match_no}")
    rows = journal.count()
    journal.close()
    return rows


def _play_match(ctl: TableController, rng: random.Random, t: list[int], match_id: str) -> None:

    def wait(ms: int) -> None:
        end = t[0] + ms
        while t[0] < end:
            t[0] = min(end, t[0] + 100)
            ctl.maybe_tick()

    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": match_id,
            "length": 25,
            "players": PLAYERS,
            "clock": True,
        }
    )
    ctl.submit({"input": "checkin", "side": "A"})
    ctl.submit({"input": "checkin", "side": "B"})
    while ctl.state.phase != "finished":
        if ctl.state.phase == "between_games" and rng.random() < 0.15:
            side = rng.choice("AB")
            if ctl.submit({"input": "break", "side": side})[-1].get("rejected") is None:
                wait(rng.randint(60_000, 240_000))
                ctl.submit({"input": "return", "side": side})
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        ctl.submit({"input": "opening_roll", "A": a, "B": b})
        if ctl.state.phase != "playing":
            continue
        first = ctl.state.turn
        ctl.submit({"input": "press", "side": "B" if first == "A" else "A"})
        side = first
        for turn in range(rng.randint(30, 60)):
            wait(rng.randint(4_000, 16_000))
            if turn == 10 and rng.random() < 0.4 and ctl.state.can_double(side):
                ctl.submit({"input": "double", "side": side})
                other = "B" if side == "A" else "A"
                wait(rng.randint(3_000, 20_000))
                ctl.submit({"input": "take", "side": other})
            ctl.submit({"input": "press", "side": side})
            side = "B" if side == "A" else "A"
            ctl.submit({"input": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)], "source": "tower"})
            if ctl.state.phase != "playing":
                break
        if ctl.state.phase == "playing":
            kind = rng.choice(["single"] * 6 + ["gammon"])
            ctl.submit({"input": "win", "side": rng.choice("AB"), "kind": kind})


def _restore_once(path: Path) -> tuple[float, int]:
    """Seconds to open (and verify) the journal and rebuild the state, as the kiosk does at start;
    and the input the restore started from (0: a full replay)."""
    t0 = time.perf_counter()
    journal = Journal(path, repair=True)
    try:
        ctl = TableController(journal, "b1")
        ctl.restore()
        return time.perf_counter() - t0, ctl.restored_from
    finally:
        journal.close()


def _fresh_copy(master: bytes, work: Path, checkpoints: bool) -> None:
    """The journal as the kiosk left it (a restore after a power cut journals its pause)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    work.write_bytes(master)
    if not checkpoints:
        db = sqlite3.connect(work)
        db.execute("DELETE FROM checkpoint")
        db.commit()
        db.close()


def bench_restore(restores: int) -> list[tuple[str, int, dict[str, float]]]:
    """(journal, inputs, {"checkpoint": median s, "full replay": median s}) for a 25-point match
    and for a 100,000-input day."""
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as tmpdir:
        for label, min_inputs in (("25-point match", 1), (f"{DAY_INPUTS:,}-input day", DAY_INPUTS)):
            path = Path(tmpdir) / f"{min_inputs}.sqlite3"
            rows = write_day_journal(path, min_inputs=min_inputs)
            master = path.read_bytes()
            work = Path(tmpdir) / "work.sqlite3"
            figures = {}
            for mode, checkpoints in (("checkpoint", True), ("full replay", False)):
                times = []
                for _ in range(restores):
                    _fresh_copy(master, work, checkpoints)
                    seconds, start = _restore_once(work)
                    assert (start > 0) == checkpoints
                    times.append(seconds)
                figures[mode] = statistics.median(times)
            results.append((label, rows, figures))
    return results


def bench_startup(starts: int) -> tuple[float, int, dict]:
    """Median seconds from process start to first frame with a restored 25-point match."""
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as tmpdir:
        tmp = Path(tmpdir)
        data = tmp / "data"
        data.mkdir()
        rows = write_match_journal(data / "journal.sqlite3")
        final = Journal(data / "journal.sqlite3").read_all()
        games = sum(1 for r in final if r["input"] == "win")
        config = _config(tmp, data)
        times = []
        for _ in range(starts):
            sock, notify = _notify_socket(tmp)
            t0 = time.perf_counter()
            proc = _start(config, notify)
            try:
                times.append(_wait_ready(sock) - t0)
            finally:
                _stop(proc)
                sock.close()
                os.unlink(notify)
        return statistics.median(times), rows, {"games": games, "all": times}


def main() -> int:
    seconds = float(os.environ.get("BENCH_KIOSK_SECONDS", "60"))
    starts = int(os.environ.get("BENCH_KIOSK_STARTS", "5"))
    restores = int(os.environ.get("BENCH_KIOSK_RESTORES", "7"))
    print(f"kiosk restore (journal opened and verified, state rebuilt), median of {restores}:")
    for label, rows, figures in bench_restore(restores):
        print(
            f"  {label} ({rows:,} inputs): from a checkpoint {figures['checkpoint']:.3f} s"
            f" (target <= {RESTORE_TARGET_S:g} s); full replay {figures['full replay']:.3f} s"
        )
    if os.environ.get("BENCH_KIOSK_RESTORE_ONLY"):
        return 0
    print(f"kiosk CPU with a running clock, {seconds:g} s window:")
    cpu = bench_cpu(seconds)
    print(f"  CPU: {cpu:.2f} % of one core (target <= {CPU_TARGET:g} %)")
    print(f"kiosk start-up to first frame, restored 25-point match, {starts} starts:")
    median, rows, info = bench_startup(starts)
    spread = ", ".join(f"{t:.3f}" for t in info["all"])
    print(f"  journal: {rows} inputs ({info['games']} games)")
    print(f"  start-up: median {median:.3f} s (target <= {START_TARGET_S:g} s); each: {spread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
