"""Why the hub's automation is held at a table, and what becomes of the marks that fell due while
it was (pure).

The hub owns time: lateness is worked out from the hub's own schedule and from the durations the
tables measured, anchored at receipt (:mod:`hub.logic.lateness`, :mod:`hub.logic.tabletime`). So a TD's
action on the room — a round started now or delayed, the clocks paused or resumed, a schedule
imported — changes the model and holds nothing: each table's deadlines are worked out again from
the model at once. Automation is held at a table only while the hub cannot, or must not, decide
there (:func:`hold_reason`):

- ``suspended``: the TD suspended automatic lateness (at the table, or for the whole room);
- ``offline``: the table's Will said it is gone;
- ``cut_off``: its room's bridge is down (:mod:`hub.live.bridged_rooms`);
- ``link``: the hub is cut off from the broker;
- ``state``: the hub holds no current state of the table (it, or the hub, came back; its last
  state was invalid): a player may have checked in meanwhile;
- ``restart``: the hub was not running.

When a hold ends, every mark that fell due meanwhile is decided by the rules as they stood at
that mark (who had checked in by then, whether the opponent was there): what is due is sent at
once, each command noted with when it fell due, and the marks the rules do not give are reported
(:func:`resumed`): one line in the timeline, never silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.logic.lateness import AutoCommand, Timing, mark, points_give
from hub.logic.table_view import TableView
from rulebook.policy import lateness_points
from rulebook.sides import SIDES

REASONS = {
    "suspended": "automatic lateness was suspended",
    "offline": "the table was offline",
    "cut_off": "its room's bridge was down",
    "link": "the hub was cut off from the broker",
    "state": "the hub had no current state from the table",
    "restart": "the hub was not running",
}

#: the same, said while the hold lasts (an alert's "not given: ...")
NOW = {
    "suspended": "automation suspended",
    "offline": "the table is offline",
    "cut_off": "its room's bridge is down",
    "link": "the hub is cut off from the broker",
    "state": "waiting for the table's current state",
    "restart": "waiting for the table's current state (the hub restarted)",
}

#: why the rules gave no point at a mark (:class:`Missed`)
WHY = {"both_absent": "both players were absent"}

#: the store's meta key holding the last moment the hub was known to run (a restarted hub's
#: holds start there)
ALIVE_KEY = "hub_alive_wall"
#: how often that moment is written
ALIVE_EVERY_MS = 5_000
#: a command given this long after its mark is noted as given late (a tick is a second)
LATE_NOTE_MS = 5_000
#: at most this many marks not given are listed per side (both players absent for hours)
MAX_LISTED = 24


@dataclass(frozen=True, slots=True)
class Hold:
    """Automation held at a table since ``since`` (None: since before the hub knew) for ``reason``
    (the first reason of an unbroken hold: a table back online after an outage is still held for
    the outage until its current state arrives)."""

    since: int | None
    reason: str


def hold_reason(view: TableView, *, suspended: bool, cut_off: bool) -> str | None:
    """Why automation is held at this table now (None: it is not)."""
    if suspended:
        return "suspended"
    if not view.online:
        return "offline"
    if cut_off:
        return "cut_off"
    if not view.state_fresh:
        return "state"
    return None


@dataclass(frozen=True, slots=True)
class Missed:
    """A lateness mark that fell due while automation was held, which the rules do not give."""

    #: whose mark it was ("both": each side's, at the same moment)
    side: str
    wall: int
    why: str

    def as_dict(self) -> dict[str, Any]:
        return {"side": self.side, "wall": self.wall, "why": self.why}


def not_given(t: Timing, since: int | None, now: int) -> list[Missed]:
    """The lateness marks in ``[since, now]`` at which the rules gave no point: the late player's
    opponent had not checked in either (those marks cancel out, :mod:`hub.logic.lateness`)."""
    absences = t.absences
    if absences is None or not points_give(t):
        return []
    out: list[Missed] = []
    for side in SIDES:
        me, other = absences[side], absences["B" if side == "A" else "A"]
        if me.counts_from is None:
            continue
        until = now if me.arrived is None else min(now, me.arrived - 1)
        last = min(lateness_points(t.profile, until - me.counts_from, clock=t.clock), 10_000)
        listed = 0
        for k in range(last, 0, -1):  # newest first: the list is cut at the oldest
            at = mark(t, me.counts_from, k)
            if since is not None and at < since:
                break
            if other.arrived is None or other.arrived > at:
                out.append(Missed(side, at, "both_absent"))
                listed += 1
                if listed >= MAX_LISTED:
                    break
    # a mark both sides missed at the same moment is one mark: neither got a point
    walls = [m.wall for m in out]
    merged = {Missed("both", m.wall, m.why) if walls.count(m.wall) > 1 else m for m in out}
    return sorted(merged, key=lambda m: (m.wall, m.side))


@dataclass(frozen=True, slots=True)
class Resumed:
    """What a hold ending decided at one table: the commands given late, the marks not given."""

    reason: str
    since: int | None
    given: tuple[AutoCommand, ...]
    missed: tuple[Missed, ...]

    def __bool__(self) -> bool:
        return bool(self.given or self.missed)

    def detail(self) -> dict[str, Any]:
        """The audit row's detail (the timeline words it)."""
        return {
            "reason": self.reason,
            "since": self.since,
            "given": [{"id": c.id, "type": c.type, "due_wall": c.due_wall} for c in self.given],
            "not_given": [m.as_dict() for m in self.missed],
        }


def resumed(t: Timing, hold: Hold, now: int, sent: list[AutoCommand]) -> Resumed:
    """What the end of ``hold`` decided: ``sent`` (the commands just sent) that fell due while
    it lasted, and the marks of that time the rules did not give."""
    late = tuple(
        c
        for c in sent
        if c.due_wall < now - LATE_NOTE_MS and (hold.since is None or c.due_wall >= hold.since)
    )
    return Resumed(hold.reason, hold.since, late, tuple(not_given(t, hold.since, now)))
