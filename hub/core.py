"""The hub: the room's state, the watches, the automatic lateness and the TD's actions.

Everything runs on one asyncio loop. The MQTT link calls back on its own thread; those calls go
into an inbox that the loop drains in batches (one database transaction per batch), so a room of
a thousand tables does not cost a thousand commits a second. A periodic ``tick`` (every second,
or whenever a test calls it) assigns matches, applies lateness, re-evaluates the alerts and
pushes what changed to the dashboards.

Time comes from an injected clock (``clock.now_wall()``): tests move it by twelve minutes and
call ``tick()`` instead of waiting. The rules come from :mod:`rulebook`: the hub computes what is
due (:mod:`hub.lateness`), the table applies it (each command id at most once) and answers.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.hub_link import HubLink, SeqTracker
from hub.clock import Clock, SystemClock
from hub.lateness import due_commands
from hub.room import URGENCY_RANK, TableView, check_event, check_state, check_status, tile
from hub.rounds import Current, current_matches, round_ends
from hub.schedule import ScheduledMatch, parse_schedule
from hub.store import Store
from hub.watch import AlertSpec, WatchConfig, result_alert, table_alerts
from rulebook.errors import ProfileError
from rulebook.profiles import DEFAULT_PROFILE, Profile, get_profile

log = logging.getLogger("hub")

#: Alerts raised by a single event (not a lasting situation): resolved only by acknowledgement.
ONE_SHOT = frozenset({"cmd_failed", "assign_refused"})

#: TD command types and the fields each needs (validated here; the table re-checks by the rules).
TD_COMMANDS: dict[str, tuple[str, ...]] = {
    "penalty": ("against", "points"),
    "forfeit": ("against",),
    "waive": ("penalty_id",),
    "start_clock": ("side",),
    "pause": (),
    "resume": (),
    "set_time": ("reserve_ms",),
    "impose_clock": ("minutes_per_point", "delay_s"),
    "set_length": ("length",),
    "correct_score": ("score",),
    "resolve_flag": ("winner",),
    "td_ack": (),
}


class ActionError(ValueError):
    """A TD action that cannot be carried out (bad fields, unknown table or match)."""


@dataclass(frozen=True, slots=True)
class HubConfig:
    event: str
    broker_host: str = "127.0.0.1"
    broker_port: int = 1883
    username: str | None = None
    password: str | None = None
    client_id: str | None = None
    #: the rules profile for schedule rows that name none
    profile: str = DEFAULT_PROFILE
    offline_grace_ms: int = 30_000
    not_started_grace_ms: int = 5 * 60_000
    #: a finished match stays on its table this long before the next round's is assigned
    hold_ms: int = 2 * 60_000
    #: commands are refused by a table after this long (PROTOCOL §3.3 expires_wall)
    cmd_ttl_ms: int = 60_000
    #: an unanswered automatic command is sent again after this long
    resend_after_ms: int = 30_000
    #: seconds between ticks; None: only when ``tick()`` is called
    tick_interval: float | None = 1.0


def public_alert(row: dict[str, Any]) -> dict[str, Any]:
    """An alert as the API shows it (``table`` rather than the column name ``tbl``)."""
    out = {k: v for k, v in row.items() if k != "tbl"}
    out["table"] = row["tbl"]
    return out


def _natural(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (10**9, table)


def _side(value: Any, name: str) -> str:
    if value not in ("A", "B"):
        raise ActionError(f"{name}: expected A or B")
    return value


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ActionError(f"{name}: expected a whole number from {lo} to {hi}")
    return value


class Hub:
    """The TD hub (see module doc). Create, ``await start()``, ``await stop()``; all on one loop."""

    def __init__(self, config: HubConfig, store: Store, clock: Clock | None = None) -> None:
        self.config = config
        self.store = store
        self.clock = clock or SystemClock()
        self.watch = WatchConfig(config.offline_grace_ms, config.not_started_grace_ms)
        self.default_profile = get_profile(config.profile)
        self.views: dict[str, TableView] = {}
        self.schedule: list[ScheduledMatch] = []
        self.by_id: dict[str, ScheduledMatch] = {}
        self.current: dict[str, Current] = {}
        self.round_end: dict[str, int | None] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self._confirmed_ids: set[str] = set()
        self.released: set[str] = set()
        self.suspended: set[str] = set()
        self.assigned: dict[str, str] = {}
        self._assign_payloads: dict[str, dict[str, Any]] = {}
        self.alerts: dict[str, dict[str, Any]] = {}
        self._alerts_dirty = False
        #: tables whose alerts changed since the last push (their tiles show the urgency)
        self._alert_tables: set[str] = set()
        self.tracker = SeqTracker()
        self._restored: set[tuple[str, str | None]] = set()
        self._tiles: dict[str, dict[str, Any]] = {}
        self._subscribers: list[Callable[[dict[str, Any]], None]] = []
        self._change_listeners: list[Callable[[], None]] = []
        self._inbox: collections.deque[tuple[str, str, dict[str, Any]]] = collections.deque()
        self._inbox_lock = threading.Lock()
        self._drain_scheduled = False
        self._unsaved_states: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tick_task: asyncio.Task[None] | None = None
        self.link: HubLink | None = None
        self.stats = {"messages": 0, "events": 0, "duplicates": 0, "dropped": 0, "resyncs": 0}
        self._load()

    # -- start / stop -------------------------------------------------------------------------

    def _load(self) -> None:
        self._reload_schedule()
        for table, (status, online, since) in self.store.statuses().items():
            view = self._view(table)
            view.status, view.online, view.status_since = status, online, since
        for table, (state, received) in self.store.states().items():
            if check_state(state) is None:
                view = self._view(table)
                view.state, view.state_wall = state, received
        self.results = {r["match_id"]: r for r in self.store.results()}
        self.released = self.store.releases()
        self.suspended = self.store.suspended_tables()
        self.assigned = self.store.assigned()
        self.alerts = {a["key"]: a for a in self.store.alerts(active_only=True)}

    def _reload_schedule(self) -> None:
        self.schedule = self.store.schedule()
        self.by_id = {m.match_id: m for m in self.schedule}
        self.round_end = round_ends(self.schedule) if self.schedule else {}

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        c = self.config
        self.link = HubLink(
            c.event,
            c.broker_host,
            c.broker_port,
            on_status=lambda t, o: self._post("status", t, o),
            on_state=lambda t, o: self._post("state", t, o),
            on_event=lambda t, o: self._post("event", t, o),
            username=c.username,
            password=c.password,
            client_id=c.client_id,
            on_online=self._on_link_online,
            on_state_replayed=lambda t, o: self._post("replayed_state", t, o),
        )
        self.link.start()
        self.tick()
        if c.tick_interval:
            self._tick_task = asyncio.create_task(self._ticker(c.tick_interval))

    async def stop(self) -> None:
        if self._tick_task is not None:
            self._tick_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tick_task
        if self.link is not None:
            link, self.link = self.link, None
            await asyncio.get_running_loop().run_in_executor(None, link.stop)
        self._drain()
        self._save_states()
        self.store.commit()

    async def _ticker(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                self.tick()
            except Exception:
                log.exception("tick failed")

    def _on_link_online(self, online: bool) -> None:
        """The hub's own connection changed (called on the MQTT thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._link_changed, online)

    def _link_changed(self, online: bool) -> None:
        """Whatever the hub held about the tables may be old now: while it was cut off they kept
        playing (players arrived, returned from breaks). Automation waits for each table's current
        state, which the tables send when ``hub/status`` turns online. On reconnecting, the current
        assignments are published again (retained)."""
        for view in self.views.values():
            view.state_fresh = False
        if online:
            self._assign_payloads.clear()
            self._assign(self.clock.now_wall())

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

    # -- inbox: link thread -> loop -----------------------------------------------------------

    def _post(self, kind: str, table: str, obj: dict[str, Any]) -> None:
        """Called on the MQTT thread: queue the message and wake the loop once per batch."""
        with self._inbox_lock:
            self._inbox.append((kind, table, obj))
            if self._drain_scheduled or self._loop is None:
                return
            self._drain_scheduled = True
        self._loop.call_soon_threadsafe(self._drain)

    def _drain(self, limit: int = 1000) -> None:
        with self._inbox_lock:
            self._drain_scheduled = False
            batch = [self._inbox.popleft() for _ in range(min(limit, len(self._inbox)))]
            if self._inbox and self._loop is not None:
                self._drain_scheduled = True
                self._loop.call_soon(self._drain)
        if not batch:
            return
        now = self.clock.now_wall()
        touched: set[str] = set()
        for kind, table, obj in batch:
            self.stats["messages"] += 1
            try:
                handler = {
                    "status": self._on_status,
                    "state": self._on_state,
                    "replayed_state": self._on_replayed_state,
                    "event": self._on_event,
                }[kind]
                if handler(table, obj, now):
                    touched.add(table)
            except Exception:
                self.stats["dropped"] += 1
                log.exception("table %s: %s message could not be handled", table, kind)
        self.store.commit()
        if touched:
            self._refresh(now, touched)
        self._changed()

    # -- table messages -----------------------------------------------------------------------

    def _view(self, table: str) -> TableView:
        view = self.views.get(table)
        if view is None:
            view = self.views[table] = TableView(table)
        return view

    def _drop(self, table: str, kind: str, reason: str) -> bool:
        self.stats["dropped"] += 1
        log.warning("table %s: %s ignored: %s", table, kind, reason)
        return False

    def _on_status(self, table: str, status: dict[str, Any], now: int) -> bool:
        if reason := check_status(status):
            return self._drop(table, "status", reason)
        view = self._view(table)
        online = status["online"]
        came_online = online and not view.online
        if view.status is None or online != view.online:
            view.status_since = now
        view.status, view.online = status, online
        self.store.put_status(table, status, online, view.status_since)
        if came_online:
            view.state_fresh = False
            self._resend_unanswered(table, now)
        return True

    def _on_replayed_state(self, table: str, state: dict[str, Any], now: int) -> bool:
        """A retained state the broker replayed: shown, but not taken as the table's current one
        for automation (a restored broker may replay one older than the table's latest)."""
        fresh = self._view(table).state_fresh
        accepted = self._on_state(table, state, now)
        self._view(table).state_fresh = fresh
        return accepted

    def _on_state(self, table: str, state: dict[str, Any], now: int) -> bool:
        if reason := check_state(state):
            return self._drop(table, "state", reason)
        view = self._view(table)
        old = view.state
        if (
            old is not None
            and old.get("match_id") == state.get("match_id")
            and state["seq"] < old["seq"]
            and state.get("wall", 0) <= old.get("wall", 0)
        ):
            return False  # an older snapshot than the one we have
        view.state, view.state_wall, view.state_fresh = state, now, True
        self._unsaved_states.add(table)  # saved at the next tick: a busy table sends several a second
        self._note_result(table, state, now)
        return True

    def _on_event(self, table: str, evt: dict[str, Any], now: int) -> bool:
        if reason := check_event(evt):
            return self._drop(table, "event", reason)
        mid = evt.get("match_id")
        key = (table, mid)
        if key not in self._restored:
            self._restored.add(key)
            self.tracker.restore(table, mid, self.store.max_seq(table, mid or ""))
        accepted = self.tracker.accept(table, mid, evt["seq"])
        if accepted.kind == "gap" and self.link is not None:
            self.stats["resyncs"] += 1
            log.info("table %s: events %s of %s missing; asking for them", table, accepted.missing, mid)
            self.link.request_resync(table, mid, accepted.missing.start)
        stored = {**evt, "match_id": mid or ""}
        if not self.store.add_event(table, stored, now):
            self.stats["duplicates"] += 1
            return False
        self.stats["events"] += 1
        kind = evt["type"]
        if kind == "cmd_done" and isinstance(evt.get("id"), str):
            ok = evt.get("ok") is True
            error = evt.get("error") if isinstance(evt.get("error"), str) else None
            if self.store.command_done(evt["id"], ok, error, now) and not ok:
                self._raise(
                    AlertSpec(
                        f"cmd:{evt['id']}",
                        "cmd_failed",
                        "medium",
                        f"Table {table} refused command {evt.get('cmd') or ''} {evt['id']}: {error}",
                        table,
                        mid,
                    ),
                    now,
                )
        elif kind == "assign" and evt.get("rejected"):
            self._raise(
                AlertSpec(
                    f"assign:{table}:{now}",
                    "assign_refused",
                    "medium",
                    f"Table {table} refused its assignment: {evt['rejected']}",
                    table,
                    mid,
                ),
                now,
            )
        return True

    def _note_result(self, table: str, state: dict[str, Any], now: int) -> None:
        """Record a finished match's result (or withdraw it if a waiver reopened the match)."""
        mid = state.get("match_id")
        match = self.by_id.get(mid) if isinstance(mid, str) else None
        if match is None or not isinstance(mid, str):
            return
        existing = self.results.get(mid)
        if state["phase"] != "finished":
            if existing is not None and not existing["corrected"]:
                self.store.delete_result(mid)
                del self.results[mid]
            return
        result = {
            "match_id": mid,
            "table": table,
            "round": match.round,
            "player_a": match.player_a,
            "player_b": match.player_b,
            "length": state["length"],
            "score": state["score"],
            "winner": state.get("winner"),
            "end_reason": state.get("end_reason"),
            "finished_wall": now,
            "games": state.get("games") or [],
            "penalties": state.get("penalties") or {"A": 0, "B": 0},
            "penalty_log": state.get("penalty_log") or [],
        }
        if existing is not None:
            same = all(existing.get(k) == result[k] for k in ("score", "winner", "end_reason", "length"))
            if same or existing["corrected"]:
                return
            result["finished_wall"] = existing.get("finished_wall") or now
        self.store.put_result(result)
        stored = self.store.result(mid)
        if stored is not None:
            self.results[mid] = stored

    # -- the periodic work --------------------------------------------------------------------

    def tick(self) -> None:
        """Assign, apply lateness, re-evaluate every alert, push changes. Safe to call any time."""
        self._drain()
        now = self.clock.now_wall()
        self._save_states()
        self._assign(now)
        self._lateness(now)
        self.store.commit()
        self._refresh(now, None)
        self._changed()

    def _save_states(self) -> None:
        """Persist the latest snapshot of every table that changed (a cache for restarts: the
        tables announce their state again whenever the hub comes online)."""
        for table in self._unsaved_states:
            view = self.views[table]
            if view.state is not None:
                self.store.put_state(table, view.state, view.state_wall)
        self._unsaved_states.clear()

    def _profile(self, match: ScheduledMatch) -> Profile:
        try:
            return get_profile(match.profile)
        except ProfileError:
            return self.default_profile

    def _confirmed(self) -> set[str]:
        """Matches whose result the players confirmed, or that their table has since left.

        Sticky: once a table reports its next match, its current state no longer shows the old
        confirmation, and forgetting it would send the old assignment again. A table that reports
        another match has left every earlier match of its own that has a result (this also holds
        after a hub restart, which forgets the sticky set).
        """
        for table, view in self.views.items():
            s = view.state
            if s is None or not s.get("match_id"):
                continue
            current = s["match_id"]
            confirmed = s.get("confirmed") or {}
            if s.get("phase") == "finished" and confirmed.get("A") and confirmed.get("B"):
                self._confirmed_ids.add(current)
            for match_id, result in self.results.items():
                if match_id != current and result.get("tbl") == table:
                    self._confirmed_ids.add(match_id)
        return self._confirmed_ids

    def _assign(self, now: int) -> None:
        self.current = current_matches(
            self.schedule,
            results=self.results,
            released=self.released,
            confirmed=self._confirmed(),
            now=now,
            hold_ms=self.config.hold_ms,
        )
        for table, cur in self.current.items():
            payload = cur.match.assign_payload()
            if cur.force:
                payload["force"] = True
            if self._assign_payloads.get(table) == payload:
                continue
            if self.link is None:
                continue
            self.link.send_assign(table, payload)
            self._assign_payloads[table] = payload
            if self.assigned.get(table) != cur.match.match_id:
                self.assigned[table] = cur.match.match_id
                self.store.set_assigned(table, cur.match.match_id, now)
                log.info("table %s: assigned %s", table, cur.match.match_id)
        for table, match_id in list(self.assigned.items()):
            m = self.by_id.get(match_id)
            if table not in self.current and (m is None or m.table != table) and self.link is not None:
                # the match was moved elsewhere by a new schedule: a table that restarts must not
                # set it up again from the retained assignment
                self.link.clear_assign(table)
                self._assign_payloads.pop(table, None)
                del self.assigned[table]
                self.store.clear_assigned(table)
                log.info("table %s: assignment %s withdrawn", table, match_id)

    def _lateness(self, now: int) -> None:
        if self.link is not None and not self.link.online:
            return  # cut off from the room: nothing known is current, nothing sent would be timely
        for table, cur in self.current.items():
            view = self.views.get(table)
            if view is None or not view.online or table in self.suspended:
                continue  # an offline table gets an alert, never an automatic penalty
            if not view.state_fresh:
                continue  # back online: wait for its current state (who arrived while away)
            state = view.state_for(cur.match.match_id)
            if state is None:
                continue
            due = due_commands(
                state, start_wall=cur.match.start_wall, now=now, profile=self._profile(cur.match)
            )
            if not due:
                continue
            known = self.store.command_ids(table, cur.match.match_id)
            for auto in due:
                seen = known.get(auto.id)
                payload = auto.payload(now + self.config.cmd_ttl_ms)
                if seen is None:
                    self._send(table, cur.match.match_id, payload, origin="auto", actor="hub", now=now)
                elif (seen["done_ok"] is None or seen["done_error"] == "command expired") and (
                    now - (seen["sent_wall"] or 0) >= self.config.resend_after_ms
                ):
                    # not answered (or refused as expired): the same id again, with a fresh expiry
                    self._transmit(table, payload, now)

    def _send(
        self, table: str, match_id: str | None, payload: dict[str, Any], *, origin: str, actor: str, now: int
    ) -> bool:
        """Record the command, commit, then publish it: what was sent is never sent as new again."""
        if not self.store.add_command(payload, table, match_id, origin, actor, now):
            return False
        self.store.commit()
        self._transmit(table, payload, now)
        log.info("table %s: sent %s %s", table, payload["type"], payload["id"])
        return True

    def _transmit(self, table: str, payload: dict[str, Any], now: int) -> None:
        if self.link is not None:
            self.link.send_cmd(table, payload)
        self.store.mark_sent(payload["id"], now, payload)

    def _resend_unanswered(self, table: str, now: int) -> None:
        """A table back online gets again every command it has not answered and that is still valid."""
        for cmd in self.store.commands(table, limit=200):
            body = cmd["body"]
            if cmd["done_ok"] is None and body.get("expires_wall", 0) > now:
                self._transmit(table, body, now)

    # -- alerts and tiles ---------------------------------------------------------------------

    def _tables(self) -> list[str]:
        names = set(self.views) | {m.table for m in self.schedule}
        return sorted(names, key=_natural)

    def match_for(self, table: str) -> ScheduledMatch | None:
        """The match a table is shown with: its current one, else the one its state is about."""
        cur = self.current.get(table)
        if cur is not None:
            return cur.match
        view = self.views.get(table)
        if view is not None and view.state is not None:
            return self.by_id.get(view.state.get("match_id") or "")
        return None

    def _specs(self, table: str, now: int) -> list[AlertSpec]:
        match = self.match_for(table)
        return table_alerts(
            self._view(table) if table in self.views else TableView(table),
            match,
            now=now,
            config=self.watch,
            profile=self._profile(match) if match else self.default_profile,
            round_end=self.round_end.get(match.round) if match else None,
            suspended=table in self.suspended,
        )

    def _raise(self, spec: AlertSpec, now: int) -> bool:
        """Open or update an alert; True if anything changed."""
        current = self.alerts.get(spec.key)
        if current is None:
            self.alerts[spec.key] = self.store.raise_alert(
                spec.key, spec.kind, spec.urgency, spec.table, spec.match_id, spec.message, now
            )
            if spec.urgency == "critical":
                log.warning("ALERT %s", spec.message)
            self._alerts_changed(spec.table)
            return True
        if current["urgency"] == spec.urgency and current["message"] == spec.message:
            return False
        self._alerts_changed(spec.table)
        escalated = URGENCY_RANK[spec.urgency] < URGENCY_RANK[current["urgency"]]
        self.store.update_alert(spec.key, spec.urgency, spec.message, reopen_ack=escalated)
        current.update(urgency=spec.urgency, message=spec.message)
        if escalated:
            current.update(acked_wall=None, acked_by=None)
        return True

    def _sync_alerts(self, now: int, tables: set[str] | None) -> None:
        scope = set(self._tables()) if tables is None else tables
        wanted: dict[str, AlertSpec] = {}
        for table in scope:
            for spec in self._specs(table, now):
                wanted[spec.key] = spec
        for result in self.results.values():
            verify = result_alert(result)
            if verify is not None and (tables is None or result["table"] in scope):
                wanted[verify.key] = verify
        for spec in wanted.values():
            self._raise(spec, now)
        for key, alert in list(self.alerts.items()):
            if (
                key not in wanted
                and alert["kind"] not in ONE_SHOT
                and alert["tbl"] in scope
                and self._state_settled(alert["tbl"])
            ):
                self.store.resolve_alert(key, now)
                del self.alerts[key]
                self._alerts_changed(alert["tbl"])

    def _state_settled(self, table: str | None) -> bool:
        """Whether the hub holds the table's current state, so an alert it no longer implies is
        really over (a state cached before a restart or an outage may predate the alert, and
        resolving on it would lose the TD's acknowledgement when the alert comes back)."""
        view = self.views.get(table) if table is not None else None
        return view is None or view.state_fresh

    def _alerts_changed(self, table: str | None) -> None:
        self._alerts_dirty = True
        if table is not None:
            self._alert_tables.add(table)

    def _urgencies(self) -> dict[str, tuple[str | None, int]]:
        """table -> (most urgent unacknowledged alert, number of active alerts)."""
        out: dict[str, tuple[str | None, int]] = {}
        for a in self.alerts.values():
            t = a["tbl"]
            if t is None:
                continue
            best, count = out.get(t, (None, 0))
            if a["acked_wall"] is None and (best is None or URGENCY_RANK[a["urgency"]] < URGENCY_RANK[best]):
                best = a["urgency"]
            out[t] = (best, count + 1)
        return out

    def _refresh(self, now: int, tables: set[str] | None) -> None:
        """Re-evaluate alerts and tiles (of ``tables``, or all) and push what changed."""
        self._sync_alerts(now, tables)
        self.store.commit()
        alerts_changed, self._alerts_dirty = self._alerts_dirty, False
        urgencies = self._urgencies()
        changed = []
        scope = self._tables() if tables is None else sorted(tables | self._alert_tables, key=_natural)
        self._alert_tables.clear()
        for table in scope:
            t = self.tile(table, now, urgencies.get(table, (None, 0)))
            if self._tiles.get(table) != t:
                self._tiles[table] = t
                changed.append(t)
        if changed:
            self._publish({"type": "tiles", "tiles": changed, "now_wall": now})
        if alerts_changed:
            self._publish({"type": "alerts", "alerts": self.alert_list(), "now_wall": now})

    def tile(
        self, table: str, now: int | None = None, urgency: tuple[str | None, int] | None = None
    ) -> dict[str, Any]:
        now = self.clock.now_wall() if now is None else now
        match = self.match_for(table)
        result = self.results.get(match.match_id) if match else None
        best, count = urgency if urgency is not None else self._urgencies().get(table, (None, 0))
        return tile(
            self.views.get(table) or TableView(table),
            match,
            now=now,
            grace_ms=self.config.offline_grace_ms,
            verified=bool(result and result.get("verified")),
            suspended=table in self.suspended,
            alert_urgency=best,
            alert_count=count,
        )

    # -- queries (the API) --------------------------------------------------------------------

    def alert_list(self) -> list[dict[str, Any]]:
        """Active alerts, unacknowledged first, most urgent first, newest first."""
        items = [public_alert(a) for a in self.alerts.values()]
        items.sort(key=lambda a: (a["acked_wall"] is not None, URGENCY_RANK[a["urgency"]], -a["raised_wall"]))
        return items

    def room(self) -> dict[str, Any]:
        now = self.clock.now_wall()
        tiles = [self.tile(t, now) for t in self._tables()]
        return {
            "event": self.config.event,
            "now_wall": now,
            "tables": tiles,
            "alerts": self.alert_list(),
            "rounds": sorted({m.round for m in self.schedule}, key=_natural),
            "link_online": bool(self.link and self.link.online),
        }

    def table_detail(self, table: str) -> dict[str, Any] | None:
        if table not in self.views and not any(m.table == table for m in self.schedule):
            return None
        view = self.views.get(table) or TableView(table)
        match = self.match_for(table)
        mid = (view.state or {}).get("match_id") or (match.match_id if match else None)
        return {
            "tile": self.tile(table),
            "state": view.state,
            "status": view.status,
            "schedule": [m.as_dict() for m in self.schedule if m.table == table],
            "events": self.store.events(table, mid, limit=300)
            if mid
            else self.store.events(table, limit=300),
            "commands": self.store.commands(table, limit=200),
            "alerts": [a for a in self.alert_list() if a["table"] == table],
            "audit": self.store.audit_log(table, limit=100),
            "automation_suspended": table in self.suspended,
            "result": self.results.get(mid) if mid else None,
        }

    def schedule_rows(self) -> list[dict[str, Any]]:
        return [
            dict(
                m.as_dict(),
                assigned=self.assigned.get(m.table) == m.match_id,
                released=m.match_id in self.released,
                result=m.match_id in self.results,
            )
            for m in self.schedule
        ]

    def result_list(self) -> list[dict[str, Any]]:
        return sorted(self.results.values(), key=lambda r: (_natural(r["round"]), _natural(r["table"])))

    # -- TD actions ---------------------------------------------------------------------------

    def _table_match(self, table: str) -> str | None:
        view = self.views.get(table)
        if view is None and not any(m.table == table for m in self.schedule):
            raise ActionError(f"unknown table {table!r}")
        if view is not None and view.state is not None:
            return view.state.get("match_id")
        match = self.match_for(table)
        return match.match_id if match else None

    def td_command(self, table: str, kind: str, fields: dict[str, Any], actor: str) -> dict[str, Any]:
        """Send a TD command (PROTOCOL §3.3) to a table; returns the command as sent."""
        if kind not in TD_COMMANDS:
            raise ActionError(f"unknown command {kind!r}")
        clean = self._check_fields(kind, fields)
        mid = self._table_match(table)
        now = self.clock.now_wall()
        payload = {
            "id": f"td:{uuid.uuid4()}",
            "type": kind,
            **clean,
            "expires_wall": now + self.config.cmd_ttl_ms,
        }
        self.store.audit(actor, f"cmd:{kind}", now, table, mid, payload)
        self._send(table, mid, payload, origin="td", actor=actor, now=now)
        self._refresh(now, {table})
        return payload

    def _check_fields(self, kind: str, f: dict[str, Any]) -> dict[str, Any]:
        for name in TD_COMMANDS[kind]:
            if name not in f:
                raise ActionError(f"{kind}: {name} is required")
        out: dict[str, Any] = {}
        if kind in ("penalty", "forfeit"):
            out["against"] = _side(f["against"], "against")
            reason = f.get("reason") or ("conduct" if kind == "penalty" else "forfeit")
            if not isinstance(reason, str) or len(reason) > 40:
                raise ActionError("reason: expected a short text")
            out["reason"] = reason
            if kind == "penalty":
                out["points"] = _int(f["points"], "points", 1, 99)
        elif kind == "waive":
            if not isinstance(f["penalty_id"], str) or not f["penalty_id"]:
                raise ActionError("penalty_id: expected the id of a penalty")
            out["penalty_id"] = f["penalty_id"]
        elif kind == "start_clock":
            out["side"] = _side(f["side"], "side")
        elif kind == "pause":
            out["reason"] = "td"
        elif kind == "set_time":
            r = f["reserve_ms"]
            if not isinstance(r, dict):
                raise ActionError("reserve_ms: expected {A, B}")
            out["reserve_ms"] = {s: _int(r.get(s), f"reserve_ms.{s}", 0, 24 * 3600 * 1000) for s in "AB"}
        elif kind == "impose_clock":
            mpp = f["minutes_per_point"]
            if not isinstance(mpp, int | float) or isinstance(mpp, bool) or not 0.1 <= mpp <= 60:
                raise ActionError("minutes_per_point: expected a number from 0.1 to 60")
            out["minutes_per_point"] = mpp
            out["delay_s"] = _int(f["delay_s"], "delay_s", 0, 120)
        elif kind == "set_length":
            out["length"] = _int(f["length"], "length", 1, 99)
        elif kind == "correct_score":
            s = f["score"]
            if not isinstance(s, dict):
                raise ActionError("score: expected {A, B}")
            out["score"] = {x: _int(s.get(x), f"score.{x}", 0, 990) for x in "AB"}
            out["note"] = str(f.get("note", ""))[:200]
        elif kind == "resolve_flag":
            out["winner"] = _side(f["winner"], "winner")
        return out

    def ack_alert(self, alert_id: int, actor: str) -> bool:
        now = self.clock.now_wall()
        alert = next((a for a in self.alerts.values() if a["id"] == alert_id), None)
        if alert is None:
            stored = self.store.alert(alert_id)
            if stored is None:
                raise ActionError(f"no alert {alert_id}")
            return False
        if not self.store.ack_alert(alert_id, actor, now):
            return False
        self.store.audit(actor, "ack_alert", now, alert["tbl"], alert["match_id"], {"alert": alert["key"]})
        if alert["kind"] in ONE_SHOT:
            self.store.resolve_alert(alert["key"], now)
            del self.alerts[alert["key"]]
        else:
            alert.update(acked_wall=now, acked_by=actor)
        self.store.commit()
        self._alerts_changed(alert["tbl"])
        self._refresh(now, set())
        return True

    def set_automation(self, table: str, suspended: bool, actor: str) -> None:
        self._table_match(table)
        now = self.clock.now_wall()
        self.store.set_automation(table, suspended)
        self.store.audit(actor, "suspend_automation" if suspended else "resume_automation", now, table)
        self.store.commit()
        if suspended:
            self.suspended.add(table)
        else:
            self.suspended.discard(table)
        self._refresh(now, {table})

    def release(self, table: str, actor: str) -> str:
        """Let the table move on to its next scheduled match (the current one is set aside)."""
        cur = self.current.get(table)
        if cur is None:
            raise ActionError(f"table {table} has no current match to release")
        now = self.clock.now_wall()
        self.store.release(cur.match.match_id, actor, now)
        self.store.audit(actor, "release", now, table, cur.match.match_id)
        self.store.commit()
        self.released.add(cur.match.match_id)
        self.tick()
        return cur.match.match_id

    def import_schedule(self, data: str | bytes, actor: str) -> dict[str, Any]:
        """Import a schedule CSV whole, or raise :class:`hub.schedule.ScheduleError` (nothing imported)."""
        matches = parse_schedule(data, default_profile=self.config.profile)
        now = self.clock.now_wall()
        added, updated = self.store.import_schedule(matches, now)
        self.store.audit(actor, "import_schedule", now, detail={"added": added, "updated": updated})
        self.store.commit()
        self._reload_schedule()
        self.tick()
        self._publish({"type": "schedule", "now_wall": now})
        return {"added": added, "updated": updated, "matches": len(matches)}

    def verify_result(self, match_id: str, actor: str) -> dict[str, Any]:
        if match_id not in self.results:
            raise ActionError(f"no result for {match_id}")
        now = self.clock.now_wall()
        self.store.verify_result(match_id, actor, now)
        self.store.audit(actor, "verify_result", now, self.results[match_id]["table"], match_id)
        self.store.commit()
        return self._result_changed(match_id, now)

    def correct_result(
        self, match_id: str, score: Any, winner: Any, note: str, actor: str
    ) -> dict[str, Any]:
        if match_id not in self.results:
            raise ActionError(f"no result for {match_id}")
        if not isinstance(score, dict):
            raise ActionError("score: expected {A, B}")
        clean = {s: _int(score.get(s), f"score.{s}", 0, 990) for s in "AB"}
        if winner is not None:
            _side(winner, "winner")
        now = self.clock.now_wall()
        before = self.results[match_id]
        self.store.correct_result(match_id, clean, winner, str(note)[:200], actor, now)
        self.store.audit(
            actor,
            "correct_result",
            now,
            before["table"],
            match_id,
            {
                "before": {"score": before["score"], "winner": before["winner"]},
                "score": clean,
                "winner": winner,
            },
        )
        self.store.commit()
        return self._result_changed(match_id, now)

    def _result_changed(self, match_id: str, now: int) -> dict[str, Any]:
        stored = self.store.result(match_id)
        assert stored is not None
        self.results[match_id] = stored
        self._refresh(now, None)
        self._publish({"type": "results", "now_wall": now})
        return stored
