"""The feed by what the TD must do, measured in the 60-table room at round 2's start (round 1 still
playing at most tables), in Chromium at 1366, 1024 and 390 px: few things need the TD, a player's
call made before twelve late players got their automatic points is still the first item, the
routine is grouped per round, the hub's own points are log lines with their Waive, and every page
of the dashboard shows the count and rings.

The figures (open act items, where the call's button is) are printed for docs/td-guide.md."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from rulebook.snapshot import snapshot
from tests.e2e import room60
from tests.e2e.pages import WAIT, answer, confirm_text, context, in_viewport, login, shots_dir
from tests.e2e.test_room60 import SOUND_SPY
from tests.hub.support import event_id

#: the widths of the issue's measurements: a laptop, a tablet, a phone
WIDTHS = {"1366": "1366x768", "1024": "1024x768", "390": "390x844"}
#: the most "act" items open at round 2's start (issue 19)
MOST_ACT = 5


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory) -> Iterator[room60.Room60]:
    r = room60.build(tmp_path_factory.mktemp("feed"), mosquitto.host, mosquitto.port, event_id("feed"))
    try:
        room60.round_two(r)
        r.at_round_start = r.hub.call(r.hub.hub.alert_list)  # type: ignore[attr-defined]
        room60.round_two_goes_on(r)
        yield r
    finally:
        r.stop()


def alerts(room: room60.Room60) -> list[dict]:
    return room.hub.call(room.hub.hub.alert_list)


def open_act(items: list[dict]) -> list[dict]:
    return [a for a in items if a["asks"] == "act" and not a["acked_wall"]]


def the_call(room: room60.Room60) -> dict:
    return next(a for a in alerts(room) if a["kind"] == "td_call" and a["table"] == room60.CALLER)


def test_at_round_two_s_start_few_things_need_the_td(room):
    items = room.at_round_start  # type: ignore[attr-defined]
    act = open_act(items)
    asked = Counter(a["asks"] for a in items if not a["acked_wall"])
    slow = [a for a in items if a["kind"] == "slow"]
    messages = [a["message"] for a in act]
    print(f"\nround 2 start: {len(items)} active, open by ask {dict(asked)}; open act: {messages}")
    assert len(slow) >= 30  # round 1 really is still playing
    assert len(act) <= MOST_ACT, messages
    # routine never rings: nothing the hub did by itself, nothing late or slow, is "act"
    assert not [a for a in act if a["kind"] in ("late", "slow", "offline", "auto_point", "auto_forfeit")]


def test_the_room_is_as_the_measure_says(room):
    items = alerts(room)
    late = [a for a in items if a["kind"] == "late" and a["round"] == "2"]
    points = [a for a in items if a["kind"] == "auto_point" and a["round"] == "2"]
    assert len(late) >= 12 and len(points) >= 6
    call = the_call(room)
    assert all(call["raised_wall"] < p["raised_wall"] for p in points)  # raised before the points
    assert items[0]["id"] == call["id"]  # the API's order is the feed's


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_call_is_the_first_item_of_the_feed(browser: Browser, room, width, tmp_path):
    out = shots_dir(tmp_path)
    page = context(browser, WIDTHS[width]).new_page()
    login(page, room.hub.url)
    call = the_call(room)
    first = page.locator("#feed .alert").first
    expect(first).to_have_attribute("data-alert", str(call["id"]), timeout=WAIT)
    button = first.get_by_role("button", name="Acknowledge (clears the call)")
    y = button.evaluate("e => Math.round(e.getBoundingClientRect().top + scrollY)")
    print(f"\n{width} px: the call's button at y = {y} px (item 1 of the feed)")
    assert in_viewport(page, f'#feed .alert[data-alert="{call["id"]}"] button')
    # the routine: late players and slow matches grouped per round, quiet, no acknowledgement
    slow = page.locator('#feed .alert.group[data-kind="slow"][data-group="2"]')
    expect(slow).to_contain_text("Round 2: ")
    expect(slow).to_contain_text("matches still playing")
    # the late group counts the hub's late alerts of round 2, less the players still playing
    # elsewhere (said apart): the twelve B players of tables 31-42, and any player whose table got
    # its round-2 match by now (table 44's A, once its round-1 forfeit is released)
    late = [a for a in alerts(room) if a["kind"] == "late" and a["round"] == "2"]
    really_late = [a for a in late if not (a["data"] or {}).get("elsewhere")]
    assert len(really_late) >= 12
    expect(page.locator('#feed .alert.group[data-kind="late"][data-group="2"]')).to_contain_text(
        f"Round 2: {len(really_late)} players late"
    )
    # the hub's points: log lines with their Waive, nothing to acknowledge
    done = page.locator('#feed .alert.done-line[data-kind="auto_point"]')
    expect(done.first).to_contain_text("given automatically")
    assert done.first.get_by_role("button", name="Waive…").count() == 1
    assert (
        page.locator("#feed .ask-watch button, #feed .done-line button", has_text="Acknowledge").count() == 0
    )
    expect(page.locator("#alert-count")).to_have_text(str(len(open_act(alerts(room)))))
    page.evaluate("document.querySelector('.feed').scrollTop = 0")
    page.screenshot(path=str(out / f"alerts-feed-{WIDTHS[width]}.png"))
    # the whole feed, as the Alerts page lists it: act, then watch grouped, then done
    page.goto(room.hub.url + "/#/alerts")
    expect(page.locator("#alerts-full .alert").first).to_have_attribute(
        "data-alert", str(call["id"]), timeout=WAIT
    )
    page.locator('#alerts-full .alert.group[data-kind="slow"] summary').click()
    page.screenshot(path=str(out / f"alerts-list-{WIDTHS[width]}.png"), full_page=True)
    page.context.close()


PAGES = ["/#/", "/#/table/41", "/#/timeline", "/#/accounts", "/#/rounds", "/fleet", "/dice"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_shows_the_count_and_rings(browser: Browser, room, path):
    page = context(browser, "laptop").new_page()
    page.add_init_script(SOUND_SPY)
    login(page, room.hub.url)
    page.goto(room.hub.url + path)
    count = page.locator("#alert-count")
    expect(count).to_have_text(str(len(open_act(alerts(room)))), timeout=WAIT)
    expect(count).to_be_visible()
    assert page.title().startswith(f"({len(open_act(alerts(room)))}) ")
    page.mouse.click(5, 5)  # a gesture: the browser allows sound
    page.wait_for_function("() => window.__sounds.includes(880)", timeout=WAIT)  # the call's voice
    page.context.close()


def test_a_done_line_takes_its_point_back(browser: Browser, room):
    b = room.names[2 * 31 + 1]  # round 2 at table 31: player B of round 1 at table 32
    page = context(browser, "laptop").new_page()
    login(page, room.hub.url)
    line = page.locator('#feed .done-line[data-kind="auto_point"]', has_text="Table 31:")
    expect(page.locator("#feed .done-line").first).to_be_visible(timeout=WAIT)
    if not line.is_visible():  # the newest five are shown, the older ones folded
        page.locator("#feed .done-more summary").click()
    expect(line).to_contain_text(f"1 point against {b} (B) given automatically (lateness)", timeout=WAIT)
    line.get_by_role("button", name="Waive…").click()
    assert confirm_text(page).startswith(f"Waive the automatic point against {b} at table 31 (given at ")
    answer(page, ok=True)
    room.sims["31"].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 0)
    expect(line).to_contain_text("— waived", timeout=WAIT)
    expect(line.get_by_role("button")).to_have_count(0)
    page.context.close()


def test_acknowledging_the_call_takes_it_off_the_count(browser: Browser, room):
    page: Page = context(browser, "laptop").new_page()
    login(page, room.hub.url)
    call = the_call(room)
    item = page.locator(f'#feed .alert[data-alert="{call["id"]}"]')
    item.get_by_role("button", name="Acknowledge").click()
    room.sims[room60.CALLER].wait_for(lambda s: snapshot(s)["td_call"] is None)
    expect(item).to_have_count(0, timeout=WAIT)  # the call is over: gone from the feed
    left = len(open_act(alerts(room)))  # what came meanwhile (round 2's absent pairs) still counts
    count = page.locator("#alert-count")
    if left:
        expect(count).to_have_text(str(left), timeout=WAIT)
    else:
        expect(count).to_be_hidden(timeout=WAIT)
    page.context.close()
