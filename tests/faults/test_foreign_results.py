"""A result belongs to its table: attacks by a table's own credential, on a real room.

A real Mosquitto running the configuration ``bghub broker-config`` generates (a credential of its
own per table, deny by default), a real ``bghub`` process with the hub's credential, and the
tables' credentials used as an attacker who took a table's SD card would: table 3, on its own
topic, publishes valid states (made by the real rulebook) of table 1's match.

Non-delivery and non-effect are proved with a control message on the same connection: once the
hub shows table 3's own match, everything table 3 sent before it has been handled.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.broker.mosquitto import main as broker_config_main
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.faults.support import WAIT, HubProcess, TdClient, schedule_csv, wait_until
from tests.hub.test_broker_config_broker import Peer
from tests.support.broker import Mosquitto, free_port
from tests.support.patience import patience

EVENT = "foreign-room"
PREFIX = f"bg/v1/{EVENT}"
MARKERS = itertools.count(1)


class Room:
    """The generated broker configuration, its Mosquitto, and a bghub process on it."""

    def __init__(self, tmp_path: Path, schedule: str) -> None:
        port = free_port()
        self.out = tmp_path / "broker"
        argv = ["--event", EVENT, "--tables", "1-5", "--out", str(self.out), "--port", str(port)]
        assert broker_config_main([*argv, "--bind", "127.0.0.1"]) == 0
        self.broker = Mosquitto(port=port, conf_path=self.out / "mosquitto.conf").start()
        self.peers: list[Peer] = []
        self.hub = HubProcess(
            tmp_path,
            self.broker,
            EVENT,
            tmp_path / "hub.db",
            schedule=schedule,
            extra=["--broker-credentials", str(self.out / "hub.toml")],
        )
        self.td = TdClient(self.hub.url)

    def table(self, table: str) -> Peer:
        broker = tomllib.loads((self.out / "tables" / f"{table}.toml").read_text())["broker"]
        peer = Peer(self.broker, broker["username"], broker["password"]).connected()
        self.peers.append(peer)
        return peer

    def close(self) -> None:
        for peer in self.peers:
            peer.close()
        self.hub.stop()
        self.broker.stop()

    def csv_text(self) -> str:
        with self.td.opener.open(self.hub.url + "/api/results.csv", timeout=patience(10)) as response:
            return response.read().decode("utf-8-sig")


def state_of(
    table: str, match_id: str, *, winner: str | None = None, confirmed: bool = False, marker: int = 0
) -> bytes:
    """A real table's snapshot of ``match_id``: playing, or finished with ``winner`` (a 1-point
    match won by a single game), confirmed by both players if asked. ``marker`` is added to its
    ``wall`` (what the tile shows as ``state_wall``): a control state the test can recognise."""
    st = new_table(table)
    at = 0

    def step(inp: dict[str, Any]) -> None:
        nonlocal st, at
        at += 1000
        st, _ = apply(st, {**inp, "at": at, "wall": int(time.time() * 1000)})

    step(
        {
            "input": "assign",
            "match_id": match_id,
            "length": 1,
            "clock": False,
            "profile": "wbgf-2023",
            "players": {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}},
        }
    )
    step({"input": "checkin", "side": "A"})
    step({"input": "checkin", "side": "B"})
    step({"input": "opening_roll", "A": 6, "B": 1})
    if winner is not None:
        step({"input": "win", "side": winner, "kind": "single"})
        if confirmed:
            step({"input": "confirm", "side": "A"})
            step({"input": "confirm", "side": "B"})
    snap = snapshot(st)
    snap["wall"] += marker
    assert snap["phase"] == ("finished" if winner else "playing"), snap["phase"]
    return json.dumps(snap).encode()


def topic(table: str, kind: str) -> str:
    return f"{PREFIX}/table/{table}/{kind}"


def schedule() -> str:
    start = int(time.time() * 1000) + 60 * 60_000
    later = start + 3_600_000
    rows = [
        {"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 1, "start": start},
        {"round": 1, "table": "3", "player_a": "Cy", "player_b": "Di", "length": 1, "start": start},
        {"round": 2, "table": "1", "player_a": "Ann", "player_b": "Di", "length": 1, "start": later},
        {"round": 2, "table": "3", "player_a": "Cy", "player_b": "Bob", "length": 1, "start": later},
    ]
    return schedule_csv(rows)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    room = Room(tmp_path, schedule())
    try:
        yield room
    finally:
        room.close()


def tile(room: Room, table: str) -> dict[str, Any]:
    return room.td.get(f"/api/tables/{table}")["tile"]


def results(room: Room) -> dict[str, dict[str, Any]]:
    return {r["match_id"]: r for r in room.td.get("/api/results")}


def alerts_about(room: Room, table: str, match_id: str) -> list[dict[str, Any]]:
    return [
        a for a in room.td.get("/api/alerts") if a.get("table") == table and a.get("match_id") == match_id
    ]


def control(room: Room, peer: Peer, table: str, match_id: str) -> None:
    """The table's own state, sent after the attack on the same connection: once the hub shows
    it, the attack before it has been handled."""
    state = state_of(table, match_id, marker=next(MARKERS))
    wall = json.loads(state)["wall"]
    peer.publish(topic(table, "state"), state, retain=True)
    wait_until(lambda: tile(room, table).get("state_wall") == wall, WAIT, f"table {table}'s control state")


def test_a_table_cannot_rewrite_or_delete_another_tables_verified_result(room: Room):
    t1, t3 = room.table("1"), room.table("3")
    wait_until(lambda: tile(room, "1").get("match_id") == "r1-t1", WAIT, "table 1 assigned r1-t1")
    t1.publish(topic("1", "state"), state_of("1", "r1-t1", winner="A", confirmed=True), retain=True)
    wait_until(lambda: "r1-t1" in results(room), WAIT, "table 1's result")
    room.td.post("/api/results/r1-t1/verify")
    before = results(room)["r1-t1"]
    assert before["verified"] and before["winner"] == "A" and before["table"] == "1"
    csv_before = room.csv_text()

    # Table 3, on its own topic with its own credential: a valid finished state of r1-t1 naming
    # the other winner, then an unfinished one.
    t3.publish(topic("3", "state"), state_of("3", "r1-t1", winner="B", confirmed=True))
    control(room, t3, "3", "r1-t3")
    t3.publish(topic("3", "state"), state_of("3", "r1-t1"))
    control(room, t3, "3", "r1-t3")

    after = results(room)["r1-t1"]
    assert after == before
    assert after["verified"] and after["winner"] == "A"
    assert room.csv_text() == csv_before
    row = next(csv.DictReader(io.StringIO(room.csv_text())))
    assert row["match_id"] == "r1-t1" and row["winner"] in ("A", "Ann")
    told = alerts_about(room, "3", "r1-t1")
    assert len(told) == 1, told
    assert "Table 3" in told[0]["message"] and "r1-t1" in told[0]["message"]
    assert "table 1's" in told[0]["message"]


def test_a_tables_own_state_never_replaces_its_verified_result(room: Room):
    """Only a TD's correction changes a verified result: the table saying otherwise is an alert."""
    t1 = room.table("1")
    wait_until(lambda: tile(room, "1").get("match_id") == "r1-t1", WAIT, "table 1 assigned r1-t1")
    t1.publish(topic("1", "state"), state_of("1", "r1-t1", winner="A"), retain=True)
    wait_until(lambda: "r1-t1" in results(room), WAIT, "table 1's result")
    room.td.post("/api/results/r1-t1/verify")
    before = results(room)["r1-t1"]
    t1.publish(topic("1", "state"), state_of("1", "r1-t1", winner="B"), retain=True)
    wait_until(lambda: alerts_about(room, "1", "r1-t1"), WAIT, "the alert about table 1's new result")
    assert results(room)["r1-t1"] == before
    assert "verified result stands" in alerts_about(room, "1", "r1-t1")[0]["message"]
    # the TD's correction is what changes it
    correction = {"score": {"A": 0, "B": 1}, "winner": "B", "note": "the table was right"}
    room.td.post("/api/results/r1-t1/correct", correction)
    assert results(room)["r1-t1"]["winner"] == "B"


