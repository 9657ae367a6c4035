"""What the dashboards are shown: tiles, the room, a table's detail, the schedule, the results, the
public board; and the push of the tiles and alerts that changed (:meth:`Views.push`).

Read-only over the room state, the alerts and the store: nothing here changes what the hub knows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.hub_link import HubLink
from hub.live.alerts import Alerts
from hub.live.clock import Clock
from hub.live.config import HubConfig
from hub.live.state import RoomState, natural
from hub.logic.round_view import round_overview
from hub.logic.table_view import TableView, board_tile, tile
from hub.logic.timeline import Filters, timeline
from hub.storage.store import Store
from hub.tournament.names import search_words
from hub.tournament.schedule import ScheduledMatch, round_order
from rulebook.custom_profiles import ProfileBook
from rulebook.messages import Snapshot
from rulebook.vocab import LATENESS_REASONS, CommandType, EndReason, Phase


def rules_facts(book: ProfileBook, name: str | None) -> dict[str, Any] | None:
    """A match's rules for its table page: the name, and for a custom profile the built-in one it
    is written over and what it changes (its digest shortened, as the table checked it)."""
    if not name:
        return None
    custom = book.custom.get(name)
    if custom is None:
        return {"name": name, "base": None, "changes": {}, "digest": None}
    changes = {k: v for k, v in custom.overrides.items() if k != "name"}
    return {"name": name, "base": custom.base, "changes": changes, "digest": custom.digest[:12]}


class Views:
    def __init__(
        self,
        room: RoomState,
        alerts: Alerts,
        store: Store,
        config: HubConfig,
        clock: Clock,
        link: Callable[[], HubLink | None],
        publish: Callable[[dict[str, Any]], None],
    ) -> None:
        self.room = room
        self.alerts = alerts
        self.store = store
        self.config = config
        self.clock = clock
        self._link = link
        self._publish = publish
        #: the tiles last pushed, to push only those that changed
        self._tiles: dict[str, dict[str, Any]] = {}

    def push(self, now: int, tables: set[str] | None) -> None:
        """Push the tiles (of ``tables`` and of those whose alerts changed; all: None) that changed,
        and the alert list if any alert changed."""
        alerts_changed, alert_tables = self.alerts.take_changes()
        urgencies = self.alerts.urgencies()
        changed = []
        scope = self.room.tables() if tables is None else sorted(tables | alert_tables, key=natural)
        guard = self.room.guard
        for table in scope:
            with guard.table(table, "show its tile"):
                t = self.tile(table, now, urgencies.get(table, (None, 0)))
                if self._tiles.get(table) != t:
                    self._tiles[table] = t
                    changed.append(t)
        if changed:
            self._publish({"type": "tiles", "tiles": changed, "now_wall": now})
        if alerts_changed:
            self._publish({"type": "alerts", "alerts": self.alerts.listed(), "now_wall": now})
        counters = self.alerts.take_counters()
        if counters is not None:
            self._publish({"type": "counters", "counters": counters, "now_wall": now})

    def held(self, table: str) -> tuple[TableView, ScheduledMatch | None]:
        """The table as the dashboard shows it, and its match. A table whose state is of a match
        moved to another table holds nothing for the room any more: it shows without that state
        (no second tile for the match, no ghost)."""
        room = self.room
        view = room.views.get(table) or TableView(table)
        match = room.match_for(table)
        if match is not None and match.table != table:
            match = None
        if match is None and view.state is not None:
            mid = view.state.get("match_id")
            elsewhere = room.by_id.get(mid) if isinstance(mid, str) else None
            if elsewhere is not None and elsewhere.table != table:
                view = TableView(table, view.status, view.online, view.status_since, no_device=view.no_device)
        return view, match

    def tile(
        self, table: str, now: int | None = None, urgency: tuple[str | None, int] | None = None
    ) -> dict[str, Any]:
        room = self.room
        now = self.clock.now_wall() if now is None else now
        view, match = self.held(table)
        result = room.results.get(match.match_id) if match else None
        best, count = urgency if urgency is not None else self.alerts.urgencies().get(table, (None, 0))
        late, facts = self.alerts.tile_facts(table, match, now)
        out = tile(
            view,
            match,
            now=now,
            grace_ms=self.config.offline_grace_ms,
            verified=bool(result and result.get("verified")),
            suspended=table in room.suspended,
            alert_urgency=best,
            alert_count=count,
            late=late,
        )
        out.update(facts)
        out.update(room.bridged_rooms.tile_facts(table, now))
        # the rules, on the tile only where they are not the room's own: what differs is what a
        # TD walking the room needs to see
        rules = (match.profile if match else None) or (view.state["profile"] if view.state else None)
        out["rules"] = rules if rules and rules != self.config.profile else None
        players = out.get("players") or {}
        # what the dashboard's search finds each player by (hub.tournament.names): the same words as the hub's
        out["search"] = {side: list(search_words(str(players.get(side) or ""))) for side in ("A", "B")}
        return out

    def _safe_tile(self, table: str, now: int) -> dict[str, Any]:
        """The table's tile; if it cannot be built, the one last pushed (or a bare one): one
        table's fault never empties the room view."""
        with self.room.guard.table(table, "show its tile"):
            return self.tile(table, now)
        return self._tiles.get(table) or tile(TableView(table), None, now=now, grace_ms=0)

    def room_view(self) -> dict[str, Any]:
        """The whole room: every tile, the alerts, the rounds, whether the hub reaches the broker."""
        now = self.clock.now_wall()
        link = self._link()
        return {
            "event": self.config.event,
            "now_wall": now,
            "tables": [self._safe_tile(t, now) for t in self.room.tables()],
            "alerts": self.alerts.listed(),
            "counters": self.alerts.counters,
            "rounds": sorted({m.round for m in self.room.schedule}, key=natural),
            "automation": self.automation_state(),
            "link_online": bool(link and link.online),
            "rooms": self.room.bridged_rooms.listed(now),
        }

    def automation_state(self) -> str:
        """The room's automatic lateness: ``on``, ``suspended`` (every table) or ``partly``."""
        tables = set(self.room.tables())
        off = tables & self.room.suspended
        return "on" if not off else "suspended" if off == tables else "partly"

    def board(self) -> dict[str, Any]:
        """The public board: the room's tiles cut to what the tables show anyway."""
        room = self.room_view()
        return {
            "event": room["event"],
            "now_wall": room["now_wall"],
            "tables": [board_tile(t) for t in room["tables"]],
        }

    def table_detail(self, table: str) -> dict[str, Any] | None:
        room = self.room
        if not room.is_known(table):
            return None
        view, match = self.held(table)
        mid = view.match_id or (match.match_id if match else None)
        commands = self.store.commands(table, limit=200)
        state = view.state if view.state is not None and view.state.get("match_id") == mid else None
        return {
            "tile": self.tile(table),
            "state": view.state,
            "status": view.status,
            "match_id": mid,
            "schedule": [m.as_dict() for m in room.schedule if m.table == table],
            "events": self.store.events(table, mid, limit=300)
            if mid
            else self.store.events(table, limit=300),
            "commands": commands,
            "alerts": [a for a in self.alerts.listed() if a["table"] == table],
            "audit": self.store.audit_log(table, limit=100),
            "automation_suspended": table in room.suspended,
            "result": room.results.get(mid) if mid else None,
            "waivers": waivable_penalties(state, commands),
            "undo_end": undoable_end(state, commands),
            "rules": rules_facts(
                room.profiles, match.profile if match else (view.state["profile"] if view.state else None)
            ),
        }

    def rounds(self) -> list[dict[str, Any]]:
        """The rounds at a glance (:mod:`hub.logic.round_view`), with the room's automation."""
        room = self.room
        return round_overview(
            room.schedule,
            views=room.views,
            results=room.results,
            round_end=room.round_end,
            now=self.clock.now_wall(),
        )

    def timeline(self, filters: Filters, limit: int = 500) -> list[dict[str, Any]]:
        """What the hub and the TD did, newest first (:mod:`hub.logic.timeline`)."""
        room = self.room
        states = {t: v.state for t, v in room.views.items() if v.state is not None}
        commands = {c["id"]: c for c in self.store.commands(limit=5000)}
        return timeline(
            self.store.audit_log(filters.table, limit=5000),
            commands=commands,
            matches=room.by_id,
            states=states,
            suspended=room.suspended,
            filters=filters,
            limit=limit,
        )

    def schedule_rows(self) -> list[dict[str, Any]]:
        """The schedule as a round sheet reads: round by round, tables in natural order (2 before 10)."""
        room = self.room
        order = {r: i for i, r in enumerate(round_order(room.schedule))}
        keys = room.players.keys
        return [
            dict(
                m.as_dict(),
                assigned=room.assigned.get(m.table) == m.match_id,
                released=m.match_id in room.released,
                result=m.match_id in room.results,
                player_a_key=keys.get((m.match_id, "A")),
                player_b_key=keys.get((m.match_id, "B")),
                profile_base=room.profiles.base_of(m.profile),
            )
            for m in sorted(room.schedule, key=lambda m: (order[m.round], natural(m.table)))
        ]

    def result_list(self) -> list[dict[str, Any]]:
        """Every result, with the players' federation ids from the registry (a pairing program's
        key: a round's file without ids still exports the ids another round gave) and their
        registry keys."""
        room = self.room
        registry = room.players.registry
        out = []
        for r in sorted(room.results.values(), key=lambda r: (natural(r["round"]), natural(r["table"]))):
            m = room.by_id.get(r["match_id"])
            out.append(
                dict(
                    r,
                    player_a_id=registry.fed_id_of(m, "A") if m else "",
                    player_b_id=registry.fed_id_of(m, "B") if m else "",
                    player_a_key=room.players.keys.get((m.match_id, "A")) if m else None,
                    player_b_key=room.players.keys.get((m.match_id, "B")) if m else None,
                )
            )
        return out

    def player_list(self) -> list[dict[str, Any]]:
        """The event's players, each once (:mod:`hub.tournament.players`), with their matches."""
        return self.room.players.registry.listed(self.room.schedule)


