"""The device's side of the fleet inside a running, enrolled table.

Started by :class:`kiosk.app.KioskApp` when the configuration has a ``[fleet]`` section (written at
enrollment). It

- sends a health report (:mod:`kiosk.device_health`, docs/protocol.md §6) every
  ``fleet.report_s`` seconds and whenever something the Tables page shows changes;
- carries out the hub's orders on ``table/{t}/control`` that name this device: *identify* (the
  number flashes), *button_test*, *restart*, *update* (look for new software now), *retire* (the
  hub gave this table number to another device, or the TD retired it: the table goes back to
  "not set up");
- keeps the software in step with the hub's (:mod:`kiosk.updater`), switching only between
  matches.

An order counts only when the hub's key pinned at enrollment signed it for this device, once
(:mod:`kiosk.trust`); so does the hub's *retired* answer to the table's own question.

Everything the screen shows is decided on the kiosk's main thread (:meth:`step`, :meth:`screen`);
the network thread only queues orders, and the reports are gathered on a thread of their own.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from typing import Any

from drivers.build_id import running_build
from kiosk.device_health import cpu_temp_c, disk_mb, journal_health, local_ip, uptime_s
from kiosk.enroll import mark_retired
from kiosk.journal import wall_ms
from kiosk.trust import OrderCheck, TrustError, pinned_key
from kiosk.ui import facts
from rulebook.messages import Snapshot
from rulebook.vocab import Phase

log = logging.getLogger("kiosk.fleet")

BUTTONS = ("A", "B", "pause", "td")
#: how long "All buttons work" stays before the match screen returns
PASSED_S = 3.0
#: cut off from the broker this long: ask the hub whether the device was retired meanwhile
OFFLINE_CHECK_S = 5.0


def in_match(snap: Snapshot) -> bool:
    """A match is assigned and not finished: no test, no update, a shorter identify."""
    return facts.has_match(snap) and snap.get("phase") != Phase.FINISHED


class FleetAgent:
    """See the module doc. ``app`` is the :class:`kiosk.app.KioskApp` it serves."""

    def __init__(self, app: Any, *, monotonic: Any = time.monotonic) -> None:
        self.app = app
        self.config = app.config
        self.device = self.config.fleet.device
        self.monotonic = monotonic
        self.orders: queue.Queue[dict[str, Any]] = queue.Queue()
        #: "restart", "retire" or "update" once the kiosk should stop and start again
        self.restart_requested: str | None = None
        self.identify_until: float | None = None
        self.test_state = "idle"
        self.test_pressed: set[str] = set()
        self.test_until = 0.0
        self.test_finished_wall: int | None = None
        self._passed_at: float | None = None
        self.buttons_seen: dict[str, int | None] = dict.fromkeys(BUTTONS)
        self.dice_last_wall: int | None = None
        self._views: dict[str, Any] = {}
        self._overlay_was: str | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._facts: dict[str, Any] = {}
        self.updater: Any = None
        self._confirmed = False
        self._orders_check = OrderCheck(self.device, self.config.fleet.hub_key)

    # -- life cycle -------------------------------------------------------------------------------

    def start(self) -> None:
        from kiosk.updater import Updater

        self.updater = Updater(self.config, on_change=self._wake.set, idle=self._idle)
        self.updater.start()
        self._publish_facts()
        self._thread = threading.Thread(target=self._report_loop, name="fleet-report", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self.updater is not None:
            self.updater.stop()
        if self._thread is not None:
            self._thread.join(5)

    def _idle(self) -> bool:
        """No match in progress, as the main thread last saw (any thread)."""
        with self._lock:
            return self._facts.get("in_match") is False

    # -- orders from the hub (network thread) -----------------------------------------------------

    def on_control(self, message: dict[str, Any]) -> None:
        if message.get("device") != self.device:
            return  # addressed to another device of this table number (a replaced one)
        try:
            self._orders_check.check(message)
        except TrustError as exc:
            log.warning("fleet: %s; ignored", exc)
            return
        self.orders.put(message)

    # -- the main loop ----------------------------------------------------------------------------

    def step(self) -> None:
        now = self.monotonic()
        while True:
            try:
                order = self.orders.get_nowait()
            except queue.Empty:
                break
            self._order(order, now)
        snap = self.app.controller.snapshot()
        if self.test_state == "running" and now >= self.test_until:
            self._end_test("stopped")
        if self._passed_at is not None and now - self._passed_at >= PASSED_S:
            self._passed_at = None
        if self.identify_until is not None and now >= self.identify_until:
            self.identify_until = None
        overlay = self._overlay_name()
        if overlay != self._overlay_was:
            self._overlay_was = overlay
            self.app.view.invalidate()
            self.app._full_redraw = True
            self._wake.set()
        if self.updater is not None and not self._confirmed and self.app._ready_sent:
            link = self.app.link
            if link is not None and link.online:
                self._confirmed = True
                self.updater.confirm()
        if (
            self.updater is not None
            and self.restart_requested is None
            and not in_match(snap)
            and self.updater.switch_if_ready()
        ):
            self.restart_requested = "update"
            self.app.stopping.set()
        self._publish_facts(snap)

    def _order(self, order: dict[str, Any], now: float) -> None:
        action = order.get("action")
        snap = self.app.controller.snapshot()
        log.info("fleet: %s", action)
        if action == "identify":
            from kiosk.ui.screens.setup.identify import IDENTIFY_IN_MATCH_S, IDENTIFY_S

            self.identify_until = now + (IDENTIFY_IN_MATCH_S if in_match(snap) else IDENTIFY_S)
        elif action == "button_test":
            if in_match(snap):
                self.test_state = "refused"
                self.test_finished_wall = wall_ms()
            else:
                from kiosk.ui.screens.setup.button_test import TEST_S

                self.test_state, self.test_pressed = "running", set()
                self.test_until, self.test_finished_wall = now + TEST_S, None
        elif action == "hardware_check":
            from rulebook.hardware_check import Origin

            self.app.check.start(Origin.HUB)
        elif action == "restart":
            self.restart_requested = "restart"
            self.app.stopping.set()
        elif action == "retire":
            mark_retired(self.config.data_path, "retired by the hub")
            self.restart_requested = "retire"
            self.app.stopping.set()
        elif action == "update" and self.updater is not None:
            self.updater.check_now(forced=True)
        self._wake.set()

    # -- the screen -------------------------------------------------------------------------------

    def wake(self) -> None:
        """Report now (any thread): something the Tables page shows changed."""
        self._wake.set()

    def _overlay_name(self) -> str | None:
        if self.app.check.asking:
            return "hardware_check"
        if self.test_state == "running" or self._passed_at is not None:
            return "button_test"
        if self.identify_until is not None:
            return "identify"
        return None

    def screen(self) -> tuple[Any, Any] | None:
        """``(view, what it draws)`` to show instead of the match screen, or None."""
        name = self._overlay_name()
        lang = self.app.config.language
        if name == "hardware_check":
            return None  # the check draws itself (kiosk.app asks it first)
        if name == "identify":
            from kiosk.ui.screens.setup.identify import IdentifyView

            view = self._views.setdefault("identify", IdentifyView(self.config.table_id, lang))
            return view, None
        if name == "button_test":
            from kiosk.ui.screens.setup.button_test import ButtonTestView

            view = self._views.setdefault("button_test", ButtonTestView(lang))
            left = max(0.0, self.test_until - self.monotonic())
            return view, (self._test_buttons(), frozenset(self.test_pressed), left)
        self._views.clear()
        return None

    def take_tap(self) -> bool:
        """A tap while an overlay is shown ends it (and is not a tap on the match screen)."""
        name = self._overlay_name()
        if name == "identify":
            self.identify_until = None
        elif name == "button_test":
            if self.test_state == "running":
                self._end_test("stopped")
            self._passed_at = None
        return name is not None

    # -- buttons and dice -------------------------------------------------------------------------

    def _test_buttons(self) -> tuple[str, ...]:
        pins = self.config.pins.as_dict()
        return tuple(b for b in BUTTONS if b in pins)

    def take_button(self, name: str, event: Any) -> bool:
        """Note a button event; during the test a press ticks it off instead of playing."""
        if event.kind == "press":
            self.buttons_seen[name] = wall_ms()
            self._wake.set()
        if self.test_state != "running":
            return False
        if event.kind == "press":
            self.test_pressed.add(name)
            if self.test_pressed >= set(self._test_buttons()):
                self._end_test("passed")
                self._passed_at = self.monotonic()
            self._wake.set()
        return True

    def note_roll(self) -> None:
        self.dice_last_wall = wall_ms()

    def _end_test(self, state: str) -> None:
        self.test_state = state
        self.test_finished_wall = wall_ms()
        self._wake.set()

    # -- reports ----------------------------------------------------------------------------------

    def _publish_facts(self, snap: Snapshot | None = None) -> None:
        """What the report thread needs from the main thread, copied under the lock."""
        app = self.app
        snap = snap if snap is not None else app.controller.snapshot()
        notice = getattr(app.controller, "journal_notice", None)
        with self._lock:
            self._facts = {
                "journal_notice": f"{notice.problem}: {notice.reason}"[:200] if notice else None,
                "in_match": in_match(snap),
                "screen": self._overlay_name() or ("match" if in_match(snap) else "idle"),
                "buttons": {
                    "configured": app.buttons is not None,
                    "seen": dict(self.buttons_seen),
                },
                "dice": {
                    "configured": bool(self.config.dice.device),
                    "seen": self.dice_last_wall is not None
                    or bool(getattr(app.dice_status, "connected", False)),
                    "last_wall": self.dice_last_wall,
                },
                "button_test": {
                    "state": self.test_state,
                    "pressed": [b for b in BUTTONS if b in self.test_pressed],
                    "finished_wall": self.test_finished_wall,
                },
                "hardware_check": app.check.last,
            }

    def report(self) -> dict[str, Any]:
        """The health report (docs/protocol.md §6)."""
        with self._lock:
            shared = dict(self._facts)
        config = self.config
        journal = journal_health(config.journal_path)
        notice = shared.pop("journal_notice", None)
        if notice and journal["ok"]:  # restored with a problem the TD has not cleared yet
            journal = {"ok": False, "detail": notice}
        free, total = disk_mb(config.data_path)
        update = (
            self.updater.status()
            if self.updater is not None
            else {"state": "idle", "detail": "", "target": ""}
        )
        return {
            "device": self.device,
            "version": _version(),
            "build": running_build(),
            "slot": os.environ.get("BGTABLE_SLOT", "factory"),
            "ip": local_ip(config.broker.host, config.broker.port),
            "hostname": _hostname(),
            "uptime_s": uptime_s(),
            "cpu_temp_c": cpu_temp_c(),
            "disk_free_mb": free,
            "disk_total_mb": total,
            "journal": journal,
            "update": update,
            **shared,
            "sent_wall": wall_ms(),
        }

    def _report_loop(self) -> None:
        """A report every ``report_s`` seconds, at once after each (re)connection and change."""
        interval = self.config.fleet.report_s
        due = 0.0
        was_online = False
        offline_since = self.monotonic()
        while not self._stop.is_set():
            link = self.app.link
            online = link is not None and link.online
            now = self.monotonic()
            if online:
                offline_since = now
            elif now - offline_since >= OFFLINE_CHECK_S:
                offline_since = now
                self._check_retired()
            if online and (not was_online or self._wake.is_set() or now >= due):
                self._wake.clear()
                try:
                    link.publish_device(self.report())
                except Exception:
                    log.exception("fleet: the health report failed")
                due = now + interval
            was_online = online
            self._wake.wait(1.0)
            self._stop.wait(0.1)  # several changes in a row make one report

    def _check_retired(self) -> None:
        """Cut off from the broker for a while: ask the hub (over HTTP) whether this device was
        retired — its credential refused — while the order to stop could not reach it."""
        from kiosk.device_identity import load_or_create
        from kiosk.enroll import EnrollError, EnrollmentClient

        pinned = pinned_key(self.config.fleet.hub_key)
        if pinned is None:
            log.info("fleet: no hub key pinned at enrollment: not asking the hub")
            return
        try:
            identity = load_or_create(self.config.data_path, self.device)
            client = EnrollmentClient(
                self.config.fleet.hub, identity, version=_version(), build=running_build(), pinned=pinned
            )
            answer = client.poll(0)  # signed with the pinned key for this very request, or refused
        except (EnrollError, OSError, ValueError) as exc:
            log.info("fleet: cannot ask the hub about this device (%s)", exc)
            return
        if answer.get("state") == "retired":
            log.warning("fleet: the hub retired this device")
            self.orders.put({"action": "retire", "device": self.device})


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("smart-table")
    except Exception:
        return "0"


def _hostname() -> str:
    import socket

    return socket.gethostname()[:64]
