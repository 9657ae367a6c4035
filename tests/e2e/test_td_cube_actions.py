"""The TD's cube decisions and the double loss on the dashboard's table page: offered from the
table's published ``legal.td`` (only under the profiles whose text gives them), with their labels,
confirmed in a sentence naming the players and the article, and applied by the table.
Real hub, broker, simulated tables (an FFBG match, an HU match), Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.logic.timeline import Filters
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.e2e.pages import WAIT, answer, confirm_text, login
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub, tick

ROWS = [
    {"round": 1, "table": "21", "player_a": "Anna Berg", "player_b": "Jon Dahl", "length": 7,
     "start": T0, "clock": "yes", "profile": "ffbg-cdf"},
    {"round": 1, "table": "22", "player_a": "Mia Lund", "player_b": "Ola Nes", "length": 3,
     "start": T0, "clock": "no", "profile": "hu"},
]  # fmt: skip
CUBE_ACTIONS = ("crawford_double", "forbid_double", "force_double", "double_loss")


@dataclass
class Room:
    hub: HubThread
    sims: dict[str, SimTable]


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory) -> Iterator[Room]:
    clock = FakeClock(T0 + MIN)
    event = event_id("cube")
    tmp = tmp_path_factory.mktemp("cube")
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, event, clock, schedule=schedule_csv(ROWS))
    sims = {t: SimTable(event, t, mosquitto.host, mosquitto.port, clock=clock).start() for t in ("21", "22")}
    try:
        for t, sim in sims.items():
            sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(6, 2)
        sims["21"].press("B")  # the lower opening roller starts A's clock
        sims["21"].press("A")  # B's turn, before B rolls
        hub.wait_for(lambda h: hub_state(h, "21").get("phase") == "playing")
        hub.wait_for(lambda h: hub_state(h, "22").get("phase") == "playing")
        yield Room(hub, sims)
    finally:
        for sim in sims.values():
            sim.stop()
        hub.stop()


def _no_page_errors(page: Page) -> list[str]:
    """The page's script errors, collected from now on (the test asserts there are none)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _shown(page: Page) -> dict[str, str]:
    """The cube actions the bar shows now, with their labels."""
    out = {}
    for action in CUBE_ACTIONS:
        button = page.locator(f'#action-bar [data-action="{action}"]')
        if button.is_visible():
            out[action] = button.inner_text()
    return out


def _submit(page: Page, action: str, **fields: str) -> str:
    page.click(f'#action-bar [data-action="{action}"]')
    form = page.locator(f'#action-panel [data-form="{action}"]')
    expect(form).to_be_visible(timeout=WAIT)
    for name, value in fields.items():
        form.locator(f"select[name={name}]").select_option(value)
    form.locator("button[type=submit]").click()
    return confirm_text(page)


def test_ffbg_the_td_enters_a_forced_double_and_declares_a_double_loss(page, room):
    """FFBG 6.8 and 10.3 from the dashboard: the bar offers what FFBG gives the TD (not HU's
    forbidding), a forced double goes to the table, then the double loss ends the match."""
    sim = room.sims["21"]
    errors = _no_page_errors(page)
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/21")
    expect(page.locator(".scoreboard")).to_contain_text("Anna Berg", timeout=WAIT)
    expect(page.locator('#action-bar [data-action="force_double"]')).to_be_visible(timeout=WAIT)
    assert _shown(page) == {"force_double": "Forced double…", "double_loss": "Double loss…"}
    sentence = _submit(page, "force_double", side="B")
    assert sentence == "Enter Jon Dahl's double at r1-t21 (FFBG 6.8)? Anna Berg then takes or passes."
    answer(page, ok=True)
    sim.wait_for(lambda s: s.match is not None and s.match.cube.offered_by == "B")
    # a double waits: the rules now list nobody for another forced double
    expect(page.locator('#action-bar [data-action="force_double"]')).to_be_hidden(timeout=WAIT)
    sentence = _submit(page, "double_loss")
    assert sentence == (
        "Double loss at r1-t21 (Anna Berg – Jon Dahl): both players lose the match (FFBG 10.3)?"
    )
    answer(page, ok=True)
    sim.wait_for(lambda s: s.phase == "finished")
    snap = snapshot(sim.state)
    assert snap["winner"] is None and snap["end_reason"] == "double_loss"
    expect(page.locator(".result-banner")).to_contain_text(
        "Both players lost at 0–0: a double loss (FFBG 10.3)", timeout=WAIT
    )
    room.hub.wait_for(lambda h: "r1-t21" in h.results)
    result = room.hub.call(lambda: room.hub.hub.results["r1-t21"])
    assert result["winner"] is None and result["end_reason"] == "double_loss"
    tick(room.hub)
    said = [i["text"] for i in room.hub.call(room.hub.hub.display.timeline, Filters(table="21"))]
    assert said[:2] == [
        "Double loss: both players lose the match (FFBG 10.3)",
        "Jon Dahl's double entered by the TD (FFBG 6.8)",
    ], said
    assert not errors, errors


def test_hu_the_td_forbids_doubling_and_enters_the_leaders_crawford_choice(page, room):
    """HU 7.9 and 7.5 from the dashboard: forbidding B's doubles, then (in the Crawford game) the
    leader's choice about B's double."""
    sim = room.sims["22"]
    errors = _no_page_errors(page)
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/22")
    expect(page.locator(".scoreboard")).to_contain_text("Mia Lund", timeout=WAIT)
    expect(page.locator('#action-bar [data-action="forbid_double"]')).to_be_visible(timeout=WAIT)
    assert _shown(page) == {"forbid_double": "Forbid doubling…"}
    sentence = _submit(page, "forbid_double", side="B")
    assert sentence == "Ola Nes may not double for the rest of this game at r1-t22 (HU 7.9)?"
    answer(page, ok=True)
    sim.wait_for(lambda s: s.match is not None and s.match.double_forbidden.b)
    assert sim.double("B")[0]["code"] == "double.forbidden"
    sim.win("A", "gammon")  # 2-0 of 3: the Crawford game next
    sim.opening_roll(6, 2)
    sim.double("B")  # in the Crawford game: recorded for the leader (HU 7.5)
    expect(page.locator('#action-bar [data-action="crawford_double"]')).to_be_visible(timeout=WAIT)
    assert _shown(page)["crawford_double"] == "Crawford double…"
    sentence = _submit(page, "crawford_double", choice="void")
    assert sentence.startswith("Void the double made in the Crawford game at r1-t22")
    answer(page, ok=True)
    sim.wait_for(lambda s: s.match is not None and s.match.cube.offered_by is None)
    expect(page.locator('#action-bar [data-action="crawford_double"]')).to_be_hidden(timeout=WAIT)
    assert not errors, errors
