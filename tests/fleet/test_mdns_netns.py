"""Discovery by mDNS across a real network: the hub in one network namespace, two tables in two
others, joined by a bridge (as a venue's switch would). Neither table is told the hub's address:
each finds it by ``_bghub._tcp``, shows its code, is enrolled, and connects to the broker.

The namespaces, veth pairs and bridge are this test's own (made with ``ip``, removed after).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.support import BIN, ENV, PASSWORD, WAIT, Lines, stop, wait_until

EVENT = "fleet-mdns"
SUBNET = "10.77.{n}"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Lan:
    """Namespace ``hub`` (with the bridge, 10.77.x.1) and ``t1``, ``t2`` (.2, .3)."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 10000}"
        self.n = os.getpid() % 200 + 20
        self.ns = {name: f"bgt{tag}{name}" for name in ("hub", "t1", "t2")}
        self.addr = {
            "hub": f"{SUBNET.format(n=self.n)}.1",
            "t1": f"{SUBNET.format(n=self.n)}.2",
            "t2": f"{SUBNET.format(n=self.n)}.3",
        }
        self.tag = tag

    def up(self) -> None:
        for ns in self.ns.values():
            ip("netns", "add", ns)
            ip("-n", ns, "link", "set", "lo", "up")
        hub = self.ns["hub"]
        ip("-n", hub, "link", "add", "br0", "type", "bridge")
        ip("-n", hub, "addr", "add", f"{self.addr['hub']}/24", "dev", "br0")
        ip("-n", hub, "link", "set", "br0", "up")
        for name in ("t1", "t2"):
            a, b = f"v{self.tag}{name}h", f"v{self.tag}{name}t"
            ip("link", "add", a, "type", "veth", "peer", "name", b)
            ip("link", "set", a, "netns", hub)
            ip("link", "set", b, "netns", self.ns[name])
            ip("-n", hub, "link", "set", a, "master", "br0")
            ip("-n", hub, "link", "set", a, "up")
            ip("-n", self.ns[name], "addr", "add", f"{self.addr[name]}/24", "dev", b)
            ip("-n", self.ns[name], "link", "set", b, "up")

    def down(self) -> None:
        for ns in self.ns.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)

    def run(self, where: str, args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        return subprocess.Popen(["ip", "netns", "exec", self.ns[where], *args], env=ENV, **kwargs)  # type: ignore[call-overload]


@pytest.fixture
def lan() -> Iterator[Lan]:
    net = Lan()
    try:
        net.up()
        yield net
    finally:
        net.down()


TD_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from tests.faults.support import TdClient
    td = TdClient(sys.argv[1])
    for item in json.loads(sys.argv[2]):
        method, path, body = item
        print(json.dumps(td.get(path) if method == "GET" else td.post(path, body)), flush=True)
    """
)


def td(lan: Lan, url: str, calls: list[tuple[str, str, object]]) -> list[object]:
    """The TD's calls, made from inside the hub's namespace."""
    proc = lan.run(
        "hub",
        [sys.executable, "-c", TD_SCRIPT, url, json.dumps(calls)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err.decode()
    return [json.loads(line) for line in out.decode().splitlines()]


def test_two_tables_find_the_hub_by_mdns_and_enroll(lan: Lan, tmp_path: Path):
    password = tmp_path / "pw"
    password.write_text(PASSWORD + "\n")
    url = f"http://{lan.addr['hub']}:8080"
    hub = lan.run(
        "hub",
        [
            str(BIN / "bghub"),
            "run",
            "--event",
            EVENT,
            "--db",
            str(tmp_path / "hub.sqlite3"),
            "--http",
            f"{lan.addr['hub']}:8080",
            "--embedded-host",
            "0.0.0.0",
            "--embedded-port",
            "1883",
            "--password-file",
            str(password),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    hub_out = Lines(hub.stdout, tmp_path / "hub.log")
    tables: list[subprocess.Popen[bytes]] = []
    try:
        hub_ip = lan.addr["hub"].replace(".", r"\.")
        hub_out.wait_for(rf"mDNS: announced _bghub._tcp.local. on {hub_ip}")
        codes = {}
        outs = {}
        for name in ("t1", "t2"):
            # no --hub, and no boot-partition file: only mDNS can find it
            proc = lan.run(
                name,
                [
                    str(BIN / "bgtable"),
                    "run",
                    "--headless",
                    "--config",
                    str(tmp_path / name / "table.toml"),
                    "--device-id",
                    f"dev-{name}",
                    "--hub-file",
                    str(tmp_path / "no-such-file"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            tables.append(proc)
            outs[name] = Lines(proc.stdout, tmp_path / f"{name}.log")
        for name in ("t1", "t2"):
            outs[name].wait_for("found by mDNS")
            codes[name] = outs[name].wait_for(r"^code (\d{4})$").group(1)
        rows = td(lan, url, [("GET", "/api/fleet", None)])[0]
        assert {(r["device"], r["code"], r["ip"]) for r in rows} == {
            (f"dev-{n}", codes[n], lan.addr[n]) for n in ("t1", "t2")
        }
        td(
            lan,
            url,
            [
                ("POST", f"/api/fleet/dev-{n}/enroll", {"table": str(i), "code": codes[n]})
                for i, n in ((1, "t1"), (2, "t2"))
            ],
        )
        for i, name in ((1, "t1"), (2, "t2")):
            outs[name].wait_for(rf"^enrolled as table {i}$")
            outs[name].wait_for(rf"hub link to {hub_ip}:1883")

        def both_online() -> bool:
            detail = td(lan, url, [("GET", "/api/tables/1", None), ("GET", "/api/tables/2", None)])
            return all(d["tile"]["online"] for d in detail)  # type: ignore[index]

        wait_until(both_online, WAIT, "both tables online")
    finally:
        for proc in tables:
            stop(proc)
        stop(hub)
