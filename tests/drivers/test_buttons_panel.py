"""ButtonPanel on gpiozero MockFactory pins: edges are timestamped at once, debounced, reported."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.buttons import DEFAULT_PINS, ButtonPanel, monotonic_ms, parse_pin
from drivers.debounce import ButtonEvent


class FakeClock:
    """An injected ms clock, so edge timestamps are exact."""

    def __init__(self, t: int = 10_000) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, ButtonEvent]] = []
        self.threads: set[str] = set()

    def __call__(self, name: str, event: ButtonEvent) -> None:
        self.events.append((name, event))
        self.threads.add(threading.current_thread().name)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def make_panel(
    factory: MockFactory, clock: FakeClock, rec: Recorder, pins: dict[str, int | str] | None = None
) -> ButtonPanel:
    return ButtonPanel(pins or dict(DEFAULT_PINS), rec, pin_factory=factory, now_ms=clock)


def drive(factory: MockFactory, clock: FakeClock, bcm: int, script: list[tuple[int, str]]) -> None:
    """Drive one pin: (time, "low"|"high") steps; low = contact closed (pull-up wiring)."""
    pin = factory.pin(bcm)
    for at, level in script:
        clock.t = at
        if level == "low":
            pin.drive_low()
        else:
            pin.drive_high()


def test_a_clean_press_is_reported_with_its_edge_time(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec) as panel:
        drive(factory, clock, 17, [(10_000, "low")])
        assert rec.events == [("A", ButtonEvent("press", 10_000))]
        assert panel.is_pressed("A") and not panel.is_pressed("B")
        drive(factory, clock, 17, [(10_250, "high")])
        assert rec.events[-1] == ("A", ButtonEvent("release", 10_250))


def test_a_bouncy_press_gives_one_press_at_the_first_edge(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec) as panel:
        drive(
            factory,
            clock,
            27,
            [(20_000, "low"), (20_001, "high"), (20_003, "low"), (20_006, "high"), (20_012, "low")],
        )
        assert rec.events == [("B", ButtonEvent("press", 20_000))]
        drive(factory, clock, 27, [(20_300, "high"), (20_302, "low"), (20_305, "high"), (20_309, "low")])
        drive(factory, clock, 27, [(20_311, "high")])
        panel.poll(20_400)
        assert rec.events == [("B", ButtonEvent("press", 20_000)), ("B", ButtonEvent("release", 20_300))]


def test_a_long_press_is_reported_once_by_poll(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec) as panel:
        drive(factory, clock, 22, [(30_000, "low"), (30_002, "high"), (30_004, "low")])
        panel.poll(31_000)
        assert rec.events == [("pause", ButtonEvent("press", 30_000))]
        clock.t = 31_600
        panel.poll()  # the panel's own clock
        panel.poll(32_000)
        assert rec.events[1:] == [("pause", ButtonEvent("long_press", 31_500))]
        drive(factory, clock, 22, [(33_000, "high")])
        assert rec.events[2:] == [("pause", ButtonEvent("release", 33_000))]


def test_a_tap_inside_the_bounce_window_is_released_on_the_next_poll(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec) as panel:
        drive(factory, clock, 23, [(40_000, "low"), (40_012, "high")])
        assert rec.events == [("td", ButtonEvent("press", 40_000))]
        panel.poll(40_030)
        assert rec.events[1:] == [("td", ButtonEvent("release", 40_012))]


def test_both_clock_buttons_are_independent(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec, {"A": "GPIO5", "B": "BCM6"}) as panel:
        assert panel.names == ("A", "B")
        drive(factory, clock, 5, [(1_000, "low")])
        drive(factory, clock, 6, [(1_005, "low")])  # within A's window, but another button
        drive(factory, clock, 5, [(1_100, "high")])
        drive(factory, clock, 6, [(1_200, "high")])
        assert rec.events == [
            ("A", ButtonEvent("press", 1_000)),
            ("B", ButtonEvent("press", 1_005)),
            ("A", ButtonEvent("release", 1_100)),
            ("B", ButtonEvent("release", 1_200)),
        ]


def test_board_pin_names_pass_through_to_gpiozero(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    # Physical pins 11 and 13 of the 40-pin header are BCM 17 and 27.
    with make_panel(factory, clock, rec, {"A": "BOARD11", "B": "J8:13"}):
        drive(factory, clock, 27, [(5_000, "low")])
        assert rec.events == [("B", ButtonEvent("press", 5_000))]


def test_default_clock_is_monotonic_ms(factory: MockFactory) -> None:
    rec = Recorder()
    with ButtonPanel({"A": 17, "B": 27}, rec, pin_factory=factory):
        before = monotonic_ms()
        factory.pin(17).drive_low()
        after = monotonic_ms()
    ((name, event),) = rec.events
    assert name == "A" and event.kind == "press"
    assert before <= event.at_ms <= after


def test_close_releases_the_pins_and_stops_events(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    panel = make_panel(factory, clock, rec)
    panel.close()
    panel.close()  # idempotent
    drive(factory, clock, 17, [(1_000, "low")])
    panel.poll(5_000)
    assert rec.events == []
    # The pins are free again: a new panel can take them.
    with make_panel(factory, clock, rec):
        drive(factory, clock, 17, [(2_000, "high"), (2_100, "low")])
        assert rec.events == [("A", ButtonEvent("press", 2_100))]


def test_a_failing_handler_is_logged_and_does_not_stop_the_panel(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    seen: list[ButtonEvent] = []

    def handler(name: str, event: ButtonEvent) -> None:
        seen.append(event)
        if len(seen) == 1:
            raise RuntimeError("handler bug")

    with (
        caplog.at_level(logging.ERROR, logger="drivers.buttons"),
        ButtonPanel({"A": 17, "B": 27}, handler, pin_factory=factory, now_ms=clock),
    ):
        drive(factory, clock, 17, [(1_000, "low"), (1_500, "high")])
    assert [e.kind for e in seen] == ["press", "release"]
    assert "handler bug" in caplog.text


def test_edges_from_another_thread_reach_the_handler(factory: MockFactory) -> None:
    clock, rec = FakeClock(), Recorder()
    with make_panel(factory, clock, rec):
        worker = threading.Thread(
            target=drive, args=(factory, clock, 17, [(1_000, "low")]), name="gpio-edges"
        )
        worker.start()
        worker.join(10)
    assert rec.events == [("A", ButtonEvent("press", 1_000))]
    assert rec.threads == {"gpio-edges"}


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"A": 17}, "missing required"),
        ({"A": 17, "B": 27, "start": 22}, "unknown button"),
        ({"A": 17, "B": "GPIO17"}, "share pin"),
        ({"A": 17, "B": 99}, "out of range"),
        ({"A": 17, "B": True}, "expected an int"),
        ({"A": 17, "B": ""}, "empty"),
    ],
)
def test_bad_configurations_are_refused(factory: MockFactory, pins: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ButtonPanel(pins, Recorder(), pin_factory=factory)


def test_a_failed_construction_releases_the_pins_it_took(factory: MockFactory) -> None:
    with pytest.raises(Exception, match="BOARD1"):  # physical pin 1 is 3V3: gpiozero refuses it
        ButtonPanel({"A": 17, "B": "BOARD1"}, Recorder(), pin_factory=factory)
    with ButtonPanel({"A": 17, "B": 27}, Recorder(), pin_factory=factory):
        pass


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (17, 17),
        ("17", 17),
        ("GPIO17", 17),
        ("gpio4", 4),
        ("BCM27", 27),
        (" GPIO22 ", 22),
        ("BOARD11", "BOARD11"),
    ],
)
def test_parse_pin(spec: int | str, expected: int | str) -> None:
    assert parse_pin(spec) == expected


def test_the_wiring_doc_states_the_default_pins() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "wiring.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| [^|]+ \| `pins\.(\w+)` \| \*\*GPIO(\d+)\*\* \|", doc, re.M))
    assert {name: int(pin) for name, pin in rows.items()} == DEFAULT_PINS
