"""A real Mosquitto broker on a free loopback port, for tests and benchmarks.

It can be stopped and started again on the same port (broker-outage tests) and takes an optional
extra configuration (credentials, ACLs) for the deployment tests.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.patience import WAIT


def free_port() -> int:
    """A loopback port that stays free for the process the test starts next, for about a minute.

    A port the kernel just chose for ``bind(("127.0.0.1", 0))`` and released is free only until
    someone else takes it: on a busy machine another test run binding port 0, or any outgoing
    connection (the kernel picks their local ports from the same range), took it now and then
    before the broker, hub or demo the test started could listen on it. So the port is left in
    TIME_WAIT (a connection to it, closed from the listening side): the kernel then gives it to
    no ``bind`` to port 0 and no outgoing connection, while a server that sets ``SO_REUSEADDR``
    — Mosquitto, asyncio's and aiohttp's servers, the demo's port check — can listen on it.
    """
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port: int = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listener.accept()
            accepted.close()  # the listening side closes first: it keeps the TIME_WAIT
            client.recv(1)  # the close has arrived: the client's close ends the handshake
    return port


def wait_for_port(host: str, port: int, timeout: float = WAIT) -> None:
    """Block until something accepts on host:port (polling a socket, not sleeping blindly)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s") from None
            time.sleep(0.02)


class Mosquitto:
    """One mosquitto process; ``stop()`` / ``start()`` keep the port."""

    def __init__(self, port: int | None = None, extra_conf: str = "", conf_path: Path | None = None):
        self.binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="mosq-"))
        self.extra_conf = extra_conf
        self.conf_path = conf_path
        self.proc: subprocess.Popen | None = None

    def _write_conf(self) -> Path:
        if self.conf_path is not None:
            return self.conf_path
        conf = self.dir / "mosquitto.conf"
        body = self.extra_conf or "allow_anonymous true\n"
        conf.write_text(
            f"listener {self.port} {self.host}\npersistence false\nmax_queued_messages 100000\n{body}"
        )
        return conf

    def start(self) -> Mosquitto:
        conf = self._write_conf()
        self.log = open(self.dir / "mosquitto.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(conf)], stdout=self.log, stderr=subprocess.STDOUT
        )
        try:
            wait_for_port(self.host, self.port)
            if self.proc.poll() is not None:  # another process answered on its port
                raise TimeoutError
        except TimeoutError:
            self.stop()
            log = (self.dir / "mosquitto.log").read_text()
            raise RuntimeError(f"mosquitto did not start: {log}") from None
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
            self.log.close()

    @property
    def url(self) -> str:
        return f"{self.host}:{self.port}"
