"""The ``hub/time`` message's schema at the table (drivers.table_link.hub_time_wall): whatever JSON
object arrives, the table gets either the hub's time as an integer within range or nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivers.table_link import hub_time_wall
from rulebook.wire import MAX_MS

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=4), JSON)
def test_anything_but_an_integer_in_range_is_refused(obj: dict[str, Any], wall: Any):
    obj = {**obj, "wall": wall}
    got = hub_time_wall(obj)
    valid = type(wall) is int and 0 <= wall <= MAX_MS
    assert got == (wall if valid else None)


OTHER_FIELDS = st.dictionaries(st.text(max_size=6).filter(lambda k: k != "wall"), JSON, max_size=4)


@given(st.integers(0, MAX_MS), OTHER_FIELDS)
def test_a_valid_time_is_taken_whatever_else_the_message_holds(wall: int, extra: dict[str, Any]):
    assert hub_time_wall({**extra, "wall": wall}) == wall


def test_the_edges():
    assert hub_time_wall({}) is None
    assert hub_time_wall({"wall": True}) is None  # a JSON boolean is not a number
    assert hub_time_wall({"wall": 1.0}) is None
    assert hub_time_wall({"wall": -1}) is None
    assert hub_time_wall({"wall": MAX_MS + 1}) is None
    assert hub_time_wall({"wall": 0}) == 0 and hub_time_wall({"wall": MAX_MS}) == MAX_MS
