"""Where a player goes after a match of the draw: the table's "Next:" line (pure).

The bracket already knows it: the player's next match (:meth:`Bracket.next_match`) and whether
it has been called, or what it waits for. This module says it as a value the hub sends to the
table where the match was played (``table/{t}/next``, docs/protocol.md §3.8), and the table puts
into words in each player's language:

- ``called``: his next match is called, to ``table``, against ``opponent``;
- ``ready``: his opponent is known, the match not called yet (a table, a result's verification,
  the TD's hold);
- ``waiting``: his opponent is the winner (or loser, in a fed flight) of another match, played at
  ``from_table`` when it has been called;
- ``won``: he won the flight (its final);
- ``out``: no match left for him (beaten where no flight takes the loser, or withdrawn).

``left`` names the flight he is out of when his next match is in another (a consolation).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from hub.draw.bracket import Bracket, BracketMatch
from hub.draw.calls import Call, live_calls
from hub.draw.flights import LoserOf, WinnerOf

Kind = Literal["called", "ready", "waiting", "won", "out"]


@dataclass(frozen=True, slots=True)
class NextStep:
    """One player's next step after a match (see the module doc). ``opponent`` is a player key."""

    kind: Kind
    flight: str
    round: int | None = None
    table: str | None = None
    opponent: str | None = None
    waits_for: Literal["winner", "loser"] | None = None
    from_table: str | None = None
    left: str | None = None


def next_step(bracket: Bracket, calls: Iterable[Call], player: str, after: str) -> NextStep:
    """Where ``player`` goes after the match ``after`` (a draw match id he played), as the bracket
    and the live ``calls`` say now."""
    done = bracket.match(after)
    coming = bracket.next_match(player)
    if coming is None:
        return _finished(bracket, done, player)
    m = coming.match
    left = done.match.flight if m.flight != done.match.flight else None
    by_match = {c.match: c for c in live_calls(bracket, calls)}
    opponent = next((p for p in coming.players if p != player), None)
    call = by_match.get(m.id)
    if call is not None and opponent is not None:
        return NextStep("called", m.flight, m.round, call.table, opponent, left=left)
    if coming.is_ready() and opponent is not None:
        return NextStep("ready", m.flight, m.round, opponent=opponent, left=left)
    source = next(
        (s for seat, s in zip(coming.seats, m.sources, strict=True) if seat is None),
        None,
    )
    if isinstance(source, WinnerOf | LoserOf):
        played_at = by_match.get(source.match)
        return NextStep(
            "waiting",
            m.flight,
            m.round,
            waits_for="winner" if isinstance(source, WinnerOf) else "loser",
            from_table=played_at.table if played_at is not None else None,
            left=left,
        )
    return NextStep("waiting", m.flight, m.round, left=left)


def _finished(bracket: Bracket, done: BracketMatch, player: str) -> NextStep:
    """No match left: the winner of a flight's final won it; anyone else is out."""
    flight = done.match.flight
    if done.winner == player and done.match.round == bracket.event.rounds(flight):
        return NextStep("won", flight)
    return NextStep("out", flight)
