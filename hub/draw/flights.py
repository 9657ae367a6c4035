"""An event's flights as a value: which matches each flight has, and where each player comes from.

A flight is a single-elimination bracket. An **entry flight** (the main) is drawn: its round 1
pairs the draw's positions (1 v 2, 3 v 4, …) and each later round pairs the winners above. A
**fed flight** (a consolation, a last chance) takes the losers of other flights' rounds, in the
order its feeds are listed:

- the first feed starts it: the losers of that round, paired in the order of their matches (the
  loser of match 1 v the loser of match 2, …);
- each later feed enters as soon as the players still in are as many as its losers (rounds of
  winners are played until then): each winner meets one fed loser, the fed losers taken in the
  reverse order of their matches, so that nobody meets again at once the player they met in the
  round before;
- after the last feed, winners play winners down to one.

So which losers feed which flight is part of the definition, and every result feeds exactly the
two matches (or the one, or none) the definition names: :meth:`Event.fed_by` says which. A match
is named ``{flight}-r{round}-m{number}`` (the schedule's id characters), numbered from the top
of its round.

Pure: the value is built once and checked as a whole (:class:`~hub.draw.errors.DrawError` names
what is wrong); nothing here knows players, results or time.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Literal

from hub.draw.errors import DrawError
from rulebook.parse import MAX_LENGTH

#: the largest flight (positions of an entry flight)
MAX_SIZE = 512
_NAME = re.compile(r"[A-Za-z0-9_]{1,32}")


@dataclass(frozen=True, slots=True)
class Slot:
    """A position of the flight's draw (1 is the top of the bracket)."""

    position: int

    def describe(self) -> str:
        return f"position {self.position}"


@dataclass(frozen=True, slots=True)
class WinnerOf:
    match: str

    def describe(self) -> str:
        return f"winner of {self.match}"


@dataclass(frozen=True, slots=True)
class LoserOf:
    match: str

    def describe(self) -> str:
        return f"loser of {self.match}"


Source = Slot | WinnerOf | LoserOf
Side = Literal[0, 1]


@dataclass(frozen=True, slots=True)
class Feed:
    """The losers of ``source``'s round ``round`` play on in the flight that lists this feed.

    ``reverse``: take those losers from the bottom of their round up (``None``: in order for the
    feed that starts the flight, reversed for a feed that meets winners)."""

    source: str
    round: int
    reverse: bool | None = None


@dataclass(frozen=True, slots=True)
class EntryFlight:
    """A flight drawn from an entry list (or imported drawn): ``size`` positions, byes included.

    ``lengths``: the match length of round 1, 2, …; the last one holds for the rounds after it."""

    name: str
    size: int
    profile: str
    lengths: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FedFlight:
    """A flight whose players are the losers of other flights' rounds (see the module doc)."""

    name: str
    feeds: tuple[Feed, ...]
    profile: str
    lengths: tuple[int, ...]


Flight = EntryFlight | FedFlight


@dataclass(frozen=True, slots=True)
class Match:
    """One match of the bracket, as the definition makes it: where its two players come from."""

    id: str
    flight: str
    round: int
    number: int
    length: int
    sources: tuple[Source, Source]


@dataclass(frozen=True, slots=True)
class Consumer:
    """Where a result goes: the ``match`` whose ``side`` takes this match's ``what``."""

    match: str
    side: Side
    what: Literal["winner", "loser"]


def match_id(flight: str, round_: int, number: int) -> str:
    return f"{flight}-r{round_}-m{number}"


def length_for(flight: Flight, round_: int) -> int:
    return flight.lengths[min(round_, len(flight.lengths)) - 1]


