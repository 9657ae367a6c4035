"""A table is bound to its hub: whoever else answers at the hub's address cannot move it, read
its broker password or un-enroll it (issue "a room no one can take over").

Real processes: ``bghub`` with a Mosquitto made by ``bghub broker-config`` (dynamic security),
``bgtable enroll`` and ``bgtable run``. The attacker is a relay on another loopback address
(127.0.0.2) that forwards the tables' requests to the real hub and changes answers on the way,
and a trap listening where a redirected table would send its MQTT password.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from drivers.signing import new_signing_key, sign
from tests.fleet.relay import RELAY_HOST, HttpRelay, Trap
from tests.fleet.support import WAIT, Enroll, Hub, Room, Table, cleanup, wait_until
from tests.support.broker import free_port

EVENT = "fleet-bound"


def enroll_through(hub: Hub, url: str, tmp: Path, device: str, table: str) -> tuple[Path, Enroll]:
    state = tmp / device
    proc = Enroll(tmp, url, state, device, "--timeout", "60")
    code = proc.code()
    hub.td.post(f"/api/fleet/{device}/enroll", {"table": table, "code": code})
    assert proc.wait() == 0, proc.err.lines
    return state, proc


def test_a_relay_in_front_of_the_hub_cannot_redirect_the_table_nor_read_its_password(tmp_path: Path):
    room = Room(tmp_path, EVENT)
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    relay = HttpRelay(hub.url).start()
    # where the table would have sent its credential when the hub believed the request's Host
    trap = Trap(RELAY_HOST, room.port)
    with cleanup(room, hub, relay, trap):
        state, proc = enroll_through(hub, relay.url, tmp_path, "dev-r", "4")
        # through a relay that changes nothing, the key the table pins is the real hub's
        assert proc.out.wait_for(r"^hub key (\S+)$").group(1) == hub.fingerprint
        config = tomllib.loads((state / "table.toml").read_text())
        assert config["fleet"]["hub"] == hub.url, "the relay became the table's hub"
        assert config["fleet"]["hub_key"] == hub.public_key()
        assert (config["broker"]["host"], config["broker"]["port"]) == ("127.0.0.1", room.port)
        assert relay.seen, "the enrollment did not go through the relay"
        assert not relay.carried(config["broker"]["password"]), "the password crossed the relay in clear"
        table = Table(tmp_path, state / "table.toml", "r")
        with cleanup(table):
            wait_until(lambda: hub.online("4"), WAIT, "table 4 online")
            hub.wait_device("dev-r", lambda r: r["report_wall"], "a health report")
        assert trap.received == [], "the table connected to the relay's address"


def forge_retired(rogue: bytes) -> Any:
    """The relay's answers to a poll: the real one turned into "retired" (signature kept), the same
    with no signature, and one signed by a key of the attacker's own, in turn."""
    count = [0]

    def tamper(path: str, answer: dict[str, Any]) -> dict[str, Any] | None:
        if not path.endswith("/poll"):
            return None
        count[0] += 1
        forged = {**answer, "state": "retired"}
        forged.pop("sealed", None)
        kind = count[0] % 3
        if kind == 1:
            return forged
        if kind == 2:
            return {k: v for k, v in forged.items() if k not in ("sig", "signed_by")}
        return sign(rogue, forged, "poll")

    return tamper


@pytest.mark.long
def test_a_forged_retired_answer_does_not_un_enroll_the_table(tmp_path: Path):
    room = Room(tmp_path, EVENT)
    hub_port = free_port()
    relay = HttpRelay(f"http://127.0.0.1:{hub_port}").start()
    # the organiser's address for the hub is one the attacker answers at (a spoofed address)
    public = ["--public-url", relay.url, "--public-broker", f"127.0.0.1:{room.port}"]
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port, port=hub_port, extra=public)
    with cleanup(room, hub, relay):
        state, _ = enroll_through(hub, hub.url, tmp_path, "dev-f", "5")
        config = tomllib.loads((state / "table.toml").read_text())
        assert config["fleet"]["hub"] == relay.url
        table = Table(tmp_path, state / "table.toml", "f")
        with cleanup(table):
            wait_until(lambda: hub.online("5"), WAIT, "table 5 online")
            relay.tamper = forge_retired(new_signing_key())
            # cut off from the broker, the table asks "its hub" whether it was retired: the relay
            # answers "retired" three ways, and the table believes none of them
            room.broker.stop()
            for n in range(3):
                table.out.wait_for(r"cannot ask the hub about this device .*poll answer", start=0)
                wait_until(lambda n=n: len(relay.tampered) > n, WAIT, f"forged answer {n + 1}")
            wait_until(
                lambda: len([x for x in table.out.lines if "poll answer" in x]) >= 3, WAIT, "three refusals"
            )
            assert not (state / "retired").exists(), "a forged answer un-enrolled the table"
            assert table.proc.poll() is None, "the table stopped"
            assert hub.device("dev-f")["state"] == "enrolled"  # type: ignore[index]
            relay.tamper = None
            room.broker.start()
            wait_until(lambda: hub.online("5"), WAIT, "table 5 back online")
            assert not (state / "retired").exists()


