"""Where every player of the event is: one identity per player across the schedule, the match a
player is still playing (or was, at a given moment), when their previous match ended, and players
booked twice (pure).

A player is the event's player registry's key (:mod:`hub.tournament.players`): every seat of the schedule is
resolved to one registered player at import, whether its row gave a federation id or only a name
("Zoltán  Kovács" in round 1 with an id, "zoltan kovacs" in round 2 without, are one player). A
player sitting at one table is not late at another: lateness (:mod:`hub.logic.lateness`) asks here
whether a player's other match is still live, and counts from the end of their previous match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from hub.logic.table_view import TableView
from hub.tournament.players import Registry
from hub.tournament.rounds import to_be_played
from hub.tournament.schedule import ScheduledMatch, round_order
from rulebook.messages import Snapshot
from rulebook.sides import SIDES
from rulebook.vocab import Phase


def seat_name(match: ScheduledMatch, side: str) -> str:
    """The player's name as the schedule spells it (spaces tidied, for messages)."""
    return " ".join((match.player_a if side == "A" else match.player_b).split())


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's place in a scheduled match."""

    match: ScheduledMatch
    side: str


class PlayerIndex:
    """Every player's seats in the schedule, in playing order (built once per schedule), by the
    registry's keys. Without a registry (a test, a benchmark), the schedule's own is made."""

    def __init__(self, schedule: Iterable[ScheduledMatch], registry: Registry | None = None) -> None:
        matches = list(schedule)
        self.registry = (registry or Registry()).covering(matches)
        self.round_index: dict[str, int] = {r: i for i, r in enumerate(round_order(matches))}
        self.seats: dict[str, list[Seat]] = {}
        #: (match id, side) -> the player's key
        self.keys: dict[tuple[str, str], str] = {}
        for m in matches:
            for side in SIDES:
                key = self.registry.key_of(m.match_id, side)
                assert key is not None  # covering() resolved every seat
                self.keys[(m.match_id, side)] = key
                self.seats.setdefault(key, []).append(Seat(m, side))
        for seats in self.seats.values():
            seats.sort(key=lambda s: (self.round_index[s.match.round], s.match.start_wall))

    def key(self, match: ScheduledMatch, side: str) -> str:
        """The player's key at ``match``'s ``side`` (a match not in the schedule: a key of its
        own, nobody else's)."""
        key = self.keys.get((match.match_id, side))
        return key if key is not None else f"seat:{match.match_id}:{side}"

    def others(self, match: ScheduledMatch, side: str) -> list[Seat]:
        """The player's seats in the other matches of the event."""
        return [s for s in self.seats.get(self.key(match, side), []) if s.match.match_id != match.match_id]


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """The match a player is still playing, as the TD reads it."""

    match_id: str
    table: str
    round: str
    score: dict[str, int] | None

    def text(self) -> str:
        score = f", {self.score['A']}–{self.score['B']}" if self.score else ""
        return f"still playing {self.match_id} (table {self.table}{score})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "table": self.table,
            "round": self.round,
            "score": self.score,
            "text": self.text(),
        }


def live_state(
    seat: Seat, views: dict[str, TableView], results: dict[str, Any], released: set[str]
) -> Snapshot | None:
    """The state of ``seat``'s match if its player is at it now: the match is under way at its
    table (or waiting there with this player checked in), not finished, not released."""
    m = seat.match
    if not to_be_played(m.match_id, results, released):
        return None
    view = views.get(m.table)
    state = view.state_for(m.match_id) if view is not None else None
    if state is None:
        return None
    phase = state.get("phase")
    if phase == Phase.FINISHED:
        return None
    if phase == Phase.WAITING and not (state.get("present") or {}).get(seat.side):
        return None
    return state


def elsewhere(
    index: PlayerIndex,
    match: ScheduledMatch,
    side: str,
    views: dict[str, TableView],
    results: dict[str, Any],
    released: set[str],
) -> Elsewhere | None:
    """The other match the player of ``match``'s ``side`` is at now, if any (earliest round first)."""
    for seat in index.others(match, side):
        state = live_state(seat, views, results, released)
        if state is not None:
            score = state.get("score")
            return Elsewhere(
                seat.match.match_id,
                seat.match.table,
                seat.match.round,
                {"A": score["A"], "B": score["B"]} if isinstance(score, dict) else None,
            )
    return None


