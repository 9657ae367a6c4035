"""``bgtable run``: the table kiosk's main loop, the one owner of the table's state.

The loop, at most 30 times a second: takes touches, clicks and keys from the screen and inputs that the
drivers' threads queued (clock buttons, dice tower, hub assignments and commands), hands table
inputs to the :class:`~kiosk.controller.TableController` (journal first, then the reducer),
journals a ``tick`` while a clock runs, draws only what changed, and pings systemd's watchdog.

* The screen is a :class:`kiosk.ui.window.Window` (pygame-ce, imported only under ``kiosk.ui``,
  and only once a screen is opened): it hands over taps already in the picture's pixels, keys and
  a window close as plain values (:mod:`kiosk.ui.events`), and turns the picture for a rotated
  panel. ``--headless`` uses SDL's dummy video driver (tests, benchmarks).
* Everything else is optional and comes up on its own: no GPIO (a desktop) means no buttons, no
  dice device means manual dice entry, no broker means a table that works alone.
* On start the journal is verified and replayed; a match that was under way comes back with its
  clock paused (reason ``power_loss``) until someone resumes it. A damaged or lost journal
  (:mod:`kiosk.journal_health`) pauses the match for the TD instead, shows a banner until a TD
  has dealt with it, and is reported to the hub in the table's ``status`` (``journal``).
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kiosk import td_preview
from kiosk.config import Config, ConfigError, describe, load, save_setting, with_settings
from kiosk.controller import TableController
from kiosk.hwcheck_session import HardwareCheckSession
from kiosk.journal import Journal, JournalClock, JournalError, wall_ms
from kiosk.journal_health import FILE_NAME as HEALTH_FILE
from kiosk.journal_health import JournalHealth, Notice
from kiosk.notify import Notifier
from kiosk.room_clock import RoomClock
from kiosk.screen_state import ScreenSnapshot
from kiosk.script import ScriptError, ScriptPlayer, Step, load_script
from kiosk.ui import next_carry, pages
from kiosk.ui.events import Expose, Key, Quit, ScreenError, Tap, UiEvent
from rulebook.messages import Event
from rulebook.vocab import InputType, PauseReason, Phase, RollSource

log = logging.getLogger("kiosk")

FPS = 30
#: state publication to the hub: at most this often (events go out at once)
STATE_INTERVAL_S = 0.5
#: the screen is redrawn at once after any input, else at least this often (ms)
REDRAW_RUNNING_MS = 100
REDRAW_IDLE_MS = 250
#: how long the screen says why the table refused a player's input (or until the next touch)
REFUSAL_SHOWN_MS = 8_000


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("smart-table")
    except Exception:
        return "0"


class KioskApp:
    """One table kiosk. ``start()``, then ``step()`` per frame (``run()`` loops), ``close()``."""

    def __init__(
        self,
        config: Config,
        *,
        headless: bool = False,
        fullscreen: bool | None = None,
        script: list[Step] | None = None,
        notifier: Notifier | None = None,
        pin_factory: Any = None,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], int] = wall_ms,
        probes: Any = None,
        check_at_start: bool = False,
    ):
        self.config = config
        self.headless = headless
        self.fullscreen = config.screen.fullscreen if fullscreen is None else fullscreen
        self.notifier = notifier or Notifier()
        self.pin_factory = pin_factory
        self.monotonic = monotonic
        #: the table's time of day (epoch ms): what its journal, its snapshots and its screen use
        self.wall = wall
        self.journal = Journal(config.journal_path, repair=True)
        self.clock = JournalClock(self.journal.last_at(), monotonic)
        self.controller = TableController(
            self.journal,
            config.table_id,
            clock_ms=self.clock,
            wall_ms=wall,
            tick_interval_ms=config.tick_interval_ms,
            default_profile=config.profile,
            health=JournalHealth(config.data_path / HEALTH_FILE),
        )
        #: the journal notice last shown and reported (``status.journal``), read by the link
        self._notice: Notice | None = None
        #: the room's time (the hub's ``hub/time``) against this table's: the clock notice
        self.room_clock = RoomClock(config.clock_notice_s * 1000)
        self._status_fields: dict[str, Any] = {"journal": None}
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.script = ScriptPlayer(script, self.clock) if script else None
        self.stopping = threading.Event()
        self.signalled = False
        self.frames = 0
        self.buttons: Any = None
        self.dice: Any = None
        self.dice_status: Any = None
        self.link: Any = None
        self.outbox: Any = None
        self.boot_id = uuid.uuid4().hex
        self._state_dirty = False
        self._state_sent_at = float("-inf")
        self._full_redraw = True
        self._redraw = True
        self._next_draw_at = float("-inf")
        self._ready_sent = False
        self._closed = False
        #: the screen (a :class:`kiosk.ui.window.Window`), once ``start()`` opened it
        self.window: Any = None
        self.view: Any = None
        self.local: Any = None
        #: the fleet's side of an enrolled table (kiosk.fleet_agent): reports, identify, updates
        self.fleet: Any = None
        #: the hardware check (kiosk.hwcheck_session): from the TD menu, the hub, ``bgtable check``
        self.check = HardwareCheckSession(self, probes)
        #: the first start after enrolling on the screen: the check runs at once, while the
        #: organiser who just set the table up is still at it
        self.check_at_start = check_at_start

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Restore the match, open the screen, start the drivers (each one optional).

        With a hub configured, the outbox is open before the restore: the events the restore
        makes (the ``power_loss`` pause) are stored to send like any other, once each."""
        self._open_outbox()
        self.controller.listeners.append(self._on_events)
        self.controller.restore(self.outbox.last_seq if self.outbox is not None else None)
        log.info(
            "restored %d journal inputs: %s",
            self.controller.restored_inputs,
            json.dumps(self.controller.published_snapshot(), separators=(",", ":")),
        )
        self._sync_notice()
        self._open_screen()
        if self.config.fleet.hub and self.config.fleet.device:
            from kiosk.fleet_agent import FleetAgent

            self.fleet = FleetAgent(self)
        self._start_buttons()
        self._start_dice()
        self._start_link()
        if self.fleet is not None:
            self.fleet.start()
        if self.check_at_start:
            from rulebook.hardware_check import Origin

            self.check.start(Origin.FIRST_BOOT)

    def run(self) -> int:
        """Loop until SIGTERM/SIGINT, a window close or a script's exit; returns the exit status."""
        previous = {
            sig: signal.signal(sig, lambda *_: self._on_signal()) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            try:
                self.start()
            except ScreenError as exc:
                log.error("%s", exc)
                return 2
            while not self.stopping.is_set():
                self.step()
                self.window.tick(FPS)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.close()
        return 0

    def _on_signal(self) -> None:
        """SIGTERM or SIGINT: stop, and do not start again (even if a restart was under way)."""
        self.signalled = True
        self.stopping.set()

    def step(self) -> None:
        """One frame: inputs, ticks, drivers, drawing, watchdog."""
        for event in self.window.poll():
            self._on_ui_event(event)
            self._redraw = True
        self._drain_inbox()
        self._run_script()
        self.controller.maybe_tick()
        if self.buttons is not None:
            self.buttons.poll()
        self._sync_notice()
        self._sync_clock_notice()
        self._carry_next_lines()
        self._publish_state()
        self.check.step()  # first: a check that just ended is in this frame's report facts
        if self.fleet is not None:
            self.fleet.step()
        online = self.link is not None and self.link.online
        if self.local is not None and online != self.local.hub_online:
            self.local.hub_online = online
            self._redraw = True
        if self._redraw or self._full_redraw or self.monotonic() >= self._next_draw_at:
            self._draw()
        self.notifier.watchdog()

    def close(self) -> None:
        """Stop the drivers (the link says offline), close the journal and the screen; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.notifier.stopping()
        if self.fleet is not None:
            self.fleet.close()
        for name in ("buttons", "dice", "link"):
            driver = getattr(self, name)
            if driver is None:
                continue
            try:
                driver.close() if name == "buttons" else driver.stop()
            except Exception:
                log.exception("stopping %s failed", name)
            setattr(self, name, None)
        if self.outbox is not None:
            self.outbox.close()
            self.outbox = None
        self.controller.close()
        if self.window is not None:
            self.window.close()
        self.notifier.close()
        log.info("stopped")

    # -- screen -------------------------------------------------------------------------------

    def _open_screen(self) -> None:
        from kiosk.ui.window import Window  # the display library loads only with a screen

        screen = self.config.screen
        self.window = Window(
            screen.size,
            screen.rotation,
            fullscreen=self.fullscreen,
            headless=self.headless,
            title=f"bgtable {self.config.table_id}",
        )
        self._make_view()
        log.info("screen %dx%d (%s), rotation %d", *screen.size, self.window.driver, screen.rotation)

    def _make_view(self) -> None:
        from kiosk.ui.view import KioskView, LocalState

        self.view = KioskView(self.window.size, lang=self.config.language, flip=self.config.screen.flip)
        self.local = LocalState()
        self.local.td_pin = self.config.td_pin
        self.local.manual_dice = self.config.dice.manual_entry
        self.local.table_number_fixed = bool(self.config.broker.host)
        self.local.journal_notice = self._notice.status() if self._notice else None
        self._full_redraw = True

    def _sync_notice(self) -> None:
        """Show and report the journal notice when it appears or clears (``status.journal``)."""
        notice = self.controller.journal_notice
        if notice == self._notice:
            return
        self._notice = notice
        self._status_fields = {"journal": notice.status() if notice else None}
        if self.local is not None:
            self.local.journal_notice = notice.status() if notice else None
            self._redraw = True
        if self.link is not None:
            self.link.refresh_status()

    def _sync_clock_notice(self) -> None:
        """Show, update or clear the clock notice as the table's clock stands against the room's."""
        if self.local is None:
            return
        offset = self.room_clock.notice(self.wall(), self._mono_ms())
        if offset != self.local.clock_notice:
            self.local.clock_notice = offset
            self._redraw = True

    def _carry_next_lines(self) -> None:
        """The previous match's "Next:" lines on the new match's waiting screen, until its first
        check-in or three minutes (:mod:`kiosk.ui.next_carry`)."""
        local = self.local
        if local is None:
            return
        state = self.controller.state
        carried = next_carry.follow(
            local.carried,
            shown=local.match_id if local.synced else None,
            match_id=state.match_id,
            waiting=state.phase == Phase.WAITING,
            checked_in=state.present.a or state.present.b,
            langs=local.langs,
            now=self.monotonic(),
        )
        if carried != local.carried:
            local.carried = carried
            self._redraw = True

    def _mono_ms(self) -> int:
        return int(self.monotonic() * 1000)

    def _screen(self) -> ScreenSnapshot:
        """The snapshot a frame is drawn (or touched) over, with the TD preview's dry run kept
        current: the confirmation page shows what the reducer would do now."""
        if self.local is not None:
            td_preview.refresh(self.local, self.controller.state)
        return self.controller.screen_snapshot()

    def _draw(self) -> None:
        snap = self._screen()
        overlay = self.check.screen()
        if overlay is None and self.fleet is not None:
            overlay = self.fleet.screen()
        if overlay is not None:  # the hardware check, identify, the button test: the whole screen
            rects = self.window.draw(overlay[0], overlay[1], self.local, self.wall())
        else:
            rects = self.window.draw(self.view, snap, self.local, self.wall())
        self._redraw = False
        # Redraw by itself only as often as the screen can change: 10 per second while a clock
        # runs, 4 per second otherwise (countdowns in whole seconds never skip one).
        cap = REDRAW_RUNNING_MS if snap["clock"]["running"] else REDRAW_IDLE_MS
        interval_ms = min(self.view.next_frame_ms(snap), cap)
        self._next_draw_at = self.monotonic() + interval_ms / 1000
        self.window.present(rects, full=self._full_redraw)
        if self._full_redraw:
            self._full_redraw = False
            if not self._ready_sent:
                self._ready_sent = True
                self.notifier.ready(f"table {self.config.table_id}")
                log.info("first frame")
        self.frames += 1

    # -- screen inputs ------------------------------------------------------------------------

    def _on_ui_event(self, event: UiEvent) -> None:
        if isinstance(event, Quit):
            self.stopping.set()
        elif isinstance(event, Tap):
            if self.check.take_tap(event.pos):
                return
            if self.fleet is not None and self.fleet.take_tap():
                return
            snap = self._screen()
            self._intents(self.view.hit(event.pos, snap, self.local))
        elif isinstance(event, Key):
            snap = self._screen()
            self._intents(self.view.key(event.key, event.mod, snap, self.local))
        elif isinstance(event, Expose):
            self._full_redraw = True  # the picture is intact in the window: present it again

    def _intents(self, intents: list[dict[str, Any]]) -> None:
        for intent in intents or ():
            if "input" in intent:
                self._player_input(intent)
            elif "ui" in intent:
                self.local.apply(intent)  # screen navigation only
            elif "app" in intent:
                self._app_intent(intent)
            else:
                log.warning("ignored an intent of unknown kind: %r", intent)

    def _app_intent(self, intent: dict[str, Any]) -> None:
        """Settings changed at the table: saved in the data directory, applied at once."""
        action = intent["app"]
        try:
            if action == "set_table_id":
                if self.config.broker.host:
                    # the broker credential is the table id's: another id would lock the table out
                    log.warning("table number not changed at the table: it comes with the broker credential")
                    return
                value = intent.get("table", intent.get("table_id"))
                self.config = save_setting(self.config, "table_id", value)
                self.controller.set_table_id(self.config.table_id)
                self._restart_link()
            elif action == "set_language":
                value = intent.get("lang", intent.get("language"))
                self.config = save_setting(self.config, "language", value)
                self.view.lang = self.config.language
                self.view.invalidate()
            elif action == "hardware_check":
                from rulebook.hardware_check import Origin

                self.check.start(Origin.TABLE)
            elif action == "flip":
                flip = intent.get("flip", not self.config.screen.flip)
                self.config = save_setting(self.config, "flip", flip)
                self.view.flip = self.config.screen.flip
                self.view.invalidate()
            else:
                log.warning("ignored an unknown app action %r", action)
        except ConfigError as exc:
            log.warning("setting refused: %s", exc)

    def _player_input(self, inp: dict[str, Any]) -> list[Event]:
        """An input from the players' side of the table (the screen, the clock buttons, the dice):
        applied, and when the table refuses it the screen says why, in the player's language."""
        events = self.controller.submit(inp)
        refusal = self.controller.refusal
        if self.local is not None:
            if refusal is None:
                self.local.refusal = None
            else:
                until = wall_ms() + REFUSAL_SHOWN_MS
                self.local.show_refusal(refusal.code, dict(refusal.params), refusal.side, until)
            self._redraw = True
        return events

    # -- inputs from the drivers' threads -----------------------------------------------------

    def _drain_inbox(self) -> None:
        while True:
            try:
                kind, payload = self.inbox.get_nowait()
            except queue.Empty:
                return
            self._redraw = True
            try:
                self._on_inbox(kind, payload)
            except Exception:  # a bad item must not stop the table
                log.exception("could not handle %s %r", kind, payload)

    def _on_inbox(self, kind: str, payload: Any) -> None:
        if kind == "input":
            self._player_input(payload)
        elif kind == "button":
            self._on_button(*payload)
        elif kind == "roll":
            self._on_roll(payload)
        elif kind == "dice_status":
            self.dice_status = payload
        elif kind == "assign":  # the hub's topics: an assignment and a TD command
            if self.local is not None:  # its players' pages, checked here (shown, never journaled)
                self.local.pages = pages.take(self.local.pages, payload)
            assign = {k: v for k, v in payload.items() if k != "pages"}
            self.controller.submit({**assign, "input": InputType.ASSIGN})
        elif kind == "cmd":
            self.controller.submit({**payload, "input": InputType.CMD})
        elif kind == "hub_time":
            self.room_clock.heard(*payload)
        elif kind == "next":  # the hub's "Next:" lines, checked by the link (shown, never journaled)
            if self.local is not None:
                self.local.next_lines = payload
                self._redraw = True
        else:
            log.warning("ignored inbox item %r", kind)

    def _on_button(self, name: str, event: Any) -> None:
        if self.check.take_button(name, event):
            return
        if self.fleet is not None and self.fleet.take_button(name, event):
            return
        if event.kind != "press":
            return
        state = self.controller.state
        if name in ("A", "B"):
            self._player_input({"input": InputType.PRESS, "side": name, "at": event.at_ms})
        elif name == "pause":  # the TD's key
            if state.phase == Phase.PAUSED:
                self._player_input({"input": InputType.RESUME, "at": event.at_ms})
            else:
                self._player_input({"input": InputType.PAUSE, "reason": PauseReason.TD, "at": event.at_ms})
        elif name == "td":
            side = state.clock.running or state.turn or "A"
            self._player_input({"input": InputType.CALL_TD, "side": side, "at": event.at_ms})

    def _on_roll(self, roll: Any) -> None:
        if self.fleet is not None:
            self.fleet.note_roll()
        if self.check.take_roll(roll):
            return
        if not roll.unreadable:
            dice = [roll.d1, roll.d2]
            self._player_input({"input": InputType.ROLL, "dice": dice, "source": RollSource.TOWER})
            return
        state = self.controller.state
        # whose throw it was is the rulebook's judgement (the tower cannot tell whose hand dropped
        # the dice): the player on turn with a clock, otherwise the player whose roll is due
        side = state.thrower()
        log.info("dice tower: unreadable throw (%s)", roll.reason)
        if side is not None and state.phase == Phase.PLAYING:
            self._player_input({"input": InputType.INVALID_ROLL, "side": side})

    def _run_script(self) -> None:
        if self.script is None:
            return
        for step in self.script.due():
            if step.is_exit:
                self.stopping.set()
            else:
                self.controller.submit(step.item)

    # -- drivers ------------------------------------------------------------------------------

    def _start_buttons(self) -> None:
        pins = self.config.pins
        if not pins.enabled:
            return
        try:
            from drivers.buttons import ButtonPanel

            self.buttons = ButtonPanel(
                pins.as_dict(),
                lambda name, event: self.inbox.put(("button", (name, event))),
                pin_factory=self.pin_factory,
                now_ms=self.clock,
            )
        except Exception as exc:  # no GPIO here (a desktop): the keyboard and screen still work
            log.warning("buttons: not available (%s); running without them", exc)
            self.buttons = None
        else:
            log.info("buttons on GPIO %s", pins.as_dict())

    def _start_dice(self) -> None:
        dice = self.config.dice
        if not dice.device:
            return
        try:
            from drivers.dice import DiceReader

            self.dice = DiceReader(
                dice.device,
                on_roll=lambda roll: self.inbox.put(("roll", roll)),
                on_status=lambda status: self.inbox.put(("dice_status", status)),
                baudrate=dice.baud,
            ).start()
        except Exception as exc:
            log.warning("dice tower %s: not available (%s); dice are entered by hand", dice.device, exc)
            self.dice = None

    def _start_link(self) -> None:
        broker = self.config.broker
        if not broker.host:
            log.info("no broker configured: the table works on its own")
            return
        try:
            from drivers.table_link import TableLink

            self._open_outbox()
            self.link = TableLink(
                self.config.event,
                self.config.table_id,
                broker.host,
                broker.port,
                outbox=self.outbox,
                # computed when sent: its durations (break left, check-in ages) are the hub's anchors
                state_provider=self.controller.snapshot,
                on_assign=lambda payload: self.inbox.put(("assign", payload)),
                on_cmd=lambda cmd: self.inbox.put(("cmd", cmd)),
                username=self.config.mqtt_username,
                password=broker.password or None,
                version=_version(),
                tls=broker.tls,
                tls_ca_file=broker.ca_file or None,
                boot_id=self.boot_id,
                status_fields=lambda: self._status_fields,
                on_control=self.fleet.on_control if self.fleet is not None else None,
                # the moment of receipt is taken here, on the network thread, not when the loop runs
                on_hub_time=lambda wall: self.inbox.put(("hub_time", (wall, self._mono_ms()))),
                on_next=lambda message: self.inbox.put(("next", message)),
            )
            self.link.start()
        except Exception as exc:
            log.warning("hub link: not available (%s); the table works on its own", exc)
            self.link = None
        else:
            log.info("hub link to %s:%d, event %s", broker.host, broker.port, self.config.event)

    def _open_outbox(self) -> None:
        """The durable outbox of events for the hub (only when a hub is configured)."""
        if self.outbox is not None or not self.config.broker.host:
            return
        from drivers.outbox import Outbox

        try:
            self.outbox = Outbox(str(self.config.data_path / "outbox.sqlite3"))
        except Exception as exc:  # the table plays on without a hub
            log.warning("outbox: not available (%s); events are not sent to the hub", exc)

    def _restart_link(self) -> None:
        if self.link is not None:
            self.link.stop()
            self.link = None
        self._start_link()

    # -- to the hub ---------------------------------------------------------------------------

    def _on_events(self, events: list[Event], controller: TableController) -> None:
        """Every event the table makes goes to the hub once: through the link, or into the
        outbox while there is none yet (a restore, a link that could not start), which the link
        sends in order when it starts."""
        self._state_dirty = True
        self._redraw = True
        if self.link is not None:
            for event in events:
                self.link.publish_event(event)
        elif self.outbox is not None:
            for event in events:
                self.outbox.put(event)

    def _publish_state(self) -> None:
        if not self._state_dirty or self.link is None:
            return
        now = self.monotonic()
        if now - self._state_sent_at < STATE_INTERVAL_S:
            return
        self._state_dirty = False
        self._state_sent_at = now
        self.link.publish_state(self.controller.snapshot())


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def main_run(args: argparse.Namespace) -> int:
    """``bgtable run [--config FILE] [--headless] [--fullscreen] [--script FILE]``."""
    config_path = getattr(args, "config", None)
    enrolled_now = False
    if config_path:
        from pathlib import Path

        from kiosk.setup_app import needs_setup, run_setup

        if needs_setup(Path(config_path)):  # a new card: enroll with the hub first
            _setup_logging("info")
            headless = bool(getattr(args, "headless", False))
            status = run_setup(args, headless=headless, fullscreen=bool(getattr(args, "fullscreen", False)))
            if status is not None:
                return status
            enrolled_now = True  # set up on this screen just now: check the hardware first
    try:
        config = with_settings(load(getattr(args, "config", None)))
        script = load_script(args.script) if getattr(args, "script", None) else None
    except (ConfigError, ScriptError) as exc:
        print(f"bgtable run: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "fullscreen", False):
        config = replace(config, screen=replace(config.screen, fullscreen=True))
    _setup_logging(config.log_level)
    log.info("configuration: %s", json.dumps(describe(config)))
    try:
        app = KioskApp(
            config,
            headless=bool(getattr(args, "headless", False)),
            script=script,
            check_at_start=enrolled_now,
        )
    except JournalError as exc:
        print(f"bgtable run: journal: {exc}", file=sys.stderr)
        return 2
    status = app.run()
    if app.fleet is not None and app.fleet.restart_requested and not app.signalled:
        from kiosk.slots import relaunch

        log.info("starting again (%s)", app.fleet.restart_requested)
        relaunch()
    return status
