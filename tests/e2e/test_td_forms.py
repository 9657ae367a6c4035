"""The TD's forms keep what the TD types while the table plays on, every action that ends a match,
gives points or changes time, score or length is confirmed in a sentence naming the players, and
a forfeit can be undone (the match reopens as it was). Real hub, broker, simulated tables, Chromium.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.logic.timeline import Filters
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.e2e.pages import WAIT, answer, confirm_text, context, login, wait_seq
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub, tick

ROWS = [
    {"round": 1, "table": t, "player_a": a, "player_b": b, "length": n, "start": T0, "clock": "yes"}
    for t, a, b, n in (("12", "Anna Berg", "Jon Dahl", 7), ("14", "Mia Lund", "Ola Nes", 5))
]


@dataclass
class Room:
    hub: HubThread
    clock: FakeClock
    sims: dict[str, SimTable]


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory) -> Iterator[Room]:
    clock = FakeClock(T0 + MIN)
    tmp = tmp_path_factory.mktemp("forms")
    event = event_id("forms")
    hub = start_hub(tmp, mosquitto.host, mosquitto.port, event, clock, schedule=schedule_csv(ROWS))
    sims = {t: SimTable(event, t, mosquitto.host, mosquitto.port, clock=clock).start() for t in ("12", "14")}
    try:
        for t, sim in sims.items():
            sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(6, 2)
            sim.press("B")  # the lower opening roller starts A's clock
        hub.wait_for(lambda h: hub_state(h, "12").get("phase") == "playing")
        yield Room(hub, clock, sims)
    finally:
        for sim in sims.values():
            sim.stop()
        hub.stop()


class Presser:
    """The table's players pressing their clock every 200 ms (as fast as a blitz)."""

    def __init__(self, sim: SimTable) -> None:
        self.sim = sim
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.2):
            snap = snapshot(self.sim.state)
            running = snap["clock"]["running"]
            if snap["phase"] == "playing" and running:
                self.sim.press(running)

    def __enter__(self) -> Presser:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@pytest.fixture
def page(browser, room) -> Iterator[Page]:
    ctx = context(browser, "tablet")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


def open_form(page: Page, action: str) -> None:
    page.click(f'#action-bar [data-action="{action}"]')
    expect(page.locator(f'#action-panel [data-form="{action}"]')).to_be_visible(timeout=WAIT)


def form(page: Page, action: str):
    return page.locator(f'#action-panel [data-form="{action}"]')


def let_the_table_play(page: Page, room: Room, presses: int = 6) -> None:
    """Wait until the page has shown ``presses`` more states of table 12 (each a live update)."""
    seq = snapshot(room.sims["12"].state)["seq"]
    room.sims["12"].wait_for(lambda s: s.seq >= seq + presses)
    wait_seq(page, seq + presses)


def test_forms_keep_what_the_td_types_while_the_clock_is_pressed(page, room):
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/12")
    expect(page.locator(".scoreboard")).to_contain_text("Anna Berg", timeout=WAIT)
    typed: dict[str, dict[str, str]] = {}
    with Presser(room.sims["12"]):
        open_form(page, "penalty")
        f = form(page, "penalty")
        f.locator("select[name=against]").select_option("B")
        f.locator("input[name=points]").fill("2")
        f.locator("select[name=reason]").select_option("late")
        typed["penalty"] = {"against": "B", "points": "2", "reason": "late"}
        let_the_table_play(page, room)
        assert f.locator("select[name=against]").input_value() == "B"
        assert f.locator("input[name=points]").input_value() == "2"

        open_form(page, "set_time")
        f = form(page, "set_time")
        f.locator("input[name=reserveA]").fill("9:30")
        f.locator("input[name=reserveB]").fill("8:15")
        typed["set_time"] = {"reserveA": "9:30", "reserveB": "8:15"}
        let_the_table_play(page, room)

        open_form(page, "correct_score")
        f = form(page, "correct_score")
        f.locator("input[name=scoreA]").fill("3")
        f.locator("input[name=note]").fill("score sheet")
        typed["correct_score"] = {"scoreA": "3", "note": "score sheet"}
        let_the_table_play(page, room)

        open_form(page, "set_length")
        form(page, "set_length").locator("input[name=points]").fill("9")
        typed["set_length"] = {"points": "9"}
        let_the_table_play(page, room)

        open_form(page, "forfeit")
        form(page, "forfeit").locator("select[name=against]").select_option("B")
        typed["forfeit"] = {"against": "B"}
        let_the_table_play(page, room)

        for action, fields in typed.items():
            open_form(page, action)
            for name, value in fields.items():
                got = form(page, action).locator(f"[name={name}]").input_value()
                assert got == value, f"{action}.{name}: {got!r}, typed {value!r}"
        # a field the TD did not touch follows the table
        assert form(page, "correct_score").locator("input[name=scoreB]").input_value() == "0"


