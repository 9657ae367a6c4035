"""The room model: what the hub knows about each table, as pure data.

A table's state and status reach a :class:`TableView` only after the wire schema
(:mod:`rulebook.wire`) has checked every field by type and range, so everything here can rely on
the fields it reads. ``tile`` is what one table looks like on the room grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.logic.clock_estimate import ClockEstimate
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Snapshot, Status
from rulebook.sides import SIDES
from rulebook.vocab import Phase

URGENCIES = ("critical", "high", "medium", "low")
URGENCY_RANK = {u: i for i, u in enumerate(URGENCIES)}


@dataclass(slots=True)
class TableView:
    """The hub's live picture of one table."""

    table: str
    status: Status | None = None
    online: bool = False
    #: wall time the online flag last changed (the start of an offline grace period)
    status_since: int = 0
    state: Snapshot | None = None
    state_wall: int = 0
    #: a state arrived since the table (last) came online: the one held is not from before an
    #: outage, during which the table kept playing (a player may have arrived meanwhile)
    state_fresh: bool = False
    #: the hub's estimate of how far the table's wall clock is off (hub.logic.tabletime): the
    #: largest offset observed lately, never one state's alone
    clock: ClockEstimate | None = None
    #: why no device is connected for this table (its device was retired or replaced: the hub
    #: said "offline" itself, :mod:`hub.fleet.device_change`); None once a device comes online
    no_device: str | None = None

    def is_offline(self, now: int, grace_ms: int) -> bool:
        """Offline = its Will said so and the grace period has run out (PROTOCOL §3); at once when
        its device is gone (nobody is there to reconnect)."""
        if self.status is None or self.online:
            return False
        return self.no_device is not None or now - self.status_since >= grace_ms

    @property
    def match_id(self) -> str | None:
        """The match the table's last state holds (None: no state, or no match)."""
        return self.state["match_id"] if self.state is not None else None

    def state_for(self, match_id: str) -> Snapshot | None:
        if self.state is not None and self.state["match_id"] == match_id:
            return self.state
        return None


STATUS_LOOK = {
    # kind: (label, icon) — the dashboard adds a colour, never colour alone
    Phase.FLAG: ("Time flag", "⚑"),  # a status named after the phase it shows
    "td_call": ("TD called", "☎"),
    "offline": ("Offline", "⚠"),
    "reconnecting": ("Reconnecting", "…"),
    "late": ("Player late", "◷"),
    Phase.BREAK: ("Break", "☕"),
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
    view: TableView,
    match: ScheduledMatch | None,
    now: int,
    grace_ms: int,
    verified: bool,
    late: bool | None = None,
) -> str:
    """The one status a tile shows, most urgent first. ``late``, as the hub's lateness says (a
    player still playing elsewhere is not late; None: it cannot say), decides a waiting match's
    status: "late" only when it says so."""
    state = view.state_for(match.match_id) if match else view.state
    if state is not None and state.get("phase") == Phase.FLAG:
        return Phase.FLAG
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
    if phase == Phase.WAITING:
        # lateness is the hub's (logic.lateness, live.alerts.tile_facts): a tile has no rule of its own
        return "late" if late else "waiting"
    if phase == Phase.FINISHED:
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
    late: bool | None = None,
) -> dict[str, Any]:
    """One table on the room grid (and on the public board)."""
    state = view.state_for(match.match_id) if match else view.state
    kind = status_kind(view, match, now, grace_ms, verified, late)
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
        "match_id": match.match_id if match else state["match_id"] if state else None,
        "round": match.round if match else state.get("round") if state else None,
        "start_wall": match.start_wall if match else state.get("start_wall") if state else None,
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
        for side in SIDES:
            name = state["players"][side]["name"]
            if name:
                players[side] = name
        clock = state["clock"]
        out.update(
            {
                "match_id": state["match_id"],
                "length": state["length"],
                "score": state["score"],
                "phase": state["phase"],
                "crawford": state["crawford"],
                "post_crawford": state["post_crawford"],
                "cube": state["cube"],
                "clock": {
                    "enabled": clock["enabled"],
                    "running": clock["running"],
                    "paused": clock["paused"],
                    "reserve_ms": clock["reserve_ms"],
                    "delay_ms": clock["delay_ms"],
                    "flagged": clock["flagged"],
                },
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
