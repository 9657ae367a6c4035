"""Rolling calls, played as a TD's day: a 32-place main flight with 29 entries (3 byes) and a
consolation fed by its round-1 losers, on 8 tables, with a scripted order of results; then the
TD's settings (verification, preferred tables, a player kept at his table, holds) and an undone
result whose call the hub must withdraw."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from hub.draw import (
    Bracket,
    Call,
    CallSettings,
    DrawError,
    EntryFlight,
    Event,
    FedFlight,
    Feed,
    Holds,
    State,
    TableState,
    Wait,
    WaitKind,
    call_changes,
    draw_entries,
    moved_call,
    plan_calls,
    queue,
    swapped_calls,
    waits,
)
from hub.draw.calls import live_calls
from hub.draw.seeding import Entry
from tests.hub.draw.draw_play import check_derived, check_live

MINUTE = 60_000
MAIN = EntryFlight("main", 32, "wbgf-2023", (7, 7, 9, 11, 13))
CONSOLATION = FedFlight("consolation", (Feed("main", 1),), "wbgf-2023", (5, 5, 7, 9))
EVENT = Event((MAIN, CONSOLATION))
ENTRIES = [Entry(f"p{i:02}", i if i <= 8 else None) for i in range(1, 30)]
DRAW = draw_entries(MAIN, ENTRIES, random_seed=2026)
TABLES = [TableState(str(t)) for t in range(1, 9)]


@dataclass
class Room:
    """The hub's side of calls, as its wiring will keep them: the bracket, the calls made, the time."""

    settings: CallSettings = field(
        default_factory=lambda: CallSettings(grace_ms=5 * MINUTE, needs_verified=False)
    )
    holds: Holds = field(default_factory=Holds)
    tables: list[TableState] = field(default_factory=lambda: list(TABLES))
    bracket: Bracket = field(default_factory=lambda: Bracket.build(EVENT, [DRAW]))
    calls: list[Call] = field(default_factory=list)
    now: int = 0

    def call(self) -> list[tuple[str, str]]:
        new = plan_calls(self.bracket, self.calls, self.tables, self.settings, self.holds, self.now)
        self.calls.extend(new)
        check_live(self.bracket, self.calls)
        return [(c.match, c.table) for c in new]

    def at_table(self, table: str) -> Call:
        (call,) = [c for c in live_calls(self.bracket, self.calls) if c.table == table]
        return call

    def finish(self, table: str, minutes: int, winner: int = 0) -> str:
        """The match at ``table`` ends ``minutes`` later, won by its seat ``winner``."""
        self.now += minutes * MINUTE
        call = self.at_table(table)
        m = self.bracket.match(call.match)
        self.bracket = self.bracket.with_result(call.match, m.players[winner], at=self.now)
        return call.match


def test_the_first_calls_fill_every_table_and_the_byes_are_never_called():
    room = Room()
    assert [m.id for m in room.bracket.matches() if m.state is State.BYE] == [
        "main-r1-m1",
        "main-r1-m9",
        "main-r1-m16",
    ]
    assert DRAW.positions[0] == "p01" and DRAW.positions[16] == "p03" and DRAW.positions[31] == "p02"
    assert room.call() == [
        ("main-r1-m2", "1"),
        ("main-r1-m3", "2"),
        ("main-r1-m4", "3"),
        ("main-r1-m5", "4"),
        ("main-r1-m6", "5"),
        ("main-r1-m7", "6"),
        ("main-r1-m8", "7"),
        ("main-r1-m10", "8"),
    ]
    assert {(c.called_at, c.start) for c in room.calls} == {(0, 5 * MINUTE)}
    # nothing more until a table frees up
    assert room.call() == []
    assert [m.id for m in queue(room.bracket, room.calls, room.settings, room.holds)] == [
        "main-r1-m11",
        "main-r1-m12",
        "main-r1-m13",
        "main-r1-m14",
        "main-r1-m15",
    ]


