"""The hub's database file at start: damaged, empty, foreign or sound; and its backups.

``bghub run`` is started for real (a process) on each kind of file: a damaged or foreign file
stops it with exit status 2 and one line on stderr that names the file and what to do (the
backup to restore), never a traceback; ``--new-db`` moves a file that is not a hub database
aside and starts a new one; a sound hub database opens as it is.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub.storage.dbfile import (
    DatabaseDamaged,
    NotAHubDatabase,
    backups,
    check_database,
    default_backup_dir,
    latest_good_backup,
    make_backup,
)
from hub.storage.store import Store
from tests.support.broker import free_port
from tests.support.patience import patience


def _hub_db(path: Path, rows: int = 200) -> Path:
    store = Store(path)
    for i in range(rows):
        store.add_event("1", {"match_id": "m", "seq": i + 1, "type": "press", "side": "A"}, i)
    store.commit()
    store.close()
    return path


def _damage(path: Path) -> None:
    """Overwrite the middle of the file (pages of a table and its index) with garbage."""
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(b"\xde\xad\xbe\xef" * 2048)


def _bghub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", "--event", "e1", "--broker", f"127.0.0.1:{free_port()}",
         "--http", f"127.0.0.1:{free_port()}", *args],
        capture_output=True, text=True, timeout=patience(60),
    )  # fmt: skip


def test_a_sound_hub_database_passes(tmp_path):
    check_database(_hub_db(tmp_path / "hub.db"))
    check_database(tmp_path / "not-there-yet.db")  # the first start of an event


def test_a_damaged_database_is_refused_naming_the_newest_good_backup(tmp_path):
    db = _hub_db(tmp_path / "hub.db", rows=3000)
    folder = default_backup_dir(db)
    older = make_backup(db, folder, now=time.time() - 120)
    newer = make_backup(db, folder, now=time.time() - 60)
    newest = make_backup(db, folder)
    _damage(newest)  # the newest copy is damaged too: the one before it is named
    _damage(db)
    with pytest.raises(DatabaseDamaged) as caught:
        check_database(db)
    assert caught.value.backup == newer != older
    message = str(caught.value)
    assert str(db) in message and f"cp {newer} {db}" in message and "quick_check" in message
    assert latest_good_backup(folder) == newer


def test_bghub_stops_on_a_damaged_database_with_one_line_and_exit_2(tmp_path):
    db = _hub_db(tmp_path / "hub.db", rows=3000)
    backup = make_backup(db, default_backup_dir(db))
    _damage(db)
    done = _bghub("--db", str(db))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"bghub: the database {db} is damaged") and str(backup) in lines[0]
    assert "Traceback" not in done.stderr


def test_a_file_that_is_not_a_database_is_damaged_and_names_no_backup_when_there_is_none(tmp_path):
    db = tmp_path / "hub.db"
    db.write_bytes(b"this was a text file, not SQLite" * 100)
    done = _bghub("--db", str(db))
    assert done.returncode == 2
    assert "is damaged" in done.stderr and "no good backup found" in done.stderr
    assert db.read_bytes().startswith(b"this was a text file")  # untouched


@pytest.mark.parametrize("kind", ["empty", "foreign"])
def test_an_existing_file_without_the_hubs_tables_is_refused_unless_new_db(tmp_path, kind):
    db = tmp_path / "hub.db"
    if kind == "empty":
        db.touch()
    else:
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE photos (name TEXT)")
        conn.execute("INSERT INTO photos VALUES ('holiday.jpg')")
        conn.commit()
        conn.close()
    before = db.read_bytes()
    with pytest.raises(NotAHubDatabase):
        check_database(db)
    done = _bghub("--db", str(db))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "not a hub database" in done.stderr and "--new-db" in done.stderr
    assert db.read_bytes() == before  # never written into

    check_database(db, new_db=True)
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("hub.db.old-")]
    assert len(aside) == 1 and aside[0].read_bytes() == before
    assert not db.exists()  # the store creates a new one in its place


def test_new_db_never_replaces_a_sound_hub_database(tmp_path):
    db = _hub_db(tmp_path / "hub.db")
    check_database(db, new_db=True)
    assert db.exists() and not [p for p in tmp_path.iterdir() if ".old-" in p.name]


def test_backups_are_consistent_copies_and_only_the_newest_are_kept(tmp_path):
    db = _hub_db(tmp_path / "hub.db", rows=50)
    folder = tmp_path / "copies"
    for minute in range(8):
        make_backup(db, folder, keep=3, now=time.time() - 600 + minute * 60)
    kept = backups(folder)
    assert len(kept) == 3 and kept == sorted(kept, reverse=True)
    copy = sqlite3.connect(kept[0])
    try:
        assert copy.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert copy.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 50
    finally:
        copy.close()
    assert not list(folder.glob("*.partial"))
