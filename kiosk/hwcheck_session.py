"""The hardware check inside the running kiosk: started, shown over the whole screen, kept.

Started from the TD menu (*Table settings* → *Hardware check*), by the TD from the hub's Tables
page (a fleet order, :mod:`kiosk.fleet_agent`), or by ``bgtable check``; never during a match (the
players need their buttons, tower and screen). While it runs it takes every clock button press,
dice throw and touch (:meth:`take_button`, :meth:`take_roll`, :meth:`take_tap`): nothing of the
check reaches the journal. When it ends the result (:class:`rulebook.hardware_check.HardwareCheck`)
is written to the data directory (``hardware-check.json``), so the table reports its last check
to the hub after a restart too, and the summary stays on the screen until a tap.

The steps themselves are :class:`kiosk.hwcheck.CheckRun` (pure); this module gives it the time,
the readings (:mod:`kiosk.hwcheck_probe`) and the screen.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from typing import Any

from kiosk.hwcheck import STEP_S, SUMMARY_S, CheckRun, Readings
from kiosk.hwcheck_probe import Probes, cpu_temp_mc, throttled_bits
from kiosk.journal import wall_ms
from kiosk.ui import facts
from rulebook.errors import WireError
from rulebook.hardware_check import HardwareCheck, Origin, parse_hardware_check
from rulebook.vocab import Phase

log = logging.getLogger("kiosk.hwcheck")

FILE_NAME = "hardware-check.json"


def load_last(path: Any) -> HardwareCheck | None:
    """The last check kept in ``path``; None when there is none or it does not read as one."""
    try:
        return parse_hardware_check(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, WireError) as exc:
        log.warning("hardware check: %s cannot be read (%s); ignored", path, exc)
        return None


class HardwareCheckSession:
    """See the module doc. ``app`` is the :class:`kiosk.app.KioskApp` it serves."""

    def __init__(self, app: Any, probes: Probes | None = None) -> None:
        self.app = app
        self.probes = probes or Probes()
        self.path = app.config.data_path / FILE_NAME
        self.last: HardwareCheck | None = load_last(self.path)
        self.run: CheckRun | None = None
        #: called with the result when a check ends (``bgtable check`` prints it)
        self.on_result: Any = None
        self._view: Any = None
        self._shown: bool = False
        self._saved = False

    @property
    def running(self) -> bool:
        """A check (or its summary) is on the screen."""
        return self.run is not None

    @property
    def asking(self) -> bool:
        """A step is open (the summary is not): what the table reports as its screen."""
        return self.run is not None and self.run.finished_at is None

    def start(self, origin: Origin, step_s: float = STEP_S) -> bool:
        """Begin a check (``step_s``: each interactive step's time); False (and nothing shown)
        while a match is under way."""
        if self._match_under_way():
            log.info("hardware check (%s): refused during a match", origin)
            return False
        config, window = self.app.config, self.app.window
        width, height = window.size if window is not None else config.screen.size
        readings = Readings(
            cpu_temp_mc=cpu_temp_mc(self.probes.thermal),
            throttled=throttled_bits(self.probes),
            width_px=width,
            height_px=height,
            refresh_hz=window.refresh_hz() if window is not None else None,
        )
        self.run = CheckRun(
            id=uuid.uuid4().hex[:16],
            origin=origin,
            fitted={"clock": config.pins.enabled, "tower": bool(config.dice.device)},
            buttons_ready=self.app.buttons is not None,
            readings=readings,
            started=self.app.monotonic(),
            step_s=step_s,
        )
        log.info("hardware check started (%s): %s", origin, readings)
        self._saved = False
        self._sync_screen()
        return True

    def _match_under_way(self) -> bool:
        snap = self.app.controller.snapshot()
        return facts.has_match(snap) and snap.get("phase") != Phase.FINISHED

    # -- each frame ----------------------------------------------------------------------------

    def step(self) -> None:
        run = self.run
        if run is not None:
            now = self.app.monotonic()
            if self._match_under_way():
                # a match was assigned meanwhile: the players need their table back at once
                run.stop(now)
                if not self._saved:
                    self._finish(run)
                self.run = None
                self._sync_screen()
                return
            status = self.app.dice_status
            run.tick(now, bool(getattr(status, "connected", False)))
            if run.finished_at is not None:
                if not self._saved:
                    self._finish(run)
                elif now - run.finished_at >= SUMMARY_S:
                    self.run = None
        self._sync_screen()

    def _finish(self, run: CheckRun) -> None:
        self._saved = True
        result = run.result(wall_ms())
        self.last = result
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # still reported from memory
            log.warning("hardware check: cannot keep the result in %s (%s)", self.path, exc)
        log.info("hardware check: %s", json.dumps(result, ensure_ascii=False))
        if self.app.fleet is not None:
            self.app.fleet.wake()
        if self.on_result is not None:
            self.on_result(result)

    def _sync_screen(self) -> None:
        """A full redraw when the check appears or goes (the match screen is behind it)."""
        shown = self.run is not None
        if shown != self._shown:
            self._shown = shown
            if self.app.view is not None:
                self.app.view.invalidate()
            self.app._full_redraw = True
            if not shown:
                self._view = None

    # -- the screen and what is done at the table ------------------------------------------------

    def screen(self) -> tuple[Any, Any] | None:
        """``(view, what it draws)`` while a check is shown, else None."""
        run = self.run
        if run is None:
            return None
        from kiosk.ui.screens.setup.hwcheck import HardwareCheckView, shown

        if self._view is None:
            self._view = HardwareCheckView(self.app.config.language)
        return self._view, shown(run, self.app.monotonic())

    def take_tap(self, pos: tuple[int, int]) -> bool:
        run = self.run
        if run is None:
            return False
        if run.finished_at is not None and self._saved:
            self.run = None  # a tap closes the summary
            self._sync_screen()
            return True
        run.tap(pos, self.app.monotonic())
        return True

    def take_button(self, name: str, event: Any) -> bool:
        run = self.run
        if run is None:
            return False
        if event.kind == "press":
            run.press(name, self.app.monotonic())
        return True

    def take_roll(self, roll: Any) -> bool:
        run = self.run
        if run is None:
            return False
        dice = None if roll.unreadable else (roll.d1, roll.d2)
        run.roll(dice, self.app.monotonic(), str(roll.reason or ""))
        return True
