"""Breaks and lateness policy (WBGF 2.2 and the other profiles' equivalents), as pure functions.

The hub uses these to award lateness points automatically; the kiosk uses them to show lateness
as it accrues. Both get the same numbers because both call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulebook.profiles import Profile
from rulebook.vocab import Phase

MINUTE_MS = 60_000


def breaks_allowed(
    profile: Profile,
    length: int,
    *,
    final: bool = False,
    clock: bool = False,
    double_match_point: bool = False,
) -> int:
    """Breaks each player may take in a match of ``length`` points.

    With ``ffbg-cdf`` and a clock the answer is 0: breaks are not clock pauses there but time
    taken on one's own running clock, covered by the bank allowance.
    """
    if clock and profile.breaks_on_running_clock_with_clock:
        return 0
    if final and profile.final_break_allowance is not None:
        return profile.final_break_allowance
    band_length = length + 1 if profile.even_length_rounds_up and length % 2 == 0 else length
    allowed = profile.break_allowance[-1][1]
    for max_length, amount in profile.break_allowance:
        if band_length <= max_length:
            allowed = amount
            break
    if double_match_point and profile.double_match_point_extra_break:
        allowed += 1
    return allowed


def break_ms(profile: Profile) -> int:
    return profile.break_minutes * MINUTE_MS


@dataclass(frozen=True, slots=True)
class Lateness:
    """What a player's lateness amounts to at one moment."""

    late_ms: int
    points: int
    forfeit: bool
    #: ms until the next point (or forfeit) becomes due; None when points are not given
    next_due_ms: int | None


def first_point_ms(profile: Profile, *, clock: bool) -> int:
    """How long after lateness starts counting its first point falls due.

    The one place this is worked out: ``ffbg-cdf`` without a clock waits longer
    (``lateness_first_point_min_no_clock``) than with one, and the hub's marks, its alerts and the
    kiosk's display must all agree on it.
    """
    first = profile.lateness_first_point_min
    if not clock and profile.lateness_first_point_min_no_clock is not None:
        first = profile.lateness_first_point_min_no_clock
    return first * MINUTE_MS


def interval_ms(profile: Profile) -> int:
    """The time between two lateness points after the first."""
    return profile.lateness_interval_min * MINUTE_MS


def lateness_points(profile: Profile, late_ms: int, *, clock: bool) -> int:
    """Penalty points due for being ``late_ms`` late after a start time or a break's end.

    ``ffbg-cdf`` with a clock gives no points (the clock starts at round time instead).
    """
    if late_ms < 0:
        return 0
    if clock and profile.lateness_clock_starts_at_round:
        return 0
    first_ms = first_point_ms(profile, clock=clock)
    if late_ms < first_ms:
        return 0
    return 1 + (late_ms - first_ms) // interval_ms(profile)


def is_lateness_forfeit(length: int, penalty_points: int) -> bool:
    """2.2: the opponent wins when the penalty points exceed half the match length."""
    return 2 * penalty_points > length


def forfeit_points(length: int) -> int:
    """The number of lateness points at which the match is forfeited."""
    return length // 2 + 1


def lateness(profile: Profile, length: int, late_ms: int, *, clock: bool) -> Lateness:
    """Points and forfeit for ``late_ms`` of lateness, with when the next point falls due."""
    points = lateness_points(profile, late_ms, clock=clock)
    forfeit = is_lateness_forfeit(length, points)
    if clock and profile.lateness_clock_starts_at_round:
        return Lateness(late_ms, 0, False, None)
    due = first_point_ms(profile, clock=clock) + points * interval_ms(profile)
    if points == 0:
        due = first_point_ms(profile, clock=clock)
    next_due = None if forfeit else max(0, due - late_ms)
    return Lateness(late_ms, min(points, forfeit_points(length)), forfeit, next_due)


def lateness_at(profile: Profile, snapshot: Mapping[str, Any], side: str, now_wall: int) -> Lateness | None:
    """How late ``side`` is at ``now_wall`` (epoch ms) by a published snapshot, and what it costs:
    after the start time while not checked in (phase ``waiting``), or after the end of a break
    while still away. None when ``side`` is not late.

    Why here: the table shows lateness as it accrues and the hub awards it; both read the same
    snapshot fields and count with :func:`lateness`, so a screen never shows other numbers than
    the hub gives.
    """
    late: int | None = None
    if snapshot.get("phase") == Phase.WAITING:
        start = snapshot.get("start_wall")
        present = (snapshot.get("present") or {}).get(side)
        if isinstance(start, int) and not present and now_wall >= start:
            late = now_wall - start
    else:
        own = (snapshot.get("breaks") or {}).get(side) or {}
        until = own.get("until_wall")
        if own.get("away") and isinstance(until, int) and now_wall > until:
            late = now_wall - until
    if late is None:
        return None
    length = snapshot.get("length")
    clock = bool((snapshot.get("clock") or {}).get("enabled"))
    return lateness(profile, length if isinstance(length, int) and length > 0 else 1, late, clock=clock)
