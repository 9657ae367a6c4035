"""What the hub sends by itself: each table's assignment, and the lateness and break-overrun
penalties the rules make due (computed by :mod:`hub.tournament.rounds` and :mod:`hub.logic.lateness`, pure).

An automatic penalty must never be wrong, so lateness is applied only to a table that is online,
whose automation the TD has not suspended, whose state arrived since it (or the hub) last came
online, and whose state is that of its scheduled match; and never while the hub is cut off from
the broker. All of it in the hub's time: the table's durations are anchored at receipt
(:mod:`hub.logic.tabletime`), its wall clock is never compared with the hub's. Each due command has a
stable id: only ids the store has not recorded are sent, an unanswered one is sent again (same
id, fresh expiry) after ``resend_after_ms``. One table's bad state is logged and skipped: it never
stops the others' lateness.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from drivers.hub_link import HubLink
from hub.live.commands import CommandSender
from hub.live.config import HubConfig
from hub.live.state import RoomState
from hub.logic.holds import LATE_NOTE_MS, Hold, hold_reason, resumed
from hub.logic.lateness import AutoCommand, due_commands, next_deadline
from hub.logic.table_view import TableView
from hub.logic.tabletime import command_expiry
from hub.storage.store import Store
from hub.tournament.rounds import Current, current_matches
from hub.tournament.schedule import ScheduledMatch, round_order
from rulebook.messages import PlayerPages
from rulebook.vocab import Phase

log = logging.getLogger("hub")


def confirmed_matches(
    views: dict[str, TableView],
    results: dict[str, dict[str, Any]],
    tables: set[str] | None = None,
    owns: Callable[[str, str], bool] = lambda _table, _match: True,
) -> set[str]:
    """Matches the tables' states show as confirmed by both players, or left by their table (of
    ``tables``, or every table).

    A table that reports another match of its own (``owns(table, match_id)``: a scheduled match
    of that table) has left every earlier match of its own that has a result. A state of a match
    that is not the table's confirms nothing and leaves nothing.
    """
    by_table: dict[Any, list[str]] = {}
    for match_id, result in results.items():
        by_table.setdefault(result.get("table"), []).append(match_id)
    out: set[str] = set()
    for table in views.keys() if tables is None else tables & views.keys():
        s = views[table].state
        current = s["match_id"] if s is not None else None
        if s is None or not current:
            continue
        if not owns(table, current):
            continue
        confirmed = s.get("confirmed")
        if s["phase"] == Phase.FINISHED and confirmed and confirmed["A"] and confirmed["B"]:
            out.add(current)
        out.update(match_id for match_id in by_table.get(table, ()) if match_id != current)
    return out


def resend_due(seen: dict[str, Any], now: int, resend_after_ms: int) -> bool:
    """Whether a recorded automatic command should go out again: not answered (or refused as
    expired) and last sent at least ``resend_after_ms`` ago."""
    return (seen["done_ok"] is None or seen["done_error"] == "command expired") and (
        now - (seen["sent_wall"] or 0) >= resend_after_ms
    )


class Automation:
    def __init__(
        self,
        room: RoomState,
        store: Store,
        config: HubConfig,
        link: Callable[[], HubLink | None],
        sender: CommandSender,
    ) -> None:
        self.room = room
        self.store = store
        self.config = config
        self._link = link
        self.sender = sender
        #: sticky: once a table reports its next match, its state no longer shows the old
        #: confirmation, and forgetting it would send the old assignment again
        self._confirmed: set[str] = set()
        #: table -> the assign payload last published (published again only when it changes)
        self._assign_payloads: dict[str, dict[str, Any]] = {}
        #: table -> the match last sent to it, kept when its assignment is withdrawn: the table
        #: may hold it although no state saying so has arrived (:meth:`_held`)
        self._sent: dict[str, str] = {}
        #: the schedule by table, each table's matches in playing order, and the rounds' order
        #: (worked out again when the schedule is replaced)
        self._schedule: list[ScheduledMatch] | None = None
        self._by_table: dict[str, list[ScheduledMatch]] = {}
        self._order: dict[str, int] = {}
        #: table -> when its current match may change by time alone (a result's hold running out)
        self.deadlines: dict[str, int | None] = {}
        #: each player's page address of a match of the draw, added to its assignment for the
        #: table's waiting screen (set by the assembly: hub.web.table_pages; None: no pages)
        self.pages: Callable[[str], PlayerPages | None] | None = None

    def republish(self, now: int) -> None:
        """Publish every current assignment again (the hub has reconnected to the broker)."""
        self._assign_payloads.clear()
        self.assign(now)

    def _tables(self) -> dict[str, list[ScheduledMatch]]:
        """The schedule by table, in playing order."""
        room = self.room
        if self._schedule is not room.schedule:
            self._order = {r: i for i, r in enumerate(round_order(room.schedule))}
            by_table: dict[str, list[ScheduledMatch]] = {}
            for m in room.schedule:
                by_table.setdefault(m.table, []).append(m)
            for matches in by_table.values():
                matches.sort(key=lambda m: (self._order[m.round], m.start_wall))
            self._by_table, self._schedule = by_table, room.schedule
        return self._by_table

    def assign(self, now: int, tables: set[str] | None = None) -> set[str]:
        """Work out the current match of ``tables`` (every table: None); publish new assignments,
        withdraw moved ones. Returns the tables whose current match changed (a round began, a
        match was moved). A table's current match depends on its own matches only (their results,
        releases, confirmations) and on time only through a result's hold (:attr:`deadlines`)."""
        room = self.room
        by_table = self._tables()
        before = dict(room.current)
        self._confirmed |= confirmed_matches(room.views, room.results, tables, room.is_table_match)
        scope = by_table.keys() | room.current.keys() if tables is None else tables
        fresh = current_matches(
            [m for t in scope for m in by_table.get(t, ())],
            results=room.results,
            released=room.released,
            confirmed=self._confirmed,
            now=now,
            hold_ms=self.config.hold_ms,
            order=self._order,
            held=self._held(scope),
        )
        for t, cur in fresh.items():
            old = before.get(t)
            if old is not None and old.force and old.match.match_id == cur.match.match_id:
                # once the table took the forced match, it holds it: the assignment stays as sent
                # (a second, unforced one would only set the same match up again)
                fresh[t] = old
        if tables is None:
            room.current = fresh
            self.deadlines = {}
        else:
            for t in scope:
                if t in fresh:
                    room.current[t] = fresh[t]
                else:
                    room.current.pop(t, None)
        for t in scope:
            self.deadlines[t] = self._hold_ends(by_table.get(t, ()), now)
        link = self._link()
        for table in [t for t in room.current if t in scope] if tables is not None else list(room.current):
            cur = room.current[table]
            with room.guard.table(table, "send its assignment"):
                payload = room.assign_payload(cur.match)
                pages = self.pages(cur.match.match_id) if self.pages is not None else None
                if pages:
                    payload["pages"] = pages
                if cur.force:
                    payload["force"] = True
                if self._assign_payloads.get(table) == payload:
                    continue
                if link is None:
                    continue
                link.send_assign(table, payload)
                self._assign_payloads[table] = payload
                self._sent[table] = cur.match.match_id
                if room.assigned.get(table) != cur.match.match_id:
                    room.assigned[table] = cur.match.match_id
                    self.store.set_assigned(table, cur.match.match_id, now)
                    log.info("table %s: assigned %s", table, cur.match.match_id)
        for table, match_id in list(room.assigned.items()):
            if tables is not None and table not in tables:
                continue
            m = room.by_id.get(match_id)
            gone = m is None or m.table != table or match_id in room.released
            if table not in room.current and gone and link is not None:
                # the match was moved elsewhere by a new schedule, or released with nothing after
                # it: a table that restarts (or a new device) must not set it up again from the
                # retained assignment
                link.clear_assign(table)
                self._assign_payloads.pop(table, None)
                del room.assigned[table]
                self.store.clear_assigned(table)
                log.info("table %s: assignment %s withdrawn", table, match_id)
        return {
            t
            for t in (before.keys() | room.current.keys() if tables is None else scope)
            if before.get(t) is None
            or room.current.get(t) is None
            or before[t].match is not room.current[t].match
            or before[t].force != room.current[t].force
        }

    def _held(self, tables: Iterable[str]) -> dict[str, set[str]]:
        """The matches each table may hold: the one its last state reports, and the one last sent
        to it. A withdrawn assignment (a call voided by an undo) is forgotten by the hub, but the
        table still holds that match, unfinished: the next match it is given must replace it. The
        table's state saying it took that match may not have arrived yet (it is on its way, or
        dropped on arrival as a state of a match later than the one sent since): the last state
        alone would leave the next match unforced, and the table would refuse it."""
        room = self.room
        out = {}
        for t in tables:
            view = room.views.get(t)
            mids = {view.match_id if view is not None else None, room.assigned.get(t), self._sent.get(t)}
            held = {m for m in mids if m}
            if held:
                out[t] = held
        return out

    def _hold_ends(self, matches: Any, now: int) -> int | None:
        """When a finished match's hold runs out at this table, making the next one current (None:
        not by time alone)."""
        room = self.room
        for m in matches:
            if m.match_id in room.released:
                continue
            result = room.results.get(m.match_id)
            if result is None:
                return None
            if result.get("verified") or m.match_id in self._confirmed:
                continue
            ends = (result.get("finished_wall") or 0) + self.config.hold_ms
            if ends > now:
                return ends
        return None

    def lateness(self, now: int, tables: set[str] | None = None) -> dict[str, int | None]:
        """Send the lateness and overrun commands due now at ``tables`` (every table: None) that
        were not sent, resend unanswered ones. Returns, for each table looked at, when its next
        command may fall due if nothing about it changes (None: not by time alone): the hub looks
        at a table again then, or as soon as a message, an action or a schedule changes it."""
        link = self._link()
        room = self.room
        scope = room.current.keys() if tables is None else tables & room.current.keys()
        if link is not None and not link.online:
            # cut off from the room: nothing known is current, nothing sent would be timely
            for table in scope:
                self._hold(table, "link", now)
            return {}
        deadlines: dict[str, int | None] = {}
        for table in scope:
            with room.guard.table(table, "apply lateness"):
                deadlines[table] = self._lateness_at(table, room.current[table], now)
        return deadlines

    def _hold(self, table: str, reason: str, now: int) -> None:
        """Automation is held at ``table`` (an unbroken hold keeps its first reason and start)."""
        if table not in self.room.held:
            self.room.held[table] = Hold(now, reason)
            log.info("table %s: automation held (%s)", table, reason)

    def _lateness_at(self, table: str, cur: Current, now: int) -> int | None:
        """One table's lateness and overrun commands (inside the guard); when the next may fall due."""
        room = self.room
        view = room.views.get(table)
        if view is None:
            return None  # never heard of: lateness counts from when it takes its match
        reason = hold_reason(
            view, suspended=table in room.suspended, cut_off=room.bridged_rooms.cut_off(table, now)
        )
        if reason is not None:
            # an offline table gets an alert, never an automatic penalty; a cut-off room's tables'
            # last news may be old (hub.live.bridged_rooms); a table back online: wait for its current state
            # (who arrived while away). What falls due meanwhile is decided when the hold ends.
            self._hold(table, reason, now)
            return None
        hold = room.held.pop(table, None)
        match_id = cur.match.match_id
        if view.state_for(match_id) is None:
            return None  # the table has not taken its match: lateness counts from when it does
        room.first_seen.setdefault((table, match_id), view.state_wall)
        t = room.timing(table, cur.match, self.config.late())
        if t is None:
            return None
        due = due_commands(t, now)
        after = next_deadline(t, now)
        sent: list[AutoCommand] = []
        resend_at: list[int] = []
        if due:
            known = self.store.command_ids(table, match_id)
            for auto in due:
                seen = known.get(auto.id)
                payload = auto.payload(command_expiry(view, now, self.config.cmd_ttl_ms))
                if seen is None:
                    note: dict[str, Any] = {}
                    if auto.due_wall < now - LATE_NOTE_MS:
                        note["due_wall"] = auto.due_wall
                        if hold is not None:
                            note["held"] = hold.reason
                    self.sender.send(table, match_id, payload, origin="auto", actor="hub", now=now, note=note)
                    sent.append(auto)
                    resend_at.append(now + self.config.resend_after_ms)
                elif resend_due(seen, now, self.config.resend_after_ms):
                    # not answered (or refused as expired): the same id again, with a fresh expiry
                    self.sender.transmit(table, payload, now)
                    resend_at.append(now + self.config.resend_after_ms)
                elif seen["done_ok"] is None or seen["done_error"] == "command expired":
                    resend_at.append((seen["sent_wall"] or 0) + self.config.resend_after_ms)
        if hold is not None:
            report = resumed(t, hold, now, sent)
            if report:
                self.store.audit("hub", "automation_resumed", now, table, match_id, report.detail())
                self.store.commit()
        return min([*resend_at, *([after] if after is not None else [])], default=None)


