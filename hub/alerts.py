"""The alerts' life: raised when a watch sees a situation, updated while it lasts, resolved when it
is over, acknowledged by the TD. What deserves an alert is decided by the pure functions of
:mod:`hub.watch`; this module keeps the active ones in memory and in the store.

An escalation (a higher urgency) clears the acknowledgement. A situation's alert is resolved only
once the hub holds the table's current state (see :meth:`Alerts.state_settled`). Alerts raised by
a single event (``ONE_SHOT``: a refused command or assignment) last until acknowledged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from hub.incidents import KINDS as INCIDENT_KINDS
from hub.room import URGENCY_RANK, TableView
from hub.state import RoomState
from hub.store import Store
from hub.watch import AlertSpec, WatchConfig, result_alert, table_alerts

log = logging.getLogger("hub")

#: Alerts raised by a single event (not a lasting situation): resolved only by acknowledgement.
ONE_SHOT = frozenset({"cmd_failed", "assign_refused", "dice"}) | INCIDENT_KINDS


def public_alert(row: dict[str, Any]) -> dict[str, Any]:
    """An alert as the API shows it (``table`` rather than the column name ``tbl``)."""
    out = {k: v for k, v in row.items() if k != "tbl"}
    out["table"] = row["tbl"]
    return out


def ordered(alerts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Alerts as the API lists them: unacknowledged first, most urgent first, newest first."""
    items = [public_alert(a) for a in alerts]
    items.sort(key=lambda a: (a["acked_wall"] is not None, URGENCY_RANK[a["urgency"]], -a["raised_wall"]))
    return items


def urgencies(alerts: Iterable[dict[str, Any]]) -> dict[str, tuple[str | None, int]]:
    """table -> (most urgent unacknowledged alert, number of active alerts)."""
    out: dict[str, tuple[str | None, int]] = {}
    for a in alerts:
        t = a["tbl"]
        if t is None:
            continue
        best, count = out.get(t, (None, 0))
        if a["acked_wall"] is None and (best is None or URGENCY_RANK[a["urgency"]] < URGENCY_RANK[best]):
            best = a["urgency"]
        out[t] = (best, count + 1)
    return out


def command_refused(table: str, evt: dict[str, Any], match_id: str | None, error: str | None) -> AlertSpec:
    """A table answered ``cmd_done`` with ``ok: false``."""
    return AlertSpec(
        f"cmd:{evt['id']}",
        "cmd_failed",
        "medium",
        f"Table {table} refused command {evt.get('cmd') or ''} {evt['id']}: {error}",
        table,
        match_id,
    )


def assignment_refused(table: str, evt: dict[str, Any], match_id: str | None, now: int) -> AlertSpec:
    """A table answered its ``assign`` with a rejection."""
    return AlertSpec(
        f"assign:{table}:{now}",
        "assign_refused",
        "medium",
        f"Table {table} refused its assignment: {evt['rejected']}",
        table,
        match_id,
    )


class Alerts:
    """The active alerts (key -> stored row) and which tables' alerts changed since the last push."""

    def __init__(self, room: RoomState, store: Store, watch: WatchConfig) -> None:
        self.room = room
        self.store = store
        self.watch = watch
        self.active: dict[str, dict[str, Any]] = {a["key"]: a for a in store.alerts(active_only=True)}
        self._dirty = False
        #: tables whose alerts changed since the last push (their tiles show the urgency)
        self._tables: set[str] = set()

    # -- raising and resolving ----------------------------------------------------------------

    def raise_(self, spec: AlertSpec, now: int) -> bool:
        """Open or update an alert; True if anything changed."""
        current = self.active.get(spec.key)
        if current is None:
            self.active[spec.key] = self.store.raise_alert(
                spec.key, spec.kind, spec.urgency, spec.table, spec.match_id, spec.message, now
            )
            if spec.urgency == "critical":
                log.warning("ALERT %s", spec.message)
            self._changed(spec.table)
            return True
        if current["urgency"] == spec.urgency and current["message"] == spec.message:
            return False
        self._changed(spec.table)
        escalated = URGENCY_RANK[spec.urgency] < URGENCY_RANK[current["urgency"]]
        self.store.update_alert(spec.key, spec.urgency, spec.message, reopen_ack=escalated)
        current.update(urgency=spec.urgency, message=spec.message)
        if escalated:
            current.update(acked_wall=None, acked_by=None)
        return True

    def sync(self, now: int, tables: set[str] | None) -> None:
        """Raise what the watches see at the ``tables`` (all: None) and resolve what they no longer see."""
        room = self.room
        scope = set(room.tables()) if tables is None else tables
        wanted: dict[str, AlertSpec] = {}
        guard = room.guard
        for table in scope:
            with guard.table(table, "check its alerts"):
                for spec in self._specs(table, now):
                    wanted[spec.key] = spec
        for result in room.results.values():
            verify = result_alert(result)
            if verify is not None and (tables is None or result["table"] in scope):
                wanted[verify.key] = verify
        for spec in wanted.values():
            self.raise_(spec, now)
        for key, alert in list(self.active.items()):
            if (
                key not in wanted
                and alert["kind"] not in ONE_SHOT
                and alert["tbl"] in scope
                and self.state_settled(alert["tbl"])
            ):
                self.store.resolve_alert(key, now)
                del self.active[key]
                self._changed(alert["tbl"])

    def _specs(self, table: str, now: int) -> list[AlertSpec]:
        room = self.room
        match = room.match_for(table)
        return table_alerts(
            room.views[table] if table in room.views else TableView(table),
            match,
            now=now,
            config=self.watch,
            profile=room.profile(match),
            round_end=room.round_end.get(match.round) if match else None,
            suspended=table in room.suspended,
        )

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

    # -- what the views read ------------------------------------------------------------------

    def listed(self) -> list[dict[str, Any]]:
        """Active alerts, unacknowledged first, most urgent first, newest first."""
        return ordered(self.active.values())

    def urgencies(self) -> dict[str, tuple[str | None, int]]:
        return urgencies(self.active.values())

    def take_changes(self) -> tuple[bool, set[str]]:
        """(whether any alert changed, the tables whose alerts changed) since the last call."""
        dirty, tables = self._dirty, self._tables
        self._dirty, self._tables = False, set()
        return dirty, tables

    def _changed(self, table: str | None) -> None:
        self._dirty = True
        if table is not None:
            self._tables.add(table)
