"""The alerts' life: raised when its condition holds, updated while it lasts, resolved when it
is over, acknowledged by the TD. What deserves an alert is decided by the pure functions of
:mod:`hub.logic.conditions`; this module keeps the active ones in memory and in the store.

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

from hub.live.incidents import KINDS as INCIDENT_KINDS
from hub.live.state import RoomState
from hub.logic.alert_kinds import ACT, ASK_RANK, ASKS, DONE, asks
from hub.logic.conditions import (
    FORFEIT_ENDS,
    PLAY_PHASES,
    Absentee,
    AlertConfig,
    AlertSpec,
    Context,
    MisplacedPoint,
    Waiting,
    counters,
    double_booked,
    late_elsewhere,
    opening_due,
    round_absentees,
    side_facts,
    slow_from,
    table_alerts,
)
from hub.logic.holds import NOW
from hub.logic.lateness import LateConfig, Timing, side_lateness
from hub.logic.presence import (
    DoubleBooking,
    Seat,
    elsewhere_at,
    live_state,
    live_twice,
    scheduled_twice,
    seat_name,
    still_twice,
)
from hub.logic.table_view import URGENCY_RANK, TableView
from hub.logic.tabletime import clock_offset_ms
from hub.storage.store import Store
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Snapshot
from rulebook.vocab import Phase

log = logging.getLogger("hub")

#: Alerts raised by a single event (not a lasting situation): resolved only by acknowledgement.
ONE_SHOT = frozenset({"cmd_failed", "assign_refused", "dice"}) | INCIDENT_KINDS

#: Alerts whose text or data follow the time (minutes late, overrun, projected end): a table
#: holding one is looked at every tick while it lasts.
TIMED = frozenset({"late", "both_absent", "break_overrun", "slow"})

assert ASKS.keys() >= ONE_SHOT | TIMED, "an alert kind missing from hub/logic/alert_kinds.py"


def public_alert(row: dict[str, Any], rounds: dict[str, str] | None = None) -> dict[str, Any]:
    """An alert as the API shows it (``table`` rather than the column name ``tbl``), with what it
    asks of the TD (``asks``: act, watch or done) and its match's round (``round``: null for an
    alert of no match, or of a match the schedule no longer has). ``rounds``: match id -> round."""
    out = {k: v for k, v in row.items() if k != "tbl"}
    out["table"] = row["tbl"]
    out["asks"] = asks(row["kind"])
    out["round"] = (rounds or {}).get(row["match_id"] or "")
    return out


def feed_key(a: dict[str, Any]) -> tuple[Any, ...]:
    """Where an alert stands in the feed: what it asks first (act, then watch, then done); within
    act, unacknowledged first and the longest waiting first (a call must not sink under newer
    ones); within watch, the most urgent first, then the oldest; done is a log, newest first."""
    ask = asks(a["kind"])
    acked = a["acked_wall"] is not None
    if ask == ACT:
        return (ASK_RANK[ask], acked, a["raised_wall"], a["id"])
    if ask == DONE:
        return (ASK_RANK[ask], False, -a["raised_wall"], -a["id"])
    return (ASK_RANK[ask], acked, URGENCY_RANK[a["urgency"]], a["raised_wall"], a["id"])


def ordered(alerts: Iterable[dict[str, Any]], rounds: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Alerts as the API lists them, in the feed's order (:func:`feed_key`)."""
    return [public_alert(a, rounds) for a in sorted(alerts, key=feed_key)]


def urgencies(alerts: Iterable[dict[str, Any]]) -> dict[str, tuple[str | None, int]]:
    """table -> (most urgent unacknowledged alert, number of active alerts); a ``done`` line (the
    hub's own point or forfeit) is not an alert of the table's: it counts for neither."""
    out: dict[str, tuple[str | None, int]] = {}
    for a in alerts:
        t = a["tbl"]
        if t is None or asks(a["kind"]) == DONE:
            continue
        best, count = out.get(t, (None, 0))
        if a["acked_wall"] is None and (best is None or URGENCY_RANK[a["urgency"]] < URGENCY_RANK[best]):
            best = a["urgency"]
        out[t] = (best, count + 1)
    return out


