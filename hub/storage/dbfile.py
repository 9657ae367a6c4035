"""The hub's database file: checked before it is opened, backed up while the hub runs.

A damaged SD card or disk, a file from somewhere else, or an empty file must never be met with a
traceback or silently taken for a new event. Before the store opens the file,
:func:`check_database` says in one sentence what is wrong and which backup to restore:

* a file that is not a database, or whose ``PRAGMA quick_check`` fails: :class:`DatabaseDamaged`,
  naming the newest backup that passes the same check;
* an existing file without the hub's tables (empty, or another program's database):
  :class:`NotAHubDatabase`, unless the TD asked for a new database (``--new-db``), in which case
  the file is first moved aside (never written into).

While the hub runs, :func:`make_backup` copies the database with SQLite's online backup (a
consistent copy, taken on its own connection so the hub's loop never waits) into a backup
directory, keeping the newest few. These copies live on the same disk: they cover a damaged
database, not a dead disk (docs/td-guide.md says to copy one to a USB stick).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from hub.errors import HubError

#: tables whose presence makes a file a hub database (older databases have no version key)
HUB_TABLES = frozenset({"meta", "events", "schedule"})
BACKUP_PREFIX = "hub-"
BACKUP_SUFFIX = ".sqlite3"


class DatabaseFileError(HubError):
    """The database file cannot be used as it is; ``str()`` is the one line the TD reads."""


class DatabaseDamaged(DatabaseFileError):
    def __init__(self, path: Path, detail: str, backup: Path | None) -> None:
        self.path, self.detail, self.backup = path, detail, backup
        if backup is not None:
            advice = f"restore the latest good backup: cp {backup} {path}"
        else:
            advice = f"no good backup found; move {path} away and start with --new-db"
        super().__init__(f"the database {path} is damaged ({detail}); {advice}")


class NotAHubDatabase(DatabaseFileError):
    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        super().__init__(
            f"{path} exists but is {what}, not a hub database; give another --db, "
            "or --new-db to start a new database there (the file is moved aside, not overwritten)"
        )


def default_backup_dir(db: str | Path) -> Path:
    path = Path(db)
    return path.with_name(path.name + ".backups")


def _quick_check(path: Path) -> str | None:
    """None if SQLite finds ``path`` sound, else what it says is wrong (first line)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return str(exc)
    result = [str(r[0]) for r in rows]
    if result == ["ok"]:
        return None
    first = " ".join(result[0].split())  # one line: SQLite's report spans several
    return first if len(first) <= 120 else first[:119] + "…"


def _tables(path: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def backups(backup_dir: Path) -> list[Path]:
    """The backups in ``backup_dir``, newest first."""
    if not backup_dir.is_dir():
        return []
    found = [p for p in backup_dir.iterdir() if p.name.startswith(BACKUP_PREFIX) and p.suffix == ".sqlite3"]
    return sorted(found, key=lambda p: p.name, reverse=True)


def latest_good_backup(backup_dir: Path) -> Path | None:
    """The newest backup SQLite finds sound and that holds the hub's tables."""
    for candidate in backups(backup_dir):
        if _quick_check(candidate) is None and _tables(candidate) >= HUB_TABLES:
            return candidate
    return None


def check_database(path: str | Path, *, new_db: bool = False, backup_dir: Path | None = None) -> None:
    """Raise :class:`DatabaseFileError` if the hub must not open ``path`` (see module doc)."""
    if str(path) == ":memory:":
        return
    db = Path(path)
    if not db.exists():
        return  # the first start of an event: the store creates it
    if db.stat().st_size == 0:
        if not new_db:
            raise NotAHubDatabase(db, "empty")
        _move_aside(db)
        return
    problem = _quick_check(db)
    if problem is not None:
        if "not a database" in problem and new_db:
            _move_aside(db)
            return
        backup = latest_good_backup(backup_dir or default_backup_dir(db))
        raise DatabaseDamaged(db, f"quick_check: {problem}", backup)
    tables = _tables(db)
    if not tables >= HUB_TABLES:
        if not new_db:
            raise NotAHubDatabase(db, "another database" if tables else "a database without tables")
        _move_aside(db)


def _move_aside(db: Path) -> Path:
    aside = db.with_name(f"{db.name}.old-{time.strftime('%Y%m%dT%H%M%S')}")
    db.rename(aside)
    for extra in ("-wal", "-shm"):
        side = db.with_name(db.name + extra)
        if side.exists():
            side.rename(aside.with_name(aside.name + extra))
    return aside


def make_backup(db: str | Path, backup_dir: Path, *, keep: int = 6, now: float | None = None) -> Path:
    """Copy the database (SQLite's online backup, its own connections) into ``backup_dir``; keep
    the newest ``keep`` copies. Runs in a worker thread: it never touches the hub's connection."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now if now is not None else time.time()))
    final = backup_dir / f"{BACKUP_PREFIX}{stamp}{BACKUP_SUFFIX}"
    partial = final.with_name(final.name + ".partial")
    source = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(partial)
        try:
            source.backup(target)
        finally:
            target.close()
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    finally:
        source.close()
    os.replace(partial, final)
    for old in backups(backup_dir)[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()
    return final
