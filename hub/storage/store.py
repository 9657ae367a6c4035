"""The hub's SQLite store: everything the hub knows survives a restart, and nothing repeats.

One file (WAL) holds the schedule, every table event (unique by table, match and seq, so a
duplicate delivery is dropped by the database itself), the latest state and status per table,
every command sent with its ``cmd_done`` answer, alerts and their acknowledgement, results and
their verification, and an audit log of the TD's actions. Commands are written *before* they are
published: a hub restarted mid-lateness sees which penalty ids already exist and never awards
one twice.

All calls come from the hub's event-loop thread. Writes are grouped: callers ``commit()`` after a
batch of messages (or at once for a TD action), which keeps ingest fast under a full room's load.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hub.errors import HubError
from hub.tournament.names import fold
from hub.tournament.players import Player, Registry, SeatRef
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Envelope, Snapshot, Status
from rulebook.vocab import CommandType

log = logging.getLogger("hub")
T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    match_id TEXT PRIMARY KEY, round TEXT NOT NULL, tbl TEXT NOT NULL,
    player_a TEXT NOT NULL, player_b TEXT NOT NULL, player_a_id TEXT NOT NULL DEFAULT '',
    player_b_id TEXT NOT NULL DEFAULT '', length INTEGER NOT NULL, start_wall INTEGER NOT NULL,
    clock INTEGER NOT NULL, profile TEXT NOT NULL, final INTEGER NOT NULL DEFAULT 0,
    line INTEGER NOT NULL DEFAULT 0, imported_wall INTEGER NOT NULL,
    UNIQUE (round, tbl));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, match_id TEXT NOT NULL, seq INTEGER NOT NULL,
    type TEXT NOT NULL, wall INTEGER, received_wall INTEGER NOT NULL, body TEXT NOT NULL,
    UNIQUE (tbl, match_id, seq));
CREATE INDEX IF NOT EXISTS events_by_table ON events (tbl, id);
CREATE INDEX IF NOT EXISTS events_by_match ON events (match_id, type);
CREATE TABLE IF NOT EXISTS table_state (
    tbl TEXT PRIMARY KEY, match_id TEXT, seq INTEGER, body TEXT NOT NULL, received_wall INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS table_status (
    tbl TEXT PRIMARY KEY, online INTEGER NOT NULL, body TEXT NOT NULL, since_wall INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY, tbl TEXT NOT NULL, match_id TEXT, type TEXT NOT NULL, body TEXT NOT NULL,
    origin TEXT NOT NULL, actor TEXT, created_wall INTEGER NOT NULL, sent_wall INTEGER,
    sent_count INTEGER NOT NULL DEFAULT 0, done_ok INTEGER, done_error TEXT, done_wall INTEGER);
CREATE INDEX IF NOT EXISTS commands_by_table ON commands (tbl, match_id);
CREATE TABLE IF NOT EXISTS alerts (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, urgency TEXT NOT NULL,
    tbl TEXT, match_id TEXT, message TEXT NOT NULL, raised_wall INTEGER NOT NULL,
    active INTEGER NOT NULL, acked_wall INTEGER, acked_by TEXT, resolved_wall INTEGER);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY, wall INTEGER NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
    tbl TEXT, match_id TEXT, detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    match_id TEXT PRIMARY KEY, tbl TEXT NOT NULL, round TEXT, player_a TEXT, player_b TEXT,
    length INTEGER, score_a INTEGER, score_b INTEGER, winner TEXT, end_reason TEXT,
    finished_wall INTEGER, body TEXT NOT NULL, verified_wall INTEGER, verified_by TEXT,
    corrected INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS table_flags (
    tbl TEXT PRIMARY KEY, automation_suspended INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS releases (match_id TEXT PRIMARY KEY, wall INTEGER NOT NULL, actor TEXT);
CREATE TABLE IF NOT EXISTS assigned (
    tbl TEXT PRIMARY KEY, match_id TEXT NOT NULL, wall INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS dice (
    tbl TEXT NOT NULL, tower TEXT NOT NULL, body TEXT NOT NULL, alerted_rolls INTEGER,
    alerts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tbl, tower));
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, password TEXT NOT NULL, created_wall INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    key TEXT PRIMARY KEY, fed_id TEXT NOT NULL DEFAULT '', name TEXT NOT NULL, folded TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL, side TEXT NOT NULL, player TEXT NOT NULL, name TEXT NOT NULL,
    fed_id TEXT NOT NULL DEFAULT '', choice TEXT NOT NULL DEFAULT '', PRIMARY KEY (match_id, side));
CREATE TABLE IF NOT EXISTS draw_calls (
    match_id TEXT PRIMARY KEY, draw_match TEXT NOT NULL, tbl TEXT NOT NULL,
    player_a TEXT NOT NULL, player_b TEXT NOT NULL, called_wall INTEGER NOT NULL,
    start_wall INTEGER NOT NULL, void_wall INTEGER);
CREATE TABLE IF NOT EXISTS draw_withdrawals (player TEXT PRIMARY KEY, wall INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS draw_holds (kind TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (kind, name));
CREATE TABLE IF NOT EXISTS quarantine (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, tbl TEXT, body TEXT, reason TEXT NOT NULL,
    wall INTEGER NOT NULL);
"""

#: epoch ms, computed by SQLite (the store has no clock of its own)
_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"

URGENCIES = frozenset({"critical", "high", "medium", "low"})


def _as_stored(body: Any) -> Any:
    """A stored body as it was written (the hub parses it with the wire schema at start)."""
    return body


class StoreWriteFailed(HubError):
    """A commit failed (a full disk, an I/O error): everything since the last commit was rolled
    back. The store stays usable; :attr:`Store.failure` says what went wrong until a write works."""


