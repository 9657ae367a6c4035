"""The alerts' life: raised when a watch sees a situation, updated while it lasts, resolved when it
is over, acknowledged by the TD. What deserves an alert is decided by the pure functions of
:mod:`hub.watch`; this module keeps the active ones in memory and in the store.

An escalation (a higher urgency) clears the acknowledgement. A situation's alert is resolved only
once the hub holds the table's current state (see :meth:`Alerts.state_settled`). Alerts raised by
a single event (``ONE_SHOT``: a refused command or assignment) last until acknowledged. Alerts of
the whole room (a round's absentees, a player booked twice) have no table; they are raised and
resolved when the whole room is looked at (every tick).

An alert's ``data`` (penalty ids, next point due, lists) is recomputed at every look and kept in
memory only; the counters (players on break, results to verify) likewise (:attr:`Alerts.counters`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from hub.incidents import KINDS as INCIDENT_KINDS
from hub.lateness import LateConfig, Timing, side_lateness
from hub.presence import live_twice, scheduled_twice, seat_name
from hub.room import URGENCY_RANK, TableView
from hub.state import RoomState
from hub.store import Store
from hub.tabletime import clock_offset_ms
from hub.watch import (
    PLAY_PHASES,
    Absentee,
    AlertSpec,
    Context,
    Waiting,
    WatchConfig,
    counters,
    double_booked,
    round_absentees,
    side_facts,
    table_alerts,
)

log = logging.getLogger("hub")

#: Alerts raised by a single event (not a lasting situation): resolved only by acknowledgement.
ONE_SHOT = frozenset({"cmd_failed", "assign_refused", "dice"}) | INCIDENT_KINDS


def public_alert(row: dict[str, Any]) -> dict[str, Any]:
    """An alert as the API shows it (``table`` rather than the column name ``tbl``)."""
    out = {k: v for k, v in row.items() if k != "tbl"}
    out["table"] = row["tbl"]
    return out


def ordered(alerts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Alerts as the API lists them: unacknowledged first, most urgent first, newest first."""
    items = [public_alert(a) for a in alerts]
    items.sort(key=lambda a: (a["acked_wall"] is not None, URGENCY_RANK[a["urgency"]], -a["raised_wall"]))
    return items


def urgencies(alerts: Iterable[dict[str, Any]]) -> dict[str, tuple[str | None, int]]:
    """table -> (most urgent unacknowledged alert, number of active alerts)."""
    out: dict[str, tuple[str | None, int]] = {}
    for a in alerts:
        t = a["tbl"]
        if t is None:
            continue
        best, count = out.get(t, (None, 0))
        if a["acked_wall"] is None and (best is None or URGENCY_RANK[a["urgency"]] < URGENCY_RANK[best]):
            best = a["urgency"]
        out[t] = (best, count + 1)
    return out


def command_refused(table: str, evt: dict[str, Any], match_id: str | None, error: str | None) -> AlertSpec:
    """A table answered ``cmd_done`` with ``ok: false``."""
    return AlertSpec(
        f"cmd:{evt['id']}",
        "cmd_failed",
        "medium",
        f"Table {table} refused command {evt.get('cmd') or ''} {evt['id']}: {error}",
        table,
        match_id,
    )


def assignment_refused(table: str, evt: dict[str, Any], match_id: str | None, now: int) -> AlertSpec:
    """A table answered its ``assign`` with a rejection."""
    return AlertSpec(
        f"assign:{table}:{now}",
        "assign_refused",
        "medium",
        f"Table {table} refused its assignment: {evt['rejected']}",
        table,
        match_id,
    )


