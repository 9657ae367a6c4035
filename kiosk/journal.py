"""The table's durable input journal: every input is written here before it is applied.

The state of a table is always ``replay(journal)`` (PROTOCOL.md §1), so a power cut mid-match
loses nothing that was journaled. Storage is SQLite in WAL mode with ``synchronous=FULL``: each
``append`` is its own transaction, and the commit does not return before the row is on disk.
One row holds one input as its JSON line (with ``at`` and ``wall``), in journal order.

Time base: ``at`` is milliseconds on the table's monotonic clock, and monotonic time restarts
at every boot. :class:`JournalClock` continues the journal's time base across restarts, so ``at``
never goes backwards: after a restart, ``at = last_at + (monotonic now - monotonic at open)``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    line TEXT NOT NULL
)
"""


class JournalError(RuntimeError):
    """The journal file cannot be opened or written (the table must not run without it)."""


class Journal:
    """Append-only, fsync'd input journal in one SQLite file.

    Used from one thread only (the kiosk's main loop owns the state and the journal).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path.parent}: {exc.strerror or exc}") from exc
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"{self.path}: cannot switch to WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(SCHEMA)
            row = self._db.execute("SELECT line FROM journal ORDER BY n DESC LIMIT 1").fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: {exc}") from exc
        self._last_at = _at_of(row[0]) if row else 0

    def append(self, inp: dict[str, Any]) -> None:
        """Write one input durably; returns only once the row is committed to disk."""
        line = json.dumps(inp, ensure_ascii=False, separators=(",", ":"))
        try:
            self._db.execute("INSERT INTO journal (line) VALUES (?)", (line,))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: {exc}") from exc
        at = inp.get("at")
        if isinstance(at, int) and not isinstance(at, bool) and at > self._last_at:
            self._last_at = at

    def lines(self) -> Iterator[str]:
        """The journal as JSON lines, oldest first (what ``bgtable replay`` reads)."""
        for (line,) in self._db.execute("SELECT line FROM journal ORDER BY n"):
            yield line

    def read_all(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])

    def last_at(self) -> int:
        """The largest ``at`` journaled so far (0 for an empty journal)."""
        return self._last_at

    def export(self, path: str | Path) -> int:
        """Write the journal as a JSON-lines file; returns the number of lines."""
        count = 0
        with open(path, "w", encoding="utf-8") as fh:
            for line in self.lines():
                fh.write(line + "\n")
                count += 1
        return count

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _at_of(line: str) -> int:
    try:
        at = json.loads(line).get("at")
    except (ValueError, AttributeError):
        return 0
    return at if isinstance(at, int) and not isinstance(at, bool) and at > 0 else 0


def read_journal(path: str | Path) -> list[dict[str, Any]]:
    """All inputs of a journal file (for tools and tests), without changing them."""
    db = sqlite3.connect(Path(path))
    try:
        return [json.loads(line) for (line,) in db.execute("SELECT line FROM journal ORDER BY n")]
    finally:
        db.close()


class JournalClock:
    """The journal's time base in ms: continues from the journal's last ``at`` at every start.

    ``monotonic`` (seconds) is injectable for tests; it defaults to :func:`time.monotonic`.
    """

    def __init__(self, start_at: int, monotonic: Callable[[], float] = time.monotonic):
        self._mono = monotonic
        self._start_at = start_at
        self._mono0 = monotonic()

    def __call__(self) -> int:
        return self._start_at + int((self._mono() - self._mono0) * 1000)

    def from_monotonic(self, seconds: float) -> int:
        """Map an instant of ``monotonic`` (e.g. a GPIO edge time) onto the journal time base."""
        return self._start_at + int((seconds - self._mono0) * 1000)


def wall_ms() -> int:
    return time.time_ns() // 1_000_000
