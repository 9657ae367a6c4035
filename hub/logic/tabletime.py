"""The hub owns time: a table's durations anchored at the moment the hub received them (pure).

A table's wall clock can be anything (a Pi without a real-time clock boots in 1970 or yesterday
until NTP answers, and NTP may step it in the middle of a break). Its monotonic clock is right
about durations. So a table reports durations measured on its monotonic clock at the snapshot's
``at`` — a break's ``left_ms``, each side's ``present_ms`` since check-in, ``assigned_ms`` since it
took the match — and publishes the snapshot computed when it is sent (PROTOCOL §2). The hub turns
them into its own time by anchoring them at ``received``, the moment it took the snapshot in:

    break end   = received + left_ms
    checked in  = received - present_ms
    assignment  = received - assigned_ms
    match end   = received - finished_ms
    correction  = received - corrections[i].age_ms

The snapshot was computed before it was received, so each of these instants is **no earlier** than
the true one (by the network's delay): a break ends no sooner, a check-in or an assignment
happened no later than the hub says. An error can only make the hub more lenient, never give a
penalty that is not due.

The table's wall clock is used for one thing only: to tell the TD when it is off
(:func:`clock_offset_ms`, from the estimate of :mod:`hub.logic.clock_estimate`: a state that
waited makes any clock look behind), and to give a table whose clock runs ahead the time it needs
to apply a command before the command's expiry (:func:`command_expiry`).
"""

from __future__ import annotations

from hub.logic import clock_estimate
from hub.logic.table_view import TableView
from rulebook.messages import CorrectionRow, Snapshot
from rulebook.sides import Side

#: a duration beyond this (about 100 days) is not a table's measurement but a broken value
MAX_DURATION_MS = 100 * 24 * 3_600_000


def _duration(value: object, *, signed: bool = False) -> int | None:
    """A reported duration in ms, or None when it is missing or not believable."""
    if type(value) is not int:
        return None
    if abs(value) > MAX_DURATION_MS or (value < 0 and not signed):
        return None
    return value


def break_end(state: Snapshot, received: int, side: Side) -> int | None:
    """Hub time at which ``side``'s timed break ends (None: not on a timed break, or unknown)."""
    b = state["breaks"][side]
    if not b.get("away"):
        return None
    left = _duration(b.get("left_ms"), signed=True)
    return None if left is None else received + left


def checked_in(state: Snapshot, received: int, side: Side) -> int | None:
    """Hub time by which ``side`` had checked in (None while absent).

    A table that says the side is present without saying since when is taken at its word as of
    ``received``: the latest moment the check-in can have happened.
    """
    if not state["present"][side]:
        return None
    ages = state.get("present_ms")
    age = _duration(ages[side] if ages else None)
    return received if age is None else received - age


def assignment_taken(state: Snapshot, received: int) -> int:
    """Hub time by which the table had taken its match (``received`` when it does not say)."""
    age = _duration(state.get("assigned_ms"))
    return received if age is None else received - age


def finished(state: Snapshot, received: int) -> int:
    """Hub time by which the match had ended: the table's own end (``finished_ms`` ago), not the
    moment the hub heard of it (a hub restarted after the end hears of it later)."""
    age = _duration(state.get("finished_ms"))
    return received if age is None else received - age


def correction_time(row: CorrectionRow, received: int) -> int:
    """Hub time by which a correction in the snapshot's ``corrections`` was made."""
    age = _duration(row.get("age_ms"))
    return received if age is None else received - age


def clock_offset_ms(view: TableView) -> int | None:
    """How far the table's wall clock is ahead of the hub's (negative: behind), or None.

    The hub's estimate (:mod:`hub.logic.clock_estimate`): the largest offset observed lately
    between a live state's ``wall`` and the hub's time when it handled it, so a state that waited
    (a backlog, the broker's queue) does not make the table look behind; a behind judgement
    needs a state handled promptly. Only while the table's state is known to be current.
    """
    if not view.state_fresh:
        return None
    return clock_estimate.offset(view.clock)


def note_state(view: TableView, state: Snapshot, received: int, *, prompt: bool) -> None:
    """Count a live state of the table in its clock estimate, before it is held as the current
    one. The estimate starts again when the state held was not current (the table came online
    since, or the hub lost the room). A state without a believable ``wall`` counts for nothing."""
    previous = view.clock if view.state_fresh else None
    wall = state.get("wall")
    if type(wall) is not int or wall <= 0:
        view.clock = previous
        return
    at = state.get("at")
    view.clock = clock_estimate.observe(
        previous, wall, at if type(at) is int else None, received, prompt=prompt
    )


def command_expiry(view: TableView | None, now: int, ttl_ms: int) -> int:
    """The ``expires_wall`` to put on a command so the table (which compares it with its own wall
    clock) has ``ttl_ms`` to apply it: a table whose clock runs ahead gets that much more. A table
    behind needs nothing (it would only accept a late command longer)."""
    offset = clock_offset_ms(view) if view is not None else None
    return now + ttl_ms + min(max(0, offset or 0), MAX_DURATION_MS)
