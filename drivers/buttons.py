"""The table's physical buttons (two clock buttons, optional pause and TD-call buttons) on GPIO.

Each button is a normally-open switch between a BCM GPIO pin and GND, read through gpiozero with
the pin's internal pull-up (see docs/wiring.md). The clock must switch at the instant of contact
(DESIGN.md "time from the edge"), so gpiozero's own debouncing is off (``bounce_time=None``) and
every raw edge is timestamped *inside* gpiozero's callback, then debounced by
:class:`drivers.debounce.Debouncer` (leading edge: a press carries its first edge's timestamp).

API used by the kiosk::

    from drivers.buttons import ButtonPanel, DEFAULT_PINS
    from drivers.debounce import ButtonEvent

    def on_event(name: str, event: ButtonEvent) -> None:   # name: "A", "B", "pause" or "td"
        queue.put((name, event))                            # cheap, thread-safe, never blocks

    panel = ButtonPanel({"A": 17, "B": "GPIO27", "pause": 22}, on_event)
    ...
    panel.poll()          # every frame: reports long presses (and late-settled edges)
    ...
    panel.close()

* ``pins``: button name → BCM pin, as an int (17) or a string ("GPIO17", "BCM17", "17"); other
  gpiozero pin names ("BOARD11", "J8:11") are passed through. "A" and "B" are required; "pause"
  and "td" are optional. :data:`DEFAULT_PINS` holds the documented defaults.
* ``on_event(name, ButtonEvent)`` is called with ``kind`` "press", "long_press" or "release" and
  ``at_ms`` on the ``now_ms`` clock (default: monotonic ms, the same clock the kiosk's journal
  uses). It is called from gpiozero's callback thread for edges and from the caller's thread for
  :meth:`ButtonPanel.poll`, always under the panel's lock so events of one panel arrive in order;
  it must be quick and must not block (put the event on a queue).
* ``pin_factory``: gpiozero pin factory; None = gpiozero's default (lgpio on a Pi,
  ``GPIOZERO_PIN_FACTORY=mock`` in tests). Tests pass a ``MockFactory`` and drive its pins.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import Button

from drivers.debounce import ButtonEvent, Debouncer

log = logging.getLogger(__name__)

#: Button names the panel knows, in display order.
BUTTON_NAMES: tuple[str, ...] = ("A", "B", "pause", "td")
REQUIRED_BUTTONS: frozenset[str] = frozenset({"A", "B"})
#: Default BCM pins (docs/wiring.md).
DEFAULT_PINS: dict[str, int] = {"A": 17, "B": 27, "pause": 22, "td": 23}

_BCM_RE = re.compile(r"^(?:GPIO|BCM)?(\d{1,2})$", re.IGNORECASE)

PinSpec = int | str
EventHandler = Callable[[str, ButtonEvent], None]


def monotonic_ms() -> int:
    """Milliseconds on the monotonic clock (the kiosk's time base for inputs)."""
    return time.monotonic_ns() // 1_000_000


def parse_pin(spec: PinSpec) -> int | str:
    """A BCM pin number from 17, "17", "GPIO17" or "BCM17"; other gpiozero pin names pass through.

    Raises ValueError for booleans, negative or out-of-range numbers and empty strings.
    """
    if isinstance(spec, bool) or not isinstance(spec, int | str):
        raise ValueError(f"pin: expected an int or a string like 'GPIO17', got {spec!r}")
    if isinstance(spec, int):
        number = spec
    else:
        text = spec.strip()
        if not text:
            raise ValueError("pin: empty string")
        m = _BCM_RE.match(text)
        if m is None:
            return text  # e.g. "BOARD11", "J8:11": gpiozero resolves (and validates) these
        number = int(m.group(1))
    if not 0 <= number <= 53:
        raise ValueError(f"pin: BCM number out of range 0..53: {spec!r}")
    return number


class ButtonPanel:
    """The table's buttons: gpiozero ``Button`` devices feeding one debouncer each."""

    def __init__(
        self,
        pins: Mapping[str, PinSpec],
        on_event: EventHandler,
        pin_factory: Any = None,
        now_ms: Callable[[], int] = monotonic_ms,
        debounce_ms: int = 30,
        long_press_ms: int = 1500,
    ) -> None:
        unknown = sorted(set(pins) - set(BUTTON_NAMES))
        if unknown:
            raise ValueError(f"unknown button name(s) {unknown}; expected some of {list(BUTTON_NAMES)}")
        missing = sorted(REQUIRED_BUTTONS - set(pins))
        if missing:
            raise ValueError(f"missing required button(s) {missing}")
        parsed = {name: parse_pin(spec) for name, spec in pins.items()}
        seen: dict[int | str, str] = {}
        for name, pin in parsed.items():
            if pin in seen:
                raise ValueError(f"buttons {seen[pin]!r} and {name!r} share pin {pins[name]!r}")
            seen[pin] = name

        self._on_event = on_event
        self._now_ms = now_ms
        self._lock = threading.RLock()
        self._closed = False
        self._debouncers = {name: Debouncer(debounce_ms, long_press_ms) for name in parsed}
        self._buttons: dict[str, Button] = {}
        try:
            for name in BUTTON_NAMES:
                if name not in parsed:
                    continue
                button = Button(parsed[name], pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._buttons[name] = button
                button.when_pressed = self._edge_handler(name, True)
                button.when_released = self._edge_handler(name, False)
        except Exception:
            self.close()
            raise

    @property
    def names(self) -> tuple[str, ...]:
        """The configured button names, in :data:`BUTTON_NAMES` order."""
        return tuple(name for name in BUTTON_NAMES if name in self._debouncers)

    def is_pressed(self, name: str) -> bool:
        """The debounced state of one button."""
        with self._lock:
            return self._debouncers[name].is_pressed

    def poll(self, now_ms: int | None = None) -> None:
        """Report time-driven events (long presses, edges settled after their bounce window).

        Call it regularly (each UI frame). ``now_ms`` defaults to the panel's clock.
        """
        now = self._now_ms() if now_ms is None else now_ms
        with self._lock:
            if self._closed:
                return
            for name, debouncer in self._debouncers.items():
                self._dispatch(name, debouncer.poll(now))

    def close(self) -> None:
        """Release the GPIO pins; idempotent. No event is reported after it returns."""
        with self._lock:
            self._closed = True
            buttons, self._buttons = self._buttons, {}
        for button in buttons.values():
            button.when_pressed = None
            button.when_released = None
            button.close()

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------

    def _edge_handler(self, name: str, level: bool) -> Callable[[], None]:
        def on_edge() -> None:
            at = self._now_ms()  # timestamp first: the edge's time is what the clock uses
            with self._lock:
                if self._closed:
                    return
                self._dispatch(name, self._debouncers[name].feed(level, at))

        return on_edge

    def _dispatch(self, name: str, events: list[ButtonEvent]) -> None:
        for event in events:
            try:
                self._on_event(name, event)
            except Exception:  # a faulty handler must not silence the other buttons
                log.exception("button %s: on_event failed for %s", name, event)
