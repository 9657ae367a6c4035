"""The round schedule: PROTOCOL §4's CSV, parsed all-or-nothing, and each match's ``assign``.

A TD imports the schedule exported by the pairing program. A mistake in it (a typo in a length,
a player paired twice in a round) must be found before any table is told anything, so a file is
either accepted whole or refused with every bad line named: nothing is half-imported.

No cell may hold a control character (C0 — tab and line breaks inside a quoted cell included —
DEL or C1): nothing in a schedule needs one, a pairing program that writes one is broken, and a
NUL in a player's name once stopped the table that had to show it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, tzinfo
from typing import Any

from drivers.mqtt_topics import is_valid_id
from hub.errors import HubError
from rulebook.custom_profiles import ProfileBook
from rulebook.errors import ProfileError
from rulebook.profiles import DEFAULT_PROFILE
from rulebook.table import MAX_LENGTH

REQUIRED = ("round", "table", "player_a", "player_b", "length", "start")
OPTIONAL = ("clock", "profile", "match_id", "final", "player_a_id", "player_b_id")
#: C0 controls, DEL and C1 controls: refused in every cell
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")
YES = {"yes", "y", "true", "1"}
NO = {"no", "n", "false", "0"}


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One row of the schedule: a match at a table in a round."""

    match_id: str
    round: str
    table: str
    player_a: str
    player_b: str
    length: int
    start_wall: int
    clock: bool
    profile: str
    final: bool = False
    player_a_id: str = ""
    player_b_id: str = ""
    line: int = 0

    def assign_payload(self, profile: str | dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``assign`` message (PROTOCOL §1 / §3) that sets this match up at its table;
        ``profile`` is what it carries for the profile (default: its name, for a built-in one)."""
        return {
            "match_id": self.match_id,
            "length": self.length,
            "players": {
                "A": {"name": self.player_a, "id": self.player_a_id},
                "B": {"name": self.player_b, "id": self.player_b_id},
            },
            "profile": self.profile if profile is None else profile,
            "clock": self.clock,
            "start_wall": self.start_wall,
            "round": self.round,
            "final": self.final,
        }

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ScheduleIssue:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ScheduleError(HubError, ValueError):
    """The schedule was refused; ``issues`` names every bad line."""

    def __init__(self, issues: list[ScheduleIssue]) -> None:
        self.issues = issues
        super().__init__("; ".join(str(i) for i in issues[:20]))


def parse_start(text: str, tz: tzinfo | None = None) -> int:
    """ISO 8601 date-time to epoch ms; without an offset it is local time (``tz`` or the system's)."""
    value = text.strip()
    if "T" not in value and " " not in value:
        raise ValueError(f"start: expected a date and time like 2026-11-22T14:00, got {text!r}")
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz) if tz is not None else dt.astimezone()
    return int(dt.timestamp() * 1000)


def _yes_no(value: str, column: str) -> bool | None:
    v = value.strip().lower()
    if v == "":
        return None
    if v in YES:
        return True
    if v in NO:
        return False
    raise ValueError(f"{column}: expected yes or no, got {value!r}")


def control_problem(column: str, value: str) -> str | None:
    """Why ``value`` may not stand in ``column`` (it holds a control character), or None."""
    found = CONTROL_RE.search(value)
    if found is None:
        return None
    return f"{column}: control character U+{ord(found.group()):04X} is not allowed"


def _row(
    cells: dict[str, str], line: int, default_profile: str, tz: tzinfo | None, profiles: ProfileBook
) -> tuple[ScheduledMatch | None, list[str]]:
    problems = [p for column, value in cells.items() if (p := control_problem(column, value))]
    if problems:  # a row with a control character is refused as it is, nothing read from it
        return None, problems
    rnd = cells["round"].strip()
    table = cells["table"].strip()
    a, b = cells["player_a"].strip(), cells["player_b"].strip()
    if not rnd:
        problems.append("round: empty")
    if not is_valid_id(table):
        problems.append(f"table: {table!r} is not a table id (letters, digits, _ . - only)")
    if not a:
        problems.append("player_a: empty")
    if not b:
        problems.append("player_b: empty")
    if a and a == b:
        problems.append(f"player_a and player_b are the same player ({a!r})")
    length = 0
    try:
        length = int(cells["length"].strip())
        if not 1 <= length <= MAX_LENGTH:
            raise ValueError
    except ValueError:
        problems.append(f"length: expected a whole number from 1 to {MAX_LENGTH}, got {cells['length']!r}")
    start = 0
    try:
        start = parse_start(cells["start"], tz)
    except ValueError as exc:
        msg = str(exc)
        problems.append(msg if msg.startswith("start:") else f"start: not ISO 8601 ({cells['start']!r})")
    profile_name = cells.get("profile", "").strip() or default_profile
    clock: bool | None = None
    try:
        profile = profiles.get(profile_name)
        clock = _yes_no(cells.get("clock", ""), "clock")
        if clock is None:
            clock = profile.clock_default
    except ProfileError as exc:
        problems.append(str(exc))
    except ValueError as exc:
        problems.append(str(exc))
    final = False
    try:
        final = bool(_yes_no(cells.get("final", ""), "final"))
    except ValueError as exc:
        problems.append(str(exc))
    match_id = cells.get("match_id", "").strip() or f"r{rnd}-t{table}"
    if not is_valid_id(match_id):
        problems.append(f"match_id: {match_id!r} is not an id (letters, digits, _ . - only)")
    if problems:
        return None, problems
    match = ScheduledMatch(
        match_id=match_id,
        round=rnd,
        table=table,
        player_a=a,
        player_b=b,
        length=length,
        start_wall=start,
        clock=bool(clock),
        profile=profile_name,
        final=final,
        player_a_id=cells.get("player_a_id", "").strip(),
        player_b_id=cells.get("player_b_id", "").strip(),
        line=line,
    )
    return match, []


def parse_schedule(
    data: str | bytes,
    *,
    default_profile: str = DEFAULT_PROFILE,
    tz: tzinfo | None = None,
    profiles: ProfileBook | None = None,
) -> list[ScheduledMatch]:
    """Every match of the CSV, or :class:`ScheduleError` listing every bad line (nothing partial).
    A ``profile`` cell names a built-in profile or one of ``profiles`` (the hub's custom ones)."""
    book = profiles or ProfileBook()
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ScheduleError([ScheduleIssue(1, f"the file is not UTF-8 ({exc.reason})")]) from None
    data = data.removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(data, newline=""))
    columns = _columns(reader)
    issues: list[ScheduleIssue] = []
    matches: list[ScheduledMatch] = []
    seen = _Seen()
    line = 1
    try:
        for cells_list in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells_list):
                continue
            if len(cells_list) != len(columns):
                issues.append(ScheduleIssue(line, f"expected {len(columns)} fields, found {len(cells_list)}"))
                continue
            cells = dict(zip(columns, cells_list, strict=True))
            match, problems = _row(cells, line, default_profile, tz, book)
            issues.extend(ScheduleIssue(line, p) for p in problems)
            if match is None:
                continue
            issues.extend(ScheduleIssue(line, p) for p in seen.clashes(match, line))
            matches.append(match)
    except csv.Error as exc:
        issues.append(ScheduleIssue(reader.line_num or line, f"not CSV ({exc})"))
    if issues:
        raise ScheduleError(issues)
    if not matches:
        raise ScheduleError([ScheduleIssue(1, "no matches: the file has a header but no rows")])
    return matches


