"""``bghub demo --window``: one table of the demo room is the real kiosk, in its own window.

The other tables are simulated; this one is the kiosk application itself (``bgtable run``: its
journal, its controller, its pygame screen), started as a separate program with a configuration
written into the demo's temporary directory and connected to the demo's broker like any table in
a room. The hub assigns it its match as it does every table. Nobody scripts it: whoever sits at
the window plays it, with the mouse or the desktop keys (``docs/screens.md``), and watches the
hub react on the dashboard. Closing the window is a table going dark: the hub reports it offline.

A separate process rather than a window in the demo's own: neither the hub nor the demo imports
the kiosk's package, and only the kiosk opens a screen (``docs/demo.md``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

#: the kiosk's TD menu code at the demo's window table
TD_PIN = "0000"


class KioskWindowError(RuntimeError):
    """The kiosk did not come up (no display, a bad configuration); the message has its log's end."""


def kiosk_command() -> list[str]:
    """How to run ``bgtable``: the installed script next to this Python, else the module."""
    script = Path(sys.executable).with_name("bgtable")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "kiosk.cli"]


def kiosk_config(table: str, event: str, broker_port: int, data_dir: Path) -> str:
    """The kiosk's TOML: this table, the demo's broker, a window of 800x480, no GPIO, no dice tower."""
    return "\n".join(
        [
            "# bghub demo --window: the real kiosk at one table of the demo room",
            f'table_id = "{table}"',
            f'event = "{event}"',
            'language = "en"',
            f'data_dir = "{data_dir}"',
            f'td_pin = "{TD_PIN}"',
            'log_level = "info"',
            "",
            "[broker]",
            'host = "127.0.0.1"',
            f"port = {broker_port}",
            "",
            "[pins]",
            "enabled = false",
            "",
            "[screen]",
            'size = "800x480"',
            "fullscreen = false",
            "",
        ]
    )


class KioskProcess:
    """``bgtable run`` for one table; ``start()``, ``wait_online(...)``, ``stop()`` (see module doc)."""

    def __init__(self, table: str, event: str, broker_port: int, directory: Path) -> None:
        self.table = table
        self.directory = directory
        self.config_path = directory / "kiosk.toml"
        self.log_path = directory / "kiosk.log"
        self._config = kiosk_config(table, event, broker_port, directory)
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self) -> KioskProcess:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(self._config, encoding="utf-8")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (kept open while the kiosk runs)
        env = {**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
        self.proc = subprocess.Popen(
            [*kiosk_command(), "run", "--config", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        return self

    def wait_online(self, online: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until ``online()`` (the hub sees the table); :class:`KioskWindowError` if the kiosk exits first."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not online():
            try:
                code = self.proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise KioskWindowError(
                        f"the kiosk of table {self.table} did not connect: {self.log_tail()}"
                    ) from None
                continue
            raise KioskWindowError(
                f"the kiosk of table {self.table} ended (exit status {code}): {self.log_tail()}"
            )

    def poll(self) -> int | None:
        """The kiosk's exit status once it has ended (the window was closed), else None."""
        return self.proc.poll() if self.proc is not None else None

    def log_tail(self, lines: int = 2) -> str:
        """The kiosk's errors (else its last lines), shortened: what to tell the person at the demo."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        all_lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        errors = [line for line in all_lines if " ERROR " in line or line.startswith("bgtable")]
        chosen = (errors or all_lines)[-lines:]
        return " | ".join(line if len(line) <= 300 else line[:297] + "..." for line in chosen)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (the kiosk says offline and closes its journal), then SIGKILL if it lingers."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        if self._log is not None:
            self._log.close()
            self._log = None
