"""How much one table may send: a token bucket per table (pure; time is passed in).

A real table sends a few messages a second at most (an event and a state per input), and a burst
when it reconnects (its outbox, 64 events in flight at a time, and its state). A table with a
bug, or a program holding a table's credential, can send thousands a second: every message costs
the hub parsing, and every event a row on its disk. Each table gets ``rate`` messages a second
with bursts of up to ``burst``; the excess is dropped where it arrives (on the MQTT thread, before
it is queued), counted, and alerted once. Events dropped this way are asked for again later by
the usual gap detection, when the table is back under its rate.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class TokenBucket:
    rate: float
    burst: float
    tokens: float
    at: float

    @classmethod
    def full(cls, rate: float, burst: float, now: float) -> TokenBucket:
        return cls(rate, burst, burst, now)

    def take(self, now: float) -> bool:
        """One message now: True if it may pass."""
        if now > self.at:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class TableRates:
    """A bucket per table, and what each dropped since the last look."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}
        #: table -> messages dropped since :meth:`take_dropped`
        self._dropped: dict[str, int] = {}

    def allow(self, table: str, now: float) -> bool:
        bucket = self._buckets.get(table)
        if bucket is None:
            bucket = self._buckets[table] = TokenBucket.full(self.rate, self.burst, now)
        if bucket.take(now):
            return True
        self._dropped[table] = self._dropped.get(table, 0) + 1
        return False

    def take_dropped(self) -> dict[str, int]:
        dropped, self._dropped = self._dropped, {}
        return dropped