#: what one listing of stored rows (events, commands, audit, alerts) may add up to: a reader asking
#: for thousands of rows gets fewer if they are big, never hundreds of megabytes
LISTING_BYTES = 2 * 1024 * 1024
#: a match's transcript reads more (every event of the match)
TRANSCRIPT_BYTES = 8 * 1024 * 1024


class Listing(list[dict[str, Any]]):
    """Rows of a listing; ``truncated`` when the byte budget stopped it before ``limit``."""

    truncated = False


def _listing(
    rows: Iterable[sqlite3.Row], column: str, budget: int, make: Callable[[sqlite3.Row], Any]
) -> Listing:
    """The rows until their ``column`` texts add up to ``budget`` (counted in characters, cheaply:
    stored bodies are mostly ASCII), each made by ``make`` (None: left out)."""
    out = Listing()
    used = 0
    for row in rows:
        used += len(row[column] or "")
        if used > budget:
            out.truncated = True
            break
        item = make(row)
        if item is not None:
            out.append(item)
    return out


def is_storage_error(exc: BaseException) -> bool:
    """A failure of the database itself (full disk, I/O error, damage), as opposed to a bad value
    (a constraint, a wrong binding): no table is to blame, and every write fails alike."""
    if isinstance(exc, StoreWriteFailed):
        return True
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A stored row that could not be read, moved to the ``quarantine`` table."""

    source: str
    table: str | None
    reason: str


_SCHEDULE_COLS = (
    "match_id, round, tbl, player_a, player_b, player_a_id, player_b_id, length, start_wall, "
    "clock, profile, final, line"
)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Undecodable(str):
    """Stored text that is not UTF-8 (bytes flipped on the disk pass SQLite's ``quick_check``):
    read with replacement characters instead of failing the whole query, and set aside by the
    loaders that read rows at start (:func:`damaged`)."""


def _text(raw: bytes) -> str:
    """The connection's text factory: SQLite's own raises for the whole query on one bad value."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


def damaged(row: sqlite3.Row | dict[str, Any]) -> str | None:
    """Why a stored row cannot be trusted as read (a text column that is not UTF-8), or None."""
    items = row.items() if isinstance(row, dict) else zip(row.keys(), tuple(row), strict=True)
    for column, value in items:
        if isinstance(value, Undecodable):
            return f"{column}: not UTF-8 text (damaged on disk)"
    return None


class Store:
    """The hub's database (one file; ``":memory:"`` works for throwaway use)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.text_factory = _text
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        self._migrate_accounts()
        self.db.commit()
        #: rows set aside while reading (each becomes an alert once the hub runs)
        self.quarantined: list[Quarantined] = []
        #: why the last commit failed, while no write has worked since (None: writes work)
        self.failure: str | None = None
        #: called with the error after a failed commit (rolled back), and with None once a
        #: write works again; on the hub's loop
        self.listeners: list[Callable[[str | None], None]] = []

    def close(self) -> None:
        try:
            self.db.commit()
        except sqlite3.Error:
            log.exception("the last writes could not be committed at close")
        self.db.close()

    def commit(self) -> None:
        """Commit; on failure roll back, tell the listeners and raise :class:`StoreWriteFailed`.

        A failed commit of SQLite leaves a transaction half-done; rolling it back returns the
        database to the last good commit, which the callers' memory then has to match (ingest
        forgets the events of the batch and asks the tables for them again). A commit that works
        while :attr:`failure` is set does not clear it: on a nearly full disk small writes may
        pass and the next larger one fail; only :meth:`probe` says writes work again."""
        try:
            self.db.commit()
        except sqlite3.Error as exc:
            self._write_failed(exc)
            raise StoreWriteFailed(str(exc)) from exc

    def probe(self, wall: int) -> bool:
        """Whether a write works now (one small row), telling the listeners if it does: the hub
        calls it once the disk has room again (:class:`hub.live.storage_health.StorageHealth`)."""
        try:
            self.set_meta("probe_wall", str(wall))
            self.commit()
        except (StoreWriteFailed, sqlite3.Error):
            return False
        if self.failure is not None:
            self._write_worked()
        return True

    def write_failed(self, exc: BaseException) -> None:
        """A statement (not only a commit) failed for lack of space or an I/O error: SQLite may
        have rolled the whole transaction back, so the callers treat it as a failed commit."""
        if isinstance(exc, StoreWriteFailed):
            return  # commit() already rolled back and told the listeners
        self._write_failed(exc)

    def _write_failed(self, exc: BaseException) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.rollback()
        first = self.failure is None
        self.failure = str(exc) or type(exc).__name__
        if first:
            log.error(
                "the database %s cannot be written (%s): changes since the last commit rolled back",
                self.path,
                self.failure,
            )
        for listener in list(self.listeners):
            listener(self.failure)

    def _write_worked(self) -> None:
        log.warning("the database %s can be written again", self.path)
        self.failure = None
        for listener in list(self.listeners):
            listener(None)

    # -- meta ---------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- schedule -----------------------------------------------------------------------------

    def import_schedule(
        self, matches: list[ScheduledMatch], wall: int, registry: Registry | None = None
    ) -> tuple[int, int]:
        """Add or replace matches (by match id; a new match at a (round, table) replaces the old),
        and the player registry they were resolved against (:mod:`hub.tournament.players`), if given.

        All in one transaction: either every row is in, or (on any error) none. Returns
        (added, updated).
        """
        added = updated = 0
        try:
            if registry is not None:
                self._put_registry(registry)
            for m in matches:
                self.db.execute(
                    "DELETE FROM schedule WHERE round = ? AND tbl = ? AND match_id != ?",
                    (m.round, m.table, m.match_id),
                )
                exists = self.db.execute(
                    "SELECT 1 FROM schedule WHERE match_id = ?", (m.match_id,)
                ).fetchone()
                self.db.execute(
                    f"INSERT OR REPLACE INTO schedule ({_SCHEDULE_COLS}, imported_wall) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        m.match_id,
                        m.round,
                        m.table,
                        m.player_a,
                        m.player_b,
                        m.player_a_id,
                        m.player_b_id,
                        m.length,
                        m.start_wall,
                        int(m.clock),
                        m.profile,
                        int(m.final),
                        m.line,
                        wall,
                    ),
                )
                if exists:
                    updated += 1
                else:
                    added += 1
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise
        return added, updated

    def _put_registry(self, registry: Registry) -> None:
        self.db.execute("DELETE FROM players")
        self.db.execute("DELETE FROM seats")
        self.db.executemany(
            "INSERT INTO players (key, fed_id, name, folded) VALUES (?, ?, ?, ?)",
            [(p.key, p.fed_id, p.name, p.folded) for p in registry.players.values()],
        )
        self.db.executemany(
            "INSERT INTO seats (match_id, side, player, name, fed_id, choice) VALUES (?, ?, ?, ?, ?, ?)",
            [(mid, side, s.player, s.name, s.fed_id, s.choice) for (mid, side), s in registry.seats.items()],
        )

    def save_registry(self, registry: Registry) -> None:
        """Replace the stored registry (committed by the caller)."""
        self._put_registry(registry)

    def registry(self) -> Registry:
        """The player registry; a player's folded name is worked out again (the fold may have
        improved since it was stored); a row that cannot be read is left out (its seats are
        resolved again by the rules, :meth:`hub.tournament.players.Registry.covering`)."""
        players = []
        for r in self.db.execute("SELECT key, fed_id, name FROM players"):
            if all(isinstance(r[c], str) for c in ("key", "fed_id", "name")):
                players.append(Player(r["key"], r["fed_id"], r["name"], fold(r["name"])))
        known = {p.key for p in players}
        seats = {}
        for r in self.db.execute("SELECT match_id, side, player, name, fed_id, choice FROM seats"):
            values = [r[c] for c in ("match_id", "side", "player", "name", "fed_id", "choice")]
            if all(isinstance(v, str) for v in values) and r["player"] in known:
                seats[(r["match_id"], r["side"])] = SeatRef(r["player"], r["name"], r["fed_id"], r["choice"])
        return Registry(players, seats)

    def schedule(self) -> list[ScheduledMatch]:
        """The stored schedule; a row with a value of the wrong type is set aside."""
        rows = self.db.execute(
            f"SELECT rowid, {_SCHEDULE_COLS} FROM schedule ORDER BY start_wall, round, tbl"
        ).fetchall()
        out = []
        for r in rows:
            try:
                _refuse_damaged(r)
                out.append(_schedule_row(r))
            except (TypeError, ValueError) as exc:
                self._quarantine("schedule", "rowid", r["rowid"], r["tbl"], dict(r), str(exc))
        return out

    # -- table traffic ------------------------------------------------------------------------

    def add_event(self, table: str, event: Envelope, received_wall: int, body: str | None = None) -> bool:
        """Record an event (``body``: its JSON, when the caller has it already); False when
        (table, match_id, seq) was already recorded (a duplicate)."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO events (tbl, match_id, seq, type, wall, received_wall, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                table,
                event["match_id"],
                event["seq"],
                event["type"],
                event.get("wall") if isinstance(event.get("wall"), int) else None,
                received_wall,
                body if body is not None else _dumps(event),
            ),
        )
        return cur.rowcount == 1

    def seat_times(self, match_id: str, side: str) -> tuple[int | None, int | None]:
        """When the hub first heard that ``side``'s player was at the match (their check-in, or
        the opening roll), and when it heard the match was over (hub times; None: not so far)."""
        row = self.db.execute(
            "SELECT MIN(CASE WHEN type = 'opening_roll' OR (type = 'checkin' AND "
            "json_extract(body, '$.side') = ?) THEN received_wall END), "
            "MIN(CASE WHEN type = 'match_over' THEN received_wall END) "
            "FROM events WHERE match_id = ? AND type IN ('checkin', 'opening_roll', 'match_over')",
            (side, match_id),
        ).fetchone()
        arrived, over = row[0], row[1]
        released = self.db.execute("SELECT wall FROM releases WHERE match_id = ?", (match_id,)).fetchone()
        ends = [w for w in (over, released[0] if released else None) if type(w) is int]
        return (arrived if type(arrived) is int else None), (min(ends) if ends else None)

    def count_events(self, table: str, match_id: str) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM events WHERE tbl = ? AND match_id = ?", (table, match_id)
        ).fetchone()
        return int(row[0])

    def events(
        self, table: str, match_id: str | None = None, limit: int = 200, budget: int = LISTING_BYTES
    ) -> Listing:
        """The latest ``limit`` events of a table (optionally of one match), oldest first; fewer
        (``truncated``) if they add up to more than ``budget`` bytes.

        Oldest first means in the order the table made them: by ``seq`` within a match, and the
        matches in the order the hub first heard of them. Not in the order the hub stored them:
        what a crashed broker had acknowledged to a table but not passed on reaches the hub when
        it asks for it, after what the table made later (docs/protocol.md §3.3). Without
        ``match_id`` the listing is the ``limit`` events the hub received last, so ordered."""
        if match_id is None:
            latest = self.db.execute(
                "SELECT id, match_id, seq, body, received_wall FROM events WHERE tbl = ? "
                "ORDER BY id DESC LIMIT ?",
                (table, limit),
            ).fetchall()
            first: dict[str, int] = {}
            for r in latest:  # newest first: the last one seen of a match is its first
                first[r["match_id"]] = r["id"]
            latest.sort(key=lambda r: (first[r["match_id"]], r["seq"]), reverse=True)
            rows: Iterable[sqlite3.Row] = latest
        else:
            rows = self.db.execute(
                "SELECT body, received_wall FROM events WHERE tbl = ? AND match_id = ? "
                "ORDER BY seq DESC LIMIT ?",
                (table, match_id, limit),
            )

        def event(r: sqlite3.Row) -> dict[str, Any]:
            evt = _loads_object(r["body"]) or {"type": "damaged", "damaged": True}
            evt["received_wall"] = r["received_wall"]
            return evt

        out = _listing(rows, "body", budget, event)
        out.reverse()
        return out

    def match_events(self, match_id: str, limit: int, budget: int = TRANSCRIPT_BYTES) -> Listing:
        """The first ``limit`` events of one match, wherever it was played, in ``seq`` order
        (fewer, ``truncated``, past ``budget`` bytes)."""
        rows = self.db.execute(
            "SELECT body FROM events WHERE match_id = ? ORDER BY seq LIMIT ?", (match_id, limit)
        )
        return _listing(rows, "body", budget, lambda r: _loads_object(r["body"]))

    def dice_tallies(self, check: Callable[[str], T]) -> list[tuple[str, str, T, int | None, int]]:
        """Every tower's stored tally: (table, tower, the tally JSON as ``check`` returns it,
        rolls at the last alert, alerts); a row it refuses (or damaged) is set aside."""
        rows = self.db.execute("SELECT rowid, tbl, tower, body, alerted_rolls, alerts FROM dice").fetchall()
        out = []
        for r in rows:
            try:
                _refuse_damaged(r)
                if not (r["alerted_rolls"] is None or type(r["alerted_rolls"]) is int):
                    raise ValueError("alerted_rolls: not a number")
                if type(r["alerts"]) is not int:
                    raise ValueError("alerts: not a number")
                out.append((r["tbl"], r["tower"], check(r["body"]), r["alerted_rolls"], r["alerts"]))
            except (TypeError, ValueError, KeyError) as exc:
                self._quarantine("dice", "rowid", r["rowid"], r["tbl"], dict(r), str(exc))
        return out

    def put_dice_tally(
        self, table: str, tower: str, body: str, alerted_rolls: int | None, alerts: int
    ) -> None:
        self.db.execute(
            "INSERT INTO dice (tbl, tower, body, alerted_rolls, alerts) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (tbl, tower) DO UPDATE SET body = excluded.body, "
            "alerted_rolls = excluded.alerted_rolls, alerts = excluded.alerts",
            (table, tower, body, alerted_rolls, alerts),
        )

    def archive_events(self, table: str, match_id: str, archived_id: str) -> int:
        """File a match's events under another id (a table that lost its journal numbers that
        match's events from 1 again: the old ones stay, the new ones are not duplicates)."""
        cur = self.db.execute(
            "UPDATE events SET match_id = ? WHERE tbl = ? AND match_id = ?", (archived_id, table, match_id)
        )
        return cur.rowcount

    def seq_knowledge(self, table: str, match_id: str) -> tuple[int, tuple[int, ...]]:
        """What is stored of a match's events, as the sequence tracker restores it: every seq up
        to the first is stored, and the second are the seqs stored above a hole. A batch that was
        rolled back leaves holes below the highest stored event: they must stay asked for, not
        taken for received."""
        count, top = self.db.execute(
            "SELECT COUNT(*), MAX(seq) FROM events WHERE tbl = ? AND match_id = ?", (table, match_id)
        ).fetchone()
        if not top or count == top:
            return top or 0, ()
        seqs = [
            r[0]
            for r in self.db.execute(
                "SELECT seq FROM events WHERE tbl = ? AND match_id = ? ORDER BY seq", (table, match_id)
            )
        ]
        upto = 0
        for seq in seqs:
            if seq != upto + 1:
                break
            upto = seq
        return upto, tuple(q for q in seqs if q > upto)

    def max_seq(self, table: str, match_id: str) -> int:
        row = self.db.execute(
            "SELECT MAX(seq) FROM events WHERE tbl = ? AND match_id = ?", (table, match_id)
        ).fetchone()
        return row[0] or 0

    def put_state(self, table: str, state: Snapshot, received_wall: int) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO table_state (tbl, match_id, seq, body, received_wall) "
            "VALUES (?, ?, ?, ?, ?)",
            (table, state.get("match_id"), state.get("seq"), _dumps(state), received_wall),
        )

    def states(self, check: Callable[[Any], Snapshot] = _as_stored) -> dict[str, tuple[Snapshot, int]]:
        """Each table's last state, as ``check`` returns it; a row it refuses is set aside."""
        out = {}
        for r in self.db.execute("SELECT rowid, tbl, body, received_wall FROM table_state").fetchall():
            try:
                _refuse_damaged(r)
                if type(r["received_wall"]) is not int:
                    raise ValueError("received_wall: not a number")
                out[r["tbl"]] = (check(json.loads(r["body"])), r["received_wall"])
            except (TypeError, ValueError) as exc:  # WireError and JSONDecodeError are ValueErrors
                self._quarantine("table_state", "rowid", r["rowid"], r["tbl"], r["body"], str(exc))
        return out

    def put_status(self, table: str, status: Status, online: bool, since_wall: int) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO table_status (tbl, online, body, since_wall) VALUES (?, ?, ?, ?)",
            (table, int(online), _dumps(status), since_wall),
        )

    def statuses(self, check: Callable[[Any], Status] = _as_stored) -> dict[str, tuple[Status, bool, int]]:
        """Each table's last status (as ``check`` returns it); a row it refuses is set aside."""
        out = {}
        rows = self.db.execute("SELECT rowid, tbl, online, body, since_wall FROM table_status").fetchall()
        for r in rows:
            try:
                _refuse_damaged(r)
                if type(r["since_wall"]) is not int or r["online"] not in (0, 1):
                    raise ValueError("online / since_wall: not a number")
                out[r["tbl"]] = (check(json.loads(r["body"])), bool(r["online"]), r["since_wall"])
            except (TypeError, ValueError) as exc:
                self._quarantine("table_status", "rowid", r["rowid"], r["tbl"], r["body"], str(exc))
        return out

    # -- commands -----------------------------------------------------------------------------

    def add_command(
        self, cmd: dict[str, Any], table: str, match_id: str | None, origin: str, actor: str, wall: int
    ) -> bool:
        """Record a command before it is sent; False if its id exists (it is never sent anew)."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO commands (id, tbl, match_id, type, body, origin, actor, created_wall) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (cmd["id"], table, match_id, cmd["type"], _dumps(cmd), origin, actor, wall),
        )
        return cur.rowcount == 1

    def mark_sent(self, cmd_id: str, wall: int, body: dict[str, Any] | None = None) -> None:
        if body is None:
            self.db.execute(
                "UPDATE commands SET sent_wall = ?, sent_count = sent_count + 1 WHERE id = ?",
                (wall, cmd_id),
            )
        else:
            self.db.execute(
                "UPDATE commands SET sent_wall = ?, sent_count = sent_count + 1, body = ? WHERE id = ?",
                (wall, _dumps(body), cmd_id),
            )

    def command_done(self, cmd_id: str, ok: bool, error: str | None, wall: int) -> bool:
        """Record a table's ``cmd_done``; False for an id this hub never sent."""
        cur = self.db.execute(
            "UPDATE commands SET done_ok = ?, done_error = ?, done_wall = ? WHERE id = ?",
            (int(ok), error, wall, cmd_id),
        )
        return cur.rowcount == 1

    def command_ids(self, table: str, match_id: str) -> dict[str, dict[str, Any]]:
        """Every command already recorded for a match: id -> {created_wall, sent_wall, done_ok,
        done_error}."""
        rows = self.db.execute(
            "SELECT id, created_wall, sent_wall, done_ok, done_error FROM commands "
            "WHERE tbl = ? AND match_id = ?",
            (table, match_id),
        )
        return {
            r["id"]: {
                "created_wall": r["created_wall"],
                "sent_wall": r["sent_wall"],
                "done_ok": r["done_ok"],
                "done_error": r["done_error"],
            }
            for r in rows
        }

    def command(self, cmd_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM commands WHERE id = ?", (cmd_id,)).fetchone()
        return _command_row(row) if row else None

    def commands(self, table: str | None = None, limit: int = 500) -> Listing:
        """Commands sent, newest first (a row whose body cannot be read is left out)."""
        if table is None:
            rows = self.db.execute(
                "SELECT * FROM commands ORDER BY created_wall DESC, rowid DESC LIMIT ?", (limit,)
            )
        else:
            # commands recorded at the same moment (a point and the forfeit it leads to) keep the
            # order they were recorded in: a table must apply them in that order
            rows = self.db.execute(
                "SELECT * FROM commands WHERE tbl = ? ORDER BY created_wall DESC, rowid DESC LIMIT ?",
                (table, limit),
            )
        return _listing(rows, "body", LISTING_BYTES, _readable_command)

    # -- alerts -------------------------------------------------------------------------------

    def alerts(self, active_only: bool = True, limit: int = 500) -> list[dict[str, Any]]:
        """Alerts, newest first; an active row that cannot be used is set aside."""
        where = "WHERE active = 1" if active_only else ""
        rows = self.db.execute(f"SELECT * FROM alerts {where} ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        out = []
        for r in rows:
            reason = _alert_problem(r)
            if reason is None:
                out.append(dict(r))
            elif active_only:
                self._quarantine("alerts", "id", r["id"], r["tbl"], dict(r), reason)
        return out

    def alert(self, alert_id: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM alerts WHERE id = ?", (alert_id,)).fetchone()
        return dict(row) if row else None

    def raise_alert(
        self,
        key: str,
        kind: str,
        urgency: str,
        table: str | None,
        match_id: str | None,
        message: str,
        wall: int,
    ) -> dict[str, Any]:
        """Open an alert, or reopen a resolved one with the same key (as unacknowledged)."""
        row = self.db.execute("SELECT * FROM alerts WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.db.execute(
                "INSERT INTO alerts (key, kind, urgency, tbl, match_id, message, raised_wall, active) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
                (key, kind, urgency, table, match_id, message, wall),
            )
        else:
            self.db.execute(
                "UPDATE alerts SET urgency = ?, message = ?, raised_wall = ?, active = 1, "
                "acked_wall = NULL, acked_by = NULL, resolved_wall = NULL WHERE key = ?",
                (urgency, message, wall, key),
            )
        return dict(self.db.execute("SELECT * FROM alerts WHERE key = ?", (key,)).fetchone())

    def update_alert(self, key: str, urgency: str, message: str, reopen_ack: bool) -> None:
        if reopen_ack:
            self.db.execute(
                "UPDATE alerts SET urgency = ?, message = ?, acked_wall = NULL, acked_by = NULL "
                "WHERE key = ?",
                (urgency, message, key),
            )
        else:
            self.db.execute(
                "UPDATE alerts SET urgency = ?, message = ? WHERE key = ?", (urgency, message, key)
            )

    def resolve_alert(self, key: str, wall: int) -> None:
        self.db.execute("UPDATE alerts SET active = 0, resolved_wall = ? WHERE key = ?", (wall, key))

    def ack_alert(self, alert_id: int, actor: str, wall: int) -> bool:
        cur = self.db.execute(
            "UPDATE alerts SET acked_wall = ?, acked_by = ? WHERE id = ? AND acked_wall IS NULL",
            (wall, actor, alert_id),
        )
        return cur.rowcount == 1

    # -- audit --------------------------------------------------------------------------------

    def audit(
        self,
        actor: str,
        action: str,
        wall: int,
        table: str | None = None,
        match_id: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.db.execute(
            "INSERT INTO audit (wall, actor, action, tbl, match_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (wall, actor, action, table, match_id, _dumps(detail or {})),
        )

    def audit_log(self, table: str | None = None, limit: int = 500) -> Listing:
        if table is None:
            rows = self.db.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self.db.execute(
                "SELECT * FROM audit WHERE tbl = ? ORDER BY id DESC LIMIT ?", (table, limit)
            )

        def entry(r: sqlite3.Row) -> dict[str, Any]:
            d = dict(r)
            d["detail"] = _loads_object(d["detail"]) or {}
            d["table"] = d.pop("tbl")
            return d

        return _listing(rows, "detail", LISTING_BYTES, entry)

    # -- accounts (hub/web/accounts.py) -----------------------------------------------------------

    def _migrate_accounts(self) -> None:
        """Accounts made before sessions were tied to an account's id and password generation
        get both (a session then lasts only while both are what they were at its login)."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(accounts)")}
        if "account_id" not in columns:
            self.db.execute("ALTER TABLE accounts ADD COLUMN account_id INTEGER")
        if "generation" not in columns:
            self.db.execute("ALTER TABLE accounts ADD COLUMN generation INTEGER NOT NULL DEFAULT 1")
        for (name,) in self.db.execute("SELECT name FROM accounts WHERE account_id IS NULL").fetchall():
            number = self._next_account_id()
            self.db.execute("UPDATE accounts SET account_id = ? WHERE name = ?", (number, name))

    def _next_account_id(self) -> int:
        """A number never given before, not even to an account since removed (a name removed and
        added again is another account: the old one's sessions do not carry over)."""
        last = self.get_meta("account_seq")
        row = self.db.execute("SELECT MAX(account_id) FROM accounts").fetchone()
        number = max(int(last) if last and last.isdigit() else 0, row[0] if type(row[0]) is int else 0) + 1
        self.set_meta("account_seq", str(number))
        return number

    def add_account(self, name: str, role: str, password_hash: str, wall: int) -> bool:
        """A new account; False (nothing written) if the name is taken."""
        if self.db.execute("SELECT 1 FROM accounts WHERE name = ?", (name,)).fetchone():
            return False
        self.db.execute(
            "INSERT INTO accounts (name, role, password, created_wall, account_id, generation) "
            "VALUES (?, ?, ?, ?, ?, 1)",
            (name, role, password_hash, wall, self._next_account_id()),
        )
        return True

    def remove_account(self, name: str) -> bool:
        return self.db.execute("DELETE FROM accounts WHERE name = ?", (name,)).rowcount == 1

    def set_password(self, name: str, password_hash: str) -> bool:
        """A new password: the account's password generation moves on (its sessions end)."""
        cur = self.db.execute(
            "UPDATE accounts SET password = ?, generation = generation + 1 WHERE name = ?",
            (password_hash, name),
        )
        return cur.rowcount == 1

    def account(self, name: str) -> tuple[str, str, int, int] | None:
        """``(role, password hash, account id, password generation)`` of an account, or None."""
        row = self.db.execute(
            "SELECT role, password, account_id, generation FROM accounts WHERE name = ?", (name,)
        ).fetchone()
        if row is None or type(row["account_id"]) is not int or type(row["generation"]) is not int:
            return None
        return (str(row["role"]), str(row["password"]), row["account_id"], row["generation"])

    def data_version(self) -> int:
        """SQLite's ``data_version``: it changes when another connection (``bghub user`` in another
        process) commits to the database, so the hub can look at accounts again only then."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def accounts(self) -> list[dict[str, Any]]:
        """Every account (never its password hash), by name."""
        rows = self.db.execute("SELECT name, role, created_wall FROM accounts ORDER BY name")
        return [dict(r) for r in rows]

    # -- results ------------------------------------------------------------------------------

    def result(self, match_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM results WHERE match_id = ?", (match_id,)).fetchone()
        return _result_row(row) if row else None

    def results(self) -> list[dict[str, Any]]:
        """Every result; a row that cannot be read is set aside."""
        out = []
        for r in self.db.execute("SELECT rowid, * FROM results ORDER BY round, tbl").fetchall():
            try:
                out.append(_result_row(r))
            except (TypeError, ValueError, KeyError) as exc:
                self._quarantine("results", "rowid", r["rowid"], r["tbl"], dict(r), str(exc))
        return out

    def put_result(self, r: dict[str, Any], *, keep_verified: bool = False) -> None:
        """Insert or refresh a result reported by a table. A result the TD corrected at the hub
        is kept as corrected; a changed result needs verifying again (``keep_verified``: the
        result is the same, only what the hub knows of it, such as its finish time, improved)."""
        reset = "" if keep_verified else ", verified_wall = NULL, verified_by = NULL"
        self.db.execute(
            "INSERT INTO results (match_id, tbl, round, player_a, player_b, length, score_a, score_b, "
            "winner, end_reason, finished_wall, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (match_id) DO UPDATE SET score_a = excluded.score_a, "
            "score_b = excluded.score_b, winner = excluded.winner, end_reason = excluded.end_reason, "
            "length = excluded.length, body = excluded.body, finished_wall = excluded.finished_wall"
            f"{reset} WHERE results.corrected = 0",
            (
                r["match_id"],
                r["table"],
                r["round"],
                r["player_a"],
                r["player_b"],
                r["length"],
                r["score"]["A"],
                r["score"]["B"],
                r["winner"],
                r["end_reason"],
                r["finished_wall"],
                _dumps({k: r[k] for k in RESULT_BODY if k in r}),
            ),
        )

    def delete_result(self, match_id: str) -> None:
        self.db.execute("DELETE FROM results WHERE match_id = ? AND corrected = 0", (match_id,))

    def verify_result(self, match_id: str, actor: str, wall: int) -> bool:
        cur = self.db.execute(
            "UPDATE results SET verified_wall = ?, verified_by = ? WHERE match_id = ?",
            (wall, actor, match_id),
        )
        return cur.rowcount == 1

    def correct_result(
        self, match_id: str, score: dict[str, int], winner: str | None, note: str, actor: str, wall: int
    ) -> bool:
        """The TD's correction at the hub: the score and winner change, how the match ended
        (``end_reason``) stays, and the correction is listed with who, when and why; the result
        counts as verified by that TD, and the table's later reports no longer change it."""
        row = self.db.execute(
            "SELECT score_a, score_b, body FROM results WHERE match_id = ?", (match_id,)
        ).fetchone()
        if row is None:
            return False
        body = json.loads(row["body"])
        body["decision"] = CommandType.CORRECT_SCORE.value
        body["corrections"] = [
            *(body.get("corrections") or []),
            {
                "where": "hub",
                "by": actor,
                "wall": wall,
                "before": f"{row['score_a']}-{row['score_b']}",
                "after": f"{score['A']}-{score['B']}",
                "note": note,
            },
        ]
        cur = self.db.execute(
            "UPDATE results SET score_a = ?, score_b = ?, winner = ?, corrected = 1, note = ?, "
            "verified_wall = ?, verified_by = ?, body = ? WHERE match_id = ?",
            (score["A"], score["B"], winner, note, wall, actor, _dumps(body), match_id),
        )
        return cur.rowcount == 1

    # -- per-table TD settings ----------------------------------------------------------------

    def set_automation(self, table: str, suspended: bool) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO table_flags (tbl, automation_suspended) VALUES (?, ?)",
            (table, int(suspended)),
        )

    def suspended_tables(self) -> set[str]:
        rows = self.db.execute("SELECT rowid, tbl FROM table_flags WHERE automation_suspended = 1")
        return {r["tbl"] for r in self._readable("table_flags", rows.fetchall(), "tbl")}

    def release(self, match_id: str, actor: str, wall: int) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO releases (match_id, wall, actor) VALUES (?, ?, ?)", (match_id, wall, actor)
        )

    def releases(self) -> set[str]:
        rows = self.db.execute("SELECT rowid, match_id FROM releases").fetchall()
        return {r["match_id"] for r in self._readable("releases", rows, "match_id")}

    def set_assigned(self, table: str, match_id: str, wall: int) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO assigned (tbl, match_id, wall) VALUES (?, ?, ?)", (table, match_id, wall)
        )

    def clear_assigned(self, table: str) -> None:
        self.db.execute("DELETE FROM assigned WHERE tbl = ?", (table,))

    def assigned(self) -> dict[str, str]:
        rows = self.db.execute("SELECT rowid, tbl, match_id FROM assigned").fetchall()
        return {r["tbl"]: r["match_id"] for r in self._readable("assigned", rows, "tbl", "match_id")}

    # -- the draw (docs/draw.md, "The draw in the hub"); its setup is the meta row ``draw_setup`` --

    def put_draw_call(
        self, match_id: str, draw_match: str, table: str, players: tuple[str, str], called: int, start: int
    ) -> None:
        """A call of the draw's match ``draw_match`` between ``players`` (registry keys, seats A
        and B), played as the scheduled match ``match_id``."""
        self.db.execute(
            "INSERT INTO draw_calls (match_id, draw_match, tbl, player_a, player_b, called_wall, start_wall) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (match_id, draw_match, table, *players, called, start),
        )

    def void_draw_call(self, match_id: str, wall: int) -> None:
        """The call no longer stands (an undo, a withdrawal): kept, so its id is never used again."""
        self.db.execute(
            "UPDATE draw_calls SET void_wall = ? WHERE match_id = ? AND void_wall IS NULL", (wall, match_id)
        )

    def draw_calls(self) -> list[dict[str, Any]]:
        """Every call, in the order they were made; a row that cannot be read is set aside."""
        rows = self.db.execute("SELECT rowid, * FROM draw_calls ORDER BY called_wall, rowid").fetchall()
        out = []
        for r in self._readable("draw_calls", rows, "match_id", "draw_match", "tbl", "player_a", "player_b"):
            if type(r["called_wall"]) is int and type(r["start_wall"]) is int:
                d = dict(r)
                d.pop("rowid")
                d["table"] = d.pop("tbl")
                out.append(d)
            else:
                self._quarantine("draw_calls", "rowid", r["rowid"], r["tbl"], dict(r), "times: not numbers")
        return out

    def set_draw_withdrawal(self, player: str, wall: int | None) -> None:
        """``player`` withdrew at ``wall`` (None: the withdrawal taken back)."""
        if wall is None:
            self.db.execute("DELETE FROM draw_withdrawals WHERE player = ?", (player,))
        else:
            self.db.execute(
                "INSERT OR REPLACE INTO draw_withdrawals (player, wall) VALUES (?, ?)", (player, wall)
            )

    def draw_withdrawals(self) -> dict[str, int]:
        rows = self.db.execute("SELECT rowid, player, wall FROM draw_withdrawals").fetchall()
        return {
            r["player"]: r["wall"]
            for r in self._readable("draw_withdrawals", rows, "player")
            if type(r["wall"]) is int
        }

    def set_draw_hold(self, kind: str, name: str, held: bool) -> None:
        """The TD holds (or resumes) a flight (``kind`` ``flight``) or one match (``match``)."""
        if held:
            self.db.execute("INSERT OR IGNORE INTO draw_holds (kind, name) VALUES (?, ?)", (kind, name))
        else:
            self.db.execute("DELETE FROM draw_holds WHERE kind = ? AND name = ?", (kind, name))

    def draw_holds(self) -> set[tuple[str, str]]:
        rows = self.db.execute("SELECT rowid, kind, name FROM draw_holds").fetchall()
        return {(r["kind"], r["name"]) for r in self._readable("draw_holds", rows, "kind", "name")}

    def _readable(self, source: str, rows: list[sqlite3.Row], *texts: str) -> list[sqlite3.Row]:
        """The rows whose ``texts`` columns are sound text; the others are set aside."""
        out = []
        for r in rows:
            wrong = [c for c in texts if not isinstance(r[c], str)]
            problem = damaged(r) or (f"{wrong[0]}: not a text" if wrong else None)
            if problem is None:
                out.append(r)
            else:
                row = dict(r)
                self._quarantine(source, "rowid", r["rowid"], row.get("tbl"), row, problem)
        return out

    # -- rows that cannot be read -------------------------------------------------------------

    def _quarantine(self, source: str, key_col: str, key: Any, table: Any, body: Any, reason: str) -> None:
        """Move an unreadable row aside (kept for inspection) so that start-up goes on without it."""
        table = table if isinstance(table, str) else None
        self.quarantined.append(Quarantined(source, table, reason[:200]))
        log.error("%s row %s (table %s) set aside: %s", source, key, table, reason)
        text = body if isinstance(body, str) else _dumps(_printable(body))
        try:
            self.db.execute(
                f"INSERT INTO quarantine (source, tbl, body, reason, wall) VALUES (?, ?, ?, ?, {_NOW_MS})",
                (source, table, text, reason),
            )
            self.db.execute(f"DELETE FROM {source} WHERE {key_col} = ?", (key,))
            self.db.commit()
        except sqlite3.Error:
            log.exception("could not set the %s row aside; it is skipped for this run", source)
            self.db.rollback()

    def quarantine(self, source: str, key_col: str, key: Any, table: Any, body: Any, reason: str) -> None:
        """Set a row another reader of this database could not read aside (the fleet's devices)."""
        self._quarantine(source, key_col, key, table, body, reason)

    def quarantine_rows(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM quarantine ORDER BY id")]


def _refuse_damaged(row: sqlite3.Row) -> None:
    problem = damaged(row)
    if problem is not None:
        raise ValueError(problem)


def _loads_object(text: Any) -> dict[str, Any] | None:
    try:
        obj = json.loads(text)
    except (TypeError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _printable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, str | int | float | None) else repr(v) for k, v in row.items()}


def _alert_problem(r: sqlite3.Row) -> str | None:
    """Why a stored alert cannot be listed (the dashboards sort and show each of these)."""
    problem = damaged(r)
    if problem is not None:
        return problem
    if r["urgency"] not in URGENCIES:
        return f"urgency {r['urgency']!r}"
    for col in ("key", "kind", "message"):
        if not isinstance(r[col], str):
            return f"{col}: not a text"
    if type(r["raised_wall"]) is not int or not (r["acked_wall"] is None or type(r["acked_wall"]) is int):
        return "raised_wall / acked_wall: not a number"
    if not (r["tbl"] is None or isinstance(r["tbl"], str)):
        return "tbl: not a text"
    return None


def _schedule_row(r: sqlite3.Row) -> ScheduledMatch:
    for col in ("match_id", "round", "tbl", "player_a", "player_b", "player_a_id", "player_b_id", "profile"):
        if not isinstance(r[col], str):
            raise TypeError(f"{col}: not a text")
    for col in ("length", "start_wall", "clock", "final", "line"):
        if type(r[col]) is not int:
            raise TypeError(f"{col}: not a number")
    if not 1 <= r["length"] <= 99:
        raise ValueError(f"length {r['length']} out of range")
    return ScheduledMatch(
        match_id=r["match_id"],
        round=r["round"],
        table=r["tbl"],
        player_a=r["player_a"],
        player_b=r["player_b"],
        player_a_id=r["player_a_id"],
        player_b_id=r["player_b_id"],
        length=r["length"],
        start_wall=r["start_wall"],
        clock=bool(r["clock"]),
        profile=r["profile"],
        final=bool(r["final"]),
        line=r["line"],
    )


def _readable_command(row: sqlite3.Row) -> dict[str, Any] | None:
    try:
        return _command_row(row)
    except (TypeError, ValueError):
        log.warning("command %r: stored body cannot be read; left out", row["id"])
        return None


def _command_row(row: sqlite3.Row) -> dict[str, Any]:
    d = dict(row)
    d["body"] = json.loads(d["body"])
    d["table"] = d.pop("tbl")
    d["done_ok"] = None if d["done_ok"] is None else bool(d["done_ok"])
    return d


#: what a result keeps in its ``body`` besides its columns (docs/api.md, "Results")
RESULT_BODY = ("games", "penalties", "penalty_log", "decision", "confirmed", "corrections")


def _result_row(row: sqlite3.Row) -> dict[str, Any]:
    _refuse_damaged(row)
    d = dict(row)
    d.pop("rowid", None)
    body = json.loads(d.pop("body"))
    if not isinstance(body, dict):
        raise ValueError("body: not an object")
    for col in ("match_id", "tbl"):
        if not isinstance(d[col], str):
            raise TypeError(f"{col}: not a text")
    for col in ("score_a", "score_b", "length"):
        if type(d[col]) is not int:
            raise TypeError(f"{col}: not a number")
    d["table"] = d.pop("tbl")
    d["score"] = {"A": d.pop("score_a"), "B": d.pop("score_b")}
    d["corrected_at_hub"] = bool(d.pop("corrected"))
    d["verified"] = d["verified_wall"] is not None
    d.update({k: body[k] for k in RESULT_BODY if k in body})
    corrections = d.get("corrections")
    d["corrections"] = (
        [c for c in corrections if isinstance(c, dict)] if isinstance(corrections, list) else []
    )
    # corrected at the table or at the hub (the export's ``corrected``)
    d["corrected"] = d["corrected_at_hub"] or bool(d["corrections"])
    return d
