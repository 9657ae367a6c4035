"""What the hub sends by itself: each table's assignment, and the lateness and break-overrun
penalties the rules make due (computed by :mod:`hub.rounds` and :mod:`hub.lateness`, pure).

An automatic penalty must never be wrong, so lateness is applied only to a table that is online,
whose automation the TD has not suspended, whose state arrived since it (or the hub) last came
online, and whose state is that of its scheduled match; and never while the hub is cut off from
the broker. All of it in the hub's time: the table's durations are anchored at receipt
(:mod:`hub.tabletime`), its wall clock is never compared with the hub's. Each due command has a
stable id: only ids the store has not recorded are sent, an unanswered one is sent again (same
id, fresh expiry) after ``resend_after_ms``. One table's bad state is logged and skipped: it never
stops the others' lateness.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from drivers.hub_link import HubLink
from hub.commands import CommandSender
from hub.config import HubConfig
from hub.lateness import due_commands
from hub.room import TableView
from hub.rounds import Current, current_matches
from hub.state import RoomState
from hub.store import Store
from hub.tabletime import command_expiry

log = logging.getLogger("hub")


def confirmed_matches(views: dict[str, TableView], results: dict[str, dict[str, Any]]) -> set[str]:
    """Matches the tables' states show as confirmed by both players, or left by their table.

    A table that reports another match has left every earlier match of its own that has a result.
    """
    out: set[str] = set()
    for table, view in views.items():
        s = view.state
        if s is None or not s.get("match_id"):
            continue
        current = s["match_id"]
        confirmed = s.get("confirmed") or {}
        if s.get("phase") == "finished" and confirmed.get("A") and confirmed.get("B"):
            out.add(current)
        for match_id, result in results.items():
            if match_id != current and result.get("table") == table:
                out.add(match_id)
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

    def republish(self, now: int) -> None:
        """Publish every current assignment again (the hub has reconnected to the broker)."""
        self._assign_payloads.clear()
        self.assign(now)

    def assign(self, now: int) -> None:
        """Work out each table's current match; publish new assignments, withdraw moved ones."""
        room = self.room
        self._confirmed |= confirmed_matches(room.views, room.results)
        room.current = current_matches(
            room.schedule,
            results=room.results,
            released=room.released,
            confirmed=self._confirmed,
            now=now,
            hold_ms=self.config.hold_ms,
        )
        link = self._link()
        for table, cur in room.current.items():
            with room.guard.table(table, "send its assignment"):
                payload = cur.match.assign_payload()
                if cur.force:
                    payload["force"] = True
                if self._assign_payloads.get(table) == payload:
                    continue
                if link is None:
                    continue
                link.send_assign(table, payload)
                self._assign_payloads[table] = payload
                if room.assigned.get(table) != cur.match.match_id:
                    room.assigned[table] = cur.match.match_id
                    self.store.set_assigned(table, cur.match.match_id, now)
                    log.info("table %s: assigned %s", table, cur.match.match_id)
        for table, match_id in list(room.assigned.items()):
            m = room.by_id.get(match_id)
            if table not in room.current and (m is None or m.table != table) and link is not None:
                # the match was moved elsewhere by a new schedule: a table that restarts must not
                # set it up again from the retained assignment
                link.clear_assign(table)
                self._assign_payloads.pop(table, None)
                del room.assigned[table]
                self.store.clear_assigned(table)
                log.info("table %s: assignment %s withdrawn", table, match_id)

    def lateness(self, now: int) -> None:
        """Send the lateness and overrun commands due now that were not sent, resend unanswered ones."""
        link = self._link()
        if link is not None and not link.online:
            return  # cut off from the room: nothing known is current, nothing sent would be timely
        room = self.room
        for table, cur in room.current.items():
            with room.guard.table(table, "apply lateness"):
                self._lateness_at(table, cur, now)

    def _lateness_at(self, table: str, cur: Current, now: int) -> None:
        """One table's lateness and overrun commands (inside the guard)."""
        room = self.room
        view = room.views.get(table)
        if view is None or not view.online or table in room.suspended:
            return  # an offline table gets an alert, never an automatic penalty
        if not view.state_fresh:
            return  # back online: wait for its current state (who arrived while away)
        match_id = cur.match.match_id
        if view.state_for(match_id) is None:
            return
        room.first_seen.setdefault((table, match_id), view.state_wall)
        t = room.timing(table, cur.match, self.config.late())
        due = due_commands(t, now) if t is not None else []
        if not due:
            return
        known = self.store.command_ids(table, match_id)
        for auto in due:
            seen = known.get(auto.id)
            payload = auto.payload(command_expiry(view, now, self.config.cmd_ttl_ms))
            if seen is None:
                self.sender.send(table, match_id, payload, origin="auto", actor="hub", now=now)
            elif resend_due(seen, now, self.config.resend_after_ms):
                # not answered (or refused as expired): the same id again, with a fresh expiry
                self.sender.transmit(table, payload, now)


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
    applied = {
        p["id"]: p
        for p in (state or {}).get("penalty_log") or []
        if isinstance(p, dict) and isinstance(p.get("id"), str) and p["id"].startswith(prefix)
    }
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
