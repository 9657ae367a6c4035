"""Enrolled tables talk TLS to the room's broker, checked with the CA from their sealed
configuration; an impostor at the broker's address never gets their password.

Real processes: Mosquitto with dynamic security and its own TLS listener, made by
``bghub broker-config --tls`` (which makes the room's CA and the broker's certificate), ``bghub``
(which hands the CA and the TLS address to the tables it enrolls), ``bgtable enroll`` and
``bgtable run``. The impostor is a TLS listener on 127.0.0.2 with a certificate of its own CA.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import tomllib
from pathlib import Path

from hub.broker.tls import cert_pem, key_pem, make_ca, make_server
from tests.fleet.relay import RELAY_HOST
from tests.fleet.support import WAIT, Enroll, Hub, Room, Table, broker_of, cleanup, wait_until
from tests.support.broker import free_port

EVENT = "fleet-tls"


class Impostor:
    """A TLS server posing as the broker: keeps whatever a client sends once a handshake passes."""

    def __init__(self, tmp: Path, host: str, port: int) -> None:
        ca, ca_key = make_ca("impostor")
        cert, key = make_server(ca, ca_key, [host])
        (tmp / "impostor.pem").write_text(cert_pem(cert))
        (tmp / "impostor.key").write_text(key_pem(key))
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(tmp / "impostor.pem", tmp / "impostor.key")
        self.sock = socket.create_server((host, port))
        self.plaintext: list[bytes] = []
        self.refused = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(5)
            try:
                with self.context.wrap_socket(conn, server_side=True) as tls:
                    self.plaintext.append(tls.recv(65536))
            except (ssl.SSLError, OSError):
                self.refused += 1

    def stop(self) -> None:
        self.sock.close()


def test_an_enrolled_table_uses_the_rooms_tls_listener_and_refuses_an_impostor(tmp_path: Path):
    tls_port = free_port()
    room = Room(tmp_path, EVENT, "--tls", "--tls-port", str(tls_port))
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub):
        assert hub.td.get("/api/fleet/hub")["broker"] == f"127.0.0.1:{tls_port}"
        assert hub.td.get("/api/fleet/hub")["tls"] is True
        state = tmp_path / "dev-s"
        proc = Enroll(tmp_path, hub.url, state, "dev-s", "--timeout", "60")
        hub.td.post("/api/fleet/dev-s/enroll", {"table": "2", "code": proc.code()})
        assert proc.wait() == 0, proc.err.lines
        config = state / "table.toml"
        broker = broker_of(config)
        assert (broker["host"], broker["port"], broker["tls"]) == ("127.0.0.1", tls_port, True)
        assert Path(broker["ca_file"]).read_text() == (room.out / "tls" / "ca.pem").read_text()
        table = Table(tmp_path, config, "s")
        with cleanup(table):
            wait_until(lambda: hub.online("2"), WAIT, "table 2 online over TLS")
            hub.wait_device("dev-s", lambda r: r["report_wall"], "a health report")

        # someone poses as the broker's address (here: the table is sent to 127.0.0.2)
        impostor = Impostor(tmp_path, RELAY_HOST, tls_port)
        text = config.read_text().replace('host = "127.0.0.1"', f'host = "{RELAY_HOST}"', 1)
        assert tomllib.loads(text)["broker"]["host"] == RELAY_HOST
        config.write_text(text)
        fooled = Table(tmp_path, config, "s2")
        with cleanup(fooled, impostor):
            wait_until(lambda: impostor.refused >= 2, WAIT, "the table's handshakes with the impostor")
            assert impostor.plaintext == [], "the table talked to the impostor"
            assert not hub.online("2")
            assert json.dumps(broker["password"]) not in fooled.text()
