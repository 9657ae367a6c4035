"""The dashboard by role, in a real Chromium against a live hub: the chief TD's Accounts page,
what a viewer and a scorer see (and do not), who is logged in. Screenshots (kept with
BGHUB_SCREENSHOTS=docs/screenshots): dashboard-accounts.png, dashboard-login.png,
dashboard-viewer-room.png, dashboard-viewer-table.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from hub.web.accounts import new_account
from tests.e2e.pages import WAIT, answer, confirm_text, shots_dir
from tests.hub import scene as scene_mod
from tests.hub.support import event_id

PEOPLE = {
    "ann": ("chief", "ann-password-1"),
    "vic": ("viewer", "vic-password-1"),
    "sue": ("scorer", "sue-password-1"),
}


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory):
    scene = scene_mod.build(
        tmp_path_factory.mktemp("roles"), mosquitto.host, mosquitto.port, event_id("roles")
    )
    for name, (role, password) in PEOPLE.items():
        scene.hub.call(new_account, scene.hub.hub.store, name, role, password, 0)
    scene.hub.call(scene.hub.hub.store.commit)
    yield scene
    scene.stop()


def login_as(page: Page, url: str, name: str) -> None:
    page.goto(url + "/#/")
    expect(page.locator("#login-view")).to_be_visible(timeout=WAIT)
    page.fill("#login-user", name)
    page.fill("#password", PEOPLE[name][1])
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-view")).to_be_hidden(timeout=WAIT)
    expect(page.locator("#grid .tile").first).to_be_visible(timeout=WAIT)


def test_a_wrong_name_is_refused_like_a_wrong_password(page, room, tmp_path):
    page.goto(room.hub.url + "/#/")
    page.fill("#login-user", "ann")
    page.fill("#password", "not her password")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-error")).to_have_text("wrong name or password", timeout=WAIT)
    page.screenshot(path=str(shots_dir(tmp_path) / "dashboard-login.png"))


def test_the_chief_adds_and_removes_an_account(page, room, tmp_path):
    login_as(page, room.hub.url, "ann")
    expect(page.locator("#who")).to_have_text("ann · chief TD")
    tab = page.locator('.tabs a[data-view="accounts"]')
    expect(tab).to_be_visible()
    tab.click()
    table = page.locator("#accounts-table")
    expect(table.locator("tbody tr")).to_have_count(4, timeout=WAIT)  # td (the hub's own), ann, sue, vic
    expect(table.locator('tr[data-account="ann"]')).to_contain_text("logged in")
    page.fill("#account-name", "tom")
    page.select_option("#account-role", "td")
    page.fill("#account-password", "tom-password-1")
    page.click("#account-form button[type=submit]")
    expect(table.locator('tr[data-account="tom"]')).to_contain_text("TD", timeout=WAIT)
    expect(page.locator("#accounts-team")).to_contain_text("ann")
    page.screenshot(path=str(shots_dir(tmp_path) / "dashboard-accounts.png"), full_page=True)
    table.locator('tr[data-account="tom"]').get_by_role("button", name="Remove…").click()
    assert confirm_text(page).startswith("Remove tom (TD)?")
    answer(page, ok=True)
    expect(table.locator('tr[data-account="tom"]')).to_have_count(0, timeout=WAIT)
    # no Remove for her own account nor for the hub's own
    expect(table.locator('tr[data-account="ann"] button')).to_have_count(0)
    expect(table.locator('tr[data-account="td"] button')).to_have_count(0)


def test_a_viewer_sees_the_room_and_no_action(page, room, tmp_path):
    login_as(page, room.hub.url, "vic")
    expect(page.locator("#who")).to_have_text("vic · viewer")
    expect(page.locator('.tabs a[data-view="accounts"]')).to_be_hidden()
    page.screenshot(path=str(shots_dir(tmp_path) / "dashboard-viewer-room.png"))
    page.goto(room.hub.url + "/#/table/2")
    expect(page.locator("#table-view .td-only-note")).to_contain_text("Your role only reads", timeout=WAIT)
    expect(page.locator("#table-view .action-bar")).to_have_count(0)
    page.screenshot(path=str(shots_dir(tmp_path) / "dashboard-viewer-table.png"))
    page.goto(room.hub.url + "/#/results")
    expect(page.locator("#results-table")).to_be_visible(timeout=WAIT)
    expect(page.locator("#results-table").get_by_role("button", name="Verify…")).to_have_count(0)
    page.goto(room.hub.url + "/#/schedule")
    expect(page.locator("#schedule-table")).to_be_visible(timeout=WAIT)
    expect(page.locator("#import-form")).to_be_hidden()
    page.goto(room.hub.url + "/#/accounts")
    expect(page.locator("#accounts-view")).to_be_hidden()


def test_a_scorer_verifies_results_and_nothing_else(page, room):
    login_as(page, room.hub.url, "sue")
    page.goto(room.hub.url + "/#/results")
    row = page.locator('#results-table tr.result-row[data-match="r1-t6"]')
    expect(row.get_by_role("button", name="Verify…")).to_be_visible(timeout=WAIT)
    expect(row.get_by_role("button", name="Correct…")).to_be_visible()
    page.goto(room.hub.url + "/#/table/2")
    expect(page.locator("#table-view .td-only-note")).to_be_visible(timeout=WAIT)
