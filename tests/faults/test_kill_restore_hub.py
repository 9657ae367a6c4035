"""A power cut mid-game, with the hub listening: every event the table made reaches it once.

A real ``bgtable run --headless`` plays a clocked match against a real Mosquitto and a real
``bghub`` process, is killed with SIGKILL while its clock runs, and starts again on the same
data directory. The restart journals a ``pause`` (reason ``power_loss``): that event, like every
other, must be in the hub's store exactly once. What the table made is read from its own journal
(replayed: the events are the reducer's, numbered per match), and compared with the hub's
``events`` table in the order the hub stored them.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from kiosk.journal import read_journal
from rulebook.table import apply, new_table
from tests.faults.support import WAIT, HubProcess, delivery_report, read_db, stored_events, wait_until
from tests.faults.test_journal_damage import RESTORED, Kiosk

TABLE = "k7"
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}


def journal_events(journal: Path) -> list[dict[str, Any]]:
    """Every event the table made, as the reducer made it from the journal (the hub's keys)."""
    state, made = new_table(TABLE), []
    for row in read_journal(journal):
        state, events = apply(state, row)
        made += [{**e, "match_id": e["match_id"] or ""} for e in events]
    return made


def hub_events(db: Path) -> list[dict[str, Any]]:
    with read_db(db) as conn:
        return stored_events(conn, TABLE)


def test_the_power_loss_pause_made_at_restart_reaches_the_hub_once(tmp_path: Path, mosquitto: Any) -> None:
    event = f"kr{os.getpid()}-{uuid.uuid4().hex[:6]}"
    db = tmp_path / "hub.db"
    hub = HubProcess(tmp_path, mosquitto, event, db)
    data = tmp_path / "data"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{TABLE}"\nevent = "{event}"\ndata_dir = "{data}"\ntick_interval_ms = 100\n'
        f'[pins]\nenabled = false\n[broker]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n',
        encoding="utf-8",
    )
    play = [
        {"input": "assign", "match_id": "m1", "length": 7, "players": PLAYERS, "clock": True},
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 5, "B": 2},
        {"input": "press", "side": "B"},  # A's clock runs
        {"input": "press", "side": "A"},
        {"input": "roll", "dice": [3, 4], "source": "tower"},
        {"input": "press", "side": "B"},
    ]
    script = tmp_path / "play.jsonl"
    steps = [{**s, "after_ms": 20} for s in play]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    journal = data / "journal.sqlite3"
    kiosk = Kiosk(config, script)
    try:
        # the game is under way and the hub has heard of it: then the power goes
        wait_until(lambda: len(hub_events(db)) >= len(play), WAIT, "the hub stores the first events")
        kiosk.proc.kill()
        assert kiosk.proc.wait(timeout=WAIT) < 0
        before = journal_events(journal)
        assert any(e["type"] == "press" for e in before)

        kiosk = Kiosk(config)  # the power is back: no script, the table waits for its players
        restored = json.loads(kiosk.wait_line(RESTORED).group(2))
        assert restored["clock"]["paused"] == "power_loss"
        made = journal_events(journal)
        (pause,) = [e for e in made[len(before) :] if e["type"] == "pause"]
        assert pause["reason"] == "power_loss" and pause["seq"] == before[-1]["seq"] + 1

        def delivered() -> bool:
            return delivery_report(made, hub_events(db)) is None

        try:
            wait_until(delivered, WAIT, "every event of the table stored once")
        except TimeoutError:
            raise AssertionError(delivery_report(made, hub_events(db))) from None
        stored = hub_events(db)
        assert [e["seq"] for e in stored] == list(range(1, len(made) + 1))  # 1..n, each once
        assert stored[-1]["type"] == "pause" and stored[-1]["reason"] == "power_loss"
    finally:
        kiosk.stop()
        hub.stop()
