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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(host: str, port: int, timeout: float = 10.0) -> None:
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
            f"listener {self.port} {self.host}\n"
            f"persistence false\n"
            f"max_queued_messages 100000\n"
            f"{body}"
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
