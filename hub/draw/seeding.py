"""A flight's draw: who stands at each position of round 1, made from an entry list.

The seeds go where the standard seeding puts them (:func:`seeding_order`: seed 1 at the top,
seed 2 at the bottom, 3 and 4 at the tops of the other quarters, …, so that seeds 1 and 2 can only
meet in the final). Byes are the missing players at the bottom of that order: with 29 entries in
32 positions, the byes stand where seeds 30, 31 and 32 would, so seeds 1, 2 and 3 (or whoever
was drawn there) pass round 1 without playing. The other players are drawn into the remaining
positions by a seeded shuffle (``random.Random(seed)`` over the players sorted by their key), and
the seed is part of the draw: the same entries and the same seed give the same draw, whenever and
wherever it is made again.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from hub.draw.errors import DrawError
from hub.draw.flights import EntryFlight


@dataclass(frozen=True, slots=True)
class Entry:
    """A player entered in a flight: the registry's key (opaque here), and a seed or none."""

    player: str
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """A flight's round-1 positions: ``positions[i]`` is the player at position ``i + 1``, or
    ``None`` for a bye. ``random_seed`` is ``None`` for a draw imported as it was drawn elsewhere;
    ``seeds`` lists the seeded players, seed 1 first."""

    flight: str
    positions: tuple[str | None, ...]
    random_seed: int | None
    seeds: tuple[str, ...] = ()

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p in self.positions if p is not None)

    def position_of(self, player: str) -> int | None:
        try:
            return self.positions.index(player) + 1
        except ValueError:
            return None


def is_player_key(value: object) -> bool:
    return isinstance(value, str) and value != "" and value == value.strip()


def seeding_order(size: int) -> tuple[int, ...]:
    """The seed that stands at each position (1-based) of a bracket of ``size``: 8 gives
    1, 8, 5, 4, 3, 6, 7, 2. Each pair of round 1 adds up to ``size + 1``, and every round after
    it pairs the strongest seed left with the weakest as well."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [
            s
            for i, seed in enumerate(order)
            for s in ((seed, total - seed) if i % 2 == 0 else (total - seed, seed))
        ]
    return tuple(order)


def check_entries(flight: EntryFlight, entries: Iterable[Entry]) -> list[Entry]:
    listed = list(entries)
    # more than half the places: every pair of round 1 has a player (a bye never meets a bye)
    if not flight.size // 2 < len(listed) <= flight.size:
        raise DrawError("draw.entries.count", flight=flight.name, count=len(listed), size=flight.size)
    seen: set[str] = set()
    for e in listed:
        if not is_player_key(e.player):
            raise DrawError("draw.entries.player", player=e.player)
        if e.player in seen:
            raise DrawError("draw.entries.repeated", flight=flight.name, player=e.player)
        seen.add(e.player)
    seeds = sorted(e.seed for e in listed if e.seed is not None)
    if seeds != list(range(1, len(seeds) + 1)):
        raise DrawError("draw.entries.seeds", flight=flight.name, count=len(seeds), seeds=seeds)
    return listed


def draw_entries(flight: EntryFlight, entries: Iterable[Entry], random_seed: int) -> Draw:
    """Draw ``entries`` into ``flight`` (see the module doc)."""
    listed = check_entries(flight, entries)
    seeded = sorted((e for e in listed if e.seed is not None), key=lambda e: e.seed or 0)
    others = sorted(e.player for e in listed if e.seed is None)
    random.Random(random_seed).shuffle(others)
    drawn = iter(others)
    positions: list[str | None] = []
    for seed in seeding_order(flight.size):
        if seed > len(listed):
            positions.append(None)
        elif seed <= len(seeded):
            positions.append(seeded[seed - 1].player)
        else:
            positions.append(next(drawn))
    return Draw(flight.name, tuple(positions), random_seed, tuple(e.player for e in seeded))
