"""The hardware check in the real kiosk, headless: clock buttons on gpiozero's mock pins, a dice
tower on a pty, touches as SDL finger events, the temperature and the firmware's flags from files.

Every step passes; every step fails, each for its own reason; steps are skipped, not fitted or
not available; nothing of the check reaches the journal; the result is kept in the data directory
and the summary closes on a tap. The screens are saved as PNGs (``BGHUB_SCREENSHOTS``: the
documentation's ``docs/screenshots/kiosk-check-*.png``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from gpiozero.pins.mock import MockFactory

from drivers.dice_sim import DiceTowerSimulator, PtyPort
from kiosk.app import KioskApp
from kiosk.config import Config, DiceConfig, PinsConfig
from kiosk.controller import TableController
from kiosk.hwcheck import STEP_S, answer_rects, skip_rect, targets
from kiosk.hwcheck_probe import Probes
from kiosk.hwcheck_session import FILE_NAME, load_last
from kiosk.journal import Journal, read_journal
from kiosk.ui.i18n import LANGUAGES
from kiosk.ui.screens.setup.hwcheck import HardwareCheckView, shown
from rulebook.hardware_check import Origin, Step, parse_hardware_check, ready
from tests.support.patience import patience

WAIT_S = patience(20.0)
PINS = PinsConfig(enabled=True, A=17, B=27, pause=22, td=23)
SIZE = (800, 480)


class Mono:
    """The kiosk's monotonic clock, moved by the test (timeouts and debouncing are exact)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def run_until(app: KioskApp, mono: Mono, pred: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        app.step()
        mono.t += 0.01
        time.sleep(0.005)