def test_the_real_hub_still_retires_its_table_through_a_signed_answer(tmp_path: Path):
    """The check the attack above fails: the real hub's signed "retired" is believed."""
    room = Room(tmp_path, EVENT)
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub):
        state, _ = enroll_through(hub, hub.url, tmp_path, "dev-t", "6")
        # retired while switched off, the order on MQTT never reached it: its credential is refused,
        # so it asks the hub over HTTP, and believes the signed answer
        hub.td.post("/api/fleet/dev-t/retire", {})
        table = Table(tmp_path, state / "table.toml", "t")
        with cleanup(table):
            table.out.wait_for("the hub retired this device")
            wait_until(lambda: (state / "retired").exists(), WAIT, "the table retired")


def test_answers_name_the_device_and_echo_its_nonce(tmp_path: Path):
    """A signed answer cannot be replayed to another device or another request."""
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        from tests.fleet.support import call

        body = {"device": "dev-n", "key": "x" * 43, "version": "1", "build": "b", "hostname": "h"}
        status, answer = call(hub.url, "POST", "/device/v1/hello", {**body, "nonce": "abc"})
        assert status == 200, answer
        assert answer["device"] == "dev-n" and answer["nonce"] == "abc"
        assert answer["hub_fingerprint"] == hub.fingerprint and answer["sig"]
        from drivers.signing import SignatureError, public_key_from_b64, verify

        key = public_key_from_b64(hub.public_key())
        assert verify(answer, "hello", [key]) == key
        for purpose, changed in (("poll", answer), ("hello", {**answer, "nonce": "abd"})):
            try:
                verify(changed, purpose, [key])
            except SignatureError:
                continue
            raise AssertionError(f"{purpose}: {json.dumps(changed)} passed")


def test_forged_and_replayed_fleet_orders_on_mqtt_are_ignored(tmp_path: Path):
    """The embedded broker of an open room lets any client publish on a table's control topic:
    an unsigned "retire", one signed by another key, a real order changed, and a real order
    replayed are all ignored; the hub's own orders still work."""
    import paho.mqtt.client as mqtt

    from drivers.mqtt_topics import Topics

    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        state, _ = enroll_through(hub, hub.url, tmp_path, "dev-m", "8")
        table = Table(tmp_path, state / "table.toml", "m")
        with cleanup(table):
            wait_until(lambda: hub.online("8"), WAIT, "table 8 online")
            topic = Topics(EVENT).table_control("8")
            heard: list[dict[str, Any]] = []
            attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="attacker")
            subscribed: list[object] = []
            attacker.on_message = lambda c, u, m: heard.append(json.loads(m.payload))
            attacker.on_subscribe = lambda c, u, mid, codes, props: subscribed.append(mid)
            attacker.connect("127.0.0.1", hub.broker_port)
            attacker.loop_start()
            attacker.subscribe(topic, qos=1)
            try:
                wait_until(lambda: subscribed, WAIT, "the attacker listening on the control topic")
                hub.td.post("/api/fleet/dev-m/identify", {})
                table.out.wait_for("fleet: identify")
                real = wait_until(
                    lambda: next((m for m in heard if m.get("action") == "identify"), None),
                    WAIT,
                    "the hub's order overheard",
                )
                forged = [
                    {"action": "retire", "device": "dev-m", "id": "f1", "sent_wall": real["sent_wall"]},
                    sign(new_signing_key(), {"action": "retire", "device": "dev-m", "id": "f2"}, "control"),
                    {**real, "action": "retire"},
                    real,  # replayed as it was
                ]
                for message in forged:
                    attacker.publish(topic, json.dumps(message), qos=1).wait_for_publish(10)
                for why in ("unsigned", "not a trusted one", "does not match", "seen before"):
                    table.out.wait_for(rf"fleet order refused: .*{why}|fleet order {why}")
            finally:
                attacker.loop_stop()
                attacker.disconnect()
            identified = [x for x in table.out.lines if "fleet: identify" in x]
            assert len(identified) == 1, "the replayed identify was carried out"
            assert not (state / "retired").exists() and table.proc.poll() is None
            hub.td.post("/api/fleet/dev-m/restart", {})
            table.out.wait_for("fleet: restart")
