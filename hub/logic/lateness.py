"""Automatic lateness: which commands a table should have received by now (RULES §3, WBGF 2.2).

Pure, and all in the hub's time. :func:`timing` gathers what lateness depends on for one table's
current match — from the **schedule** (start, length: never the table's, which a buggy or
tampered table could make huge or ancient) and from the durations the table measured
(:mod:`hub.logic.tabletime`) — into a :class:`Timing`. Then:

- :func:`due_commands` lists every command due so far, with ids stable for the match, the side
  and the count: ``late:{match}:{side}:{n}`` for the n-th five minutes of lateness,
  ``break:{match}:{side}:{break_no}:{n}`` after a break's end, ``...:forfeit`` at the threshold.
  The hub sends only ids it has not recorded, so a restarted hub, or a tick that runs twice, never
  awards a point twice;
- :func:`next_deadline` says when the next one falls due (for a hub that schedules by deadline);
- :func:`side_lateness` is what the alerts and tiles show of one late side.

**When lateness counts from** (per side): the scheduled start; or later, the moment the table
took its assignment (a schedule imported or a table connected after the start) plus
``assign_grace_ms``; or the end of the player's match of an earlier round plus
``next_match_grace_ms``. While the player's other match is still live, they are not late at all
(WBGF 2.2 i: a match starts as scheduled *or as the TD has decided*; a TD does not call a player
late who is playing in the same room — docs/rules.md).

**A late check-in does not wipe the marks before it.** Each mark counts as the rules stood at it:
a side who checks in after a mark (the opponent being there) owes that mark's point, however late
the hub learns of it — a hub whose automation was held at that mark (hub.logic.holds) gives it when it
resumes, and every :class:`AutoCommand` carries the hub time of its mark (``due_wall``).

**Both players absent**: a point falls due for a side only while the opponent is checked in. The
five-minute marks both players miss would give each a point — they cancel out, and the hub gives
neither (nor ever a forfeit while both are absent); the TD gets a high alert and decides. So side
order can never decide a match, and a room whose schedule was late gets no burst of points.

Points follow :func:`rulebook.policy.lateness_points`; when they would exceed half the match
length (counting the side's earlier, unwaived lateness and overrun points; a point the TD waived
does not count) the forfeit replaces the point that would cross the line. ``ffbg-cdf`` with a
clock gives no points: the late player's clock is started instead. Every loop here is bounded by
the match length, whatever the times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.logic.presence import Elsewhere
from hub.logic.tabletime import assignment_taken, break_end, checked_in
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import PenaltyRow, Snapshot
from rulebook.policy import first_point_ms, forfeit_points, interval_ms, lateness_points
from rulebook.profiles import Profile
from rulebook.sides import SIDES, Side
from rulebook.vocab import LATENESS_REASONS, CommandType, PenaltyReason, Phase

LATE_REASONS = tuple(LATENESS_REASONS)


@dataclass(frozen=True, slots=True)
class LateConfig:
    """The hub's settings for when lateness counts (``bghub run --assign-grace/--next-match-grace``)."""

    #: added to the moment a table took an assignment that came after the scheduled start
    assign_grace_ms: int = 0
    #: added to the end of a player's previous match that ended after the scheduled start
    next_match_grace_ms: int = 0


@dataclass(frozen=True, slots=True)
class AutoCommand:
    """A command the rules make due; ``fields`` are the type's fields (PROTOCOL §3.3)."""

    id: str
    type: str
    fields: dict[str, Any]
    #: the hub time at which the rules made it due (its mark); not part of what is sent
    due_wall: int = 0

    def payload(self, expires_wall: int) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, **self.fields, "expires_wall": expires_wall}


@dataclass(frozen=True, slots=True)
class Absence:
    """One side of a waiting match, in hub time."""

    side: str
    #: by when the side had checked in (None: not checked in)
    arrived: int | None
    #: the player's other match, still live: not late here
    elsewhere: Elsewhere | None
    #: when lateness counts from (None while the player is still playing elsewhere)
    counts_from: int | None
    #: why from then: "start", "assignment" or "previous_match"
    reason: str
    #: the previous match whose end moved the start (reason "previous_match")
    previous_match: str | None = None


