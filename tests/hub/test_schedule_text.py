"""Control characters in a schedule: refused in every cell, with the line and the column named.

C0 (NUL, tab and line breaks inside quoted cells included), DEL and C1 controls have no place
in a schedule; a NUL in a name once stopped the table that had to show it. Every other
character — accents, Greek, Cyrillic, right-to-left scripts, emoji — is a name like any other.
"""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.tournament.schedule import ScheduleError, parse_schedule

COLUMNS = ["round", "table", "player_a", "player_b", "length", "start", "clock", "profile", "match_id"]
ROWS = [
    ["1", "12", "Ann", "Bob", "7", "2030-03-17T14:00Z", "yes", "wbgf-2023", "r1-12"],
    ["1", "13", "Cy", "Di", "11", "2030-03-17T14:00Z", "", "", ""],
    ["1", "14", "Eve", "Fay", "5", "2030-03-17T14:00Z", "no", "hbf", ""],
]
CONTROLS = [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)]


def csv_text(rows: list[list[str]], header: list[str] = COLUMNS) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def line_of(rows: list[list[str]], index: int) -> int:
    """The physical line on which row ``index`` ends (quoted line breaks span lines)."""
    reader = csv.reader(io.StringIO(csv_text(rows), newline=""))
    next(reader)
    for i, _ in enumerate(reader):
        if i == index:
            return reader.line_num
    raise AssertionError("no such row")


@settings(max_examples=300, deadline=None)
@given(
    row=st.integers(0, len(ROWS) - 1),
    column=st.integers(0, len(COLUMNS) - 1),
    control=st.sampled_from(CONTROLS),
    where=st.sampled_from(["start", "middle", "end", "alone"]),
)
def test_a_control_character_in_any_cell_is_refused_with_its_line(row, column, control, where):
    rows = [list(r) for r in ROWS]
    cell = rows[row][column] or "x"
    rows[row][column] = {
        "start": control + cell,
        "middle": cell[:1] + control + cell[1:],
        "end": cell + control,
        "alone": control,
    }[where]
    with pytest.raises(ScheduleError) as info:
        parse_schedule(csv_text(rows))
    message = f"line {line_of(rows, row)}: {COLUMNS[column]}: control character U+{ord(control):04X}"
    assert message in str(info.value), str(info.value)


@pytest.mark.parametrize("control", ["\x00", "\t", "\x1b", "\x7f", "\x85"])
def test_a_control_character_in_the_header_is_refused(control):
    header = list(COLUMNS)
    header[2] = "player_a" + control
    with pytest.raises(
        ScheduleError, match=f"line 1: header column 3: control character U\\+{ord(control):04X}"
    ):
        parse_schedule(csv_text(ROWS, header))


@settings(max_examples=200, deadline=None)
@given(
    a=st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40),
    b=st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40),
)
def test_every_other_character_is_a_name(a, b):
    a, b = a.strip() or "A", b.strip() or "B"
    if a == b:
        b += "2"
    (match,) = parse_schedule(csv_text([["1", "1", a, b, "7", "2030-03-17T14:00Z", "", "", ""]]))
    assert (match.player_a, match.player_b) == (a, b)


def test_names_from_the_six_languages_and_beyond_are_kept():
    names = [
        "Ζωή Παπαδοπούλου",
        "Élodie Lefèvre",
        "Любомир Петров",
        "Ødegård Åsmund",
        "Nagy Ödön",
        "محمد",
        "🎲 Dice",
    ]
    rows = [
        ["1", str(i), name, f"Opp {i}", "7", "2030-03-17T14:00Z", "", "", ""] for i, name in enumerate(names)
    ]
    assert [m.player_a for m in parse_schedule(csv_text(rows))] == names
