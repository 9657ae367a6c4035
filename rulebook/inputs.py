"""Validation of raw journal inputs: bad fields become ``RuleError`` with a clear reason."""

from __future__ import annotations

from typing import Any

from rulebook.errors import RuleError
from rulebook.sides import Side, is_side


def side_field(inp: dict[str, Any], key: str = "side") -> Side:
    value = inp.get(key)
    if not is_side(value):
        raise RuleError(f'{key}: expected "A" or "B", got {value!r}')
    return value  # type: ignore[return-value]


def int_field(inp: dict[str, Any], key: str, lo: int, hi: int) -> int:
    value = inp.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise RuleError(f"{key}: expected a whole number from {lo} to {hi}, got {value!r}")
    return value


def number_field(inp: dict[str, Any], key: str, lo: float, hi: float) -> float:
    value = inp.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or not lo <= value <= hi:
        raise RuleError(f"{key}: expected a number from {lo} to {hi}, got {value!r}")
    return value


def str_field(inp: dict[str, Any], key: str) -> str:
    value = inp.get(key)
    if not isinstance(value, str) or not value:
        raise RuleError(f"{key}: expected a non-empty string, got {value!r}")
    return value


def die(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise RuleError(f"{key}: a die is a whole number from 1 to 6, got {value!r}")
    return value


def dice_field(inp: dict[str, Any]) -> tuple[int, int]:
    dice = inp.get("dice")
    if not isinstance(dice, list | tuple) or len(dice) != 2:
        raise RuleError(f"dice: expected two dice, got {dice!r}")
    return die(dice[0], "dice[0]"), die(dice[1], "dice[1]")


def side_map(inp: dict[str, Any], key: str, lo: int, hi: int) -> dict[Side, int]:
    value = inp.get(key)
    if not isinstance(value, dict):
        raise RuleError(f'{key}: expected {{"A": n, "B": n}}')
    try:
        return {s: int_field(value, s, lo, hi) for s in ("A", "B")}
    except RuleError as exc:
        raise RuleError(f"{key}.{exc}") from None
