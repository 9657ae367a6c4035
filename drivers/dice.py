"""Reads the dice tower's serial line (docs/dice-reader.md) on a thread of its own.

Why a thread: the kiosk's main loop must never wait on a serial port, and a tower may be
unplugged and plugged back at any moment in a tournament room. The reader owns the port: it
opens it with ``serial.serial_for_url`` (so "/dev/ttyACM0", "/dev/dice", a pty path and
"loop://" all work), decodes frames with :mod:`drivers.dice_protocol`, and when the port fails
(SerialException / OSError: cable pulled, device gone) closes it and tries again every
``reopen_interval_s`` until the device is back. Bad frames are data: each is logged with its
reason and counted in :class:`DiceStatus`; the next good frame is read as usual.

API used by the kiosk::

    from drivers.dice import DiceReader, DiceStatus, Roll

    reader = DiceReader("/dev/dice", on_roll=roll_queue.put, on_status=status_queue.put)
    reader.start()
    ...                       # Roll(d1, d2, seq, device_id, at_ms, unreadable, reason)
    reader.stop()

* ``on_roll(Roll)``: every valid throw, in order, once per ``seq`` (a repeated frame with the
  same seq is dropped and counted as a duplicate). ``at_ms`` is the monotonic ms at which the line
  was received (the kiosk's input clock). A throw the tower could not read arrives as a Roll with
  ``unreadable=True``, ``d1 == d2 == 0`` and ``reason`` (e.g. "cocked"): the table asks for a
  re-roll. Whether a roll was premature is for the rulebook to decide, not this reader.
* ``on_status(DiceStatus)``: a fresh immutable snapshot whenever something changes (connected,
  disconnected, heartbeat, heartbeat went stale, a frame rejected or duplicated, a throw).
  :meth:`DiceReader.status` returns the current one at any time.
* Both callbacks run on the reader thread: they must be quick and must not block (put on a
  queue). An exception in a callback is logged and the reader carries on.
* Dice order: ``d1`` is the die of colour A (the colour given to side A), ``d2`` of colour B.

Repeats: the reader remembers the last throw ``seq``; a frame with the same seq is a repeat. A
heartbeat with a new device id or an uptime lower than before (the tower restarted and counts from
0 again) clears that memory, and so does reopening the port (a tower unplugged from USB has
restarted, and its first heartbeat may have been sent before the port was open).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import serial

from drivers.dice_protocol import (
    HEARTBEAT_PERIOD_S,
    SEQ_MODULUS,
    FrameDecoder,
    FrameError,
    HeartbeatFrame,
    RollFrame,
    UnreadableFrame,
)

log = logging.getLogger(__name__)


def monotonic_ms() -> int:
    """Milliseconds on the monotonic clock (the kiosk's time base for inputs)."""
    return time.monotonic_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Roll:
    """One throw read by the tower. ``d1``: die of colour A, ``d2``: colour B (0 when unreadable)."""

    d1: int
    d2: int
    seq: int
    device_id: str | None
    at_ms: int
    unreadable: bool = False
    reason: str | None = None

    @property
    def dice(self) -> tuple[int, int]:
        return (self.d1, self.d2)


def _empty_counts() -> MappingProxyType[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class DiceStatus:
    """What the kiosk shows about its tower: link, identity, freshness and counters.

    ``heartbeat_ok``: a heartbeat arrived within ``heartbeat_timeout_s`` (False before the first).
    ``rejects``: rejected lines by :class:`~drivers.dice_protocol.ErrorReason` value.
    ``last_error``: the last port error or rejection, as text.
    """

    url: str
    connected: bool = False
    device_id: str | None = None
    firmware: str | None = None
    uptime_s: int | None = None
    last_heartbeat_ms: int | None = None
    heartbeat_ok: bool = False
    heartbeats: int = 0
    rolls: int = 0
    unreadable: int = 0
    duplicates: int = 0
    gaps: int = 0
    rejected: int = 0
    rejects: MappingProxyType[str, int] = field(default_factory=_empty_counts)
    last_error: str | None = None
    open_failures: int = 0
    connects: int = 0
    at_ms: int = 0


#: Errors that mean "the port is gone or unusable": close it and retry later.
_PORT_ERRORS = (serial.SerialException, OSError, ValueError, TypeError)


class DiceReader:
    """Owns one dice tower port on a daemon thread; see the module docstring for the contract."""

    def __init__(
        self,
        url: str,
        on_roll: Callable[[Roll], None],
        on_status: Callable[[DiceStatus], None] | None = None,
        baudrate: int = 115200,
        reopen_interval_s: float = 1.0,
        *,
        heartbeat_timeout_s: float = 3 * HEARTBEAT_PERIOD_S,
        read_timeout_s: float = 0.1,
        now_ms: Callable[[], int] = monotonic_ms,
    ) -> None:
        self.url = url
        self._on_roll = on_roll
        self._on_status = on_status
        self._baudrate = baudrate
        self._reopen_interval_s = reopen_interval_s
        self._heartbeat_timeout_ms = int(heartbeat_timeout_s * 1000)
        self._read_timeout_s = read_timeout_s
        self._now_ms = now_ms
        self._lock = threading.Lock()
        self._status = DiceStatus(url=url)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self._last_seq: int | None = None
        self._decoder = FrameDecoder()

    # -- public ----------------------------------------------------------------------------

    def start(self) -> DiceReader:
        """Start the reader thread (returns at once; the port is opened on the thread)."""
        if self._thread is not None:
            raise RuntimeError("DiceReader already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"dice-reader {self.url}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close the port; idempotent. Waits at most ``timeout`` seconds."""
        self._stop.set()
        port = self._port
        if port is not None:
            try:
                port.cancel_read()  # wake a blocking read at once where the backend can
            except Exception as exc:  # best effort; the read times out anyway
                log.debug("dice tower %s: cancel_read: %s", self.url, exc)
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def status(self) -> DiceStatus:
        """The current status snapshot (thread-safe)."""
        with self._lock:
            return self._status

    @property
    def port(self) -> Any:
        """The open pyserial port, or None. For ``loop://`` tests (write into it) and diagnostics."""
        return self._port

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> DiceReader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    if self._port is None and not self._open():
                        self._stop.wait(self._reopen_interval_s)
                        continue
                    self._read_once()
                    self._check_heartbeat()
                except Exception as exc:  # a bug here must not leave the table without dice
                    log.exception("dice tower %s: reader error; reopening", self.url)
                    self._close(f"reader error: {exc!r}")
                    self._stop.wait(self._reopen_interval_s)
        finally:
            self._close(None)

    def _open(self) -> bool:
        try:
            port = serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=self._read_timeout_s)
        except _PORT_ERRORS as exc:
            first = self._status.open_failures == 0 or self._status.connected
            (log.warning if first else log.debug)("dice tower %s: cannot open: %s", self.url, exc)
            self._update(connected=False, open_failures=self._status.open_failures + 1, last_error=str(exc))
            return False
        self._port = port
        self._decoder = FrameDecoder()  # a fresh line: half a frame from before is not kept
        self._last_seq = None  # a replugged tower has restarted and counts from 0
        log.info("dice tower %s: connected", self.url)
        self._update(connected=True, open_failures=0, connects=self._status.connects + 1)
        return True

    def _read_once(self) -> None:
        port = self._port
        try:
            data = port.read(max(1, port.in_waiting))
        except _PORT_ERRORS as exc:
            if self._stop.is_set():
                return
            log.warning("dice tower %s: disconnected: %s", self.url, exc)
            self._close(f"disconnected: {exc}")
            self._stop.wait(self._reopen_interval_s)
            return
        if not data:
            return
        at = self._now_ms()
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self._reject(item)
            else:
                self._handle(item, at)

    def _close(self, error: str | None) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception as exc:  # closing a vanished device may fail too
                log.debug("dice tower %s: close: %s", self.url, exc)
        if error is not None or self._status.connected:
            changes: dict[str, Any] = {"connected": False, "heartbeat_ok": False}
            if error is not None:
                changes["last_error"] = error
            self._update(**changes)

    # -- frames ----------------------------------------------------------------------------

    def _reject(self, error: FrameError) -> None:
        log.warning("dice tower %s: rejected line %r: %s", self.url, error.line, error)
        rejects = dict(self._status.rejects)
        rejects[error.reason.value] = rejects.get(error.reason.value, 0) + 1
        self._update(
            rejected=self._status.rejected + 1, rejects=MappingProxyType(rejects), last_error=str(error)
        )

    def _handle(self, frame: RollFrame | UnreadableFrame | HeartbeatFrame, at: int) -> None:
        if isinstance(frame, HeartbeatFrame):
            self._heartbeat(frame, at)
            return
        if self._last_seq is not None and frame.seq == self._last_seq:
            log.info("dice tower %s: repeated frame seq %d dropped", self.url, frame.seq)
            self._update(duplicates=self._status.duplicates + 1)
            return
        gaps = self._status.gaps
        if self._last_seq is not None and frame.seq != (self._last_seq + 1) % SEQ_MODULUS:
            log.warning("dice tower %s: seq jumped from %d to %d", self.url, self._last_seq, frame.seq)
            gaps += 1
        self._last_seq = frame.seq
        device = self._status.device_id
        if isinstance(frame, RollFrame):
            roll = Roll(frame.d1, frame.d2, frame.seq, device, at)
            self._update(rolls=self._status.rolls + 1, gaps=gaps)
        else:
            log.info("dice tower %s: throw %d unreadable (%s)", self.url, frame.seq, frame.reason)
            roll = Roll(0, 0, frame.seq, device, at, unreadable=True, reason=frame.reason)
            self._update(unreadable=self._status.unreadable + 1, gaps=gaps)
        try:
            self._on_roll(roll)
        except Exception:
            log.exception("dice tower %s: on_roll failed for %s", self.url, roll)

    def _heartbeat(self, frame: HeartbeatFrame, at: int) -> None:
        st = self._status
        restarted = st.device_id is not None and (
            frame.device_id != st.device_id or (st.uptime_s is not None and frame.uptime_s < st.uptime_s)
        )
        if restarted:
            log.info("dice tower %s: %s restarted or replaced; seq memory cleared", self.url, frame.device_id)
            self._last_seq = None
        if st.device_id is None or restarted or frame.firmware != st.firmware:
            log.info("dice tower %s: device %s firmware %s", self.url, frame.device_id, frame.firmware)
        self._update(
            device_id=frame.device_id,
            firmware=frame.firmware,
            uptime_s=frame.uptime_s,
            last_heartbeat_ms=at,
            heartbeat_ok=True,
            heartbeats=st.heartbeats + 1,
        )

    def _check_heartbeat(self) -> None:
        st = self._status
        if (
            st.heartbeat_ok
            and st.last_heartbeat_ms is not None
            and self._now_ms() - st.last_heartbeat_ms > self._heartbeat_timeout_ms
        ):
            log.warning("dice tower %s: no heartbeat for %d ms", self.url, self._heartbeat_timeout_ms)
            self._update(heartbeat_ok=False)

    def _update(self, **changes: Any) -> None:
        with self._lock:
            self._status = replace(self._status, at_ms=self._now_ms(), **changes)
            status = self._status
        if self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:
                log.exception("dice tower %s: on_status failed", self.url)