@dataclass(frozen=True)
class Event:
    """The flights, in order (a flight is fed only by flights before it), and their matches."""

    flights: tuple[Flight, ...]
    #: every match, flight by flight and round by round: each after the matches it depends on
    matches: tuple[Match, ...] = field(init=False, compare=False, repr=False)
    _by_id: dict[str, Match] = field(init=False, compare=False, repr=False)
    _rounds: dict[str, list[list[Match]]] = field(init=False, compare=False, repr=False)
    _consumers: dict[str, tuple[Consumer, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        rounds: dict[str, list[list[Match]]] = {}
        for flight in self.flights:
            _check_flight(flight, rounds)
            rounds[flight.name] = (
                _entry_rounds(flight) if isinstance(flight, EntryFlight) else _fed_rounds(flight, rounds)
            )
        matches = tuple(m for f in self.flights for r in rounds[f.name] for m in r)
        consumers: dict[str, list[Consumer]] = {m.id: [] for m in matches}
        for m in matches:
            sides: tuple[tuple[Side, Source], ...] = ((0, m.sources[0]), (1, m.sources[1]))
            for side, source in sides:
                if isinstance(source, WinnerOf):
                    consumers[source.match].append(Consumer(m.id, side, "winner"))
                elif isinstance(source, LoserOf):
                    consumers[source.match].append(Consumer(m.id, side, "loser"))
        object.__setattr__(self, "matches", matches)
        object.__setattr__(self, "_by_id", {m.id: m for m in matches})
        object.__setattr__(self, "_rounds", rounds)
        object.__setattr__(self, "_consumers", {k: tuple(v) for k, v in consumers.items()})

    def flight(self, name: str) -> Flight:
        for f in self.flights:
            if f.name == name:
                return f
        raise DrawError("draw.flight.unknown", flight=name)

    def flight_index(self, name: str) -> int:
        return [f.name for f in self.flights].index(name)

    def match(self, match_id: str) -> Match:
        try:
            return self._by_id[match_id]
        except KeyError:
            raise DrawError("draw.match.unknown", match=match_id) from None

    def has_match(self, match_id: str) -> bool:
        return match_id in self._by_id

    def rounds(self, flight: str) -> int:
        self.flight(flight)
        return len(self._rounds[flight])

    def round_matches(self, flight: str, round_: int) -> tuple[Match, ...]:
        self.flight(flight)
        return tuple(self._rounds[flight][round_ - 1])

    def fed_by(self, match_id: str) -> tuple[Consumer, ...]:
        """The matches this match's winner and loser go to (none for a final's winner, nor for a
        loser no flight takes)."""
        self.match(match_id)
        return self._consumers[match_id]

    def downstream(self, match_id: str) -> Iterator[str]:
        """Every match whose players may depend on this match's result (not itself)."""
        seen: set[str] = set()
        todo = [c.match for c in self.fed_by(match_id)]
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                yield m
                todo.extend(c.match for c in self._consumers[m])

    def check_profiles(self, known: Collection[str]) -> None:
        """Refuse a flight whose profile is not one of ``known`` (a hub's ``ProfileBook.names()``)."""
        for f in self.flights:
            if f.profile not in known:
                raise DrawError(
                    "draw.profile.unknown", flight=f.name, profile=f.profile, known=", ".join(known)
                )


def _check_flight(flight: Flight, before: dict[str, list[list[Match]]]) -> None:
    if not _NAME.fullmatch(flight.name):
        raise DrawError("draw.flight.name", flight=flight.name)
    if flight.name in before:
        raise DrawError("draw.flight.repeated", flight=flight.name)
    if not flight.lengths or any(not 1 <= n <= MAX_LENGTH for n in flight.lengths):
        raise DrawError("draw.flight.lengths", flight=flight.name, limit=MAX_LENGTH)
    if isinstance(flight, EntryFlight):
        if not 2 <= flight.size <= MAX_SIZE or flight.size & (flight.size - 1):
            raise DrawError("draw.flight.size", flight=flight.name, size=flight.size, limit=MAX_SIZE)
        return
    if not flight.feeds:
        raise DrawError("draw.flight.no_feeds", flight=flight.name)
    fed: set[tuple[str, int]] = set()
    for feed in flight.feeds:
        if feed.source not in before:
            raise DrawError("draw.feed.source", flight=flight.name, source=feed.source)
        if not 1 <= feed.round <= len(before[feed.source]):
            raise DrawError("draw.feed.round", flight=flight.name, source=feed.source, round=feed.round)
        if (feed.source, feed.round) in fed:
            raise DrawError("draw.feed.repeated", flight=flight.name, source=feed.source, round=feed.round)
        fed.add((feed.source, feed.round))


def _winner_rounds(flight: Flight, rounds: list[list[Match]]) -> None:
    """Rounds of winners against winners, until one is left."""
    while len(rounds[-1]) > 1:
        _pair_winners(flight, rounds)


def _pair_winners(flight: Flight, rounds: list[list[Match]]) -> None:
    r = len(rounds) + 1
    above = rounds[-1]
    rounds.append(
        [
            Match(
                match_id(flight.name, r, k + 1),
                flight.name,
                r,
                k + 1,
                length_for(flight, r),
                (WinnerOf(above[2 * k].id), WinnerOf(above[2 * k + 1].id)),
            )
            for k in range(len(above) // 2)
        ]
    )


def _entry_rounds(flight: EntryFlight) -> list[list[Match]]:
    first = [
        Match(
            match_id(flight.name, 1, k + 1),
            flight.name,
            1,
            k + 1,
            length_for(flight, 1),
            (Slot(2 * k + 1), Slot(2 * k + 2)),
        )
        for k in range(flight.size // 2)
    ]
    rounds = [first]
    _winner_rounds(flight, rounds)
    return rounds


def _fed_rounds(flight: FedFlight, before: dict[str, list[list[Match]]]) -> list[list[Match]]:
    first, *later = flight.feeds
    losers = _fed_matches(first, before, default_reverse=False)
    if len(losers) < 2:
        raise DrawError(
            "draw.feed.first", flight=flight.name, source=first.source, round=first.round, count=len(losers)
        )
    rounds = [
        [
            Match(
                match_id(flight.name, 1, k + 1),
                flight.name,
                1,
                k + 1,
                length_for(flight, 1),
                (LoserOf(losers[2 * k].id), LoserOf(losers[2 * k + 1].id)),
            )
            for k in range(len(losers) // 2)
        ]
    ]
    for feed in later:
        losers = _fed_matches(feed, before, default_reverse=True)
        while len(rounds[-1]) > len(losers):
            _pair_winners(flight, rounds)
        if len(rounds[-1]) != len(losers):
            raise DrawError(
                "draw.feed.count",
                flight=flight.name,
                source=feed.source,
                round=feed.round,
                count=len(losers),
                winners=len(rounds[-1]),
            )
        r = len(rounds) + 1
        above = rounds[-1]
        rounds.append(
            [
                Match(
                    match_id(flight.name, r, k + 1),
                    flight.name,
                    r,
                    k + 1,
                    length_for(flight, r),
                    (WinnerOf(above[k].id), LoserOf(losers[k].id)),
                )
                for k in range(len(above))
            ]
        )
    _winner_rounds(flight, rounds)
    return rounds


def _fed_matches(feed: Feed, before: dict[str, list[list[Match]]], *, default_reverse: bool) -> list[Match]:
    matches = list(before[feed.source][feed.round - 1])
    reverse = default_reverse if feed.reverse is None else feed.reverse
    return matches[::-1] if reverse else matches
