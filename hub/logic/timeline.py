"""The room's timeline: everything the hub did by itself and everything the TD did, in one list, as
sentences naming the players, with what can still be taken back (pure).

The rows are the audit log's (the TD's actions, and the hub's automatic commands audited with
the actor ``hub``); the commands' answers, the schedule's players and the tables' current states
only add to them. A row offers *Waive* for a penalty the table still counts, *Undo* for the
forfeit that ended a match the table still holds, *Resume* for a suspension still in force.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hub.logic.conditions import hhmm
from hub.logic.holds import REASONS as HELD
from hub.logic.holds import WHY
from hub.tournament.names import name_matches
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Snapshot
from rulebook.vocab import LATENESS_REASONS, CommandType, CrawfordChoice, EndReason, Phase

#: the timeline's filter groups: action -> group
GROUPS = {
    CommandType.PENALTY: "penalties",
    CommandType.WAIVE: "penalties",
    CommandType.FORFEIT: "penalties",
    CommandType.PAUSE: "clock",
    CommandType.RESUME: "clock",
    CommandType.SET_TIME: "clock",
    CommandType.IMPOSE_CLOCK: "clock",
    CommandType.START_CLOCK: "clock",
    CommandType.CORRECT_SCORE: "score",
    CommandType.SET_LENGTH: "score",
    CommandType.RESOLVE_FLAG: "score",
    "verify_result": "results",
    "correct_result": "results",
    "ack_alert": "alerts",
    CommandType.TD_ACK: "alerts",
    "suspend_automation": "automation",
    "resume_automation": "automation",
    "automation_resumed": "automation",
    "import_schedule": "schedule",
    "release": "schedule",
    "move_match": "schedule",
    "round_start": "rounds",
    "round_delay": "rounds",
    "pause_all": "rounds",
    "resume_all": "rounds",
    "suspend_room": "rounds",
    "resume_room": "rounds",
    "verify_confirmed": "rounds",
    "login": "session",
}

REASONS = {
    "late": "lateness",
    "lateness": "lateness",
    "break_overrun": "break overrun",
    "conduct": "conduct",
    "slow_play": "slow play",
    "td": "the TD's decision",
}


@dataclass(frozen=True, slots=True)
class Filters:
    table: str | None = None
    group: str | None = None
    person: str | None = None
    #: only what the hub did by itself (True), only the TD's (False), both (None)
    automatic: bool | None = None


def _pts(n: Any) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class _Said:
    """What a sentence is made of: the row's details, the players' names, the row, the table's state."""

    d: dict[str, Any]
    who: dict[str, str]
    row: dict[str, Any]
    state: Snapshot | None

    def name(self, side: Any) -> str:
        return self.who.get(side, str(side)) if isinstance(side, str) else "?"

    def other(self, side: Any) -> str:
        return self.name("B" if side == "A" else "A")

    @property
    def reason(self) -> str:
        return REASONS.get(str(self.d.get("reason")), str(self.d.get("reason") or ""))

    def count(self, key: str) -> int:
        return len(self.d.get(key) or [])


def _sentence(
    action: str, d: dict[str, Any], who: dict[str, str], row: dict[str, Any], state: Snapshot | None
) -> str:
    """What happened, naming the players (``who``: side -> name); ``state``: the table's, for
    what a waiver took back. One sentence per action (:data:`_SENTENCES`); an action without one
    reads as its words."""
    say = _SENTENCES.get(action)
    return say(_Said(d, who, row, state)) if say is not None else action.replace("_", " ")


def _penalty(s: _Said) -> str:
    against = s.d.get("against")
    return (
        f"{_pts(s.d.get('points'))} against {s.name(against)} ({s.reason}) to {s.other(against)}"
        + _given_late(s.d)
    )


def _forfeit(s: _Said) -> str:
    against = s.d.get("against")
    return f"Forfeit: {s.name(against)} loses to {s.other(against)} ({s.reason})" + _given_late(s.d)


def _waive(s: _Said) -> str:
    for p in (s.state.get("penalty_log") or []) if s.state else []:
        if p["id"] == s.d.get("penalty_id"):
            why = REASONS.get(p["reason"], p["reason"])
            return f"Waived {_pts(p['points'])} against {s.name(p['against'])} ({why})"
    return f"Waived {s.d.get('penalty_id')}"


def _set_time(s: _Said) -> str:
    r = s.d.get("reserve_ms") or {}
    return f"Time set: {s.name('A')} {_mmss(r.get('A'))}, {s.name('B')} {_mmss(r.get('B'))}"


def _correct_score(s: _Said) -> str:
    score = s.d.get("score") or {}
    return f"Score corrected: {s.name('A')} {score.get('A')}, {s.name('B')} {score.get('B')}"


def _correct_result(s: _Said) -> str:
    score = s.d.get("score") or {}
    return f"Result corrected to {score.get('A')}–{score.get('B')}"


