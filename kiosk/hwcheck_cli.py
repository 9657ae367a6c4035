"""``bgtable check``: the table's hardware check from its command line (docs/td-guide.md).

For the organiser setting up a table with a keyboard or over SSH (stop the kiosk first:
``systemctl stop bgtable``; the check needs the screen, the buttons and the tower). The screen
guides the check exactly as from the TD menu; when it ends (the summary closed by a tap, or after
a minute) each step's outcome is printed, one line each, and the exit status says whether the
table is ready: 0 every step passed (or has nothing to check), 1 a step failed or was skipped,
2 the check could not run (no configuration, a match in progress). ``--step-seconds`` sets each
step's time (60 by default); with ``--headless`` (no screen to read the summary on) the command
ends as soon as the last step has its result. An enrolled table also reports
the result to the hub, as it does after a check from the TD menu.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from kiosk.app import FPS, KioskApp
from kiosk.config import ConfigError, load, with_settings
from kiosk.hwcheck import STEP_S
from kiosk.journal import JournalError
from rulebook.hardware_check import HardwareCheck, Origin, ready

#: after the check, how long an enrolled table waits for its report to leave
REPORT_S = 3.0


def lines(result: HardwareCheck) -> list[str]:
    """The result as printed: ``step: outcome [reason] (detail)`` per step, then the verdict."""
    out = []
    for s in result["steps"]:
        line = f"{s['step']}: {s['outcome']}"
        if s["reason"]:
            line += f" [{s['reason']}]"
        if s["detail"]:
            line += f" ({s['detail']})"
        out.append(line)
    out.append("ready" if ready(result) else "not ready")
    return out


def main_check(args: argparse.Namespace) -> int:
    try:
        config = with_settings(load(getattr(args, "config", None)))
    except ConfigError as exc:
        print(f"bgtable check: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "fullscreen", False):
        config = replace(config, screen=replace(config.screen, fullscreen=True))
    try:
        app = KioskApp(config, headless=bool(getattr(args, "headless", False)))
    except JournalError as exc:
        print(f"bgtable check: journal: {exc}", file=sys.stderr)
        return 2
    results: list[HardwareCheck] = []
    app.check.on_result = results.append
    try:
        app.start()
        step_s = float(getattr(args, "step_seconds", 0) or STEP_S)
        if not 1 <= step_s <= 3600:
            print("bgtable check: --step-seconds: from 1 to 3600", file=sys.stderr)
            return 2
        if not app.check.start(Origin.COMMAND, step_s):
            print("bgtable check: a match is in progress at this table", file=sys.stderr)
            return 2
        headless = bool(getattr(args, "headless", False))
        # the summary stays on the screen until a tap; without a screen nobody reads it there
        while app.check.running and not app.stopping.is_set() and not (headless and results):
            app.step()
            app.window.tick(FPS)
        if results and app.fleet is not None:
            until = time.monotonic() + REPORT_S
            while time.monotonic() < until and not app.stopping.is_set():
                app.step()
                app.window.tick(FPS)
    finally:
        app.close()
    if not results:
        print("bgtable check: stopped before the end", file=sys.stderr)
        return 2
    for line in lines(results[0]):
        print(line)
    return 0 if ready(results[0]) else 1