def existing_late_points(room: RoomState, store: Store, table: str, side: str) -> list[dict[str, Any]]:
    """The automatic lateness points ``side`` already has in the match at ``table`` (applied, or
    sent and not yet answered), for a TD about to give a ``late`` penalty by hand: each with its
    ``id``, ``points``, ``waived``, ``applied`` and ``sent_wall``. Empty when there are none.
    """
    match = room.match_for(table)
    if match is None:
        return []
    prefix = f"late:{match.match_id}:{side}:"
    view = room.views.get(table)
    state = view.state_for(match.match_id) if view is not None else None
    applied = (
        {p["id"]: p for p in (state.get("penalty_log") or []) if p["id"].startswith(prefix)} if state else {}
    )
    out = []
    for cmd_id, seen in sorted(store.command_ids(table, match.match_id).items()):
        if not cmd_id.startswith(prefix) or seen["done_ok"] == 0:
            continue
        p = applied.get(cmd_id)
        out.append(
            {
                "id": cmd_id,
                "match_id": match.match_id,
                "side": side,
                "points": p.get("points", 1) if p else (0 if cmd_id.endswith(":forfeit") else 1),
                "waived": bool(p.get("waived")) if p else False,
                "applied": p is not None,
                "sent_wall": seen["sent_wall"],
            }
        )
    return out
