"""Real processes for the fleet's end-to-end tests: a ``bghub`` (embedded broker, or a Mosquitto
made by ``bghub broker-config``), ``bgtable enroll`` and ``bgtable run`` processes, and the TD's
HTTP calls. Everything runs on loopback with free ports, in the test's temporary directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hub.broker.mosquitto import main as broker_config_main
from tests.faults.support import PASSWORD, TdClient, wait_until
from tests.support.broker import Mosquitto, free_port, wait_for_port
from tests.support.patience import patience

WAIT = patience(40.0)
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "GPIOZERO_PIN_FACTORY": "mock"}
BIN = Path(sys.executable).parent

__all__ = ["PASSWORD", "TdClient", "wait_until"]


class Lines:
    """A process's output lines, read on a thread, waited for by pattern."""

    def __init__(self, stream: Any, log: Path) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.closed = False
        self._log = open(log, "a", encoding="utf-8")  # noqa: SIM115 - closed by the reader
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self._log.write(line + "\n")
            self._log.flush()
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        self._log.close()

    def wait_for(self, pattern: str, timeout: float = WAIT, start: int = 0) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[start:]:
                    found = regex.search(line)
                    if found:
                        return found
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"no line matching {pattern!r}; got {self.lines[-20:]}")
                self._cond.wait(left)


class Hub:
    """``bghub run`` as a process; ``mosquitto`` is a running broker from broker-config, or None
    for the embedded broker."""

    def __init__(
        self,
        tmp: Path,
        event: str,
        *,
        room: Path | None = None,
        broker_port: int | None = None,
        extra: list[str] | None = None,
        name: str = "hub",
        port: int | None = None,
    ) -> None:
        self.event = event
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        password = tmp / "td-password"
        password.write_text(PASSWORD + "\n")
        self.db = tmp / f"{name}.sqlite3"
        args = [str(BIN / "bghub"), "run", "--event", event, "--db", str(self.db)]
        args += ["--http", f"127.0.0.1:{self.port}", "--password-file", str(password)]
        if room is not None:
            args += ["--broker", f"127.0.0.1:{broker_port}", "--broker-credentials", str(room / "hub.toml")]
        else:
            self.broker_port = broker_port or free_port()
            args += ["--embedded-port", str(self.broker_port)]
        args += extra or []
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV)
        self.out = Lines(self.proc.stdout, tmp / f"{name}.log")
        started = self.out.wait_for(r"bghub: event .*, hub key (\S+), dashboard http://")
        #: the fingerprint of the hub's signing key, as its start-up line says
        self.fingerprint = started.group(1)
        wait_for_port("127.0.0.1", self.port, WAIT)
        self.td = TdClient(self.url)

    def public_key(self) -> str:
        """The hub's public key (base64), as tables pin it."""
        from drivers.sealed_box import b64encode
        from drivers.signing import parse_private_key, public_of

        return b64encode(public_of(parse_private_key((self.db.parent / "hub-signing.key").read_text())))

    def fleet(self) -> list[dict[str, Any]]:
        return self.td.get("/api/fleet")

    def device(self, device: str) -> dict[str, Any] | None:
        return next((row for row in self.fleet() if row["device"] == device), None)

    def wait_device(
        self, device: str, predicate: Callable[[dict[str, Any]], Any], what: str
    ) -> dict[str, Any]:
        def check() -> dict[str, Any] | None:
            row = self.device(device)
            return row if row is not None and predicate(row) else None

        return wait_until(check, WAIT, what)

    def table(self, table: str) -> dict[str, Any] | None:
        try:
            return self.td.get(f"/api/tables/{table}")
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise

    def online(self, table: str) -> bool:
        detail = self.table(table)
        return bool(detail and detail["tile"]["online"])

    def stop(self) -> None:
        stop(self.proc)


def call(
    url: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """One HTTP request without a session; ``(status, JSON answer)``."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers or {})
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


class Room:
    """``bghub broker-config`` output and the real Mosquitto running it."""

    def __init__(self, tmp: Path, event: str, *extra: str, tables: str = "1-3") -> None:
        self.port = free_port()
        self.out = tmp / "room"
        argv = ["--event", event, "--tables", tables, "--out", str(self.out), "--port", str(self.port)]
        assert broker_config_main([*argv, "--bind", "127.0.0.1", "--host", "127.0.0.1", *extra]) == 0
        self.broker = Mosquitto(port=self.port, conf_path=self.out / "mosquitto.conf").start()

    def log(self) -> str:
        return (self.broker.dir / "mosquitto.log").read_text(errors="replace")

    def stop(self) -> None:
        self.broker.stop()


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


class Enroll:
    """``bgtable enroll`` as a process."""

    def __init__(self, tmp: Path, hub_url: str, state: Path, device: str, *extra: str) -> None:
        args = [
            str(BIN / "bgtable"),
            "enroll",
            "--hub",
            hub_url,
            "--state-dir",
            str(state),
            "--device-id",
            device,
        ]
        self.proc = subprocess.Popen([*args, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        self.out = Lines(self.proc.stdout, tmp / f"enroll-{device}.out")
        self.err = Lines(self.proc.stderr, tmp / f"enroll-{device}.err")

    def code(self) -> str:
        return self.out.wait_for(r"^code (\d{4})$").group(1)

    def wait(self) -> int:
        return self.proc.wait(WAIT)


class Table:
    """``bgtable run --headless`` as a process, restarted when it exits (as systemd's
    ``Restart=always`` does) until :meth:`stop`."""

    def __init__(self, tmp: Path, config: Path, name: str, *extra: str, restart: bool = False) -> None:
        self.args = [str(BIN / "bgtable"), "run", "--headless", "--config", str(config), *extra]
        self.log = tmp / f"table-{name}.log"
        self.restart = restart
        self.starts = 0
        self.exits: list[int] = []
        self._stopping = False
        self.proc = self._start()
        self.out = self._out
        if restart:
            threading.Thread(target=self._supervise, daemon=True).start()

    def _start(self) -> subprocess.Popen[bytes]:
        self.starts += 1
        proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV)
        self._out = Lines(proc.stdout, self.log)
        self.out = self._out
        return proc

    def _supervise(self) -> None:
        while not self._stopping:
            code = self.proc.wait()
            self.exits.append(code)
            if self._stopping:
                return
            time.sleep(0.5)  # RestartSec
            if not self._stopping:
                self.proc = self._start()

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        self._stopping = True
        stop(self.proc)


def broker_of(config: Path) -> dict[str, Any]:
    return tomllib.loads(config.read_text())["broker"]


@contextlib.contextmanager
def cleanup(*items: Any) -> Any:
    try:
        yield
    finally:
        for item in reversed(items):
            with contextlib.suppress(Exception):
                item.stop()


def queue_get(q: queue.Queue[Any], timeout: float = WAIT) -> Any:
    return q.get(timeout=timeout)
