"""A player's page and the public board's brackets, in Chromium at 1366, 1024 and 390 px, on a real
hub running a draw (a main of 8 places with 7 entries and a consolation fed by its round 1, on 2
simulated tables through a real broker, the hub ticking by itself), without a login: the page of
a player whose match is playing says the table, the opponent, the live score and the path; the
page of the winner of a finished match says the result in the path and what comes next; the
board shows each flight's bracket with the same finished and playing matches. Live: a game won
at the table changes the score on the player's page and on the board without a reload; the
language switch turns the page Greek. The screenshots are docs/draw.md's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from demo.simtable import SimTable
from hub.service import HubThread
from tests.e2e.pages import WAIT, context, login, shots_dir
from tests.e2e.test_draw_view import DRAW, NAMES, WIDTHS, current
from tests.hub.support import event_id, sim_table, start_hub
from tests.hub.test_draw_actions_live import _api


@dataclass
class Room:
    hub: HubThread
    sims: dict[str, SimTable]
    codes: dict[str, str]  # name -> code
    playing_table: str
    playing: tuple[str, str]  # the names at seats A and B of the match playing
    finished: str  # the finished match's id
    winner: str
    loser: str


def name_of(key: str) -> str:
    return NAMES[int(key[1:]) - 1]


@pytest.fixture(scope="module")
def room(mosquitto: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    tmp = tmp_path_factory.mktemp("playerpage")
    path = tmp / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("playerpage")
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, ev, None, draw=path, tick_interval=1.0)
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, None)) for t in "12"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "12"))
            hub.wait_for(lambda h: len(h.current) >= 2)
            first = current(hub)
            (t_done, done), (t_play, playing) = sorted(first.items())
            for t, m in first.items():
                sims[t].wait_for(lambda s, m=m: s.match_id == m)
            fin = sims[t_done]
            fin.checkin("A")
            fin.checkin("B")
            fin.opening_roll(6, 2)
            fin.win("A", "backgammon")  # 3-0 in a match to 3
            fin.confirm("A")
            fin.confirm("B")
            live = sims[t_play]
            live.checkin("A")
            live.checkin("B")
            live.opening_roll(5, 3)
            live.win("B")  # 0-1, still playing
            hub.wait_for(
                lambda h: h.draw.bracket is not None and h.draw.bracket.match(done).winner is not None
            )
            bracket = hub.call(lambda: hub.hub.draw.bracket)
            winner, loser = bracket.match(done).winner, bracket.match(done).loser
            a, b = bracket.match(playing).players
            hub.wait_for(
                lambda h: h.views[t_play].state is not None and h.views[t_play].state["score"]["B"] == 1
            )
            with ThreadPoolExecutor(1) as pool:  # the API's own client, off playwright's event loop
                ((status, sheet),) = pool.submit(
                    asyncio.run, _api(hub.url, [("GET", "/api/draw/sheet", None)])
                ).result()
            assert status == 200, sheet
            codes = {p["name"]: p["code"] for p in sheet["players"]}
            yield Room(
                hub, sims, codes, t_play, (name_of(a), name_of(b)), done, name_of(winner), name_of(loser)
            )
    finally:
        hub.stop()


def open_page(page: Page, room: Room, name: str, query: str = "") -> None:
    page.goto(f"{room.hub.url}/p/{room.codes[name]}{query}")
    expect(page.locator("#pl-name")).to_have_text(name, timeout=WAIT)


def fits(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= innerWidth"))


@pytest.mark.parametrize("width", list(WIDTHS))
def test_a_players_page_says_where_and_whom_they_play(
    browser: Browser, room: Room, tmp_path: Path, width: str
) -> None:
    ctx = context(browser, WIDTHS[width], locale="en-GB")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # seat B of the match playing: table, opponent, the live score from B's side, the path
        me, opponent = room.playing[1], room.playing[0]
        open_page(page, room, me)
        expect(page.locator("#pl-table")).to_have_text(room.playing_table, timeout=WAIT)
        expect(page.locator("#pl-opponent")).to_have_text(opponent)
        expect(page.locator("#pl-score")).to_have_text("1–0", timeout=WAIT)
        expect(page.locator("#pl-path .pl-step")).to_have_count(1)
        expect(page.locator("#pl-path .pl-step").first).to_contain_text(f"vs {opponent}")
        expect(page.locator("#pl-path .pl-step-result").first).to_have_text(f"Table {room.playing_table}")
        assert fits(page)
        page.screenshot(path=str(shots_dir(tmp_path) / f"player-{WIDTHS[width]}.png"), full_page=True)
        # the winner of the finished match: the result in the path, and the match to come
        open_page(page, room, room.winner)
        won = page.locator("#pl-path .pl-step").first
        expect(won).to_have_class("pl-step won")
        expect(won).to_contain_text(f"vs {room.loser}")
        expect(won.locator(".pl-step-result")).to_have_text("Won 3–0")
        expect(page.locator("#pl-next h2")).to_have_text("My next match")
        expect(page.locator("#pl-waiting, #pl-opponent").first).to_be_visible()
        if width == "390":
            page.screenshot(path=str(shots_dir(tmp_path) / "player-next-390x844.png"), full_page=True)
        assert fits(page)
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_board_shows_each_flights_bracket(
    browser: Browser, room: Room, tmp_path: Path, width: str
) -> None:
    ctx = context(browser, WIDTHS[width])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # a wall screen shows the brackets as pages of their own (?show=draw: only them); a phone
        # scrolls down from the tables to them
        wall = width != "390"
        page.goto(f"{room.hub.url}/board" + ("?show=draw" if wall else ""))
        flights = page.locator("#board-draw .draw-flight")
        expect(flights).to_have_count(2, timeout=WAIT)
        main = page.locator('#board-draw .draw-flight[data-flight="main"]')
        expect(main).to_be_visible()
        if wall:
            expect(page.locator('#board-draw .draw-flight[data-flight="consolation"]')).to_be_hidden()
            expect(page.locator("#board-grid")).to_be_hidden()
        else:
            expect(page.locator("#board-grid .btile").first).to_be_visible()
        done = main.locator(f'.draw-match[data-match="{room.finished}"]')
        expect(done).to_have_attribute("data-state", "played", timeout=WAIT)
        expect(done.locator(".seat.won .seat-name")).to_have_text(room.winner)
        expect(done.locator(".draw-status")).to_have_text(f"Finished: {room.winner} won 3–0")
        playing = main.locator(".draw-match.st-playing")
        expect(playing).to_have_count(1, timeout=WAIT)
        expect(playing.locator(".draw-status")).to_have_text(
            f"Playing at table {room.playing_table}: 0–1 to 3"
        )
        assert fits(page)
        if wall:  # the whole flight on the screen, nothing cut off
            box = main.bounding_box()
            assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"] + 1  # type: ignore[index]
        page.screenshot(path=str(shots_dir(tmp_path) / f"board-bracket-{WIDTHS[width]}.png"), full_page=True)
        if width == "1366":  # the next page: the consolation's bracket
            page.keyboard.press("ArrowRight")
            expect(page.locator('#board-draw .draw-flight[data-flight="consolation"]')).to_be_visible()
            expect(main).to_be_hidden()
            page.screenshot(path=str(shots_dir(tmp_path) / "board-bracket-consolation-1366x768.png"))
        assert errors == []
    finally:
        ctx.close()


def test_a_wall_board_turns_from_the_tables_to_each_bracket_and_back(browser: Browser, room: Room) -> None:
    """Without ?show, a wall screen shows the tables first, then each flight as a page of its own
    (turned by the arrow key as by the timer), then the tables again, measured anew."""
    ctx = context(browser, WIDTHS["1366"])
    page = ctx.new_page()
    try:
        page.goto(f"{room.hub.url}/board")
        expect(page.locator("#board-grid .btile")).to_have_count(2, timeout=WAIT)
        expect(page.locator("#board-draw .draw-flight")).to_have_count(2, timeout=WAIT)
        expect(page.locator("#board-draw")).to_be_hidden()
        for flight in ("main", "consolation"):
            page.keyboard.press("ArrowRight")
            expect(page.locator(f'#board-draw .draw-flight[data-flight="{flight}"]')).to_be_visible()
            expect(page.locator("#board-grid")).to_be_hidden()
        page.keyboard.press("ArrowRight")
        expect(page.locator("#board-grid .btile").first).to_be_visible()
        expect(page.locator("#board-draw")).to_be_hidden()
    finally:
        ctx.close()


def test_the_draw_sheet_has_every_entry_with_address_and_qr_code(
    browser: Browser, room: Room, tmp_path: Path
) -> None:
    """The TD opens the draw sheet from the Draw page: every entry, their page's address and its QR
    code (loaded), on screen and as printed."""
    ctx = context(browser, WIDTHS["1366"])
    page = ctx.new_page()
    try:
        login(page, room.hub.url, "#/draw")
        expect(page.locator("#draw-sheet-link")).to_be_visible(timeout=WAIT)
        with ctx.expect_page() as opened:
            page.click("#draw-sheet-link")
        sheet = opened.value
        expect(sheet.locator(".sheet-player")).to_have_count(len(NAMES), timeout=WAIT)
        for name, code in room.codes.items():
            card = sheet.locator(f'.sheet-player[data-code="{code}"]')
            expect(card.locator(".sheet-name")).to_have_text(name)
            expect(card.locator(".sheet-url")).to_have_text(f"{room.hub.url}/p/{code}")
        sheet.wait_for_function(
            "[...document.querySelectorAll('.sheet-qr')].every(i => i.complete && i.naturalWidth > 0)",
            timeout=WAIT,
        )
        assert fits(sheet)
        sheet.screenshot(path=str(shots_dir(tmp_path) / "draw-sheet-1366x768.png"), full_page=True)
        sheet.emulate_media(media="print")
        expect(sheet.locator("#sheet-print")).to_be_hidden()
        sheet.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
        sheet.screenshot(path=str(shots_dir(tmp_path) / "draw-sheet-print.png"), full_page=True)
    finally:
        ctx.close()


def test_the_score_changes_live_and_the_page_speaks_greek(
    browser: Browser, room: Room, tmp_path: Path
) -> None:
    """A game won at the table: the player's page and the board follow without a reload; the
    language switch turns the page Greek (and keeps it in the address). Last: it changes the
    room."""
    ctx = context(browser, WIDTHS["390"])
    page = ctx.new_page()
    board_ctx = context(browser, WIDTHS["1366"])
    board = board_ctx.new_page()
    try:
        me = room.playing[1]
        open_page(page, room, me)
        expect(page.locator("#pl-score")).to_have_text("1–0", timeout=WAIT)
        board.goto(f"{room.hub.url}/board?show=draw")
        card = board.locator("#board-draw .draw-match.st-playing")
        expect(card.locator(".draw-status")).to_contain_text(": 0–1 to 3", timeout=WAIT)
        sim = room.sims[room.playing_table]
        sim.opening_roll(4, 1)
        sim.win("A")  # 1-1
        expect(page.locator("#pl-score")).to_have_text("1–1", timeout=WAIT)
        expect(card.locator(".draw-status")).to_contain_text(": 1–1 to 3", timeout=WAIT)
        page.select_option("#pl-lang", "el")
        expect(page.locator("#pl-next h2")).to_have_text("Το επόμενο ματς μου", timeout=WAIT)
        expect(page.locator("#pl-lang-label")).to_have_text("Γλώσσα")
        expect(page.locator(".pl-opponent .muted")).to_have_text("Αντίπαλος")
        expect(page.locator("#pl-path-title")).to_have_text("Η πορεία μου")
        assert "lang=el" in page.url
        assert page.evaluate("document.documentElement.lang") == "el"
        page.screenshot(path=str(shots_dir(tmp_path) / "player-el-390x844.png"), full_page=True)
        # the page opened again in Greek stays Greek
        page.reload()
        expect(page.locator("#pl-path-title")).to_have_text("Η πορεία μου", timeout=WAIT)
        # the match ends: the path says the result, in Greek, without a reload
        sim.opening_roll(3, 1)
        sim.win("B", "gammon")  # 1-3: B wins the match
        sim.confirm("A")
        sim.confirm("B")
        first = page.locator("#pl-path .pl-step").first
        expect(first.locator(".pl-step-result")).to_have_text("Νίκη 3–1", timeout=WAIT)
        expect(page.locator("#pl-path .pl-step")).to_have_count(2)
        page.screenshot(path=str(shots_dir(tmp_path) / "player-el-won-390x844.png"), full_page=True)
        # a browser that prefers Hungarian opens the page in Hungarian
        hu = context(browser, WIDTHS["390"], locale="hu-HU")
        try:
            other = hu.new_page()
            open_page(other, room, room.playing[0])
            expect(other.locator("#pl-path-title")).to_have_text("Az utam", timeout=WAIT)
            expect(other.locator("#pl-path .pl-step-result").first).to_have_text("Vereség 1–3")
        finally:
            hu.close()
    finally:
        ctx.close()
        board_ctx.close()
