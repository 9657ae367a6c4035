"""The dashboard's Draw page, in Chromium at 1366, 1024 and 390 px, on a real hub running a draw
(a main of 8 places with 7 entries and a consolation fed by its round 1, on 2 simulated tables
through a real broker, the hub ticking by itself): every flight is listed, a finished match shows
its winner and score, a match playing its table and live score, a called match its table, a
match ready but not called is among the calls to come; the page never scrolls sideways as a
whole. The screenshots are docs/td-guide.md's."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from demo.simtable import SimTable
from hub.service import HubThread
from tests.e2e.pages import WAIT, context, login, shots_dir
from tests.hub.support import event_id, sim_table, start_hub
from tests.hub.test_draw_actions_live import api

WIDTHS = {"1366": "1366x768", "1024": "1024x768", "390": "390x844"}
NAMES = [
    "Anna Berg",
    "Bruno Costa",
    "Chiara Dal Santo",
    "Dimitris Papadopoulos",
    "Eva Novák",
    "Farid Haddad",
    "Grete Lund",
]
DRAW = """
[draw]
tables = ["1", "2"]
grace_minutes = 5
needs_verified = false
random_seed = 7

[[flights]]
name = "main"
size = 8
profile = "wbgf-2023"
lengths = [3]

[[flights]]
name = "consolation"
feeds = [{ flight = "main", round = 1 }]
profile = "wbgf-2023"
lengths = [3]
""" + "".join(
    f'[[players]]\nkey = "p{n}"\nname = "{name}"\n[[entries]]\nflight = "main"\nplayer = "p{n}"\n'
    for n, name in enumerate(NAMES, start=1)
)


@dataclass
class Room:
    hub: HubThread
    sims: dict[str, SimTable]
    finished: str = ""  # the finished match's id
    finished_table: str = ""
    winner: str = ""  # its winner's name
    playing_table: str = ""  # the table of the match with a live score
    called: dict[str, str] = field(default_factory=dict)  # match -> table of the later calls
    to_come: list[str] = field(default_factory=list)  # the matches ready, not called


def called(hub: Any) -> set[str]:
    return {c.call.match for c in hub.draw.called.values()}


def current(hub: HubThread) -> dict[str, str]:
    result: dict[str, str] = hub.call(lambda: {t: c.match.match_id for t, c in hub.hub.current.items()})
    return result


@pytest.fixture(scope="module")
def room(mosquitto: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    tmp = tmp_path_factory.mktemp("drawview")
    path = tmp / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("drawview")
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, ev, None, draw=path, tick_interval=1.0)
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, None)) for t in "123"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "12"))
            hub.wait_for(lambda h: len(h.current) >= 2)
            first = current(hub)
            assert len(first) == 2, first  # three matches to play in round 1 (a bye), two tables
            (t_done, done), (t_play, _) = sorted(first.items())
            for t, m in first.items():
                sims[t].wait_for(lambda s, m=m: s.match_id == m)
            r = Room(hub, sims, finished=done, finished_table=t_done, playing_table=t_play)
            # one match won 3-0 (a backgammon in a match to 3) and confirmed by both players
            fin = sims[t_done]
            fin.checkin("A")
            fin.checkin("B")
            fin.opening_roll(6, 2)
            fin.win("A", "backgammon")
            fin.confirm("A")
            fin.confirm("B")
            # the other one game in: 1-0, still playing
            live = sims[t_play]
            live.checkin("A")
            live.checkin("B")
            live.opening_roll(5, 3)
            live.win("B")
            hub.wait_for(
                lambda h: h.draw.bracket is not None and h.draw.bracket.match(done).winner is not None
            )
            key = hub.call(lambda: hub.hub.draw.bracket.match(done).winner)
            r.winner = NAMES[int(key[1:]) - 1]
            hub.wait_for(lambda h: any(c.match.match_id not in first.values() for c in h.current.values()))
            later = {m: t for t, m in current(hub).items() if m not in first.values()}
            assert later, current(hub)  # round 1's third match takes the table freed
            r.called = later
            r.to_come = hub.call(
                lambda: [m.id for m in hub.hub.draw.bracket.ready() if m.id not in called(hub.hub)]
            )
            assert r.to_come  # the finished match's winner waits for a table
            yield r
    finally:
        hub.stop()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_draw_page_shows_every_flight_live(
    browser: Browser, room: Room, tmp_path: Path, width: str
) -> None:
    ctx = context(browser, WIDTHS[width])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, room.hub.url)
        expect(page.locator("#draw-tab")).to_be_visible(timeout=WAIT)
        page.click("#draw-tab")
        expect(page.locator("#draw-view")).to_be_visible(timeout=WAIT)
        # every flight, each with its rounds
        expect(page.locator(".draw-flight")).to_have_count(2, timeout=WAIT)
        for flight in ("main", "consolation"):
            expect(page.locator(f'.draw-flight[data-flight="{flight}"] .draw-round').first).to_be_visible()
        # the finished match: its winner and its score
        done = page.locator(f'.draw-match[data-match="{room.finished}"]')
        expect(done).to_have_attribute("data-state", "played", timeout=WAIT)
        expect(done.locator(".seat.won .seat-name")).to_have_text(room.winner)
        expect(done.locator(".draw-status")).to_have_text(f"Finished: {room.winner} won 3–0")
        # the match playing: its table and its live score
        playing = page.locator(".draw-match.st-playing")
        expect(playing).to_have_count(1, timeout=WAIT)
        expect(playing.locator(".draw-status")).to_have_text(
            f"Playing at table {room.playing_table}: 0–1 to 3"
        )
        # the later call: its table
        for match, table in room.called.items():
            called = page.locator(f'.draw-match[data-match="{match}"]')
            expect(called.locator(".draw-table")).to_have_text(f"table {table}")
            expect(called.locator(".draw-status")).to_contain_text(f"Called to table {table} at ")
        # a match waiting shows whose result it waits for; the byes say so
        expect(page.locator('.draw-match[data-state="waiting"] .draw-status').first).to_contain_text(
            "Waits for the "
        )
        expect(page.locator('.draw-match[data-state="bye"]').first).to_contain_text("Bye")
        for match in room.to_come:
            expect(page.locator(f'.draw-next li[data-match="{match}"]')).to_contain_text("not called yet")
        # readable without scrolling the page sideways
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        if width == "390":
            box = page.locator(f'.draw-match[data-match="{room.finished}"]').bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.screenshot(path=str(shots_dir(tmp_path) / f"draw-{WIDTHS[width]}.png"), full_page=True)
        assert errors == []
    finally:
        ctx.close()


def test_the_draw_page_follows_the_room_live(browser: Browser, room: Room, tmp_path: Path) -> None:
    """The match playing ends while the page is open: its card turns finished with its winner and
    score; a player withdraws: his match is a walkover — on the dashboard's live updates alone
    (no reload). Last: it changes the room."""
    ctx = context(browser, WIDTHS["1366"])
    page = ctx.new_page()
    try:
        login(page, room.hub.url, "#/draw")
        playing = page.locator(".draw-match.st-playing")
        expect(playing).to_have_count(1, timeout=WAIT)
        match = playing.get_attribute("data-match")
        sim = room.sims[room.playing_table]
        sim.opening_roll(4, 1)
        sim.win("B", "gammon")  # 0-3: B wins the match
        sim.confirm("A")
        sim.confirm("B")
        card = page.locator(f'.draw-match[data-match="{match}"]')
        expect(card).to_have_attribute("data-state", "played", timeout=WAIT)
        winner = card.locator(".seat.won .seat-name").inner_text()
        expect(card.locator(".draw-status")).to_have_text(f"Finished: {winner} won 3–0")
        # a player of the match called later withdraws: a walkover, his seat marked
        (match2,) = room.called
        players = room.hub.call(lambda: room.hub.hub.draw.bracket.match(match2).players)
        with ThreadPoolExecutor(1) as pool:  # the API's own client, off playwright's event loop
            pool.submit(api, room.hub, "POST", f"/api/draw/players/{players[1]}/withdraw").result()
        card2 = page.locator(f'.draw-match[data-match="{match2}"]')
        expect(card2).to_have_attribute("data-state", "walkover", timeout=WAIT)
        stays = NAMES[int(players[0][1:]) - 1]
        expect(card2.locator(".draw-status")).to_have_text(f"Walkover: {stays} goes on")
        expect(card2.locator(".seat").nth(1).locator(".withdrawn")).to_have_text("withdrawn")
        page.screenshot(path=str(shots_dir(tmp_path) / "draw-live-1366x768.png"), full_page=True)
    finally:
        ctx.close()
