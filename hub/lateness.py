"""Automatic lateness: which commands a table should have received by now (RULES §3, 2.2).

Pure: given a table's state for its current match, the start time and the moment, it lists every
command due so far with an id that is stable for the match, the side and the count —
``late:{match}:{side}:{n}`` from the start time, ``break:{match}:{side}:{break_no}:{n}`` from the
end of a break, ``...:forfeit`` at the threshold. The hub sends only the ids it has not recorded,
so a restarted hub, or a tick that runs twice, never awards a point twice.

Points follow :func:`rulebook.policy.lateness`; when they would exceed half the match length
(counting the side's earlier, unwaived lateness and overrun points) the forfeit replaces the
penalty that would cross the line. ``ffbg-cdf`` with a clock gives no points: the late player's
clock is started at the round time instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulebook.policy import forfeit_points, lateness
from rulebook.profiles import Profile

LATE_REASONS = ("late", "break_overrun")


@dataclass(frozen=True, slots=True)
class AutoCommand:
    """A command the rules make due; ``fields`` are the type's fields (PROTOCOL §3.3)."""

    id: str
    type: str
    fields: dict[str, Any]

    def payload(self, expires_wall: int) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, **self.fields, "expires_wall": expires_wall}


def _prior_points(state: dict[str, Any], side: str, episode: str) -> int:
    """Unwaived lateness / overrun points against ``side`` outside this episode."""
    total = 0
    for p in state.get("penalty_log") or []:
        if not isinstance(p, dict) or p.get("against") != side or p.get("waived"):
            continue
        pid = p.get("id")
        points = p.get("points")
        if (
            p.get("reason") in LATE_REASONS
            and isinstance(points, int)
            and not (isinstance(pid, str) and pid.startswith(episode))
        ):
            total += points
    return total


def _episode(
    state: dict[str, Any],
    profile: Profile,
    side: str,
    prefix: str,
    late_ms: int,
    reason: str,
) -> list[AutoCommand]:
    length = state["length"]
    clock = bool((state.get("clock") or {}).get("enabled"))
    points = lateness(profile, length, late_ms, clock=clock).points
    if points == 0:
        return []
    room = forfeit_points(length) - 1 - _prior_points(state, side, prefix)
    out = [
        AutoCommand(f"{prefix}{n}", "penalty", {"against": side, "points": 1, "reason": reason})
        for n in range(1, min(points, max(room, 0)) + 1)
    ]
    if points > room:
        out.append(AutoCommand(f"{prefix}forfeit", "forfeit", {"against": side, "reason": "late"}))
    return out


def due_commands(
    state: dict[str, Any], *, start_wall: int | None, now: int, profile: Profile
) -> list[AutoCommand]:
    """Every automatic command due at ``now`` for this match (sent or not; the caller filters)."""
    match_id = state.get("match_id")
    phase = state.get("phase")
    if not match_id or phase in ("finished", "flag"):
        return []
    out: list[AutoCommand] = []
    present = state["present"]
    clock = state.get("clock") or {}
    start = state.get("start_wall") or start_wall
    if phase == "waiting" and start is not None and now >= start:
        absent = [s for s in ("A", "B") if not present.get(s)]
        if clock.get("enabled") and profile.lateness_clock_starts_at_round:
            # ffbg-cdf: the late player's clock runs from the round time (no points).
            if len(absent) == 1 and clock.get("running") is None:
                side = absent[0]
                out.append(AutoCommand(f"late:{match_id}:{side}:clock", "start_clock", {"side": side}))
        else:
            for side in absent:
                out += _episode(state, profile, side, f"late:{match_id}:{side}:", now - start, "late")
    breaks = state.get("breaks") or {}
    for side in ("A", "B"):
        b = breaks.get(side) or {}
        until = b.get("until_wall")
        if b.get("away", until is not None) and isinstance(until, int) and now >= until:
            prefix = f"break:{match_id}:{side}:{b.get('used', 0)}:"
            out += _episode(state, profile, side, prefix, now - until, "break_overrun")
    return out
