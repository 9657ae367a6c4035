"""Real GPIO: the table's buttons are wired as docs/wiring.md says (pin to GND, pull-up).

That each button is seen when pressed is checked with a person at the table, in the kiosk's
button test mode (docs/td-guide.md), not here: a test must not wait for a hand."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.buttons import ButtonPanel
from drivers.debounce import ButtonEvent
from kiosk.config import Config


@pytest.fixture
def real_pins() -> Iterator[Any]:
    """The Pi's own GPIO through lgpio, whatever GPIOZERO_PIN_FACTORY the test run set."""
    from gpiozero.pins.lgpio import LGPIOFactory

    factory = LGPIOFactory()
    yield factory
    factory.close()


def test_every_button_reads_released_when_nobody_touches_it(table_config: Config, real_pins: Any) -> None:
    """A stuck button, a short to GND or a missing pull-up reads as pressed at rest."""
    events: list[tuple[str, ButtonEvent]] = []
    pins = table_config.pins.as_dict()
    panel = ButtonPanel(pins, lambda name, event: events.append((name, event)), pin_factory=real_pins)
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            panel.poll()
            time.sleep(0.02)
        pressed = [name for name, event in events if event.kind == "press"]
        assert pressed == [], f"buttons read pressed at rest: {pressed}"
    finally:
        panel.close()
