"""systemd's notify protocol (``sd_notify``) without a dependency: READY, WATCHDOG, STATUS.

The kiosk runs as a ``Type=notify`` service with ``WatchdogSec=``: it says ``READY=1`` once the
first frame is on the screen and pings ``WATCHDOG=1`` from the UI loop itself, so a frozen loop
(not just a dead process) gets the table restarted. Outside systemd (no ``NOTIFY_SOCKET``)
every call is a no-op.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Notifier:
    """Sends datagrams to ``$NOTIFY_SOCKET``; pings the watchdog at most every WATCHDOG_USEC/2."""

    def __init__(
        self,
        environ: dict[str, str] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ):
        env = os.environ if environ is None else environ
        self._monotonic = monotonic
        self._address = _address(env.get("NOTIFY_SOCKET", ""))
        self._sock: socket.socket | None = None
        if self._address is not None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.watchdog_interval = _watchdog_interval(env)
        self._last_ping = float("-inf")

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines as one datagram; False if not under systemd or on error."""
        if self._sock is None or self._address is None:
            return False
        try:
            self._sock.sendto("\n".join(fields).encode("utf-8"), self._address)
        except OSError as exc:
            log.debug("sd_notify failed: %s", exc)
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def watchdog(self) -> bool:
        """Ping if half the watchdog period has passed since the last ping."""
        if self.watchdog_interval is None:
            return False
        now = self._monotonic()
        if now - self._last_ping < self.watchdog_interval:
            return False
        self._last_ping = now
        return self.send("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):  # abstract namespace
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None


def _watchdog_interval(env: dict[str, str] | os._Environ[str]) -> float | None:
    """Half of WATCHDOG_USEC, in seconds, if the watchdog is meant for this process."""
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 2_000_000
