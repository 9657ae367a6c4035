"""SeqTracker: duplicates and gaps per (table, match_id), whatever the delivery order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.hub_link import Accepted, SeqTracker


def test_in_order_stream_is_all_new():
    tr = SeqTracker()
    assert [tr.accept("1", "m", s).kind for s in range(1, 6)] == ["new"] * 5
    assert tr.contiguous("1", "m") == 5
    assert tr.holes("1", "m") == []


def test_repeats_are_duplicates():
    tr = SeqTracker()
    tr.accept("1", "m", 1)
    tr.accept("1", "m", 2)
    assert tr.accept("1", "m", 2) == Accepted("duplicate", range(0))
    assert tr.accept("1", "m", 1).kind == "duplicate"
    assert tr.accept("1", "m", 0).kind == "duplicate"  # below the first seq: nothing new


def test_a_gap_is_reported_once_with_its_range_and_filled_later():
    tr = SeqTracker()
    tr.accept("1", "m", 1)
    assert tr.accept("1", "m", 5) == Accepted("gap", range(2, 5))
    assert tr.accept("1", "m", 6).kind == "new"
    assert tr.holes("1", "m") == [range(2, 5)]
    assert tr.accept("1", "m", 3).kind == "new"  # fills part of the hole
    assert tr.holes("1", "m") == [range(2, 3), range(4, 5)]
    assert tr.accept("1", "m", 5).kind == "duplicate"
    assert tr.accept("1", "m", 2).kind == "new"
    assert tr.contiguous("1", "m") == 3
    assert tr.accept("1", "m", 4).kind == "new"
    assert tr.contiguous("1", "m") == 6 and tr.holes("1", "m") == []


def test_first_event_seen_late_is_a_gap_from_the_start():
    tr = SeqTracker()
    assert tr.accept("9", "r1", 57) == Accepted("gap", range(1, 57))


def test_tables_and_matches_are_independent():
    tr = SeqTracker()
    assert tr.accept("1", "m", 1).kind == "new"
    assert tr.accept("2", "m", 1).kind == "new"
    assert tr.accept("1", "other", 1).kind == "new"
    assert tr.accept("1", None, 1).kind == "new"
    assert tr.accept("1", "m", 1).kind == "duplicate"
    tr.forget_match("1", "m")
    assert tr.accept("1", "m", 1).kind == "new"
    tr.forget("1")
    assert tr.contiguous("1", "other") == 0 and tr.contiguous("2", "m") == 1


def test_restore_from_the_hubs_store():
    tr = SeqTracker()
    tr.restore("1", "m", 10, seen=(12, 13))
    assert tr.accept("1", "m", 10).kind == "duplicate"
    assert tr.accept("1", "m", 12).kind == "duplicate"
    assert tr.holes("1", "m") == [range(11, 12)]
    assert tr.accept("1", "m", 11).kind == "new"
    assert tr.contiguous("1", "m") == 13
    assert tr.accept("1", "m", 15) == Accepted("gap", range(14, 15))


@st.composite
def deliveries(draw) -> tuple[int, list[int]]:
    """1..n delivered in any order, some more than once, some maybe not at all."""
    n = draw(st.integers(min_value=0, max_value=40))
    kept = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    seqs = [s for s, keep in zip(range(1, n + 1), kept, strict=True) if keep]
    dups = draw(st.lists(st.sampled_from(seqs), max_size=20)) if seqs else []
    order = draw(st.permutations(seqs + dups))
    return n, list(order)


@settings(max_examples=300, deadline=None)
@given(deliveries())
def test_each_seq_is_new_once_and_every_missing_one_is_reported(case):
    _, order = case
    tr = SeqTracker()
    new: list[int] = []
    reported_missing: list[int] = []
    for seq in order:
        kind, missing = tr.accept("t", "m", seq)
        if kind in ("new", "gap"):
            new.append(seq)
        if kind == "gap":
            assert len(missing) > 0 and missing.stop == seq
            reported_missing.extend(missing)
        else:
            assert len(missing) == 0
    delivered = set(order)
    # exactly one new verdict per distinct seq, however often and in whatever order it came
    assert sorted(new) == sorted(delivered)
    # every seq below the highest was either delivered in time or reported missing (once)
    assert len(reported_missing) == len(set(reported_missing))
    top = max(delivered, default=0)
    for s in range(1, top + 1):
        assert s in delivered or s in reported_missing
    # the holes left are exactly the seqs never delivered below the top
    left = [s for r in tr.holes("t", "m") for s in r]
    assert left == [s for s in range(1, top + 1) if s not in delivered]
    expected_contiguous = next((s - 1 for s in range(1, top + 2) if s not in delivered), top)
    assert tr.contiguous("t", "m") == expected_contiguous
