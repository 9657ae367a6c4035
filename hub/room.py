"""The room model: what the hub knows about each table, checked on arrival, as pure data.

Anything on a table topic is untrusted (another program on the broker, a table with a bug, a
half-written retained message). ``check_state`` / ``check_event`` / ``check_status`` return the
reason a payload is unusable, so the hub logs it and carries on; everything downstream can then
rely on the fields it reads. ``tile`` is what one table looks like on the room grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.schedule import ScheduledMatch

PHASES = frozenset({"waiting", "opening", "playing", "between_games", "break", "paused", "flag", "finished"})
URGENCIES = ("critical", "high", "medium", "low")
URGENCY_RANK = {u: i for i, u in enumerate(URGENCIES)}


def _is_int(v: object) -> bool:
    return type(v) is int  # exact: bool is an int in Python, not in JSON


def _ints(v: object) -> bool:
    return type(v) is dict and type(v.get("A")) is int and type(v.get("B")) is int


def _bools(v: object) -> bool:
    return type(v) is dict and type(v.get("A")) is bool and type(v.get("B")) is bool


def _opt_int(v: object) -> bool:
    return v is None or type(v) is int


def check_state(s: dict[str, Any]) -> str | None:
    """Why a state snapshot (PROTOCOL §2) cannot be used, or None if it can.

    Written for speed as well as clarity: a busy room sends thousands of snapshots a second.
    """
    seq = s.get("seq")
    if type(seq) is not int or seq < 0:
        return "seq: expected an integer >= 0"
    mid = s.get("match_id")
    if mid is not None and type(mid) is not str:
        return "match_id: expected a string or null"
    if s.get("phase") not in PHASES:
        return f"phase: unknown {s.get('phase')!r}"
    if type(s.get("length")) is not int:
        return "length: expected an integer"
    if not _ints(s.get("score")):
        return "score: expected {A, B} integers"
    if not _bools(s.get("present")):
        return "present: expected {A, B} booleans"
    if "penalties" in s and not _ints(s["penalties"]):
        return "penalties: expected {A, B} integers"
    players = s.get("players")
    if players is not None:
        if type(players) is not dict:
            return "players: expected {A: {name, id}, B: {name, id}}"
        for side in ("A", "B"):
            p = players.get(side)
            if type(p) is not dict or type(p.get("name")) is not str:
                return "players: expected {A: {name, id}, B: {name, id}}"
    clock = s.get("clock")
    if clock is not None:
        if type(clock) is not dict or type(clock.get("enabled")) is not bool:
            return "clock: expected an object with enabled"
        if clock.get("running") not in (None, "A", "B"):
            return "clock.running: expected A, B or null"
        for key in ("reserve_ms", "delay_ms"):
            if key in clock and not _ints(clock[key]):
                return f"clock.{key}: expected {{A, B}} integers"
    breaks = s.get("breaks")
    if breaks is not None:
        if type(breaks) is not dict:
            return "breaks: expected {A, B}"
        for side in ("A", "B"):
            b = breaks.get(side)
            if type(b) is not dict or type(b.get("used")) is not int or not _opt_int(b.get("until_wall")):
                return f"breaks.{side}: expected {{used, allowed, until_wall}}"
    if not _opt_int(s.get("wall")) or not _opt_int(s.get("start_wall")):
        return "wall / start_wall: expected epoch ms"
    if s.get("td_call") not in (None, "A", "B"):
        return "td_call: expected A, B or null"
    if type(s.get("games", [])) is not list or type(s.get("penalty_log", [])) is not list:
        return "games / penalty_log: expected lists"
    return None


def check_event(e: dict[str, Any]) -> str | None:
    """Why an event cannot be used, or None."""
    if not _is_int(e.get("seq")) or e["seq"] < 1:
        return "seq: expected an integer >= 1"
    if e.get("match_id") is not None and not isinstance(e.get("match_id"), str):
        return "match_id: expected a string or null"
    if not isinstance(e.get("type"), str) or not e["type"]:
        return "type: expected a string"
    if not _opt_int(e.get("wall")):
        return "wall: expected epoch ms"
    return None


def check_status(s: dict[str, Any]) -> str | None:
    if not isinstance(s.get("online"), bool):
        return "online: expected true or false"
    return None


@dataclass(slots=True)
class TableView:
    """The hub's live picture of one table."""

    table: str
    status: dict[str, Any] | None = None
    online: bool = False
    #: wall time the online flag last changed (the start of an offline grace period)
    status_since: int = 0
    state: dict[str, Any] | None = None
    state_wall: int = 0
    #: a state arrived since the table (last) came online: the one held is not from before an
    #: outage, during which the table kept playing (a player may have arrived meanwhile)
    state_fresh: bool = False

    def is_offline(self, now: int, grace_ms: int) -> bool:
        """Offline = its Will said so and the grace period has run out (PROTOCOL §3)."""
        return self.status is not None and not self.online and now - self.status_since >= grace_ms

    def state_for(self, match_id: str) -> dict[str, Any] | None:
        if self.state is not None and self.state.get("match_id") == match_id:
            return self.state
        return None


