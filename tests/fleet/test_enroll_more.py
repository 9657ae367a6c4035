"""Enrollment where TLS is on, and enrolled tables across a restart of the hub.

With a TLS listener (``bghub broker-config --tls``), the hub hands enrolled tables the TLS
address and its CA: they never use the plain port. With the embedded broker, enrolled tables'
credentials live in the hub's database and work again after the hub (and so the broker)
restarts.
"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from tests.fleet.support import WAIT, Enroll, Hub, Room, Table, cleanup, wait_until
from tests.support.broker import free_port

EVENT = "fleet-more"


def enroll(hub: Hub, tmp: Path, device: str, table: str) -> Path:
    proc = Enroll(tmp, hub.url, tmp / device, device, "--timeout", "60")
    hub.td.post(f"/api/fleet/{device}/enroll", {"table": table, "code": proc.code()})
    assert proc.wait() == 0, proc.err.lines
    return tmp / device / "table.toml"


def test_with_tls_on_tables_get_the_tls_listener_and_its_ca(tmp_path: Path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    tls_port = free_port()
    room = Room(tmp_path, EVENT, "--tls", "--cert", str(cert), "--key", str(key), "--tls-port", str(tls_port))
    hub = Hub(
        tmp_path, EVENT, room=room.out, broker_port=room.port,
        extra=["--table-broker", f"127.0.0.1:{tls_port}", "--table-tls-ca", str(cert)],
    )  # fmt: skip
    with cleanup(room, hub):
        config = enroll(hub, tmp_path, "dev-tls", "3")
        broker = tomllib.loads(config.read_text())["broker"]
        assert (broker["port"], broker["tls"]) == (tls_port, True)
        assert Path(broker["ca_file"]).read_text() == cert.read_text()
        assert Path(broker["ca_file"]).parent == config.parent
        table = Table(tmp_path, config, "tls")
        with cleanup(table):
            wait_until(lambda: hub.online("3"), WAIT, "table 3 online over TLS")
            hub.wait_device("dev-tls", lambda r: r["report_wall"], "a report over TLS")
            assert "New client connected from 127.0.0.1" in room.log()


def test_enrolled_tables_work_again_after_the_hub_restarts(tmp_path: Path):
    port, broker_port = free_port(), free_port()
    hub = Hub(tmp_path, EVENT, port=port, broker_port=broker_port, extra=["--enrolled-only"])
    with cleanup(hub):
        config = enroll(hub, tmp_path, "dev-r", "7")
        table = Table(tmp_path, config, "r")
        with cleanup(table):
            wait_until(lambda: hub.online("7"), WAIT, "table 7 online")
            hub.stop()
            again = Hub(
                tmp_path, EVENT, port=port, broker_port=broker_port, extra=["--enrolled-only"], name="hub"
            )
            with cleanup(again):
                wait_until(lambda: again.online("7"), WAIT, "table 7 back online with its credential")
                row = again.wait_device("dev-r", lambda r: r["report_wall"], "its report after the restart")
                assert row["state"] == "enrolled" and row["table"] == "7"


def test_a_damaged_journal_shows_on_the_tables_page(tmp_path: Path):
    import sqlite3

    from kiosk.controller import TableController
    from kiosk.journal import Journal

    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        config = enroll(hub, tmp_path, "dev-j", "5")
        clock = iter(range(1_000, 100_000, 1_000))
        with Journal(config.parent / "journal.sqlite3") as journal:
            ctl = TableController(journal, "5", clock_ms=lambda: next(clock))
            players = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
            ctl.submit({"input": "assign", "profile": "wbgf-2023", "match_id": "m1", "length": 7,
                        "players": players, "clock": True})  # fmt: skip
            ctl.submit({"input": "checkin", "side": "A"})
            ctl.submit({"input": "checkin", "side": "B"})
        db = sqlite3.connect(config.parent / "journal.sqlite3")
        db.execute("UPDATE journal SET line = '}{ not json' WHERE n = 3")
        db.commit()
        db.close()
        table = Table(tmp_path, config, "j")
        with cleanup(table):
            row = hub.wait_device("dev-j", lambda r: r["journal"], "a report with the journal")
            assert row["journal"]["ok"] is False and row["journal"]["detail"].startswith("damaged")
