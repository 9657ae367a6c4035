"""The TD's actions on the Draw page, in Chromium at 1366 px, on a real hub running a draw (a main
of 8 places with 7 entries and a consolation fed by its round 1, on 4 simulated tables through a
real broker, the hub ticking by itself): the TD holds the main flight and sees it marked held,
resumes it, moves a call to the free table and sees its table change, swaps two calls' tables, a
result comes in and the TD undoes it and sees the match called again (the matches it changed
listed), withdraws a player and sees the walkover, holds a match waiting; each through the
confirmation naming what will happen. A viewer sees the brackets and no form. The screenshot
draw-actions-1366x768.png is docs/td-guide.md's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from demo.simtable import SimTable
from hub.service import HubThread
from hub.web.accounts import new_account
from tests.e2e.pages import WAIT, answer, confirm_text, context, login, shots_dir
from tests.e2e.test_draw_view import DRAW, NAMES, current
from tests.hub.support import event_id, sim_table, start_hub

TABLES = "1234"
VIEWER = ("vic", "vic-password-1")


@dataclass
class Room:
    hub: HubThread
    sims: dict[str, SimTable]
    first: dict[str, str]  # table -> the round-1 match called there


@contextmanager
def draw_room(mosquitto: Any, tmp: Path, name: str) -> Iterator[Room]:
    """A real hub running the draw on 4 simulated tables, round 1 called to tables 1-3, 4 free."""
    path = tmp / "draw.toml"
    path.write_text(DRAW.replace('tables = ["1", "2"]', 'tables = ["1", "2", "3", "4"]'), encoding="utf-8")
    ev = event_id(name)
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, ev, None, draw=path, tick_interval=1.0)
    try:
        hub.call(new_account, hub.hub.store, VIEWER[0], "viewer", VIEWER[1], 0)
        hub.call(hub.hub.store.commit)
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, None)) for t in TABLES
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in TABLES))
            hub.wait_for(lambda h: len(h.current) >= 3)
            first = current(hub)
            assert len(first) == 3, first  # three matches in round 1 (a bye), table 4 stays free
            for t, m in first.items():
                sims[t].wait_for(lambda s, m=m: s.match_id == m)
            yield Room(hub, sims, first)
    finally:
        hub.stop()


@pytest.fixture(scope="module")
def room(mosquitto: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    with draw_room(mosquitto, tmp_path_factory.mktemp("drawactions"), "drawactions") as r:
        yield r


def name(key: str) -> str:
    return NAMES[int(key[1:]) - 1]


def label(match: str) -> str:
    """``main-r1-m2`` as the page names it within its flight: ``R1 M2``."""
    _, r, m = match.split("-")
    return f"{r.upper()} {m.upper()}"


def confirm(page: Page, starts: str) -> None:
    assert confirm_text(page).startswith(starts), confirm_text(page)
    answer(page, ok=True)


@pytest.mark.long
def test_the_td_acts_on_the_draw_from_its_page(browser: Browser, room: Room, tmp_path: Path) -> None:
    ctx = context(browser, "1366x768")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    hub = room.hub
    try:
        login(page, hub.url, "#/draw")
        main = page.locator('.draw-flight[data-flight="main"]')
        expect(main).to_be_visible(timeout=WAIT)

        # hold the main flight: marked held; resumed: the mark goes
        main.locator("[data-flight-hold]").click()
        confirm(page, "Hold the main flight? None of its matches is called")
        expect(main.locator(".draw-flight-head .held-badge")).to_have_text("held", timeout=WAIT)
        outcome = page.locator("#draw-outcome")
        expect(outcome).to_have_text("The main flight is held: no call until you resume it")
        assert hub.call(lambda: hub.hub.draw.holds.flights) == {"main"}
        main.locator("[data-flight-resume]").click()
        confirm(page, "Resume the main flight?")
        expect(main.locator(".draw-flight-head .held-badge")).to_have_count(0, timeout=WAIT)
        assert hub.call(lambda: hub.hub.draw.holds.flights) == frozenset()

        # move the call of table 3 to the free table 4: its table changes, table 4 takes it
        moved = room.first["3"]
        card = page.locator(f'.draw-match[data-match="{moved}"]')
        form = card.locator("form.draw-move")
        form.locator("select").select_option("4")
        form.locator("button").click()
        confirm(page, "Move main R1 M")
        expect(card.locator(".draw-table")).to_have_text("table 4", timeout=WAIT)
        room.sims["4"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(moved))

        # swap it (table 4) with table 2's call: each goes to the other's table
        other = room.first["2"]
        swap = page.locator("#draw-swap")
        swap.locator('select[name="a"]').select_option(moved)
        swap.locator('select[name="b"]').select_option(other)
        swap.locator("button").click()
        confirm(page, f"Swap tables: main {label(moved)} (")
        expect(card.locator(".draw-table")).to_have_text("table 2", timeout=WAIT)
        expect(page.locator(f'.draw-match[data-match="{other}"] .draw-table')).to_have_text("table 4")
        room.sims["2"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(moved))
        room.sims["4"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(other))

        # a result comes in at table 1 (3-0, confirmed by both); the TD undoes it: called again
        done = room.first["1"]
        sim = room.sims["1"]
        sim.checkin("A")
        sim.checkin("B")
        sim.opening_roll(6, 2)
        sim.win("A", "backgammon")
        sim.confirm("A")
        sim.confirm("B")
        card = page.locator(f'.draw-match[data-match="{done}"]')
        expect(card).to_have_attribute("data-state", "played", timeout=WAIT)
        card.locator("[data-match-undo]").click()
        assert "won 3–0? The match is to be played again" in confirm_text(page)
        answer(page, ok=True)
        # the matches it changed: at least the consolation's that its loser had gone on to
        expect(outcome).to_contain_text(f"Result of main {label(done)} undone: changes ", timeout=WAIT)
        expect(card).to_have_attribute("data-state", "ready", timeout=WAIT)
        expect(card.locator(".draw-status")).to_contain_text("Called to table ", timeout=WAIT)

        # a player of table 2's match withdraws: a walkover to the opponent
        wd = room.first["2"]
        a, b = hub.call(lambda: hub.hub.draw.bracket.match(wd).players)
        page.locator("#draw-withdraw select").select_option(b)
        page.locator("#draw-withdraw button").click()
        confirm(page, f"Withdraw {name(b)} from the event? Every match of {name(b)} not decided yet is a")
        card = page.locator(f'.draw-match[data-match="{wd}"]')
        expect(card).to_have_attribute("data-state", "walkover", timeout=WAIT)
        expect(card.locator(".draw-status")).to_have_text(f"Walkover: {name(a)} goes on")
        expect(outcome).to_contain_text(f"{name(b)} withdrawn: changes ")

        # a match waiting held: marked held, its status says so
        waiting = page.locator('.draw-flight[data-flight="main"] .draw-match[data-state="waiting"]').first
        held = waiting.get_attribute("data-match")
        waiting.locator("[data-match-hold]").click()
        confirm(page, "Hold main R")
        card = page.locator(f'.draw-match[data-match="{held}"]')
        expect(card.locator(".held-badge")).to_have_text("held", timeout=WAIT)
        expect(card.locator(".draw-status")).to_contain_text("held by the TD")
        assert hub.call(lambda: hub.hub.draw.holds.matches) == {held}
        expect(page.locator("#toast")).to_be_hidden(timeout=WAIT)  # the outcome stays above the brackets
        page.screenshot(path=str(shots_dir(tmp_path) / "draw-actions-1366x768.png"), full_page=True)
        # on a phone the forms fit: the page never scrolls sideways
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.locator("#draw-swap")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert errors == []
    finally:
        ctx.close()


def test_a_viewer_sees_the_draw_and_no_form(browser: Browser, room: Room) -> None:
    ctx = context(browser, "1366x768")
    page = ctx.new_page()
    try:
        page.goto(room.hub.url + "/#/draw")
        expect(page.locator("#login-view")).to_be_visible(timeout=WAIT)
        page.fill("#login-user", VIEWER[0])
        page.fill("#password", VIEWER[1])
        page.click("#login-form button[type=submit]")
        expect(page.locator("#login-view")).to_be_hidden(timeout=WAIT)
        expect(page.locator(".draw-flight")).to_have_count(2, timeout=WAIT)
        expect(page.locator(".draw-match").first).to_be_visible()
        expect(page.locator(".draw-td")).to_have_count(0)
        expect(page.locator(".draw-actions")).to_have_count(0)
        expect(page.locator("[data-flight-hold], [data-flight-resume]")).to_have_count(0)
    finally:
        ctx.close()
