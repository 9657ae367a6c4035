"""The hub's per-table deadlines (pure): the heap hands out each table once its moment has come,
a deadline set again replaces the old one; and the moment a playing match's projected finish
passes the next round's start is exactly when the slow-match alert would appear if the hub
looked every second."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.live.deadlines import Deadlines
from hub.logic.conditions import projected_finish, slow_from


def test_due_hands_out_the_tables_whose_moment_has_come_once():
    d = Deadlines()
    d.put("1", 1_000)
    d.put("2", 2_000)
    d.put("3", 3_000)
    assert d.due(999) == set()
    assert d.due(2_000) == {"1", "2"}
    assert d.due(2_500) == set()  # handed out once
    assert len(d) == 1 and d.when("3") == 3_000


def test_a_deadline_set_again_replaces_the_old_one():
    d = Deadlines()
    d.put("1", 5_000)
    d.put("1", 1_000)  # earlier: a message changed the table
    assert d.due(1_000) == {"1"}
    d.put("2", 1_000)
    d.put("2", 9_000)  # later: the old entry must not fire
    assert d.due(5_000) == set()
    d.put("3", 1_000)
    d.put("3", None)  # nothing due by time any more
    assert d.due(10_000) == {"2"}
    assert len(d) == 0


def test_many_replaced_deadlines_keep_the_heap_small():
    d = Deadlines()
    for i in range(20_000):
        d.put("1", 10_000 + i)
    assert len(d._heap) < 2_000
    assert d.due(10_000 + 19_999) == {"1"}


def playing(points_played: int, score: tuple[int, int], reserve: tuple[int, int] | None) -> dict:
    reserves = {"A": reserve[0], "B": reserve[1]} if reserve else None
    clock = {"enabled": reserve is not None, "reserve_ms": reserves}
    return {
        "length": 11,
        "score": {"A": score[0], "B": score[1]},
        "games": [{"points": 1}] * points_played,
        "clock": clock,
    }


@settings(max_examples=300, deadline=None)
@given(
    played=st.integers(0, 10),
    a=st.integers(0, 10),
    b=st.integers(0, 10),
    reserve=st.one_of(st.none(), st.tuples(st.integers(0, 3_600_000), st.integers(0, 3_600_000))),
    round_end=st.integers(60_000, 4 * 3_600_000),
    now=st.integers(1, 4 * 3_600_000),
)
def test_slow_from_is_when_the_projected_finish_first_passes_the_round_end(
    played, a, b, reserve, round_end, now
):
    state = playing(played, (a, b), reserve)
    start = 0
    at = slow_from(state, now, start, 11, round_end)

    def slow(t: int) -> bool:
        finish = projected_finish(state, t, start, 11)
        return finish is not None and finish > round_end

    if at is None:  # not before the round's end (a deadline of its own), or no point played yet
        for t in (now + 1, (now + round_end) // 2, round_end - 1):
            if now < t < round_end:
                assert not slow(t)
        return
    assert now < at < round_end
    assert slow(at)
    if at - 1 > now:
        assert not slow(at - 2)  # a millisecond's rounding aside, not before
