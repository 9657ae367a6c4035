"""``bgtable replay`` as a program (PROTOCOL §1): file, stdin, --each, and its exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rulebook.replay import replay_lines
from rulebook.snapshot import snapshot
from tests.golden.test_golden import assert_snapshot_matches

HERE = Path(__file__).resolve().parent
BGTABLE = str(Path(sys.executable).with_name("bgtable"))
JOURNAL = HERE / "g01-wbgf7-clock-crawford-by-gammon.jsonl"  # a double the rules refuse is in it
EXPECTED = json.loads((HERE / "g01-wbgf7-clock-crawford-by-gammon.expected.json").read_text(encoding="utf-8"))
#: has malformed lines in it (an unknown input, a line without "at", a line that is not an object)
MALFORMED = HERE / "g13-wbgf7-clock-pauses-pickup-undo.jsonl"
MALFORMED_EXPECTED = json.loads(
    (HERE / "g13-wbgf7-clock-pauses-pickup-undo.expected.json").read_text(encoding="utf-8")
)


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BGTABLE, "replay", *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_replay_file_prints_the_final_snapshot_and_exits_0_despite_rejections() -> None:
    done = _run(str(JOURNAL))
    assert done.returncode == 0, done.stderr
    assert_snapshot_matches(json.loads(done.stdout), EXPECTED)
    assert done.stderr == ""


def test_replay_stdin() -> None:
    done = _run("-", stdin=JOURNAL.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert_snapshot_matches(json.loads(done.stdout), EXPECTED)


def test_replay_table_id() -> None:
    done = _run(str(JOURNAL), "--table", "12")
    assert done.returncode == 0 and json.loads(done.stdout)["table"] == "12"


def test_replay_each_prints_one_snapshot_per_input_line() -> None:
    lines = JOURNAL.read_text(encoding="utf-8").splitlines()
    done = _run("--each", str(JOURNAL))
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert len(out) == len(lines)
    snaps = [json.loads(line) for line in out]
    assert_snapshot_matches(snaps[-1], EXPECTED)
    # each line is the state after that many inputs
    for k in (1, 4, 17, len(lines) // 2):
        assert snaps[k - 1] == snapshot(replay_lines(lines[:k]))
    assert [s["seq"] for s in snaps] == sorted(s["seq"] for s in snaps)


def test_replay_unreadable_file_exits_2(tmp_path: Path) -> None:
    done = _run(str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot read" in done.stderr


def test_replay_non_json_file_exits_2_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"at": 0, "input": "tick"}\nthis is not json\n', encoding="utf-8")
    done = _run(str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert "line 2" in done.stderr


def test_replay_non_utf8_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"at": 0, "input": "tick", "note": "\xe9"}\n')
    done = _run(str(bad))
    assert done.returncode == 2


def test_replay_empty_journal_prints_the_empty_table() -> None:
    done = _run("-", stdin="\n\n")
    assert done.returncode == 0
    snap = json.loads(done.stdout)
    assert snap["phase"] == "waiting" and snap["match_id"] is None and snap["seq"] == 0


def test_replay_refuses_a_malformed_input_naming_its_line_and_code() -> None:
    """A line that is not a well-formed input (the rules never saw it as one) is refused: exit 2,
    nothing on standard output, its line number and code on standard error."""
    done = _run(str(MALFORMED))
    assert done.returncode == 2 and done.stdout == ""
    lines = MALFORMED.read_text(encoding="utf-8").splitlines()
    first_bad = next(i for i, line in enumerate(lines, 1) if '"fly"' in line)
    assert f"line {first_bad}: input.unknown: unknown input 'fly'" in done.stderr
    assert "[journal.bad_input]" in done.stderr


def test_replay_lenient_applies_malformed_inputs_as_the_table_did_and_reports_them() -> None:
    done = _run("--lenient", str(MALFORMED))
    assert done.returncode == 0, done.stderr
    assert_snapshot_matches(json.loads(done.stdout), MALFORMED_EXPECTED)
    reported = [line for line in done.stderr.splitlines() if "journal.bad_input" in line]
    assert len(reported) == 3
    assert "input.unknown" in reported[0] and "field.missing: at: required" in reported[1]
    assert "input.not_object" in reported[2]


def test_replay_of_garbage_json_lines() -> None:
    garbage = '[1]\n"press"\n{"input": "press"}\n{"at": 5, "input": "nope"}\n'
    done = _run("-", stdin=garbage)
    assert done.returncode == 2 and "line 1: input.not_object" in done.stderr
    done = _run("--lenient", "-", stdin=garbage)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seq"] == 4  # four rejections, each an event
    assert done.stderr.count("journal.bad_input") == 4


#: the TD commands added for HU 7.5/7.9 and FFBG 6.5/6.8/10.3, each malformed, with the code and the
#: message ``bgtable replay`` must name
NEW_COMMANDS_MALFORMED = [
    ({"type": "forbid_double"}, "field.missing: side: required"),
    ({"type": "force_double", "side": "C"}, "field.choice: side: expected one of A, B, got 'C'"),
    ({"type": "crawford_double", "choice": "maybe"}, "field.choice: choice: expected one of keep, void"),
    ({"type": "crawford_double"}, "field.missing: choice: required"),
    ({"type": "double_loss", "note": 5}, "field.type: note: expected a string, got 5"),
]


def _journal_with(command: dict[str, object]) -> tuple[str, int]:
    """A golden journal with ``command`` as a TD command halfway through; its line number."""
    journal = HERE / "g16-ffbg7-clock-early-roll-force-crawford-keep.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines()
    at = json.loads(lines[20])["at"]
    cmd = json.dumps({"at": at, "input": "cmd", "id": "td-bad", **command})
    return "\n".join([*lines[:21], cmd, *lines[21:]]) + "\n", 22


@pytest.mark.parametrize(("command", "said"), NEW_COMMANDS_MALFORMED, ids=lambda v: str(v)[:40])
def test_replay_refuses_each_new_malformed_command_with_its_code_and_line(
    command: dict[str, object], said: str
) -> None:
    text, line = _journal_with(command)
    done = _run("-", stdin=text)
    assert done.returncode == 2 and done.stdout == ""
    assert f"line {line}: {said}" in done.stderr, done.stderr
    assert "[journal.bad_input]" in done.stderr


def test_replay_lenient_reports_the_new_malformed_commands_and_applies_them_as_refusals() -> None:
    text, line = _journal_with(NEW_COMMANDS_MALFORMED[0][0])
    done = _run("--lenient", "-", stdin=text)
    assert done.returncode == 0, done.stderr
    assert f"line {line}: field.missing" in done.stderr
    assert json.loads(done.stdout)["score"] == {"A": 7, "B": 2}  # refused: the match as played