def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("BGHUB_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


class Table:
    """A kiosk with what the test gives it, and the hands of an organiser."""

    def __init__(self, tmp_path: Path, *, pins: PinsConfig, dice: str, probes: Probes) -> None:
        self.factory, self.mono = MockFactory(), Mono()
        config = Config(
            table_id="7", data_dir=str(tmp_path / "data"), pins=pins, dice=DiceConfig(device=dice)
        )
        self.app = KioskApp(
            config, headless=True, pin_factory=self.factory, monotonic=self.mono, probes=probes
        )
        self.app.start()
        self.journal = len(read_journal(config.journal_path))

    @property
    def step(self) -> Step | None:
        run = self.app.check.run
        return run.current if run is not None else None

    def until(self, pred: Callable[[], object], what: str) -> None:
        run_until(self.app, self.mono, pred, what)

    def at(self, step: Step | None) -> None:
        self.until(lambda: self.step == step, f"the step {step}")

    def press(self, bcm: int) -> None:
        pin = self.factory.pin(bcm)
        pin.drive_low()
        self.mono.t += 0.1
        self.app.step()
        pin.drive_high()
        self.mono.t += 0.1

    def touch(self, pos: tuple[int, int]) -> None:
        """A finger on the panel at ``pos`` (SDL's touch event, as a real panel sends)."""
        pygame.event.post(
            pygame.event.Event(
                pygame.FINGERDOWN, x=pos[0] / SIZE[0], y=pos[1] / SIZE[1], finger_id=0, touch_id=1, dx=0, dy=0
            )
        )
        self.app.step()

    def centre(self, rect: tuple[int, int, int, int]) -> tuple[int, int]:
        return rect[0] + rect[2] // 2, rect[1] + rect[3] // 2

    def save(self, out: Path, name: str) -> None:
        self.app.step()
        self.app._draw()
        pygame.image.save(self.app.window.canvas, str(out / f"kiosk-check-{name}.png"))

    def result(self) -> dict[str, Any]:
        self.until(lambda: self.app.check.last is not None, "the result kept")
        return {s["step"]: s for s in self.app.check.last["steps"]}  # type: ignore[index]


@pytest.fixture
def pty() -> Iterator[PtyPort]:
    with PtyPort() as port:
        yield port


def probes(tmp_path: Path, temp: str | None, throttled: str | None) -> Probes:
    thermal, flags = tmp_path / "temp", tmp_path / "get_throttled"
    if temp is not None:
        thermal.write_text(temp)
    if throttled is not None:
        flags.write_text(throttled)
    return Probes(thermal=thermal, throttled=flags, vcgencmd=(str(tmp_path / "no-vcgencmd"),))


def test_every_step_passes_from_the_td_menu(tmp_path: Path, pty: PtyPort):
    out = shots(tmp_path)
    t = Table(tmp_path, pins=PINS, dice=pty.slave_path, probes=probes(tmp_path, "52100\n", "0\n"))
    try:
        t.until(lambda: t.app.dice_status is not None and t.app.dice_status.connected, "the tower")
        t.app._intents([{"ui": "close"}, {"app": "hardware_check"}])  # the TD menu's entry
        t.at(Step.BUTTON_LEFT)
        t.save(out, "1-left-button")
        t.press(PINS.A)
        t.at(Step.BUTTON_RIGHT)
        t.press(PINS.B)
        t.at(Step.DICE)
        t.save(out, "2-dice")
        DiceTowerSimulator(pty.master_fd).roll(3, 5)
        t.at(Step.TOUCH)
        corners = targets(SIZE)
        t.touch(corners[0])
        t.touch(corners[2])
        t.save(out, "3-touch")
        t.touch(corners[1])
        t.touch((corners[3][0] + 8, corners[3][1] - 6))  # a finger is never exactly on the centre
        t.at(Step.DISPLAY)
        t.save(out, "4-display")
        t.touch(t.centre(answer_rects(SIZE)[0]))  # Yes
        t.at(None)
        steps = t.result()
        t.save(out, "5-summary-pass")
        assert {s: steps[s]["outcome"] for s in Step} == dict.fromkeys(Step, "pass")
        assert steps[Step.BUTTON_LEFT]["detail"] == "A pressed"
        assert steps[Step.DICE]["detail"] == "3-5"
        assert steps[Step.TEMPERATURE]["detail"] == "52.1 °C"
        assert steps[Step.DISPLAY]["detail"].startswith("800x480")
        last = t.app.check.last
        assert last is not None and ready(last) and last["origin"] == "table"
        assert last["fitted"] == {"clock": True, "tower": True} and last["cpu_temp_mc"] == 52100
        # kept in the data directory, as the hub's schema reads it
        kept = json.loads((t.app.config.data_path / FILE_NAME).read_text())
        assert parse_hardware_check(kept) == last
        # nothing of the check reached the match
        assert len(read_journal(t.app.config.journal_path)) == t.journal
        t.touch((400, 240))  # a tap closes the summary: the table's screen is back
        assert not t.app.check.running
    finally:
        t.app.close()


def test_every_step_fails_each_for_its_reason(tmp_path: Path, pty: PtyPort):
    out = shots(tmp_path)
    # under-voltage since boot and throttled now; the CPU at 85 °C
    t = Table(tmp_path, pins=PINS, dice=pty.slave_path, probes=probes(tmp_path, "85000", "50005"))
    try:
        t.until(lambda: t.app.dice_status is not None and t.app.dice_status.connected, "the tower")
        assert t.app.check.start(Origin.HUB)
        t.at(Step.BUTTON_LEFT)
        t.press(PINS.B)  # the right button answers for the left one: wires swapped
        t.at(Step.BUTTON_RIGHT)
        t.mono.t += STEP_S + 1  # nobody presses: the step times out
        t.at(Step.DICE)
        DiceTowerSimulator(pty.master_fd).unreadable("cocked")
        t.at(Step.TOUCH)
        corners = targets(SIZE)
        t.touch(corners[0])
        t.touch(corners[1])
        t.touch((400, 300))  # nowhere near a target
        t.mono.t += STEP_S + 1
        t.at(Step.DISPLAY)
        t.touch(t.centre(answer_rects(SIZE)[1]))  # No
        t.at(None)
        steps = t.result()
        t.save(out, "6-summary-fail")
        assert {s: (steps[s]["outcome"], steps[s]["reason"]) for s in Step} == {
            Step.BUTTON_LEFT: ("fail", "wrong_button"),
            Step.BUTTON_RIGHT: ("fail", "timeout"),
            Step.DICE: ("fail", "unreadable"),
            Step.TOUCH: ("fail", "timeout"),
            Step.DISPLAY: ("fail", "not_as_shown"),
            Step.TEMPERATURE: ("fail", "too_hot"),
            Step.THROTTLING: ("fail", "under_voltage"),
        }
        assert steps[Step.TOUCH]["detail"] == "2 of 4 corners"
        assert steps[Step.DICE]["detail"] == "cocked"
        assert steps[Step.THROTTLING]["detail"] == "0x50005"
        assert steps[Step.BUTTON_RIGHT]["took_ms"] >= STEP_S * 1000
        assert not ready(t.app.check.last)  # type: ignore[arg-type]
        assert len(read_journal(t.app.config.journal_path)) == t.journal
    finally:
        t.app.close()


def test_skipped_not_fitted_and_not_available(tmp_path: Path):
    """A table with neither clock nor tower, on a board that says nothing of its temperature or
    power: only touch and display are asked (1 of 2, 2 of 2), both skipped here."""
    t = Table(tmp_path, pins=PinsConfig(enabled=False), dice="", probes=probes(tmp_path, None, None))
    try:
        assert t.app.check.start(Origin.COMMAND)
        t.at(Step.TOUCH)
        assert t.app.check.run is not None and t.app.check.run.number() == (1, 2)
        t.touch(t.centre(skip_rect(SIZE)))
        t.at(Step.DISPLAY)
        assert t.app.check.run.number() == (2, 2)
        t.touch(t.centre(skip_rect(SIZE)))
        t.at(None)
        steps = t.result()
        assert {s: steps[s]["outcome"] for s in Step} == {
            Step.BUTTON_LEFT: "not_fitted",
            Step.BUTTON_RIGHT: "not_fitted",
            Step.DICE: "not_fitted",
            Step.TOUCH: "skipped",
            Step.DISPLAY: "skipped",
            Step.TEMPERATURE: "not_available",
            Step.THROTTLING: "not_available",
        }
        last = t.app.check.last
        assert last is not None and not ready(last)  # skipped: not verified
        assert last["cpu_temp_mc"] is None and last["throttled"] is None
        assert last["fitted"] == {"clock": False, "tower": False}
    finally:
        t.app.close()
    # the next start of the kiosk reports the same check
    assert load_last(tmp_path / "data" / FILE_NAME) == last


def test_a_tower_that_never_answers_and_gpio_that_does_not_open(tmp_path: Path):
    """Configured but absent: the buttons' GPIO fails to open (both steps fail at once), the
    tower's device does not exist (the dice step fails ``no_tower`` when its time is up)."""

    class Broken(MockFactory):
        def pin(self, *args: Any, **kw: Any) -> Any:
            raise OSError("no GPIO here")

    t = Table(tmp_path, pins=PINS, dice=str(tmp_path / "no-tower"), probes=probes(tmp_path, "40000", "0"))
    t.app.close()
    t.factory = Broken()
    t.app = KioskApp(
        t.app.config, headless=True, pin_factory=t.factory, monotonic=t.mono, probes=t.app.check.probes
    )
    t.app.start()
    try:
        assert t.app.buttons is None
        assert t.app.check.start(Origin.TABLE)
        t.at(Step.DICE)
        t.mono.t += STEP_S + 1
        t.at(Step.TOUCH)
        assert t.app.check.run is not None
        steps = {s["step"]: s for s in t.app.check.run.results}
        assert (steps[Step.BUTTON_LEFT]["outcome"], steps[Step.BUTTON_LEFT]["reason"]) == (
            "fail",
            "no_buttons",
        )
        assert steps[Step.BUTTON_RIGHT]["reason"] == "no_buttons"
        assert (steps[Step.DICE]["outcome"], steps[Step.DICE]["reason"]) == ("fail", "no_tower")
    finally:
        t.app.close()


def test_never_during_a_match(tmp_path: Path):
    t = Table(tmp_path, pins=PinsConfig(enabled=False), dice="", probes=probes(tmp_path, None, None))
    try:
        t.app.controller.submit(
            {
                "input": "assign",
                "match_id": "m1",
                "length": 5,
                "players": {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}},
                "clock": False,
            }
        )
        assert not t.app.check.start(Origin.HUB)
        assert not t.app.check.running and t.app.check.last is None
    finally:
        t.app.close()


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_screen_fits_in_every_language(tmp_path: Path, lang: str):
    """Each step's texts render in the shipped font and the summary of a failed check fits."""
    from kiosk.hwcheck import CheckRun, Readings

    pygame.display.init()
    pygame.font.init()
    try:
        surface = pygame.Surface(SIZE)
        run = CheckRun(
            id="c1",
            origin=Origin.TABLE,
            fitted={"clock": True, "tower": True},
            buttons_ready=True,
            readings=Readings(90000, 0x50005, *SIZE, 60),
            started=0.0,
        )
        view = HardwareCheckView(lang)
        now = 0.0
        while run.current is not None:
            snap = shown(run, now)
            assert view.draw(surface, snap, None, 0)
            for line in view.lines(snap):
                assert view.texts.fit(line, True, 10, 10_000, 10_000, False)[1]
            now += STEP_S + 1
            run.tick(now)
        snap = shown(run, now)
        assert view.draw(surface, snap, None, 0)
        for line in view.lines(snap)[1:]:
            size, lines = view.texts.fit(line, False, 12, SIZE[0] - 100, 60, False)
            assert len(lines) == 1 and size >= 12, (lang, line)
    finally:
        pygame.display.quit()


