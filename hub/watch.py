"""Watches: what in the room needs the TD, as alerts with an urgency (pure functions).

Each alert has a ``key`` naming the situation (the table, the match, the side, the break), so
the hub raises it once, updates it while it lasts and resolves it when the situation is over;
a situation that comes back (a second TD call) reopens it unacknowledged.

Urgencies: ``critical`` (time flags: the match waits for the TD's decision), ``high`` (TD calls,
offline tables, players late or overrunning a break once points are due), ``medium`` (late
players, matches not started, slow matches, refused commands), ``low`` (breaks in use, results
waiting for verification).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from hub.room import TableView
from hub.schedule import ScheduledMatch
from rulebook.policy import lateness
from rulebook.profiles import Profile


@dataclass(frozen=True, slots=True)
class WatchConfig:
    #: a table whose Will said offline is reported after this grace (PROTOCOL §3)
    offline_grace_ms: int = 30_000
    #: a match still waiting this long after its start is reported
    not_started_grace_ms: int = 5 * 60_000


@dataclass(frozen=True, slots=True)
class AlertSpec:
    key: str
    kind: str
    urgency: str
    message: str
    table: str | None
    match_id: str | None


def hhmm(wall: int) -> str:
    return time.strftime("%H:%M", time.localtime(wall / 1000))


def _name(state: dict[str, Any] | None, match: ScheduledMatch | None, side: str) -> str:
    if state is not None:
        name = ((state.get("players") or {}).get(side) or {}).get("name")
        if name:
            return f"{name} ({side})"
    if match is not None:
        return f"{match.player_a if side == 'A' else match.player_b} ({side})"
    return side


def projected_finish(state: dict[str, Any], now: int, start_wall: int | None) -> int | None:
    """When the match should end at its pace so far (capped by the clocks' reserves), or None."""
    played = sum(g.get("points", 0) for g in state.get("games") or [] if isinstance(g, dict))
    if not isinstance(played, int) or played <= 0 or start_wall is None or now <= start_wall:
        return None
    per_point = (now - start_wall) / played
    length = state["length"]
    score = state["score"]
    # as the mid-match clock formula does: the average of the points each still needs
    left = (max(0, length - score["A"]) + max(0, length - score["B"])) / 2 * per_point
    clock = state.get("clock") or {}
    reserve = clock.get("reserve_ms")
    if clock.get("enabled") and isinstance(reserve, dict):
        left = min(left, reserve["A"] + reserve["B"])
    return now + int(left)


def table_alerts(
    view: TableView,
    match: ScheduledMatch | None,
    *,
    now: int,
    config: WatchConfig,
    profile: Profile,
    round_end: int | None = None,
    suspended: bool = False,
) -> list[AlertSpec]:
    """Every alert this table deserves at ``now``."""
    t = view.table
    mid = match.match_id if match else None
    state = view.state_for(match.match_id) if match else view.state
    out: list[AlertSpec] = []

    def add(key: str, kind: str, urgency: str, message: str, match_id: str | None = mid) -> None:
        out.append(AlertSpec(key, kind, urgency, message, t, match_id))

    offline = view.is_offline(now, config.offline_grace_ms)
    if offline:
        note = ""
        if state is not None and state["phase"] == "waiting" and match and now > match.start_wall:
            note = ": lateness is not applied automatically while it is offline"
        add(
            f"offline:{t}",
            "offline",
            "high",
            f"Table {t} offline since {hhmm(view.status_since)}{note}",
            None,
        )
    if state is not None:
        smid = state.get("match_id")
        phase = state["phase"]
        if phase == "flag":
            flagged = (state.get("clock") or {}).get("flagged") or "?"
            at = (state.get("clock") or {}).get("flagged_at")
            add(
                f"flag:{t}:{smid}:{at}",
                "flag",
                "critical",
                f"Table {t}: time expired for {_name(state, match, flagged)}; the match waits for the TD",
                smid,
            )
        elif state.get("td_call") in ("A", "B"):
            side = state["td_call"]
            add(
                f"call:{t}:{smid}:{side}",
                "td_call",
                "high",
                f"Table {t}: {_name(state, match, side)} calls the TD",
                smid,
            )
        if match is not None and not offline and view.online and phase == "waiting":
            start = state.get("start_wall") or match.start_wall
            clock_on = bool((state.get("clock") or {}).get("enabled"))
            for side in ("A", "B"):
                if state["present"][side] or now <= start:
                    continue
                late = lateness(profile, state["length"], now - start, clock=clock_on)
                minutes = (now - start) // 60_000
                if clock_on and profile.lateness_clock_starts_at_round:
                    text, urgency = "the clock runs from the round time", "medium"
                elif late.points:
                    text, urgency = f"{late.points} penalty point(s) due", "high"
                else:
                    text, urgency = "no point due yet", "medium"
                if suspended:
                    text += " (automation suspended)"
                add(
                    f"late:{smid}:{side}",
                    "late",
                    urgency,
                    f"Table {t}: {_name(state, match, side)} not checked in, {minutes} min late; {text}",
                )
        breaks = state.get("breaks") or {}
        for side in ("A", "B"):
            b = breaks.get(side) or {}
            until = b.get("until_wall")
            if not (b.get("away", until is not None) and isinstance(until, int)):
                continue
            used = b.get("used", 0)
            who = _name(state, match, side)
            if now > until:
                minutes = (now - until) // 60_000
                clock_on = bool((state.get("clock") or {}).get("enabled"))
                late = lateness(profile, state["length"], now - until, clock=clock_on)
                add(
                    f"overrun:{smid}:{side}:{used}",
                    "break_overrun",
                    "high" if late.points else "medium",
                    f"Table {t}: {who} overran the break by {minutes} min"
                    + (f"; {late.points} penalty point(s) due" if late.points else ""),
                    smid,
                )
            else:
                add(
                    f"break:{smid}:{side}:{used}",
                    "break",
                    "low",
                    f"Table {t}: {who} on break until {hhmm(until)} ({used} of {b.get('allowed', '?')})",
                    smid,
                )
        if match is not None and phase in ("playing", "between_games", "break", "paused") and round_end:
            finish = projected_finish(state, now, match.start_wall)
            if finish is not None and finish > round_end:
                over = (finish - round_end) // 60_000
                add(
                    f"slow:{match.match_id}",
                    "slow",
                    "medium",
                    f"Table {t}: at this pace the match ends about {over} min after the next round starts "
                    f"({hhmm(round_end)})",
                )
    if match is not None and now >= match.start_wall + config.not_started_grace_ms and not offline:
        if state is None:
            why = "no table has reported" if view.status is None else "the table has not taken the match"
            add(
                f"not_started:{match.match_id}",
                "not_started",
                "medium",
                f"Table {t}: match not started ({why})",
            )
        elif state["phase"] == "opening":
            add(
                f"not_started:{match.match_id}",
                "not_started",
                "medium",
                f"Table {t}: both players are there but the match has not started",
            )
    return out


def result_alert(result: dict[str, Any]) -> AlertSpec | None:
    """A finished match whose result the TD has not verified yet."""
    if result.get("verified"):
        return None
    score = result["score"]
    return AlertSpec(
        f"verify:{result['match_id']}",
        "verify",
        "low",
        f"Table {result['table']}: result {result['player_a']} {score['A']} – {score['B']} "
        f"{result['player_b']} waits for verification",
        result["table"],
        result["match_id"],
    )
