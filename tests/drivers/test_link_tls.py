"""The table and hub links speak TLS to a broker's TLS listener (``bghub broker-config --tls``)."""

from __future__ import annotations

import getpass
import queue
import subprocess
from pathlib import Path

from drivers.hub_link import HubLink
from drivers.outbox import Outbox
from drivers.table_link import TableLink
from tests.support.broker import Mosquitto, free_port
from tests.support.patience import patience

WAIT = patience(10.0)


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _tls_broker(tmp_path: Path) -> tuple[Mosquitto, Path]:
    cert, key = _self_signed(tmp_path)
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\ncertfile {cert}\nkeyfile {key}\n"
        "allow_anonymous true\npersistence false\n"
        f"user {getpass.getuser()}\n"  # keep our own user: the key is readable by us alone
    )
    return Mosquitto(port=port, conf_path=conf).start(), cert


def test_table_status_and_events_reach_the_hub_over_tls(tmp_path):
    broker, cert = _tls_broker(tmp_path)
    port = broker.port
    statuses: queue.Queue[tuple[str, dict]] = queue.Queue()
    events: queue.Queue[tuple[str, dict]] = queue.Queue()
    hub = HubLink(
        "tlsev",
        "127.0.0.1",
        port,
        on_status=lambda t, p: statuses.put((t, p)),
        on_state=lambda t, p: None,
        on_event=lambda t, e: events.put((t, e)),
        tls_ca_file=str(cert),
    )
    outbox = Outbox(str(tmp_path / "outbox.sqlite3"))
    table = TableLink(
        "tlsev",
        "7",
        "127.0.0.1",
        port,
        outbox=outbox,
        state_provider=lambda: {"schema": 1, "table": "7"},
        on_assign=lambda a: None,
        on_cmd=lambda c: None,
        tls=True,
        tls_ca_file=str(cert),
    )
    try:
        hub.start()
        table.start()
        assert table.wait_online(WAIT)
        while True:
            name, payload = statuses.get(timeout=WAIT)
            if name == "7" and payload.get("online"):
                break
        table.publish_event({"seq": 1, "match_id": "m1", "type": "checkin", "side": "A"})
        name, event = events.get(timeout=WAIT)
        assert (name, event["seq"], event["type"]) == ("7", 1, "checkin")
    finally:
        table.stop()
        hub.stop()
        outbox.close()
        broker.stop()


def test_plain_client_cannot_talk_to_a_tls_listener(tmp_path):
    """Without TLS the link never comes online (no silent fallback to plain text)."""
    broker, _cert = _tls_broker(tmp_path)
    port = broker.port
    outbox = Outbox(str(tmp_path / "outbox.sqlite3"))
    table = TableLink(
        "tlsev2",
        "8",
        "127.0.0.1",
        port,
        outbox=outbox,
        state_provider=lambda: {"schema": 1},
        on_assign=lambda a: None,
        on_cmd=lambda c: None,
        backoff=(0.05, 0.2),
    )
    try:
        table.start()
        assert not table.wait_online(1.5)
    finally:
        table.stop()
        outbox.close()
        broker.stop()
