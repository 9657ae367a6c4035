"""The button test, from the Tables page's order to the table's physical buttons and back.

A real hub process; the table is the real kiosk (``KioskApp``) in this process so that the test
can close its buttons' contacts (gpiozero's mock pins). The presses tick the buttons off on the
screen, never reach the match, and the Tables page gets the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pygame
from gpiozero.pins.mock import MockFactory

from kiosk.app import KioskApp
from kiosk.config import load
from kiosk.journal import read_journal
from tests.fleet.support import WAIT, Enroll, Hub, cleanup

EVENT = "fleet-buttons"
PINS = {"A": 17, "B": 27, "pause": 22, "td": 23}


class Mono:
    """The kiosk's monotonic clock, moved by the test (debouncing needs exact edge times)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def run_until(app: KioskApp, mono: Mono, pred: Callable[[], object], what: str) -> None:
    """Run the kiosk's frames (time moving on) until ``pred`` holds, checking it every 0.2 s."""
    deadline = time.monotonic() + WAIT
    checked = 0.0
    while True:
        app.step()
        mono.t += 0.02
        time.sleep(0.01)
        if time.monotonic() - checked >= 0.2:
            checked = time.monotonic()
            if pred():
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")


def test_button_test_ticks_each_button_and_reports_to_the_tables_page(tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        enroll = Enroll(tmp_path, hub.url, tmp_path / "t", "dev-bt")
        hub.td.post("/api/fleet/dev-bt/enroll", {"table": "4", "code": enroll.code()})
        assert enroll.wait() == 0
        factory, mono = MockFactory(), Mono()
        app = KioskApp(
            load(tmp_path / "t" / "table.toml"), headless=True, pin_factory=factory, monotonic=mono
        )
        try:
            app.start()
            assert app.buttons is not None and app.fleet is not None
            run_until(app, mono, lambda: hub.online("4"), "table 4 online")
            journal_before = len(read_journal(app.config.journal_path))

            hub.td.post("/api/fleet/dev-bt/button-test", {})
            run_until(app, mono, lambda: app.fleet.test_state == "running", "the test on the screen")
            run_until(
                app,
                mono,
                lambda: (hub.device("dev-bt") or {}).get("screen") == "button_test",
                "the page told",
            )
            for name, bcm in PINS.items():
                factory.pin(bcm).drive_low()
                mono.t += 0.1
                factory.pin(bcm).drive_high()
                mono.t += 0.1
                run_until(app, mono, lambda name=name: name in app.fleet.test_pressed, f"{name} ticked off")
                if name == "B":  # halfway: the screen shows two ticks
                    pygame.image.save(app.window.canvas, str(tmp_path / "button-test.png"))
            assert app.fleet.test_state == "passed"
            row = hub.wait_device(
                "dev-bt",
                lambda r: (r["button_test"] or {}).get("state") == "passed",
                "the result on the page",
            )
            assert row["button_test"]["pressed"] == ["A", "B", "pause", "td"]
            assert all(row["buttons"]["seen"][name] for name in PINS)
            # the presses never reached the match: nothing was journaled
            assert len(read_journal(app.config.journal_path)) == journal_before
            assert app.controller.snapshot()["clock"]["running"] is None
        finally:
            app.close()