STATUS_LOOK = {
    # kind: (label, icon) — the dashboard adds a colour, never colour alone
    "flag": ("Time flag", "⚑"),
    "td_call": ("TD called", "☎"),
    "offline": ("Offline", "⚠"),
    "reconnecting": ("Reconnecting", "…"),
    "late": ("Player late", "◷"),
    "break": ("Break", "☕"),
    "paused": ("Paused", "‖"),
    "playing": ("Playing", "▶"),
    "between_games": ("Between games", "▷"),
    "opening": ("Ready", "●"),
    "waiting": ("Waiting", "○"),
    "finished": ("Finished", "✓"),
    "verify": ("Verify result", "✓"),
    "idle": ("No match", "–"),
    "no_table": ("Not connected", "⚠"),
}


def status_kind(
    view: TableView, match: ScheduledMatch | None, now: int, grace_ms: int, verified: bool
) -> str:
    """The one status a tile shows, most urgent first."""
    state = view.state_for(match.match_id) if match else view.state
    if state is not None and state.get("phase") == "flag":
        return "flag"
    if state is not None and state.get("td_call") is not None:
        return "td_call"
    if view.status is None and view.state is None:
        return "no_table"
    if view.is_offline(now, grace_ms):
        return "offline"
    if view.status is not None and not view.online:
        return "reconnecting"
    if state is None:
        return "idle" if match is None else "waiting"
    phase = state["phase"]
    present = state["present"]
    start = state.get("start_wall") or (match.start_wall if match else None)
    if phase == "waiting" and start is not None and now > start and not (present["A"] and present["B"]):
        return "late"
    if phase == "finished":
        return "finished" if verified else "verify"
    return phase


def tile(
    view: TableView,
    match: ScheduledMatch | None,
    *,
    now: int,
    grace_ms: int,
    verified: bool = False,
    suspended: bool = False,
    alert_urgency: str | None = None,
    alert_count: int = 0,
) -> dict[str, Any]:
    """One table on the room grid (and on the public board)."""
    state = view.state_for(match.match_id) if match else view.state
    kind = status_kind(view, match, now, grace_ms, verified)
    label, icon = STATUS_LOOK.get(kind, (kind, "•"))
    players = {"A": match.player_a if match else "", "B": match.player_b if match else ""}
    out: dict[str, Any] = {
        "table": view.table,
        "online": view.online,
        "status": kind,
        "status_label": label,
        "status_icon": icon,
        "urgency": alert_urgency,
        "alerts": alert_count,
        "automation_suspended": suspended,
        "match_id": match.match_id if match else (state or {}).get("match_id"),
        "round": match.round if match else (state or {}).get("round"),
        "start_wall": match.start_wall if match else (state or {}).get("start_wall"),
        "players": players,
        "length": match.length if match else 0,
        "score": {"A": 0, "B": 0},
        "phase": None,
        "crawford": False,
        "post_crawford": False,
        "cube": None,
        "clock": None,
        "present": {"A": False, "B": False},
        "penalties": {"A": 0, "B": 0},
        "breaks": None,
        "game": 0,
        "winner": None,
        "td_call": None,
        "state_wall": None,
    }
    if state is not None:
        sp = state.get("players") or {}
        for side in ("A", "B"):
            name = (sp.get(side) or {}).get("name")
            if name:
                players[side] = name
        clock = state.get("clock") or {}
        out.update(
            {
                "match_id": state.get("match_id"),
                "length": state["length"],
                "score": state["score"],
                "phase": state["phase"],
                "crawford": bool(state.get("crawford")),
                "post_crawford": bool(state.get("post_crawford")),
                "cube": state.get("cube"),
                "clock": {
                    "enabled": bool(clock.get("enabled")),
                    "running": clock.get("running"),
                    "paused": clock.get("paused"),
                    "reserve_ms": clock.get("reserve_ms"),
                    "delay_ms": clock.get("delay_ms"),
                    "flagged": clock.get("flagged"),
                }
                if clock
                else None,
                "present": state["present"],
                "penalties": state.get("penalties") or {"A": 0, "B": 0},
                "breaks": state.get("breaks"),
                "game": state.get("game", 0),
                "winner": state.get("winner"),
                "end_reason": state.get("end_reason"),
                "td_call": state.get("td_call"),
                "state_wall": state.get("wall"),
            }
        )
    return out


def board_tile(t: dict[str, Any]) -> dict[str, Any]:
    """The public board's subset of a tile: what players could see at the table anyway."""
    keys = (
        "table",
        "status",
        "status_label",
        "status_icon",
        "match_id",
        "round",
        "players",
        "length",
        "score",
        "phase",
        "crawford",
        "post_crawford",
        "game",
        "winner",
        "start_wall",
    )
    out = {k: t.get(k) for k in keys}
    if out["status"] == "verify":  # the room sees a finished match; verification is the TD's business
        out["status"], out["status_label"], out["status_icon"] = "finished", *STATUS_LOOK["finished"]
    return out
