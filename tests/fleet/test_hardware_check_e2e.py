"""The hardware check from the Tables page to the table and back, in a real headless Chromium.

A real Mosquitto (``bghub broker-config``: dynamic security, each table its own credential), a
real ``bghub`` process, a table enrolled through it; the table is the real kiosk (``KioskApp``)
in this process so that the test can close its buttons' contacts (gpiozero's mock pins), throw
dice into its tower (a pty) and touch its screen (SDL finger events). The TD starts the check
from the page; the table's report crosses the broker to the hub, whose edge checks it against its
declaration; ``GET /api/fleet`` carries each step's outcome and when the hub heard of it, and the
page shows "checked HH:MM — touch failed" with the checklist behind it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pygame
import pytest
from gpiozero.pins.mock import MockFactory
from playwright.sync_api import Browser, Page, expect, sync_playwright

from drivers.dice_sim import DiceTowerSimulator, PtyPort
from kiosk.app import KioskApp
from kiosk.config import DiceConfig, PinsConfig, load
from kiosk.hwcheck import STEP_S, answer_rects, targets
from kiosk.hwcheck_probe import Probes
from kiosk.journal import read_journal
from rulebook.hardware_check import Step
from tests.e2e.pages import CHROMIUM_ARGS, SCREENSHOTS_ENV
from tests.fleet.support import PASSWORD, WAIT, Enroll, Hub, Room, Table, cleanup

EVENT = "fleet-check"
MS = int(WAIT * 1000)
PINS = PinsConfig(enabled=True, A=17, B=27, pause=22, td=23)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


class Mono:
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


def login(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.fill("#password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#logout-button")).to_be_visible(timeout=MS)


def test_the_td_starts_a_check_and_the_tables_page_shows_its_checklist(browser: Browser, tmp_path: Path):
    room = Room(tmp_path, EVENT, tables="1-12")
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub), PtyPort() as pty:
        enroll = Enroll(tmp_path, hub.url, tmp_path / "t", "dev-hw")
        hub.td.post("/api/fleet/dev-hw/enroll", {"table": "9", "code": enroll.code()})
        assert enroll.wait() == 0
        config = load(tmp_path / "t" / "table.toml")
        config = replace(config, pins=PINS, dice=DiceConfig(device=pty.slave_path))
        (tmp_path / "temp").write_text("47800\n")
        (tmp_path / "throttled").write_text("0\n")
        probes = Probes(thermal=tmp_path / "temp", throttled=tmp_path / "throttled", vcgencmd=())
        factory, mono = MockFactory(), Mono()
        app = KioskApp(config, headless=True, pin_factory=factory, monotonic=mono, probes=probes)
        page = browser.new_context(viewport={"width": 1500, "height": 760}).new_page()
        try:
            app.start()
            run_until(app, mono, lambda: hub.online("9"), "table 9 online")
            run_until(app, mono, lambda: app.dice_status is not None and app.dice_status.connected, "tower")
            journal_before = len(read_journal(app.config.journal_path))
            login(page, hub.url)
            page.click("a[href='/fleet']")
            row = page.locator("#enrolled tr[data-device=dev-hw]")
            expect(row).to_contain_text("● online", timeout=MS)
            expect(row).to_contain_text("not checked", timeout=MS)

            row.locator("button", has_text="Hardware check").click()
            run_until(app, mono, lambda: app.check.running, "the check on the table's screen")
            run_until(
                app,
                mono,
                lambda: (hub.device("dev-hw") or {}).get("screen") == "hardware_check",
                "the page told",
            )
            expect(row).to_contain_text("checking…", timeout=MS)

            def step_is(step: Step | None) -> Callable[[], bool]:
                return lambda: app.check.run is not None and app.check.run.current == step

            for bcm in (PINS.A, PINS.B):
                factory.pin(bcm).drive_low()
                mono.t += 0.1
                app.step()
                factory.pin(bcm).drive_high()
                mono.t += 0.1
                run_until(app, mono, lambda: True, "a frame")
            run_until(app, mono, step_is(Step.DICE), "the dice step")
            DiceTowerSimulator(pty.master_fd).roll(6, 2)
            run_until(app, mono, step_is(Step.TOUCH), "the touch step")
            size = app.window.size
            for x, y in targets(size)[:3]:  # the fourth corner does not answer
                pygame.event.post(
                    pygame.event.Event(
                        pygame.FINGERDOWN, x=x / size[0], y=y / size[1], finger_id=0, touch_id=1, dx=0, dy=0
                    )
                )
                app.step()
            mono.t += STEP_S + 1
            run_until(app, mono, step_is(Step.DISPLAY), "the display step")
            yes = answer_rects(size)[0]
            pygame.event.post(
                pygame.event.Event(
                    pygame.FINGERDOWN,
                    x=(yes[0] + yes[2] / 2) / size[0],
                    y=(yes[1] + yes[3] / 2) / size[1],
                    finger_id=0,
                    touch_id=1,
                    dx=0,
                    dy=0,
                )
            )
            run_until(app, mono, lambda: app.check.last is not None, "the result")

            api = hub.wait_device(
                "dev-hw",
                lambda r: r["hardware_check"] is not None and r["screen"] != "hardware_check",
                "the result in GET /api/fleet",
            )
            check = api["hardware_check"]
            assert check["origin"] == "hub" and check["id"] == app.check.last["id"]  # type: ignore[index]
            outcomes = {s["step"]: (s["outcome"], s["reason"]) for s in check["steps"]}
            assert outcomes == {
                "button_left": ("pass", None),
                "button_right": ("pass", None),
                "dice": ("pass", None),
                "touch": ("fail", "timeout"),
                "display": ("pass", None),
                "temperature": ("pass", None),
                "throttling": ("pass", None),
            }
            assert next(s for s in check["steps"] if s["step"] == "touch")["detail"] == "3 of 4 corners"
            assert check["cpu_temp_mc"] == 47800 and check["throttled"] == 0
            assert check["fitted"] == {"clock": True, "tower": True}
            # the hub's time of receipt, not the table's clock
            heard = api["hardware_check_wall"]
            assert isinstance(heard, int) and abs(heard - time.time() * 1000) < WAIT * 1000
            # the next reports carry the same check: the time it was heard stays
            report_wall = api["report_wall"]
            app.fleet.wake()
            again = hub.wait_device("dev-hw", lambda r: r["report_wall"] != report_wall, "another report")
            assert again["hardware_check_wall"] == heard

            expect(row).to_contain_text("touch failed", timeout=MS)
            verdict = row.locator(".hw-check summary")
            # the hub's time of receipt, as the browser writes a time of day
            shown = page.evaluate(
                "w => new Date(w).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', hour12: false})",  # noqa: E501
                heard,
            )
            expect(verdict).to_have_text(f"checked {shown} — touch failed")
            expect(page.locator("#summary")).to_contain_text(
                "hardware check: 0 ready, 1 not ready, 0 not checked"
            )
            verdict.click()
            checklist = row.locator(".checklist")
            expect(checklist.locator("li[data-step=touch]")).to_have_text(
                "✗ touch — no answer in time (3 of 4 corners)"
            )
            expect(checklist.locator("li[data-step=dice]")).to_have_text("✓ dice tower (6-2)")
            expect(checklist.locator("li[data-step=temperature]")).to_have_text("✓ temperature (47.8 °C)")
            out = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path)
            out.mkdir(parents=True, exist_ok=True)
            page.locator("#enrolled").scroll_into_view_if_needed()
            page.screenshot(path=str(out / "fleet-check.png"))
            # nothing of the check reached the match
            assert len(read_journal(app.config.journal_path)) == journal_before
        finally:
            page.context.close()
            app.close()


def test_the_first_start_after_enrolling_on_the_screen_runs_the_check(tmp_path: Path):
    """A new card: ``bgtable run`` shows its code, the TD enrolls it, and the table's first start
    as that table opens the hardware check (the page says so); its next start does not."""
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        config = tmp_path / "t" / "table.toml"
        table = Table(tmp_path, config, "first", "--hub", hub.url, "--device-id", "dev-first")
        with cleanup(table):
            code = table.out.wait_for(r"^code (\d{4})$").group(1)
            hub.td.post("/api/fleet/dev-first/enroll", {"table": "3", "code": code})
            table.out.wait_for(r"hardware check started \(first_boot\)")
            hub.wait_device("dev-first", lambda r: r["screen"] == "hardware_check", "the check on the page")
        again = Table(tmp_path, config, "again")
        with cleanup(again):
            again.out.wait_for("first frame")
            # the new start's report: its screen is the table's own
            hub.wait_device(
                "dev-first", lambda r: r["online"] and r["screen"] == "idle", "the table's screen"
            )
            assert "hardware check started" not in again.log.read_text()
