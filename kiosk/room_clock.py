"""How far this table's time of day is from the room's (the hub's), for the notice on its screen.

The hub publishes its time of day (``hub/time``, docs/protocol.md, 3.7) and tells the TD when a
table's clock is off; this says it to the players at that table. A Pi has no real-time clock: it
may boot at an old date and keep it until NTP answers, or be minutes off, and then the times the
table shows from its own clock (the scheduled start's countdown, the lateness before check-in)
are off by as much — the match clocks, which run on the monotonic clock, are not.

The hub's time is anchored at receipt on the monotonic clock: at any later moment the room's time
is the hub's ``wall`` plus the monotonic time elapsed since, so the comparison with the table's
own wall clock holds between two of the hub's messages, and a correction of the table's clock (an
NTP or chrony step) clears the notice at the next frame instead of at the next message. The
network's delay makes the room's time look a few milliseconds older than it is: nothing beside a
threshold of seconds.

Pure: the application passes the times in (``wall_ms``: its wall clock; ``mono_ms``: its monotonic
clock), so tests set a clock 12 minutes behind without touching the machine's.
"""

from __future__ import annotations

#: the offset at which the notice shows by default (the hub's ``clock_skew`` alert's default)
DEFAULT_THRESHOLD_MS = 30_000
#: once shown, the notice stays until the offset is this much under the threshold, so that an
#: offset right at the threshold (and the network's jitter) does not make it blink
HYSTERESIS_MS = 1_000


class RoomClock:
    """The room's time as last heard from the hub, and whether the table's clock is off.

    ``heard(hub_wall, mono_ms)`` at each ``hub/time``; ``notice(wall_ms, mono_ms)`` at each frame:
    the offset to show (ms, table minus room, to the second; negative: behind), or ``None``.
    """

    def __init__(self, threshold_ms: int = DEFAULT_THRESHOLD_MS) -> None:
        if threshold_ms <= HYSTERESIS_MS:
            raise ValueError(f"the threshold must be more than {HYSTERESIS_MS} ms")
        self.threshold_ms = threshold_ms
        self._anchor: tuple[int, int] | None = None  # (hub wall, monotonic ms at receipt)
        self._showing = False

    def heard(self, hub_wall: int, mono_ms: int) -> None:
        """The hub's time of day ``hub_wall``, received at ``mono_ms`` on the monotonic clock."""
        self._anchor = (int(hub_wall), int(mono_ms))

    def room_wall(self, mono_ms: int) -> int | None:
        """The room's time of day at ``mono_ms``; ``None`` before the hub's first message."""
        if self._anchor is None:
            return None
        hub_wall, at = self._anchor
        return hub_wall + (int(mono_ms) - at)

    def offset_ms(self, wall_ms: int, mono_ms: int) -> int | None:
        """How far the table's clock (``wall_ms`` at ``mono_ms``) is ahead of the room's; negative:
        behind. ``None`` while the hub's time is unknown."""
        room = self.room_wall(mono_ms)
        return None if room is None else int(wall_ms) - room

    def notice(self, wall_ms: int, mono_ms: int) -> int | None:
        """The offset the screen shows (whole seconds, in ms), or ``None`` when the clock is right."""
        offset = self.offset_ms(wall_ms, mono_ms)
        if offset is None:
            self._showing = False
            return None
        limit = self.threshold_ms - HYSTERESIS_MS if self._showing else self.threshold_ms
        self._showing = abs(offset) > limit
        if not self._showing:
            return None
        # to the nearest second: the network's few milliseconds must not make 12:00 read 11 min
        return round(offset / 1000) * 1000
