"""systemd notifications without systemd: a datagram socket standing in for it."""

from __future__ import annotations

import os
import socket
import uuid

from kiosk.notify import Notifier


class Mono:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_outside_systemd_nothing_is_sent():
    notifier = Notifier({})
    assert not notifier.enabled
    assert notifier.ready() is False and notifier.watchdog() is False and notifier.stopping() is False


def test_abstract_socket_and_status():
    name = f"bgtable-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(10)
    notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
    assert notifier.ready("table 3")
    assert sock.recv(4096) == b"READY=1\nSTATUS=table 3"
    assert notifier.status("restored")
    assert sock.recv(4096) == b"STATUS=restored"
    assert notifier.watchdog() is False  # no WATCHDOG_USEC: no pings
    notifier.close()
    sock.close()


def test_watchdog_pings_at_half_the_period(tmp_path):
    path = str(tmp_path / "n")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    mono = Mono()
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(env, monotonic=mono)
    sent = []
    for _ in range(100):  # 100 frames over 10 s
        sent.append(notifier.watchdog())
        mono.t += 0.1
    assert sent.count(True) == 5  # every 2 s
    assert sum(1 for _ in iter(lambda: _recv(sock), None)) == 5
    sock.close()


def test_watchdog_meant_for_another_process_is_ignored(tmp_path):
    env = {"NOTIFY_SOCKET": str(tmp_path / "n"), "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}
    assert Notifier(env).watchdog_interval is None


def test_a_vanished_socket_is_not_an_error(tmp_path):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.enabled and notifier.ready() is False


def _recv(sock: socket.socket) -> bytes | None:
    try:
        return sock.recv(4096)
    except BlockingIOError:
        return None
