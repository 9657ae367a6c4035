"""Brackets for the draw's tests: events made by hypothesis, and the checks every step of a
played-out event must pass (docs/draw.md, "Invariants"). Not a test module: the property tests
and the rolling example import it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hypothesis import strategies as st

from hub.draw import BYE, Bracket, Call, EntryFlight, Event, FedFlight, Feed, State, diff, draw_entries
from hub.draw.calls import live_calls
from hub.draw.flights import Slot, WinnerOf
from hub.draw.seeding import Entry


@st.composite
def brackets(draw: st.DrawFn, max_exp: int = 5) -> Bracket:
    """A main flight of 2 to 2**max_exp places (more than half filled, some seeds), maybe a
    consolation (fed by round 1, and maybe round 2 or 3) and a last chance fed by it."""
    k = draw(st.integers(1, max_exp))
    size = 2**k
    n = draw(st.integers(size // 2 + 1, size))
    seeded = draw(st.integers(0, min(n, 8)))
    main = EntryFlight("main", size, "wbgf-2023", (7, 9))
    flights: list[EntryFlight | FedFlight] = [main]
    if k >= 2 and draw(st.booleans()):
        feeds = [Feed("main", 1)]
        extra = draw(st.sampled_from([None, *([2] if k >= 3 else []), *([3] if k >= 4 else [])]))
        if extra is not None:
            feeds.append(Feed("main", extra))
        flights.append(FedFlight("consolation", tuple(feeds), "hbf", (5,)))
        if k >= 3 and draw(st.booleans()):
            flights.append(FedFlight("last_chance", (Feed("consolation", 1),), "hbf", (3,)))
    entries = [Entry(f"p{i}", i if i <= seeded else None) for i in range(1, n + 1)]
    drawn = draw_entries(main, entries, random_seed=draw(st.integers(0, 2**32)))
    return Bracket.build(Event(tuple(flights)), [drawn])


def check_live(bracket: Bracket, calls: Iterable[Call]) -> None:
    """No player in two live matches, no table holding two, no match called twice."""
    listed = list(calls)
    repeated = [m for m, n in Counter(c.match for c in listed).items() if n > 1]
    assert not repeated, f"called twice: {repeated}"
    live = live_calls(bracket, listed)
    tables = Counter(c.table for c in live)
    assert all(n == 1 for n in tables.values()), f"a table holds two live matches: {tables}"
    players = Counter(p for c in live for p in bracket.match(c.match).players)
    assert all(n == 1 for n in players.values()), f"a player in two live matches: {players}"


def check_fed(old: Bracket, new: Bracket, match_id: str) -> None:
    """A result feeds exactly the matches the definition names: the winner and the loser go to
    the seats it gives, and nothing changes outside what depends on this match."""
    m = new.match(match_id)
    for consumer in new.event.fed_by(match_id):
        fed = m.winner if consumer.what == "winner" else m.loser
        assert new.match(consumer.match).seats[consumer.side] == fed
    downstream = set(new.event.downstream(match_id))
    changed = {b.id for _, b in diff(old, new)}
    assert changed - {match_id} <= downstream, changed - {match_id} - downstream


def check_derived(bracket: Bracket) -> None:
    """Every seat is what its source gives: the draw's position, or a decided match's winner or
    loser; an undecided source leaves it unknown. Built again from scratch, it is the same."""
    positions = {d.flight: d.positions for d in bracket.draws}
    for m in bracket.matches():
        for seat, source in zip(m.seats, m.match.sources, strict=True):
            if isinstance(source, Slot):
                player = positions[m.match.flight][source.position - 1]
                assert seat == (BYE if player is None else player)
            else:
                above = bracket.match(source.match)
                assert seat == (above.winner if isinstance(source, WinnerOf) else above.loser)
        if m.state is State.PLAYED:
            assert m.result is not None and m.winner in m.players
    scratch = Bracket.build(bracket.event, bracket.draws, bracket.results, bracket.withdrawals)
    assert scratch == bracket and scratch.matches() == bracket.matches()
