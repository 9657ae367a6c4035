"""Bytes flipped on the hub's disk never stop it from starting.

Twenty flipped bytes in a stored row's text pass SQLite's ``quick_check`` (it checks the file's
structure, not whether text is UTF-8), and reading that row once failed the whole query: the
hub died at start, systemd started it again, and it died again. Here a real ``bghub`` process
runs, stops, its database file gets 20 bytes flipped in one row of every kind the hub reads at
start (and in an event and an audit row, read later), and ``bghub`` starts again on it: each
damaged row is set aside with one alert naming its table, and the rest of the hub works.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from tests.faults.support import HubProcess, TdClient, event_id, schedule_csv, wait_until
from tests.support.broker import Mosquitto

#: where 20 bytes are flipped: each kind of row carries its own marker in one of its texts
MARK = "FLIPPED-BYTES-HERE-{}-0123456789"


def mark(kind: str) -> str:
    return MARK.format(kind)


def damaged_rows(db: Path) -> None:
    """One row of each kind, with a marker in a text the hub reads."""
    conn = sqlite3.connect(db)
    try:
        state = {"table": "1", "match_id": "r1-t1", "seq": 1, "players": {"A": {"name": mark("state")}}}
        conn.execute("INSERT INTO table_state VALUES ('1', 'r1-t1', 1, ?, 1)", (json.dumps(state),))
        conn.execute(
            "INSERT INTO table_status VALUES ('2', 1, ?, 1)",
            (json.dumps({"online": True, "x": mark("status")}),),
        )
        conn.execute(
            "INSERT INTO results (match_id, tbl, round, player_a, player_b, length, score_a, score_b, body) "
            "VALUES ('r1-t3', '3', '1', ?, 'Bob', 1, 1, 0, '{}')",
            (mark("result"),),
        )
        conn.execute(
            "INSERT INTO schedule (match_id, round, tbl, player_a, player_b, length, start_wall, clock, "
            "profile, imported_wall) VALUES ('r9-t4', '9', '4', ?, 'Di', 5, 1, 0, 'wbgf-2023', 1)",
            (mark("schedule"),),
        )
        conn.execute(
            "INSERT INTO alerts (key, kind, urgency, tbl, message, raised_wall, active) "
            "VALUES ('k5', 'offline', 'high', '5', ?, 1, 1)",
            (mark("alert"),),
        )
        conn.execute("INSERT INTO dice VALUES ('6', 'tower', ?, NULL, 0)", (json.dumps({"x": mark("dice")}),))
        conn.execute("INSERT INTO releases VALUES (?, 1, 'td')", (mark("release"),))
        conn.execute("INSERT INTO assigned VALUES ('7', ?, 1)", (mark("assigned"),))
        conn.execute(
            "INSERT INTO fleet_devices (device, key, state, tbl, first_seen_wall, last_seen_wall, report) "
            "VALUES ('dev8', 'k', 'enrolled', '8', 1, 1, ?)",
            (json.dumps({"x": mark("device")}),),
        )
        conn.execute(
            "INSERT INTO events (tbl, match_id, seq, type, received_wall, body) "
            "VALUES ('9', 'm', 1, 'press', 1, ?)",
            (json.dumps({"seq": 1, "match_id": "m", "type": "press", "x": mark("event")}),),
        )
        conn.execute(
            "INSERT INTO audit (wall, actor, action, tbl, detail) VALUES (1, 'td', 'note', '9', ?)",
            (json.dumps({"x": mark("audit")}),),
        )
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def flip(db: Path, kinds: list[str]) -> None:
    """Flip 20 bytes of every copy of each marker in the file (as a failing card would)."""
    data = bytearray(db.read_bytes())
    for kind in kinds:
        needle = mark(kind).encode()
        at = data.find(needle)
        assert at >= 0, kind
        while at >= 0:
            for i in range(20):
                data[at + i] ^= 0xFF
            at = data.find(needle, at + 1)
    db.write_bytes(bytes(data))


KINDS = [
    "state",
    "status",
    "result",
    "schedule",
    "alert",
    "dice",
    "release",
    "assigned",
    "device",
    "event",
    "audit",
]


def test_twenty_flipped_bytes_in_each_kind_of_row_never_stop_the_hub(tmp_path: Path):
    broker = Mosquitto().start()
    ev = event_id("flipped")
    db = tmp_path / "hub.db"
    start = int(time.time() * 1000) + 3_600_000
    sched = schedule_csv(
        [{"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 5, "start": start}]
    )
    try:
        hub = HubProcess(tmp_path, broker, ev, db, schedule=sched)
        hub.stop()
        damaged_rows(db)
        flip(db, KINDS)
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            try:
                conn.execute("SELECT body FROM table_state").fetchall()
                raise AssertionError("the flipped state row reads as text")
            except sqlite3.OperationalError as exc:
                assert "UTF-8" in str(exc)

        hub = HubProcess(tmp_path, broker, ev, db)  # it starts: the dashboard's address is printed
        try:
            td = TdClient(hub.url)
            expected = {"1", "2", "3", "4", "5", "6", "7", "8", None}  # the release names no table

            def quarantined() -> list[dict]:
                return [a for a in td.get("/api/alerts") if a["kind"] == "quarantined"]

            wait_until(lambda: len(quarantined()) >= 9, what="one alert per damaged row")
            alerts = quarantined()
            assert {a["table"] for a in alerts} == expected, alerts
            assert len(alerts) == 9
            assert all("not UTF-8" in a["message"] for a in alerts), alerts
            # what was read later still reads: the damaged event and audit rows are shown mended
            assert td.get("/api/tables/9/events")
            assert td.get("/api/audit")
            assert td.get("/api/room")["tables"]
            assert hub.alive()
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                sources = sorted(r[0] for r in conn.execute("SELECT source FROM quarantine"))
            assert sources == sorted(
                [
                    "table_state",
                    "table_status",
                    "results",
                    "schedule",
                    "alerts",
                    "dice",
                    "releases",
                    "assigned",
                    "fleet_devices",
                ]
            )
        finally:
            hub.stop()
        # and it starts again: nothing damaged is left to trip on
        hub = HubProcess(tmp_path, broker, ev, db)
        assert hub.alive()
        hub.stop()
    finally:
        broker.stop()
