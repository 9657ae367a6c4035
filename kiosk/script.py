"""Scripted inputs for ``bgtable run --script FILE``: a match played without hands.

Demonstrations, benchmarks and the power-cut tests drive the real kiosk (journal, controller,
main loop) with a JSON-lines file of table inputs instead of buttons and touches. Each line is an
input (PROTOCOL.md §1, without ``at``) plus an optional ``after_ms``: how long to wait after the
previous line. A line ``{"exit": true}`` ends the kiosk as a SIGTERM would::

    {"input": "assign", "match_id": "demo", "length": 5, ...}
    {"after_ms": 500, "input": "press", "side": "A"}
    {"after_ms": 2000, "exit": true}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk.errors import KioskError


class ScriptError(KioskError, ValueError):
    """A script line is not a JSON object with a valid ``after_ms``."""


@dataclass(frozen=True, slots=True)
class Step:
    after_ms: int
    item: dict[str, Any]

    @property
    def is_exit(self) -> bool:
        return self.item.get("exit") is True


def parse_script(text: str) -> list[Step]:
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise ScriptError(f"line {number}: not JSON ({exc})") from None
        if not isinstance(item, dict):
            raise ScriptError(f"line {number}: expected a JSON object")
        after = item.pop("after_ms", 0)
        if not isinstance(after, int) or isinstance(after, bool) or after < 0:
            raise ScriptError(f"line {number}: after_ms: expected ms >= 0, got {after!r}")
        steps.append(Step(after, item))
    return steps


def load_script(path: str | Path) -> list[Step]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"{path}: {exc.strerror or exc}") from None
    return parse_script(text)


class ScriptPlayer:
    """Hands out the steps whose time has come; time is the caller's monotonic ms."""

    def __init__(self, steps: list[Step], now_ms: Callable[[], int]):
        self._steps = list(steps)
        self._now_ms = now_ms
        self._index = 0
        self._next_at = now_ms() + (steps[0].after_ms if steps else 0)

    @property
    def done(self) -> bool:
        return self._index >= len(self._steps)

    def due(self) -> list[Step]:
        out: list[Step] = []
        now = self._now_ms()
        while self._index < len(self._steps) and now >= self._next_at:
            step = self._steps[self._index]
            out.append(step)
            self._index += 1
            if self._index < len(self._steps):
                self._next_at += self._steps[self._index].after_ms
        return out
