"""The TD's actions at one table: commands to it, acknowledging alerts, suspending its automation,
releasing it to its next match, verifying and correcting results. (Room-wide actions, moving a
match and importing the schedule are :mod:`hub.round_control`'s.)

Every action is checked before anything happens (:class:`ActionError` says what is wrong, and
nothing is done), written to the audit log with the actor, committed, and then pushed to the
dashboards. The fields of a command are checked here by type and range (:func:`check_fields`,
pure); the table re-checks them by the rules.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from hub.alerts import Alerts
from hub.clock import Clock
from hub.commands import CommandSender
from hub.config import HubConfig
from hub.state import RoomState
from hub.store import Store
from hub.tabletime import command_expiry

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


def _side(value: Any, name: str) -> str:
    if value not in ("A", "B"):
        raise ActionError(f"{name}: expected A or B")
    return value


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ActionError(f"{name}: expected a whole number from {lo} to {hi}")
    return value


def check_fields(kind: str, f: dict[str, Any]) -> dict[str, Any]:
    """The command's fields, checked and cut to those its type has (``kind`` in TD_COMMANDS)."""
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


class Actions:
    """The TD's actions. ``refresh(now, tables)`` re-evaluates alerts and tiles and pushes them,
    ``tick()`` runs the automation now, ``publish`` tells the dashboards to reload a list."""

    def __init__(
        self,
        room: RoomState,
        alerts: Alerts,
        store: Store,
        config: HubConfig,
        clock: Clock,
        sender: CommandSender,
        *,
        refresh: Callable[[int, set[str] | None], None],
        tick: Callable[[], None],
        publish: Callable[[dict[str, Any]], None],
    ) -> None:
        self.room = room
        self.alerts = alerts
        self.store = store
        self.config = config
        self.clock = clock
        self.sender = sender
        self._refresh = refresh
        self._tick = tick
        self._publish = publish

    def _table_match(self, table: str) -> str | None:
        room = self.room
        if not room.is_known(table):
            raise ActionError(f"unknown table {table!r}")
        view = room.views.get(table)
        if view is not None and view.state is not None:
            return view.state.get("match_id")
        match = room.match_for(table)
        return match.match_id if match else None

    def td_command(self, table: str, kind: str, fields: dict[str, Any], actor: str) -> dict[str, Any]:
        """Send a TD command (PROTOCOL §3.3) to a table; returns the command as sent."""
        if kind not in TD_COMMANDS:
            raise ActionError(f"unknown command {kind!r}")
        clean = check_fields(kind, fields)
        mid = self._table_match(table)
        now = self.clock.now_wall()
        payload = {
            "id": f"td:{uuid.uuid4()}",
            "type": kind,
            **clean,
            "expires_wall": command_expiry(self.room.views.get(table), now, self.config.cmd_ttl_ms),
        }
        self.store.audit(actor, f"cmd:{kind}", now, table, mid, payload)
        self.sender.send(table, mid, payload, origin="td", actor=actor, now=now)
        self._refresh(now, {table})
        return payload

    def ack_alert(self, alert_id: int, actor: str) -> bool:
        """Acknowledge an active alert; False if it already was (or is no longer active).

        Acknowledging a TD call also clears the call on the table's screen (``td_ack``): the TD
        has one *acknowledge*, not one on the dashboard and another at the table."""
        now = self.clock.now_wall()
        alert = self.alerts.find(alert_id)
        if alert is None:
            if self.store.alert(alert_id) is None:
                raise ActionError(f"no alert {alert_id}")
            return False
        if not self.alerts.acknowledge(alert, actor, now):
            return False
        table = alert.get("tbl")
        if alert["kind"] == "td_call" and table is not None and self.room.is_known(table):
            self.td_command(table, "td_ack", {}, actor)
        self._refresh(now, set())
        return True

    def set_automation(self, table: str, suspended: bool, actor: str) -> None:
        self._table_match(table)
        now = self.clock.now_wall()
        self.store.set_automation(table, suspended)
        self.store.audit(actor, "suspend_automation" if suspended else "resume_automation", now, table)
        self.store.commit()
        if suspended:
            self.room.suspended.add(table)
        else:
            self.room.suspended.discard(table)
        self._refresh(now, {table})

    def release(self, table: str, actor: str) -> str:
        """Let the table move on to its next scheduled match (the current one is set aside)."""
        cur = self.room.current.get(table)
        if cur is None:
            raise ActionError(f"table {table} has no current match to release")
        now = self.clock.now_wall()
        self.store.release(cur.match.match_id, actor, now)
        self.store.audit(actor, "release", now, table, cur.match.match_id)
        self.store.commit()
        self.room.released.add(cur.match.match_id)
        self._tick()
        return cur.match.match_id

    def verify_result(self, match_id: str, actor: str) -> dict[str, Any]:
        if match_id not in self.room.results:
            raise ActionError(f"no result for {match_id}")
        now = self.clock.now_wall()
        self.store.verify_result(match_id, actor, now)
        self.store.audit(actor, "verify_result", now, self.room.results[match_id]["table"], match_id)
        self.store.commit()
        return self._result_changed(match_id, now)

    def correct_result(self, match_id: str, score: Any, winner: Any, note: str, actor: str) -> dict[str, Any]:
        if match_id not in self.room.results:
            raise ActionError(f"no result for {match_id}")
        if not isinstance(score, dict):
            raise ActionError("score: expected {A, B}")
        clean = {s: _int(score.get(s), f"score.{s}", 0, 990) for s in "AB"}
        if winner is not None:
            _side(winner, "winner")
        now = self.clock.now_wall()
        before = self.room.results[match_id]
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
        self.room.results[match_id] = stored
        self._refresh(now, None)
        self._publish({"type": "results", "now_wall": now})
        return stored
