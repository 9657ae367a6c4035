"""``bgtable transcript``: the table prints a match's transcript from its journal, as the hub does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.patience import patience

GOLDEN = Path(__file__).parents[1] / "golden"
MATCH = GOLDEN / "g03-wbgf11-clock-passed-redouble.jsonl"


def _bgtable(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "transcript", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=patience(60),
    )


def test_the_text_transcript_tells_the_match() -> None:
    run = _bgtable(str(MATCH))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Match g03 · 11 points · wbgf-2023 · clock")
    assert "Result: Ann Andersen wins 11–4 (points)" in run.stdout
    assert "Ann Andersen doubles to 2" in run.stdout
    assert "Bo Berg wins (double passed), 2 point(s)" in run.stdout


def test_json_and_stdin() -> None:
    run = _bgtable("-", "--format", "json", stdin=MATCH.read_text())
    assert run.returncode == 0, run.stderr
    t = json.loads(run.stdout)
    assert t["match_id"] == "g03"
    assert t["result"] == {"winner": "A", "end_reason": "points", "score": {"A": 11, "B": 4}}


def test_the_match_file_has_the_header_tags() -> None:
    run = _bgtable(str(MATCH), "--format", "mat")
    assert run.returncode == 0, run.stderr
    assert '; [Player 1 "Ann Andersen"]' in run.stdout
    assert " 11 point match" in run.stdout


def test_an_unknown_match_or_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = _bgtable(str(MATCH), "--match", "r9-t9")
    assert run.returncode == 2
    assert run.stderr.strip() == "bgtable transcript: no match r9-t9 in the journal (matches: g03)"
    run = _bgtable(str(tmp_path / "missing.jsonl"))
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"at": 0, "input": "tick"}\nnot json\n')
    run = _bgtable(str(bad))
    assert run.returncode == 2
    assert "line 2" in run.stderr
