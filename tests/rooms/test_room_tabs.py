"""The dashboard's room tabs, in Chromium: every room by default, one tab per room and one for the
central broker's tables; a room cut off says so on its tab and its tiles read "Room offline".

Real brokers (central, two rooms bridged to it), the real hub, simulated tables in every room.
Screenshots: dashboard-rooms-all-1440x900.png and dashboard-rooms-west-1440x900.png.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from demo.simtable import SimTable
from hub.live.bridged_rooms import load_rooms
from hub.service import HubThread
from tests.e2e.pages import WAIT, context, login, shots_dir
from tests.hub.support import schedule_csv, start_hub
from tests.rooms.support import Event, add_room, central_broker, start_event

EVENT = "rooms-tabs"
TABLES = {None: ["1", "2"], "east": ["E1", "E2", "E3"], "west": ["W1", "W2"]}
NAMES = [
    "Ann Berg", "Bo Lind", "Cleo Marsh", "Dan Holt", "Eva Stone", "Finn Dahl", "Gus Petit",
    "Hanna Vik", "Ida Moor", "Jon Rask", "Kim Ode", "Lea Hart", "Max Sund", "Nora Falk",
]  # fmt: skip


@pytest.fixture
def event(tmp_path: Path) -> Iterator[Event]:
    ev = central_broker(tmp_path, EVENT, ",".join(TABLES[None]))
    for room in ("east", "west"):
        add_room(ev, tmp_path, room, ",".join(TABLES[room]))
    start_event(ev)
    yield ev
    ev.stop()


def schedule() -> str:
    at = (int(time.time()) // 60 + 15) * 60_000
    names = iter(NAMES)
    tables = [t for group in TABLES.values() for t in group]
    rows = [
        {"round": 1, "table": t, "player_a": next(names), "player_b": next(names), "length": 7, "start": at}
        for t in tables
    ]
    return schedule_csv(rows)


def tab(page: Page, label: str):
    return page.locator("#room-tabs .room-tab", has_text=label)


def tiles(page: Page) -> list[str]:
    return page.eval_on_selector_all("#grid .tile", "els => els.map(e => e.dataset.table)")


def test_room_tabs_filter_the_room_and_show_a_room_cut_off(browser: Browser, event: Event, tmp_path: Path):
    user, password = event.credential("hub")
    rooms = load_rooms(str(event.central_out / "hub.toml"))
    hub: HubThread = start_hub(
        tmp_path, event.central.host, event.central.port, EVENT, None, schedule=schedule(), username=user,
        password=password, rooms=tuple(rooms.items()), tick_interval=0.5,
    )  # fmt: skip
    sims: list[SimTable] = []
    try:
        for room, names in TABLES.items():
            for name in names:
                broker = event.central if room is None else event.rooms[room].broker
                creds = event.credential(name) if room is None else event.rooms[room].credential(name)
                user, password = creds
                sims.append(SimTable(EVENT, name, broker.host, broker.port, username=user, password=password))
        for sim in sims:
            sim.start()
            sim.wait_for(lambda s: s.match_id is not None)
        sims[0].checkin("A")
        sims[2].checkin("A")
        sims[2].checkin("B")
        hub.wait_for(lambda h: all(h.room_state.bridged_rooms.links[r].up for r in ("east", "west")))
        event.rooms["west"].link.cut()
        hub.wait_for(lambda h: h.room_state.bridged_rooms.links["west"].up is False)

        page = context(browser, "laptop").new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        login(page, hub.url)
        expect(tab(page, "All rooms")).to_have_attribute("aria-selected", "true", timeout=WAIT)
        expect(tab(page, "west")).to_contain_text("offline", timeout=WAIT)
        expect(tab(page, "west")).to_have_class("room-tab cut")
        expect(tab(page, "All rooms")).to_contain_text("1 offline")
        expect(page.locator("#grid .tile")).to_have_count(7, timeout=WAIT)
        expect(page.locator("#feed")).to_contain_text("Room west is cut off", timeout=WAIT)
        out = shots_dir(tmp_path)
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        page.screenshot(path=str(out / "dashboard-rooms-all-1440x900.png"))

        tab(page, "west").click()
        expect(page.locator("#grid .tile")).to_have_count(2, timeout=WAIT)
        assert sorted(tiles(page)) == ["W1", "W2"]
        for t in ("W1", "W2"):
            expect(page.locator(f'#grid .tile[data-table="{t}"]')).to_contain_text("Room offline")
        page.screenshot(path=str(out / "dashboard-rooms-west-1440x900.png"))

        tab(page, "east").click()
        expect(page.locator("#grid .tile")).to_have_count(3, timeout=WAIT)
        assert sorted(tiles(page)) == ["E1", "E2", "E3"]
        tab(page, "Central").click()
        expect(page.locator("#grid .tile")).to_have_count(2, timeout=WAIT)
        # the choice is kept (a reload shows the same room); the link mended, the tab is plain again
        page.reload()
        expect(page.locator("#grid .tile")).to_have_count(2, timeout=WAIT)
        event.rooms["west"].link.mend()
        expect(tab(page, "west")).not_to_contain_text("offline", timeout=WAIT * 3)
        assert not errors, errors
    finally:
        for sim in sims:
            sim.stop()
        hub.stop()
