"""A full disk under the hub: a real filesystem of a few megabytes that the test fills.

``bghub`` runs in a mount namespace of its own (``unshare -m``) with its database on a small
tmpfs; the test reaches that filesystem through ``/proc/<pid>/root`` and fills it while two
simulated tables play. What must hold:

* the failed writes are rolled back *and* their events un-accepted: once space is back, the hub
  asks the tables again and every event they made is stored exactly once;
* ``/api/health`` says ``ok: false`` while writes fail, a critical alert says why, and the
  low-disk alert came first;
* the TD can still log in (a login needs no write) and a TD action is refused with 503 rather
  than half done;
* once space is back, health is ``ok`` again and the storage alert is gone.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from hub.live.clock import SystemClock
from tests.faults.support import (
    WAIT,
    HubProcess,
    Players,
    TdClient,
    all_delivered,
    event_id,
    make_table,
    room_schedule,
    wait_until,
)
from tests.support.broker import Mosquitto
from tests.support.patience import patience

DISK_MB = 16


def _namespace_with_small_disk(mount_point: Path) -> list[str]:
    """A command prefix: a private mount namespace where ``mount_point`` is a tmpfs of DISK_MB."""
    script = f'mount -t tmpfs -o size={DISK_MB}m bghub-test "$0" && exec "$@"'
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(mount_point)]


def _fill(path: Path) -> None:
    """Write until the filesystem says no more (ENOSPC)."""
    chunk = b"\0" * 65536
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                if os.write(fd, chunk) < len(chunk):
                    return
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                return
    finally:
        os.close(fd)


class HubDisk:
    """The hub's filesystem, seen from the test: files through ``/proc/<pid>/root``, and the
    database as a consistent copy taken from inside the hub's mount namespace (``nsenter``;
    SQLite resolves the ``/proc`` link to the test's own view, so it cannot open it there)."""

    def __init__(self, pid: int, mount_point: Path, copies: Path) -> None:
        self.pid = pid
        self.path = Path(f"/proc/{pid}/root") / str(mount_point).lstrip("/")
        self.db = mount_point / "hub.db"
        self.copies = copies
        self.n = 0

    def copy_db(self) -> Path:
        self.n += 1
        out = self.copies / f"copy-{self.n}.sqlite3"
        code = (
            "import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]);"
            " s.backup(d); d.close(); s.close()"
        )
        subprocess.run(
            ["nsenter", "--target", str(self.pid), "--mount", "--", sys.executable, "-c", code,
             str(self.db), str(out)],
            check=True, timeout=patience(30),
        )  # fmt: skip
        return out

    def delivered(self, sims: list) -> dict[str, str]:
        """What is missing or doubled. Not in order: the events asked for again once space is
        back arrive after the newest ones (as with any gap the hub fills by a resync)."""
        return all_delivered(self.copy_db(), sims, ordered=False)


def _health(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/health", timeout=patience(10)) as response:
        return json.loads(response.read())


@pytest.mark.long
def test_a_full_disk_loses_no_event_and_says_so(tmp_path):
    broker = Mosquitto().start()
    clock = SystemClock()
    ev = event_id("diskfull")
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    tables = ["1", "2"]
    sims = [make_table(ev, t, broker, clock, tmp_path / f"outbox-{t}.sqlite3") for t in tables]
    hub: HubProcess | None = None
    try:
        hub = HubProcess(
            tmp_path,
            broker,
            ev,
            mount_point / "hub.db",
            schedule=room_schedule(tables, clock.now_wall() - 60_000),
            extra=["--min-free-mb", "2", "--backup-every", "0"],
            prefix=_namespace_with_small_disk(mount_point),
        )
        copies = tmp_path / "copies"
        copies.mkdir()
        disk = HubDisk(hub.pid, mount_point, copies)
        assert (disk.path / "hub.db").exists() and not (mount_point / "hub.db").exists()
        for sim in sims:
            sim.start(WAIT)
            sim.wait_for(lambda s, t=sim.table: s.match_id == f"r1-t{t}", WAIT)
        players = Players(sims, clock, seed=11)
        for _ in range(40):
            players.step()
        wait_until(lambda: not disk.delivered(sims), WAIT, "the first events stored")
        assert _health(hub.url)["ok"] is True

        # the disk fills up; the tables play on
        _fill(disk.path / "filler")
        for _ in range(60):
            players.step()
        health = wait_until(lambda: (h := _health(hub.url))["ok"] is False and h, WAIT, "health false")
        assert health["storage"]["error"]  # SQLite's words: "database or disk is full", or an I/O error
        td = TdClient(hub.url)  # the login itself needs no write
        alerts = {a["kind"]: a for a in td.get("/api/alerts")}
        assert alerts["storage"]["urgency"] == "critical" and str(mount_point) in alerts["storage"]["message"]
        # the free space is looked at every 10 s: the low-disk alert follows
        low = wait_until(
            lambda: next((a for a in td.get("/api/alerts") if a["kind"] == "disk_space"), None),
            WAIT,
            "the low-disk alert",
        )
        assert low["urgency"] == "high" and _health(hub.url)["storage"]["free_bytes"] < 2 * 1024 * 1024
        with pytest.raises(urllib.error.HTTPError) as refused:
            td.post("/api/tables/1/automation", {"suspended": True})
        assert refused.value.code == 503
        assert disk.delivered(sims), "events made while the disk was full cannot all be stored"

        # space comes back: everything the tables made is stored once, in order
        (disk.path / "filler").unlink()
        for _ in range(10):
            players.step()
        wait_until(lambda: _health(hub.url)["ok"] is True, WAIT, "health ok again")
        problems: dict[str, str] = {}

        def all_in() -> bool:
            problems.clear()
            problems.update(disk.delivered(sims))
            return not problems

        try:
            wait_until(all_in, patience(60), "delivery after the disk was freed")
        except TimeoutError:
            raise AssertionError(f"events not stored exactly once: {problems}") from None
        wait_until(
            lambda: not {"storage", "disk_space"} & {a["kind"] for a in td.get("/api/alerts")},
            WAIT,
            "the storage alerts gone",
        )
        # the refused action was not half done
        assert td.get("/api/tables/1")["automation_suspended"] is False
        assert hub.stop() == 0
    finally:
        for sim in sims:
            with contextlib.suppress(Exception):
                sim.stop()
        if hub is not None and hub.alive():
            hub.kill()
        broker.stop()
