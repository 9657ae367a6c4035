"""One table can never stop the room: invalid messages and damaged stored rows.

A real hub on a real Mosquitto, a healthy simulated table whose player B is late, and hostile
tables publishing what once stopped every hub tick (a ``confirmed`` that is a string, a game's
``points`` as a string, objects where ``cube.value`` and ``game`` belong, ``penalty_log: [null]``).
The healthy table must still get its lateness points and its tile; each hostile table's message
is dropped (never held, never stored), one alert per table names the field; and the hub starts
again over the same database and the same retained messages (no crash loop).
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from hub.live.clock import FakeClock
from hub.storage.store import Store
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import MIN, T0, hub_state, present, publish, schedule_csv, sim_table, start_hub, tick
from tests.hub.support import event_id as hub_event_id


def _state(table: str, match_id: str = "x1", games: int = 2) -> dict:
    """A real snapshot of a match in play with ``games`` games played (checked: the reported
    crashes below need a list of games to break)."""
    st = new_table(table)
    at = 0

    def step(inp: dict) -> None:
        nonlocal st, at
        at += 1000
        st, _ = apply(st, {**inp, "at": at, "wall": T0 + at})

    step(
        {
            "input": "assign",
            "match_id": match_id,
            "length": 9,
            "clock": False,
            "profile": "wbgf-2023",
            "players": {"A": {"name": "Cy", "id": ""}, "B": {"name": "Di", "id": ""}},
        }
    )
    step({"input": "checkin", "side": "A"})
    step({"input": "checkin", "side": "B"})
    for _ in range(games):
        step({"input": "opening_roll", "A": 6, "B": 1})
        step({"input": "win", "side": "A", "kind": "single"})
    snap = json.loads(json.dumps(snapshot(st)))
    assert len(snap["games"]) == games, snap
    return snap


def _crashes(table: str) -> dict[str, dict]:
    """The reported crashes, each as the field it gets wrong and the whole message."""
    good = _state(table)
    good["penalty_log"] = []
    games = good["games"]
    return {
        "confirmed": {**good, "confirmed": "yes"},
        "games[1].points": {**good, "games": [games[0], {**games[1], "points": "1"}]},
        "cube.value": {**good, "cube": {**good["cube"], "value": {"v": 2}}},
        "game": {**good, "game": {"n": 1}},
        "penalty_log[0]": {**good, "penalty_log": [None]},
    }


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock one minute before the scheduled start ``T0``."""
    return FakeClock(T0 - MIN)


def _alerts(hub) -> list[dict]:
    return hub.call(hub.hub.alert_list)


def test_reported_crashes_are_dropped_alerted_and_the_room_goes_on(tmp_path, mosquitto, clock):
    ev = hub_event_id("crashes")
    hostile = {f"9{i}": path for i, path in enumerate(_crashes("x"))}
    sched = schedule_csv(
        [{"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 7, "start": T0}]
    )
    db = tmp_path / "hub.db"
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=sched, db=db)
    tiles: list[dict] = []
    try:
        hub.call(hub.hub.subscribe, lambda m: tiles.extend(m["tiles"]) if m["type"] == "tiles" else None)
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            # a well-formed state of a hostile table first: then each reported crash, retained
            items = []
            for table, path in hostile.items():
                items.append((f"bg/v1/{ev}/table/{table}/state", json.dumps(_state(table)), True))
                items.append((f"bg/v1/{ev}/table/{table}/state", json.dumps(_crashes(table)[path]), True))
            publish(mosquitto.host, mosquitto.port, items)
            hub.wait_for(lambda h: h.stats["invalid"] >= len(hostile))

            clock.set(T0 + 12 * MIN)
            tick(hub)
            # the healthy table got its lateness points, and its tile shows them
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            hub.wait_for(lambda h: hub_state(h, "1").get("penalties", {}).get("B") == 2)
            tick(hub)
            assert any(t["table"] == "1" and t["penalties"]["B"] == 2 for t in tiles)

            # each hostile table: its last good state is held, the bad one is not; one alert each
            alerts = _alerts(hub)
            for table, path in hostile.items():
                held = hub.call(lambda t=table: hub.hub.views[t].state)
                assert held == _state(table)
                mine = [a for a in alerts if a["table"] == table and a["kind"] == "invalid_message"]
                assert len(mine) == 1, alerts
                assert mine[0]["message"].startswith(f"Table {table} sent an invalid state: field {path}:")
                assert not hub.call(lambda t=table: hub.hub.views[t].state_fresh)
            # the whole room still renders (the room view and the public board)
            room = hub.call(hub.hub.room)
            assert {t["table"] for t in room["tables"]} >= {"1", *hostile}
            assert len(hub.call(hub.hub.board)["tables"]) == len(room["tables"])
    finally:
        hub.stop()

    # never stored: the database holds only good states
    with sqlite3.connect(db) as conn:
        for table, body in conn.execute("SELECT tbl, body FROM table_state"):
            if table in hostile:
                assert json.loads(body) == _state(table)

    # the broker still holds the bad retained states: the hub starts on them and goes on
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=sched, db=db)
    try:
        hub.wait_for(lambda h: h.stats["invalid"] >= len(hostile))
        tick(hub)
        assert hub.call(lambda: hub.hub.tile("1"))["penalties"]["B"] == 2
        kinds = [a["kind"] for a in _alerts(hub) if a["table"] in hostile]
        assert kinds.count("invalid_message") == len(hostile)
    finally:
        hub.stop()


