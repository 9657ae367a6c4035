"""The TD's actions at one table: commands to it, acknowledging alerts, suspending its automation,
releasing it to its next match, verifying and correcting results. (Room-wide actions, moving a
match and importing the schedule are :mod:`hub.live.round_control`'s.)

Every action is checked before anything happens (:class:`ActionError` says what is wrong, and
nothing is done), written to the audit log with the actor, committed, and then pushed to the
dashboards. A command is checked by the rulebook before it is sent: parsed once into its typed
value by the table's own parser (:func:`td_command_of`), judged as that value by the table's
published judgement (:func:`judge`), and sent as its fields; the hub restates no rule.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from hub.errors import HubError
from hub.live.alerts import Alerts
from hub.live.clock import Clock
from hub.live.commands import CommandSender
from hub.live.config import HubConfig
from hub.live.state import RoomState
from hub.logic.tabletime import command_expiry
from hub.storage.store import Store
from rulebook import parse
from rulebook.errors import RuleError
from rulebook.legal import check_command
from rulebook.match import SHORT_ENDS, final_winner
from rulebook.messages import Snapshot
from rulebook.parse import command_fields, parse_command
from rulebook.vocab import Command, CommandType, EndReason, PauseReason, PenaltyReason


class ActionError(HubError, ValueError):
    """A TD action that cannot be carried out (bad fields, unknown table or match): nothing was
    done. ``code`` is a stable name for the refusal (the rulebook's refusal code when the rules
    refused it, ``rulebook/codes.py``), ``status`` the HTTP status the dashboard's API answers with
    and ``detail`` the refusal's parameters (both in the answer)."""

    def __init__(
        self,
        message: str,
        code: str | None = None,
        *,
        status: int = 400,
        detail: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.detail = detail or {}


#: what a TD's form may leave out, and the hub fills in: the reason of a penalty, a forfeit, a pause
FORM_DEFAULTS: dict[str, tuple[str, str]] = {
    CommandType.PENALTY: ("reason", PenaltyReason.CONDUCT),
    CommandType.FORFEIT: ("reason", EndReason.FORFEIT),
    CommandType.PAUSE: ("reason", PauseReason.TD),
}


def td_command_of(kind: str, f: dict[str, Any]) -> Command:
    """The TD's command, typed, or :class:`ActionError` with the code.

    The rulebook parses it (``rulebook.parse.parse_command``: types, ranges, required fields),
    the same parser the table runs; the hub adds only the reasons a TD's form may leave out.
    Parsed once: the hub judges and sends this value.
    """
    body = {**f, "type": kind}
    default = FORM_DEFAULTS.get(kind)
    if default is not None and (kind == CommandType.PAUSE or not body.get(default[0])):
        body[default[0]] = default[1]
    try:
        return parse_command(body)
    except RuleError as exc:
        raise ActionError(exc.message, exc.code) from None


def check_fields(kind: str, f: dict[str, Any]) -> dict[str, Any]:
    """The command's fields as the table will take them (:func:`td_command_of`), without ``type``."""
    fields = command_fields(td_command_of(kind, f))
    del fields["type"]
    return fields


def judge(cmd: Command, snapshot: Snapshot | None) -> None:
    """Whether the table would apply ``cmd`` now, as its last snapshot says
    (``rulebook.legal.check_command``): a command the rules refuse is not sent."""
    if snapshot is None:
        return
    try:
        check_command(snapshot, cmd)
    except RuleError as exc:
        raise ActionError(exc.message, exc.code) from None


def check_legal(kind: str, fields: dict[str, Any], snapshot: Snapshot | None) -> None:
    """:func:`judge` for a command given as its type and fields."""
    judge(td_command_of(kind, fields), snapshot)


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
            return view.state["match_id"]
        match = room.match_for(table)
        return match.match_id if match else None

    def td_command(self, table: str, kind: str, fields: dict[str, Any], actor: str) -> dict[str, Any]:
        """Send a TD command (PROTOCOL §3.3) to a table; returns the command as sent.

        Parsed by the rulebook once (:func:`td_command_of`), then judged as that typed command:
        whether the table's rules allow it now (:func:`judge`, from the table's last snapshot)."""
        cmd = td_command_of(kind, fields)
        mid = self._table_match(table)
        now = self.clock.now_wall()
        judge(cmd, self._judging_snapshot(table, now))
        payload = {
            "id": f"td:{uuid.uuid4()}",
            **command_fields(cmd),
            "expires_wall": command_expiry(self.room.views.get(table), now, self.config.cmd_ttl_ms),
        }
        self.store.audit(actor, f"cmd:{kind}", now, table, mid, payload)
        self.sender.send(table, mid, payload, origin="td", actor=actor, now=now)
        self._refresh(now, {table})
        return payload

    def _judging_snapshot(self, table: str, now: int) -> Snapshot | None:
        """The table's last snapshot, when it is what the table would judge a command by now.

        Not when it is stale: the hub holds events newer than it, or commands the table has not
        answered yet (it may have applied them). Then the table judges on arrival, as before: a
        TD's command is never refused for what the hub has not heard yet."""
        view = self.room.views.get(table)
        if view is None or view.state is None or not view.state_fresh:
            return None
        snap = view.state
        if self.store.max_seq(table, snap["match_id"] or "") > snap["seq"]:
            return None
        for cmd in self.store.commands(table, limit=50):
            if cmd["done_ok"] is None and int(cmd["body"].get("expires_wall") or 0) > now:
                return None
        return snap

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
            self.td_command(table, CommandType.TD_ACK, {}, actor)
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
        self._tick()  # at once: resumed, the marks that fell due meanwhile are decided now

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

    def correct_result(self, match_id: str, score: Any, winner: Any, note: Any, actor: str) -> dict[str, Any]:
        """The TD corrects a finished match's result (WBGF 4.6, 4.7), with a note saying why.

        The rulebook judges the final (:func:`rulebook.match.final_winner`): both players at the
        length, a loser at it, or a winner short of it in a match that did not end by time,
        forfeit or lateness is refused with its code, and nothing changes. How the match ended
        (``end_reason``) stays; the correction is recorded beside it."""
        if match_id not in self.room.results:
            raise ActionError(f"no result for {match_id}")
        before = self.room.results[match_id]
        end = before.get("end_reason")
        try:
            pair = parse.side_map({"score": score}, "score", 0, 10 * parse.MAX_LENGTH)
            named = parse.side({"winner": winner}, "winner") if winner is not None else None
            text = parse.required_note({"note": note}, limit=200)
            if named is None and end in SHORT_ENDS and before.get("winner") in ("A", "B"):
                named = before["winner"]  # the forfeit or time-out names the winner
            won = final_winner(int(before["length"]), pair, named, end)
        except RuleError as exc:
            raise ActionError(exc.message, exc.code) from None
        clean = pair.as_dict()
        now = self.clock.now_wall()
        self.store.correct_result(match_id, clean, won, text, actor, now)
        self.store.audit(
            actor,
            "correct_result",
            now,
            before["table"],
            match_id,
            {
                "before": {"score": before["score"], "winner": before["winner"]},
                "score": clean,
                "winner": won,
                "note": text,
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
