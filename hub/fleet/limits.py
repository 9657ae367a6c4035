"""What one source address may ask of the devices' endpoints (pure: times are arguments).

Anyone on the venue's network reaches ``/device/v1/`` without a credential, so every limit there
is per source address, and a busy address only ever costs itself:

- **hellos**: :data:`HELLO_RATE` a minute (a table says hello once, then polls);
- **polls**: :data:`POLL_RATE` a minute, and :data:`POLL_WAITS` held open at once (a poll beyond
  them is answered at once, without waiting);
- **waiting rows**: :data:`PENDING_PER_SOURCE` devices waiting to be enrolled per address; a new
  one from an address that has its share replaces that address's longest-silent row, and when the
  whole list is full (:data:`MAX_PENDING`) the busiest address's longest-silent row makes room
  (:func:`to_evict`). A real table is one device at one address: it is the last to go.

A venue behind one NAT (every table at one address) would share one address's limits; the hub and
its tables are meant to be on one network (docs/deployment.md).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass

#: hellos per address per minute (a table says hello once, then polls)
HELLO_RATE = 30
#: polls per address per minute (a waiting table polls about twice a minute; a retired check once)
POLL_RATE = 60
#: long polls held open at once per address
POLL_WAITS = 16
#: devices waiting to be enrolled per address
PENDING_PER_SOURCE = 16
#: devices waiting to be enrolled in all
MAX_PENDING = 1000
WINDOW_MS = 60_000
#: addresses remembered (the oldest are forgotten beyond this)
MAX_SOURCES = 10_000


@dataclass(frozen=True, slots=True)
class Waiting:
    """A device waiting to be enrolled, as the limits see it."""

    device: str
    source: str
    last_seen_wall: int


def to_evict(
    waiting: Iterable[Waiting],
    source: str,
    *,
    per_source: int = PENDING_PER_SOURCE,
    total: int = MAX_PENDING,
) -> Waiting | None:
    """The waiting row to drop before ``source`` adds one (None: there is room).

    The source's own longest-silent row when it has its share already; else, when the list is
    full, the longest-silent row of the address with the most rows."""
    rows = list(waiting)
    mine = [w for w in rows if w.source == source]
    if len(mine) >= per_source:
        return min(mine, key=lambda w: (w.last_seen_wall, w.device))
    if len(rows) < total:
        return None
    counts = collections.Counter(w.source for w in rows)
    busiest = max(counts.values())
    return min((w for w in rows if counts[w.source] == busiest), key=lambda w: (w.last_seen_wall, w.device))


class Window:
    """Requests per key within the last :data:`WINDOW_MS` (a sliding window)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._times: dict[str, collections.deque[int]] = {}

    def allow(self, key: str, now: int) -> bool:
        """Count a request from ``key`` at ``now``; False (not counted) beyond the limit."""
        times = self._times.get(key)
        if times is None:
            if len(self._times) >= MAX_SOURCES:
                self._forget(now)
            times = self._times[key] = collections.deque()
        while times and now - times[0] >= WINDOW_MS:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        return True

    def _forget(self, now: int) -> None:
        self._times = {k: v for k, v in self._times.items() if v and now - v[-1] < WINDOW_MS}
        while len(self._times) >= MAX_SOURCES:  # all busy: the least recent goes
            del self._times[min(self._times, key=lambda k: self._times[k][-1])]


class SourceLimits:
    """Hellos, polls and long polls held open, per source address."""

    def __init__(
        self, hello_rate: int = HELLO_RATE, poll_rate: int = POLL_RATE, poll_waits: int = POLL_WAITS
    ) -> None:
        self.hellos = Window(hello_rate)
        self.polls = Window(poll_rate)
        self.poll_waits = poll_waits
        self._open: collections.Counter[str] = collections.Counter()

    def hold(self, source: str) -> bool:
        """A long poll from ``source`` may wait (then :meth:`release` it); False: answer at once."""
        if self._open[source] >= self.poll_waits:
            return False
        self._open[source] += 1
        return True

    def release(self, source: str) -> None:
        self._open[source] -= 1
        if self._open[source] <= 0:
            del self._open[source]
