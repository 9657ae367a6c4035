"""A table whose clock is off says so on its screen, and stops saying so once its clock is set.

Real Mosquitto, a real hub (its own time, the machine's) and the kiosk application in this process
with its wall clock 12 minutes behind (a Pi without a real-time clock before NTP answers); its
monotonic clock is the machine's. The hub sends its time on ``hub/time``; the table compares it
with its own clock, and both halves of the screen say it in the players' languages, while the
hub alerts the TD. Then the table's clock is set right (as chrony steps it): the notice goes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pygame

from kiosk.app import KioskApp
from kiosk.config import BrokerConfig, Config, PinsConfig
from kiosk.ui.i18n import translator
from kiosk.ui.screens.clock_notice import message
from tests.hub.support import event_id, one_match, start_hub, tick

MIN = 60_000
WAIT_S = 15.0


class TableWall:
    """The table's time of day: the machine's, ``offset`` ms off, set right by ``step``."""

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset

    def step(self, ms: int) -> None:
        self.offset += ms


def run_until(app: KioskApp, pred: Callable[[], bool], what: str) -> None:
    pacer = pygame.time.Clock()
    deadline = time.monotonic() + WAIT_S
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; on the screen: {texts(app)}")
        app.step()
        pacer.tick(200)


def texts(app: KioskApp) -> dict[str, str]:
    """The texts on the screen by region (the last frame drawn)."""
    return {p.region: p.text for p in app.view.last_layout}


def notices(app: KioskApp) -> dict[str, str]:
    return {region: text for region, text in texts(app).items() if region.endswith("clock_notice")}


def skew_alerts(hub: Any) -> list[dict[str, Any]]:
    return [a for a in hub.call(hub.hub.alert_list) if a["kind"] == "clock_skew"]


def test_a_table_12_minutes_behind_says_so_on_both_halves_until_its_clock_is_set(tmp_path, mosquitto):
    ev = event_id("clock-notice")
    start = time.time_ns() // 1_000_000 + 20 * MIN
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, None, schedule=one_match("7", 5, start))
    wall = TableWall(-12 * MIN)
    config = Config(
        table_id="7",
        event=ev,
        data_dir=str(tmp_path / "table"),
        pins=PinsConfig(enabled=False),
        broker=BrokerConfig(host=mosquitto.host, port=mosquitto.port),
    )
    app = KioskApp(config, headless=True, wall=wall)
    try:
        app.start()
        # The hub's time reached the table as it came online, and its match (the waiting screen):
        # a notice on each half. Player B reads Greek.
        run_until(app, lambda: app.controller.snapshot()["match_id"] == "r1-t7", "the assignment")
        app._intents([{"ui": "lang", "side": "B", "lang": "el"}])
        en = message(translator("en"), -12 * MIN)
        el = message(translator("el"), -12 * MIN)
        run_until(
            app,
            lambda: notices(app) == {"A.clock_notice": en, "B.clock_notice": el},
            "the notice on both halves, in each player's language",
        )
        assert el.startswith("Το τραπέζι πάει 12 λεπτά πίσω")
        assert {"Ann", "Bob"} <= set(texts(app).values()), "the arriving players' names are covered"
        # The TD was told the same thing.
        hub.wait_for(lambda h: h.views["7"].state_fresh and h.views["7"].state is not None)
        tick(hub)
        (alert,) = skew_alerts(hub)
        assert alert["table"] == "7" and "12 min (behind the hub)" in alert["message"]
        # The table's clock is set (chrony steps it): the notice goes at the next frame.
        wall.step(12 * MIN)
        run_until(app, lambda: notices(app) == {}, "the notice cleared")
        assert "Ann" in texts(app).values()
        # A player's clock and the match were never touched.
        snap = app.controller.snapshot()
        assert snap["phase"] == "waiting"
        assert snap["clock"]["reserve_ms"] == {"A": 5 * 2 * MIN, "B": 5 * 2 * MIN}
    finally:
        app.close()
        hub.stop()
