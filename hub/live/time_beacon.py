"""The hub's time of day for the tables: ``hub/time`` ``{"wall"}``, so a table can show that its
own clock is off.

The hub tells the TD that a table's clock is off (the ``clock_skew`` alert, from the table's
``wall`` against the hub's time of receipt); the players at that table should see it too, and only
the table can tell them. Every table may read ``hub/time`` — enrolled or configured by hand, which
the fleet's per-device ``control`` orders would not reach — and compares the hub's ``wall`` with
its own clock at receipt (kiosk/room_clock.py).

When it is sent: every ``interval_s`` (30 s), whenever the hub's link comes up, and soon after a
table announces itself online (a Pi that has just booted, before NTP set its clock, is the usual
skewed table: it should not wait half a minute to say so). Requests that come together (a whole
room reconnecting) make one message: at most one every ``min_gap_s``. QoS 0, not retained: a
time is worth something only while it is fresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from drivers.hub_link import HubLink
from hub.live.clock import Clock

log = logging.getLogger("hub.time_beacon")

#: seconds between two times sent when nothing asks for one sooner
INTERVAL_S = 30.0
#: at most one time in this many seconds, however many tables come online together
MIN_GAP_S = 1.0


class TimeBeacon:
    """Sends the hub's time on ``hub/time`` (see module doc). ``start()`` and ``stop()`` on the loop."""

    def __init__(
        self,
        clock: Clock,
        link: Callable[[], HubLink | None],
        *,
        interval_s: float = INTERVAL_S,
        min_gap_s: float = MIN_GAP_S,
    ) -> None:
        if interval_s <= 0 or min_gap_s < 0:
            raise ValueError("the interval must be positive and the gap not negative")
        self.clock = clock
        self._link = link
        self.interval_s = interval_s
        self.min_gap_s = min_gap_s
        self.sent = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def send(self) -> bool:
        """Publish the hub's time now; False when the link is not up (nothing is queued)."""
        link = self._link()
        if link is None or not link.online:
            return False
        link.send_time(self.clock.now_wall())
        self.sent += 1
        return True

    def soon(self) -> None:
        """Ask for a time to be sent shortly (any thread)."""
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the hub is stopping
                loop.call_soon_threadsafe(wake.set)

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._loop = None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
            self._wake.clear()
            try:
                self.send()
            except Exception:
                log.exception("the hub's time could not be sent")
            await asyncio.sleep(self.min_gap_s)
