"""Discovery by mDNS across a real network: the hub in one network namespace, two tables in two
others, joined by a bridge (as a venue's switch would). Neither table is told the hub's address:
each finds it by ``_bghub._tcp``, shows its code, is enrolled, and connects to the broker.

The namespaces, veth pairs and bridge are this test's own (made with ``ip``, removed after).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fleet.netns import Lan, td
from tests.fleet.support import BIN, PASSWORD, WAIT, Lines, stop, wait_until

EVENT = "fleet-mdns"


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
