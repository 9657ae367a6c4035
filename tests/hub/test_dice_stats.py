"""Dice fairness statistics: the χ² tail against closed forms, and the verdicts against seeded
fair and biased dice (the thresholds' false-alarm rate and power, as docs/dice-fairness.md says)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.logic.dice_stats import (
    MIN_ROLLS,
    DiceTally,
    Verdict,
    assess,
    chi2_sf,
    chi_square,
    tally,
)

dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


def _even_df_sf(x: float, df: int) -> float:
    """Closed form for even degrees of freedom: e^(-x/2) Σ_{i<k} (x/2)^i / i!, k = df/2."""
    half = x / 2
    return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))


@given(st.floats(0.001, 200), st.sampled_from([2, 4, 6, 10, 20]))
def test_chi2_tail_matches_the_closed_form_for_even_degrees(x: float, df: int) -> None:
    assert chi2_sf(x, df) == pytest.approx(_even_df_sf(x, df), rel=1e-9, abs=1e-300)


@given(st.floats(0.001, 100))
def test_chi2_tail_with_one_degree_is_the_normal_tail(x: float) -> None:
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)


@given(st.floats(0, 300), st.floats(0, 300), st.integers(1, 12))
def test_chi2_tail_is_a_decreasing_probability(x: float, y: float, df: int) -> None:
    lo, hi = sorted((x, y))
    assert 0.0 <= chi2_sf(hi, df) <= chi2_sf(lo, df) <= 1.0


@given(st.lists(dice, max_size=400))
def test_a_tally_counts_every_die_once(rolls: list[tuple[int, int]]) -> None:
    t = tally(rolls)
    assert t.rolls == len(rolls)
    assert sum(t.faces) == 2 * len(rolls)
    assert sum(t.sums) == len(rolls)
    assert t.doubles == sum(a == b for a, b in rolls)
    for face in range(1, 7):
        assert t.faces[face - 1] == sum((a == face) + (b == face) for a, b in rolls)


@given(st.lists(dice, max_size=100), st.lists(dice, max_size=100))
def test_merging_tallies_is_tallying_all_rolls(
    first: list[tuple[int, int]], second: list[tuple[int, int]]
) -> None:
    assert tally(first).merge(tally(second)) == tally(first + second)


def test_a_die_outside_one_to_six_is_refused() -> None:
    with pytest.raises(ValueError):
        DiceTally().add(0, 3)
    with pytest.raises(ValueError):
        DiceTally().add(3, 7)


def test_no_verdict_before_enough_rolls() -> None:
    t = tally([(6, 6)] * (MIN_ROLLS - 1))
    assert assess(t).verdict is Verdict.TOO_FEW
    assert assess(t.add(6, 6)).verdict is Verdict.SUSPECT


def test_perfectly_even_counts_are_fair_with_p_one() -> None:
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)] * 10
    result = assess(tally(rolls))
    assert result.verdict is Verdict.FAIR
    assert result.faces_p == pytest.approx(1.0)
    assert result.sums_p == pytest.approx(1.0)
    assert result.doubles_p == pytest.approx(1.0)
    assert chi_square(tally(rolls).faces, [120] * 6) == 0


def _fair(r: random.Random) -> tuple[int, int]:
    return r.randint(1, 6), r.randint(1, 6)


def _loaded_die(r: random.Random) -> int:
    """A die whose six comes up a quarter of the time instead of a sixth."""
    return r.choices(range(1, 7), [0.15] * 5 + [0.25])[0]


def _rate(make, rolls: int, seeds: range) -> float:
    suspect = 0
    for seed in seeds:
        r = random.Random(seed)
        suspect += assess(tally(make(r) for _ in range(rolls))).is_suspect
    return suspect / len(seeds)


def test_fair_dice_almost_never_raise_an_alarm() -> None:
    assert _rate(_fair, 1000, range(400)) <= 1 / 400


def test_two_loaded_dice_are_caught_within_600_rolls() -> None:
    assert _rate(lambda r: (_loaded_die(r), _loaded_die(r)), 600, range(60)) >= 0.95


def test_one_loaded_die_is_caught_within_3000_rolls() -> None:
    assert _rate(lambda r: (_loaded_die(r), r.randint(1, 6)), 3000, range(40)) >= 0.95


def test_a_tower_that_pairs_dice_is_caught_by_the_doubles_test() -> None:
    def pairing(r: random.Random) -> tuple[int, int]:
        a = r.randint(1, 6)
        return (a, a) if r.random() < 0.1 else (a, r.randint(1, 6))

    assert _rate(pairing, 1000, range(40)) >= 0.95
    r = random.Random(7)
    result = assess(tally(pairing(r) for _ in range(1000)))
    assert result.doubles_p is not None and result.doubles_p < 1e-4


def test_misreads_above_five_percent_are_flagged_after_enough_throws() -> None:
    t = tally(_fair(random.Random(1)) for _ in range(MIN_ROLLS))
    for _ in range(9):
        t = t.add_misread()
    assert not assess(t).misreads_high  # 9 / 189 = 4.8 %
    t = t.add_misread().add_misread()
    assert assess(t).misreads_high  # 11 / 191 = 5.8 %
    assert assess(DiceTally().add_misread()).misreads_high is False  # too few throws to say