def _columns(reader: Iterator[list[str]]) -> list[str]:
    """The header row's column names, or :class:`ScheduleError` naming what is wrong with it."""
    try:
        header = next(reader)
    except StopIteration:
        raise ScheduleError([ScheduleIssue(1, "empty file: a header row is required")]) from None
    except csv.Error as exc:
        raise ScheduleError([ScheduleIssue(1, f"not CSV ({exc})")]) from None
    header_problems = [p for i, h in enumerate(header) if (p := control_problem(f"header column {i + 1}", h))]
    if header_problems:
        raise ScheduleError([ScheduleIssue(1, p) for p in header_problems])
    columns = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in columns]
    unknown = [c for c in columns if c not in REQUIRED and c not in OPTIONAL]
    dupes = sorted({c for c in columns if columns.count(c) > 1})
    issues = [
        ScheduleIssue(1, f"header: {what} column(s) {', '.join(names)}")
        for what, names in (("missing", missing), ("unknown", unknown), ("repeated", dupes))
        if names
    ]
    if issues:
        raise ScheduleError(issues)
    return columns


class _Seen:
    """What the file's earlier lines took: each match id, each table in a round, each player in a
    round (the line that took it first)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.slots: dict[tuple[str, str], int] = {}
        self.players: dict[tuple[str, str], int] = {}

    def clashes(self, match: ScheduledMatch, line: int) -> list[str]:
        """What ``match`` (at ``line``) repeats of the earlier lines; it takes what is still free."""
        out: list[str] = []
        if match.match_id in self.ids:
            out.append(f"match_id {match.match_id} repeats line {self.ids[match.match_id]}")
        self.ids.setdefault(match.match_id, line)
        slot = (match.round, match.table)
        if slot in self.slots:
            out.append(
                f"table {match.table} already has a match in round {match.round} (line {self.slots[slot]})"
            )
        self.slots.setdefault(slot, line)
        for player in (match.player_a, match.player_b):
            key = (match.round, player)
            if key in self.players:
                out.append(f"{player} already plays in round {match.round} (line {self.players[key]})")
            self.players.setdefault(key, line)
        return out


def round_order(matches: list[ScheduledMatch]) -> list[str]:
    """Rounds in playing order: by their earliest start, then by name (numbers numerically)."""
    first: dict[str, int] = {}
    for m in matches:
        first[m.round] = min(first.get(m.round, m.start_wall), m.start_wall)

    def key(r: str) -> tuple[int, int, str]:
        return (first[r], int(r) if r.isdigit() else 0, r)

    return sorted(first, key=key)
