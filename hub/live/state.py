"""The hub's picture of the room in memory, shared by its jobs (ingest, automation, alerts, actions,
views) and rebuilt from the store at start.

Plain data with a few lookups: each job changes only its own part (ingest the table views and
results, automation ``current`` and ``assigned``, actions ``released``, ``suspended`` and the
schedule); the others read it. The alerts are kept by :class:`hub.live.alerts.Alerts`.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from hub.live.bridged_rooms import BridgedRooms
from hub.live.guard import Guard
from hub.logic.holds import ALIVE_KEY, Hold
from hub.logic.lateness import LateConfig, Timing, late_arrival, timing
from hub.logic.presence import Elsewhere, PlayerIndex, elsewhere, previous_end
from hub.logic.table_view import TableView
from hub.storage.store import Store, StoreWriteFailed
from hub.tournament.players import Registry
from hub.tournament.rounds import Current, round_ends
from hub.tournament.schedule import ScheduledMatch
from rulebook.custom_profiles import ProfileBook
from rulebook.errors import ProfileError
from rulebook.profiles import Profile
from rulebook.vocab import Phase
from rulebook.wire import parse_snapshot, parse_status

log = logging.getLogger("hub")


def natural(table: str) -> tuple[int, str]:
    """Sort key that puts table 2 before table 10 (and named tables after the numbered ones)."""
    return (int(table), "") if table.isdigit() else (10**9, table)


@dataclass
class RoomState:
    #: the rules for a schedule row whose profile is unknown
    default_profile: Profile
    #: the profiles the schedule may name (the built-in ones and the hub's custom ones)
    profiles: ProfileBook = field(default_factory=ProfileBook)
    views: dict[str, TableView] = field(default_factory=dict)
    schedule: list[ScheduledMatch] = field(default_factory=list)
    by_id: dict[str, ScheduledMatch] = field(default_factory=dict)
    #: round -> when the next round starts
    round_end: dict[str, int | None] = field(default_factory=dict)
    #: table -> the match it should have now (recomputed by the automation at every tick)
    current: dict[str, Current] = field(default_factory=dict)
    #: match id -> result (as the store returns it)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    released: set[str] = field(default_factory=set)
    suspended: set[str] = field(default_factory=set)
    #: table -> the match id last assigned to it
    assigned: dict[str, str] = field(default_factory=dict)
    #: runs each table's step of a job so that one table's fault never stops the others
    guard: Guard = field(default_factory=Guard)
    #: the event's players, each once, and the seat of the schedule each one holds (hub.tournament.players)
    registry: Registry = field(default_factory=Registry)
    #: every player's seats in the schedule, by the registry's keys (rebuilt with the schedule)
    players: PlayerIndex = field(default_factory=lambda: PlayerIndex([]))
    #: (table, match id) -> when the hub first held a state of that match from that table (kept
    #: by the automation; lateness uses it only for a table that does not say when it took it)
    first_seen: dict[tuple[str, str], int] = field(default_factory=dict)
    #: the event's rooms and their bridges (hub.live.bridged_rooms): a cut-off room's tables get no automatic
    #: decision
    bridged_rooms: BridgedRooms = field(default_factory=BridgedRooms)
    #: table -> why and since when its automation is held (kept by the automation, hub.logic.holds);
    #: every table is held from the hub's start until its current state arrives
    held: dict[str, Hold] = field(default_factory=dict)
    #: the schedule as imported (``schedule`` is it and the draw's calls)
    imported: list[ScheduledMatch] = field(default_factory=list)
    #: the draw's calls as scheduled matches (kept by hub.live.calls): one model, so assignment,
    #: lateness and where every player is treat them as any scheduled match
    drawn: list[ScheduledMatch] = field(default_factory=list)

    @classmethod
    def load(cls, store: Store, default_profile: Profile, profiles: ProfileBook | None = None) -> RoomState:
        """What the store holds. Start-up never dies on a stored row: one that cannot be read, or
        a cached state or status that no longer passes the wire schema, is set aside by the store
        (``store.quarantined``, alerted once the hub runs); the table sends its state again."""
        state = cls(default_profile, profiles or ProfileBook())
        schedule = store.schedule()
        state.registry = store.registry()
        state.set_schedule(schedule)
        if state.registry is not state.players.registry:
            # seats stored before the registry existed (or set aside): resolved by the rules now,
            # and kept, so that every later look and restart sees the same players
            state.registry = state.players.registry
            try:
                store.save_registry(state.registry)
                store.commit()
            except (StoreWriteFailed, sqlite3.Error):  # a full disk: worked out again next time
                log.warning("the player registry could not be saved at start")
        for table, (status, online, since) in store.statuses(parse_status).items():
            view = state.view(table)
            view.status, view.online, view.status_since = status, online, since
        for table, (snapshot, received) in store.states(parse_snapshot).items():
            view = state.view(table)
            view.state, view.state_wall = snapshot, received
        state.results = {r["match_id"]: r for r in store.results()}
        state.released = store.releases()
        state.suspended = store.suspended_tables()
        state.assigned = store.assigned()
        # the hub was not running: every table's automation is held until its current state
        # arrives, and what fell due meanwhile is decided then (hub.logic.holds)
        alive = store.get_meta(ALIVE_KEY)
        last_alive = int(alive) if alive and alive.isdigit() else None
        state.held = {t: Hold(last_alive, "restart") for t in state.tables()}
        return state

    def set_schedule(self, schedule: list[ScheduledMatch], registry: Registry | None = None) -> None:
        """The schedule (and, after an import, the registry its seats were resolved against)."""
        if registry is not None:
            self.registry = registry
        self.imported = schedule
        if self.drawn:
            schedule = [*schedule, *self.drawn]
        self.schedule = schedule
        self.by_id = {m.match_id: m for m in schedule}
        self.round_end = round_ends(schedule) if schedule else {}
        for m in self.drawn:
            # a called match has no round time to finish by: the next call is not its deadline
            self.round_end[m.round] = None
        self.players = PlayerIndex(schedule, self.registry)

    def set_drawn(self, drawn: list[ScheduledMatch], registry: Registry) -> None:
        """The draw's calls (and the registry holding their seats) replace the previous ones."""
        self.drawn = drawn
        self.set_schedule(self.imported, registry)

    def view(self, table: str) -> TableView:
        """The table's view, created on first sight."""
        view = self.views.get(table)
        if view is None:
            view = self.views[table] = TableView(table)
        return view

    def tables(self) -> list[str]:
        """Every table known from a message or from the schedule, in natural order."""
        names = set(self.views) | {m.table for m in self.schedule}
        return sorted(names, key=natural)

    def is_known(self, table: str) -> bool:
        return table in self.views or any(m.table == table for m in self.schedule)

    def match_for(self, table: str) -> ScheduledMatch | None:
        """The match a table is shown with: its current one, else the one its state is about."""
        cur = self.current.get(table)
        if cur is not None:
            return cur.match
        view = self.views.get(table)
        if view is not None and view.state is not None:
            match = self.by_id.get(view.state.get("match_id") or "")
            # a match moved to another table is that table's, not this one's
            return match if match is not None and match.table == table else None
        return None

    def not_assigned(self, table: str, match_id: str | None) -> ScheduledMatch | None:
        """The scheduled match ``match_id`` if a state of it from ``table`` must count for
        nothing: it is another table's, or this table's but later than the one the hub assigned
        it (its current match, or the one last assigned). None when it may count: no match, a match
        the schedule does not have (shown, never a result: :meth:`is_table_match`), or one of
        this table's matches up to its assigned one."""
        match = self.by_id.get(match_id) if match_id is not None else None
        if match is None:
            return None
        if match.table != table:
            return match
        if self.assigned.get(table) == match_id:
            return None
        cur = self.current.get(table)
        upto = [cur.match] if cur is not None else []
        assigned = self.by_id.get(self.assigned.get(table) or "")
        if assigned is not None and assigned.table == table:
            upto.append(assigned)
        if not upto:
            return None  # every match of this table is played: it may still show one of them
        return None if self._order(match) <= max(self._order(m) for m in upto) else match

    def _order(self, match: ScheduledMatch) -> tuple[int, int]:
        return (self.players.round_index.get(match.round, 0), match.start_wall)

    def is_table_match(self, table: str, match_id: str | None) -> bool:
        """Whether a state of ``match_id`` from ``table`` may make a result, a confirmation or a
        "left this match": a scheduled match of that table (one assigned to it: the hub dropped
        the others on arrival, :meth:`not_assigned`)."""
        match = self.by_id.get(match_id) if match_id is not None else None
        return match is not None and match.table == table

    def profile(self, match: ScheduledMatch | None) -> Profile:
        """The match's rules (the default ones for no match or an unknown profile)."""
        if match is None:
            return self.default_profile
        try:
            return self.profiles.get(match.profile)
        except ProfileError:
            return self.default_profile

    def known_rules(self, match: ScheduledMatch) -> Profile | None:
        """The match's rules, or None when the hub does not know its profile (a custom profile
        whose file is gone since the import): nothing automatic is decided under guessed rules."""
        try:
            return self.profiles.get(match.profile)
        except ProfileError:
            return None

    def assign_payload(self, match: ScheduledMatch) -> dict[str, Any]:
        """The match's ``assign``, carrying its profile as the table needs it: a built-in name, or
        a custom profile's base, overrides and digest (the table needs no file of its own)."""
        return match.assign_payload(self.profiles.wire(match.profile))

    def next_round(self, rnd: str) -> str | None:
        """The round played after ``rnd`` (None for the last)."""
        order = self.players.round_index
        here = order.get(rnd)
        if here is None:
            return None
        return next((r for r, i in order.items() if i == here + 1), None)

    def elsewhere(self, match: ScheduledMatch, side: str) -> Elsewhere | None:
        """The other match the player of ``match``'s ``side`` is still playing, if any."""
        return elsewhere(self.players, match, side, self.views, self.results, self.released)

    def timing(self, table: str, match: ScheduledMatch, config: LateConfig) -> Timing | None:
        """What lateness depends on for ``match`` at ``table``, in hub time (None: the hub holds
        no state of that match from that table)."""
        view = self.views.get(table)
        state = view.state_for(match.match_id) if view is not None else None
        if view is None or state is None:
            return None
        profile = self.known_rules(match)
        if profile is None:
            return None  # the table refuses the assignment too: the TD sees that alert
        sides = ("A", "B")
        waiting = state.get("phase") == Phase.WAITING
        # a match under way whose player checked in late: when lateness counted from matters too
        counted = waiting or late_arrival(match, state, view.state_wall)
        return timing(
            match,
            state,
            received=view.state_wall,
            profile=profile,
            config=config,
            seen=self.first_seen.get((table, match.match_id)),
            elsewhere={s: self.elsewhere(match, s) for s in sides} if waiting else None,
            previous={s: previous_end(self.players, match, s, self.results) for s in sides}
            if counted
            else None,
        )

    def mark_states_stale(self) -> None:
        """The hub lost the room for a while: no table's state held is known to be current."""
        for view in self.views.values():
            view.state_fresh = False
