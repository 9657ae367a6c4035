"""A journal that heals: per-row checksums, the good rows kept, the damaged file set aside, and
the notice (damaged / lost) that the table shows and reports until a TD has dealt with it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kiosk.controller import TableController
from kiosk.journal import Journal, read_journal, row_crc
from kiosk.journal_health import FILE_NAME, JournalHealth
from rulebook.replay import replay
from rulebook.table import new_table

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
WALL0 = 1_795_000_000_000


class Clock:
    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        return self.t


def table(data: Path, *, repair: bool = True) -> tuple[TableController, Clock]:
    clock = Clock()
    journal = Journal(data / "journal.sqlite3", repair=repair, wall_clock=lambda: WALL0)
    ctl = TableController(
        journal,
        "7",
        clock_ms=clock,
        wall_ms=lambda: WALL0 + clock.t,
        health=JournalHealth(data / FILE_NAME),
    )
    clock.t = journal.last_at()
    return ctl, clock


MATCH = [
    {
        "input": "assign",
        "profile": "wbgf-2023",
        "match_id": "m1",
        "length": 7,
        "players": PLAYERS,
        "clock": True,
    },
    {"input": "checkin", "side": "A"},
    {"input": "checkin", "side": "B"},
    {"input": "opening_roll", "A": 5, "B": 2},
    {"input": "press", "side": "B"},
    {"input": "press", "side": "A"},
    {"input": "roll", "dice": [3, 1]},
    {"input": "press", "side": "B"},
    {"input": "roll", "dice": [6, 6]},
    {"input": "press", "side": "A"},
]


def play(data: Path, inputs: list[dict] = MATCH) -> list[dict]:
    ctl, clock = table(data)
    ctl.restore()
    for inp in inputs:
        clock.t += 1_500
        ctl.submit(inp)
    ctl.close()
    return read_journal(data / "journal.sqlite3")


def damage_sql(path: Path, sql: str, *params: object) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()


def test_every_row_carries_its_checksum(tmp_path):
    rows = play(tmp_path)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    stored = db.execute("SELECT n, line, crc FROM journal ORDER BY n").fetchall()
    db.close()
    assert [n for n, _, _ in stored] == list(range(1, len(rows) + 1))
    assert all(crc == row_crc(n, line) for n, line, crc in stored)
    with Journal(tmp_path / "journal.sqlite3", repair=True) as journal:
        assert journal.damage is None
        assert journal.count() == len(rows)


DAMAGES = {
    "truncated row": ("UPDATE journal SET line = substr(line, 1, length(line) / 2) WHERE n = 6",),
    "garbage text": ("UPDATE journal SET line = ? WHERE n = 6", "x\x00\x01\ufffd{{{"),
    "a number": ("UPDATE journal SET line = '42' WHERE n = 6",),
    "a list": ("UPDATE journal SET line = '[1, 2]' WHERE n = 6",),
    "null": ("UPDATE journal SET line = 'null' WHERE n = 6",),
    "bytes": ("UPDATE journal SET line = x'00ff10fe' WHERE n = 6",),
    "one byte changed": ("UPDATE journal SET line = replace(line, '\"A\"', '\"B\"') WHERE n = 6",),
    "row missing": ("DELETE FROM journal WHERE n = 6",),
    "checksum lost": ("UPDATE journal SET crc = crc + 1 WHERE n = 6",),
}


@pytest.mark.parametrize("kind", list(DAMAGES))
def test_a_damaged_row_keeps_the_rows_before_it_and_sets_the_file_aside(tmp_path, kind):
    rows = play(tmp_path)
    path = tmp_path / "journal.sqlite3"
    damage_sql(path, *DAMAGES[kind])
    before = path.read_bytes()

    ctl, _ = table(tmp_path)
    damage = ctl.journal.damage
    assert damage is not None and damage.after_input == 5, damage
    assert damage.aside is not None and damage.aside.name.startswith("journal.damaged-")
    # the file set aside is the damaged one, as it was: every row still in it
    assert damage.aside.read_bytes() == before
    # the journal now holds exactly the good rows, and goes on from there
    events = ctl.restore()
    assert read_journal(path)[:5] == rows[:5]
    assert ctl.restored_inputs == 5
    assert ctl.state.phase == "paused" and ctl.state.paused == "td"
    assert [e["type"] for e in events] == ["pause"]
    assert ctl.state == replay(read_journal(path), new_table("7"))
    notice = ctl.journal_notice
    assert notice is not None
    assert (notice.problem, notice.match_id, notice.after_input) == ("damaged", "m1", 5)
    assert notice.aside == damage.aside.name
    ctl.close()
    # the next start finds a sound journal, and still shows the notice
    again, _ = table(tmp_path)
    assert again.journal.damage is None
    again.restore()
    assert again.journal_notice == notice
    assert again.state.paused == "td"
    again.close()


def test_a_file_that_is_no_database_is_set_aside_whole(tmp_path):
    play(tmp_path)
    path = tmp_path / "journal.sqlite3"
    with open(path, "r+b") as fh:
        fh.write(b"this is not the header of a database file at all")
    ctl, _ = table(tmp_path)
    assert ctl.journal.damage is not None and ctl.journal.damage.after_input == 0
    ctl.restore()
    assert ctl.restored_inputs == 0
    notice = ctl.journal_notice
    assert notice is not None and notice.problem == "damaged" and notice.after_input == 0
    assert (tmp_path / notice.aside).exists()
    ctl.submit({"input": "tick"})
    assert ctl.journal.count() == 1
    ctl.close()


def test_garbage_bytes_inside_the_file_never_stop_the_table(tmp_path):
    rows = play(tmp_path, MATCH + [{"input": "tick"}] * 3000)
    path = tmp_path / "journal.sqlite3"
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(bytes(range(256)) * 64)
    ctl, _ = table(tmp_path)
    ctl.restore()
    good = ctl.restored_inputs
    assert 0 <= good < len(rows)
    assert ctl.journal.damage is not None and ctl.journal.damage.after_input == good
    assert read_journal(path)[:good] == rows[:good]
    ctl.close()


def test_a_journal_from_before_checksums_is_checked_then_sealed(tmp_path):
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE journal (n INTEGER PRIMARY KEY AUTOINCREMENT, line TEXT NOT NULL)")
    lines = [json.dumps({"at": i * 100, "wall": WALL0, **inp}) for i, inp in enumerate(MATCH)]
    db.executemany("INSERT INTO journal (line) VALUES (?)", [(line,) for line in lines])
    db.commit()
    db.close()
    with Journal(path, repair=True) as journal:
        assert journal.damage is None
        assert journal.count() == len(MATCH)
    db = sqlite3.connect(path)
    assert all(crc == row_crc(n, line) for n, line, crc in db.execute("SELECT n, line, crc FROM journal"))
    db.close()


def test_an_old_journal_with_a_bad_row_is_damaged_there(tmp_path):
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE journal (n INTEGER PRIMARY KEY AUTOINCREMENT, line TEXT NOT NULL)")
    db.executemany("INSERT INTO journal (line) VALUES (?)", [('{"at": 1, "input": "tick"}',), ('"tick"',)])
    db.commit()
    db.close()
    with Journal(path, repair=True) as journal:
        assert journal.damage is not None and journal.damage.after_input == 1


def test_a_tool_reading_a_damaged_journal_changes_nothing(tmp_path):
    play(tmp_path)
    path = tmp_path / "journal.sqlite3"
    damage_sql(path, DAMAGES["a number"][0])
    before = path.read_bytes()
    with Journal(path) as journal:
        scan = journal.scan()
    assert (scan.good, scan.rows_after) == (5, len(MATCH) - 6)
    assert scan.problem == "input 6 fails its checksum"
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("journal.damaged-*"))


# -- the notice ---------------------------------------------------------------------------------


def test_a_players_resume_does_not_clear_the_notice_a_td_command_does(tmp_path):
    play(tmp_path)
    damage_sql(tmp_path / "journal.sqlite3", DAMAGES["a number"][0])
    ctl, clock = table(tmp_path)
    ctl.restore()
    assert ctl.journal_notice is not None
    clock.t += 1000
    ctl.submit({"input": "resume"})
    ctl.submit({"input": "pause", "reason": "td"})
    assert ctl.journal_notice is not None
    ctl.submit({"input": "cmd", "id": "td-1", "type": "resume"})
    assert ctl.state.phase == "playing"
    assert ctl.journal_notice is None
    ctl.close()
    again, _ = table(tmp_path)
    again.restore()
    assert again.journal_notice is None
    again.close()


def test_another_match_assigned_clears_the_notice(tmp_path):
    finished = [
        *MATCH[:1],
        {"input": "cmd", "id": "f", "type": "forfeit", "against": "A", "reason": "conduct"},
    ]
    play(tmp_path, finished + [{"input": "tick"}] * 3)
    damage_sql(tmp_path / "journal.sqlite3", "UPDATE journal SET line = '[]' WHERE n = 4")
    ctl, _ = table(tmp_path)
    ctl.restore()
    assert ctl.journal_notice is not None and ctl.state.phase == "finished"
    ctl.submit({**MATCH[0], "match_id": "m1"})
    assert ctl.journal_notice is not None
    ctl.submit({**MATCH[0], "match_id": "m2"})
    assert ctl.state.match_id == "m2"
    assert ctl.journal_notice is None
    ctl.close()


@pytest.mark.parametrize("how", ["zero length", "deleted"])
def test_a_lost_journal_is_reported_for_its_match_never_started_again_silently(tmp_path, how):
    play(tmp_path)
    health = json.loads((tmp_path / FILE_NAME).read_text())
    assert health["marker"]["match_id"] == "m1"
    last_seq = health["marker"]["seq"]
    path = tmp_path / "journal.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if how == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"")
    ctl, _ = table(tmp_path)
    ctl.restore()
    notice = ctl.journal_notice
    assert notice is not None
    assert (notice.problem, notice.match_id, notice.last_seq) == ("lost", "m1", last_seq)
    # the hub assigns the match again: the table takes it, and says the journal was lost
    ctl.submit(MATCH[0])
    assert ctl.state.match_id == "m1"
    assert ctl.journal_notice == notice
    status = notice.status()
    assert status["problem"] == "lost" and status["match_id"] == "m1"
    ctl.submit(
        {"input": "cmd", "id": "fix", "type": "correct_score", "score": {"A": 2, "B": 1}, "note": "sheet"}
    )
    assert ctl.journal_notice is None
    ctl.close()


def test_rows_lost_at_the_end_are_seen_through_the_marker(tmp_path):
    play(tmp_path)
    path = tmp_path / "journal.sqlite3"
    damage_sql(path, "DELETE FROM journal WHERE n > 7")
    ctl, _ = table(tmp_path)
    ctl.restore()
    notice = ctl.journal_notice
    assert notice is not None
    assert (notice.problem, notice.match_id, notice.after_input, notice.aside) == ("damaged", "m1", 7, None)
    ctl.close()


def test_the_first_notice_stays_until_a_td_clears_it(tmp_path):
    play(tmp_path)
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"")
    Path(f"{path}-wal").unlink(missing_ok=True)
    ctl, _ = table(tmp_path)
    ctl.restore()
    first = ctl.journal_notice
    assert first is not None and first.problem == "lost"
    ctl.close()
    path.write_bytes(b"garbage garbage garbage garbage garbage garbage garbage garbage")
    again, _ = table(tmp_path)
    again.restore()
    assert again.journal.damage is not None
    assert again.journal_notice == first
    again.close()


def test_a_damaged_health_file_is_ignored(tmp_path):
    play(tmp_path)
    (tmp_path / FILE_NAME).write_text('{"marker": {"match_id": 5, "seq": "x"}, "notice": [1]}')
    ctl, _ = table(tmp_path)
    ctl.restore()
    assert ctl.journal_notice is None
    assert ctl.state.match_id == "m1"
    ctl.close()
    health = json.loads((tmp_path / FILE_NAME).read_text())
    assert health["marker"]["match_id"] == "m1"
