"""What the tables send, from the MQTT link to the store: checked on arrival, deduplicated, stored.

The link calls back on its own thread; :meth:`Ingest.post` only queues the message and wakes the
loop once per batch. :meth:`Ingest.drain` (on the loop) handles up to a thousand messages and
commits them in one transaction, so a room of a thousand tables does not cost a thousand commits
a second; then it hands the tables it touched to ``refresh`` (alerts, tiles, dashboard push).

A table's state comes undecoded (:class:`drivers.hub_link.RawState`) and is decoded here, on the
loop, when it is handled: one replaced while it waits (below) is never decoded at all. Every
message is parsed by the wire schema (:mod:`rulebook.wire`: every field by type and range)
before anything else reads it. One that fails is dropped — never stored, never shown — and the
TD gets one alert per table and kind naming the field (``Table 7 sent an invalid state: field
games[2].points …``). An exception while handling one message drops that message only, and is
alerted once through the room's guard (:mod:`hub.live.guard`).

Events are deduplicated twice: by the per-match sequence tracker (which also notices gaps and
asks the table for a resync) and by the store's unique key. An invalid event whose number can be
read counts as received, so the hub does not keep asking for it. A state snapshot is kept in
memory at once and saved with the batch's alerts (a busy table sends several a second).

The inbox between the two threads is bounded (docs/performance.md, "The hub's backlog"). While a
backlog waits (a batch's worth or more), a table's state still in it is replaced by the table's
next state of the same match: the newer one is handled in its place, and the older ones only if
it fails the wire schema or cannot be decoded (the newest valid one is held, as if each had been
handled in turn; one of a finished match is never replaced, its result is recorded from it;
whether two states are of one match, in order, and the older not finished is read from their
bytes, :meth:`drivers.hub_link.RawState.peek`, and where that is not certain neither is
replaced); and once
:data:`MAX_INBOX` other messages (events, statuses) wait, the MQTT thread waits for the loop to
take a batch before it reads on: the broker holds the rest, up to its own limits, and a table's
events it drops past those are asked for again (a gap, or the hub's catch-up).

When the hub (re)connects it asks every table for the events after the last one stored
(:meth:`Ingest.catch_up`). That one request's answer can be lost as well: the broker is then
still handing the hub what it queued while the hub was away (up to ``max_queued_messages``),
and drops what comes past a full queue, the table's state and events of its answer included;
the table, with nothing more to send, would never show the gap. So a table stays *catching up*
until a live state of it has come since it was asked and the hub holds every event that state
numbers (of its match; a table answers a request with its state first, then the events); until
then the tick asks it again (:meth:`Ingest.retry_catch_up`), after
:data:`CATCH_UP_RETRY_MS`, then twice as long each time up to :data:`CATCH_UP_RETRY_MAX_MS`, at
most :data:`CATCH_UP_ASKS` times in all (then the hub logs that it gave up: the table's next
event, or the next reconnect, asks again). What a table sends again that the hub holds is a
duplicate, dropped.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from drivers.hub_link import HubLink, Peek, RawState, SeqTracker
from hub.live.alerts import Alerts, assignment_refused, command_refused
from hub.live.clock import Clock
from hub.live.commands import CommandSender
from hub.live.incidents import (
    event_cap,
    event_too_big,
    flood,
    invalid_message,
    not_assigned,
    result_kept,
    score_backwards,
)
from hub.live.ratelimit import TableRates
from hub.live.state import RoomState
from hub.logic import clock_estimate, tabletime
from hub.storage.store import Store, StoreWriteFailed
from hub.tournament.schedule import ScheduledMatch
from rulebook.errors import WireError
from rulebook.messages import Envelope, Snapshot
from rulebook.vocab import EventType, Phase
from rulebook.wire import MAX_EVENT_BYTES, parse_event, parse_seq_key, parse_snapshot, parse_status

log = logging.getLogger("hub")

#: how many queued messages one drain handles before yielding to the loop
BATCH = 1000
#: events and statuses the inbox holds at most before the MQTT thread waits for the loop (states
#: take one place per table besides): a few batches, so that a flood's older states are replaced
#: while they wait, and the rest of a flood's backlog stays at the broker, not in the hub's memory
MAX_INBOX = 5 * BATCH
#: how long the MQTT thread waits at most for room in the inbox (a loop stalled longer than this
#: gets the message anyway: the link's keepalive must go on)
INBOX_WAIT_S = 5.0

#: how long the hub waits for a table's answer to its catch-up request before asking again
CATCH_UP_RETRY_MS = 5_000
#: the longest wait between two catch-up requests to one table (each wait doubles up to this)
CATCH_UP_RETRY_MAX_MS = 60_000
#: how many catch-up requests one table is sent at most after one (re)connect, the first included
CATCH_UP_ASKS = 6

#: an inbox entry: [kind, table, message, the entry it replaced or None]; a state replaced by a
#: newer one is left in the deque with kind None (and handled, if need be, with the newer one)
_Entry = list[Any]


def finished_result(
    table: str,
    match: ScheduledMatch,
    state: Snapshot,
    now: int,
    actor_of: Callable[[str], str | None] = lambda _id: None,
) -> dict[str, Any]:
    """The result row of a match whose state says it is finished, received at ``now``.

    It finished when the table says (``finished_ms`` before the snapshot), not when the hub heard
    of it. The score corrections the table applied (at its TD menu, or sent from the hub) are
    kept with their note, when, and who: ``actor_of(command id)`` names the hub's account that
    sent one; a ``local:`` id was entered at the table itself."""
    return {
        "match_id": match.match_id,
        "table": table,
        "round": match.round,
        "player_a": match.player_a,
        "player_b": match.player_b,
        "length": state["length"],
        "score": state["score"],
        "winner": state.get("winner"),
        "end_reason": state.get("end_reason"),
        "decision": state.get("decision"),
        "finished_wall": tabletime.finished(state, now),
        "games": state.get("games") or [],
        "penalties": state.get("penalties") or {"A": 0, "B": 0},
        "penalty_log": state.get("penalty_log") or [],
        "confirmed": state.get("confirmed") or {"A": False, "B": False},
        "corrections": table_corrections(table, state, now, actor_of),
    }


def table_corrections(
    table: str, state: Snapshot, received: int, actor_of: Callable[[str], str | None]
) -> list[dict[str, Any]]:
    """The score corrections a table applied to its match, as the results export lists them."""
    out = []
    for c in state.get("corrections") or []:
        if c["kind"] != "score":
            continue
        cmd_id = c.get("id") or ""
        at_table = cmd_id.startswith("local:") or not cmd_id
        out.append(
            {
                "where": "table" if at_table else "hub",
                "by": f"TD at table {table}" if at_table else actor_of(cmd_id) or "hub",
                "wall": tabletime.correction_time(c, received),
                "before": c["before"],
                "after": c["after"],
                "note": c["note"],
            }
        )
    return out


@dataclass(slots=True)
class CatchingUp:
    """A table asked for its missed events since the hub's last (re)connect, not caught up yet."""

    #: the matches asked for (of the table's last state, its assignment, a match begun since)
    matches: set[str | None]
    #: when it was last asked (the hub's clock), and how many times so far
    asked_at: int
    asks: int = 1
    #: (match, seq) of its last live state since the hub asked: caught up once every event of
    #: that match up to ``seq`` is held
    heard: tuple[str | None, int] | None = None
    #: the wait after the last request before the next one
    wait: int = field(default=CATCH_UP_RETRY_MS)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one table may send (docs/api.md, "Limits"): the defaults are HubConfig's."""

    rate: float = 20.0
    burst: int = 1000
    max_event_bytes: int = MAX_EVENT_BYTES
    max_events_per_match: int = 50_000


