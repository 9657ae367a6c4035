"""A club's own lateness schedule, end to end: a real ``bghub --profiles DIR`` on a real Mosquitto
assigns a match under a custom profile to a real kiosk (``bgtable run --headless``) whose card
holds no profile file; the table verifies and plays it, the hub gives the late point at the
club's minute (one, where WBGF's five would give none), and the dashboard in Chromium shows which
rules the table plays."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from kiosk.journal import read_journal
from rulebook.custom_profiles import DIGEST_KEY
from tests.e2e.pages import WAIT, context
from tests.faults.support import HubProcess, iso, read_db, stored_events, wait_until
from tests.faults.test_journal_damage import Kiosk
from tests.support.patience import patience

TABLE = "k1"
CLUB = """\
# Our club: WBGF rules, but a point for every minute late
base = "wbgf-2023"
name = "club-quick"
lateness_first_point_min = 1
lateness_interval_min = 1
"""


@pytest.mark.long
def test_a_club_profile_gives_its_late_point_at_its_own_minute(
    tmp_path: Path, mosquitto: Any, browser: Browser
) -> None:
    event = f"cp{os.getpid()}-{uuid.uuid4().hex[:6]}"
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "club.toml").write_text(CLUB, encoding="utf-8")
    start = int(time.time() * 1000) - 10_000  # the round has begun: lateness counts from the assignment
    schedule = (
        "round,table,player_a,player_b,length,start,clock,profile\n"
        f"1,{TABLE},Ann Lee,Bob Ray,7,{iso(start)},no,club-quick\n"
    )
    db = tmp_path / "hub.db"
    hub = HubProcess(tmp_path, mosquitto, event, db, schedule=schedule, extra=["--profiles", str(profiles)])
    data = tmp_path / "data"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{TABLE}"\nevent = "{event}"\ndata_dir = "{data}"\ntick_interval_ms = 100\n'
        f'[pins]\nenabled = false\n[broker]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n',
        encoding="utf-8",
    )
    # Ann checks in (again until the assignment has come: a check-in without a match is refused);
    # Bob never comes
    script = tmp_path / "play.jsonl"
    script.write_text(
        "".join(json.dumps({"after_ms": 2000, "input": "checkin", "side": "A"}) + "\n" for _ in range(10)),
        encoding="utf-8",
    )
    kiosk = Kiosk(config, script)

    def events() -> list[dict[str, Any]]:
        with read_db(db) as conn:
            return stored_events(conn, TABLE)

    def late_points() -> list[dict[str, Any]]:
        return [e for e in events() if e["type"] == "penalty" and e["reason"] == "late"]

    try:
        wait_until(
            lambda: any(e["type"] == "assign" for e in events()),
            patience(60),
            "the table takes the assignment",
        )
        (assign,) = [e for e in events() if e["type"] == "assign"]
        assert assign["profile"] == "club-quick"
        # the table took the rules from the assignment itself, and checked them
        (row,) = [r for r in read_journal(data / "journal.sqlite3") if r.get("input") == "assign"][:1]
        assert row["profile"]["lateness_first_point_min"] == 1 and len(row["profile"][DIGEST_KEY]) == 64

        wait_until(late_points, patience(150), "the first late point")
        first = late_points()[0]
        assert first["against"] == "B" and first["points"] == 1
        waited = first["at"] - assign["at"]  # the table's own monotonic milliseconds
        assert 59_000 <= waited < 90_000, waited  # at the club's minute, long before WBGF's five

        page = context(browser).new_page()
        page.goto(hub.url + "/#/")  # the hub runs --public: the views need no login
        expect(page.locator(f'.tile[data-table="{TABLE}"] .badge.rules')).to_have_text(
            "club-quick", timeout=WAIT
        )
        page.goto(f"{hub.url}/#/table/{TABLE}")
        expect(page.locator("#table-view")).to_contain_text(
            "rules club-quick (custom, over wbgf-2023: lateness_first_point_min 1, lateness_interval_min 1)",
            timeout=WAIT,
        )
        page.goto(f"{hub.url}/#/schedule")
        expect(page.locator("#schedule-table")).to_contain_text(
            "club-quick custom, over wbgf-2023", timeout=WAIT
        )
        page.context.close()
    finally:
        kiosk.stop()
        hub.stop()
