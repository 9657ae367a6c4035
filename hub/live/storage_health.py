"""The hub's storage, watched: whether its database can be written, and how much disk is left.

A full disk must never be silent: the moment a write fails (:class:`hub.storage.store.Store` rolls back
and says so), the TD gets a critical alert, ``/api/health`` says ``ok: false``, and every write
the hub tries later is a probe — once one works, the alert goes and the tables are asked for
what was not stored. Before it comes to that, the free space is looked at every few seconds and
alerted below a threshold. These alerts are kept in memory (``Alerts.raise_volatile``): the
database cannot hold them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from hub.logic.conditions import AlertSpec
from hub.storage.store import Store

STORAGE_KEY = "storage:write"
#: free space needed before the hub tries to write again after a failed write
RECOVER_FREE = 8 * 1024 * 1024
DISK_KEY = "storage:disk"


def storage_failed(path: str, error: str) -> AlertSpec:
    return AlertSpec(
        STORAGE_KEY,
        "storage",
        "critical",
        f"The hub cannot write to its database {path} ({error}). The tables keep everything; "
        "the hub asks them for what it missed once it can write again. Free disk space now "
        "(docs/td-guide.md, 'When something fails').",
        None,
        None,
    )


def disk_low(directory: str, min_free_mb: int) -> AlertSpec:
    return AlertSpec(
        DISK_KEY,
        "disk_space",
        "high",
        f"The hub's disk is almost full: less than {min_free_mb} MB free for {directory}. "
        "Free space or move the database before it fills (docs/td-guide.md).",
        None,
        None,
    )


class StorageHealth:
    """Free space on the database's disk, looked at every ``every_ms`` (a statvfs call)."""

    def __init__(self, store: Store, min_free_mb: int, every_ms: int) -> None:
        self.store = store
        self.min_free = min_free_mb * 1024 * 1024
        self.min_free_mb = min_free_mb
        self.every_ms = every_ms
        self.directory = str(Path(store.path).resolve().parent) if store.path != ":memory:" else None
        self.free: int | None = None
        self.checked_wall: int | None = None
        #: the last copy of the database the running hub made: {path, wall}
        self.last_backup: dict[str, Any] | None = None

    def due(self, now: int) -> bool:
        return self.directory is not None and (
            self.checked_wall is None or now - self.checked_wall >= self.every_ms
        )

    def look(self, now: int) -> bool:
        """Measure the free space now; whether it is below the threshold."""
        assert self.directory is not None
        try:
            self.free = shutil.disk_usage(self.directory).free
        except OSError:
            self.free = None
        self.checked_wall = now
        return self.free is not None and self.free < self.min_free

    def room_to_recover(self) -> bool:
        """Whether the disk has room enough to try writing again after a failure: a few
        megabytes, so that the next writes (the write-ahead log grows by up to 4 MB before SQLite
        folds it back) do not fail at once and the alert does not come and go every second."""
        if self.directory is None:
            return True
        try:
            return shutil.disk_usage(self.directory).free >= RECOVER_FREE
        except OSError:
            return True

    def health(self) -> dict[str, Any]:
        return {
            "ok": self.store.failure is None,
            "error": self.store.failure,
            "path": self.store.path,
            "free_bytes": self.free,
            "min_free_bytes": self.min_free,
            "last_backup": self.last_backup,
        }
