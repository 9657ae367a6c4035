"""``bgtable journal`` exports the durable journal as JSON lines that ``bgtable replay`` reads."""

import json
import subprocess
import sys

from kiosk.journal import Journal
from rulebook.replay import replay
from rulebook.snapshot import snapshot

BGTABLE = [sys.executable, "-m", "kiosk.cli"]

INPUTS = [
    {
        "at": 0,
        "wall": 1_795_000_000_000,
        "input": "assign",
        "profile": "wbgf-2023",
        "match_id": "r1-t3",
        "length": 5,
        "players": {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bo", "id": "2"}},
        "clock": True,
    },
    {"at": 1_000, "input": "checkin", "side": "A"},
    {"at": 2_000, "input": "checkin", "side": "B"},
    {"at": 3_000, "input": "opening_roll", "A": 6, "B": 2},
    {"at": 4_000, "input": "press", "side": "B"},
    {"at": 40_000, "input": "press", "side": "A"},
]


def test_export_then_replay_gives_the_live_state(tmp_path):
    db = tmp_path / "journal.db"
    with Journal(db) as journal:
        for inp in INPUTS:
            journal.append(inp)
    exported = subprocess.run([*BGTABLE, "journal", "--db", str(db)], capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert lines == INPUTS
    replayed = subprocess.run(
        [*BGTABLE, "replay", "-"], input=exported.stdout, capture_output=True, text=True
    )
    assert replayed.returncode == 0
    assert json.loads(replayed.stdout) == snapshot(replay(INPUTS))
    assert json.loads(replayed.stdout)["clock"]["reserve_ms"]["A"] == 600_000 - 24_000


def test_missing_journal_is_an_error_and_creates_nothing(tmp_path):
    db = tmp_path / "absent.db"
    result = subprocess.run([*BGTABLE, "journal", "--db", str(db)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "no journal" in result.stderr
    assert not db.exists()
