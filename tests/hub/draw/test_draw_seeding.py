"""A flight's draw: seeds where the standard seeding puts them, byes to the top, the rest drawn
reproducibly by the recorded seed; a drawn bracket read from CSV."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.draw import (
    DrawError,
    Entry,
    EntryFlight,
    Event,
    FedFlight,
    Feed,
    draw_csv,
    draw_entries,
    read_draw_csv,
)
from hub.draw.seeding import Draw, seeding_order

MAIN = EntryFlight("main", 32, "wbgf-2023", (7,))


def entries(n: int, seeded: int = 0) -> list[Entry]:
    return [Entry(f"p{i:02}", i if i <= seeded else None) for i in range(1, n + 1)]


def test_the_standard_seeding_order():
    assert seeding_order(2) == (1, 2)
    assert seeding_order(8) == (1, 8, 5, 4, 3, 6, 7, 2)
    order = seeding_order(32)
    assert sorted(order) == list(range(1, 33))
    assert all(order[i] + order[i + 1] == 33 for i in range(0, 32, 2))
    assert order[0] == 1 and order[-1] == 2


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_when_seeds_win_every_round_pairs_the_strongest_left_with_the_weakest(size):
    """Seeds 1 and 2 meet in the final only, 1 meets 4 and 2 meets 3 in the semi-finals, …"""
    left = list(seeding_order(size))
    while len(left) > 1:
        pairs = [(left[i], left[i + 1]) for i in range(0, len(left), 2)]
        assert all(a + b == len(left) + 1 for a, b in pairs)
        left = [min(pair) for pair in pairs]


def test_29_entries_in_32_give_the_three_top_seeds_a_bye():
    draw = draw_entries(MAIN, entries(29, seeded=8), random_seed=2026)
    assert draw.positions[0] == "p01" and draw.positions[1] is None
    assert draw.positions[31] == "p02" and draw.positions[30] is None
    assert draw.positions.count(None) == 3
    three = draw.positions[seeding_order(32).index(3)]
    assert three == "p03" and draw.seeds == tuple(f"p{i:02}" for i in range(1, 9))
    assert sorted(draw.players) == sorted(e.player for e in entries(29))


def test_without_seeds_the_byes_still_stand_where_seeds_30_to_32_would():
    draw = draw_entries(MAIN, entries(29), random_seed=7)
    byes = {i + 1 for i, p in enumerate(draw.positions) if p is None}
    assert byes == {seeding_order(32).index(s) + 1 for s in (30, 31, 32)}


def test_the_same_entries_and_seed_give_the_same_draw_in_any_order():
    a = draw_entries(MAIN, entries(29, seeded=4), random_seed=99)
    b = draw_entries(MAIN, list(reversed(entries(29, seeded=4))), random_seed=99)
    c = draw_entries(MAIN, entries(29, seeded=4), random_seed=100)
    assert a == b and a.random_seed == 99
    assert a != c


def test_a_drawn_order_recorded_today_is_the_order_tomorrow():
    """The seeded shuffle is part of the contract: this draw must never change."""
    draw = draw_entries(EntryFlight("main", 8, "wbgf-2023", (7,)), entries(6, seeded=2), random_seed=1)
    assert draw.positions == ("p01", None, "p06", "p03", "p05", "p04", None, "p02")


@given(
    size_exp=st.integers(1, 6),
    data=st.data(),
)
def test_every_entry_once_and_every_seed_where_the_order_puts_it(size_exp, data):
    size = 2**size_exp
    n = data.draw(st.integers(size // 2 + 1, size))
    seeded = data.draw(st.integers(0, n))
    flight = EntryFlight("main", size, "wbgf-2023", (7,))
    draw = draw_entries(flight, entries(n, seeded), data.draw(st.integers(0, 2**32)))
    assert sorted(draw.players) == sorted(e.player for e in entries(n))
    order = seeding_order(size)
    for s in range(1, seeded + 1):
        assert draw.positions[order.index(s)] == f"p{s:02}"
    # a bye never meets a bye, so every round-1 pair has a player
    assert all(draw.positions[i] or draw.positions[i + 1] for i in range(0, size, 2))
    # written as CSV and read back: the same positions and seeds
    (back,) = read_draw_csv(draw_csv([draw]), Event((flight,)))
    assert (back.positions, back.seeds) == (draw.positions, draw.seeds)


@pytest.mark.parametrize(
    ("given_entries", "code"),
    [
        ([Entry("a")], "draw.entries.count"),
        ([Entry(f"p{i}") for i in range(16)], "draw.entries.count"),
        ([Entry(f"p{i}") for i in range(33)], "draw.entries.count"),
        ([Entry("a"), Entry("a")], "draw.entries.repeated"),
        ([Entry("a"), Entry(" b")], "draw.entries.player"),
        ([Entry("a", 1), Entry("b", 3)], "draw.entries.seeds"),
        ([Entry("a", 1), Entry("b", 1)], "draw.entries.seeds"),
    ],
)
def test_a_bad_entry_list_is_refused(given_entries, code):
    with pytest.raises(DrawError) as caught:
        flight = MAIN if len(given_entries) > 2 else EntryFlight("final", 2, "hbf", (11,))
        draw_entries(flight, given_entries, random_seed=1)
    assert caught.value.code == code


EVENT = Event(
    (EntryFlight("main", 8, "wbgf-2023", (7,)), FedFlight("consolation", (Feed("main", 1),), "hbf", (5,)))
)


def test_a_drawn_bracket_read_from_csv():
    text = (
        "\ufeffFlight,Position,Player,Seed\n"
        "main,1,p1,1\nmain,3,p3,\nmain,4,p4,\nmain,5,p5\nmain,6,,\nmain,7,p7\nmain,8,p2,2\n"
    )
    (draw,) = read_draw_csv(text, EVENT)
    assert draw == Draw("main", ("p1", None, "p3", "p4", "p5", None, "p7", "p2"), None, ("p1", "p2"))


def test_a_draw_written_as_csv_reads_back_the_same():
    flight = EntryFlight("main", 8, "wbgf-2023", (7,))
    draw = draw_entries(flight, entries(6, seeded=2), random_seed=5)
    (back,) = read_draw_csv(draw_csv([draw]), EVENT)
    assert back.positions == draw.positions and back.seeds == draw.seeds and back.random_seed is None


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("flight,player\nmain,p1\n", "draw.csv.columns", None),
        ("flight,position,player\nmain,9,p1\n", "draw.csv.position", 2),
        ("flight,position,player\nmain,x,p1\n", "draw.csv.position", 2),
        ("flight,position,player\nmain,1,p1\nmain,1,p2\n", "draw.csv.repeated", 3),
        ("flight,position,player\nconsolation,1,p1\n", "draw.draw.flight", None),
        ("flight,position,player\nside,1,p1\n", "draw.flight.unknown", None),
        ("flight,position,player,seed\nmain,1,p1,0\n", "draw.csv.seed", 2),
        ("flight,position,player,seed\nmain,1,p1,2\n", "draw.entries.seeds", None),
    ],
)
def test_a_bad_drawn_bracket_names_its_line(text, code, line):
    with pytest.raises(DrawError) as caught:
        read_draw_csv(text, EVENT)
    assert caught.value.code == code
    assert caught.value.params.get("line") == line
