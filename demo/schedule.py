"""The demo room's schedule: who plays whom, at which table, under which rules, and when (pure).

A newcomer's first look at the product should show a room at work, so the schedule is made up
on the spot: a round of matches of every length (5, 7, 9, 11 points) under every rules profile
(one match without a clock, one under ``ffbg-cdf``), starting a minute or two from now. One table
plays the roles that make the TD's dashboard worth watching: at the *late table* the round began
minutes ago and one player is still missing, so the hub's automatic lateness point falls shortly
after the demo starts; at the *flag table* a slow player will run out of time.

Nothing here reads the clock or draws a random number: the demo passes ``now`` in, so tests can
check the rows. The CSV goes through the hub's ordinary schedule import (PROTOCOL §4).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime

from rulebook.policy import lateness
from rulebook.profiles import get_profile

SECOND = 1000
MINUTE = 60 * SECOND

#: (length, profile, clock) of table 1, 2, ... (cycled for a bigger room); None = the profile's
SETUPS: tuple[tuple[int, str, bool | None], ...] = (
    (7, "wbgf-2023", None),
    (9, "wbgf-2023", None),
    (5, "wbgf-2023", None),
    (7, "hbf", None),
    (7, "hu", False),
    (9, "ffbg-cdf", None),
    (5, "hbf", None),
    (11, "wbgf-2023", None),
)
#: the late table gets lateness points (wbgf-2023 with a clock); 11 points: one point is no forfeit
LATE_SETUP = (11, "wbgf-2023", None)
#: the flag table's reserve is the smallest there is: 5 points x 2 minutes
FLAG_SETUP = (5, "wbgf-2023", None)

#: the late table's first lateness point falls this long after the demo starts (at speed 1)
LATE_LEAD_MS = 30 * SECOND
#: the late player arrives this long after that point is due (at speed 1; never under 10 s)
LATE_ARRIVES_AFTER_MS = 60 * SECOND
#: the other tables start between these two moments from now (at speed 1)
FIRST_START_MS = (60 * SECOND, 120 * SECOND)
#: a later round starts this long after it is imported (at speed 1)
NEXT_ROUND_MS = 90 * SECOND

PLAYERS = (
    "Akiko Yazawa",
    "Lars Trabolt",
    "Zoltán Kovács",
    "Éva Szabó",
    "Camille Durand",
    "Tobias Hauge",
    "Георги Иванов",
    "Ingrid Berg",
    "Νίκος Γεωργίου",
    "Anna Nagy",
    "Pierre Martin",
    "Kari Nordmann",
    "Mochizuki Masayoshi",
    "Marc Olsen",
    "Sander Lylloff",
    "Ioana Popescu",
)
FIRST = (
    "Ada", "Bence", "Chloé", "Dimitar", "Elin", "Falk", "Greta", "Hugo",
    "Ilona", "Jonas", "Katalin", "Léo", "Maren", "Nils", "Orsolya", "Petra",
)  # fmt: skip
LAST = (
    "Andersen", "Balogh", "Costa", "Dimitrov", "Eriksen", "Fournier", "Gál", "Haugen",
    "Ivanova", "Jensen", "Kiss", "Laurent", "Moreau", "Novak", "Olsen", "Papadaki",
)  # fmt: skip
MAX_TABLES = 100


def player_name(k: int) -> str:
    """The ``k``-th player of the room (distinct for every k below 256)."""
    if k < len(PLAYERS):
        return PLAYERS[k]
    n = len(FIRST)
    return f"{FIRST[k % n]} {LAST[(k // n + k) % n]}"


@dataclass(frozen=True, slots=True)
class Roles:
    """Which tables play the demo's special parts (table ids, or None when the room is too small)."""

    late: str | None
    flag: str | None


def roles(tables: int) -> Roles:
    """The last table has the late player; table 3 (or the one before the last) the slow one."""
    if tables < 1:
        return Roles(None, None)
    late = str(tables)
    flag = "3" if tables >= 4 else (str(tables - 1) if tables >= 2 else None)
    return Roles(late, flag)


def setup(table: int, tables: int) -> tuple[int, str, bool | None]:
    r = roles(tables)
    if str(table) == r.late:
        return LATE_SETUP
    if str(table) == r.flag:
        return FLAG_SETUP
    return SETUPS[(table - 1) % len(SETUPS)]


def first_point_ms(length: int, profile: str, clock: bool | None) -> int | None:
    """How late a player may be before the first lateness point (None: no points, e.g. ffbg-cdf)."""
    p = get_profile(profile)
    with_clock = p.clock_default if clock is None else clock
    return lateness(p, length, 0, clock=with_clock).next_due_ms


@dataclass(frozen=True, slots=True)
class Row:
    round: int
    table: str
    player_a: str
    player_b: str
    length: int
    start_wall: int
    profile: str
    clock: bool | None

    @property
    def match_id(self) -> str:
        return f"r{self.round}-t{self.table}"


def pairing(round_no: int, table: int, tables: int) -> tuple[str, str]:
    """Player A stays at the table; the B players move on one table each round."""
    a = table - 1
    b = tables + (table - 1 + round_no - 1) % tables
    return player_name(a), player_name(b)


def _round_start(now: int, ms: int, speed: float) -> int:
    return (now + int(ms / speed)) // SECOND * SECOND


def first_round(now: int, tables: int, speed: float = 1.0, window: str | None = None) -> list[Row]:
    """Round 1: starts a minute or two from now; the late table's round began minutes ago (unless
    it is the ``window`` table, the real kiosk, whose players are whoever sits at it)."""
    r = roles(tables)
    rows = []
    lo, hi = FIRST_START_MS
    for t in range(1, tables + 1):
        length, profile, clock = setup(t, tables)
        a, b = pairing(1, t, tables)
        due = first_point_ms(length, profile, clock)
        if str(t) == r.late and str(t) != window and due is not None:
            start = (now - due + int(LATE_LEAD_MS / speed)) // SECOND * SECOND
        else:
            start = _round_start(now, lo + (hi - lo) * ((t - 1) % 5) // 4, speed)
        rows.append(Row(1, str(t), a, b, length, start, profile, clock))
    return rows


def next_round(round_no: int, now: int, tables: int, speed: float = 1.0) -> list[Row]:
    """Round ``round_no`` (2, 3, ...): every table starts together, a minute and a half from now."""
    start = _round_start(now, NEXT_ROUND_MS, speed)
    rows = []
    for t in range(1, tables + 1):
        length, profile, clock = setup(t, tables)
        a, b = pairing(round_no, t, tables)
        rows.append(Row(round_no, str(t), a, b, length, start, profile, clock))
    return rows


def late_arrival(row: Row, speed: float = 1.0) -> int:
    """When the late table's missing player walks in: after the first point, before the second."""
    due = first_point_ms(row.length, row.profile, row.clock) or 0
    return row.start_wall + due + max(10 * SECOND, int(LATE_ARRIVES_AFTER_MS / speed))


def to_csv(rows: list[Row]) -> str:
    """The rows as the schedule CSV that tournament software would export (PROTOCOL §4)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["round", "table", "player_a", "player_b", "length", "start", "clock", "profile"])
    for r in rows:
        start = datetime.fromtimestamp(r.start_wall / 1000, tz=UTC).isoformat(timespec="seconds")
        clock = "" if r.clock is None else ("yes" if r.clock else "no")
        writer.writerow([r.round, r.table, r.player_a, r.player_b, r.length, start, clock, r.profile])
    return out.getvalue()
