"""Dice fairness: per table (and tower) counts of faces, doubles and sums, tested against fair dice.

Pure: no I/O, no clock. The hub feeds it the rolls its tables report and shows the verdict; the
same functions run over an export, so a TD can check a tower after the event too.

Why these tests and thresholds (see docs/dice-fairness.md for the worked figures):

* Three Pearson χ² goodness-of-fit tests: the 6 faces over both dice (5 degrees of freedom), the
  11 sums 2–12 (10 d.f.) and doubles versus non-doubles (1 d.f.). A loaded die shows in the faces;
  a tower that tends to leave dice stacked or paired shows in the doubles; the sums catch both.
* No verdict before ``MIN_ROLLS`` = 180 rolls: the rarest sum (2 or 12, p = 1/36) then has an
  expected count of 5, the usual condition for the χ² approximation to hold.
* A tower is *suspect* when any test's p-value is below ``ALPHA`` = 1e-4. A room checks every
  table after every roll all day; with three tests a table, a fair tower raises a false alarm at a
  given check with probability below 3 × 10⁻⁴. Two loaded dice (a six a quarter of the time
  instead of a sixth) are caught within 600 rolls, one such die within 3,000, a tower that pairs
  one throw in ten within 1,000 (the tests check each with seeded generators).
* A *misread* is a throw the tower could not read (the player re-rolls, 4.1 iv b). More than
  ``MAX_MISREAD_RATE`` (5 %) of throws, after ``MIN_ROLLS`` throws, means a dirty or misaligned
  tower: an alert, not a fairness verdict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

MIN_ROLLS = 180
ALPHA = 1e-4
MAX_MISREAD_RATE = 0.05

FACES = (1, 2, 3, 4, 5, 6)
SUMS = tuple(range(2, 13))
#: probability of each sum 2..12 with two fair dice
SUM_P = tuple((6 - abs(s - 7)) / 36 for s in SUMS)


class Verdict(StrEnum):
    """What a TD reads off a tower's statistics."""

    TOO_FEW = "too_few"
    FAIR = "fair"
    SUSPECT = "suspect"


@dataclass(frozen=True, slots=True)
class DiceTally:
    """Counts for one table or tower. Immutable: ``add`` returns a new tally."""

    faces: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)
    sums: tuple[int, ...] = (0,) * 11
    doubles: int = 0
    rolls: int = 0
    misreads: int = 0

    def add(self, d1: int, d2: int) -> DiceTally:
        """One read roll. Dice outside 1..6 are a caller's bug: refused, never counted."""
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError(f"a die is 1..6, got {d1}, {d2}")
        faces = list(self.faces)
        faces[d1 - 1] += 1
        faces[d2 - 1] += 1
        sums = list(self.sums)
        sums[d1 + d2 - 2] += 1
        return DiceTally(
            faces=(faces[0], faces[1], faces[2], faces[3], faces[4], faces[5]),
            sums=tuple(sums),
            doubles=self.doubles + (d1 == d2),
            rolls=self.rolls + 1,
            misreads=self.misreads,
        )

    def add_misread(self) -> DiceTally:
        return DiceTally(self.faces, self.sums, self.doubles, self.rolls, self.misreads + 1)

    def merge(self, other: DiceTally) -> DiceTally:
        """Two tallies as one (a tower moved between tables, or a room's total)."""
        f = tuple(a + b for a, b in zip(self.faces, other.faces, strict=True))
        return DiceTally(
            faces=(f[0], f[1], f[2], f[3], f[4], f[5]),
            sums=tuple(a + b for a, b in zip(self.sums, other.sums, strict=True)),
            doubles=self.doubles + other.doubles,
            rolls=self.rolls + other.rolls,
            misreads=self.misreads + other.misreads,
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "faces": {str(f): n for f, n in zip(FACES, self.faces, strict=True)},
            "sums": {str(s): n for s, n in zip(SUMS, self.sums, strict=True)},
            "doubles": self.doubles,
            "rolls": self.rolls,
            "misreads": self.misreads,
        }


def tally(rolls: Iterable[tuple[int, int]]) -> DiceTally:
    out = DiceTally()
    for d1, d2 in rolls:
        out = out.add(d1, d2)
    return out


@dataclass(frozen=True, slots=True)
class Fairness:
    """The tests' outcome for one tally."""

    verdict: Verdict
    rolls: int
    #: χ² statistic and p-value per test (None before ``MIN_ROLLS``)
    faces_chi2: float | None
    faces_p: float | None
    sums_chi2: float | None
    sums_p: float | None
    doubles_chi2: float | None
    doubles_p: float | None
    misread_rate: float
    misreads_high: bool

    @property
    def is_suspect(self) -> bool:
        return self.verdict is Verdict.SUSPECT

    def as_dict(self) -> dict[str, object]:
        return {
            "verdict": self.verdict.value,
            "rolls": self.rolls,
            "faces": {"chi2": self.faces_chi2, "p": self.faces_p},
            "sums": {"chi2": self.sums_chi2, "p": self.sums_p},
            "doubles": {"chi2": self.doubles_chi2, "p": self.doubles_p},
            "misread_rate": self.misread_rate,
            "misreads_high": self.misreads_high,
        }


def assess(t: DiceTally, *, min_rolls: int = MIN_ROLLS, alpha: float = ALPHA) -> Fairness:
    """Test a tally against fair dice (see the module docstring for the thresholds)."""
    throws = t.rolls + t.misreads
    misread_rate = t.misreads / throws if throws else 0.0
    misreads_high = throws >= min_rolls and misread_rate > MAX_MISREAD_RATE
    if t.rolls < min_rolls:
        none = (None,) * 6
        return Fairness(Verdict.TOO_FEW, t.rolls, *none, misread_rate, misreads_high)
    n = t.rolls
    faces_chi2 = chi_square(t.faces, [2 * n / 6] * 6)
    sums_chi2 = chi_square(t.sums, [n * p for p in SUM_P])
    doubles_chi2 = chi_square((t.doubles, n - t.doubles), (n / 6, 5 * n / 6))
    faces_p = chi2_sf(faces_chi2, 5)
    sums_p = chi2_sf(sums_chi2, 10)
    doubles_p = chi2_sf(doubles_chi2, 1)
    suspect = min(faces_p, sums_p, doubles_p) < alpha
    return Fairness(
        Verdict.SUSPECT if suspect else Verdict.FAIR,
        n,
        faces_chi2,
        faces_p,
        sums_chi2,
        sums_p,
        doubles_chi2,
        doubles_p,
        misread_rate,
        misreads_high,
    )


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    """Pearson's statistic Σ (O − E)² / E."""
    if len(observed) != len(expected):
        raise ValueError("observed and expected differ in length")
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x): the upper regularized incomplete gamma Q(df/2, x/2)."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    half = x / 2
    if half <= 0:  # also a positive x too small to halve
        return 1.0
    return _gamma_q(df / 2, half)


def _gamma_q(a: float, x: float) -> float:
    """Q(a, x) by the series for x < a + 1 and Lentz's continued fraction otherwise
    (Numerical Recipes §6.2); accurate to ~1e-14 relative, which p-values near 1e-4 need."""
    if x < a + 1:
        return max(0.0, 1.0 - _gamma_p_series(a, x))
    return _gamma_q_fraction(a, x)


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
