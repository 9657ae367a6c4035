"""Commands to the tables (PROTOCOL §3.3): recorded before they are published, sent again when due.

Both the automation and the TD's actions send through here. A command is written to the store
and committed *before* it goes on the wire, so a hub restarted at any moment never sends one as
new twice; the table applies each id at most once anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from drivers.hub_link import HubLink
from hub.storage.store import Store

log = logging.getLogger("hub")


class CommandSender:
    def __init__(self, store: Store, link: Callable[[], HubLink | None]) -> None:
        self.store = store
        self._link = link

    def send(
        self,
        table: str,
        match_id: str | None,
        payload: dict[str, Any],
        *,
        origin: str,
        actor: str,
        now: int,
        note: dict[str, Any] | None = None,
    ) -> bool:
        """Record the command, commit, then publish it: what was sent is never sent as new again.

        A command the hub sends by itself (``origin="auto"``) is written to the audit log too, with
        the hub as its actor, so the room's timeline shows what the hub did next to what the TD did
        (a TD's command is audited by the action that sends it). ``note`` adds to that audit row
        what the table need not know (when an automatic command fell due, why it is late)."""
        if not self.store.add_command(payload, table, match_id, origin, actor, now):
            return False
        if origin == "auto":
            detail = {**payload, **(note or {})}
            self.store.audit(actor, f"cmd:{payload['type']}", now, table, match_id, detail)
        self.store.commit()
        self.transmit(table, payload, now)
        log.info("table %s: sent %s %s", table, payload["type"], payload["id"])
        return True

    def transmit(self, table: str, payload: dict[str, Any], now: int) -> None:
        """Publish an already recorded command (again) and note when."""
        link = self._link()
        if link is not None:
            link.send_cmd(table, payload)
        self.store.mark_sent(payload["id"], now, payload)

    def resend_unanswered(self, table: str, now: int) -> None:
        """A table back online gets again every command it has not answered and that is still
        valid, oldest first (as they were sent: a point before the forfeit it leads to)."""
        for cmd in reversed(self.store.commands(table, limit=200)):
            body = cmd["body"]
            if cmd["done_ok"] is None and body.get("expires_wall", 0) > now:
                self.transmit(table, body, now)
