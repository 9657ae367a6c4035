"""The table's durable input journal: every input is written here before it is applied.

The state of a table is always ``replay(journal)`` (PROTOCOL.md §1), so a power cut mid-match
loses nothing that was journaled. Storage is SQLite in WAL mode with ``synchronous=FULL``: each
``append`` is its own transaction, and the commit does not return before the row is on disk.
One row holds one input as its JSON line (with ``at`` and ``wall``), in journal order.

**Integrity.** An SD card can hand back a row that is not what was written (a torn write, a
flipped bit in a text cell), pages SQLite cannot read, or a file that is no database at all.
SQLite's own checks (``quick_check``) see broken B-trees but not a changed byte inside a cell,
so every row carries a CRC-32 of its number and its line (``n`` must also run 1, 2, 3… without
a gap, so a lost or moved row is seen too). :meth:`Journal.scan` reads the journal up to the
first row that fails, and a journal opened with ``repair=True`` (the kiosk's) heals itself: the
damaged file is renamed aside with a timestamp, and a new file holding the good rows (and the
checkpoints they cover) takes its place; :attr:`Journal.damage` says what was found. Rows of
journals written before the checksums existed are checked once by parsing, then sealed.

**Checkpoints** (``put_checkpoint``): an encoded state every so many inputs, in the same file
and transaction discipline, each with its own CRC; restoring from the newest intact one costs
the same at any journal length (see :mod:`kiosk.checkpoint`).

Time base: ``at`` is milliseconds on the table's monotonic clock, and monotonic time restarts
at every boot. :class:`JournalClock` continues the journal's time base across restarts, so ``at``
never goes backwards: after a restart, ``at = last_at + (monotonic now - monotonic at open)``.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiosk.errors import KioskError

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    line TEXT NOT NULL,
    crc INTEGER
);
CREATE TABLE IF NOT EXISTS checkpoint (
    n INTEGER PRIMARY KEY,
    format TEXT NOT NULL,
    body TEXT NOT NULL,
    crc INTEGER NOT NULL
);
"""

#: SQLite result codes (primary, ``sqlite_errorcode & 0xff``) that mean the file's content is
#: damaged, as opposed to a place that cannot be opened or written at all
DAMAGE_CODES = frozenset({10, 11, 26})  # SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB
#: checkpoints kept in the file (older ones are deleted when a new one is written)
KEEP_CHECKPOINTS = 3


class JournalError(KioskError, RuntimeError):
    """The journal file cannot be opened or written (the table must not run without it)."""


def row_crc(n: int, line: str) -> int:
    """The checksum stored with row ``n``: CRC-32 of ``"n:line"`` (UTF-8)."""
    return zlib.crc32(f"{n}:{line}".encode("utf-8", "surrogatepass"))


def checkpoint_crc(n: int, fmt: str, body: str) -> int:
    return zlib.crc32(f"{n}:{fmt}:{body}".encode("utf-8", "surrogatepass"))


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """An encoded table state after input ``n`` (``format`` says how it was encoded)."""

    n: int
    format: str
    body: str


@dataclass(slots=True)
class Scan:
    """What :meth:`Journal.scan` found: the good rows from the first, and why the next one is not.

    ``lines[i]`` is input ``i + 1``. ``rows_after`` counts the rows readable after the damaged
    one (they are kept in the file set aside, never replayed: the state after a hole is unknown).
    """

    lines: list[str] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    problem: str | None = None
    rows_after: int = 0
    #: rows written before checksums existed (checked by parsing; sealed after a clean scan)
    unsealed: int = 0

    @property
    def good(self) -> int:
        return len(self.lines)


@dataclass(frozen=True, slots=True)
class Damage:
    """A damaged journal found at open: restored up to ``after_input``; the file is ``aside``."""

    after_input: int
    reason: str
    aside: Path | None
    rows_after: int = 0