def test_each_table_that_frees_up_gets_the_match_waiting_longest():
    """Round 1 first; then whoever has waited longest: the winners' round-2 matches and the
    round-1 losers' consolation matches, as their second player comes free."""
    room = Room()
    room.call()
    script = [
        # (table that finishes, minutes later) -> the call it gets
        (("3", 40), [("main-r1-m11", "3")]),
        (("1", 5), [("main-r1-m12", "1")]),
        (("5", 5), [("main-r1-m13", "5")]),
        (("2", 5), [("main-r1-m14", "2")]),
        (("8", 5), [("main-r1-m15", "8")]),
        # p01 (bye) waits since the start, the winner of m2 since 45 minutes: round 2 opens
        (("4", 5), [("main-r2-m1", "4")]),
        (("7", 5), [("main-r2-m2", "7")]),
        # the losers of m3 (at 55) and m4 (at 40) have waited longer than main-r2-m5's players
        (("6", 5), [("consolation-r1-m2", "6")]),
        (("3", 5), [("main-r2-m5", "3")]),
    ]
    for (table, minutes), expected in script:
        room.finish(table, minutes)
        assert room.call() == expected, (table, room.now // MINUTE)


def test_the_whole_event_played_out_calls_every_match_once_and_leaves_no_table_idle():
    room = Room()
    room.call()
    order = ["3", "1", "5", "2", "8", "4", "7", "6"]
    step = 0
    while live_calls(room.bracket, room.calls):
        busy = {c.table for c in live_calls(room.bracket, room.calls)}
        table = next(t for t in order[step % 8 :] + order[: step % 8] if t in busy)
        step += 1
        room.finish(table, 10)
        for match, at in room.call():
            # a call goes to the table just freed, or to one that was idle already
            assert at == table or at not in busy, (match, at)
        free = {t.name for t in TABLES} - {c.table for c in live_calls(room.bracket, room.calls)}
        assert not (free and queue(room.bracket, room.calls, room.settings, room.holds)), "a table idles"
    assert room.bracket.is_complete()
    check_derived(room.bracket)
    played = [m.id for m in room.bracket.matches() if m.state is State.PLAYED]
    # 13 in main round 1 (3 byes), 15 after; the consolation: 5 in round 1 (the byes' losers are
    # byes), then 4, 2, 1
    assert len(played) == 13 + 15 + 5 + 4 + 2 + 1
    assert sorted(c.match for c in room.calls) == sorted(played)
    champion = room.bracket.match("main-r5-m1").winner
    assert champion == "p01"


SMALL_MAIN = EntryFlight("main", 4, "hbf", (5,))
SMALL_SIDE = EntryFlight("side", 2, "hbf", (3,))
SMALL = Event((SMALL_MAIN, SMALL_SIDE))
SMALL_DRAWS = [
    draw_entries(SMALL_MAIN, [Entry("a"), Entry("b"), Entry("c"), Entry("d")], random_seed=1),
    draw_entries(SMALL_SIDE, [Entry("a"), Entry("e")], random_seed=1),
]


def small_room(needs_verified: bool) -> Room:
    return Room(
        settings=CallSettings(grace_ms=2 * MINUTE, needs_verified=needs_verified),
        tables=[TableState("1"), TableState("2"), TableState("3")],
        bracket=Bracket.build(SMALL, SMALL_DRAWS),
    )


def test_a_player_in_two_flights_plays_one_match_at_a_time():
    room = small_room(needs_verified=False)
    assert room.call() == [("main-r1-m1", "1"), ("main-r1-m2", "2")]
    a_plays = next(c.match for c in room.calls if "a" in room.bracket.match(c.match).players)
    assert waits(room.bracket, room.calls, room.settings, room.holds, "side-r1-m1") == (
        Wait(WaitKind.PLAYING, a_plays, "a"),
    )
    room.finish(room.calls[0].table if a_plays == room.calls[0].match else room.calls[1].table, 20)
    assert room.call() == [("side-r1-m1", "1" if a_plays == "main-r1-m1" else "2")]


def test_with_verification_the_next_match_waits_for_the_td():
    room = small_room(needs_verified=True)
    room.bracket = Bracket.build(
        SMALL, [SMALL_DRAWS[0], draw_entries(SMALL.flights[1], [Entry("x"), Entry("e")], 1)]
    )  # type: ignore[arg-type]
    room.call()
    room.finish("1", 30)
    room.finish("2", 2)
    assert room.call() == []
    final = room.bracket.match("main-r2-m1")
    assert final.is_ready()
    first, second = (room.bracket.match("main-r1-m1").winner, room.bracket.match("main-r1-m2").winner)
    assert waits(room.bracket, room.calls, room.settings, room.holds, "main-r2-m1") == (
        Wait(WaitKind.VERIFICATION, "main-r1-m1", first),
        Wait(WaitKind.VERIFICATION, "main-r1-m2", second),
    )
    room.now += MINUTE
    room.bracket = room.bracket.verified("main-r1-m1", room.now)
    assert room.call() == []
    room.now += MINUTE
    room.bracket = room.bracket.verified("main-r1-m2", room.now)
    assert room.call() == [("main-r2-m1", "1")]
    assert room.calls[-1].start == room.now + 2 * MINUTE
    # only confirmed is enough when the TD says so
    quick = small_room(needs_verified=False)
    quick.bracket = room.bracket.undone("main-r1-m1").with_result("main-r1-m1", first, at=0)
    quick.calls = [c for c in room.calls if c.match != "main-r2-m1"]
    assert quick.call() == [("main-r2-m1", "1")]


def test_waits_name_the_results_and_the_players_a_match_waits_for():
    room = Room()
    room.call()
    m = room.bracket.match("main-r2-m2")
    assert m.seats == (None, None)
    assert waits(room.bracket, room.calls, room.settings, room.holds, "main-r2-m2") == (
        Wait(WaitKind.RESULT, "main-r1-m3"),
        Wait(WaitKind.RESULT, "main-r1-m4"),
    )
    room.finish("3", 30)  # main-r1-m4: its winner now waits for main-r1-m3, still played at table 2
    winner = room.bracket.match("main-r1-m4").winner
    assert waits(room.bracket, room.calls, room.settings, room.holds, "main-r2-m2") == (
        Wait(WaitKind.RESULT, "main-r1-m3"),
    )
    assert room.bracket.match("main-r2-m2").seats == (None, winner)


def test_preferred_tables_per_flight_and_a_player_kept_at_his_table():
    prefer = (("consolation", ("8", "7")), ("main", ("2", "1")))
    room = Room(settings=CallSettings(grace_ms=0, needs_verified=False, prefer=prefer))
    first = room.call()
    assert first[:2] == [("main-r1-m2", "2"), ("main-r1-m3", "1")]
    # the rest of the room, 2 before 10 (named tables after numbered ones)
    assert [t for _, t in first[2:]] == ["3", "4", "5", "6", "7", "8"]

    kept = Room(settings=CallSettings(grace_ms=0, needs_verified=False, keep_player_table=True))
    kept.call()
    for table in ("1", "2", "3", "4", "5", "6", "7", "8"):
        kept.finish(table, 1)
    kept.call()
    # p01 (a bye) meets the winner of main-r1-m2, who played at table 1: they play there
    assert kept.at_table("1").match == "main-r2-m1"


def test_a_held_flight_or_call_waits_and_the_rest_goes_on():
    room = Room(holds=Holds(flights=frozenset({"consolation"}), matches=frozenset({"main-r1-m2"})))
    assert ("main-r1-m2", "1") not in room.call()
    assert waits(room.bracket, room.calls, room.settings, room.holds, "main-r1-m2") == (
        Wait(WaitKind.HELD, "main-r1-m2"),
    )
    for table in ("1", "2", "3", "4", "5", "6", "7", "8"):
        room.finish(table, 1)
        room.call()
    assert not any(c.match.startswith("consolation") for c in room.calls)
    room.holds = Holds()
    assert queue(room.bracket, room.calls, room.settings, room.holds)[0].id == "main-r1-m2"
    room.finish(room.calls[-1].table, 1)
    assert room.call()[0] == ("main-r1-m2", room.calls[-1].table)


def test_an_undone_result_voids_the_call_built_on_it_and_the_match_is_called_again():
    room = Room()
    room.call()
    room.finish("1", 30)  # main-r1-m2: its winner meets p01 (a bye) in main-r2-m1
    assert room.call() == [("main-r1-m11", "1")]
    for table in ("2", "3", "4", "5", "6", "7", "8"):
        room.finish(table, 1)
        room.call()
    r2 = room.at_table(next(c.table for c in room.calls if c.match == "main-r2-m1"))
    wrong = room.bracket.match("main-r1-m2")
    before = room.bracket
    room.bracket = before.corrected("main-r1-m2", wrong.loser, at=wrong.result.at)
    changes = call_changes(before, room.bracket, room.calls)
    assert [c.after.id for c in changes] == [
        "main-r1-m2",
        "main-r2-m1",
        "consolation-r1-m1",
        "consolation-r2-m1",
    ]
    voided = [c.call for c in changes if c.voids_call()]
    assert voided == [r2]
    # the hub withdraws it; the planner calls the match again, now with the right player
    room.calls.remove(r2)
    again = room.call()
    assert ("main-r2-m1", r2.table) in again
    assert wrong.loser in room.bracket.match("main-r2-m1").players
    # and the corrected bracket is the one built from scratch with the right result
    check_derived(room.bracket)


def test_the_td_moves_a_call_to_a_free_table_or_swaps_two():
    room = Room(tables=[*TABLES, TableState("9"), TableState("10", is_free=False)])
    room.call()
    # table 9 stays free: 13 matches ready, 9 tables in service
    assert len(room.calls) == 9
    room.finish("9", 1)
    assert room.call() == [("main-r1-m12", "9")]
    with pytest.raises(DrawError) as caught:
        moved_call(room.bracket, room.calls, room.tables, "main-r1-m2", "9")
    assert (caught.value.code, caught.value.params["match"]) == ("draw.call.table_busy", "main-r1-m12")
    with pytest.raises(DrawError) as caught:
        moved_call(room.bracket, room.calls, room.tables, "main-r1-m2", "10")
    assert caught.value.code == "draw.call.table_busy"
    with pytest.raises(DrawError) as caught:
        moved_call(room.bracket, room.calls, room.tables, "main-r1-m2", "11")
    assert caught.value.code == "draw.call.table_unknown"
    with pytest.raises(DrawError) as caught:
        moved_call(room.bracket, room.calls, room.tables, "main-r1-m11", "1")
    assert caught.value.code == "draw.call.none"

    room.finish("3", 1)  # main-r1-m4 ends: table 3 takes the next match
    assert room.call() == [("main-r1-m13", "3")]
    room.finish("3", 1)  # and that one ends too: before the next call, the TD moves a match there
    moved = moved_call(room.bracket, room.calls, room.tables, "main-r1-m2", "3")
    assert [c.table for c in moved if c.match == "main-r1-m2"] == ["3"]
    check_live(room.bracket, moved)
    swapped = swapped_calls(room.bracket, moved, "main-r1-m2", "main-r1-m3")
    assert {c.match: c.table for c in swapped if c.match in {"main-r1-m2", "main-r1-m3"}} == {
        "main-r1-m2": "2",
        "main-r1-m3": "3",
    }
    check_live(room.bracket, swapped)
    assert moved_call(room.bracket, moved, room.tables, "main-r1-m2", "3") == moved


def test_planning_twice_at_the_same_moment_gives_the_same_calls_and_ids():
    room = Room()
    first = plan_calls(room.bracket, [], room.tables, room.settings, room.holds, 0)
    again = plan_calls(room.bracket, [], room.tables, room.settings, room.holds, 0)
    assert first == again
    assert first[0].id == "call:main-r1-m2:0"
    assert len({c.id for c in first}) == len(first)