def test_every_action_is_confirmed_in_a_sentence_naming_the_players(page, room):
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/12")
    expect(page.locator(".scoreboard")).to_contain_text("Jon Dahl", timeout=WAIT)
    sent_before = len(room.hub.call(room.hub.hub.store.commands, "12"))

    open_form(page, "forfeit")
    options = form(page, "forfeit").locator("select[name=against] option").all_inner_texts()
    assert options == ["— choose —", "Anna Berg", "Jon Dahl"]  # names, and no side chosen for the TD
    form(page, "forfeit").locator("button[type=submit]").click()
    expect(page.locator("#toast")).to_contain_text("Choose who loses", timeout=WAIT)

    cases = [
        (
            "penalty",
            {"against": "B", "points": "2", "reason": "conduct"},
            "Penalty: 2 points against Jon Dahl (conduct) — Anna Berg goes from 0 to 2 in r1-t12?",
        ),
        ("set_time", {"reserveA": "9:30", "reserveB": "8:15"}, "Set the time at r1-t12: Anna Berg "),
        (
            "correct_score",
            {"scoreA": "3", "scoreB": "1"},
            "Correct the score of r1-t12: Anna Berg 0 → 3, Jon Dahl 0 → 1?",
        ),
        (
            "set_length",
            {"points": "9"},
            "Match length of r1-t12 (Anna Berg – Jon Dahl): 7 → 9 points, from the next game?",
        ),
        ("forfeit", {"against": "A"}, "Forfeit: Anna Berg loses r1-t12 to Jon Dahl?"),
    ]
    for action, fields, sentence in cases:
        open_form(page, action)
        f = form(page, action)
        for name, value in fields.items():
            el = f.locator(f"[name={name}]")
            if el.evaluate("e => e.tagName") == "SELECT":
                el.select_option(value)
            else:
                el.fill(value)
        f.locator("button[type=submit]").click()
        assert confirm_text(page).startswith(sentence), confirm_text(page)
        answer(page, ok=False)
    assert "9:30" in page.locator("#action-panel [data-form=set_time] input[name=reserveA]").input_value()
    # cancelled: nothing went to the table
    assert len(room.hub.call(room.hub.hub.store.commands, "12")) == sent_before


def test_a_forfeit_names_the_winner_and_can_be_undone(page, room):
    sim = room.sims["12"]
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/12")
    expect(page.locator(".scoreboard")).to_contain_text("Jon Dahl", timeout=WAIT)
    before = snapshot(sim.state)
    open_form(page, "forfeit")
    form(page, "forfeit").locator("select[name=against]").select_option("B")
    form(page, "forfeit").locator("button[type=submit]").click()
    assert confirm_text(page) == "Forfeit: Jon Dahl loses r1-t12 to Anna Berg?"
    answer(page, ok=True)
    sim.wait_for(lambda s: s.phase == "finished")
    assert snapshot(sim.state)["winner"] == "A"
    banner = page.locator(".result-banner")
    expect(banner).to_contain_text("Anna Berg won by forfeit: Jon Dahl forfeited", timeout=WAIT)
    room.hub.wait_for(lambda h: "r1-t12" in h.results)

    page.click('#action-bar [data-action="undo_end"]')
    assert confirm_text(page).startswith("Undo the forfeit: r1-t12 (Anna Berg – Jon Dahl) reopens as it was")
    answer(page, ok=True)
    sim.wait_for(lambda s: s.phase == before["phase"])
    after = snapshot(sim.state)
    assert after["winner"] is None and after["score"] == before["score"]
    # the clock as it was: the same player's clock runs, with the delay and reserves it had
    for key in ("running", "reserve_ms", "delay_ms"):
        assert after["clock"][key] == before["clock"][key], key
    room.hub.wait_for(lambda h: "r1-t12" not in h.results and hub_state(h, "12").get("phase") == "playing")
    expect(banner).to_be_hidden(timeout=WAIT)
    expect(page.locator('#action-bar [data-action="forfeit"]')).to_be_visible(timeout=WAIT)
    expect(page.locator('#action-bar [data-action="undo_end"]')).to_be_hidden()
    tick(room.hub)
    said = [i["text"] for i in room.hub.call(room.hub.hub.display.timeline, Filters(table="12"))]
    assert said[:2] == [
        "Forfeit taken back: the match reopened as it was",
        "Forfeit: Jon Dahl loses to Anna Berg (the TD's decision)",
    ]


def test_logging_in_from_a_public_hub_shows_the_dashboard(browser, mosquitto, tmp_path: Path):
    hub = start_hub(
        tmp_path,
        mosquitto.host,
        mosquitto.port,
        event_id("pub"),
        FakeClock(T0),
        schedule=schedule_csv(ROWS),
        public=True,
    )
    try:
        ctx = context(browser, "phone")
        page = ctx.new_page()
        page.goto(hub.url + "/")
        expect(page.locator("#grid .tile")).to_have_count(2, timeout=WAIT)
        page.click("#login-button")
        expect(page.locator("#login-view")).to_be_visible(timeout=WAIT)
        page.fill("#password", "td-password-for-tests")
        page.click("#login-form button[type=submit]")
        expect(page.locator("#room-view")).to_be_visible(timeout=WAIT)
        expect(page.locator("#login-view")).to_be_hidden()
        expect(page.locator("#logout-button")).to_be_visible()
        assert page.evaluate("location.hash") == "#/"
        ctx.close()
    finally:
        hub.stop()