class Alerts:
    """The active alerts (key -> stored row) and which tables' alerts changed since the last push."""

    def __init__(
        self, room: RoomState, store: Store, watch: WatchConfig, late: LateConfig | None = None
    ) -> None:
        self.room = room
        self.store = store
        self.watch = watch
        self.late = late or LateConfig()
        self.active: dict[str, dict[str, Any]] = {
            a["key"]: {**a, "data": None} for a in store.alerts(active_only=True)
        }
        #: what the room counts rather than alerts (:func:`hub.watch.counters`)
        self.counters: dict[str, Any] = counters([], [])
        #: table -> its current match's Timing, worked out once per sync
        self._timings: dict[str, Timing | None] = {}
        self._counters_dirty = False
        self._dirty = False
        #: ids of the alerts kept in memory only (negative: never a stored alert's)
        self._volatile_id = 0
        #: tables whose alerts changed since the last push (their tiles show the urgency)
        self._tables: set[str] = set()

    # -- raising and resolving ----------------------------------------------------------------

    def raise_(self, spec: AlertSpec, now: int) -> bool:
        """Open or update an alert; True if anything changed."""
        current = self.active.get(spec.key)
        if current is None:
            row = self.store.raise_alert(
                spec.key, spec.kind, spec.urgency, spec.table, spec.match_id, spec.message, now
            )
            self.active[spec.key] = {**row, "data": spec.data}
            if spec.urgency == "critical":
                log.warning("ALERT %s", spec.message)
            self._changed(spec.table)
            return True
        if current["urgency"] == spec.urgency and current["message"] == spec.message:
            if current.get("data") == spec.data:
                return False
            current["data"] = spec.data  # recomputed, kept in memory only
            self._changed(spec.table)
            return True
        self._changed(spec.table)
        escalated = URGENCY_RANK[spec.urgency] < URGENCY_RANK[current["urgency"]]
        self.store.update_alert(spec.key, spec.urgency, spec.message, reopen_ack=escalated)
        current.update(urgency=spec.urgency, message=spec.message, data=spec.data)
        if escalated:
            current.update(acked_wall=None, acked_by=None)
        return True

    def sync(self, now: int, tables: set[str] | None) -> None:
        """Raise what the watches see at the ``tables`` (all: None, with the room's own alerts)
        and resolve what they no longer see; recount the counters."""
        room = self.room
        self._timings.clear()
        everything = tables is None
        scope = set(room.tables()) if tables is None else tables
        wanted: dict[str, AlertSpec] = {}
        guard = room.guard
        for table in scope:
            done = False
            with guard.table(table, "check its alerts"):
                specs = self._specs(table, now)
                done = True
            if not done:
                scope = scope - {table}  # its alerts stay as they were
                continue
            for spec in specs:
                wanted[spec.key] = spec
        if everything:
            with guard.table(None, "check the room's alerts"):
                for spec in self._room_specs(now):
                    wanted[spec.key] = spec
        for spec in wanted.values():
            self.raise_(spec, now)
        for key, alert in list(self.active.items()):
            if key in wanted or alert["kind"] in ONE_SHOT or alert.get("volatile"):
                continue  # a volatile alert is about the store: the hub drops it itself
            mine = alert["tbl"] in scope if alert["tbl"] is not None else everything
            if mine and self.state_settled(alert["tbl"]):
                self.store.resolve_alert(key, now)
                del self.active[key]
                self._changed(alert["tbl"])
        self._count()

    def _specs(self, table: str, now: int) -> list[AlertSpec]:
        room = self.room
        match = room.match_for(table)
        view = room.views[table] if table in room.views else TableView(table)
        context = self._context(table, view, match, now) if match is not None else None
        return table_alerts(
            view,
            match,
            now=now,
            config=self.watch,
            profile=room.profile(match),
            context=context,
        )

    def _context(self, table: str, view: TableView, match: Any, now: int) -> Context:
        """What a table's watches need from the rest of the room."""
        room = self.room
        timing = self._timing(table, match)
        commands: dict[str, dict[str, Any]] = {}
        state = view.state_for(match.match_id)
        if timing is not None and state is not None and _may_have_points(state, timing, now):
            commands = self.store.command_ids(table, match.match_id)
        nxt = room.next_round(match.round)
        holds_up: list[Waiting] = []
        playing = state is not None and state.get("phase") in PLAY_PHASES
        if nxt is not None and playing:
            for side in ("A", "B"):
                for seat in room.players.seats.get(room.players.key(match, side), []):
                    if seat.match.round == nxt:
                        holds_up.append(
                            Waiting(seat_name(match, side), seat.match.match_id, seat.match.table)
                        )
        return Context(
            timing=timing,
            commands=commands,
            round_end=room.round_end.get(match.round),
            next_round=nxt,
            holds_up=tuple(holds_up),
            suspended=table in room.suspended,
        )

    def _timing(self, table: str, match: Any) -> Timing | None:
        """The match's Timing at this table (once per sync: the alerts, the room's lines and the
        counters all read it)."""
        if table not in self._timings:
            self._timings[table] = self.room.timing(table, match, self.late)
        t = self._timings[table]
        return (
            t if t is not None and t.match_id == match.match_id else self.room.timing(table, match, self.late)
        )

    def _room_specs(self, now: int) -> list[AlertSpec]:
        """The room's own alerts: each round's absentees as one line, players booked twice."""
        room = self.room
        absentees: list[Absentee] = []
        for table, cur in room.current.items():
            m = cur.match
            view = room.views.get(table)
            state = view.state_for(m.match_id) if view is not None else None
            if state is None or state.get("phase") != "waiting" or now < m.start_wall:
                continue
            timing = self._timing(table, m)
            for side in ("A", "B"):
                sl = side_lateness(timing, side, now) if timing is not None else None
                if sl is None:
                    continue
                absentees.append(
                    Absentee(
                        m.round,
                        table,
                        m.match_id,
                        side,
                        seat_name(m, side),
                        sl.late_ms,
                        sl.absence.elsewhere.as_dict() if sl.absence.elsewhere else None,
                    )
                )
        bookings = scheduled_twice(room.players) + live_twice(
            room.players, room.views, room.results, room.released, room.by_id
        )
        return round_absentees(absentees) + double_booked(bookings)

    def _count(self) -> None:
        room = self.room
        on_break = []
        for table in sorted(room.current):
            view = room.views.get(table)
            m = room.current[table].match
            state = view.state_for(m.match_id) if view is not None else None
            if state is None:
                continue
            timing = self._timing(table, m)
            for side in ("A", "B"):
                b = (state.get("breaks") or {}).get(side)
                if isinstance(b, dict) and b.get("away"):
                    ends = timing.breaks.get(side, (0, None))[1] if timing is not None else None
                    on_break.append(
                        {
                            "table": table,
                            "match_id": m.match_id,
                            "side": side,
                            "name": seat_name(m, side),
                            "break_no": b.get("used"),
                            "allowed": b.get("allowed"),
                            "ends_wall": ends,
                        }
                    )
        fresh = counters(on_break, room.results.values())
        if fresh != self.counters:
            self.counters = fresh
            self._counters_dirty = True

    def state_settled(self, table: str | None) -> bool:
        """Whether the hub holds the table's current state, so an alert it no longer implies is
        really over (a state cached before a restart or an outage may predate the alert, and
        resolving on it would lose the TD's acknowledgement when the alert comes back)."""
        view = self.room.views.get(table) if table is not None else None
        return view is None or view.state_fresh

    # -- acknowledging ------------------------------------------------------------------------

    def find(self, alert_id: int) -> dict[str, Any] | None:
        """The active alert with this id, if any."""
        return next((a for a in self.active.values() if a["id"] == alert_id), None)

    def acknowledge(self, alert: dict[str, Any], actor: str, now: int) -> bool:
        """Acknowledge an active alert (a one-shot alert is resolved by it); False if it already was."""
        if alert.get("volatile"):
            if alert["acked_wall"] is not None:
                return False
            alert.update(acked_wall=now, acked_by=actor)
            self._changed(alert["tbl"])
            return True
        if not self.store.ack_alert(alert["id"], actor, now):
            return False
        self.store.audit(actor, "ack_alert", now, alert["tbl"], alert["match_id"], {"alert": alert["key"]})
        if alert["kind"] in ONE_SHOT:
            self.store.resolve_alert(alert["key"], now)
            del self.active[alert["key"]]
        else:
            alert.update(acked_wall=now, acked_by=actor)
        self.store.commit()
        self._changed(alert["tbl"])
        return True

    # -- alerts about the database itself (kept in memory: it cannot hold them) ---------------

    def raise_volatile(self, spec: AlertSpec, now: int) -> None:
        """Open or update an alert that is never written to the store (its disk is full)."""
        current = self.active.get(spec.key)
        if current is not None and (current["urgency"], current["message"]) == (spec.urgency, spec.message):
            return
        if current is None:
            self._volatile_id -= 1
            if spec.urgency == "critical":
                log.warning("ALERT %s", spec.message)
        keep_ack = current is not None and URGENCY_RANK[spec.urgency] >= URGENCY_RANK[current["urgency"]]
        self.active[spec.key] = {
            "id": current["id"] if current else self._volatile_id,
            "key": spec.key,
            "kind": spec.kind,
            "urgency": spec.urgency,
            "tbl": spec.table,
            "match_id": spec.match_id,
            "message": spec.message,
            "raised_wall": current["raised_wall"] if current else now,
            "active": 1,
            "acked_wall": current["acked_wall"] if current and keep_ack else None,
            "acked_by": current["acked_by"] if current and keep_ack else None,
            "resolved_wall": None,
            "data": spec.data,
            "volatile": True,
        }
        self._changed(spec.table)

    def drop_volatile(self, key: str) -> None:
        alert = self.active.get(key)
        if alert is not None and alert.get("volatile"):
            del self.active[key]
            self._changed(alert["tbl"])

    def reload(self) -> None:
        """After a rolled-back write: the alerts as the store holds them, and the volatile ones."""
        volatile = {k: a for k, a in self.active.items() if a.get("volatile")}
        changed = {a["tbl"] for a in self.active.values()}
        stored = {a["key"]: {**a, "data": None} for a in self.store.alerts(active_only=True)}
        self.active = stored | volatile
        for table in changed | {a["tbl"] for a in self.active.values()}:
            self._changed(table)

    # -- what the views read ------------------------------------------------------------------

    def tile_facts(self, table: str, match: Any, now: int) -> tuple[bool | None, dict[str, Any]]:
        """What a tile shows of lateness and time: whether a player is late (None: the tile's own
        rule), and the tile's ``lateness`` (per side, as a late alert's data: null when checked in)
        and ``clock_offset_ms`` (the table's wall clock minus the hub's; null when unknown)."""
        view = self.room.views.get(table)
        offset = clock_offset_ms(view) if view is not None else None
        facts: dict[str, Any] = {
            "lateness": None,
            "clock_offset_ms": None if offset is None else offset // 1000 * 1000,
        }
        if match is None or view is None:
            return None, facts
        state = view.state_for(match.match_id)
        timing = self._timing(table, match)
        if state is None or timing is None or timing.waiting is None:
            return None, facts
        commands = (
            self.store.command_ids(table, match.match_id) if _may_have_points(state, timing, now) else {}
        )
        sides: dict[str, Any] = {}
        late = False
        for side in ("A", "B"):
            sl = side_lateness(timing, side, now)
            sides[side] = side_facts(sl, timing, state, commands, now) if sl is not None else None
            if sl is not None and sl.absence.counts_from is not None and now > sl.absence.counts_from:
                late = True
        facts["lateness"] = sides
        return late, facts

    def listed(self) -> list[dict[str, Any]]:
        """Active alerts, unacknowledged first, most urgent first, newest first."""
        return ordered(self.active.values())

    def urgencies(self) -> dict[str, tuple[str | None, int]]:
        return urgencies(self.active.values())

    def take_changes(self) -> tuple[bool, set[str]]:
        """(whether any alert changed, the tables whose alerts changed) since the last call."""
        dirty, tables = self._dirty, self._tables
        self._dirty, self._tables = False, set()
        return dirty, tables

    def take_counters(self) -> dict[str, Any] | None:
        """The counters if they changed since the last call, else None."""
        if not self._counters_dirty:
            return None
        self._counters_dirty = False
        return self.counters

    def _changed(self, table: str | None) -> None:
        self._dirty = True
        if table is not None:
            self._tables.add(table)


def _may_have_points(state: dict[str, Any], timing: Any, now: int) -> bool:
    """Whether the table's automatic points are worth looking up (a store query) for its alerts."""
    if any(
        isinstance(p, dict) and str(p.get("id", "")).startswith(("late:", "break:"))
        for p in state.get("penalty_log") or []
    ):
        return True
    if any(now >= ends for _used, ends in timing.breaks.values()):
        return True
    waiting = timing.waiting or {}
    return any(
        a.arrived is None and a.counts_from is not None and now >= a.counts_from for a in waiting.values()
    )
