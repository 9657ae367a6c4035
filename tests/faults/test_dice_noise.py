"""Random bytes on the dice tower's line: the reader keeps running and reads every good frame.

The decoder alone is fuzzed in ``tests/drivers/test_dice_protocol.py``; this is the whole reader
on its own thread, through a pseudo-terminal (raw mode, as a USB serial tower) and through
``loop://``: hundreds of bursts of noise (random bytes, stray ``$``, ``*``, CR and LF, lines far
longer than a frame, half frames, frames with a wrong checksum), each followed by one valid roll
frame. Every valid roll arrives once, in order, with its dice; the noise is counted as rejected
lines; the thread never stops.
"""

from __future__ import annotations

import os
import random
import select
import threading
from collections.abc import Iterator

import pytest

from drivers.dice import DiceReader, DiceStatus, Roll
from drivers.dice_protocol import format_heartbeat, format_roll
from drivers.dice_sim import PtyPort
from tests.support.patience import patience

WAIT = patience(20.0)
ROUNDS = int(os.environ.get("SMART_TABLE_DICE_ROUNDS", "2000"))


def noise(rng: random.Random) -> bytes:
    """One burst of what a noisy cable, a reset tower or a wrong baud rate produce."""
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
    if kind == 1:
        return bytes(rng.choice(b"$*,\r\nR0123456789ABCDEF") for _ in range(rng.randrange(1, 200)))
    if kind == 2:
        return b"$R," + bytes(rng.randrange(32, 127) for _ in range(rng.randrange(80, 500)))  # too long
    if kind == 3:
        return format_roll(rng.randrange(65536), 3, 4)[: rng.randrange(1, 12)]  # cut short
    if kind == 4:
        good = bytearray(format_roll(rng.randrange(65536), 5, 2))
        good[3] ^= 0x01  # one bit flipped: the checksum no longer matches
        return bytes(good)
    if kind == 5:
        return b"\x00" * rng.randrange(1, 50) + b"\xff" * rng.randrange(1, 50)
    return format_heartbeat("NOISY-1", "fw-1", rng.randrange(0, 2**32))[:-3] + b"ZZ\r\n"


def stream(seed: int, rounds: int) -> tuple[list[bytes], list[tuple[int, int, int]]]:
    """Chunks to write, and the (seq, d1, d2) of the valid rolls among them, in order."""
    rng = random.Random(seed)
    chunks, rolls = [], []
    for seq in range(rounds):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        chunks.append(noise(rng) + format_roll(seq, d1, d2))
        rolls.append((seq, d1, d2))
    return chunks, rolls


class Watch:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.rolls: list[Roll] = []
        self.status: DiceStatus | None = None

    def on_roll(self, roll: Roll) -> None:
        with self.cond:
            self.rolls.append(roll)
            self.cond.notify_all()

    def on_status(self, status: DiceStatus) -> None:
        with self.cond:
            self.status = status
            self.cond.notify_all()

    def wait(self, predicate, what: str) -> None:
        with self.cond:
            assert self.cond.wait_for(predicate, WAIT), f"{what}; rolls {len(self.rolls)}, {self.status}"


@pytest.fixture
def pty() -> Iterator[PtyPort]:
    port = PtyPort()
    yield port
    port.close()


def write_all(fd: int, data: bytes) -> None:
    """Write to the (non-blocking) pty master as fast as the reader drains it."""
    view = memoryview(data)
    while view:
        _, writable, _ = select.select([], [fd], [], WAIT)
        assert writable, "the reader stopped draining the line"
        try:
            written = os.write(fd, view[:4096])
        except BlockingIOError:
            continue
        view = view[written:]


def check(watch: Watch, reader: DiceReader, rolls: list[tuple[int, int, int]]) -> None:
    watch.wait(lambda: len(watch.rolls) >= len(rolls), "not every valid roll arrived")
    assert [(r.seq, r.d1, r.d2) for r in watch.rolls] == rolls
    assert not any(r.unreadable for r in watch.rolls)
    assert reader.running
    status = reader.status()
    assert status.connected and status.rolls == len(rolls)
    assert status.rejected >= len(rolls) // 2  # the noise was seen, and refused


def test_noise_through_a_pty(pty: PtyPort) -> None:
    chunks, rolls = stream(seed=7, rounds=ROUNDS)
    watch = Watch()
    reader = DiceReader(pty.slave_path, watch.on_roll, watch.on_status, reopen_interval_s=0.05).start()
    try:
        watch.wait(lambda: watch.status is not None and watch.status.connected, "the port did not open")
        for chunk in chunks:
            write_all(pty.master_fd, chunk)
        check(watch, reader, rolls)
    finally:
        reader.stop()
    assert not reader.running


def test_noise_through_loop_url() -> None:
    chunks, rolls = stream(seed=8, rounds=ROUNDS)
    watch = Watch()
    reader = DiceReader("loop://", watch.on_roll, watch.on_status, reopen_interval_s=0.05).start()
    try:
        watch.wait(lambda: reader.port is not None, "the port did not open")
        for chunk in chunks:
            reader.port.write(chunk)  # loop:// hands what is written back to the reader
        check(watch, reader, rolls)
    finally:
        reader.stop()
    assert not reader.running