def test_an_invalid_event_counts_as_received_and_is_not_asked_for_again(tmp_path, mosquitto, clock):
    ev = hub_event_id("badevent")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    try:
        topic = f"bg/v1/{ev}/table/7/evt"
        events = [
            {"seq": 1, "match_id": "m1", "type": "press", "side": "A", "at": 1, "wall": T0},
            {"seq": 2, "match_id": "m1", "type": "press", "side": {"who": "A"}, "at": 2, "wall": T0},
            {"seq": 3, "match_id": "m1", "type": "roll", "dice": [3, 9], "at": 3, "wall": T0},
            {"seq": 4, "match_id": "m1", "type": "press", "side": "B", "at": 4, "wall": T0},
        ]
        publish(mosquitto.host, mosquitto.port, [(topic, json.dumps(e), False) for e in events])
        hub.wait_for(lambda h: h.stats["messages"] >= 4)
        stored = hub.call(lambda: hub.hub.store.events("7"))
        assert [e["seq"] for e in stored] == [1, 4]
        assert hub.call(lambda: hub.hub.stats["resyncs"]) == 0
        alert = next(a for a in _alerts(hub) if a["kind"] == "invalid_message")
        # one alert for the table's events, naming the latest bad field
        assert alert["message"].startswith("Table 7 sent an invalid event: field dice[1]:")
    finally:
        hub.stop()


def test_damaged_stored_rows_are_set_aside_and_start_up_goes_on(tmp_path, mosquitto, clock):
    """A damaged SD card row (garbage, or a stored state that no longer passes the schema) never
    stops the hub's start: the row is moved to ``quarantine``, the TD is alerted, the rest works."""
    ev = hub_event_id("quarantine")
    db = tmp_path / "hub.db"
    sched = schedule_csv(
        [
            {"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 7, "start": T0},
            {"round": 1, "table": "2", "player_a": "Cy", "player_b": "Di", "length": 7, "start": T0},
        ]
    )
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=sched, db=db)
    hub.stop()
    bad_state = {**_state("5"), "confirmed": "yes"}
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO table_state VALUES ('4', 'x', 1, '{\"seq\": 1, \"phase\"', 1)")
        conn.execute("INSERT INTO table_state VALUES ('5', 'x1', 9, ?, 1)", (json.dumps(bad_state),))
        conn.execute("INSERT INTO table_status VALUES ('6', 1, '[1, 2]', 1)")
        conn.execute(
            "INSERT INTO results (match_id, tbl, round, length, score_a, score_b, body) "
            "VALUES ('old', '3', '1', 7, 'seven', 0, '{}')"
        )
        conn.execute(
            "INSERT INTO alerts (key, kind, urgency, tbl, message, raised_wall, active) "
            "VALUES ('k', 'x', 'apocalyptic', '3', 'm', 1, 1)"
        )
        conn.execute("UPDATE schedule SET length = 'seven' WHERE tbl = '2'")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=None, db=db)
    try:
        tick(hub)
        quarantined = [a for a in _alerts(hub) if a["kind"] == "quarantined"]
        assert sorted(a["table"] or "" for a in quarantined) == ["2", "3", "3", "4", "5", "6"]
        assert all("set aside" in a["message"] for a in quarantined)
        # table 1's match is still scheduled, assigned and watched; the damaged rows are gone
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 12 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
    finally:
        hub.stop()
    store = Store(db)
    try:
        sources = sorted(r["source"] for r in store.quarantine_rows())
        assert sources == ["alerts", "results", "schedule", "table_state", "table_state", "table_status"]
        assert not {"4", "5", "6"} & (set(store.states()) | set(store.statuses()))
    finally:
        store.close()