@dataclass(frozen=True, slots=True)
class Timing:
    """What lateness depends on for a table's current match, in hub time."""

    match_id: str
    #: the schedule's length
    length: int
    profile: Profile
    phase: Phase
    #: the match is played with a clock, and which side's runs
    clock: bool
    clock_running: Side | None
    #: while the match waits for its players: each side's absence
    waiting: dict[str, Absence] | None
    #: side -> (break number, hub time the break ends) for each side away on a timed break
    breaks: dict[str, tuple[int, int]]
    #: sides away from the table on a break (timed or not)
    away: frozenset[str]
    penalty_log: tuple[PenaltyRow, ...]
    #: once the match no longer waits: each side's absence as it was, when a side checked in
    #: after the start (None otherwise). The marks that fell before that check-in are due all
    #: the same: a hub that could not give them at their mark (automation held) gives them now
    arrivals: dict[str, Absence] | None = None

    @property
    def absences(self) -> dict[str, Absence] | None:
        """Each side's absence: while waiting, or as it was before both checked in."""
        return self.waiting if self.waiting is not None else self.arrivals


def late_arrival(match: ScheduledMatch, state: Snapshot, received: int) -> bool:
    """Whether a match no longer waiting had a side check in after its scheduled start (so that
    lateness marks may have fallen before; :func:`timing` needs ``previous`` for it)."""
    if state.get("phase") in (Phase.WAITING, Phase.FINISHED, Phase.FLAG):
        return False
    return any(
        (at := checked_in(state, received, side)) is not None and at > match.start_wall for side in SIDES
    )


def _absences(
    match: ScheduledMatch,
    state: Snapshot,
    taken: int,
    received: int,
    config: LateConfig,
    elsewhere: dict[str, Elsewhere | None] | None,
    previous: dict[str, tuple[int, str] | None] | None,
) -> dict[str, Absence]:
    out: dict[str, Absence] = {}
    for side in SIDES:
        away_at = (elsewhere or {}).get(side)
        prev = (previous or {}).get(side)
        counts_from, reason, prev_id = match.start_wall, "start", None
        if taken + config.assign_grace_ms > counts_from:
            counts_from, reason = taken + config.assign_grace_ms, "assignment"
        if prev is not None and prev[0] + config.next_match_grace_ms > counts_from:
            counts_from, reason, prev_id = prev[0] + config.next_match_grace_ms, "previous_match", prev[1]
        out[side] = Absence(
            side,
            checked_in(state, received, side),
            away_at,
            None if away_at is not None else counts_from,
            reason,
            prev_id,
        )
    return out


def timing(
    match: ScheduledMatch,
    state: Snapshot,
    *,
    received: int,
    profile: Profile,
    config: LateConfig,
    seen: int | None = None,
    elsewhere: dict[str, Elsewhere | None] | None = None,
    previous: dict[str, tuple[int, str] | None] | None = None,
) -> Timing:
    """The :class:`Timing` of ``match`` from its table's ``state``, received at ``received``.

    ``seen`` is when the hub first saw this match at the table (used only when the table does not
    say how long ago it took the assignment); ``elsewhere`` and ``previous`` come from
    :mod:`hub.logic.presence`.
    """
    phase = state["phase"]
    clock = state["clock"]
    taken = assignment_taken(state, received)
    if state.get("assigned_ms") is None and seen is not None:
        taken = seen
    waiting = arrivals = None
    if phase == Phase.WAITING:
        waiting = _absences(match, state, taken, received, config, elsewhere, previous)
    elif phase not in (Phase.FINISHED, Phase.FLAG) and late_arrival(match, state, received):
        # both checked in by now (a player still playing elsewhere then is not late here)
        arrivals = _absences(match, state, taken, received, config, None, previous)
    breaks: dict[str, tuple[int, int]] = {}
    away = set()
    for side in SIDES:
        b = state["breaks"][side]
        if b.get("away"):
            away.add(side)
            ends = break_end(state, received, side)
            if ends is not None:
                breaks[side] = (b["used"], ends)
    return Timing(
        match_id=match.match_id,
        length=match.length,
        profile=profile,
        phase=phase,
        clock=clock["enabled"],
        clock_running=clock["running"],
        waiting=waiting,
        breaks=breaks,
        away=frozenset(away),
        penalty_log=tuple(state.get("penalty_log") or ()),
        arrivals=arrivals,
    )


# -- the arithmetic of five-minute marks ----------------------------------------------------------


def mark(t: Timing, since: int, k: int) -> int:
    """Hub time of the ``k``-th point (k >= 1) of lateness counted from ``since``."""
    return since + first_point_ms(t.profile, clock=t.clock) + (k - 1) * interval_ms(t.profile)


def _marks_by(t: Timing, since: int, now: int) -> int:
    """How many points' worth of lateness have elapsed at ``now``."""
    return lateness_points(t.profile, now - since, clock=t.clock) if now >= since else 0


