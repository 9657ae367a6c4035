"""How far a table's wall clock is off, as the hub can know it despite late messages (pure).

A state says the table's time of day (``wall``) when it was computed; the hub compares it with
its own time when it handles the state. The state took some time ``d >= 0`` to get there (the
network, the broker's queue while the hub was away, the hub's own inbox while it was behind), so
the offset observed is the true one minus that delay: ``observed = true - d``. No delay can make
a clock look *ahead*; any delay makes it look *behind*. Hence:

* the estimate is the **largest** offset observed lately: never more than the true offset, and
  equal to it within the smallest delay seen. One late state does not move it; a backlog of late
  states does not either once one prompt state has been seen.
* **ahead** beyond the threshold is certain (a delay only hides it).
* **behind** is judged only when a state the hub handled *promptly* is part of the estimate
  (:attr:`ClockEstimate.sure`): its inbox held the state for :data:`PROMPT_MS` at most, and the
  hub was not catching up on what the broker queued while it was away (the table not asked for
  its missed events yet, and not in the first :data:`LINK_SETTLE_MS` after the hub's link came
  up, for a table it had heard from before; nor while the table's bridged room is cut off or
  catching up, hub.live.bridged_rooms). Until then a behind estimate is no judgement at all
  (:func:`offset`: None): when in doubt, the TD is not called.

It starts again (from the next state) when the table came online again, when its clock was
stepped (the state's ``wall - at``, its wall clock against its monotonic clock, moved: NTP set
it, or the Pi rebooted), and when the largest value is older than :data:`WINDOW_MS` and a prompt
state comes (so a table without ``at`` whose clock was set back is believed again within minutes; a
state that waited never starts it again).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: the largest observed offset holds this long (hub time), then the next state starts afresh
WINDOW_MS = 10 * 60_000
#: a state handled within this long after it reached the hub is *prompt*
PROMPT_MS = 5_000
#: after the hub's link comes up, a table it had heard from is not prompt for this long: the
#: broker hands over what it queued while the hub was away first (a table's first queued state
#: may end its catching up, and the rest of its queue follows)
LINK_SETTLE_MS = 10_000
#: a change of the table's ``wall - at`` beyond this is a step of its clock (not its drift)
STEP_MS = 1_000


@dataclass(frozen=True, slots=True)
class ClockEstimate:
    """The largest offset (table wall minus hub time, ms) observed since ``since``."""

    best: int
    #: hub time at which ``best`` was observed
    best_at: int
    #: hub time of the first observation counted
    since: int
    #: the table's ``wall - at`` (None: it does not send ``at``), to notice a step of its clock
    anchor: int | None
    #: a state handled promptly is counted: ``best`` is the true offset within that state's delay
    sure: bool


def observe(
    previous: ClockEstimate | None,
    wall: int,
    at: int | None,
    received: int,
    *,
    prompt: bool,
) -> ClockEstimate:
    """The estimate after a live state computed at the table's ``wall`` (its monotonic ``at``),
    handled by the hub at ``received``; ``prompt``: it did not wait in a backlog. ``previous``:
    None when the table came online since (the estimate starts again)."""
    observed = wall - received
    anchor = None if at is None else wall - at
    stepped = previous is not None and (
        (anchor is None) != (previous.anchor is None)
        or (anchor is not None and previous.anchor is not None and abs(anchor - previous.anchor) > STEP_MS)
    )
    expired = previous is not None and received - previous.best_at > WINDOW_MS and prompt
    if previous is None or stepped or expired:
        return ClockEstimate(observed, received, received, anchor, prompt)
    if observed >= previous.best:
        return ClockEstimate(observed, received, previous.since, anchor, previous.sure or prompt)
    return replace(previous, sure=previous.sure or prompt)


def offset(estimate: ClockEstimate | None) -> int | None:
    """The offset to tell (ms; negative: behind), or None when it is not known: ahead is known at
    once (a delay only hides it); behind only once a prompt state counts."""
    if estimate is None:
        return None
    if estimate.best >= 0 or estimate.sure:
        return estimate.best
    return None
