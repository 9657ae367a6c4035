"""Leading-edge debouncing of one clock button, as pure code fed with timestamped edges.

Why our own: a backgammon clock must switch at the instant the player's button makes contact
(DESIGN.md "time from the edge"), so a press is reported with the timestamp of its *first* edge,
not after the contact has settled. gpiozero's ``bounce_time`` would delay or drop edges (and its
mock pins ignore it altogether), so the :class:`~drivers.buttons.ButtonPanel` switches it off and
feeds every raw edge here instead.

How it works (leading-edge lockout):

* An edge that changes the debounced level outside a lockout window is accepted at once and
  reported with its own timestamp; it opens a lockout window of ``debounce_ms``.
* Edges inside the window are contact bounce: they only update the raw level. When the window is
  over and the raw level still differs from the debounced level (the button really was released
  or pressed again during the window, e.g. a tap shorter than ``debounce_ms``), that change is
  accepted with the timestamp of the raw edge that established it. This is noticed on the next
  :meth:`Debouncer.feed` or :meth:`Debouncer.poll`.
* While the debounced level is "pressed", a single ``long_press`` is reported once the button has
  been held ``long_press_ms``; its ``at_ms`` is the instant the threshold was reached
  (press time + ``long_press_ms``), found on a later edge or by :meth:`Debouncer.poll`.

Timestamps are integer milliseconds on a monotonic clock. A timestamp older than one already seen
(possible when edges and polls come from different threads) is treated as "now" = the newest one.

Example::

    >>> d = Debouncer(debounce_ms=30, long_press_ms=1500)
    >>> d.feed(True, 1000)             # contact: the press is reported at once
    [ButtonEvent(kind='press', at_ms=1000)]
    >>> d.feed(False, 1003), d.feed(True, 1006)   # bounce inside the window: ignored
    ([], [])
    >>> d.poll(2600)
    [ButtonEvent(kind='long_press', at_ms=2500)]
    >>> d.feed(False, 2700)
    [ButtonEvent(kind='release', at_ms=2700)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EventKind = Literal["press", "long_press", "release"]


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """One debounced button event. ``at_ms``: monotonic ms of the edge (or of the long-press threshold)."""

    kind: EventKind
    at_ms: int


class Debouncer:
    """Debounces one button. Not thread-safe by itself: :class:`~drivers.buttons.ButtonPanel` locks it."""

    def __init__(self, debounce_ms: int = 30, long_press_ms: int = 1500) -> None:
        if debounce_ms < 0:
            raise ValueError(f"debounce_ms must be >= 0, got {debounce_ms}")
        if long_press_ms <= debounce_ms:
            raise ValueError(f"long_press_ms ({long_press_ms}) must exceed debounce_ms ({debounce_ms})")
        self.debounce_ms = int(debounce_ms)
        self.long_press_ms = int(long_press_ms)
        self._stable = False  # debounced level: True = pressed
        self._raw = False  # last level fed
        self._raw_at: int | None = None  # timestamp of the last raw edge
        self._lock_until: int | None = None  # end of the current lockout window
        self._press_at: int | None = None  # first-edge timestamp of the current press
        self._long_sent = False
        self._latest: int | None = None  # newest timestamp seen (feed or poll)

    @property
    def is_pressed(self) -> bool:
        """The debounced level as of the last feed/poll."""
        return self._stable

    @property
    def pressed_since_ms(self) -> int | None:
        """First-edge timestamp of the current press, or None when released."""
        return self._press_at if self._stable else None

    def feed(self, level: bool, at_ms: int) -> list[ButtonEvent]:
        """A raw edge: ``level`` True = contact closed (pressed), at monotonic ``at_ms``."""
        at = self._clamp(at_ms)
        events = self._settle(at)
        level = bool(level)
        if level == self._raw:
            return events  # not an edge (a repeated level): nothing changes
        self._raw = level
        self._raw_at = at
        if self._lock_until is not None and at < self._lock_until:
            return events  # contact bounce inside the lockout window
        # Outside the window the settled raw level equals the debounced one, so this is a change.
        events.extend(self._accept(level, at))
        return events

    def poll(self, now_ms: int) -> list[ButtonEvent]:
        """Report what time alone decides: a long press reached, a change that ended its lockout."""
        return self._settle(self._clamp(now_ms))

    # -- internals -------------------------------------------------------------------------

    def _clamp(self, t: int) -> int:
        t = int(t)
        if self._latest is not None and t < self._latest:
            t = self._latest
        self._latest = t
        return t

    def _settle(self, now: int) -> list[ButtonEvent]:
        events: list[ButtonEvent] = []
        if (
            self._raw != self._stable
            and self._lock_until is not None
            and now >= self._lock_until
            and self._raw_at is not None
        ):
            # The raw level changed during the window and stayed changed: a real edge.
            events.extend(self._accept(self._raw, self._raw_at))
        events.extend(self._long_press_until(now))
        return events

    def _accept(self, level: bool, at: int) -> list[ButtonEvent]:
        events: list[ButtonEvent] = []
        if level:
            self._stable = True
            self._press_at = at
            self._long_sent = False
            events.append(ButtonEvent("press", at))
        else:
            events.extend(self._long_press_until(at))
            self._stable = False
            self._press_at = None
            events.append(ButtonEvent("release", at))
        self._lock_until = at + self.debounce_ms
        return events

    def _long_press_until(self, t: int) -> list[ButtonEvent]:
        if not self._stable or self._long_sent or self._press_at is None:
            return []
        threshold = self._press_at + self.long_press_ms
        if t < threshold:
            return []
        self._long_sent = True
        return [ButtonEvent("long_press", threshold)]