def _first_mark_at_or_after(t: Timing, since: int, moment: int) -> int:
    """The first k whose mark is at or after ``moment`` (the opponent was there by then)."""
    before = moment - since - first_point_ms(t.profile, clock=t.clock)
    if before <= 0:
        return 1
    interval = interval_ms(t.profile)
    return 1 + -(-before // interval)


def points_give(t: Timing) -> bool:
    """Lateness costs points (not so for ffbg-cdf with a clock: the clock is started instead)."""
    return not (t.clock and t.profile.lateness_clock_starts_at_round)


def _prior_points(t: Timing, side: str, episode: str) -> int:
    """Unwaived lateness / overrun points against ``side`` outside this episode."""
    total = 0
    for p in t.penalty_log:
        if p["against"] != side or p["waived"]:
            continue
        if p["reason"] in LATE_REASONS and not p["id"].startswith(episode):
            total += p["points"]
    return total


def _waived(t: Timing, prefix: str) -> frozenset[str]:
    return frozenset(p["id"] for p in t.penalty_log if p["waived"] and p["id"].startswith(prefix))


def _episode(
    t: Timing,
    side: str,
    prefix: str,
    first: int,
    last: int,
    reason: str,
    since: int,
    *,
    hold_forfeit: bool,
) -> list[AutoCommand]:
    """Points for marks ``first``..``last`` counted from ``since`` (the forfeit replacing the one
    that crosses the line), each with the hub time of its mark.

    A point the TD waived keeps its mark but does not count towards the forfeit. Bounded: at most
    ``forfeit_points(length)`` plus the waived points.
    """
    room = forfeit_points(t.length) - 1 - _prior_points(t, side, prefix)
    waived = _waived(t, prefix)
    out: list[AutoCommand] = []
    counted = 0
    k = first
    while k <= last:
        at = mark(t, since, k)
        if counted >= room:
            if not hold_forfeit:
                out.append(
                    AutoCommand(
                        f"{prefix}forfeit",
                        CommandType.FORFEIT,
                        {"against": side, "reason": PenaltyReason.LATE},
                        at,
                    )
                )
            break
        pid = f"{prefix}{k}"
        out.append(
            AutoCommand(pid, CommandType.PENALTY, {"against": side, "points": 1, "reason": reason}, at)
        )
        if pid not in waived:
            counted += 1
        k += 1
    return out


# -- what is due --------------------------------------------------------------------------------


def _late_range(t: Timing, side: str, now: int) -> tuple[int, int] | None:
    """The marks of ``side``'s lateness at which a point is due by ``now`` (first, last), if any.

    A mark counts only when the opponent had checked in by then (the marks both players missed
    cancel out: module doc) and the side had not (a side who checked in since was late at the
    marks before: those are due however late the hub learns of them)."""
    absences = t.absences
    if absences is None:
        return None
    me, other = absences[side], absences["B" if side == "A" else "A"]
    if me.counts_from is None or other.arrived is None:
        return None
    until = now if me.arrived is None else min(now, me.arrived - 1)
    last = _marks_by(t, me.counts_from, until)
    first = _first_mark_at_or_after(t, me.counts_from, other.arrived)
    return (first, last) if first <= last else None


def due_commands(t: Timing, now: int) -> list[AutoCommand]:
    """Every automatic command due at ``now`` for this match (sent or not; the caller filters),
    each with the hub time at which it fell due."""
    if t.phase in (Phase.FINISHED, Phase.FLAG):
        return []
    mid = t.match_id
    out: list[AutoCommand] = []
    absences = t.absences
    if absences is not None:
        for side in SIDES:
            me = absences[side]
            other = absences["B" if side == "A" else "A"]
            if not points_give(t):
                # ffbg-cdf with a clock: the late player's clock runs from the round time, once
                # the opponent is there to play (never while both are absent)
                if (
                    t.waiting is not None
                    and me.arrived is None
                    and me.counts_from is not None
                    and now >= me.counts_from
                    and other.arrived is not None
                    and t.clock_running is None
                ):
                    out.append(
                        AutoCommand(
                            f"late:{mid}:{side}:clock",
                            CommandType.START_CLOCK,
                            {"side": side},
                            max(me.counts_from, other.arrived),
                        )
                    )
                    break
                continue
            marks = _late_range(t, side, now)
            if marks is not None and me.counts_from is not None:
                out += _episode(
                    t,
                    side,
                    f"late:{mid}:{side}:",
                    *marks,
                    PenaltyReason.LATE,
                    me.counts_from,
                    hold_forfeit=False,
                )
    for on_break, (used, ends) in sorted(t.breaks.items()):
        if now < ends:
            continue
        last = _marks_by(t, ends, now)
        if last >= 1:
            # never a forfeit while the opponent is away from the table too (the TD decides)
            hold = ("B" if on_break == "A" else "A") in t.away
            out += _episode(
                t,
                on_break,
                f"break:{mid}:{on_break}:{used}:",
                1,
                last,
                PenaltyReason.BREAK_OVERRUN,
                ends,
                hold_forfeit=hold,
            )
    return out


def next_deadline(t: Timing, now: int) -> int | None:
    """The next moment (after ``now``) at which a command may fall due, if nothing else changes
    (a check-in, a return or a new state are events of their own)."""
    if t.phase in (Phase.FINISHED, Phase.FLAG):
        return None
    dues: list[int] = []
    if t.waiting is not None and points_give(t):
        for side in SIDES:
            me, other = t.waiting[side], t.waiting["B" if side == "A" else "A"]
            if me.arrived is None and me.counts_from is not None and other.arrived is not None:
                dues.append(mark(t, me.counts_from, _marks_by(t, me.counts_from, now) + 1))
    elif t.waiting is not None:
        for side in SIDES:
            me = t.waiting[side]
            if me.arrived is None and me.counts_from is not None and me.counts_from > now:
                dues.append(me.counts_from)
    for _side, (_used, ends) in t.breaks.items():
        dues.append(mark(t, ends, _marks_by(t, ends, now) + 1))
    return min(dues) if dues else None


# -- what the TD is shown -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SideLate:
    """One absent side of a waiting match, as the alerts and the tiles show it."""

    side: str
    absence: Absence
    #: ms late at ``now`` (0 before lateness counts; None while playing elsewhere)
    late_ms: int | None
    #: when the first point falls due (None: no points in this profile, or playing elsewhere)
    first_point_at: int | None
    #: when the next point falls due after ``now`` (None: none, or held because both are absent)
    next_point_at: int | None
    #: the opponent is not checked in either: no automatic point or forfeit
    both_absent: bool
    #: marks that have passed (points' worth of lateness, given or not)
    marks: int
    #: of those, the marks at which a point is due (the opponent was there)
    due_points: int = 0


def side_lateness(t: Timing, side: str, now: int) -> SideLate | None:
    """What ``side``'s absence amounts to at ``now`` (None: checked in, or not waiting)."""
    if t.waiting is None:
        return None
    me, other = t.waiting[side], t.waiting["B" if side == "A" else "A"]
    if me.arrived is not None:
        return None
    both = other.arrived is None
    if me.counts_from is None:
        return SideLate(side, me, None, None, None, both, 0)
    gives = points_give(t)
    marks = _marks_by(t, me.counts_from, now) if gives else 0
    first = mark(t, me.counts_from, 1) if gives else None
    nxt = None
    if gives and not both:
        nxt = mark(t, me.counts_from, marks + 1)
    due_range = _late_range(t, side, now) if gives else None
    due_points = due_range[1] - due_range[0] + 1 if due_range else 0
    return SideLate(side, me, max(0, now - me.counts_from), first, nxt, both, marks, due_points)


def next_due(t: Timing, side: str, now: int, *, break_side: bool = False) -> tuple[int, str] | None:
    """When ``side``'s next automatic command falls due and what it is (``"point"`` or
    ``"forfeit"``), for its lateness or (``break_side``) its break overrun; None when nothing more
    will come automatically (both absent, held forfeit, a profile without points)."""
    if break_side:
        b = t.breaks.get(side)
        if b is None:
            return None
        used, ends = b
        prefix = f"break:{t.match_id}:{side}:{used}:"
        at = mark(t, ends, _marks_by(t, ends, now) + 1)
    else:
        if t.waiting is None or not points_give(t):
            return None
        me, other = t.waiting[side], t.waiting["B" if side == "A" else "A"]
        if me.arrived is not None or me.counts_from is None or other.arrived is None:
            return None
        prefix = f"late:{t.match_id}:{side}:"
        at = mark(t, me.counts_from, _marks_by(t, me.counts_from, now) + 1)
    before = {c.id for c in due_commands(t, now)}
    new = [c for c in due_commands(t, at) if c.id not in before and c.id.startswith(prefix)]
    if not new:
        return None
    return at, CommandType.FORFEIT if any(c.type == CommandType.FORFEIT for c in new) else "point"


def auto_points(state: Snapshot, prefix: str) -> list[PenaltyRow]:
    """The automatic points of one episode (ids starting with ``prefix``) the table applied."""
    return [p for p in state.get("penalty_log") or [] if p["id"].startswith(prefix)]