def command_refused(
    table: str, cmd_id: str, cmd: object, match_id: str | None, error: str | None
) -> AlertSpec:
    """A table answered ``cmd_done`` with ``ok: false`` (``cmd``: the command's type it quoted)."""
    return AlertSpec(
        f"cmd:{cmd_id}",
        "cmd_failed",
        "medium",
        f"Table {table} refused command {cmd or ''} {cmd_id}: {error}",
        table,
        match_id,
    )


def assignment_refused(table: str, rejected: str, match_id: str | None, now: int) -> AlertSpec:
    """A table answered its ``assign`` with a rejection (``rejected``: its reason)."""
    return AlertSpec(
        f"assign:{table}:{now}",
        "assign_refused",
        "medium",
        f"Table {table} refused its assignment: {rejected}",
        table,
        match_id,
    )


class Alerts:
    """The active alerts (key -> stored row) and which tables' alerts changed since the last push."""

    def __init__(
        self, room: RoomState, store: Store, config: AlertConfig, late: LateConfig | None = None
    ) -> None:
        self.room = room
        self.store = store
        self.config = config
        self.late = late or LateConfig()
        self.active: dict[str, dict[str, Any]] = {
            a["key"]: {**a, "data": None} for a in store.alerts(active_only=True)
        }
        #: what the room counts rather than alerts (:func:`hub.logic.conditions.counters`)
        self.counters: dict[str, Any] = counters([], [])
        #: table -> its current match's Timing, worked out once per sync
        self._timings: dict[str, Timing | None] = {}
        self._counters_dirty = False
        #: table -> its players on a break (the counters' part of it), kept between syncs so that
        #: a sync of a few tables recounts those tables only
        self._on_break: dict[str, list[dict[str, Any]]] = {}
        #: the results to verify (the counters' other part), recounted only when a result changed
        self._verify: dict[str, Any] | None = None
        #: table -> (most urgent unacknowledged alert, count), rebuilt after any alert changed
        self._urgencies: dict[str, tuple[str | None, int]] | None = None
        self._alerts_by_table: dict[str | None, list[dict[str, Any]]] | None = None
        #: the room's own lines, kept up to date table by table: the tables whose current match
        #: waits for its players (absentees), each table's players at the table now (player key
        #: -> tables: a player at two is double booked), the schedule's double bookings
        self._waiting: set[str] = set()
        self._live: dict[str, list[str]] = {}
        self._live_at: dict[str, set[str]] = {}
        self._scheduled: tuple[list[ScheduledMatch], list[DoubleBooking]] | None = None
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

    def sync(self, now: int, tables: set[str] | None, *, room_wide: bool = False) -> None:
        """Raise what the conditions find at the ``tables`` (all: None, with the room's own alerts;
        ``room_wide``: the room's own alerts too) and resolve what they no longer see; recount
        the counters."""
        room = self.room
        self._timings.clear()
        everything = tables is None
        room_wide = room_wide or everything
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
        with guard.table(None, "note where the players are"):
            self._note_room(scope, everything)
        if room_wide:
            with guard.table(None, "check the room's alerts"):
                for spec in self._room_specs(now):
                    wanted[spec.key] = spec
        for spec in wanted.values():
            self.raise_(spec, now)
        if everything:
            candidates = list(self.active.items())
        else:
            by_table = self._by_table()
            keyed = [a for t in scope for a in by_table.get(t, ())]
            keyed += by_table.get(None, []) if room_wide else []
            candidates = [(a["key"], a) for a in keyed]
        for key, alert in candidates:
            if key in wanted or alert["kind"] in ONE_SHOT or alert.get("volatile"):
                continue  # a volatile alert is about the store: the hub drops it itself
            mine = alert["tbl"] in scope if alert["tbl"] is not None else room_wide
            if mine and self.state_settled(alert["tbl"]):
                self.store.resolve_alert(key, now)
                del self.active[key]
                self._changed(alert["tbl"])
        self._count(scope, everything)

    def tables_held(self) -> set[str]:
        """Every table the alerts hold something about: an active alert, the room's lines (a match
        waiting for players, players at a table), players on a break. A look at the whole room in
        slices looks at these too once its slices are done (a table gone from the room is in
        none of them, and its alerts and lines must go as a look at the whole room drops them)."""
        held = {a["tbl"] for a in self.active.values() if a["tbl"] is not None}
        return held | self._waiting | self._live.keys() | self._on_break.keys()

    def next_look(self, table: str, now: int) -> int | None:
        """When the table's alerts, or its tile, may next change with time alone (None: only with a
        message, an action or a schedule). Conservative: where the time shows by the second (a
        player late, on a break, a timed alert's minutes), the answer is the next tick.

        The moments: the offline grace's end, the round's start and the not-started grace's end,
        a waiting match's lateness, a break's end, the next round's start for a match in play
        and the moment its projected finish passes it (:func:`hub.logic.conditions.slow_from`)."""
        room = self.room
        soon = now + 1
        if any(a["tbl"] == table and a["kind"] in TIMED for a in self._by_table().get(table, ())):
            return soon
        view = room.views.get(table)
        match = room.match_for(table)
        dues: list[int] = []
        if view is not None and view.status is not None and not view.online:
            dues.append(view.status_since + self.config.offline_grace_ms)
        if match is None:
            return _first_after(dues, now)
        dues += [match.start_wall, match.start_wall + self.config.not_started_grace_ms]
        state = view.state_for(match.match_id) if view is not None else None
        if state is None:
            return _first_after(dues, now)
        phase = state.get("phase")
        present = state.get("present") or {}
        if phase == Phase.OPENING and view is not None:
            dues.append(opening_due(view, state, self.config))
        if phase == Phase.WAITING and not (present.get("A") and present.get("B")):
            heads_up = match.start_wall - self.config.late_alert_lead_ms  # lateness shows by the second
            dues.append(soon if now >= heads_up else heads_up)
        breaks = state.get("breaks") or {}
        if any(isinstance(b, dict) and b.get("away") for b in breaks.values()):
            return soon
        timing = self._timing(table, match)
        if timing is not None:
            dues += [ends for _used, ends in timing.breaks.values()]
        round_end = room.round_end.get(match.round)
        if phase in PLAY_PHASES and round_end is not None:
            dues.append(round_end)
            slow = slow_from(state, now, match.start_wall, match.length, round_end)
            if slow is not None:
                dues.append(slow)
        return _first_after(dues, now)

    def _by_table(self) -> dict[str | None, list[dict[str, Any]]]:
        """The active alerts by table (rebuilt after any alert changed)."""
        if self._alerts_by_table is None:
            index: dict[str | None, list[dict[str, Any]]] = {}
            for a in self.active.values():
                index.setdefault(a["tbl"], []).append(a)
            self._alerts_by_table = index
        return self._alerts_by_table

    def _specs(self, table: str, now: int) -> list[AlertSpec]:
        room = self.room
        match = room.match_for(table)
        view = room.views[table] if table in room.views else TableView(table)
        context = self._context(table, view, match, now) if match is not None else None
        specs = table_alerts(
            view,
            match,
            now=now,
            config=self.config,
            profile=room.profile(match),
            context=context,
        )
        if room.bridged_rooms.cut_off(table, now):
            # one alert for its room instead, none new of its own; those it had stay as they were
            # (not settled), but those that follow the time are said again, held, so that none
            # speaks of a mark that has passed as to come
            return [s for s in specs if s.kind in TIMED and s.key in self.active]
        state = view.state_for(match.match_id) if match is not None else None
        if match is not None and state is not None:
            specs += [late_elsewhere(table, match, state, p) for p in self._misplaced(table, match, state)]
        return specs

    def _misplaced(self, table: str, match: ScheduledMatch, state: Snapshot) -> list[MisplacedPoint]:
        """The match's automatic lateness points in force that were given to a player who was at
        another match of the event at that moment (by the registry's identities, the events the
        hub stored and the results). Only a table whose match has such a point costs a look."""
        prefix = f"late:{match.match_id}:"
        points = [
            p
            for p in state.get("penalty_log") or []
            if isinstance(p, dict)
            and isinstance(p.get("id"), str)
            and p["id"].startswith(prefix)
            and not p.get("waived")
            and p.get("against") in ("A", "B")
        ]
        if not points:
            return []
        room = self.room
        commands = self.store.command_ids(table, match.match_id)

        def times(seat: Seat) -> tuple[int | None, int | None]:
            arrived, ended = self.store.seat_times(seat.match.match_id, seat.side)
            finished = (room.results.get(seat.match.match_id) or {}).get("finished_wall")
            if type(finished) is int and (ended is None or finished < ended):
                ended = finished
            return arrived, ended

        out = []
        for p in points:
            given = (commands.get(p["id"]) or {}).get("created_wall")
            if type(given) is not int:
                continue
            seat = elsewhere_at(room.players, match, p["against"], given, times)
            if seat is not None:
                points_ = p.get("points")
                out.append(
                    MisplacedPoint(
                        p["id"],
                        p["against"],
                        points_ if type(points_) is int else 1,
                        given,
                        (seat.match.match_id, seat.match.table, seat.match.round),
                    )
                )
        return out

    def _context(self, table: str, view: TableView, match: Any, now: int) -> Context:
        """What a table's conditions need from the rest of the room."""
        room = self.room
        timing = self._timing(table, match)
        commands: dict[str, dict[str, Any]] = {}
        state = view.state_for(match.match_id)
        if state is not None and _may_have_points(state, timing, now):
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
            held=NOW[hold.reason] if (hold := room.held.get(table)) is not None else None,
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

    def _note_room(self, scope: Iterable[str], everything: bool) -> None:
        """Keep the room's lines up to date for the ``scope`` tables (every one: ``everything``):
        whether each one's current match waits for players, and which players are at it now."""
        room = self.room
        if everything:
            self._waiting.clear()
            self._live.clear()
            self._live_at.clear()
            scope = room.views.keys() | room.current.keys()
        for table in scope:
            cur = room.current.get(table)
            view = room.views.get(table)
            state = view.state_for(cur.match.match_id) if cur is not None and view is not None else None
            if state is not None and state.get("phase") == Phase.WAITING:
                self._waiting.add(table)
            else:
                self._waiting.discard(table)
            for key in self._live.pop(table, ()):
                tables = self._live_at[key]
                tables.discard(table)
                if not tables:
                    del self._live_at[key]
            mid = view.match_id if view is not None else None
            match = room.by_id.get(mid) if isinstance(mid, str) else None
            if view is None or match is None or match.table != table:
                continue
            keys = [
                room.players.key(match, side)
                for side in ("A", "B")
                if live_state(Seat(match, side), room.views, room.results, room.released) is not None
            ]
            if keys:
                self._live[table] = keys
                for key in keys:
                    self._live_at.setdefault(key, set()).add(table)

    def _room_specs(self, now: int) -> list[AlertSpec]:
        """The room's own alerts: each round's absentees as one line, players booked twice."""
        room = self.room
        absentees: list[Absentee] = []
        for table, cur in room.current.items():
            if table not in self._waiting:
                continue  # its match does not wait for players
            m = cur.match
            view = room.views.get(table)
            state = view.state_for(m.match_id) if view is not None else None
            if state is None or state.get("phase") != Phase.WAITING or now < m.start_wall:
                continue
            if room.bridged_rooms.cut_off(table, now):
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
        if self._scheduled is None or self._scheduled[0] is not room.schedule:
            self._scheduled = (room.schedule, scheduled_twice(room.players))
        # players at two tables: only those tables' views are walked again, to word the line
        twice = {t for tables in self._live_at.values() if len(tables) > 1 for t in tables}
        views = {t: v for t, v in room.views.items() if t in twice}
        live = live_twice(room.players, views, room.results, room.released, room.by_id)
        bookings = still_twice(self._scheduled[1], room.results, room.released) + live
        return (
            round_absentees(absentees)
            + double_booked(bookings)
            + room.bridged_rooms.alert_specs(now, self.config.offline_grace_ms)
        )

    def results_changed(self) -> None:
        """A result was recorded, changed or withdrawn: the results to verify are counted again at
        the next sync (otherwise only a sync of the whole room recounts them)."""
        self._verify = None

    def _count(self, scope: Iterable[str], everything: bool) -> None:
        """Recount the players on a break at the ``scope`` tables (every table: ``everything``) and,
        if a result changed, the results to verify."""
        room = self.room
        if everything:
            self._on_break.clear()
            self._verify = None
        for table in scope:
            self._on_break.pop(table, None)
            cur = room.current.get(table)
            view = room.views.get(table)
            if cur is None or view is None:
                continue
            breaks = self._breaks_at(table, view, cur.match)
            if breaks:
                self._on_break[table] = breaks
        if self._verify is None:
            self._verify = counters([], room.results.values())["verify"]
        on_break = [b for table in sorted(self._on_break) for b in self._on_break[table]]
        fresh = {"on_break": {"count": len(on_break), "items": on_break}, "verify": self._verify}
        if fresh != self.counters:
            self.counters = fresh
            self._counters_dirty = True

    def _breaks_at(self, table: str, view: TableView, m: Any) -> list[dict[str, Any]]:
        """The players of ``table``'s current match away on a break, as the counters list them."""
        state = view.state_for(m.match_id)
        if state is None:
            return []
        out = []
        for side in ("A", "B"):
            b = (state.get("breaks") or {}).get(side)
            if isinstance(b, dict) and b.get("away"):
                timing = self._timing(table, m)  # only for a break: the look at the room is costly
                ends = timing.breaks.get(side, (0, None))[1] if timing is not None else None
                out.append(
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
        return out

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
        """Active alerts in the feed's order (:func:`feed_key`), each with its ``asks`` and round."""
        by_id = self.room.by_id
        rounds = {
            a["match_id"]: by_id[a["match_id"]].round
            for a in self.active.values()
            if a["match_id"] is not None and a["match_id"] in by_id
        }
        return ordered(self.active.values(), rounds)

    def urgencies(self) -> dict[str, tuple[str | None, int]]:
        """table -> (most urgent unacknowledged alert, number of active alerts); worked out again
        only after an alert changed (every batch of messages asks)."""
        if self._urgencies is None:
            self._urgencies = urgencies(self.active.values())
        return self._urgencies

    @property
    def changed(self) -> bool:
        """Whether any alert changed since the last :meth:`take_changes` (which it leaves as is)."""
        return self._dirty

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
        self._urgencies = None
        self._alerts_by_table = None
        if table is not None:
            self._tables.add(table)


def _first_after(moments: Iterable[int], now: int) -> int | None:
    """The earliest of ``moments`` after ``now`` (None: none)."""
    return min((m for m in moments if m > now), default=None)


def _may_have_points(state: Snapshot, timing: Any, now: int) -> bool:
    """Whether the table's automatic points are worth looking up (a store query) for its alerts."""
    if any(
        isinstance(p, dict) and str(p.get("id", "")).startswith(("late:", "break:"))
        for p in state.get("penalty_log") or []
    ):
        return True
    if state.get("phase") == Phase.FINISHED and state.get("end_reason") in FORFEIT_ENDS:
        return True  # perhaps by an automatic forfeit (its ``done`` line)
    if timing is None:
        return False
    if any(now >= ends for _used, ends in timing.breaks.values()):
        return True
    waiting = timing.waiting or {}
    return any(
        a.arrived is None and a.counts_from is not None and now >= a.counts_from for a in waiting.values()
    )
