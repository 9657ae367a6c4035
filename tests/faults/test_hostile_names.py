"""Hostile player names in a real assignment never stop a real kiosk, now or at its next start.

A name holding NUL used to crash the kiosk on its first frame (SDL_ttf cannot render it), and
since the assignment is journaled, every restart crashed again. Here a hub client on a real
broker assigns matches whose names hold NUL and other controls, zero-width text, the longest
names the rules take (and longer ones, which they refuse), right-to-left text with overrides,
combining marks and emoji; the kiosk (``bgtable run --headless``) must take each one the rules
accept, keep drawing, publish its state, and come back with the same names after a restart.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

import pytest

from rulebook.table import apply, new_table
from tests.faults.test_journal_damage import RESTORED, TABLE, Hub, Kiosk

NAMES = [
    ("Ann\x00Lee", "Bob\x07\x1b[2J"),
    ("\u200b", "\U000e0041\u200d"),
    ("W" * 200, "é" * 200),
    ("W" * 5000, "é" * 3000),
    ("\u202eevil\u202c مرحبا", "שלום\u200f e" + "\u0301" * 80),
    ("👨\u200d👩\u200d👧\u200d👦" * 20, "\t\n\r\x85\x9f"),
]


def accepted(assign: dict[str, Any]) -> bool:
    """Whether the rules take this assignment (they refuse names beyond their length limit)."""
    inp = {"at": 0, "input": "assign", "profile": "wbgf-2023", **assign}
    _, events = apply(new_table(TABLE), inp)
    return "rejected" not in events[-1]


@pytest.fixture
def room(tmp_path, mosquitto):
    event = f"hn{os.getpid()}-{uuid.uuid4().hex[:6]}"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{TABLE}"\nevent = "{event}"\ndata_dir = "{tmp_path / "data"}"\n'
        f'[pins]\nenabled = false\n[broker]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n',
        encoding="utf-8",
    )
    hub = Hub(mosquitto.host, mosquitto.port, event)
    yield config, hub
    hub.close()


def test_hostile_names_never_stop_the_kiosk(room):
    config, hub = room
    kiosk = Kiosk(config)
    try:
        kiosk.wait_line("first frame")
        for i, (a, b) in enumerate(NAMES):
            assign = {
                "match_id": f"m{i}",
                "length": 5,
                "players": {"A": {"name": a, "id": "1"}, "B": {"name": b, "id": "2"}},
                "clock": True,
                "force": True,
            }
            hub.assign(assign)
            if accepted(assign):
                state = hub.state_of(f"m{i}")
                assert {side: p["name"] for side, p in state["players"].items()} == {"A": a, "B": b}
            assert kiosk.proc.poll() is None, kiosk.text()
    finally:
        assert kiosk.stop() == 0, kiosk.text()
    # the last assignment is in the journal: the next start restores it and draws it
    again = Kiosk(config)
    try:
        found = again.wait_line(RESTORED)
        assert json.loads(found.group(2))["match_id"] == f"m{len(NAMES) - 1}"
        again.wait_line("first frame")
    finally:
        assert again.stop() == 0, again.text()
    assert "Traceback" not in kiosk.text() + again.text()
