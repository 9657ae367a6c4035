"""A rogue ``_bghub._tcp`` announcer on the room's network is not chosen.

Network namespaces made by the test: the real hub (``hub``), a rogue one (``rogue``, a real
``bghub`` with a key of its own, announced *before* the real hub) and a table (``t1``) that knows
no address, only its event (``event =`` in its room.txt). A rogue hub of another event is
ignored; one claiming the table's event makes the table refuse to choose: it names both and waits
until the organiser writes a ``hub =`` line, then enrolls with that hub only.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.netns import Lan, td
from tests.fleet.support import BIN, PASSWORD, WAIT, Lines, stop, wait_until
from tests.support.patience import patience

EVENT = "fleet-rogue"


@pytest.fixture
def net() -> Iterator[Lan]:
    lan = Lan(("t1", "rogue"))
    try:
        lan.up()
        yield lan
    finally:
        lan.down()


def start_hub(lan: Lan, where: str, event: str, tmp: Path) -> tuple[subprocess.Popen[bytes], Lines]:
    password = tmp / "pw"
    password.write_text(PASSWORD + "\n")
    address = lan.addr[where]
    # a machine of its own: its own host name (mDNS names the hub's host), in a UTS namespace
    own_name = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', f"bgt-{where}"]
    proc = lan.run(
        where,
        [
            *own_name,
            str(BIN / "bghub"),
            "run",
            "--event",
            event,
            "--db",
            str(tmp / f"{where}.sqlite3"),
            "--http",
            f"{address}:8080",
            "--embedded-host",
            address,
            "--embedded-port",
            "1883",
            "--password-file",
            str(password),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out = Lines(proc.stdout, tmp / f"{where}.log")
    out.wait_for(r"mDNS: announced _bghub._tcp.local. on " + re.escape(address))
    return proc, out


def start_table(lan: Lan, tmp: Path, room: Path) -> tuple[subprocess.Popen[bytes], Lines]:
    proc = lan.run(
        "t1",
        [
            str(BIN / "bgtable"),
            "run",
            "--headless",
            "--config",
            str(tmp / "t1" / "table.toml"),
            "--device-id",
            "dev-t1",
            "--hub-file",
            str(room),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    return proc, Lines(proc.stdout, tmp / "t1.log")


def devices(lan: Lan, where: str) -> list[str]:
    rows = td(lan, f"http://{lan.addr[where]}:8080", [("GET", "/api/fleet", None)])[0]
    return [row["device"] for row in rows]  # type: ignore[union-attr, index]


@pytest.mark.long
def test_a_rogue_hub_of_another_event_is_ignored(net: Lan, tmp_path: Path):
    room = tmp_path / "room.txt"
    room.write_text(f"event = {EVENT}\n")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        rogue, _ = start_hub(net, "rogue", "another-event", tmp_path)  # announced first
        procs.append(rogue)
        hub, hub_out = start_hub(net, "hub", EVENT, tmp_path)
        procs.append(hub)
        table, out = start_table(net, tmp_path, room)
        procs.append(table)
        chosen = out.wait_for(r"kiosk.setup: hub (\S+) \(found by mDNS\)").group(1)
        assert chosen == f"http://{net.addr['hub']}:8080"
        out.wait_for(r"^code \d{4}$")
        fingerprint = hub_out.wait_for(r"hub key (\S+), dashboard http://").group(1)
        assert out.wait_for(r"^hub key (\S+)$").group(1) == fingerprint
        assert devices(net, "hub") == ["dev-t1"]
        assert devices(net, "rogue") == []
        # it heard the rogue, and set it aside for its event
        out.wait_for(rf"{re.escape(net.addr['rogue'])}:8080 is a hub of event 'another-event'.*ignored")
    finally:
        for proc in reversed(procs):
            stop(proc)


@pytest.mark.long
def test_two_hubs_of_the_event_make_the_table_wait_for_the_organiser(net: Lan, tmp_path: Path):
    room = tmp_path / "room.txt"
    room.write_text(f"event = {EVENT}\n")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        rogue, _ = start_hub(net, "rogue", EVENT, tmp_path)  # the same event, announced first
        procs.append(rogue)
        hub, _ = start_hub(net, "hub", EVENT, tmp_path)
        procs.append(hub)
        table, out = start_table(net, tmp_path, room)
        procs.append(table)
        both = out.wait_for(r"^two hubs answer: (.*)$").group(1)
        assert net.addr["hub"] in both and net.addr["rogue"] in both
        # it chose neither: no code, no hello at either hub (while it looks again)
        wait_until(lambda: sum("mDNS: found" in x for x in out.lines) >= 4, WAIT, "a second look")
        assert devices(net, "hub") == [] and devices(net, "rogue") == []
        assert not [line for line in out.lines if line.startswith("code ")]
        # the organiser names the hub in room.txt: the table enrolls there, and only there
        room.write_text(f"event = {EVENT}\nhub = {net.addr['hub']}:8080\n")
        out.wait_for(r"^code \d{4}$", timeout=patience(60))
        assert devices(net, "hub") == ["dev-t1"] and devices(net, "rogue") == []
    finally:
        for proc in reversed(procs):
            stop(proc)
