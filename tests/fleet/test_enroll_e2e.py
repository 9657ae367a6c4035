"""Enrollment end to end, with real processes: ``bghub``, ``bgtable enroll``, ``bgtable run``.

The contract of docs/install-pi.md ("Enrolling tables") and docs/api.md ("Tables (fleet)"),
against the embedded broker and against a Mosquitto made by ``bghub broker-config``: the table
prints its code, the TD enrolls it, the table writes ``table.toml`` and says so, and
``bgtable run --config`` then connects with its own new credential (the hub shows the table
online). A replacement device takes over the table number: the old credential is refused and
its live connection dropped. A retired device's credential is refused.
"""

from __future__ import annotations

import subprocess
import time
import tomllib
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from tests.fleet.support import BIN, ENV, WAIT, Enroll, Hub, Room, Table, broker_of, call, cleanup, wait_until
from tests.support.broker import free_port
from tests.support.patience import patience

EVENT = "fleet-e2e"


def connack(port: int, username: str, password: str, client_id: str = "probe") -> mqtt.ReasonCode:
    """What the broker answers a connection with this credential."""
    got: list[mqtt.ReasonCode] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    client.username_pw_set(username, password)
    client.on_connect = lambda c, u, flags, rc, props: got.append(rc)
    client.connect("127.0.0.1", port, keepalive=10)
    client.loop_start()
    try:
        wait_until(lambda: got, WAIT, "a CONNACK")
    finally:
        client.disconnect()
        client.loop_stop()
    return got[0]


def enroll(hub: Hub, tmp: Path, device: str, table: str) -> Path:
    """A device enrolled as ``table`` through ``bgtable enroll``; its state directory."""
    state = tmp / device
    proc = Enroll(tmp, hub.url, state, device, "--timeout", "60")
    code = proc.code()
    row = hub.wait_device(device, lambda r: r["state"] == "pending", "the device pending")
    assert row["code"] == code
    enrolled = hub.td.post(f"/api/fleet/{device}/enroll", {"table": table, "code": code})
    assert enrolled["state"] == "enrolled" and enrolled["table"] == table
    assert proc.wait() == 0, proc.err.lines
    proc.out.wait_for(rf"^enrolled as table {table}$")
    return state


@pytest.mark.long
@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_enrolled_table_connects_with_its_own_credential_and_a_replacement_takes_over(
    tmp_path: Path, broker: str
):
    room = Room(tmp_path, EVENT) if broker == "mosquitto" else None
    hub = Hub(tmp_path, EVENT, room=room.out if room else None, broker_port=room.port if room else None)
    with cleanup(*(x for x in (room, hub) if x)):
        first = enroll(hub, tmp_path, "dev-first", "12")
        config = first / "table.toml"
        assert config.stat().st_mode & 0o077 == 0, "the credential is readable by others"
        written = tomllib.loads(config.read_text())
        assert written["table_id"] == "12" and written["event"] == EVENT
        assert written["data_dir"] == str(first)
        assert written["fleet"] == {"hub": hub.url, "device": "dev-first", "hub_key": hub.public_key()}
        credential = broker_of(config)
        port = room.port if room else hub.broker_port
        assert credential["port"] == port and credential["username"].startswith("table-12-")

        table = Table(tmp_path, config, "first")
        with cleanup(table):
            wait_until(lambda: hub.online("12"), WAIT, "table 12 online")
            row = hub.wait_device("dev-first", lambda r: r["report_wall"], "a health report")
            assert row["online"] is True and row["journal"]["ok"] is True
            # identify: the order reaches the table through its own credential's rights
            hub.td.post("/api/fleet/dev-first/identify", {})
            hub.wait_device("dev-first", lambda r: r["screen"] == "identify", "the number flashing")
            table.out.wait_for("fleet: identify")

            # The card breaks: a new Pi takes table 12 over.
            second = enroll(hub, tmp_path, "dev-second", "12")
            old = hub.device("dev-first")
            assert old is not None and old["state"] == "retired"
            assert "dev-second" in old["retired_why"]
            # The old credential is refused at once, and the old table was thrown out: it was
            # told to stop (retired) and its connection is gone.
            assert connack(port, credential["username"], credential["password"]).is_failure
            if room:
                wait_until(
                    lambda: (
                        f"Client {credential['username']} been disconnected by administrative action"
                        in room.log()
                    ),
                    WAIT,
                    "Mosquitto dropping the old connection",
                )
            else:
                hub.out.wait_for(rf"dropped 1 connection\(s\) of revoked credential {credential['username']}")
            wait_until(lambda: (first / "retired").exists(), WAIT, "the old table marked retired")
            new_credential = broker_of(second / "table.toml")
            assert new_credential["username"] != credential["username"]
            replacement = Table(tmp_path, second / "table.toml", "second")
            with cleanup(replacement):
                hub.wait_device(
                    "dev-second", lambda r: r["online"] and r["report_wall"], "the new table's report"
                )
                assert hub.online("12")
                # the old device, restarted by its service, is "not set up" again
                table.out.wait_for(r"^code \d{4}$")
                assert hub.wait_device(
                    "dev-first", lambda r: r["state"] == "pending", "the old device pending"
                )


