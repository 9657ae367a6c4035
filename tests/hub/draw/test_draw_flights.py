"""Flights as a value: the matches a definition makes, and where every result goes."""

from __future__ import annotations

import pytest

from hub.draw import DrawError, EntryFlight, Event, FedFlight, Feed
from hub.draw.flights import Consumer, LoserOf, Slot, WinnerOf
from rulebook import PROFILES


def main(size: int = 32) -> EntryFlight:
    return EntryFlight("main", size, "wbgf-2023", (7, 7, 9, 11, 13))


def test_an_entry_flight_pairs_positions_then_winners():
    event = Event((main(),))
    assert [len(event.round_matches("main", r)) for r in range(1, 6)] == [16, 8, 4, 2, 1]
    first = event.match("main-r1-m1")
    assert first.sources == (Slot(1), Slot(2)) and first.length == 7
    assert event.match("main-r2-m3").sources == (WinnerOf("main-r1-m5"), WinnerOf("main-r1-m6"))
    final = event.match("main-r5-m1")
    assert final.length == 13 and event.fed_by(final.id) == ()


def test_the_last_length_holds_for_the_rounds_after_it():
    event = Event((EntryFlight("main", 16, "wbgf-2023", (5, 9)),))
    assert [event.round_matches("main", r)[0].length for r in (1, 2, 3, 4)] == [5, 9, 9, 9]


def test_a_consolation_fed_by_round_1_and_round_2_losers():
    """Round 1 pairs the main's round-1 losers in order; round 2 meets the round-2 losers in
    reverse order, so nobody meets at once the player who just beat his new opponent."""
    cons = FedFlight("consolation", (Feed("main", 1), Feed("main", 2)), "wbgf-2023", (5,))
    event = Event((main(), cons))
    assert [len(event.round_matches("consolation", r)) for r in range(1, 6)] == [8, 8, 4, 2, 1]
    assert event.match("consolation-r1-m1").sources == (LoserOf("main-r1-m1"), LoserOf("main-r1-m2"))
    assert event.match("consolation-r2-m1").sources == (WinnerOf("consolation-r1-m1"), LoserOf("main-r2-m8"))
    assert event.match("consolation-r2-m8").sources == (WinnerOf("consolation-r1-m8"), LoserOf("main-r2-m1"))
    assert event.fed_by("main-r1-m1") == (
        Consumer("main-r2-m1", 0, "winner"),
        Consumer("consolation-r1-m1", 0, "loser"),
    )
    assert event.fed_by("main-r3-m1") == (Consumer("main-r4-m1", 0, "winner"),)


def test_a_later_feed_waits_for_the_round_where_the_numbers_meet():
    """The main's round-3 losers (4) enter once 8 consolation winners have become 4."""
    cons = FedFlight("consolation", (Feed("main", 1), Feed("main", 3)), "wbgf-2023", (5,))
    event = Event((main(), cons))
    assert [len(event.round_matches("consolation", r)) for r in range(1, 5)] == [8, 4, 4, 2]
    assert event.match("consolation-r3-m1").sources == (WinnerOf("consolation-r2-m1"), LoserOf("main-r3-m4"))


def test_a_last_chance_fed_by_the_consolation():
    cons = FedFlight("consolation", (Feed("main", 1),), "wbgf-2023", (5,))
    last = FedFlight("last_chance", (Feed("consolation", 1),), "hbf", (3,))
    event = Event((main(), cons, last))
    assert event.match("last_chance-r1-m1").sources == (
        LoserOf("consolation-r1-m1"),
        LoserOf("consolation-r1-m2"),
    )
    assert event.rounds("last_chance") == 3
    assert set(event.downstream("main-r1-m1")) >= {
        "consolation-r1-m1",
        "last_chance-r1-m1",
        "last_chance-r2-m1",
    }


@pytest.mark.parametrize(
    ("flights", "code"),
    [
        ((EntryFlight("main", 24, "wbgf-2023", (7,)),), "draw.flight.size"),
        ((EntryFlight("main", 1, "wbgf-2023", (7,)),), "draw.flight.size"),
        ((EntryFlight("main-a", 8, "wbgf-2023", (7,)),), "draw.flight.name"),
        ((EntryFlight("main", 8, "wbgf-2023", ()),), "draw.flight.lengths"),
        ((EntryFlight("main", 8, "wbgf-2023", (0,)),), "draw.flight.lengths"),
        (
            (EntryFlight("main", 8, "wbgf-2023", (7,)), EntryFlight("main", 8, "wbgf-2023", (7,))),
            "draw.flight.repeated",
        ),
        ((FedFlight("consolation", (Feed("main", 1),), "wbgf-2023", (5,)),), "draw.feed.source"),
        (
            (EntryFlight("main", 8, "wbgf-2023", (7,)), FedFlight("c", (), "wbgf-2023", (5,))),
            "draw.flight.no_feeds",
        ),
        (
            (
                EntryFlight("main", 8, "wbgf-2023", (7,)),
                FedFlight("c", (Feed("main", 4),), "wbgf-2023", (5,)),
            ),
            "draw.feed.round",
        ),
        (
            (
                EntryFlight("main", 8, "wbgf-2023", (7,)),
                FedFlight("c", (Feed("main", 3),), "wbgf-2023", (5,)),
            ),
            "draw.feed.first",
        ),
        (
            (
                EntryFlight("main", 8, "wbgf-2023", (7,)),
                FedFlight("c", (Feed("main", 1), Feed("main", 1)), "wbgf-2023", (5,)),
            ),
            "draw.feed.repeated",
        ),
        (
            # 2 round-1 winners cannot meet 4 round-1 losers of another flight
            (
                EntryFlight("main", 8, "wbgf-2023", (7,)),
                EntryFlight("side", 16, "wbgf-2023", (7,)),
                FedFlight("c", (Feed("main", 1), Feed("side", 1)), "wbgf-2023", (5,)),
            ),
            "draw.feed.count",
        ),
    ],
)
def test_a_bad_definition_is_refused_with_its_code(flights, code):
    with pytest.raises(DrawError) as caught:
        Event(flights)
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)
    assert "{" not in caught.value.message


def test_each_flight_names_a_profile_the_hub_knows():
    event = Event((main(), FedFlight("consolation", (Feed("main", 1),), "nope", (5,))))
    with pytest.raises(DrawError) as caught:
        event.check_profiles(PROFILES)
    assert caught.value.code == "draw.profile.unknown" and caught.value.params["flight"] == "consolation"
    Event((main(),)).check_profiles(PROFILES)


def test_an_unknown_match_or_flight_is_refused():
    event = Event((main(8),))
    with pytest.raises(DrawError, match="no match"):
        event.match("main-r9-m1")
    with pytest.raises(DrawError, match="no flight"):
        event.flight("consolation")