def _crawford_double(s: _Said) -> str:
    kept = "kept" if s.d.get("choice") == CrawfordChoice.KEEP else "voided"
    return f"Double in the Crawford game {kept} by the match leader"


#: the sentence of each action of the timeline (an action of the audit log or a TD command)
_SENTENCES: dict[str, Callable[[_Said], str]] = {
    CommandType.PENALTY: _penalty,
    CommandType.FORFEIT: _forfeit,
    "automation_resumed": lambda s: _resumed(s.d, s.name, s.row),
    CommandType.WAIVE: _waive,
    CommandType.START_CLOCK: lambda s: f"{s.name(s.d.get('side'))}'s clock started",
    CommandType.PAUSE: lambda s: "Clocks paused",
    CommandType.RESUME: lambda s: "Clocks resumed",
    CommandType.SET_TIME: _set_time,
    CommandType.IMPOSE_CLOCK: lambda s: (
        f"Clock imposed: {s.d.get('minutes_per_point')} min per point, {s.d.get('delay_s')} s delay"
    ),
    CommandType.SET_LENGTH: lambda s: f"Match length set to {s.d.get('length')}",
    CommandType.CORRECT_SCORE: _correct_score,
    CommandType.RESOLVE_FLAG: lambda s: f"Time flag: {s.name(s.d.get('winner'))} wins on time",
    CommandType.TD_ACK: lambda s: "TD call acknowledged at the table",
    CommandType.FORBID_DOUBLE: lambda s: (
        f"{s.name(s.d.get('side'))} may not double for the rest of the game (HU 7.9)"
    ),
    CommandType.FORCE_DOUBLE: lambda s: f"{s.name(s.d.get('side'))}'s double entered by the TD (FFBG 6.8)",
    CommandType.CRAWFORD_DOUBLE: _crawford_double,
    CommandType.DOUBLE_LOSS: lambda s: "Double loss: both players lose the match (FFBG 10.3)",
    "ack_alert": lambda s: f"Alert acknowledged ({str(s.d.get('alert', '')).split(':')[0]})",
    "verify_result": lambda s: "Result verified",
    "correct_result": _correct_result,
    "suspend_automation": lambda s: f"Automatic lateness suspended at table {s.row.get('table')}",
    "resume_automation": lambda s: f"Automatic lateness resumed at table {s.row.get('table')}",
    "release": lambda s: f"Table {s.row.get('table')} released to its next match",
    "import_schedule": lambda s: (
        f"Schedule imported: {s.d.get('added', 0)} new, {s.d.get('updated', 0)} updated"
    ),
    "move_match": lambda s: f"Moved from table {s.d.get('from')} to table {s.d.get('to')}",
    "round_start": lambda s: f"Round {s.d.get('round')} started now ({s.d.get('matches', 0)} matches)",
    "round_delay": lambda s: (
        f"Round {s.d.get('round')} delayed by {s.d.get('minutes')} min ({s.d.get('matches', 0)} matches)"
    ),
    "pause_all": lambda s: f"All clocks paused ({s.count('tables')} tables)",
    "resume_all": lambda s: f"All clocks resumed ({s.count('tables')} tables)",
    "suspend_room": lambda s: "Automatic lateness suspended for the whole room",
    "resume_room": lambda s: "Automatic lateness resumed for the whole room",
    "verify_confirmed": lambda s: f"{s.count('verified')} results confirmed at the tables verified",
    "login": lambda s: "TD logged in",
}


def _given_late(d: dict[str, Any]) -> str:
    """An automatic command given late because automation was held (hub.logic.holds): when it fell
    due, and why it came late."""
    due, held = d.get("due_wall"), HELD.get(str(d.get("held")))
    if not isinstance(due, int) or held is None:
        return ""  # a moment late (a tick, a message on its way): nothing to explain
    return f" — due at {hhmm(due)}, given late: {held}"


def _resumed(d: dict[str, Any], name: Any, row: dict[str, Any]) -> str:
    """A hold ended at a table (hub.logic.holds): what it gave late, which marks the rules did not give."""
    since = d.get("since")
    held = HELD.get(str(d.get("reason")), str(d.get("reason") or "a hold"))
    text = f"Automatic lateness back at table {row.get('table')} after {held}"
    if isinstance(since, int):
        text += f" (from {hhmm(since)})"
    given = [g for g in d.get("given") or [] if isinstance(g, dict) and isinstance(g.get("due_wall"), int)]
    if given:
        text += f": {len(given)} given late (due {', '.join(hhmm(g['due_wall']) for g in given)})"
    missed: dict[tuple[str, str], list[int]] = {}
    for m in d.get("not_given") or []:
        if isinstance(m, dict) and isinstance(m.get("wall"), int):
            missed.setdefault((str(m.get("side")), str(m.get("why"))), []).append(m["wall"])
    if missed:
        text += "; not given: " + "; ".join(
            f"{', '.join(hhmm(w) for w in walls)}{'' if side == 'both' else f' against {name(side)}'} — "
            f"{WHY.get(why, why)}"
            for (side, why), walls in sorted(missed.items())
        )
    return text


