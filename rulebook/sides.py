"""The two sides of a table: ``"A"`` (left of the screen) and ``"B"`` (right)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

Side = Literal["A", "B"]
SIDES: tuple[Side, Side] = ("A", "B")
T = TypeVar("T")


def other(side: Side) -> Side:
    """The opponent of ``side``."""
    return "B" if side == "A" else "A"


def is_side(value: object) -> bool:
    return value == "A" or value == "B"


@dataclass(frozen=True, slots=True)
class Pair(Generic[T]):
    """An immutable per-side value (score, reserve, presence...)."""

    a: T
    b: T

    def of(self, side: Side) -> T:
        return self.a if side == "A" else self.b

    def set(self, side: Side, value: T) -> Pair[T]:
        return Pair(value, self.b) if side == "A" else Pair(self.a, value)

    def as_dict(self) -> dict[str, T]:
        return {"A": self.a, "B": self.b}
