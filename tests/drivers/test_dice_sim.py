"""The dice tower simulator: its frames, its pty, and `bgtable dice-sim` driven like a user would."""

from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import serial

from drivers.dice import DiceReader, DiceStatus, Roll
from drivers.dice_protocol import (
    FrameDecoder,
    FrameError,
    HeartbeatFrame,
    RollFrame,
    UnreadableFrame,
    parse_frame,
)
from drivers.dice_sim import DiceTowerSimulator, PtyPort, handle_command
from tests.support.patience import patience

WAIT = patience(10.0)
ROOT = Path(__file__).resolve().parents[2]


class Sink:
    """Anything with write(): what a pyserial port offers the simulator."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)


def decode(data: bytes) -> list:
    return FrameDecoder().feed(data)


def test_throws_share_one_counter_and_heartbeats_do_not_count() -> None:
    sink = Sink()
    sim = DiceTowerSimulator(sink, device_id="T-1", firmware="9.9", clock=lambda: 42.0)
    sim.heartbeat()
    sim.roll(1, 2)
    sim.unreadable("cocked")
    sim.heartbeat()
    sim.roll(3, 4)
    assert decode(sink.data) == [
        HeartbeatFrame("T-1", "9.9", 0),
        RollFrame(0, 1, 2),
        UnreadableFrame(1, "cocked"),
        HeartbeatFrame("T-1", "9.9", 0),
        RollFrame(2, 3, 4),
    ]
    assert sim.next_seq == 3


def test_seq_wraps_after_65535() -> None:
    sink = Sink()
    sim = DiceTowerSimulator(sink, seq=65535)
    sim.roll(1, 1)
    sim.roll(2, 2)
    assert decode(sink.data) == [RollFrame(65535, 1, 1), RollFrame(0, 2, 2)]


def test_random_rolls_follow_the_seed_and_are_valid() -> None:
    a, b = Sink(), Sink()
    for sink in (a, b):
        sim = DiceTowerSimulator(sink, rng=random.Random(99))
        for _ in range(50):
            sim.roll()
    assert a.data == b.data
    frames = decode(a.data)
    assert len(frames) == 50 and all(isinstance(f, RollFrame) for f in frames)
    assert {f.d1 for f in frames} | {f.d2 for f in frames} == {1, 2, 3, 4, 5, 6}


def test_repeat_resends_the_last_throw_and_reboot_restarts_the_count() -> None:
    sink = Sink()
    t = [100.0]
    sim = DiceTowerSimulator(sink, clock=lambda: t[0])
    assert sim.repeat() is None  # nothing thrown yet: nothing sent
    frame = sim.roll(5, 5)
    assert sim.repeat() == frame
    t[0] = 160.0
    sim.heartbeat()
    sim.reboot()
    sim.heartbeat()
    sim.roll(1, 6)
    assert decode(sink.data) == [
        RollFrame(0, 5, 5),
        RollFrame(0, 5, 5),
        HeartbeatFrame("SIM-0001", "sim-1.0", 60),
        HeartbeatFrame("SIM-0001", "sim-1.0", 0),
        RollFrame(0, 1, 6),
    ]


def test_the_pty_carries_bytes_unchanged() -> None:
    with PtyPort() as port:
        sim = DiceTowerSimulator(port.master_fd)
        frame = sim.roll(2, 5)
        sim.garbage(b"\r\r\n\x00\x7f\xff")
        with serial.Serial(port.slave_path, 115200, timeout=WAIT) as ser:
            # pyserial flushed what was queued before it opened; send again.
            frame = sim.roll(2, 5)
            sim.garbage(b"\r\r\n\x00\x7f\xff")
            expected = frame + b"\r\r\n\x00\x7f\xff"
            assert ser.read(len(expected)) == expected
    assert port.closed


def test_writing_with_nobody_reading_never_blocks() -> None:
    with PtyPort() as port:
        sim = DiceTowerSimulator(port.master_fd)
        for _ in range(20_000):  # far more than a pty buffers
            sim.roll(1, 1)
        assert sim.next_seq == 20_000


def test_commands() -> None:
    sink = Sink()
    sim = DiceTowerSimulator(sink, rng=random.Random(5))
    assert handle_command(sim, "r 3 5")
    assert handle_command(sim, "u outside")
    assert handle_command(sim, "d")
    assert handle_command(sim, "h")
    assert handle_command(sim, "g")
    assert handle_command(sim, "r 7 1")  # refused, reported, not sent
    assert handle_command(sim, "zap")
    assert handle_command(sim, "   ")
    assert handle_command(sim, "b")
    assert handle_command(sim, "r")
    assert not handle_command(sim, "q")
    frames = [f for f in decode(sink.data) if not isinstance(f, FrameError)]
    throws = [f for f in frames if isinstance(f, RollFrame | UnreadableFrame)]
    assert throws[:3] == [RollFrame(0, 3, 5), UnreadableFrame(1, "outside"), UnreadableFrame(1, "outside")]
    assert throws[-1].seq == 0 and isinstance(throws[-1], RollFrame)  # after the reboot
    assert any(isinstance(f, HeartbeatFrame) for f in frames)


# -- `bgtable dice-sim` ----------------------------------------------------------------------


class SimProcess:
    """`python -m kiosk.cli dice-sim ...` with its output read on a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kiosk.cli", "dice-sim", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        first = self.lines.get(timeout=WAIT)
        m = re.fullmatch(r"dice tower simulator on (/dev/\S+)\n", first)
        assert m, first
        self.path = m.group(1)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def sent_frames(self, n: int) -> list:
        out = []
        while len(out) < n:
            line = self.lines.get(timeout=WAIT)
            m = re.fullmatch(r"sent b'(.*)'\n", line)
            if m:
                out.append(parse_frame(m.group(1).replace("\\r\\n", "")))
        return out

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(WAIT)


