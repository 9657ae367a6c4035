"""DiceReader end to end: the simulator writes a pty master (or loop://), the reader reads the other end."""

from __future__ import annotations

import logging
import os
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.dice import DiceReader, DiceStatus, Roll, monotonic_ms
from drivers.dice_protocol import MAX_LINE, format_frame, format_roll
from drivers.dice_sim import DiceTowerSimulator, PtyPort
from tests.support.patience import patience

WAIT = patience(10.0)  # seconds on a quiet machine, scaled for a loaded one


class Watch:
    """Collects what the reader thread reports and lets the test wait for it (no sleeping)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.rolls: list[Roll] = []
        self.statuses: list[DiceStatus] = []

    def on_roll(self, roll: Roll) -> None:
        with self.cond:
            self.rolls.append(roll)
            self.cond.notify_all()

    def on_status(self, status: DiceStatus) -> None:
        with self.cond:
            self.statuses.append(status)
            self.cond.notify_all()

    def wait_rolls(self, n: int) -> list[Roll]:
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.rolls) >= n, WAIT)
            assert ok, f"expected {n} roll(s), got {self.rolls}"
            return list(self.rolls)

    def mark(self) -> int:
        with self.cond:
            return len(self.statuses)

    def wait_status(self, pred: Callable[[DiceStatus], bool], since: int = 0) -> DiceStatus:
        """The first status reported at or after index ``since`` that satisfies ``pred``."""
        found: list[DiceStatus] = []

        def check() -> bool:
            found[:] = [s for s in self.statuses[since:] if pred(s)][:1]
            return bool(found)

        with self.cond:
            ok = self.cond.wait_for(check, WAIT)
            assert ok, f"no matching status; last: {self.statuses[-1:] or None}"
            return found[0]


@pytest.fixture
def pty() -> Iterator[PtyPort]:
    port = PtyPort()
    yield port
    port.close()


@pytest.fixture
def make_reader() -> Iterator[Callable[..., tuple[DiceReader, Watch]]]:
    readers: list[DiceReader] = []

    def make(url: str, **kwargs) -> tuple[DiceReader, Watch]:
        watch = Watch()
        kwargs.setdefault("reopen_interval_s", 0.05)
        reader = DiceReader(url, watch.on_roll, watch.on_status, **kwargs)
        readers.append(reader)
        reader.start()
        return reader, watch

    yield make
    for reader in readers:
        reader.stop()
        assert not reader.running


def connected(watch: Watch, since: int = 0) -> DiceStatus:
    return watch.wait_status(lambda s: s.connected, since)


# -- through a pty ---------------------------------------------------------------------------


def test_a_roll_arrives_with_device_seq_and_reception_time(pty: PtyPort, make_reader) -> None:
    _, watch = make_reader(pty.slave_path)
    connected(watch)
    sim = DiceTowerSimulator(pty.master_fd, device_id="TOWER-7", firmware="2.1.0")
    sim.heartbeat()
    watch.wait_status(lambda s: s.device_id == "TOWER-7")
    before = monotonic_ms()
    sim.roll(3, 5)
    (roll,) = watch.wait_rolls(1)
    after = monotonic_ms()
    assert (roll.d1, roll.d2, roll.seq, roll.device_id) == (3, 5, 0, "TOWER-7")
    assert roll.dice == (3, 5) and not roll.unreadable and roll.reason is None
    assert before <= roll.at_ms <= after


def test_garbage_is_rejected_with_reasons_and_good_frames_still_read(
    pty: PtyPort, make_reader, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="drivers.dice")
    reader, watch = make_reader(pty.slave_path)
    connected(watch)
    sim = DiceTowerSimulator(pty.master_fd)
    rng = random.Random(1234)
    sim.roll(1, 2)
    sim.garbage(bytes(rng.randrange(256) for _ in range(500)) + b"\r\n")  # line noise
    sim.garbage(b"$R,1,6")  # truncated: cut by the next frame's $
    sim.roll(2, 3)
    sim.garbage(b"$R,2,4,4*00\r\n")  # bad checksum
    sim.garbage(b"$R," + b"7" * (2 * MAX_LINE) + b"\r\n")  # overlong
    sim.garbage(format_frame("R", 2, 9, 1))  # die out of range, correctly framed
    sim.garbage(format_frame("Q", 2))  # unknown type
    sim.roll(4, 5)
    rolls = watch.wait_rolls(3)
    assert [r.dice for r in rolls] == [(1, 2), (2, 3), (4, 5)]
    status = watch.wait_status(lambda s: s.rolls == 3)
    assert status.connected
    for reason in ("noise", "truncated", "checksum", "too_long", "die_out_of_range", "unknown_type"):
        assert status.rejects.get(reason, 0) >= 1, (reason, dict(status.rejects))
    assert status.rejected == sum(status.rejects.values())
    assert reader.status().rejected >= status.rejected
    for reason in ("checksum", "too_long", "die_out_of_range", "unknown_type", "truncated"):
        assert f"{reason}:" in caplog.text


def test_a_repeated_frame_is_not_a_second_roll(pty: PtyPort, make_reader) -> None:
    _, watch = make_reader(pty.slave_path)
    connected(watch)
    sim = DiceTowerSimulator(pty.master_fd)
    sim.roll(6, 6)
    sim.repeat()
    sim.repeat()
    sim.roll(6, 6)  # a new throw with the same dice: a new seq, so a new roll
    rolls = watch.wait_rolls(2)
    status = watch.wait_status(lambda s: s.duplicates == 2 and s.rolls == 2)
    assert [(r.seq, r.dice) for r in rolls] == [(0, (6, 6)), (1, (6, 6))]
    assert status.gaps == 0


def test_an_unreadable_throw_is_reported_for_a_reroll(pty: PtyPort, make_reader) -> None:
    _, watch = make_reader(pty.slave_path)
    connected(watch)
    sim = DiceTowerSimulator(pty.master_fd)
    sim.unreadable("outside")
    sim.roll(2, 1)
    first, second = watch.wait_rolls(2)
    assert first.unreadable and first.reason == "outside" and first.dice == (0, 0) and first.seq == 0
    assert not second.unreadable and second.dice == (2, 1) and second.seq == 1
    status = watch.wait_status(lambda s: s.rolls == 1)
    assert status.unreadable == 1


def test_a_seq_jump_is_counted_and_the_roll_still_delivered(pty: PtyPort, make_reader) -> None:
    _, watch = make_reader(pty.slave_path)
    connected(watch)
    sim = DiceTowerSimulator(pty.master_fd)
    sim.roll(1, 1)
    sim.garbage(format_roll(9, 5, 5))  # throws 1..8 were lost on the line
    rolls = watch.wait_rolls(2)
    assert [r.seq for r in rolls] == [0, 9]
    assert watch.wait_status(lambda s: s.rolls == 2).gaps == 1


def test_heartbeat_identity_and_silence(pty: PtyPort, make_reader) -> None:
    reader, watch = make_reader(pty.slave_path, heartbeat_timeout_s=0.3)
    connected(watch)
    uptime = [1000.0]
    sim = DiceTowerSimulator(pty.master_fd, device_id="TOWER-12", firmware="1.2.0", clock=lambda: uptime[0])
    uptime[0] += 3600
    sim.heartbeat()
    status = watch.wait_status(lambda s: s.heartbeats == 1)
    assert (status.device_id, status.firmware, status.uptime_s) == ("TOWER-12", "1.2.0", 3600)
    assert status.heartbeat_ok and status.last_heartbeat_ms is not None
    silent = watch.wait_status(lambda s: not s.heartbeat_ok, since=watch.mark())
    assert silent.connected and silent.device_id == "TOWER-12"
    mark = watch.mark()
    sim.heartbeat()
    assert watch.wait_status(lambda s: s.heartbeat_ok, since=mark).heartbeats == 2
    assert reader.status().heartbeats == 2


def test_a_restarted_tower_counts_from_zero_again(pty: PtyPort, make_reader) -> None:
    _, watch = make_reader(pty.slave_path)
    connected(watch)
    uptime = [0.0]
    sim = DiceTowerSimulator(pty.master_fd, clock=lambda: uptime[0])
    uptime[0] = 500
    sim.heartbeat()
    sim.roll(3, 4)  # seq 0
    watch.wait_rolls(1)
    sim.reboot()  # power cycle: uptime 0, seq 0 again
    sim.heartbeat()
    sim.roll(5, 6)  # seq 0, but after a restart: a new throw
    rolls = watch.wait_rolls(2)
    assert [(r.seq, r.dice) for r in rolls] == [(0, (3, 4)), (0, (5, 6))]
    assert watch.wait_status(lambda s: s.rolls == 2).duplicates == 0


def test_unplug_and_replug_through_a_device_link(tmp_path: Path, make_reader) -> None:
    link = tmp_path / "dice"  # as /dev/dice made by udev
    first = PtyPort()
    os.symlink(first.slave_path, link)
    try:
        _, watch = make_reader(str(link))
        connected(watch)
        DiceTowerSimulator(first.master_fd).roll(1, 3)
        assert watch.wait_rolls(1)[0].dice == (1, 3)

        mark = watch.mark()
        first.close()  # unplug: the device goes away ...
        link.unlink()  # ... and so does its name
        gone = watch.wait_status(lambda s: not s.connected, since=mark)
        assert gone.last_error and "disconnected" in gone.last_error
        watch.wait_status(lambda s: s.open_failures >= 2, since=mark)  # it keeps trying

        mark = watch.mark()
        second = PtyPort()  # plug in again: a new device node behind the same name
        try:
            os.symlink(second.slave_path, link)
            back = connected(watch, since=mark)
            assert back.connects == 2 and back.open_failures == 0
            sim = DiceTowerSimulator(second.master_fd)
            sim.roll(4, 2)  # a replugged tower restarted: seq 0 again is a new throw
            rolls = watch.wait_rolls(2)
            assert rolls[1].dice == (4, 2) and rolls[1].seq == 0
        finally:
            second.close()
    finally:
        first.close()


def test_a_tower_plugged_in_after_start_is_found(tmp_path: Path, make_reader) -> None:
    link = tmp_path / "dice"
    _, watch = make_reader(str(link))
    failed = watch.wait_status(lambda s: s.open_failures >= 1)
    assert not failed.connected and failed.last_error
    with PtyPort() as port:
        mark = watch.mark()
        os.symlink(port.slave_path, link)
        connected(watch, since=mark)
        DiceTowerSimulator(port.master_fd).roll(5, 1)
        assert watch.wait_rolls(1)[0].dice == (5, 1)


def test_a_failing_callback_does_not_stop_the_reader(
    pty: PtyPort, make_reader, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="drivers.dice")
    watch = Watch()
    calls: list[Roll] = []

    def on_roll(roll: Roll) -> None:
        calls.append(roll)
        if len(calls) == 1:
            raise RuntimeError("app bug")
        watch.on_roll(roll)

    reader = DiceReader(pty.slave_path, on_roll, watch.on_status, reopen_interval_s=0.05).start()
    try:
        connected(watch)
        sim = DiceTowerSimulator(pty.master_fd)
        sim.roll(1, 1)
        sim.roll(2, 2)
        assert watch.wait_rolls(1)[0].dice == (2, 2)
        assert "app bug" in caplog.text
    finally:
        reader.stop()


def test_stop_closes_the_port_and_ends_the_thread(pty: PtyPort) -> None:
    watch = Watch()
    reader = DiceReader(pty.slave_path, watch.on_roll, watch.on_status)
    reader.start()
    with pytest.raises(RuntimeError):
        reader.start()
    connected(watch)
    assert reader.running and reader.port is not None
    reader.stop()
    reader.stop()  # idempotent
    assert not reader.running and reader.port is None
    assert not reader.status().connected


def test_an_unknown_url_is_reported_not_raised(make_reader) -> None:
    reader, watch = make_reader("nosuchscheme://tower")
    status = watch.wait_status(lambda s: s.open_failures >= 2)
    assert not status.connected and "nosuchscheme" in (status.last_error or "")
    assert reader.running


# -- through loop:// -------------------------------------------------------------------------


def test_loop_url_rolls_and_noise(make_reader) -> None:
    reader, watch = make_reader("loop://")
    connected(watch)
    sim = DiceTowerSimulator(reader.port)  # loop:// echoes what is written back to the reader
    sim.heartbeat()
    sim.garbage(b"\xff\xfe$R,3,3,3*10\r\n")
    sim.roll(6, 5)
    sim.repeat()
    sim.unreadable("count")
    rolls = watch.wait_rolls(2)
    assert [(r.dice, r.unreadable, r.reason) for r in rolls] == [
        ((6, 5), False, None),
        ((0, 0), True, "count"),
    ]
    assert rolls[0].device_id == "SIM-0001"
    status = watch.wait_status(lambda s: s.unreadable == 1)
    assert status.duplicates == 1
    assert status.rejects.get("noise") == 1 and status.rejects.get("checksum") == 1


def test_loop_url_reopens_after_the_port_fails(make_reader) -> None:
    reader, watch = make_reader("loop://")
    connected(watch)
    mark = watch.mark()
    reader.port.close()  # the port fails under the reader
    watch.wait_status(lambda s: not s.connected, since=mark)
    back = connected(watch, since=mark)
    assert back.connects == 2
    DiceTowerSimulator(reader.port).roll(2, 6)
    assert watch.wait_rolls(1)[0].dice == (2, 6)


def test_the_documented_session(make_reader) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "dice-reader.md"
    block = (
        doc.read_text(encoding="utf-8").split("<!-- examples:session -->\n```\n", 1)[1].split("\n```", 1)[0]
    )
    reader, watch = make_reader("loop://")
    connected(watch)
    reader.port.write(b"".join(line.encode() + b"\r\n" for line in block.splitlines()))
    rolls = watch.wait_rolls(3)
    assert [(r.dice, r.unreadable) for r in rolls] == [((3, 5), False), ((0, 0), True), ((6, 6), False)]
    status = watch.wait_status(lambda s: s.heartbeats == 2)
    assert status.duplicates == 1 and status.rejected == 0 and status.uptime_s == 5
