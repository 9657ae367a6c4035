"""``bgtable run`` on a table that is not set up: find the hub, show the code, become a table.

The image starts ``bgtable run --config /var/lib/bgtable/table.toml`` on every card; on a new card
that file does not exist. Then, instead of a match screen, the table shows "Table not set up —
code 4821" in big type (:mod:`kiosk.ui.screens.setup.unconfigured`) while a worker thread finds
the hub (:mod:`kiosk.discovery`) and enrolls (:mod:`kiosk.enroll`). Once the TD has typed the
table number, the configuration is on the data partition and ``bgtable run`` goes on as that
table, in the same process. The same lines as ``bgtable enroll`` go to standard output
(``code NNNN``, ``enrolled as table T``), for logs and checks.

A device the hub retired (its table number given to another device, or retired by the TD) has a
``retired`` mark in its state directory and comes here again.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.build_id import running_build
from kiosk.device_identity import IdentityError, load_or_create
from kiosk.discovery import HUB_FILES, DiscoveryError, TwoHubs, find_hub, hints_from_files
from kiosk.enroll import EnrollmentClient, EnrollRefused, EnrollTimeout, HubUnreachable, enroll, is_retired
from kiosk.notify import Notifier
from kiosk.ui.events import Quit, ScreenError
from kiosk.ui.screens.setup.phase import SetupPhase

log = logging.getLogger("kiosk.setup")
FPS = 10
#: the picture's size without a display (tests, screenshots): the small 7" panel's
SETUP_HEADLESS_SIZE = (800, 480)
#: how long one enrollment attempt waits before looking for the hub again
ATTEMPT_S = 120.0
#: how long "Starting as table T" stays on the screen
ENROLLED_S = 1.5


def needs_setup(config_path: Path) -> bool:
    """A table with no configuration yet, or whose device the hub retired."""
    return not config_path.exists() or is_retired(config_path.parent)


@dataclass
class _Shared:
    model: Any
    lock: threading.Lock
    result: str | None = None
    error: str | None = None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("smart-table")
    except Exception:
        return "0"


def run_setup(args: argparse.Namespace, *, headless: bool, fullscreen: bool) -> int | None:
    """Set the table up with the screen; None when enrolled (go on), else an exit status."""
    from kiosk.ui.screens.setup.unconfigured import SetupModel, SetupView
    from kiosk.ui.window import Window

    config_path = Path(args.config)
    state_dir = Path(getattr(args, "state_dir", None) or config_path.parent)
    try:
        identity = load_or_create(state_dir, getattr(args, "device_id", None))
    except (IdentityError, OSError) as exc:
        print(f"bgtable run: {exc}", file=sys.stderr)
        return 2
    hub_files = [args.hub_file] if getattr(args, "hub_file", None) else list(HUB_FILES)
    shared = _Shared(SetupModel(device=identity.device), threading.Lock())
    stop = threading.Event()
    enroller = _Enroller(args, identity, state_dir, config_path, hub_files, shared, stop)
    try:
        # nothing has said yet how big this table's screen is: on the display, its own size (a
        # fixed 800x480 made SDL switch an HDMI screen's mode); headless, the small panel's size
        size = (0, 0) if fullscreen and not headless else SETUP_HEADLESS_SIZE
        window = Window(size, 0, fullscreen=fullscreen, headless=headless, title="bgtable: not set up")
    except ScreenError as exc:
        print(f"bgtable run: {exc}", file=sys.stderr)
        return 2
    view = SetupView(window.size, lang=_setup_language(hub_files))
    notifier = Notifier()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    thread = threading.Thread(target=enroller.run, name="enroll", daemon=True)
    thread.start()
    try:
        status = _show(window, view, notifier, shared, stop)
        if status is not None:
            return status
    finally:
        stop_requested = stop.is_set() and shared.result is None
        stop.set()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        window.close()
        notifier.close()
    if stop_requested:
        return 0
    return None


def _show(window: Any, view: Any, notifier: Notifier, shared: _Shared, stop: threading.Event) -> int | None:
    """The setup screen until enrolled (shown a moment) or stopped: None; 2 when the search gave up."""
    ready = False
    shown_until: float | None = None
    while not stop.is_set():
        for event in window.poll():
            if isinstance(event, Quit):
                stop.set()
        with shared.lock:
            model = shared.model
        rects = window.draw(view, model, None, 0)
        if rects:
            window.present(rects, full=True)
        if not ready:
            ready = True
            notifier.ready("not set up")
        notifier.watchdog()
        if shared.result is not None:
            shown_until = shown_until or _now() + ENROLLED_S
            if _now() >= shown_until:
                break
        if shared.error is not None:
            print(f"bgtable run: {shared.error}", file=sys.stderr)
            return 2
        window.tick(FPS)
    return None


class _Enroller:
    """The setup screen's worker thread: find the hub, then enroll there, again until it works
    (or the search gives up: ``shared.error``), telling the screen's model each step."""

    def __init__(
        self,
        args: argparse.Namespace,
        identity: Any,
        state_dir: Path,
        config_path: Path,
        hub_files: list[Any],
        shared: _Shared,
        stop: threading.Event,
    ) -> None:
        self.args, self.identity, self.hub_files = args, identity, hub_files
        self.state_dir, self.config_path = state_dir, config_path
        self.shared, self.stop = shared, stop
        # A retired device tries the hub it was enrolled with first (once), then looks again.
        self.last_hub: str | None = getattr(args, "hub", None) or _previous_hub(config_path)

    def update(self, **changes: Any) -> None:
        with self.shared.lock:
            self.shared.model = dataclasses.replace(self.shared.model, **changes)

    def on_code(self, code: str) -> None:
        print(f"code {code}", flush=True)
        self.update(phase=SetupPhase.WAITING, code=code)

    def on_key(self, fingerprint: str) -> None:
        print(f"hub key {fingerprint}", flush=True)
        self.update(hub_key=fingerprint)

    def run(self) -> None:
        while not self.stop.is_set():
            url = self._find()
            if self.shared.error is not None:
                return
            if url is not None and self._enroll(url):
                return

    def _find(self) -> str | None:
        """The hub's address, or None to look again (or to give up: ``shared.error``)."""
        explicit = getattr(self.args, "hub", None) or self.last_hub
        self.last_hub = None
        try:
            found = find_hub(explicit, self.hub_files, stop=self.stop)
        except TwoHubs as exc:
            # never a guess between two hubs: the organiser names one in room.txt
            hubs = tuple(h.label for h in exc.hubs)
            if hubs != self.shared.model.hubs:
                print(f"two hubs answer: {', '.join(hubs)}", flush=True)
            self.update(phase=SetupPhase.CHOOSE, hubs=hubs, hub="")
            self.stop.wait(3.0)
            return None
        except DiscoveryError as exc:
            self.update(phase=SetupPhase.REFUSED, detail=str(exc))
            self.shared.error = str(exc)
            return None
        except Exception:
            log.exception("looking for the hub failed; trying again")
            self.stop.wait(5.0)
            return None
        if found is None:
            self.update(phase=SetupPhase.SEARCHING, hub="")
            return None
        url, how = found
        log.info("hub %s (%s)", url, how)
        if self.shared.model.phase == SetupPhase.CHOOSE:  # the organiser named the hub: no longer two
            self.update(phase=SetupPhase.SEARCHING)
        self.update(hub=url, hubs=())
        return url

    def _enroll(self, url: str) -> bool:
        """One enrollment attempt at ``url``; True when it is over (enrolled, or stopped)."""
        client = EnrollmentClient(
            url,
            self.identity,
            version=_version(),
            build=running_build(),
            expect_fingerprint=hints_from_files(self.hub_files).hub_key,
        )
        try:
            done = enroll(
                client,
                self.state_dir,
                self.config_path,
                timeout=ATTEMPT_S,
                on_code=self.on_code,
                on_key=self.on_key,
                on_hub=lambda reached: self.update(
                    phase=SetupPhase.WAITING if reached else SetupPhase.UNREACHABLE
                ),
                stop=self.stop,
            )
        except EnrollTimeout:
            return False
        except HubUnreachable as exc:
            log.info("%s; looking for the hub again", exc)
            self.update(phase=SetupPhase.UNREACHABLE)
            return False
        except EnrollRefused as exc:
            log.warning("%s", exc)
            self.update(phase=SetupPhase.REFUSED, detail=str(exc).split(": ", 1)[-1])
            self.stop.wait(10.0)
            return False
        except Exception:
            if self.stop.is_set():
                return True
            log.exception("enrollment failed; trying again")
            self.stop.wait(5.0)
            return False
        print(f"enrolled as table {done.table}", flush=True)
        self.update(phase=SetupPhase.ENROLLED, table=done.table)
        self.shared.result = done.table
        return True


def _previous_hub(config_path: Path) -> str | None:
    """The hub a retired device was enrolled with (its old configuration's ``fleet.hub``)."""
    import tomllib

    try:
        with open(config_path, "rb") as fh:
            hub = tomllib.load(fh).get("fleet", {}).get("hub")
    except (OSError, ValueError, AttributeError):
        return None
    return hub if isinstance(hub, str) and hub else None


def _now() -> float:
    import time

    return time.monotonic()


def _setup_language(files: list[str]) -> str:
    """``language = xx`` from the boot partition's settings file, else English."""
    from kiosk.ui.i18n import LANGUAGES

    for name in files:
        try:
            text = Path(name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, sep, value = line.strip().partition("=")
            if sep and key.strip().lower() == "language" and value.strip().strip("\"'") in LANGUAGES:
                return value.strip().strip("\"'")
    return "en"
