"""A room cut off and its broker killed while its table keeps playing: no event lost or doubled.

Real processes only: a central Mosquitto and a room's Mosquitto (written by ``bghub
broker-config``, the room bridged through a link the test can cut), ``bghub`` on the central
broker, and ``bgtable run --headless`` in the room playing a scripted match. While the table plays,
the link between the room and the central broker is cut and mended, then the room's broker is
killed (SIGKILL) and started again. At the end the hub's stored events of that table are exactly
the events the table made (its outbox, where every event is written before it is sent): each once.
While the room is cut off, the dashboard's room view shows the room down, its table as "Room
offline", and one alert for the room.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.faults.support import (
    HubProcess,
    TdClient,
    delivery_report,
    read_db,
    stored_events,
    wait_until,
)
from tests.rooms.support import add_room, central_broker, start_event
from tests.support.patience import patience

EVENT = "rooms-outage"
TABLE = "E1"
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
WAIT = patience(60.0)


def script(steps: int, rng: random.Random) -> list[dict[str, Any]]:
    """A long stretch of play, one input every 100 ms (the table keeps playing through the faults)."""
    out: list[dict[str, Any]] = [
        {"input": "assign", "match_id": "m-rooms", "length": 25, "players": PLAYERS, "clock": True},
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 5, "B": 2},
        {"input": "press", "side": "B"},
        {"input": "press", "side": "A"},
    ]
    for i in range(steps):
        out.append({"input": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)], "source": "tower"})
        out.append({"input": "press", "side": "B" if i % 2 == 0 else "A"})
    for step in out:
        step["after_ms"] = 100
    return [*out, {"after_ms": 500, "exit": True}]


def start_kiosk(config: Path, tmp_path: Path, play: Path | None = None) -> subprocess.Popen[bytes]:
    """``bgtable run --headless`` (scripted when ``play`` is given), its log in kiosk.log."""
    cmd = [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)]
    with open(tmp_path / "kiosk.log", "ab") as log:
        return subprocess.Popen(
            [*cmd, *(["--script", str(play)] if play else [])],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
        )


def room_state(td: TdClient) -> str:
    (east,) = td.get("/api/room")["rooms"]
    return str(east["state"])


def outbox_events(data: Path) -> list[dict[str, Any]]:
    """Every event the table made, in the order it made them (the hub keys matchless ones as '')."""
    path = data / "outbox.sqlite3"
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute("SELECT body FROM outbox ORDER BY id").fetchall()
    finally:
        db.close()
    return [{**e, "match_id": e["match_id"] or ""} for e in (json.loads(b) for (b,) in rows)]


def hub_events(db: Path) -> list[dict[str, Any]]:
    if not db.exists():
        return []
    with read_db(db) as conn:
        try:
            return stored_events(conn, TABLE)
        except sqlite3.OperationalError:
            return []  # the hub has not created its tables yet


@pytest.mark.long
def test_no_event_lost_or_doubled_across_a_cut_link_and_a_killed_room_broker(tmp_path: Path):
    ev = central_broker(tmp_path, EVENT, "1")
    east = add_room(ev, tmp_path, "east", TABLE)
    start_event(ev)
    db = tmp_path / "hub.db"
    hub = HubProcess(
        tmp_path, ev.central, EVENT, db, extra=["--broker-credentials", str(ev.central_out / "hub.toml")]
    )
    td = TdClient(hub.url)
    data = tmp_path / "table-data"
    config = tmp_path / "table.toml"
    fragment = (east.out / "tables" / f"{TABLE}.toml").read_text()
    config.write_text(f'data_dir = "{data}"\n{fragment}\n[pins]\nenabled = false\n', encoding="utf-8")
    play = tmp_path / "play.jsonl"
    play.write_text("".join(json.dumps(s) + "\n" for s in script(90, random.Random(7))), encoding="utf-8")
    kiosk = start_kiosk(config, tmp_path, play)
    try:
        wait_until(lambda: len(hub_events(db)) >= 5, WAIT, "the table's first events at the hub")
        wait_until(lambda: room_state(td) == "up", WAIT, "room east up")

        east.link.cut()
        made = len(outbox_events(data))
        wait_until(lambda: room_state(td) == "down", WAIT, "room east down")
        room = td.get("/api/room")
        (tile,) = [t for t in room["tables"] if t["table"] == TABLE]
        assert (tile["room"], tile["status"]) == ("east", "room_offline")
        assert len([a for a in room["alerts"] if a["kind"] == "room_offline"]) == 1
        wait_until(lambda: len(outbox_events(data)) >= made + 15, WAIT, "the table playing while cut off")
        east.link.mend()
        wait_until(lambda: room_state(td) in ("catching_up", "up"), WAIT, "room east back")

        made = len(outbox_events(data))
        east.kill()
        wait_until(lambda: len(outbox_events(data)) >= made + 10, WAIT, "the table playing, its broker dead")
        east.broker.start()

        assert kiosk.wait(timeout=WAIT * 2) == 0, (tmp_path / "kiosk.log").read_text()[-3000:]
        # what its outbox still held unsent when the script ended goes at its next start
        kiosk = start_kiosk(config, tmp_path)
        report: list[str | None] = [None]

        def delivered() -> bool:
            expected = outbox_events(data)
            report[0] = delivery_report(expected, hub_events(db), ordered=False)
            return len(expected) > 150 and report[0] is None

        try:
            wait_until(delivered, WAIT, "every event at the hub")
        except TimeoutError:
            raise AssertionError(f"{len(outbox_events(data))} events made: {report[0]}") from None
        wait_until(lambda: not [a for a in td.get("/api/alerts") if a["kind"] == "room_offline"], WAIT)
    finally:
        if kiosk.poll() is None:
            kiosk.terminate()
            kiosk.wait(WAIT)
        hub.stop()
        ev.stop()
