"""Power cuts mid-match: the real kiosk is SIGKILLed at random points and must come back whole.

Each round starts ``bgtable run --headless`` on the same data directory with a scripted stretch
of play (resume, presses, rolls, cube, results, breaks), kills it with SIGKILL at a random
moment, and checks the next start against the journal left on disk:

* nothing journaled is lost or rewritten (the journal only grows, ``at`` never goes backwards);
* the restored state (logged by the kiosk at start) equals ``replay(journal)``: score, cube,
  breaks, both reserves and delays, and the clock paused for ``power_loss`` when a match was
  under way, at the last journaled instant.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kiosk.controller import needs_power_loss_pause
from kiosk.journal import read_journal
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table
from tests.support.patience import patience, wait_until

TABLE = "k9"
WAIT = patience(30.0)
RESTORED = re.compile(r"restored (\d+) journal inputs: (\{.*\})\s*$")
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}


def game_script(rng: random.Random, match_no: int) -> list[dict[str, Any]]:
    """A stretch of play that makes progress from wherever the last kill left the match."""
    winner = rng.choice("AB")
    loser = "B" if winner == "A" else "A"
    steps: list[dict[str, Any]] = [
        {"input": "resume"},
        {
            "input": "assign",
            "match_id": f"m{match_no}",
            "length": 25,
            "players": PLAYERS,
            "clock": {"minutes_per_point": 2, "delay_s": 1},
        },
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 5, "B": 2},
        {"input": "press", "side": "B"},
        {"input": "press", "side": "A"},
        {"input": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)], "source": "tower"},
        {"input": "press", "side": "B"},
    ]
    if rng.random() < 0.5:
        steps += [{"input": "double", "side": "A"}, {"input": "take", "side": "B"}]
    steps += [
        {"input": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)], "source": "manual"},
        {"input": "press", "side": "A"},
        {"input": "win", "side": winner, "kind": rng.choice(["single", "single", "gammon"])},
        {"input": "break", "side": loser},
        {"input": "return", "side": loser},
    ]
    for step in steps:
        step["after_ms"] = rng.randint(5, 30)
    return steps


@dataclass
class Kiosk:
    proc: subprocess.Popen
    lines: queue.Queue = field(default_factory=queue.Queue)
    log: list[str] = field(default_factory=list)

    def read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def restored(self, timeout: float = WAIT) -> tuple[int, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise AssertionError("kiosk exited before restoring:\n" + "".join(self.log))
            found = RESTORED.search(line)
            if found:
                return int(found.group(1)), json.loads(found.group(2))


def start_kiosk(config: Path, script: Path) -> Kiosk:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kiosk.cli",
            "run",
            "--headless",
            "--config",
            str(config),
            "--script",
            str(script),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    kiosk = Kiosk(proc)
    threading.Thread(target=kiosk.read, daemon=True).start()
    return kiosk


def write_script(path: Path, steps: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")


def checked_fields(snap: dict[str, Any]) -> dict[str, Any]:
    """What a power cut must not change (wall-derived fields move with the restart's wall time)."""
    clock = snap["clock"]
    return {
        "match_id": snap["match_id"],
        "seq": snap["seq"],
        "phase": snap["phase"],
        "score": snap["score"],
        "game": snap["game"],
        "cube": snap["cube"],
        "penalties": snap["penalties"],
        "present": snap["present"],
        "reserve_ms": clock["reserve_ms"],
        "delay_ms": clock["delay_ms"],
        "running": clock["running"],
        "paused": clock["paused"],
        "flagged": clock["flagged"],
        "breaks": {s: (b["used"], b["allowed"], b["away"]) for s, b in snap["breaks"].items()},
        "games": [(g["game"], g["winner"], g["kind"], g["points"]) for g in snap["games"]],
        "turn": snap["turn"],
        "at": snap["at"],
    }


def expected_restore(rows: list[dict[str, Any]]) -> tuple[TableState, bool]:
    """The state a restart must reach from ``rows``, and whether it journals a power-loss pause."""
    state = replay(rows, new_table(TABLE))
    if not needs_power_loss_pause(state):
        return state, False
    state, events = apply(state, {"at": state.now, "input": "pause", "reason": "power_loss"})
    assert "rejected" not in events[-1]
    return state, True


def journaled(journal: Path) -> int:
    """How many inputs the journal holds (read while the kiosk writes: WAL lets it)."""
    db = sqlite3.connect(journal)
    try:
        return int(db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])
    finally:
        db.close()


