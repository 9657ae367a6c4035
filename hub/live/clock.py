"""Time sources for the hub and the simulated tables.

The hub never reads the system clock directly: it asks a ``Clock`` for ``now_wall()`` (Unix epoch
milliseconds). Production passes :class:`SystemClock`; tests pass a :class:`FakeClock` and say
"twelve minutes have passed" by moving it, without waiting; the demo passes an
:class:`AcceleratedClock` so a whole round plays in minutes. ``monotonic_ms()`` is what a simulated
table uses as its journal ``at``: it never goes backwards.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now_wall(self) -> int:
        """Unix epoch milliseconds."""
        ...

    def monotonic_ms(self) -> int:
        """Milliseconds that never decrease (a table's journal ``at``)."""
        ...


class SystemClock:
    """The real time of day."""

    def now_wall(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000


class FakeClock:
    """A clock that moves only when told to (thread-safe; it never moves backwards)."""

    def __init__(self, wall: int) -> None:
        self._lock = threading.Lock()
        self._wall = wall
        self._origin = wall

    def now_wall(self) -> int:
        with self._lock:
            return self._wall

    def monotonic_ms(self) -> int:
        with self._lock:
            return self._wall - self._origin

    def set(self, wall: int) -> None:
        with self._lock:
            if wall < self._wall:
                raise ValueError("a FakeClock never goes backwards")
            self._wall = wall

    def advance(self, ms: int) -> int:
        with self._lock:
            if ms < 0:
                raise ValueError("a FakeClock never goes backwards")
            self._wall += ms
            return self._wall


class AcceleratedClock:
    """Real time sped up ``factor`` times from ``start_wall`` (the demo's room runs fast)."""

    def __init__(self, factor: float, start_wall: int | None = None) -> None:
        if factor <= 0:
            raise ValueError("factor must be positive")
        self.factor = factor
        self._t0 = time.monotonic_ns()
        self._start = start_wall if start_wall is not None else time.time_ns() // 1_000_000

    def _elapsed_ms(self) -> int:
        return int((time.monotonic_ns() - self._t0) * self.factor) // 1_000_000

    def now_wall(self) -> int:
        return self._start + self._elapsed_ms()

    def monotonic_ms(self) -> int:
        return self._elapsed_ms()

    def sleep_ms(self, ms: int) -> float:
        """The real seconds that correspond to ``ms`` of this clock's time."""
        return ms / 1000 / self.factor