def bgtable_check(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "check", "--headless", "--config", str(config), *extra],
        capture_output=True,
        text=True,
        timeout=patience(60),
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )


def test_bgtable_check_prints_each_step_and_exits_by_the_verdict(tmp_path: Path):
    """``bgtable check`` on a table without clock or tower, nobody at the screen: touch and
    display fail when their (short) time is up, the verdict is "not ready", exit 1; the result
    is kept for the table's reports."""
    config = tmp_path / "t.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[pins]\nenabled = false\n')
    done = bgtable_check(config, "--step-seconds", "1")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:5] == [
        "button_left: not_fitted",
        "button_right: not_fitted",
        "dice: not_fitted",
        "touch: fail [timeout] (0 of 4 corners)",
        "display: fail [timeout]",
    ]
    assert lines[5].startswith("temperature: ") and lines[6].startswith("throttling: ")
    assert lines[-1] == "not ready"
    kept = load_last(tmp_path / "data" / FILE_NAME)
    assert kept is not None and kept["origin"] == "command" and not ready(kept)


def test_bgtable_check_refuses_during_a_match_and_a_bad_step_time(tmp_path: Path):
    config = tmp_path / "t.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[pins]\nenabled = false\n')
    bad = bgtable_check(config, "--step-seconds", "0.5")
    assert bad.returncode == 2 and "--step-seconds" in bad.stderr
    (tmp_path / "data").mkdir(exist_ok=True)
    with Journal(tmp_path / "data" / "journal.sqlite3") as journal:
        ctl = TableController(journal, "1", clock_ms=lambda: 1000)
        ctl.submit(
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "m1",
                "length": 5,
                "players": {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}},
                "clock": False,
            }
        )
        assert ctl.snapshot()["match_id"] == "m1"
    refused = bgtable_check(config, "--step-seconds", "1")
    assert refused.returncode == 2 and "a match is in progress" in refused.stderr
    assert refused.stdout == "" and load_last(tmp_path / "data" / FILE_NAME) is None


