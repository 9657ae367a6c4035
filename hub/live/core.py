"""The hub: wires its jobs together on one asyncio loop and is what the web server, the CLI and the
tests hold.

The jobs, each in its own module (``docs/ARCHITECTURE.md`` shows what flows between them):

- :mod:`hub.live.ingest` — MQTT messages from the link's thread into an inbox, drained in batches on
  the loop: checked, deduplicated, stored (one transaction per batch);
- :mod:`hub.live.automation` — assignments and the lateness / break-overrun penalties;
- :mod:`hub.live.alerts` — raising, resolving and acknowledging alerts;
- :mod:`hub.live.actions` — the TD's actions at a table: commands, releases, suspensions, results;
- :mod:`hub.live.round_control` — the TD's actions for the whole room: rounds, clocks, moves, imports;
- :mod:`hub.live.calls` — the draw: results fed into the bracket, the next matches called to the
  free tables (as scheduled matches), the TD's actions on the draw;
- :mod:`hub.live.next_lines` — after a draw's match, where its players go next, sent to its table;
- :mod:`hub.live.views` — tiles, room, table detail, schedule and result lists, board, and the push
  of what changed;
- :mod:`hub.live.state` — the room as the hub holds it in memory, shared by all of them.

A periodic ``tick`` (every second, or whenever a test calls it) drains the inbox, asks again the
tables whose missed events have not come since the hub reconnected
(:meth:`hub.live.ingest.Ingest.retry_catch_up`), assigns matches, and looks at the tables whose
turn has come — those a message or an action changed since the last tick, and those whose
deadline (:mod:`hub.live.deadlines`: the next lateness point, a break's end, the offline grace,
the projected finish) has passed: it applies their lateness, re-evaluates their alerts and
pushes what changed to the dashboards. The whole room is looked at only when something of the
whole room changed (start, the broker connection, a schedule import, a round's action, a result
verified). Time comes from an injected clock (``clock.now_wall()``): tests move it by twelve
minutes and call ``tick()`` instead of waiting.

Pacing under load (docs/performance.md, "States decoded only when handled, …"): the tables a
batch of messages touched are looked at once per frame (``HubConfig.frame_s``) while a backlog
waits, and at once otherwise (:meth:`Hub._batch_touched`); the periodic tick that must look at
more than :data:`TICK_SLICE` tables looks at them in slices, the loop serving batches and the
web server between two (:meth:`Hub.tick_in_slices`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from drivers.hub_link import HubLink
from hub.live.actions import Actions
from hub.live.alerts import Alerts
from hub.live.automation import Automation
from hub.live.bridged_rooms import BridgedRooms, BridgeListener
from hub.live.calls import DrawCalls
from hub.live.clock import Clock, SystemClock
from hub.live.commands import CommandSender
from hub.live.config import HubConfig
from hub.live.deadlines import Deadlines
from hub.live.dice_towers import DiceTowers
from hub.live.incidents import quarantined, table_fault
from hub.live.ingest import Ingest, Limits
from hub.live.next_lines import NextLines
from hub.live.round_control import RoundControl
from hub.live.state import RoomState, natural
from hub.live.storage_health import DISK_KEY, STORAGE_KEY, StorageHealth, disk_low, storage_failed
from hub.live.time_beacon import TimeBeacon
from hub.live.views import Views
from hub.logic.conditions import AlertConfig
from hub.logic.holds import ALIVE_EVERY_MS, ALIVE_KEY
from hub.logic.table_view import TableView
from hub.storage.store import Store, is_storage_error
from hub.tournament.rounds import Current
from hub.tournament.schedule import ScheduledMatch

log = logging.getLogger("hub")

#: a periodic tick that must look at more tables than this looks at them this many at a time,
#: letting the loop serve the batches and the web server between two slices (:meth:`Hub.tick_in_slices`)
TICK_SLICE = 250


class Hub:
    """The TD hub (see module doc). Create, ``await start()``, ``await stop()``; all on one loop."""

    def __init__(self, config: HubConfig, store: Store, clock: Clock | None = None) -> None:
        self.config = config
        self.store = store
        self.clock = clock or SystemClock()
        self.link: HubLink | None = None
        self.room_state = RoomState.load(store, config.profiles.get(config.profile), config.profiles)
        self._subscribers: list[Callable[[dict[str, Any]], None]] = []
        self._change_listeners: list[Callable[[], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tick_task: asyncio.Task[None] | None = None
        #: the fleet's hooks (hub.fleet.setup): called with the link before it starts, and with
        #: each table's device report on the loop
        self.link_setup: list[Callable[[HubLink], None]] = []
        self.on_device: Callable[[str, dict[str, Any]], None] | None = None
        #: when each table must be looked at again, by time alone
        self.deadlines = Deadlines()
        #: tables changed (a message, an action) since the last tick: looked at by the next one
        self._pending: set[str] = set()
        #: the next tick looks at every table (at start, and after a change of the whole room)
        self._whole_room = True
        #: when the hub last wrote that it runs (hub.logic.holds.ALIVE_KEY)
        self._alive_written = -ALIVE_EVERY_MS
        #: tables batches touched that wait for the frame's look (:meth:`_batch_touched`)
        self._frame: set[str] = set()
        #: when (time.monotonic) the batches' tables were last looked at, and the frame's timer
        self._frame_looked = -config.frame_s
        self._frame_timer: asyncio.TimerHandle | None = None
        #: a tick is running: the tables its own drain touches are looked at by the tick itself
        self._ticking = False
        #: the tables a periodic tick in slices has still to look at (None: no such tick runs),
        #: and whether it looks at the whole room (:meth:`tick_in_slices`)
        self._slicing: set[str] | None = None
        self._slicing_room = False

        room, link = self.room_state, self._current_link
        alert_config = AlertConfig(
            config.offline_grace_ms,
            config.not_started_grace_ms,
            config.late_alert_lead_ms,
            config.clock_skew_alert_ms,
            opening_grace_ms=config.opening_grace_ms,
        )
        self.alerts = Alerts(room, store, alert_config, config.late())
        self.sender = CommandSender(store, link)
        self.ingest = Ingest(
            room,
            store,
            self.clock,
            link,
            self.sender,
            self.alerts,
            refresh=self._batch_touched,
            changed=self._changed,
            limits=Limits(
                config.table_rate, config.table_burst, max_events_per_match=config.max_events_per_match
            ),
        )
        #: the hub's time for the tables (``hub/time``), so a table can show that its clock is off
        self.time_beacon = TimeBeacon(self.clock, link)
        self.dice = DiceTowers(room, store, self.alerts)
        self.ingest.event_observers.append(self.dice.on_event)
        self.automation = Automation(room, store, config, link, self.sender)
        self.display = Views(room, self.alerts, store, config, self.clock, link, self._publish)
        self.actions = Actions(
            room,
            self.alerts,
            store,
            config,
            self.clock,
            self.sender,
            refresh=self._refresh,
            tick=self.tick_room,
            publish=self._publish,
        )
        self.round_control = RoundControl(
            room,
            store,
            config,
            self.clock,
            self.actions,
            refresh=self._refresh,
            tick=self.tick_room,
            publish=self._publish,
        )
        self.draw = DrawCalls(
            room, store, self.clock, tick=self.tick_room, results_changed=self.alerts.results_changed
        )
        #: the "Next:" lines of each draw table's finished match, sent as the draw changes
        self.next_lines = NextLines(room, self.draw, self._current_link)
        self.storage = StorageHealth(store, config.min_free_mb, config.disk_check_ms)
        store.listeners.append(self._storage_changed)
        self._setup_rooms()

    def _setup_rooms(self) -> None:
        """The venue's bridged rooms (hub.live.bridged_rooms): their bridges' notices come over the link."""
        if not self.config.rooms:
            return
        room = self.room_state
        room.bridged_rooms = BridgedRooms.of(dict(self.config.rooms), self.clock.now_wall())
        listener = BridgeListener(
            self.config.event,
            room.bridged_rooms,
            now=self.clock.now_wall,
            link=self._current_link,
            max_seq=self.store.max_seq,
            mark_stale=lambda t: setattr(room.view(t), "state_fresh", False),
            refresh=self._rooms_changed,
        )
        listener.match_of = lambda t: room.view(t).match_id
        self.link_setup.append(listener.attach)

    def _rooms_changed(self, now: int) -> None:
        """A room's bridge went down or came back (or its catching up ended): every table is
        looked at again at the next tick (its lateness, its alerts, the room's alert) and the
        tiles are pushed now."""
        self._refresh(now, None)
        self._changed()

    def _current_link(self) -> HubLink | None:
        return self.link

    # -- start / stop -------------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.ingest.attach(self._loop)
        c = self.config
        post = self.ingest.post
        self.link = HubLink(
            c.event,
            c.broker_host,
            c.broker_port,
            on_status=self._on_status,
            on_state=lambda t, o: post("state", t, o),
            on_event=lambda t, o: post("event", t, o),
            username=c.username,
            password=c.password,
            client_id=c.client_id,
            on_online=self._on_link_online,
            on_state_replayed=lambda t, o: post("replayed_state", t, o),
            on_device=self._on_device_report if self.on_device is not None else None,
            # states decoded on the loop, and only those handled (hub.live.ingest)
            on_raw_state=lambda t, r: post("replayed_state" if r.replayed else "state", t, r),
        )
        for setup in self.link_setup:
            setup(self.link)
        self.time_beacon.start()
        self.link.start()
        self.tick()
        if c.tick_interval:
            self._tick_task = asyncio.create_task(self._ticker(c.tick_interval))

    async def stop(self) -> None:
        if self._tick_task is not None:
            self._tick_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tick_task
        await self.time_beacon.stop()
        if self.link is not None:
            link, self.link = self.link, None
            await asyncio.get_running_loop().run_in_executor(None, link.stop)
        with self._storage():
            self.ingest.drain()
            self._frame_end()
            self.ingest.save_states()
            self.store.commit()

    async def _ticker(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.tick_in_slices()
            except Exception:
                log.exception("tick failed")

    def _on_link_online(self, online: bool) -> None:
        """The hub's own connection changed (called on the MQTT thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._link_changed, online)

    def _on_status(self, table: str, status: dict[str, Any]) -> None:
        """A table's status (MQTT thread): to the inbox; a table that comes online gets the hub's
        time soon, so that its screen can say at once whether its clock is off."""
        if status.get("online") is True:
            self.time_beacon.soon()
        self.ingest.post("status", table, status)

    def _on_device_report(self, table: str, report: dict[str, Any]) -> None:
        """A table's fleet report (MQTT thread): within the table's message allowance (the same
        as its states and events: :meth:`hub.live.ingest.Ingest.admit`), handed to the loop."""
        if self._loop is not None and self.on_device is not None and self.ingest.admit(table):
            self._loop.call_soon_threadsafe(self.on_device, table, report)

    def _link_changed(self, online: bool) -> None:
        """Whatever the hub held about the tables may be old now: while it was cut off they kept
        playing (players arrived, returned from breaks). Automation waits for each table's current
        state, which the tables send when ``hub/status`` turns online. On reconnecting, the current
        assignments are published again (retained), and every command still valid that no table
        has answered is sent again: a hub killed between recording a command and publishing it
        (or whose publish died with its connection) must not lose a TD's action. A table applies
        each command id once, so one it already has is only answered again. And every table is
        asked for the events the hub missed (:meth:`hub.live.ingest.Ingest.catch_up`): the broker's
        queue for the hub may have overflowed while it was away. Either way, every table's
        deadlines are worked out again at once: cut off, each table's automation is held
        (hub.logic.holds), and what falls due meanwhile is decided when its current state arrives."""
        self.room_state.mark_states_stale()
        self._whole_room = True
        if online:
            self.time_beacon.soon()  # sent by the beacon's own task: nothing here can fail for it
            now = self.clock.now_wall()
            self.automation.republish(now)
            self.next_lines.republish()
            for table in self.room_state.tables():
                self.sender.resend_unanswered(table, now)
            self.ingest.catch_up()
        else:
            self.ingest.link_lost()
        self.tick()

    # -- the periodic work --------------------------------------------------------------------

    def tick(self) -> None:
        """Assign; at the tables whose turn has come (changed since the last tick, or due), apply
        lateness, re-evaluate the alerts and push changes; file each one's next deadline. Safe to
        call any time: each step runs on its own (a fault in one is alerted and the next still
        runs), and inside each step every table runs on its own (:mod:`hub.live.guard`). If the
        database cannot be written, the steps that write stop there (an automatic penalty is
        recorded before it is sent, so none is sent), and the dashboards are still updated.
        A periodic tick still looking at its tables in slices (:meth:`tick_in_slices`) leaves
        the rest to this one."""
        self._take_over_slices()
        now, scope, lateness = self._tick_room_steps()
        self._tick_look(now, scope, lateness, room_wide=True)
        self._changed()

    async def tick_in_slices(self, size: int = TICK_SLICE) -> None:
        """The periodic tick: :meth:`tick`, but when it must look at more than ``size`` tables (the
        whole room after a change of the room, or a flood that touched most tables), it looks at
        them ``size`` at a time and lets the loop run between two slices: the batches of messages
        and the web server are served meanwhile, where a tick of 5,000 tables held them for
        seconds (docs/performance.md).

        What the tick decides for the whole room is done first and at once, as in :meth:`tick`:
        the assignments, the draw's calls, the next lines, the lateness of every table in scope
        (an automatic penalty is never held back by the slices) and the commit. The slices then
        re-evaluate each table's alerts, push its tile and file its next deadline; the room's own
        alerts (a round's absentees, players booked twice), and the alerts of tables no longer
        in the room, are decided after the last slice, on every table looked at. A tick called
        meanwhile (a TD's action, the link coming back) takes the tables not yet looked at into
        its own scope and this one stops."""
        self._take_over_slices()
        now, scope, lateness = self._tick_room_steps()
        tables = self.room_state.tables() if scope is None else sorted(scope, key=natural)
        if len(tables) <= size:
            self._tick_look(now, scope, lateness, room_wide=True)
            self._changed()
            return
        left = set(tables)
        self._slicing, self._slicing_room = left, scope is None
        for start in range(0, len(tables), size):
            part = left.intersection(tables[start : start + size])
            self._tick_look(self.clock.now_wall(), part, lateness, room_wide=False)
            left -= part
            self._changed()
            await asyncio.sleep(0)  # the loop's other work: batches, the web server
            if self._slicing is not left:
                return  # a tick took the rest over
        self._slicing = None
        now = self.clock.now_wall()
        rest: set[str] = set()
        if scope is None:
            # what a look at the whole room also does: the results to verify counted again, and
            # whatever the alerts hold of tables no longer in the room resolved
            self.alerts.results_changed()
            rest = self.alerts.tables_held() - set(tables)
        self._tick_look(now, rest, lateness, room_wide=True)
        self._changed()

    def _take_over_slices(self) -> None:
        """A tick is starting while a periodic one still looks at its tables in slices: the tables
        it has not looked at yet are this tick's (the whole room, if that one's was)."""
        if self._slicing is None:
            return
        self._pending |= self._slicing
        self._whole_room = self._whole_room or self._slicing_room
        self._slicing = None

    def _tick_room_steps(self) -> tuple[int, set[str] | None, dict[str, int | None]]:
        """A tick's steps for the room, at once: the inbox drained, the tables' states saved, the
        assignments, the draw's calls, the next lines, lateness, moved matches carried, one
        commit. Returns the tick's time, its scope (None: every table) and each table's next
        lateness moment."""
        guard = self.room_state.guard
        self._ticking = True
        try:
            with guard.table(None, "read the tables' messages"):
                self.ingest.drain()
        finally:
            self._ticking = False
        now = self.clock.now_wall()
        with guard.table(None, "ask again the tables still catching up"):
            self.ingest.retry_catch_up(now)
        if self.store.failure is not None and self.storage.room_to_recover():
            self.store.probe(now)  # a write that works again tells the listeners
        scope = self._tick_scope(now)
        lateness: dict[str, int | None] = {}
        with self._storage():
            with guard.table(None, "save the tables' states"):
                self.ingest.save_states()
            with guard.table(None, "assign matches"):
                moved = self.automation.assign(now, scope)
                if scope is not None:
                    scope |= self._with_players(moved)
            with guard.table(None, "call the draw's matches"):
                # after the assignments: a table whose match just ended is free now
                called = self.draw.step(now)
                if called:
                    # recorded before any table is told: a hub killed in between calls again
                    # from what it stored, never a match a table was given and the store forgot
                    self.store.commit()
                    moved = self.automation.assign(now, called)
                    if scope is not None:
                        scope |= called | self._with_players(moved)
            with guard.table(None, "send the tables' next lines"):
                self.next_lines.publish(now)
            with guard.table(None, "apply lateness"):
                lateness = self.automation.lateness(now, scope)
            with guard.table(None, "carry moved matches"):
                self.round_control.carry_moved(now)
            if now - self._alive_written >= ALIVE_EVERY_MS:
                # a restarted hub holds its tables' automation from here (hub.logic.holds)
                self.store.set_meta(ALIVE_KEY, str(now))
                self._alive_written = now
            self.store.commit()
        self._look_at_storage(now)
        return now, scope, lateness

    def _tick_look(
        self, now: int, scope: set[str] | None, lateness: dict[str, int | None], *, room_wide: bool
    ) -> None:
        """A tick's look at ``scope`` (every table: None): alerts, tiles and the push; then each
        table's next deadline is filed."""
        guard = self.room_state.guard
        self._look(now, scope, room_wide=room_wide)
        # the frame's tables were noted for this tick (``_pending``): looked at just now
        if scope is None:
            self._frame.clear()
        else:
            self._frame -= scope
        for table in self.room_state.tables() if scope is None else scope:
            with guard.table(table, "plan its next look"):
                dues = [
                    d
                    for d in (
                        self.alerts.next_look(table, now),
                        lateness.get(table),
                        self.automation.deadlines.get(table),
                    )
                    if d is not None
                ]
                self.deadlines.put(table, min(dues, default=None))

    def tick_room(self) -> None:
        """A tick that looks at every table: after a change of the whole room (a schedule import,
        a round started or paused, a match released or moved)."""
        self._whole_room = True
        self.tick()

    def _tick_scope(self, now: int) -> set[str] | None:
        """The tables this tick looks at (None: every one)."""
        pending, self._pending = self._pending, set()
        if self._whole_room:
            self._whole_room = False
            self.deadlines.due(now)  # every table is looked at, and files its deadline again
            return None
        return pending | self.deadlines.due(now)

    def _with_players(self, tables: set[str]) -> set[str]:
        """``tables`` and the tables where their players have other matches: a match that ends,
        or a player who arrives, changes when lateness counts for the same player elsewhere."""
        room = self.room_state
        out = set(tables)
        for table in tables:
            view = room.views.get(table)
            cur = room.current.get(table)
            matches = {cur.match} if cur is not None else set()
            mid = view.state.get("match_id") if view is not None and view.state is not None else None
            if isinstance(mid, str) and mid in room.by_id:
                matches.add(room.by_id[mid])
            for match in matches:
                for side in ("A", "B"):
                    seats = room.players.seats.get(room.players.key(match, side), [])
                    out.update(seat.match.table for seat in seats)
        return out

    def _refresh(self, now: int, tables: set[str] | None) -> None:
        """Re-evaluate alerts and tiles (of ``tables``, or all) and push what changed; the next
        tick looks at those tables again (lateness and deadlines)."""
        if tables is None:
            self._whole_room = True
        else:
            with self.room_state.guard.table(None, "note the tables that changed"):
                self._pending |= self._with_players(tables)
        self._look(now, tables)

    def _batch_touched(self, now: int, tables: set[str]) -> None:
        """A batch of messages changed ``tables``: noted for the next tick at once (lateness,
        deadlines, the automation: nothing automatic waits for the frame), and looked at (alerts,
        tiles, the push) at once, unless a backlog still waits and the last such look was under
        ``frame_s`` ago (:data:`hub.live.config.FRAME_S`): then at the frame's end (or by a tick
        before it), each table once however many batches touched it. A hub that keeps up
        therefore pushes each change at once; a flooded one, once a frame, with the states
        current then.
        The guarantees of :meth:`_look` hold for the frame's look as for a batch's: it decides
        the alerts on the states it saves with them, in one commit."""
        with self.room_state.guard.table(None, "note the tables that changed"):
            self._pending |= self._with_players(tables)
        self._frame |= tables
        if self._loop is None:
            self._frame_end(now)
            return
        if self._ticking:
            return  # the tick looks at them (they are in its scope now)
        left = self._frame_looked + self.config.frame_s - time.monotonic()
        if left > 0 and self.ingest.backlogged():
            if self._frame_timer is None:
                self._frame_timer = self._loop.call_later(left, self._frame_due)
            return
        self._frame_end(now)

    def _frame_due(self) -> None:
        """The frame's timer: look at the tables the batches touched since the last look."""
        self._frame_timer = None
        try:
            if self._frame:
                self._frame_end()
                self._changed()
        except Exception:
            log.exception("looking at the tables of a frame failed")

    def _frame_end(self, now: int | None = None) -> None:
        """Look at the tables batches touched since the last look, now."""
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
        tables, self._frame = self._frame, set()
        if tables:
            self._look(self.clock.now_wall() if now is None else now, tables)
        self._frame_looked = time.monotonic()

    def _look(self, now: int, tables: set[str] | None, *, room_wide: bool = False) -> None:
        """Re-evaluate the alerts (of ``tables``, or all; ``room_wide``: the room's own alerts
        too) and the tiles, and push what changed."""
        guard = self.room_state.guard
        with self._storage():
            with guard.table(None, "check the alerts"):
                self.alerts.sync(now, tables, room_wide=room_wide)
            self._raise_faults(now)
            # the states the alerts were just decided on go in the same commit: a hub killed
            # after it restarts from cached states no older than those that resolved an alert
            # (an older one, still showing a TD call the TD acknowledged and the table then
            # cleared, would raise the call again as new, its acknowledgement lost). Where no
            # alert changed, the alerts stored still hold for the states stored: those wait for
            # the tick (once a second, not at every batch: encoding a busy room's snapshots at
            # every batch was a tenth of a flooded hub's time, docs/performance.md)
            if self.alerts.changed or room_wide:
                with guard.table(None, "save the tables' states"):
                    self.ingest.save_states()
            self.store.commit()
        with guard.table(None, "update the dashboards"):
            self.display.push(now, tables)

    @contextlib.contextmanager
    def _storage(self) -> Iterator[None]:
        """Steps that write: a failure of the database ends them (rolled back, alerted)."""
        try:
            yield
        except Exception as exc:
            if not is_storage_error(exc):
                raise
            self.store.write_failed(exc)

    def _storage_changed(self, failure: str | None) -> None:
        """The store's listener: a write failed (memory goes back to what the store holds, a
        critical alert, the tables' events to ask again), or writes work again."""
        now = self.clock.now_wall()
        if failure is not None:
            try:
                self.alerts.reload()
                self.room_state.results = {r["match_id"]: r for r in self.store.results()}
                self.alerts.results_changed()
                self.draw.load()
            except Exception:
                log.exception("could not read the database back after a failed write")
            self.alerts.raise_volatile(storage_failed(self.store.path, failure), now)
        else:
            self.alerts.drop_volatile(STORAGE_KEY)
        self._whole_room = True
        self.ingest.storage_changed(failure)

    def _look_at_storage(self, now: int) -> None:
        health = self.storage
        if not health.due(now):
            return
        if health.look(now):
            self.alerts.raise_volatile(disk_low(health.directory or "", health.min_free_mb), now)
        else:
            self.alerts.drop_volatile(DISK_KEY)

    def _raise_faults(self, now: int) -> None:
        """One alert per table and step that failed for the first time, and per stored row set aside."""
        for fault in self.room_state.guard.take_faults():
            self.alerts.raise_(table_fault(fault), now)
        while self.store.quarantined:
            q = self.store.quarantined.pop(0)
            self.alerts.raise_(quarantined(q.table, q.source.replace("_", " "), q.reason), now)

    # -- subscribers (the dashboards) ---------------------------------------------------------

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(message)`` on the loop for every change; returns the unsubscriber."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (on the loop) after every batch of messages and every tick."""
        self._change_listeners.append(callback)
        return lambda: self._change_listeners.remove(callback) if callback in self._change_listeners else None

    def _changed(self) -> None:
        for callback in list(self._change_listeners):
            try:
                callback()
            except Exception:
                log.exception("a change listener failed")

    def _publish(self, message: dict[str, Any]) -> None:
        for callback in list(self._subscribers):
            try:
                callback(message)
            except Exception:
                log.exception("a dashboard subscriber failed")

    # -- what the room holds (read on the loop) -----------------------------------------------

    @property
    def views(self) -> dict[str, TableView]:
        return self.room_state.views

    @property
    def results(self) -> dict[str, dict[str, Any]]:
        return self.room_state.results

    @property
    def current(self) -> dict[str, Current]:
        return self.room_state.current

    @property
    def assigned(self) -> dict[str, str]:
        return self.room_state.assigned

    @property
    def schedule(self) -> list[ScheduledMatch]:
        return self.room_state.schedule

    @property
    def stats(self) -> dict[str, int]:
        return self.ingest.stats

    def match_for(self, table: str) -> ScheduledMatch | None:
        return self.room_state.match_for(table)

    # -- queries (the API) --------------------------------------------------------------------

    def tile(
        self, table: str, now: int | None = None, urgency: tuple[str | None, int] | None = None
    ) -> dict[str, Any]:
        return self.display.tile(table, now, urgency)

    def alert_list(self) -> list[dict[str, Any]]:
        return self.alerts.listed()

    def room(self) -> dict[str, Any]:
        return self.display.room_view()

    def board(self) -> dict[str, Any]:
        return self.display.board()

    def table_detail(self, table: str) -> dict[str, Any] | None:
        return self.display.table_detail(table)

    def schedule_rows(self) -> list[dict[str, Any]]:
        return self.display.schedule_rows()

    def result_list(self) -> list[dict[str, Any]]:
        return self.display.result_list()

    def player_list(self) -> list[dict[str, Any]]:
        return self.display.player_list()
