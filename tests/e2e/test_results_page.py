"""Results on the dashboard as they happened: *Verify confirmed* is one round's, naming the round
and the count before and after; a result's corrections are shown with who, when and why; an
impossible correction is refused with its reason. Real hub, broker, simulated tables, Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.service import HubThread
from tests.e2e.pages import WAIT, answer, confirm_text, context, login, shots_dir
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub

ROWS = [
    {"round": 1, "table": "1", "player_a": "Anna Berg", "player_b": "Jon Dahl", "length": 3, "start": T0},
    {"round": 1, "table": "2", "player_a": "Mia Lund", "player_b": "Ola Nes", "length": 3, "start": T0},
    {"round": 2, "table": "3", "player_a": "Kari Holm", "player_b": "Per Aas", "length": 3, "start": T0},
]


@dataclass
class Room:
    hub: HubThread
    clock: FakeClock
    sims: dict[str, SimTable]


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory) -> Iterator[Room]:
    """Every match played to 3-0; both players confirmed at tables 1 and 3, one at table 2."""
    clock = FakeClock(T0 + MIN)
    tmp = tmp_path_factory.mktemp("results")
    event = event_id("resultspage")
    rows = [{**r, "clock": "no"} for r in ROWS]
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, event, clock, schedule=schedule_csv(rows))
    sims = {
        t: SimTable(event, t, mosquitto.host, mosquitto.port, clock=clock).start() for t in ("1", "2", "3")
    }
    try:
        for row in ROWS:
            t = str(row["table"])
            sim = sims[t]
            sim.wait_for(lambda s, r=row: s.match_id == f"r{r['round']}-t{r['table']}")
            sim.checkin("A")
            sim.checkin("B")
            for kind in ("gammon", "single"):
                sim.opening_roll(6, 2)
                sim.win("A", kind)
            sim.confirm("A")
            if t != "2":
                sim.confirm("B")
        for t, sim in sims.items():
            hub.wait_for(lambda h, t=t, sim=sim: hub_state(h, t).get("seq") == sim.state.seq)
        hub.wait_for(lambda h: {"r1-t1", "r1-t2", "r2-t3"} <= set(h.results))
        yield Room(hub, clock, sims)
    finally:
        for sim in sims.values():
            sim.stop()
        hub.stop()


@pytest.fixture
def page(browser, room) -> Iterator[Page]:
    ctx = context(browser, "tablet")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


def test_verify_confirmed_is_per_round_and_names_the_round_and_the_count(page, room, tmp_path):
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/rounds")
    button = page.locator('[data-round-verify="1"]')
    expect(button).to_have_text("✓ Verify 1 result confirmed in round 1…", timeout=WAIT)
    page.screenshot(path=str(shots_dir(tmp_path) / "rounds-verify-per-round.png"), full_page=True)
    button.click()
    assert confirm_text(page) == (
        "Verify the 1 result of round 1 that both players confirmed at their table? "
        "Results of other rounds are not touched."
    )
    answer(page, ok=True)
    expect(page.locator("#toast")).to_contain_text("Round 1: 1 result verified", timeout=WAIT)
    results = room.hub.hub.results
    room.hub.wait_for(lambda h: h.results["r1-t1"]["verified"])
    assert not results["r1-t2"]["verified"]  # one player only confirmed
    assert not results["r2-t3"]["verified"]  # round 2 is not touched
    expect(page.locator('[data-round-verify="2"]')).to_be_visible(timeout=WAIT)
    expect(page.locator('[data-round-verify="1"]')).to_have_count(0, timeout=WAIT)


def test_an_impossible_correction_is_refused_and_a_correction_is_listed(page, room, tmp_path):
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/results")
    row = page.locator('tbody[data-match="r1-t2"]')
    row.locator("button.correct").click()
    form = row.locator("form.correct-form")
    form.locator("input[name=a]").fill("3")
    form.locator("input[name=b]").fill("3")
    form.locator("select[name=winner]").select_option("A")
    form.locator("input[name=note]").fill("sheet")
    form.locator("button[type=submit]").click()
    answer(page, ok=True)
    expect(page.locator("#toast")).to_contain_text("both players at or past the match length 3", timeout=WAIT)
    assert room.hub.hub.results["r1-t2"]["score"] == {"A": 3, "B": 0}

    form.locator("input[name=b]").fill("1")
    form.locator("button[type=submit]").click()
    answer(page, ok=True)
    expect(page.locator("#toast")).to_contain_text("Result corrected", timeout=WAIT)
    room.hub.wait_for(lambda h: h.results["r1-t2"]["score"] == {"A": 3, "B": 1})
    row = page.locator('tbody[data-match="r1-t2"]')
    row.locator("button.expand").click()
    expect(row.locator(".correction")).to_contain_text("Corrected at the hub by td", timeout=WAIT)
    expect(row.locator(".correction")).to_contain_text("3-0 → 3-1 (sheet)")
    page.screenshot(path=str(shots_dir(tmp_path) / "results-correction-listed.png"), full_page=True)