@pytest.fixture
def sim_process():
    procs: list[SimProcess] = []

    def start(*args: str) -> SimProcess:
        procs.append(SimProcess(*args))
        return procs[-1]

    yield start
    for p in procs:
        p.close()


def test_bgtable_dice_sim_serves_a_reader_and_obeys_commands(sim_process) -> None:
    sim = sim_process("--interval", "0", "--device-id", "DEMO-3", "--seed", "4")
    assert os.path.exists(sim.path)
    rolls: queue.Queue[Roll] = queue.Queue()
    statuses: queue.Queue[DiceStatus] = queue.Queue()
    reader = DiceReader(sim.path, rolls.put, statuses.put).start()
    try:
        while not statuses.get(timeout=WAIT).connected:
            pass
        sim.send("h")
        while statuses.get(timeout=WAIT).device_id != "DEMO-3":
            pass
        sim.send("r 3 5")
        roll = rolls.get(timeout=WAIT)
        assert roll.dice == (3, 5) and roll.device_id == "DEMO-3" and not roll.unreadable
        sim.send("d")  # a repeated frame: dropped by the reader
        sim.send("u cocked")
        roll = rolls.get(timeout=WAIT)
        assert roll.unreadable and roll.reason == "cocked"
        assert reader.status().duplicates == 1
        sim.send("q")
        assert sim.proc.wait(WAIT) == 0
    finally:
        reader.stop()


def test_bgtable_dice_sim_throws_on_its_own_at_the_interval(sim_process) -> None:
    sim = sim_process("--interval", "0.05", "--seed", "11")
    frames = [f for f in sim.sent_frames(12) if not isinstance(f, HeartbeatFrame)]
    assert len(frames) >= 8
    assert [f.seq for f in frames] == list(range(frames[0].seq, frames[0].seq + len(frames)))
    assert all(isinstance(f, RollFrame | UnreadableFrame) for f in frames)
    sim.send("q")
    assert sim.proc.wait(WAIT) == 0


def test_bgtable_dice_sim_ends_at_end_of_input_without_a_timer(sim_process) -> None:
    sim = sim_process("--interval", "0")
    assert sim.proc.stdin is not None
    sim.proc.stdin.close()
    assert sim.proc.wait(WAIT) == 0
