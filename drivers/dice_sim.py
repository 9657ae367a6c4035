"""A dice tower simulator speaking the tower protocol (docs/dice-reader.md) on a pseudo-terminal.

Why: the kiosk, the tests and a demo room need a tower without hardware. The simulator plays the
microcontroller's part byte for byte, so the code path through pyserial, the tty layer and
:class:`drivers.dice.DiceReader` is the real one.

``bgtable dice-sim [--interval S] [--device-id ID] [--seed N]`` opens a pty, prints
``dice tower simulator on /dev/pts/N`` (point the kiosk's dice port there), then sends a heartbeat
every 5 s and a throw every ``interval`` seconds (about one in ten unreadable; ``--interval 0``:
only on command). Commands on stdin, one per line::

    r            roll random dice now        r 3 5    roll 3 (colour A) and 5 (colour B)
    u [reason]   an unreadable throw         h        a heartbeat
    d            repeat the last throw frame (same seq: the reader must drop it)
    g            a burst of line noise       b        reboot (seq and uptime restart at 0)
    q            quit

:class:`DiceTowerSimulator` is the reusable part: give it a file descriptor (the pty master) or
anything with ``write(bytes)`` (a pyserial port, e.g. ``loop://``) and call
:meth:`~DiceTowerSimulator.roll`, :meth:`~DiceTowerSimulator.unreadable`,
:meth:`~DiceTowerSimulator.heartbeat`, :meth:`~DiceTowerSimulator.garbage`.
:class:`PtyPort` makes the pty (raw mode, non-blocking master, like a UART nobody listens to:
frames are dropped rather than blocking when nothing reads).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import selectors
import sys
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from drivers.dice_protocol import (
    HEARTBEAT_PERIOD_S,
    SEQ_MODULUS,
    UNREADABLE_REASONS,
    format_heartbeat,
    format_roll,
    format_unreadable,
)

log = logging.getLogger(__name__)


class _Writable(Protocol):
    def write(self, data: bytes, /) -> Any: ...


class PtyPort:
    """A pseudo-terminal pair: the simulator writes to ``master_fd``, the reader opens ``slave_path``.

    The slave is put in raw mode and kept open here, so bytes are never translated by the tty
    layer and the device node lives until :meth:`close` (closing it = unplugging the tower).
    """

    def __init__(self) -> None:
        self.master_fd, self._slave_fd = os.openpty()
        tty.setraw(self._slave_fd)
        os.set_blocking(self.master_fd, False)
        self.slave_path = os.ttyname(self._slave_fd)
        self.closed = False

    def close(self) -> None:
        """Close both ends; a reader on the slave then gets an I/O error (as on unplug)."""
        if self.closed:
            return
        self.closed = True
        for fd in (self.master_fd, self._slave_fd):
            try:
                os.close(fd)
            except OSError as exc:
                log.debug("pty close: %s", exc)

    def __enter__(self) -> PtyPort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DiceTowerSimulator:
    """Speaks the tower protocol into a file descriptor or a writable port (thread-safe)."""

    def __init__(
        self,
        fd_or_serial: int | _Writable,
        device_id: str = "SIM-0001",
        firmware: str = "sim-1.0",
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_write: Callable[[bytes], None] | None = None,
        seq: int = 0,
    ) -> None:
        self._target = fd_or_serial
        self.device_id = device_id
        self.firmware = firmware
        self._rng = rng if rng is not None else random.Random()
        self._clock = clock
        self._booted = clock()
        self._seq = seq % SEQ_MODULUS  # the next throw's seq (0 after power-up)
        self._last_throw: bytes | None = None
        self._lock = threading.Lock()
        self._on_write = on_write
        self.sent: deque[bytes] = deque(maxlen=256)  # the latest writes, in order

    @property
    def next_seq(self) -> int:
        return self._seq

    def roll(self, d1: int | None = None, d2: int | None = None) -> bytes:
        """Send a readable throw (random dice where not given); returns the frame."""
        with self._lock:
            d1 = self._rng.randint(1, 6) if d1 is None else d1
            d2 = self._rng.randint(1, 6) if d2 is None else d2
            return self._throw(format_roll(self._seq, d1, d2))

    def unreadable(self, reason: str = "cocked") -> bytes:
        """Send a throw the tower could not read (cocked die, die outside, ...)."""
        with self._lock:
            return self._throw(format_unreadable(self._seq, reason))

    def heartbeat(self) -> bytes:
        """Send ``$H`` with the device id, firmware and whole seconds since (re)boot."""
        with self._lock:
            frame = format_heartbeat(self.device_id, self.firmware, int(self._clock() - self._booted))
            self._write(frame)
            return frame

    def repeat(self) -> bytes | None:
        """Send the last throw frame again (same seq), as a tower retrying a frame would."""
        with self._lock:
            if self._last_throw is not None:
                self._write(self._last_throw)
            return self._last_throw

    def garbage(self, data: bytes | None = None) -> bytes:
        """Write raw bytes (random line noise when not given)."""
        with self._lock:
            if data is None:
                data = bytes(self._rng.randrange(256) for _ in range(self._rng.randint(1, 40)))
            self._write(data)
            return data

    def reboot(self) -> None:
        """Restart the simulated device: seq and uptime start again at 0 (send a heartbeat next)."""
        with self._lock:
            self._seq = 0
            self._booted = self._clock()
            self._last_throw = None

    def _throw(self, frame: bytes) -> bytes:
        self._seq = (self._seq + 1) % SEQ_MODULUS
        self._last_throw = frame
        self._write(frame)
        return frame

    def _write(self, data: bytes) -> None:
        self.sent.append(data)
        if self._on_write is not None:
            self._on_write(data)
        if isinstance(self._target, int):
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self._target, view)
                except BlockingIOError:
                    log.debug("dice sim: nobody is reading; %d byte(s) dropped", len(view))
                    return
                view = view[n:]
        else:
            self._target.write(data)
            flush = getattr(self._target, "flush", None)
            if callable(flush):
                flush()


def handle_command(sim: DiceTowerSimulator, line: str) -> bool:
    """Apply one stdin command to ``sim``; False means quit. Unknown commands are reported."""
    words = line.split()
    if not words:
        return True
    cmd, rest = words[0].lower(), words[1:]
    try:
        if cmd == "q":
            return False
        if cmd == "r":
            if rest:
                d1, d2 = (int(w) for w in rest)
                sim.roll(d1, d2)
            else:
                sim.roll()
        elif cmd == "u":
            sim.unreadable(rest[0] if rest else "cocked")
        elif cmd == "h":
            sim.heartbeat()
        elif cmd == "d":
            sim.repeat()
        elif cmd == "g":
            sim.garbage()
        elif cmd == "b":
            sim.reboot()
            sim.heartbeat()
        else:
            print(f"unknown command {line.strip()!r} (r, r D1 D2, u [reason], h, d, g, b, q)", flush=True)
    except ValueError as exc:
        print(f"bad command {line.strip()!r}: {exc}", flush=True)
    return True


def main_dice_sim(args: argparse.Namespace) -> int:
    """``bgtable dice-sim``: run the simulator on a new pty until 'q', end of input with no timer, or ^C."""
    interval = float(getattr(args, "interval", 5.0) or 0.0)
    device_id = getattr(args, "device_id", None) or "SIM-0001"
    seed = getattr(args, "seed", None)
    rng = random.Random(seed)
    unreadable_rate = float(getattr(args, "unreadable_rate", 0.1))
    with PtyPort() as pty:
        sim = DiceTowerSimulator(
            pty.master_fd,
            device_id=device_id,
            rng=rng,
            on_write=lambda frame: print(f"sent {frame!r}", flush=True),
        )
        print(f"dice tower simulator on {pty.slave_path}", flush=True)
        print("commands: r | r D1 D2 | u [reason] | h | d | g | b | q", flush=True)
        try:
            return _run_loop(sim, interval, rng, unreadable_rate)
        except KeyboardInterrupt:
            return 0


def _run_loop(sim: DiceTowerSimulator, interval: float, rng: random.Random, unreadable_rate: float) -> int:
    selector = selectors.DefaultSelector()
    stdin_fd: int | None = None
    try:
        stdin_fd = sys.stdin.fileno()
        selector.register(stdin_fd, selectors.EVENT_READ)
    except (AttributeError, OSError, ValueError):
        stdin_fd = None  # no usable stdin: timer only
    pending = b""
    now = time.monotonic()
    next_beat = now
    next_throw = now + interval if interval > 0 else math.inf
    try:
        while True:
            now = time.monotonic()
            if now >= next_beat:
                sim.heartbeat()
                next_beat = now + HEARTBEAT_PERIOD_S
            if now >= next_throw:
                if rng.random() < unreadable_rate:
                    sim.unreadable(rng.choice(sorted(UNREADABLE_REASONS)))
                else:
                    sim.roll()
                next_throw = now + interval
            timeout = max(0.0, min(next_beat, next_throw) - time.monotonic())
            if not selector.select(timeout) or stdin_fd is None:
                continue
            chunk = os.read(stdin_fd, 4096)
            if not chunk:
                selector.unregister(stdin_fd)
                stdin_fd = None
                if next_throw == math.inf:
                    return 0  # end of input and no timer: nothing more to do
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                if not handle_command(sim, raw.decode("utf-8", "replace")):
                    return 0
    finally:
        selector.close()
