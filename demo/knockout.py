"""The demo room's rolling knockout: a small draw the hub runs beside the rounds (pure).

Most backgammon events are knockouts whose matches are called as tables free up (docs/draw.md),
so the demo room has one too: eight players in a main flight of eight, a consolation fed by its
round-1 losers, on tables of their own after the round tables (9 to 12 in a room of eight). The
hub calls the four first-round matches at once; each result calls what it makes ready — the
main's semi-finals and the consolation as the losers come free, then both finals — so the TD
watches calls happen, the Draw page fill in and each table's "Next:" lines follow.

The draw file is the hub's ordinary one (``bghub run --draw``), written here as text: nothing
here reads the clock or draws a random number.
"""

from __future__ import annotations

import json

from demo.schedule import player_name

#: players of the knockout (a power of two: no byes, every first-round loser plays the consolation)
ENTRIES = 8
#: the knockout's tables (its first round's matches, all at once)
TABLES = 4
#: short matches, so that a flight is over in minutes: one point at speed 10 and beyond
LENGTH = 3
FAST_LENGTH = 1
#: the walking grace at speed 1 (minutes): a called match starts this long after its call
GRACE_MINUTES = 1.0
#: the random seed of the draw (the same draw at every run: docs/demo.md names its first round)
RANDOM_SEED = 2026


def tables(round_tables: int, knockout_tables: int = TABLES) -> list[str]:
    """The knockout's tables: those after the round tables."""
    return [str(round_tables + k) for k in range(1, knockout_tables + 1)]


def players(round_tables: int) -> list[tuple[str, str]]:
    """(key, name) of the knockout's players: none of them plays in the rounds (whose players are
    the room's first ``2 × round_tables``)."""
    return [(f"k{n:02d}", player_name(2 * round_tables + n - 1)) for n in range(1, ENTRIES + 1)]


def draw_toml(round_tables: int, knockout_tables: int = TABLES, speed: float = 1.0) -> str:
    """The draw file (docs/draw.md, "The draw file") of the demo's knockout."""
    length = FAST_LENGTH if speed >= 10 else LENGTH
    lines = [
        "# The demo room's rolling knockout (demo/knockout.py)",
        "[draw]",
        f"tables = {json.dumps(tables(round_tables, knockout_tables))}",
        f"grace_minutes = {GRACE_MINUTES / speed!r}",
        "needs_verified = false",
        "clock = true",
        f"random_seed = {RANDOM_SEED}",
        "",
        "[[flights]]",
        'name = "main"',
        f"size = {ENTRIES}",
        'profile = "wbgf-2023"',
        f"lengths = [{length}]",
        "",
        "[[flights]]",
        'name = "consolation"',
        'feeds = [{ flight = "main", round = 1 }]',
        'profile = "wbgf-2023"',
        f"lengths = [{length}]",
        "",
    ]
    for n, (key, name) in enumerate(players(round_tables), start=1):
        lines += [
            "[[players]]",
            f"key = {json.dumps(key)}",
            f"name = {json.dumps(name, ensure_ascii=False)}",
            "",
        ]
        seed = f"\nseed = {n}" if n <= 2 else ""
        lines += ["[[entries]]", 'flight = "main"', f"player = {json.dumps(key)}{seed}", ""]
    return "\n".join(lines)