def elsewhere_at(
    index: PlayerIndex,
    match: ScheduledMatch,
    side: str,
    at: int,
    times: Callable[[Seat], tuple[int | None, int | None]],
) -> Seat | None:
    """The other match the player of ``match``'s ``side`` was at, at the moment ``at`` (hub time),
    if any: one they had arrived at and that was not over. ``times(seat)`` says when the player
    arrived at that seat's match and when it ended (None: not so far)."""
    for seat in index.others(match, side):
        arrived, ended = times(seat)
        if arrived is not None and arrived <= at and (ended is None or ended > at):
            return seat
    return None


def previous_end(
    index: PlayerIndex, match: ScheduledMatch, side: str, results: dict[str, Any]
) -> tuple[int, str] | None:
    """When the player's latest match of an earlier round ended (hub time), with its id."""
    here = index.round_index.get(match.round, 0)
    best: tuple[int, str] | None = None
    for seat in index.others(match, side):
        if index.round_index.get(seat.match.round, 0) >= here:
            continue
        result = results.get(seat.match.match_id)
        finished = result.get("finished_wall") if isinstance(result, dict) else None
        if type(finished) is int and (best is None or finished > best[0]):
            best = (finished, seat.match.match_id)
    return best


@dataclass(frozen=True, slots=True)
class DoubleBooking:
    """One player at two matches at once: booked so by the schedule, or seen so in the room."""

    key: str
    name: str
    #: (match id, table) of each match
    matches: tuple[tuple[str, str], ...]
    #: "schedule": two matches at the same start time; "room": live at two tables
    where: str

    def text(self) -> str:
        places = " and ".join(f"{mid} (table {t})" for mid, t in self.matches)
        if self.where == "schedule":
            return f"{self.name} is scheduled at two matches at once: {places}"
        return f"{self.name} is at two matches at once: {places}"


def scheduled_twice(index: PlayerIndex) -> list[DoubleBooking]:
    """Players the schedule puts at two matches with the same start time, whatever became of them
    since (built once per schedule: :func:`still_twice` keeps those that stand)."""
    out = []
    for key, seats in index.seats.items():
        by_start: dict[int, list[Seat]] = {}
        for seat in seats:
            by_start.setdefault(seat.match.start_wall, []).append(seat)
        for same in by_start.values():
            if len(same) > 1:
                matches = tuple((s.match.match_id, s.match.table) for s in same)
                out.append(DoubleBooking(key, seat_name(same[0].match, same[0].side), matches, "schedule"))
    return out


def still_twice(
    bookings: Iterable[DoubleBooking], results: dict[str, Any], released: set[str]
) -> list[DoubleBooking]:
    """The ``bookings`` whose player still has two of those matches to play: a match finished or
    released is none of his any more (a draw's call voided by an undo, or moved, swapped or called
    again under another id, stays in the schedule released). A player is at two matches at once
    only while two of them stand; the one left alone needs nothing of the TD."""
    out = []
    for b in bookings:
        standing = tuple((mid, t) for mid, t in b.matches if to_be_played(mid, results, released))
        if len(standing) > 1:
            out.append(b if standing == b.matches else replace(b, matches=standing))
    return out


def live_twice(
    index: PlayerIndex,
    views: dict[str, TableView],
    results: dict[str, Any],
    released: set[str],
    by_id: dict[str, ScheduledMatch],
) -> list[DoubleBooking]:
    """Players the room shows at two matches at once (under way, or checked in, at both).

    Walks the tables (what each one holds now), not the schedule: one look per table."""
    live: dict[str, list[Seat]] = {}
    for view in views.values():
        mid = view.state["match_id"] if view.state else None
        match = by_id.get(mid) if mid is not None else None
        if match is None or match.table != view.table:
            continue
        for side in SIDES:
            seat = Seat(match, side)
            if live_state(seat, views, results, released) is not None:
                live.setdefault(index.key(match, side), []).append(seat)
    out = []
    for key, seats in live.items():
        if len(seats) > 1:
            seats.sort(key=lambda s: (index.round_index.get(s.match.round, 0), s.match.table))
            matches = tuple((s.match.match_id, s.match.table) for s in seats)
            out.append(DoubleBooking(key, seat_name(seats[0].match, seats[0].side), matches, "room"))
    return out