def _by_id(commands: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in commands}


def waivable_penalties(state: Snapshot | None, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The match's penalties not waived yet, each with when it was given and by whom (the TD
    chooses by reason, points and time, not by an id)."""
    if state is None or state.get("phase") == Phase.FINISHED:
        return []
    sent = _by_id(commands)
    out = []
    for p in state.get("penalty_log") or []:
        if not isinstance(p, dict) or p.get("waived") or not isinstance(p.get("id"), str):
            continue
        cmd = sent.get(p["id"]) or {}
        out.append(
            {
                "id": p["id"],
                "against": p.get("against"),
                "points": p.get("points"),
                "reason": p.get("reason"),
                "wall": cmd.get("created_wall"),
                "origin": cmd.get("origin") or "table",
                "actor": cmd.get("actor"),
            }
        )
    return out


def undoable_end(state: Snapshot | None, commands: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The command that ended the match, when waiving it reopens the match as it was (the table's
    rules take back a forfeit, or the lateness point that made one): the dashboard's *Undo*."""
    if state is None or state.get("phase") != Phase.FINISHED:
        return None
    reason = state.get("end_reason")
    if reason not in (EndReason.FORFEIT, EndReason.LATENESS):
        return None
    mid = state.get("match_id")
    done = [
        c
        for c in commands  # newest first
        if c["match_id"] == mid and c["done_ok"] and c["type"] in (CommandType.FORFEIT, CommandType.PENALTY)
    ]
    for c in done:
        body = c["body"]
        late = reason == EndReason.LATENESS and body.get("reason") in LATENESS_REASONS
        if c["type"] == CommandType.FORFEIT or late:
            return {
                "command_id": c["id"],
                "type": c["type"],
                "against": body.get("against"),
                "reason": body.get("reason"),
                "origin": c["origin"],
                "actor": c["actor"],
                "wall": c["created_wall"],
            }
    return None