def _decoded(table: str, message: dict[str, Any] | RawState) -> dict[str, Any] | None:
    """A state as a JSON object: decoded now if it came undecoded (None, logged: not a snapshot)."""
    return message.decode(table, log) if isinstance(message, RawState) else message


def _peek(message: dict[str, Any] | RawState) -> Peek | None:
    """A waiting state's match, ``seq`` and phase, if certain (an undecoded one is not decoded)."""
    if isinstance(message, RawState):
        return message.peek()
    seq, mid, phase = message.get("seq"), message.get("match_id"), message.get("phase")
    if not isinstance(seq, int) or not (mid is None or isinstance(mid, str)):
        return None
    return Peek(mid, seq, phase if isinstance(phase, str) else "")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _same_result(result: dict[str, Any], state: Snapshot) -> bool:
    """Whether a finished state (or a result made from one) says what a stored result says."""
    return all(result.get(k) == state.get(k) for k in ("score", "winner", "end_reason", "length"))


def went_back(old: Snapshot, new: Snapshot) -> bool:
    """Whether a newer snapshot of the same match has a lower score *and* a lower ``seq``: what a
    table that lost its journal sends (an undo, a waiver or a correction has a higher ``seq``)."""
    return new["seq"] < old["seq"] and any(new["score"][s] < old["score"][s] for s in ("A", "B"))