@pytest.mark.parametrize(("journal", "offered"), [("idle", True), ("finished", True), ("playing", False)])
def test_the_td_menu_offers_the_check_only_without_a_match_under_way(journal: str, offered: bool):
    """*TD menu → Table settings → Hardware check*, tapped as the TD would (``tests/kiosk/touch.py``)."""
    from kiosk.ui import samples
    from tests.kiosk.touch import Kiosk

    k = Kiosk(getattr(samples, journal)())
    k.key(pygame.K_t)  # the TD menu's key (on the screen: the table's number, up top)
    assert k.local.overlay == "pin"
    for digit in "4321":
        k.tap(digit)
    k.tap("OK")
    k.tap("Table settings")
    assert ("Hardware check" in k.texts()) == offered
    if offered:
        k.tap("Hardware check")
        assert k.app[-1] == {"app": "hardware_check"} and k.local.overlay is None


def test_a_match_assigned_during_the_check_ends_it(tmp_path: Path):
    """The hub assigns a match while the check waits for a corner: the players get their table
    back at once; the steps not done are ``skipped`` and the result is kept and reported."""
    t = Table(tmp_path, pins=PINS, dice="", probes=probes(tmp_path, "50000", "0"))
    try:
        assert t.app.check.start(Origin.HUB)
        t.press(PINS.A)
        t.press(PINS.B)
        t.at(Step.TOUCH)
        t.app.inbox.put(
            (
                "assign",
                {
                    "match_id": "m1",
                    "length": 5,
                    "players": {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}},
                    "clock": False,
                },
            )
        )
        t.until(lambda: not t.app.check.running, "the table given back")
        steps = t.result()
        assert {s: steps[s]["outcome"] for s in Step} == {
            Step.BUTTON_LEFT: "pass",
            Step.BUTTON_RIGHT: "pass",
            Step.DICE: "not_fitted",
            Step.TOUCH: "skipped",
            Step.DISPLAY: "skipped",
            Step.TEMPERATURE: "pass",
            Step.THROTTLING: "pass",
        }
        assert t.app.controller.snapshot()["match_id"] == "m1"
        t.press(PINS.A)  # the buttons are the match's again
        t.until(lambda: len(read_journal(t.app.config.journal_path)) > t.journal + 1, "the press journaled")
    finally:
        t.app.close()
