"""What the hub sends by itself: each table's assignment, and the lateness and break-overrun
penalties the rules make due (computed by :mod:`hub.rounds` and :mod:`hub.lateness`, pure).

An automatic penalty must never be wrong, so lateness is applied only to a table that is online,
whose automation the TD has not suspended, whose state arrived since it (or the hub) last came
online, and whose state is that of its scheduled match; and never while the hub is cut off from
the broker. Each due command has a stable id: only ids the store has not recorded are sent, an
unanswered one is sent again (same id, fresh expiry) after ``resend_after_ms``.
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
from hub.rounds import current_matches
from hub.state import RoomState
from hub.store import Store

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
            if match_id != current and result.get("tbl") == table:
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
                view = room.views.get(table)
                if view is None or not view.online or table in room.suspended:
                    continue  # an offline table gets an alert, never an automatic penalty
                if not view.state_fresh:
                    continue  # back online: wait for its current state (who arrived while away)
                state = view.state_for(cur.match.match_id)
                if state is None:
                    continue
                due = due_commands(
                    state, start_wall=cur.match.start_wall, now=now, profile=room.profile(cur.match)
                )
                if not due:
                    continue
                known = self.store.command_ids(table, cur.match.match_id)
                for auto in due:
                    seen = known.get(auto.id)
                    payload = auto.payload(now + self.config.cmd_ttl_ms)
                    if seen is None:
                        self.sender.send(
                            table, cur.match.match_id, payload, origin="auto", actor="hub", now=now
                        )
                    elif resend_due(seen, now, self.config.resend_after_ms):
                        # not answered (or refused as expired): the same id again, with a fresh expiry
                        self.sender.transmit(table, payload, now)