def is_older(old: Snapshot | None, new: Snapshot) -> bool:
    """Whether ``new`` is an older snapshot of the same match than ``old`` (a late delivery)."""
    return (
        old is not None
        and old.get("match_id") == new.get("match_id")
        and new["seq"] < old["seq"]
        and (new.get("wall") or 0) <= (old.get("wall") or 0)
    )


class Ingest:
    def __init__(
        self,
        room: RoomState,
        store: Store,
        clock: Clock,
        link: Callable[[], HubLink | None],
        sender: CommandSender,
        alerts: Alerts,
        *,
        refresh: Callable[[int, set[str]], None],
        changed: Callable[[], None],
        limits: Limits | None = None,
    ) -> None:
        self.room = room
        self.limits = limits or Limits()
        #: per-table token buckets, used on the MQTT thread under the inbox lock
        self.rates = TableRates(self.limits.rate, self.limits.burst)
        #: (table, match) -> events stored, counted from the store at first sight
        self._match_events: dict[tuple[str, str | None], int] = {}
        self.store = store
        self.clock = clock
        self._link = link
        self.sender = sender
        self.alerts = alerts
        self._refresh = refresh
        self._notify = changed
        self.tracker = SeqTracker()
        #: called with (table, event, now) for every event stored (e.g. the dice towers)
        self.event_observers: list[Callable[[str, Envelope, int], None]] = []
        self.stats = {
            "messages": 0, "events": 0, "duplicates": 0, "dropped": 0, "invalid": 0, "resyncs": 0,
            "rolled_back": 0, "flood_dropped": 0, "too_big": 0, "over_cap": 0, "not_assigned": 0,
            "caught_up": 0, "superseded": 0,
        }  # fmt: skip
        #: (table, match) -> the lowest seq accepted in the batch being handled
        self._batch_seqs: dict[tuple[str, str | None], int] = {}
        #: (table, match) -> the lowest seq whose event was rolled back (asked for again later)
        self._lost: dict[tuple[str, str | None], int] = {}
        #: the last write failed: no table is asked for missing events until one works again (what
        #: it sent could not be stored either, and the answers of a request per batch flood the
        #: table's allowance, so that the answer to the one request that counts is dropped)
        self._writes_failing = False
        #: (table, kind, field) already logged as invalid: logged once, then counted
        self._invalid_logged: set[tuple[str, str, str]] = set()
        self._restored: set[tuple[str, str | None]] = set()
        #: tables asked for their missed events at the hub's last (re)connect, not caught up yet
        #: (:meth:`catch_up`, :meth:`retry_catch_up`)
        self._catching_up: dict[str, CatchingUp] = {}
        self._inbox: collections.deque[_Entry] = collections.deque()
        self._inbox_lock = threading.Lock()
        #: signalled by the loop when it took a batch (the MQTT thread may wait for room)
        self._inbox_room = threading.Condition(self._inbox_lock)
        #: table -> its state entry still waiting in the inbox (replaced by a newer one)
        self._queued_states: dict[str, _Entry] = {}
        #: events and statuses waiting in the inbox (bounded by MAX_INBOX)
        self._queued_others = 0
        self._drain_scheduled = False
        #: the hub's monotonic time when the inbox last went from empty to not empty: no entry in
        #: it arrived before, so the batch being handled waited at most since then
        self._filled_at = 0
        #: the batch being handled waited a short while only (tabletime.note_state)
        self._prompt = False
        #: the hub's monotonic time at its last (re)connect, and the tables it had a state of
        #: then: what the broker queued for it comes first, none of it prompt. None while the hub
        #: is not linked, or linked but not yet caught up: the broker's queue can reach the inbox
        #: before the loop hears that the link is up, and none of it is prompt either
        self._linked_at: int | None = None
        self._known_at_link: set[str] = set()
        self._unsaved_states: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        #: each kind's handler: (table, message, now) -> handled (a state may come undecoded)
        self._handlers: dict[str, Callable[[str, Any, int], bool]] = {
            "status": self._on_status,
            "state": self._on_state,
            "replayed_state": self._on_replayed_state,
            "event": self._on_event,
        }

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """From now on, posted messages wake this loop (called on it)."""
        self._loop = loop
        self._loop_thread = threading.get_ident()

    # -- link thread -> loop ------------------------------------------------------------------

    def post(self, kind: str, table: str, obj: dict[str, Any] | RawState) -> None:
        """Called on the MQTT thread: queue the message and wake the loop once per batch.

        ``kind`` is ``status``, ``state``, ``replayed_state`` (a retained state the broker
        replayed) or ``event``. A state may come undecoded (:class:`drivers.hub_link.RawState`):
        it is decoded on the loop when it is handled, so that one a newer state replaces while
        it waits is never decoded at all.
        """
        with self._inbox_lock:
            if not self.rates.allow(table, time.monotonic()):
                return  # a flood: counted, and alerted at the next drain
            entry: _Entry = [kind, table, obj, None]
            if kind == "state" or kind == "replayed_state":
                self._supersede(entry)
            else:
                if self._queued_others >= MAX_INBOX and self._loop is not None and self._must_wait():
                    if not self._drain_scheduled:
                        self._drain_scheduled = True
                        self._loop.call_soon_threadsafe(self.drain)
                    self._inbox_room.wait_for(lambda: self._queued_others < MAX_INBOX, INBOX_WAIT_S)
                self._queued_others += 1
            if not self._inbox:
                self._filled_at = self.clock.monotonic_ms()
            self._inbox.append(entry)
            if self._drain_scheduled or self._loop is None:
                return
            self._drain_scheduled = True
        self._loop.call_soon_threadsafe(self.drain)

    def backlogged(self) -> bool:
        """Whether messages still wait in the inbox (another batch follows at once)."""
        return bool(self._inbox)

    def _must_wait(self) -> bool:
        """Whether a poster may wait for the loop: not the loop itself (it would wait for itself)."""
        return self._loop is not None and threading.get_ident() != self._loop_thread

    def _supersede(self, entry: _Entry) -> None:
        """Under the inbox lock, while a backlog waits: a table's state still in the inbox is taken
        out, to be handled only if this newer one of the same match fails the wire schema (and
        counted as ``superseded`` otherwise). Not a finished match's (its result is taken from
        it), nor an older snapshot or one of another kind (a replayed state is not live)."""
        kind, table, obj, _ = entry
        queued = self._queued_states.get(table)
        self._queued_states[table] = entry
        if queued is None or queued[0] != kind or len(self._inbox) < BATCH:
            return
        new, old = _peek(obj), _peek(queued[2])
        if (
            new is not None
            and old is not None
            and old.match_id == new.match_id
            and old.phase != Phase.FINISHED
            and new.seq >= old.seq
        ):
            entry[3] = list(queued)
            queued[0] = queued[2] = queued[3] = None

    def admit(self, table: str) -> bool:
        """Called on the MQTT thread for a table's message handled elsewhere (its device's health
        report): it takes from the same per-table allowance as the table's other messages, and
        one over it is dropped, counted and alerted like them."""
        with self._inbox_lock:
            allowed = self.rates.allow(table, time.monotonic())
            if allowed or self._drain_scheduled or self._loop is None:
                return allowed
            self._drain_scheduled = True  # the next drain raises the flood alert
        self._loop.call_soon_threadsafe(self.drain)
        return False

    def drain(self, limit: int = BATCH) -> None:
        """Handle up to ``limit`` queued messages in one transaction (the rest in the next call)."""
        with self._inbox_lock:
            self._drain_scheduled = False
            self._prompt = self.clock.monotonic_ms() - self._filled_at <= clock_estimate.PROMPT_MS
            batch = [self._inbox.popleft() for _ in range(min(limit, len(self._inbox)))]
            for entry in batch:
                if self._queued_states.get(entry[1]) is entry:
                    del self._queued_states[entry[1]]
                elif entry[0] not in ("state", "replayed_state", None):
                    self._queued_others -= 1
            self._inbox_room.notify_all()
            if self._inbox and self._loop is not None:
                self._drain_scheduled = True
                self._loop.call_soon(self.drain)
            flooded = self.rates.take_dropped()
        if flooded:
            self._flooded(flooded)
        if not batch:
            return
        now = self.clock.now_wall()
        touched: set[str] = set()
        guard = self.room.guard
        failure: BaseException | None = None
        for head in batch:
            # a state replaced by a newer one (kind None) is handled with it; the newer one first,
            # then, while none is taken, the older ones it replaced
            item: _Entry | None = head if head[0] is not None else None
            handled = False
            while item is not None:
                kind, table, obj, item = item
                self.stats["messages"] += 1
                if handled:
                    self.stats["superseded"] += 1
                    continue
                try:
                    with guard.table(table, f"handle a {kind} message"):
                        handled = self._handlers[kind](table, obj, now)
                        if handled:
                            touched.add(table)
                except Exception as exc:  # the guard lets only the database's own failures through
                    failure = failure or exc
                if not handled:
                    self.stats["dropped"] += 1
        if failure is None:
            try:
                self.store.commit()
            except StoreWriteFailed as exc:
                failure = exc
        else:
            self.store.write_failed(failure)
        if failure is None:
            self._batch_seqs.clear()
        else:
            self._unaccept_batch(touched)
        if touched:
            self._refresh(now, touched)
        self._notify()

    def _flooded(self, dropped: dict[str, int]) -> None:
        now = self.clock.now_wall()
        for table, count in dropped.items():
            self.stats["flood_dropped"] += count
            self.alerts.raise_(flood(table, self.limits.rate, self.limits.burst), now)
            log.warning("table %s: %d messages dropped (over its rate)", table, count)

    def _unaccept_batch(self, touched: set[str]) -> None:
        """The batch was rolled back: its events were never stored. Forget that they arrived (the
        tracker would take them for duplicates), and ask their tables for them once the database
        can be written again (:meth:`storage_changed`)."""
        for key, seq in self._batch_seqs.items():
            self.tracker.forget_match(*key)
            self._restored.discard(key)
            self._match_events.pop(key, None)  # counted again from the store
            self._lost[key] = min(seq, self._lost.get(key, seq))
        self.stats["rolled_back"] += len(self._batch_seqs)
        self._batch_seqs.clear()
        self._unsaved_states |= {t for t in touched if self.room.views.get(t) is not None}

    def storage_changed(self, failure: str | None) -> None:
        """The store's listener: after a failure, the states must be saved again; once writes
        work again, every table that lost events is asked for them (from the first not stored)."""
        self._writes_failing = failure is not None
        if failure is not None:
            self._unsaved_states |= {t for t, v in self.room.views.items() if v.state is not None}
            return
        link = self._link()
        if link is None:
            return
        for (table, mid), lost in sorted(self._lost.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            # from the first event not stored: events stored since (after writes worked again)
            # may be above it, and the table's answer repeats them only as duplicates
            from_seq = lost
            self.stats["resyncs"] += 1
            log.info("table %s: asking again for the events of %s from %s (not stored)", table, mid, from_seq)
            link.request_resync(table, mid, from_seq)
        self._lost.clear()

    def link_lost(self) -> None:
        """The hub's link went down: what arrives next, until :meth:`catch_up`, is the broker's
        queue (or the bridged rooms'), never a prompt state."""
        self._linked_at = None

    def catch_up(self) -> None:
        """The hub (re)connected to the broker: ask every table it knows for the events after
        the last one stored, of the match it last showed and of the match it is assigned.

        While the hub was away the broker queued the room's events for it, up to its limits: a
        table (or a program holding a table's credential) that flooded the queue made the broker
        drop every other table's events past it. A quiet table's next event would reveal the gap
        only much later (or never, at the end of its match). Asking each table at once costs one
        small message per table; what it sends again that the hub has is a duplicate, dropped.
        A table whose state after this names a match with more events than the hub holds is
        asked for that match (:meth:`_on_state`), and one not caught up is asked again by the
        tick (:meth:`retry_catch_up`): the answer may be lost like the events it replaces."""
        link = self._link()
        if link is None:
            return
        now = self.clock.now_wall()
        self._catching_up = {}
        self._linked_at = self.clock.monotonic_ms()
        self._known_at_link = {t for t, v in self.room.views.items() if v.state is not None}
        for table in self.room.tables():
            view = self.room.views.get(table)
            matches = {view.match_id if view is not None else None}
            matches.add(self.room.assigned.get(table))
            if view is None or view.state is None:
                matches.discard(None)  # a table never heard from has no events of "no match"
            self._catching_up[table] = CatchingUp(matches, now)
            self._ask_all(link, table, matches)

    def retry_catch_up(self, now: int) -> None:
        """Called by the tick: ask again every table still catching up whose wait is over (no
        state since it was asked, or one that numbers events the hub still lacks); give up on
        one asked :data:`CATCH_UP_ASKS` times. Nothing while the hub is cut off (it asks every
        table anew when it reconnects)."""
        link = self._link()
        if not self._catching_up or link is None or not link.online or self._writes_failing:
            return
        for table, entry in list(self._catching_up.items()):
            if entry.heard is not None and self._caught_up(table, *entry.heard):
                del self._catching_up[table]
            elif now - entry.asked_at < entry.wait:
                continue
            elif entry.asks >= CATCH_UP_ASKS:
                del self._catching_up[table]
                log.warning(
                    "table %s: no answer to %d requests for its missed events since the hub "
                    "reconnected; its next event or the next reconnect asks again",
                    table,
                    entry.asks,
                )
            else:
                entry.asks += 1
                entry.asked_at = now
                entry.wait = min(entry.wait * 2, CATCH_UP_RETRY_MAX_MS)
                log.info("table %s: asking again for its missed events (request %d)", table, entry.asks)
                self._ask_all(link, table, entry.matches)

    def catching_up(self) -> set[str]:
        """The tables asked for their missed events and not caught up yet."""
        return set(self._catching_up)

    def _ask_all(self, link: HubLink, table: str, matches: set[str | None]) -> None:
        for mid in sorted(matches, key=lambda m: m or ""):
            with self.room.guard.table(table, "ask for its missed events"):
                self._ask(link, table, mid, self.store.max_seq(table, mid or "") + 1)

    def _held(self, table: str, mid: str | None) -> int:
        """The highest event number of ``table``'s ``mid`` the hub holds (in the batch too)."""
        return max(self.store.max_seq(table, mid or ""), self._batch_seqs.get((table, mid), 0))

    def _caught_up(self, table: str, mid: str | None, seq: int) -> bool:
        """Whether the hub holds the events a state of ``mid`` numbering ``seq`` says were made."""
        return mid is None or self._held(table, mid) >= seq

    def _ask(self, link: HubLink, table: str, mid: str | None, from_seq: int) -> None:
        self.stats["caught_up"] += 1  # not counted as resyncs: those are the gaps noticed
        log.debug("table %s: asking for the events of %s from %s", table, mid, from_seq)
        link.request_resync(table, mid, from_seq)

    def save_states(self) -> None:
        """Persist the latest snapshot of every table that changed (a cache for restarts: the
        tables announce their state again whenever the hub comes online)."""
        for table in self._unsaved_states:
            view = self.room.views[table]
            if view.state is not None:
                with self.room.guard.table(table, "save its state"):
                    self.store.put_state(table, view.state, view.state_wall)
        self._unsaved_states.clear()

    # -- one message each ---------------------------------------------------------------------

    def _invalid(self, table: str, kind: str, error: WireError, now: int) -> bool:
        """Drop a message that failed the wire schema, and tell the TD (one alert per table and kind)."""
        self.stats["invalid"] += 1
        key = (table, kind, error.path)
        if key not in self._invalid_logged:
            if len(self._invalid_logged) > 10_000:
                self._invalid_logged.clear()
            self._invalid_logged.add(key)
            log.warning("table %s: invalid %s dropped: %s", table, kind, error)
        self.alerts.raise_(invalid_message(table, kind, str(error)), now)
        return False

    def _on_status(self, table: str, obj: dict[str, Any], now: int) -> bool:
        try:
            status = parse_status(obj)
        except WireError as exc:
            return self._invalid(table, "status", exc, now)
        view = self.room.view(table)
        online = status["online"]
        came_online = online and not view.online
        if view.status is None or online != view.online:
            view.status_since = now
        view.status, view.online = status.copy(), online
        if online:
            view.no_device = None  # a device is there again (hub.fleet.device_change)
        self.store.put_status(table, status.copy(), online, view.status_since)
        journal = status.get("journal")
        if journal is not None and journal["problem"] == "lost" and journal["match_id"] is not None:
            self._journal_lost(table, journal["match_id"], journal["since_wall"])
        if came_online:
            view.state_fresh = False
            self.sender.resend_unanswered(table, now)
        return True

    def _on_replayed_state(self, table: str, state: dict[str, Any] | RawState, now: int) -> bool:
        """A retained state the broker replayed: shown, but not taken as the table's current one
        for automation (a restored broker may replay one older than the table's latest)."""
        obj = _decoded(table, state)
        if obj is None:
            return False  # not a snapshot at all: logged and dropped, as the link drops one
        fresh = self.room.view(table).state_fresh
        accepted = self._on_state(table, obj, now, live=False)
        self.room.view(table).state_fresh = fresh and accepted
        return accepted

    def _on_state(
        self, table: str, message: dict[str, Any] | RawState, now: int, *, live: bool = True
    ) -> bool:
        obj = _decoded(table, message)
        if obj is None:
            return False  # not a snapshot at all: logged and dropped (nothing of the table touched)
        view = self.room.view(table)
        try:
            state = parse_snapshot(obj, view.state)
        except WireError as exc:
            # the table's current state is unknown now: no automatic decision on the last good one
            view.state_fresh = False
            return self._invalid(table, "state", exc, now)
        if state["table"] != table:
            return self._invalid(
                table,
                "state",
                WireError("field.choice", path="table", kind="state", choices=table, got=state["table"]),
                now,
            )
        mid = state["match_id"]
        foreign = self.room.not_assigned(table, mid)
        if foreign is not None:
            # another table's match, or this table's next one: never its score, result or
            # confirmation (a table's credential is on its SD card, and anyone may hold it). The
            # state held from before is no longer the table's current one either: no automatic
            # decision on it until the table's own match is heard of again (the table may have
            # had its players check in meanwhile)
            view.state_fresh = False
            self.stats["not_assigned"] += 1
            if foreign.table == table and mid in self.room.released:
                # a match the TD took from this table (a call voided or moved): the table holds
                # it until its next assignment reaches it, and its state of it may arrive after
                # that assignment was sent. Dropped all the same, but no intrusion to alert
                return False
            self.alerts.raise_(not_assigned(table, foreign.match_id, foreign.table), now)
            return False
        if is_older(view.state, state):
            return False
        old = view.state
        if old is not None and mid is not None and old.get("match_id") == mid and went_back(old, state):
            self.alerts.raise_(score_backwards(table, mid, old, state), now)
        if live:
            settling = self._linked_at is None or (
                table in self._known_at_link
                and self.clock.monotonic_ms() - self._linked_at <= clock_estimate.LINK_SETTLE_MS
            )
            # a bridged room back from an outage hands over what its broker kept first
            cut_off = self.room.bridged_rooms.cut_off(table, now)
            prompt = self._prompt and table not in self._catching_up and not settling and not cut_off
            tabletime.note_state(view, state, now, prompt=prompt)
        view.state, view.state_wall, view.state_fresh = state, now, True
        self._unsaved_states.add(table)
        catching_up = self._catching_up.get(table)
        if catching_up is not None:
            self._heard_while_catching_up(table, catching_up, mid, state["seq"], live=live)
        self._note_result(table, state, now)
        return True

    def _on_event(self, table: str, obj: dict[str, Any], now: int) -> bool:
        try:
            evt = parse_event(obj)
        except WireError as exc:
            self._count_invalid_event(table, obj)
            return self._invalid(table, "event", exc, now)
        mid = evt["match_id"]
        self._track(table, mid, evt["seq"])
        stored: Envelope = {**evt, "match_id": mid or ""}
        body = _dumps(stored)
        if len(body) * 4 > self.limits.max_event_bytes and len(body.encode()) > self.limits.max_event_bytes:
            self.stats["too_big"] += 1
            self.alerts.raise_(event_too_big(table, len(body.encode()), self.limits.max_event_bytes), now)
            return False  # counted as received (tracked above): asking again brings it back
        key = (table, mid)
        count = self._match_events.get(key)
        if count is None:
            count = self._match_events[key] = self.store.count_events(table, mid or "")
        if count >= self.limits.max_events_per_match:
            self.stats["over_cap"] += 1
            self.alerts.raise_(event_cap(table, mid, self.limits.max_events_per_match), now)
            return False
        if not self.store.add_event(table, stored, now, body):
            self.stats["duplicates"] += 1
            return False
        self._match_events[key] = count + 1
        self.stats["events"] += 1
        for observe in self.event_observers:
            try:
                observe(table, stored, now)
            except Exception:  # an observer's fault must not lose the event or stop the batch
                log.exception("table %s: event observer failed", table)
        kind = evt["type"]
        # the wire checked a type's own fields when present (a refused input's event bears its
        # type without them): read with ``get``
        fields = cast(Mapping[str, object], evt)
        if kind == EventType.CMD_DONE:
            cmd_id = fields.get("id")
            if isinstance(cmd_id, str):
                ok = fields.get("ok") is True
                error = fields.get("error")
                error = error if isinstance(error, str) else None
                if self.store.command_done(cmd_id, ok, error, now) and not ok:
                    self.alerts.raise_(command_refused(table, cmd_id, fields.get("cmd"), mid, error), now)
        elif kind == EventType.ASSIGN and "rejected" in evt:
            self.alerts.raise_(assignment_refused(table, evt["rejected"], mid, now), now)
        return True

    def _heard_while_catching_up(
        self, table: str, entry: CatchingUp, mid: str | None, seq: int, *, live: bool
    ) -> None:
        """A state of a table catching up: caught up if the hub holds every event of its match
        it numbers; a match begun while the hub was away is asked for at once (and again with
        the others until caught up). The events of an answer follow its state: the tick looks
        again (:meth:`retry_catch_up`). A retained state the broker replayed may be older than
        the table's latest (a restored broker): it shows the hub behind, never caught up."""
        if self._caught_up(table, mid, seq):
            if live:
                del self._catching_up[table]
            return
        if live:
            entry.heard = (mid, seq)
        if mid not in entry.matches:
            entry.matches.add(mid)
            link = self._link()
            if link is not None:
                self._ask(link, table, mid, self._held(table, mid) + 1)

    def _track(self, table: str, mid: str | None, seq: int) -> None:
        """Note an event's number; a gap asks the table to send what is missing."""
        key = (table, mid)
        if key not in self._restored:
            self._restored.add(key)
            self.tracker.restore(table, mid, *self.store.seq_knowledge(table, mid or ""))
        accepted = self.tracker.accept(table, mid, seq)
        if accepted.kind != "duplicate":
            key = (table, mid)
            self._batch_seqs[key] = min(seq, self._batch_seqs.get(key, seq))
        link = self._link()
        if accepted.kind == "gap" and link is not None and not self._writes_failing:
            self.stats["resyncs"] += 1
            log.info("table %s: events %s of %s missing; asking for them", table, accepted.missing, mid)
            link.request_resync(table, mid, accepted.missing.start)

    def _journal_lost(self, table: str, match_id: str, since_wall: int) -> None:
        """The table lost its journal of ``match_id`` and numbers that match's events from 1 again
        (PROTOCOL §3.2): file the events stored so far under another id (kept, and shown in the
        table's events) so that the new ones are not taken for duplicates. Once per notice."""
        marker = f"journal_lost:{table}:{match_id}:{since_wall}"
        if self.store.get_meta(marker) is not None:
            return
        archived = self.renumbered(table, match_id, f"{match_id}~lost-{since_wall}")
        self.store.set_meta(marker, str(archived))
        log.warning(
            "table %s lost its journal of %s: %d earlier events filed apart", table, match_id, archived
        )

    def renumbered(self, table: str, match_id: str, archived_id: str) -> int:
        """``table`` numbers ``match_id``'s events from 1 again (its journal lost, or a new device
        took the match): the events stored so far are filed under ``archived_id`` (kept, and
        shown in the table's events), so that the new ones are not taken for duplicates. Returns
        how many were filed apart."""
        archived = self.store.archive_events(table, match_id, archived_id)
        self.tracker.forget_match(table, match_id)
        self._restored.discard((table, match_id))
        self._match_events.pop((table, match_id), None)
        return archived

    def _actor_of(self, cmd_id: str) -> str | None:
        """Who sent a command the hub recorded (a TD's account, ``hub`` for an automatic one)."""
        cmd = self.store.command(cmd_id)
        return None if cmd is None else str(cmd.get("actor") or cmd.get("origin") or "hub")

    def _count_invalid_event(self, table: str, obj: object) -> None:
        """An invalid event whose number is readable counts as received: asking the table for it
        again would only bring the same bad event back."""
        try:
            seq, mid = parse_seq_key(obj)
        except WireError:
            return
        self._track(table, mid, seq)

    def _note_result(self, table: str, state: Snapshot, now: int) -> None:
        """Record a finished match's result (or withdraw it if a waiver reopened the match)."""
        mid = state.get("match_id")
        match = self.room.by_id.get(mid) if isinstance(mid, str) else None
        if match is None or not isinstance(mid, str) or not self.room.is_table_match(table, mid):
            return
        results = self.room.results
        existing = results.get(mid)
        if existing is not None and (existing["verified"] or existing["corrected_at_hub"]):
            # what the TD verified or corrected on the hub stands: only a TD's correction changes
            # it (after one, the table still shows what the TD corrected: no alert for that)
            differs = state["phase"] != Phase.FINISHED or not _same_result(existing, state)
            if differs and not existing["corrected_at_hub"]:
                self.alerts.raise_(result_kept(table, mid, existing, state), now)
            return
        if state["phase"] != Phase.FINISHED:
            if existing is not None:
                self.store.delete_result(mid)
                del results[mid]
                self.alerts.results_changed()
            return
        result = finished_result(table, match, state, now, self._actor_of)
        same = False
        if existing is not None:
            keys = ("score", "winner", "end_reason", "length", "decision", "confirmed")
            same = all(existing.get(k) == result[k] for k in keys)
            # every estimate of the end is no earlier than the true one: the earliest is the best
            # (a retained state replayed after a restart is older than the table's next one)
            ended = existing.get("finished_wall")
            if isinstance(ended, int):
                if same and result["finished_wall"] >= ended:
                    return
                result["finished_wall"] = min(result["finished_wall"], ended)
            elif same:
                return
        self.store.put_result(result, keep_verified=existing is not None and same)
        stored = self.store.result(mid)
        if stored is not None:
            results[mid] = stored
            self.alerts.results_changed()