class Journal:
    """Append-only, fsync'd input journal in one SQLite file.

    ``repair=True`` (the kiosk) verifies every row at open and heals a damaged file (see the
    module doc); the verified rows are then handed to the restore by :meth:`take_scan`. Tools
    that only read a journal leave ``repair`` off and never change the file.

    Used from one thread only (the kiosk's main loop owns the state and the journal).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        repair: bool = False,
        wall_clock: Callable[[], int] | None = None,
    ):
        self.path = Path(path)
        self.damage: Damage | None = None
        #: epoch ms, for the name of a damaged file set aside
        self._wall_clock = wall_clock or wall_ms
        self._scan: Scan | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path.parent}: {exc.strerror or exc}") from exc
        try:
            self._db = self._connect(self.path)
        except sqlite3.DatabaseError as exc:
            if not (repair and _is_damage(exc)):
                raise JournalError(f"{self.path}: {exc}") from exc
            # Not a database any more (or unreadable from its first page): nothing to keep but
            # the file itself, set aside for whoever investigates.
            aside = self._set_aside()
            self._scan = Scan(problem=f"the file cannot be read: {exc}")
            self.damage = Damage(0, self._scan.problem or "", aside)
            self._db = self._connect(self.path)
        if repair and self._scan is None:
            self._scan = self.scan()
            if self._scan.problem is not None:
                self._heal(self._scan)
            elif self._scan.unsealed:
                self._seal()
        self._next_n = self._last_n() + 1
        self._last_at = self._compute_last_at()

    # -- opening ---------------------------------------------------------------------------------

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None)
        try:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"{path}: cannot switch to WAL mode (got {mode})")
            db.execute("PRAGMA synchronous=FULL")
            if not _has_column(db, "journal", "crc") and _has_table(db, "journal"):
                db.execute("ALTER TABLE journal ADD COLUMN crc INTEGER")  # a journal from before
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def _last_n(self) -> int:
        try:
            row = self._db.execute("SELECT MAX(n) FROM journal").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: {exc}") from exc
        return int(row[0] or 0)

    def _compute_last_at(self) -> int:
        if self._scan is not None:  # verified rows only: a damaged row's ``at`` means nothing
            return _at_of(self._scan.lines[-1]) if self._scan.lines else 0
        try:
            row = self._db.execute("SELECT line FROM journal ORDER BY n DESC LIMIT 1").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: {exc}") from exc
        return _at_of(row[0]) if row and isinstance(row[0], str) else 0

    # -- integrity -------------------------------------------------------------------------------

    def scan(self) -> Scan:
        """Read and verify every row, oldest first, stopping the good run at the first bad one.

        A row is good when its number follows the previous one and its checksum matches (a row
        from before checksums: when its line is a JSON object). Never raises on damage.
        """
        scan = Scan()
        lines = scan.lines
        try:
            for n, line, crc in self._db.execute("SELECT n, line, crc FROM journal ORDER BY n"):
                if scan.problem is not None:
                    scan.rows_after += 1
                    continue
                expected = len(lines) + 1
                if n != expected:
                    scan.problem = f"input {expected} is missing"
                    scan.rows_after += 1
                elif not isinstance(line, str):
                    scan.problem = f"input {n} is not text"
                elif crc is None:
                    if _is_object_line(line):
                        lines.append(line)
                        scan.unsealed += 1
                    else:
                        scan.problem = f"input {n} is not a JSON object"
                elif row_crc(n, line) != crc:
                    scan.problem = f"input {n} fails its checksum"
                else:
                    lines.append(line)
        except sqlite3.DatabaseError as exc:
            if scan.problem is None:
                scan.problem = f"the file cannot be read after input {len(lines)}: {exc}"
        scan.checkpoints = self._intact_checkpoints(len(lines))
        return scan

    def _intact_checkpoints(self, upto: int) -> list[Checkpoint]:
        """Checkpoints within the first ``upto`` inputs whose checksum holds, newest first."""
        found: list[Checkpoint] = []
        try:
            rows = self._db.execute(
                "SELECT n, format, body, crc FROM checkpoint WHERE n <= ? ORDER BY n DESC", (upto,)
            )
            for n, fmt, body, crc in rows:
                if isinstance(fmt, str) and isinstance(body, str) and checkpoint_crc(n, fmt, body) == crc:
                    found.append(Checkpoint(n, fmt, body))
        except sqlite3.DatabaseError as exc:
            log.warning("journal %s: checkpoints unreadable (%s); restoring without them", self.path, exc)
        return found

    def take_scan(self) -> Scan | None:
        """The rows verified at open (``repair=True``), once: the restore replays them."""
        scan, self._scan = self._scan, None
        return scan

    def _heal(self, scan: Scan) -> None:
        """Keep the good rows in a new file; the damaged one goes aside, renamed, untouched.

        The new file is complete and synced before anything is renamed, so a power cut during
        the repair leaves either the damaged file in place (repaired again at the next start)
        or the new one.
        """
        fresh = self.path.with_name(self.path.name + ".repairing")
        _unlink_db(fresh)
        try:
            db = sqlite3.connect(fresh, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=DELETE")
                db.execute("PRAGMA synchronous=FULL")
                db.executescript(SCHEMA)
                db.execute("BEGIN")
                db.executemany(
                    "INSERT INTO journal (n, line, crc) VALUES (?, ?, ?)",
                    ((n, line, row_crc(n, line)) for n, line in enumerate(scan.lines, start=1)),
                )
                db.executemany(
                    "INSERT INTO checkpoint (n, format, body, crc) VALUES (?, ?, ?, ?)",
                    (
                        (cp.n, cp.format, cp.body, checkpoint_crc(cp.n, cp.format, cp.body))
                        for cp in scan.checkpoints
                    ),
                )
                db.execute("COMMIT")
            finally:
                db.close()
            self._db.close()
            aside = self._set_aside()
            os.replace(fresh, self.path)
            _fsync_dir(self.path.parent)
            self._db = self._connect(self.path)
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"{self.path}: cannot repair the journal: {exc}") from exc
        self.damage = Damage(scan.good, scan.problem or "", aside, scan.rows_after)
        log.error(
            "journal %s damaged after input %d (%s); %d later rows set aside with the file in %s",
            self.path,
            scan.good,
            scan.problem,
            scan.rows_after,
            aside,
        )

    def _set_aside(self) -> Path | None:
        """Rename the journal (and its WAL) to ``journal.damaged-<UTC time>.sqlite3``."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(self._wall_clock() / 1000))
        stem, suffix = self.path.stem, self.path.suffix
        aside = self.path.with_name(f"{stem}.damaged-{stamp}{suffix}")
        count = 1
        while aside.exists():
            count += 1
            aside = self.path.with_name(f"{stem}.damaged-{stamp}-{count}{suffix}")
        try:
            if not self.path.exists():
                return None
            os.rename(self.path, aside)
            wal = Path(f"{self.path}-wal")
            if wal.exists():
                os.rename(wal, Path(f"{aside}-wal"))
            Path(f"{self.path}-shm").unlink(missing_ok=True)
            _fsync_dir(self.path.parent)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot set the damaged journal aside: {exc}") from exc
        return aside

    def _seal(self) -> None:
        """Give the rows written before checksums existed their checksum (after a clean scan)."""
        rows = self._db.execute("SELECT n, line FROM journal WHERE crc IS NULL").fetchall()
        self._db.execute("BEGIN")
        self._db.executemany(
            "UPDATE journal SET crc = ? WHERE n = ?", ((row_crc(n, line), n) for n, line in rows)
        )
        self._db.execute("COMMIT")
        log.info("journal %s: %d rows from before checksums checked and sealed", self.path, len(rows))

    # -- writing ---------------------------------------------------------------------------------

    def append(self, inp: dict[str, Any]) -> None:
        """Write one input durably; returns only once the row is committed to disk."""
        line = json.dumps(inp, ensure_ascii=False, separators=(",", ":"))
        n = self._next_n
        try:
            self._db.execute(
                "INSERT INTO journal (n, line, crc) VALUES (?, ?, ?)", (n, line, row_crc(n, line))
            )
        except (sqlite3.Error, UnicodeEncodeError) as exc:
            raise JournalError(f"{self.path}: {exc}") from exc
        self._next_n = n + 1
        at = inp.get("at")
        if isinstance(at, int) and not isinstance(at, bool) and at > self._last_at:
            self._last_at = at

    def put_checkpoint(self, n: int, fmt: str, body: str) -> None:
        """Store the state after input ``n``; keeps only the newest :data:`KEEP_CHECKPOINTS`."""
        try:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT OR REPLACE INTO checkpoint (n, format, body, crc) VALUES (?, ?, ?, ?)",
                (n, fmt, body, checkpoint_crc(n, fmt, body)),
            )
            self._db.execute(
                "DELETE FROM checkpoint WHERE n NOT IN (SELECT n FROM checkpoint ORDER BY n DESC LIMIT ?)",
                (KEEP_CHECKPOINTS,),
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"{self.path}: {exc}") from exc

    # -- reading ---------------------------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        """The journal as JSON lines, oldest first (what ``bgtable replay`` reads)."""
        for (line,) in self._db.execute("SELECT line FROM journal ORDER BY n"):
            yield line

    def read_all(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]

    def count(self) -> int:
        """How many inputs the journal holds (the number of the last one)."""
        return self._next_n - 1

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


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and (code & 0xFF) in DAMAGE_CODES


def _has_table(db: sqlite3.Connection, table: str) -> bool:
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    return row is not None


def _has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))


def _is_object_line(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _unlink_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
