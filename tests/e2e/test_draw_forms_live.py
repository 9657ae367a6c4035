"""The Draw page is drawn again on the dashboard's live updates (a table's state, a result, a call):
what the TD has chosen in its forms and not yet acted on, the focus, and a confirmation the TD has
opened survive it, so that the action does what the TD chose. In Chromium at 1366 px, on a real hub
running a draw on 4 simulated tables through a real broker (test_draw_actions_page's room): the
TD chooses a table to move a call to, two calls to swap and a player to withdraw; a table's players
check in and the page is drawn again; every choice is still there, and the page is not scrolled
back to the list that has the focus. The swap's confirmation stays open through another redraw and
swaps the two calls chosen; the move still moves its call to the table chosen; a withdrawal
cancelled keeps its choice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.pages import WAIT, answer, confirm_text, context, login
from tests.e2e.test_draw_actions_page import Room, draw_room, label, name

#: the Draw page's forms, each of which must be drawn again (a new element) for the test to mean it
FORMS = "#draw-swap, #draw-withdraw, form.draw-move"


@pytest.fixture(scope="module")
def room(mosquitto: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    with draw_room(mosquitto, tmp_path_factory.mktemp("drawforms"), "drawforms") as r:
        yield r


def redrawn_after(page: Page, change: Any) -> None:
    """Mark the forms shown, make ``change`` (a table's state, through the broker), and wait until
    the live update has drawn every one of them again."""
    page.evaluate(f"() => document.querySelectorAll({FORMS!r}).forEach((f) => {{ f.__shown = true; }})")
    change()
    drawn = f"[...document.querySelectorAll({FORMS!r})]"
    page.wait_for_function(f"() => {drawn}.length > 0 && {drawn}.every((f) => !f.__shown)", timeout=WAIT)


def test_a_live_redraw_keeps_what_the_td_chose(browser: Browser, room: Room) -> None:
    ctx = context(browser, "1366x768")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    hub = room.hub
    one, two, three = room.first["1"], room.first["2"], room.first["3"]
    leaving = hub.call(lambda: hub.hub.draw.bracket.match(three).players)[0]
    try:
        login(page, hub.url, "#/draw")
        swap = page.locator("#draw-swap")
        expect(swap.locator('select[name="a"] option')).to_have_count(4, timeout=WAIT)  # "—" and 3 calls

        # the TD chooses, without acting yet: table 3's call to table 4, tables 1 and 2 swapped, a
        # player of table 3 to withdraw; the swap's second list keeps the focus
        move = page.locator(f'.draw-match[data-match="{three}"] form.draw-move')
        move.locator("select").select_option("4")
        page.locator("#draw-withdraw select").select_option(leaving)
        swap.locator('select[name="a"]').select_option(one)
        swap.locator('select[name="b"]').select_option(two)
        swap.locator('select[name="b"]').focus()
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # the TD reads the brackets
        scrolled = page.evaluate("() => window.scrollY")
        assert scrolled > 0

        # table 3's first player checks in: the page is drawn again, every choice is still there,
        # and the page stays where the TD scrolled it
        redrawn_after(page, lambda: room.sims["3"].checkin("A"))
        assert page.evaluate("() => window.scrollY") == scrolled
        expect(move.locator("select")).to_have_value("4")
        expect(page.locator("#draw-withdraw select")).to_have_value(leaving)
        expect(swap.locator('select[name="a"]')).to_have_value(one)
        expect(swap.locator('select[name="b"]')).to_have_value(two)
        assert page.evaluate("document.activeElement === document.querySelector('#draw-swap select[name=b]')")

        # the swap asks; the other player checks in while the confirmation is open: it stays open,
        # and confirmed it swaps the two calls the TD chose
        swap.locator("button").click()
        asked = confirm_text(page)
        assert asked.startswith(f"Swap tables: main {label(one)} ("), asked
        assert f"goes to table 2, main {label(two)} (" in asked and asked.endswith("to table 1?"), asked
        redrawn_after(page, lambda: room.sims["3"].checkin("B"))
        expect(page.locator("#confirm-dialog")).to_be_visible()
        assert confirm_text(page) == asked
        answer(page, ok=True)
        table_of = '.draw-match[data-match="{}"] .draw-table'
        expect(page.locator(table_of.format(one))).to_have_text("table 2", timeout=WAIT)
        expect(page.locator(table_of.format(two))).to_have_text("table 1", timeout=WAIT)
        room.sims["2"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(one))
        room.sims["1"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(two))
        # done, the swap's form is empty again; the choices not acted on stay
        expect(swap.locator('select[name="a"]')).to_have_value("", timeout=WAIT)
        expect(swap.locator('select[name="b"]')).to_have_value("")
        expect(move.locator("select")).to_have_value("4")
        expect(page.locator("#draw-withdraw select")).to_have_value(leaving)

        # the move chosen before the redraws moves table 3's call to table 4
        move.locator("button").click()
        assert confirm_text(page).startswith(f"Move main {label(three)} ("), confirm_text(page)
        assert " from table 3 to table 4?" in confirm_text(page)
        answer(page, ok=True)
        card = page.locator(f'.draw-match[data-match="{three}"]')
        expect(card.locator(".draw-table")).to_have_text("table 4", timeout=WAIT)
        room.sims["4"].wait_for(lambda s: s.match_id is not None and s.match_id.startswith(three))

        # a withdrawal asked and cancelled keeps the TD's choice, and withdraws no one
        page.locator("#draw-withdraw button").click()
        assert confirm_text(page).startswith(f"Withdraw {name(leaving)} from the event?")
        answer(page, ok=False)
        expect(page.locator("#draw-withdraw select")).to_have_value(leaving)
        assert hub.call(lambda: hub.hub.draw.bracket.withdrawn) == frozenset()
        assert errors == []
    finally:
        ctx.close()