def test_a_state_of_the_next_match_does_not_move_the_table_on(room: Room):
    """While table 1 plays r1-t1, neither table 1's own state of its next match (finished and
    confirmed) nor table 3's finished state of r1-t1 makes the hub assign r2-t1 or file a result."""
    t1, t3 = room.table("1"), room.table("3")
    t1.subscribe(topic("1", "assign"))
    t3.subscribe(topic("3", "assign"))
    wait_until(lambda: tile(room, "1").get("match_id") == "r1-t1", WAIT, "table 1 assigned r1-t1")
    t1.publish(topic("1", "state"), state_of("1", "r1-t1"), retain=True)
    t1.publish(topic("1", "state"), state_of("1", "r2-t1", winner="A", confirmed=True))
    t3.publish(topic("3", "state"), state_of("3", "r1-t1", winner="B", confirmed=True))
    control(room, t1, "1", "r1-t1")  # after the attack on table 1's connection
    # the room's control: table 3 really finishes its own match, and the hub moves table 3 on;
    # the tick that assigns r2-t3 has looked at table 1 too (changed before it)
    t3.publish(topic("3", "state"), state_of("3", "r1-t3", winner="A", confirmed=True), retain=True)
    got = t3.receive_until(topic("3", "assign"))
    while json.loads(got[-1][1] or b"{}").get("match_id") != "r2-t3":
        got = t3.receive_until(topic("3", "assign"))
    assert tile(room, "1")["match_id"] == "r1-t1"
    assert set(results(room)) == {"r1-t3"}
    assigns = []
    while not t1.messages.empty():
        assigns.append(json.loads(t1.messages.get()[1] or b"{}").get("match_id"))
    assert assigns and set(assigns) == {"r1-t1"}, assigns
    assert len(alerts_about(room, "1", "r2-t1")) == 1
    assert len(alerts_about(room, "3", "r1-t1")) == 1
    assert "not assigned it to this table yet" in alerts_about(room, "1", "r2-t1")[0]["message"]