def check_restart(
    kiosk: Kiosk,
    rows: list[dict[str, Any]],
    last: bool,
    rng: random.Random,
    stats: dict[str, int],
    journal: Path,
) -> tuple[int, dict[str, Any], bool]:
    """The restore read exactly what the last kill left and reached replay(journal); then the
    kiosk plays on until the next power cut (or, the last time, until its script ends).

    The power cut falls at a random point of the play: after a random number of inputs journaled
    since the start, then a random moment within the next step. (A random time after the start
    made the point depend on the machine's load: on a busy machine the kiosk had not even taken
    its ``resume`` when most cuts fell, and the power-loss restore was hardly exercised.)"""
    count, restored = kiosk.restored()
    assert count == len(rows)
    expected, paused = expected_restore(rows)
    assert checked_fields(restored) == checked_fields(snapshot(expected))
    if paused:
        assert restored["clock"]["paused"] == "power_loss"
        stats["power_loss_pauses"] += 1
    if last:
        assert kiosk.proc.wait(timeout=WAIT) == 0, "".join(kiosk.log)
    else:
        target = count + paused + rng.randint(1, 12)  # the script has two games: 26 inputs or more
        wait_until(lambda: journaled(journal) >= target, WAIT, f"{target} inputs journaled")
        time.sleep(rng.uniform(0.0, 0.03))  # within the next step (5-30 ms apart): not a wait
        kiosk.proc.send_signal(signal.SIGKILL)
        assert kiosk.proc.wait(timeout=WAIT) == -signal.SIGKILL
    return count, restored, paused


def run_kills(tmp_path: Path, rounds: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    data = tmp_path / "data"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{TABLE}"\ndata_dir = "{data}"\ntick_interval_ms = 100\n[pins]\nenabled = false\n',
        encoding="utf-8",
    )
    script = tmp_path / "script.jsonl"
    journal = data / "journal.sqlite3"
    rows: list[dict[str, Any]] = []
    stats = {"rounds": 0, "power_loss_pauses": 0, "games": 0, "matches": 1}
    match_no = 1
    for round_no in range(rounds + 1):
        last = round_no == rounds
        if rows and replay(rows, new_table(TABLE)).phase == "finished":
            match_no += 1
            stats["matches"] += 1
        steps = [{"exit": True}] if last else game_script(rng, match_no) + game_script(rng, match_no)
        write_script(script, steps)
        kiosk = start_kiosk(config, script)
        try:
            pending = check_restart(kiosk, rows, last, rng, stats, journal)
        finally:
            if kiosk.proc.poll() is None:
                kiosk.proc.kill()
                kiosk.proc.wait()

        new_rows = read_journal(journal)
        # Append-only: everything that was there is still there, unchanged.
        assert new_rows[: len(rows)] == rows
        ats = [r["at"] for r in new_rows]
        assert ats == sorted(ats), "journal time went backwards"
        # The state the kiosk restored is exactly the replay of the journal up to its pause.
        count, restored, paused = pending
        if paused:
            pause = new_rows[count]
            assert (pause["input"], pause["reason"], pause["at"]) == ("pause", "power_loss", rows[-1]["at"])
        assert restored == snapshot(replay(new_rows[: count + paused], new_table(TABLE)))
        rows = new_rows
        stats["rounds"] += 1
    final = replay(rows, new_table(TABLE))
    stats["games"] = len(final.match.games) if final.match else 0
    return stats


@pytest.mark.long
def test_sigkill_at_random_points_restores_replay_of_the_journal(tmp_path):
    stats = run_kills(tmp_path, rounds=50, seed=20261122)
    print(stats)
    assert stats["rounds"] == 51
    # the kills fell mid-match often enough to exercise the power-loss restore
    assert stats["power_loss_pauses"] >= 10, stats


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_sigkill_soak(tmp_path):
    stats = run_kills(tmp_path, rounds=300, seed=7)
    assert stats["power_loss_pauses"] >= 60, stats
