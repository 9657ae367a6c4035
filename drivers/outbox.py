"""The table's durable, ordered store of outgoing events (what the hub has not acknowledged yet).

API::

    box = Outbox(path)                  # creates the file if needed; ":memory:" for throwaway use
    rowid = box.put(evt)                # durable when it returns (fsync'd); rowids only grow
    box.pending(limit=100, after=0)     # [(rowid, evt)] not yet acknowledged, oldest first
    box.mark_sent(rowid)                # the broker acknowledged it (PUBACK)
    box.since(seq, match_id)            # [evt] of that match with seq >= seq, sent or not, in order
    box.last_seq(match_id) -> int|None  # the highest seq stored for that match
    box.pending_count() -> int
    box.prune(keep=10_000) -> int       # forget acknowledged events beyond the newest ``keep``
    box.close()

Why: a table works with no network, so an event is stored *before* anyone tries to send it, and
forgotten as "to send" only when the broker has acknowledged it. A power cut or a killed process
between the two re-sends it at the next start; the hub drops the duplicate by
``(table, match_id, seq)``. Acknowledged events are kept a while to answer a hub's resync request.

Storage: SQLite in WAL mode with ``synchronous=FULL``: each ``put`` is its own transaction,
synced to disk before it returns (``mark_sent`` alone is not synced: see there). ``AUTOINCREMENT``
so that the send order never reuses a number. One connection, shared by the threads that use it
behind a lock (the network thread marks events sent while the application thread adds new ones).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

from rulebook.messages import Event

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id TEXT,
    seq INTEGER,
    body TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (sent, id);
CREATE INDEX IF NOT EXISTS outbox_match ON outbox (match_id, seq);
"""


class Outbox:
    """Durable FIFO of event dicts, each with a sent flag (see module doc)."""

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def put(self, evt: Event) -> int:
        """Store ``evt`` durably and return its rowid (the send order)."""
        if not isinstance(evt, dict):
            raise TypeError(f"an event is a dict, not {type(evt).__name__}")
        body = json.dumps(evt, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        # checked still: whatever a caller hands in is stored, and only a sound number is indexed
        given: object = evt.get("seq")
        seq = given if isinstance(given, int) and not isinstance(given, bool) else None
        match_id = evt.get("match_id")
        match_id = None if match_id is None else str(match_id)
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO outbox (match_id, seq, body) VALUES (?, ?, ?)", (match_id, seq, body)
            )
            rowid = cur.lastrowid
        assert rowid is not None
        return rowid

    def pending(self, limit: int = 100, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
        """Events not yet acknowledged, oldest first, with rowid > ``after``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, body FROM outbox WHERE sent = 0 AND id > ? ORDER BY id LIMIT ?",
                (after, limit),
            ).fetchall()
        return [(rowid, json.loads(body)) for rowid, body in rows]

    def pending_count(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0").fetchone()
        return int(count)

    def mark_sent(self, rowid: int) -> None:
        """The broker acknowledged this event: never send it again (except on a resync).

        Not synced on its own: losing a mark in a power cut only means sending that event once
        more (the hub drops the duplicate), and the next ``put`` syncs it anyway (WAL order).
        """
        with self._lock:
            self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._db.execute("UPDATE outbox SET sent = 1 WHERE id = ?", (rowid,))
            finally:
                self._db.execute("PRAGMA synchronous=FULL")

    def since(self, seq: int, match_id: str | None) -> list[dict[str, Any]]:
        """Every stored event of ``match_id`` with ``seq`` >= ``seq``, in send order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM outbox WHERE match_id IS ? AND seq >= ? ORDER BY id",
                (None if match_id is None else str(match_id), seq),
            ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def last_seq(self, match_id: str | None) -> int | None:
        """The highest ``seq`` stored for ``match_id`` (None: none stored): what a restarted
        table compares with its journal to store the events a power cut kept from the outbox."""
        with self._lock:
            (seq,) = self._db.execute(
                "SELECT MAX(seq) FROM outbox WHERE match_id IS ?",
                (None if match_id is None else str(match_id),),
            ).fetchone()
        return None if seq is None else int(seq)

    def prune(self, keep: int = 10_000) -> int:
        """Delete acknowledged events older than the newest ``keep`` rows; returns how many."""
        with self._lock:
            row = self._db.execute("SELECT MAX(id) FROM outbox").fetchone()
            if row[0] is None:
                return 0
            cur = self._db.execute("DELETE FROM outbox WHERE sent = 1 AND id <= ?", (row[0] - keep,))
            return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Outbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
