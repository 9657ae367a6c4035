"""Network namespaces for the fleet's discovery tests: a hub's namespace holding a bridge (the
venue's switch) and one namespace per other machine, joined to it by veth pairs. Made with
``ip`` by the test, removed after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.fleet.support import ENV, WAIT

SUBNET = "10.77.{n}"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Lan:
    """Namespace ``hub`` (with the bridge, 10.77.x.1) and the others (``t1``, ``t2``: .2, .3, ...),
    each joined to the bridge by a veth pair, as a venue's switch would."""

    def __init__(self, names: tuple[str, ...] = ("t1", "t2")) -> None:
        tag = f"{os.getpid() % 10000}"
        self.n = os.getpid() % 200 + 20
        self.names = names
        self.ns = {name: f"bgt{tag}{name}" for name in ("hub", *names)}
        self.addr = {name: f"{SUBNET.format(n=self.n)}.{i}" for i, name in enumerate(("hub", *names), 1)}
        self.tag = tag

    def up(self) -> None:
        for ns in self.ns.values():
            ip("netns", "add", ns)
            ip("-n", ns, "link", "set", "lo", "up")
        hub = self.ns["hub"]
        ip("-n", hub, "link", "add", "br0", "type", "bridge")
        ip("-n", hub, "addr", "add", f"{self.addr['hub']}/24", "dev", "br0")
        ip("-n", hub, "link", "set", "br0", "up")
        for name in self.names:
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
