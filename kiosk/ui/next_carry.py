"""The previous match's "Next:" lines, kept on the next match's waiting screen.

A table freed by a confirmed result is usually called to its next match within a second; the
result screen, where the hub's lines are shown (docs/protocol.md §3.8), gives way at once to the
new match's waiting screen, and the players leaving the table would not have had the time to read
where they go. So the lines of the match that was on the screen stay on the new match's waiting
screen, each half in the language its player chose, until the new match's first check-in (its
players have come: the screen is theirs) or :data:`CARRY_S` on the kiosk's monotonic clock
(never the wall clock, which the room's time may step), whichever comes first.

Pure: the application calls :func:`follow` every frame with what the table holds now.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: how long the previous match's lines stay at most (seconds)
CARRY_S = 180.0


@dataclass(frozen=True, slots=True)
class Carried:
    """The lines of match ``previous`` shown on match ``match_id``'s waiting screen."""

    previous: str
    match_id: str
    #: each side's language as its player chose it for the previous match (None: the table's)
    langs: Mapping[str, str | None]
    #: when the new match replaced it (monotonic seconds)
    since: float


def follow(
    carried: Carried | None,
    *,
    shown: str | None,
    match_id: str | None,
    waiting: bool,
    checked_in: bool,
    langs: Mapping[str, str | None],
    now: float,
) -> Carried | None:
    """What to carry now. ``shown``: the match the screen showed until now (its per-player
    choices, ``langs``, not yet reset); ``match_id``: the table's match now; ``waiting``: its
    players are awaited; ``checked_in``: one of them has checked in."""
    if (
        shown is not None
        and match_id is not None
        and match_id != shown
        and (carried is None or carried.match_id != match_id)
    ):
        carried = Carried(shown, match_id, dict(langs), now)
    if carried is None:
        return None
    if carried.match_id != match_id or not waiting or checked_in or now - carried.since >= CARRY_S:
        return None
    return carried