@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_retired_device_credential_is_refused(tmp_path: Path, broker: str):
    room = Room(tmp_path, EVENT) if broker == "mosquitto" else None
    hub = Hub(tmp_path, EVENT, room=room.out if room else None, broker_port=room.port if room else None)
    with cleanup(*(x for x in (room, hub) if x)):
        state = enroll(hub, tmp_path, "dev-r", "7")
        credential = broker_of(state / "table.toml")
        port = room.port if room else hub.broker_port
        assert not connack(port, credential["username"], credential["password"]).is_failure
        retired = hub.td.post("/api/fleet/dev-r/retire", {})
        assert retired["state"] == "retired"
        assert connack(port, credential["username"], credential["password"]).is_failure
        if room:
            assert f"deleteClient | username={credential['username']}" in room.log()


def test_unreachable_hub_is_one_line_and_exit_2(tmp_path: Path):
    port = free_port()  # nothing listens there
    started = time.monotonic()
    proc = subprocess.run(
        [
            str(BIN / "bgtable"),
            "enroll",
            "--hub",
            f"http://127.0.0.1:{port}",
            "--state-dir",
            str(tmp_path / "s"),
            "--timeout",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=patience(60),
        env=ENV,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "unreachable" in lines[0] and f"127.0.0.1:{port}" in lines[0], lines
    assert time.monotonic() - started < 30


def test_enrollment_is_protected(tmp_path: Path):
    """A device cannot enroll itself; the TD's session and CSRF token are required; codes expire
    and are single-use; what a poll hands out is sealed to the device's key."""
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        proc = Enroll(tmp_path, hub.url, tmp_path / "d", "dev-p")
        code = proc.code()
        # no session, as a device (or anyone on the network) would try
        status, answer = call(hub.url, "POST", "/api/fleet/dev-p/enroll", {"table": "3"})
        assert status == 403, answer  # no CSRF token, no session
        status, _ = call(hub.url, "GET", "/api/fleet")
        assert status == 401
        # a session that is not logged in
        anon = call(hub.url, "GET", "/api/session")[1]
        status, _ = call(
            hub.url, "POST", "/api/fleet/dev-p/enroll", {"table": "3"}, {"X-CSRF-Token": anon["csrf"]}
        )
        assert status in (401, 403)
        # the wrong code (what the TD reads on the screen must match), a bad table number
        with pytest.raises(Exception, match="409"):
            hub.td.post(
                "/api/fleet/dev-p/enroll", {"table": "3", "code": "0000" if code != "0000" else "1111"}
            )
        with pytest.raises(Exception, match="400"):
            hub.td.post("/api/fleet/dev-p/enroll", {"table": "3/4"})
        # another client knowing the device id and key gets only the sealed configuration
        hub.td.post("/api/fleet/dev-p/enroll", {"table": "3", "code": code})
        assert proc.wait() == 0
        key = (tmp_path / "d" / "device-key").read_text().strip()
        from drivers.sealed_box import b64decode, b64encode, public_key

        status, answer = call(
            hub.url,
            "POST",
            "/device/v1/poll",
            {"device": "dev-p", "key": b64encode(public_key(b64decode(key)))},
        )
        assert status == 200 and answer["state"] == "enrolled"
        assert "password" not in str(answer) and broker_of(tmp_path / "d" / "table.toml")[
            "password"
        ] not in str(answer)
        status, _ = call(hub.url, "POST", "/device/v1/poll", {"device": "dev-p", "key": b64encode(bytes(32))})
        assert status == 403
        # single use: enrolling the same device again is refused
        with pytest.raises(Exception, match="409"):
            hub.td.post("/api/fleet/dev-p/enroll", {"table": "4", "code": code})