def _waived_forfeit(action: str, d: dict[str, Any], commands: dict[str, dict[str, Any]]) -> str | None:
    """A waiver of the forfeit that ended a match, said as what it did."""
    waived = (commands.get(str(d.get("penalty_id"))) or {}).get("type")
    if action == CommandType.WAIVE and waived == CommandType.FORFEIT:
        return "Forfeit taken back: the match reopened as it was"
    return None


def _mmss(ms: Any) -> str:
    if not isinstance(ms, int):
        return "?"
    return f"{ms // 60000}:{ms // 1000 % 60:02d}"


def _undo(
    action: str,
    row: dict[str, Any],
    d: dict[str, Any],
    states: dict[str, Snapshot],
    suspended: set[str],
) -> dict[str, Any] | None:
    """What the TD can take back from this row now, or None."""
    table, mid = row.get("table"), row.get("match_id")
    state = states.get(table or "")
    held = state is not None and state.get("match_id") == mid
    if action == CommandType.PENALTY and held and state is not None and state.get("phase") != Phase.FINISHED:
        for p in state.get("penalty_log") or []:
            if isinstance(p, dict) and p.get("id") == d.get("id") and not p.get("waived"):
                return {"type": CommandType.WAIVE, "penalty_id": d["id"], "label": "Waive"}
    ended = (
        held
        and state is not None
        and state.get("phase") == Phase.FINISHED
        and state.get("end_reason") in (EndReason.FORFEIT, EndReason.LATENESS)
    )
    if ended and state is not None and d.get("id") == _ended_by(state, d):
        return {"type": CommandType.WAIVE, "penalty_id": d["id"], "label": "Undo"}
    if action == "suspend_automation" and table in suspended:
        return {"type": "automation", "table": table, "label": "Resume"}
    return None


def _ended_by(state: Snapshot, d: dict[str, Any]) -> str | None:
    """The command id this row's command would be if it ended the match (a forfeit, or a lateness
    point when the match ended by lateness)."""
    late = state.get("end_reason") == EndReason.LATENESS and d.get("reason") in LATENESS_REASONS
    if d.get("type") == CommandType.FORFEIT or late:
        return d.get("id")
    return None


def timeline(
    audit: Iterable[dict[str, Any]],
    *,
    commands: dict[str, dict[str, Any]],
    matches: dict[str, ScheduledMatch],
    states: dict[str, Snapshot],
    suspended: set[str],
    filters: Filters = Filters(),
    limit: int = 500,
) -> list[dict[str, Any]]:
    """The timeline's entries, newest first (``audit`` newest first too), filtered."""
    out: list[dict[str, Any]] = []
    ended_seen: set[tuple[str, str]] = set()
    for row in audit:
        raw = str(row.get("action") or "")
        action = raw.removeprefix("cmd:")
        group = GROUPS.get(action, "other")
        automatic = row.get("actor") == "hub"
        table, mid = row.get("table"), row.get("match_id")
        if filters.table and table != filters.table:
            continue
        if filters.group and group != filters.group:
            continue
        if filters.automatic is not None and automatic != filters.automatic:
            continue
        m = matches.get(mid or "")
        who = {"A": m.player_a, "B": m.player_b} if m else {}
        if filters.person and not any(name_matches(n, filters.person) for n in who.values()):
            continue
        detail = row.get("detail") if isinstance(row.get("detail"), dict) else {}
        assert isinstance(detail, dict)
        cmd = commands.get(str(detail.get("id"))) if raw.startswith("cmd:") else None
        undo = _undo(action, row, detail, states, suspended)
        if undo is not None and undo["type"] == CommandType.WAIVE and not (cmd and cmd.get("done_ok")):
            undo = None  # the table never applied it
        if undo is not None and undo["label"] == "Undo":
            # only the newest command that could have ended the match is the one to undo
            key = (str(table), str(mid))
            if key in ended_seen:
                undo = None
            ended_seen.add(key)
        out.append(
            {
                "id": row.get("id"),
                "wall": row.get("wall"),
                "actor": row.get("actor"),
                "automatic": automatic,
                "action": action,
                "group": group,
                "table": table,
                "match_id": mid,
                "players": who,
                "text": _waived_forfeit(action, detail, commands)
                or _sentence(action, detail, who, row, states.get(str(table))),
                "answer": None
                if cmd is None
                else {"done_ok": cmd.get("done_ok"), "done_error": cmd.get("done_error")},
                "undo": undo,
            }
        )
        if len(out) >= limit:
            break
    return out
