"""A drawn bracket as CSV: read one drawn elsewhere (a draw program, a spreadsheet), write one
made here (pure: text in, text out; docs/draw.md lists the columns).

One row per position of an entry flight: ``flight``, ``position`` (1 is the top of the bracket),
``player`` (the registry's key; empty for a bye), and optionally ``seed``. A position that no row
gives is a bye. The draw read keeps no random seed (it was made elsewhere); the seeds given are
recorded in the draw, seed 1 first.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from hub.draw.errors import DrawError
from hub.draw.flights import EntryFlight, Event
from hub.draw.seeding import Draw, is_player_key

COLUMNS = ("flight", "position", "player", "seed")
REQUIRED = ("flight", "position", "player")


def read_draw_csv(text: str, event: Event) -> tuple[Draw, ...]:
    """The draws a CSV gives, one per entry flight it names, in the event's order."""
    text = text.removeprefix("\ufeff")
    rows = csv.DictReader(io.StringIO(text, newline=""))
    fields = [f.strip().lower() for f in rows.fieldnames or ()]
    missing = [c for c in REQUIRED if c not in fields]
    if missing:
        raise DrawError("draw.csv.columns", missing=", ".join(missing))
    rows.fieldnames = fields
    positions: dict[str, list[str | None]] = {}
    seeds: dict[str, dict[int, str]] = {}
    given_positions: set[tuple[str, int]] = set()
    for line, row in enumerate(rows, start=2):
        cells = {k: (v or "").strip() for k, v in row.items() if isinstance(k, str)}
        if not any(cells.values()):
            continue
        flight = event.flight(cells["flight"])
        if not isinstance(flight, EntryFlight):
            raise DrawError("draw.draw.flight", flight=flight.name)
        places = positions.setdefault(flight.name, [None] * flight.size)
        given = cells["position"]
        if not given.isdigit() or not 1 <= int(given) <= flight.size:
            raise DrawError("draw.csv.position", line=line, position=given, size=flight.size)
        position = int(given)
        if (flight.name, position) in given_positions:
            raise DrawError("draw.csv.repeated", line=line, position=position, flight=flight.name)
        player = cells["player"]
        if player and not is_player_key(player):
            raise DrawError("draw.entries.player", player=player)
        places[position - 1] = player or None
        given_positions.add((flight.name, position))
        seed = cells.get("seed", "")
        if seed and player:
            if not seed.isdigit() or int(seed) < 1:
                raise DrawError("draw.csv.seed", line=line, seed=seed)
            seeds.setdefault(flight.name, {})[int(seed)] = player
    out: list[Draw] = []
    for f in event.flights:
        if f.name in positions:
            by_seed = seeds.get(f.name, {})
            if sorted(by_seed) != list(range(1, len(by_seed) + 1)):
                raise DrawError(
                    "draw.entries.seeds", flight=f.name, count=len(by_seed), seeds=sorted(by_seed)
                )
            out.append(
                Draw(f.name, tuple(positions[f.name]), None, tuple(by_seed[s] for s in sorted(by_seed)))
            )
    return tuple(out)


def draw_csv(draws: Iterable[Draw]) -> str:
    """The draws as the CSV :func:`read_draw_csv` reads: every position, byes with no player."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for d in draws:
        seed_of = {p: n for n, p in enumerate(d.seeds, start=1)}
        for position, player in enumerate(d.positions, start=1):
            seed = seed_of.get(player) if player is not None else None
            writer.writerow((d.flight, position, player or "", seed or ""))
    return out.getvalue()
