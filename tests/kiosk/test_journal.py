"""The input journal: durable, ordered, and a time base that never goes backwards."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from kiosk.journal import Journal, JournalClock, JournalError, read_journal
from tests.support.patience import patience


def test_append_and_read_back_in_order(tmp_path):
    path = tmp_path / "j.sqlite3"
    inputs = [{"at": i * 10, "wall": 1_000 + i, "input": "tick"} for i in range(50)]
    with Journal(path) as journal:
        for inp in inputs:
            journal.append(inp)
        assert journal.read_all() == inputs
        assert journal.count() == 50
        assert journal.last_at() == 490
    assert read_journal(path) == inputs


def test_lines_are_the_protocol_json_lines(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        journal.append({"at": 5, "wall": 7, "input": "press", "side": "A", "name": "Zoë"})
        (line,) = list(journal.lines())
    assert "\n" not in line
    assert json.loads(line) == {"at": 5, "wall": 7, "input": "press", "side": "A", "name": "Zoë"}


def test_wal_and_full_synchronous(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        journal.append({"at": 1, "input": "tick"})
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_last_at_survives_reopen(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        assert journal.last_at() == 0
        journal.append({"at": 1234, "input": "tick"})
    with Journal(path) as journal:
        assert journal.last_at() == 1234


def test_export_feeds_bgtable_replay(tmp_path):
    from kiosk.cli import main

    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        journal.append(
            {
                "at": 0,
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "x",
                "length": 3,
                "players": _players(),
                "clock": True,
            }
        )
        journal.append({"at": 5, "input": "checkin", "side": "B"})
        assert journal.export(tmp_path / "j.jsonl") == 2
    out = tmp_path / "out.json"
    with open(out, "w") as fh:
        result = subprocess.run(
            [sys.executable, "-m", "kiosk.cli", "replay", str(tmp_path / "j.jsonl")],
            stdout=fh,
            check=True,
        )
    assert result.returncode == 0
    snap = json.loads(out.read_text())
    assert snap["match_id"] == "x" and snap["present"] == {"A": False, "B": True}
    assert main(["replay", str(tmp_path / "j.jsonl")]) == 0


def test_committed_rows_survive_sigkill(tmp_path):
    """A row is on disk when append returns: a process killed right after loses nothing."""
    path = tmp_path / "j.sqlite3"
    code = textwrap.dedent(
        f"""
        import os, signal
        from kiosk.journal import Journal
        j = Journal({str(path)!r})
        for i in range(20):
            j.append({{"at": i, "input": "tick"}})
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], timeout=patience(60))
    assert proc.returncode == -9
    assert [r["at"] for r in read_journal(path)] == list(range(20))
    with Journal(path) as journal:  # and the kiosk reopens it after the kill
        assert journal.last_at() == 19
        journal.append({"at": 20, "input": "tick"})
        assert journal.count() == 21


def test_unwritable_place_is_a_journal_error(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(JournalError, match="dir"):
        Journal(tmp_path / "dir")


class Mono:
    """An injected monotonic clock in seconds (the real one restarts at each boot)."""

    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_clock_continues_from_the_last_at_after_a_reboot():
    mono = Mono(5000.0)
    clock = JournalClock(start_at=90_000, monotonic=mono)
    assert clock() == 90_000
    mono.t += 1.5
    assert clock() == 91_500
    # "reboot": monotonic time starts again near zero, the journal's time goes on
    rebooted = JournalClock(start_at=clock(), monotonic=Mono(3.0))
    assert rebooted() == 91_500


def test_clock_maps_monotonic_instants():
    mono = Mono(100.0)
    clock = JournalClock(start_at=1_000, monotonic=mono)
    assert clock.from_monotonic(100.25) == 1_250


def _players():
    return {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
