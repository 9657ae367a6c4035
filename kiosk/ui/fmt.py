"""How times are written on the screen: pure functions, shared by every screen and the tests.

Reserves count down as ``m:ss`` (``h:mm:ss`` from an hour) and, under 20 seconds, as seconds
with tenths (``19.4``), so the last seconds are readable without a stopwatch. Displayed values are
truncated, never rounded up: a clock reads ``0.0`` only when the time has run out.
"""

from __future__ import annotations

import time

TENTHS_BELOW_MS = 20_000


def clock_text(ms: int) -> str:
    """A reserve: ``1:02:03``, ``12:00``, ``0:20``, ``19.9`` … ``0.0``."""
    ms = max(0, int(ms))
    if ms < TENTHS_BELOW_MS:
        tenths = ms // 100
        return f"{tenths // 10}.{tenths % 10}"
    return hms(ms // 1000)


def hms(seconds: int) -> str:
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def countdown_text(ms: int) -> str:
    """Time left until a moment, rounded up so it reads ``0:00`` exactly when the moment comes."""
    return hms(-(-max(0, ms) // 1000))


def elapsed_text(ms: int) -> str:
    """Time since a moment, truncated."""
    return hms(max(0, ms) // 1000)


def delay_seconds(ms: int) -> int:
    """Delay left in whole seconds, rounded up (12 … 1, then the reserve runs)."""
    return -(-max(0, ms) // 1000)


def wall_clock(wall_ms: int) -> str:
    """Local time of day ``14:05`` for an epoch-ms instant (the table's time zone)."""
    return time.strftime("%H:%M", time.localtime(wall_ms / 1000))


def tick_of(ms: int) -> int:
    """The display step of a reserve: changes exactly when :func:`clock_text` changes."""
    return ms // 100 if ms < TENTHS_BELOW_MS else ms // 1000
