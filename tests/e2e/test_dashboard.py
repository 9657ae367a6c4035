"""The TD dashboard in a real headless Chromium against a live hub, broker and simulated tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rulebook.snapshot import snapshot
from tests.e2e.pages import WAIT, answer, confirm_text, login
from tests.hub import scene as scene_mod
from tests.hub.support import PASSWORD, event_id


@pytest.fixture(scope="module")
def room(mosquitto, tmp_path_factory):
    scene = scene_mod.build(tmp_path_factory.mktemp("dash"), mosquitto.host, mosquitto.port, event_id("dash"))
    yield scene
    scene.stop()


def test_login_is_required_and_a_wrong_password_is_refused(page, room):
    page.goto(room.hub.url + "/")
    expect(page.locator("#login-view")).to_be_visible(timeout=WAIT)
    expect(page.locator("#room-view")).to_be_hidden()
    page.fill("#password", "not the password")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-error")).to_have_text("wrong password", timeout=WAIT)
    page.fill("#password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#grid .tile")).to_have_count(9, timeout=WAIT)
    tile3 = page.locator('.tile[data-table="3"]')
    expect(tile3).to_contain_text("Time flag")
    assert "st-flag" in (tile3.get_attribute("class") or "")
    expect(page.locator('.tile[data-table="8"]')).to_contain_text("CRAWFORD")
    expect(page.locator('.tile[data-table="2"]')).to_contain_text("Player late")
    expect(page.locator('.tile[data-table="7"]')).to_contain_text("Offline")


def test_an_event_without_a_draw_has_no_draw_tab(page, room):
    login(page, room.hub.url)
    expect(page.locator('.tabs a[data-view="results"]')).to_be_visible()
    expect(page.locator("#draw-tab")).to_be_hidden()
    page.goto(room.hub.url + "/#/draw")  # an old link: the page says so
    expect(page.locator("#draw-flights")).to_have_text("This event has no draw.", timeout=WAIT)


def test_a_tile_updates_live_when_the_table_changes(page, room):
    login(page, room.hub.url)
    tile = page.locator('.tile[data-table="1"]')
    expect(tile.locator(".pts").first).to_have_text("3", timeout=WAIT)
    room.sims["1"].win("A")  # A wins the game in progress: 4-2
    expect(tile.locator(".pts").first).to_have_text("4", timeout=WAIT)
    expect(tile).to_contain_text("Between games", timeout=WAIT)


def test_acknowledging_an_alert(page, room):
    login(page, room.hub.url)
    item = page.locator("#feed .alert", has_text="Camille Durand (A) calls the TD")
    expect(item).to_be_visible(timeout=WAIT)
    expect(item).not_to_have_class("acked")
    item.get_by_role("button", name="Acknowledge (clears the call)").click()
    # one acknowledge: the alert, and the call on the table's screen
    room.sims["5"].wait_for(lambda s: s.td_call is None)
    expect(item).to_be_hidden(timeout=WAIT)
    audit = room.hub.call(room.hub.hub.store.audit_log, "5")
    assert any(a["action"] == "ack_alert" for a in audit)
    assert any(a["action"] == "cmd:td_ack" for a in audit)


def test_importing_a_schedule_shows_line_errors_then_imports(page, room, tmp_path):
    login(page, room.hub.url)
    page.click('.tabs a[data-view="schedule"]')
    expect(page.locator("#schedule-table")).to_contain_text("Mochizuki Masayoshi", timeout=WAIT)
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "round,table,player_a,player_b,length,start\n"
        "3,10,Zed Quill,Bob Ray,7,2030-03-17T18:00\n"
        "3,11,Cy,Cy,x,soon\n",
        encoding="utf-8",
    )
    page.set_input_files("#import-file", str(bad))
    page.click("#import-form button[type=submit]")
    errors = page.locator("#import-result .import-errors li")
    expect(errors.first).to_contain_text("line 3:", timeout=WAIT)
    assert errors.count() >= 2
    expect(page.locator("#schedule-table")).not_to_contain_text("Zed Quill")
    good = tmp_path / "good.csv"
    good.write_text(
        "round,table,player_a,player_b,length,start\n3,10,Ann Lee,Bob Ray,7,2030-03-17T18:00\n",
        encoding="utf-8",
    )
    page.set_input_files("#import-file", str(good))
    page.click("#import-form button[type=submit]")
    preview = page.locator("#import-preview")
    expect(preview).to_contain_text("1 match in the file: 1 new, 0 changed, 0 moved", timeout=WAIT)
    expect(preview).to_contain_text("r3-t10: Ann Lee – Bob Ray — round 3, table 10")
    assert not any(m.match_id == "r3-t10" for m in room.hub.call(room.hub.hub.store.schedule))  # not yet
    page.click("#import-confirm")
    assert confirm_text(page) == "Import good.csv: 1 new, 0 changed, 0 moved, 0 leaving the schedule?"
    answer(page, ok=True)
    expect(page.locator("#import-result")).to_contain_text("Imported 1 match", timeout=WAIT)
    expect(page.locator("#schedule-table")).to_contain_text("Ann Lee", timeout=WAIT)
    assert any(m.match_id == "r3-t10" for m in room.hub.call(room.hub.hub.store.schedule))


def test_an_import_with_a_player_to_identify_waits_for_the_tds_choice(page, room, tmp_path):
    """Anna Nagy (round 1, no id) gets HU-1 from round 4's row; round 5's Anna Nagy has HU-2: a
    namesake, or a typo in an id? The hub does not guess: the preview asks, the import waits."""
    login(page, room.hub.url)
    page.click('.tabs a[data-view="schedule"]')
    expect(page.locator("#schedule-table")).to_contain_text("Mochizuki Masayoshi", timeout=WAIT)
    csv = tmp_path / "namesakes.csv"
    csv.write_text(
        "round,table,player_a,player_b,length,start,player_a_id,player_b_id\n"
        "4,20,Anna Nagy,Lars Trabolt,7,2030-03-17T20:00,HU-1,\n"
        "5,20,Anna Nagy,Marc Olsen,7,2030-03-17T22:00,HU-2,\n",
        encoding="utf-8",
    )
    page.set_input_files("#import-file", str(csv))
    page.click("#import-form button[type=submit]")
    preview = page.locator("#import-preview")
    expect(preview).to_contain_text("Players to identify (1)", timeout=WAIT)
    conflict = page.locator('#import-conflicts li[data-conflict="r5-t20:A"]')
    expect(conflict).to_contain_text(
        "Anna Nagy (HU-2) has the name of a registered player with another id (HU-1)"
    )
    expect(page.locator("#import-confirm")).to_be_disabled()
    conflict.get_by_label("a different player: Anna Nagy").check()
    expect(page.locator("#import-confirm")).to_be_enabled()
    page.click("#import-confirm")
    assert confirm_text(page).startswith(
        "Import namesakes.csv: 2 new, 0 changed, 0 moved, 0 leaving the schedule, "
        "with your choice for 1 player"
    )
    answer(page, ok=True)
    expect(page.locator("#import-result")).to_contain_text("Imported 2 match", timeout=WAIT)
    annas = [p for p in room.hub.call(room.hub.hub.player_list) if p["name"] == "Anna Nagy"]
    assert sorted(p["fed_id"] for p in annas) == ["HU-1", "HU-2"]
    (first,) = [p for p in annas if p["fed_id"] == "HU-1"]
    assert {m["match_id"] for m in first["matches"]} == {"r1-t7", "r4-t20"}


def test_verifying_and_exporting_results(page, room):
    login(page, room.hub.url)
    page.click('.tabs a[data-view="results"]')
    row = page.locator('#results-table tr.result-row[data-match="r1-t6"]')
    expect(row).to_contain_text("0 – 3", timeout=WAIT)
    expect(row).to_contain_text("not yet")
    row.get_by_role("button", name="Verify…").click()
    assert confirm_text(page) == "Verify r1-t6 at table 6: Ingrid Berg won 3–0 on points?"
    games = page.locator("#confirm-detail table tbody tr")
    expect(games).to_have_count(2)
    expect(games.first).to_contain_text("Ingrid Berg")
    expect(games.first).to_contain_text("gammon")
    answer(page, ok=True)
    expect(row).to_contain_text("✓ td", timeout=WAIT)
    # the row opens to its games; Verify and Correct are apart
    games_row = page.locator('#results-table tbody[data-match="r1-t6"] tr.games-row')
    expect(games_row).to_be_hidden()
    row.get_by_role("button", name="▸ Games").click()
    expect(games_row.locator("tbody tr")).to_have_count(2)
    expect(games_row).to_contain_text("gammon")
    with page.expect_download() as info:
        page.click("#export-csv")
    raw = Path(info.value.path()).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: spreadsheet programs read it as UTF-8
    header, *lines = raw.decode("utf-8-sig").strip().splitlines()
    assert header.startswith("round,table,match_id,player_a,player_b,length,score_a,score_b,winner")
    line = next(x for x in lines if ",r1-t6," in x)
    assert "Ingrid Berg" in line and ",0,3,Ingrid Berg,points," in line and ",yes,td," in line
    with page.expect_download() as info:
        page.click("#export-json")
    data = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    result = next(r for r in data["results"] if r["match_id"] == "r1-t6")
    assert result["score"] == {"A": 0, "B": 3} and result["verified"] is True


def test_td_waives_a_lateness_point_from_the_table_page(page, room):
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/2")
    expect(page.locator(".scoreboard")).to_contain_text("Marc Olsen", timeout=WAIT)
    page.click('#action-bar [data-action="waive"]')
    item = page.locator("#action-panel .waivers li").first
    expect(item).to_contain_text("1 point against Marc Olsen — lateness, automatic at", timeout=WAIT)
    assert "late:" not in item.inner_text()  # the TD chooses by reason, points and time, not by id
    item.get_by_role("button", name="Waive…").click()
    sentence = confirm_text(page)
    assert sentence.startswith("Waive 1 point for lateness against Marc Olsen (given automatically at ")
    assert sentence.endswith("Akiko Yazawa goes from 1 to 0.")
    answer(page, ok=True)
    room.sims["2"].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 0)
    expect(page.locator(".scoreboard .big").first).to_have_text("0", timeout=WAIT)


def test_board_is_public_and_the_dashboard_is_not(page, room):
    page.goto(room.hub.url + "/board")
    expect(page.locator('.btile[data-table="8"]')).to_contain_text("CRAWFORD", timeout=WAIT)
    assert page.locator(".btile").count() >= 9
    response = page.request.get(room.hub.url + "/api/room")
    assert response.status == 401
    response = page.request.post(room.hub.url + "/api/tables/1/commands", data={"type": "pause"})
    assert response.status == 403


def test_a_time_flag_is_resolved_from_the_table_page_naming_the_winner(page, room):
    """The flag's decision: the winner chosen by name (none chosen beforehand), confirmed; then
    the page says who won and how, and the result is verified from the same page."""
    login(page, room.hub.url)
    page.goto(room.hub.url + "/#/table/3")
    resolve = page.locator('#action-bar [data-action="resolve_flag"]')
    expect(resolve).to_be_visible(timeout=WAIT)
    resolve.click()
    form = page.locator('#action-panel [data-form="resolve_flag"]')
    winner = form.locator("select[name=winner]")
    assert winner.input_value() == ""
    assert winner.locator("option").all_inner_texts() == ["— choose —", "Zoltán Kovács", "Éva Szabó"]
    form.locator("button[type=submit]").click()
    expect(page.locator("#toast")).to_contain_text("Choose the winner first", timeout=WAIT)
    winner.select_option("B")
    form.locator("button[type=submit]").click()
    assert confirm_text(page) == "Time flag at r1-t3: Éva Szabó wins, Zoltán Kovács loses on time?"
    answer(page, ok=True)
    room.sims["3"].wait_for(lambda s: s.phase == "finished")
    assert snapshot(room.sims["3"].state)["winner"] == "B"
    banner = page.locator(".result-banner")
    expect(banner).to_have_text("Éva Szabó won on time: Zoltán Kovács's time ran out.", timeout=WAIT)
    verify = page.locator('#action-bar [data-action="verify"]')
    expect(verify).to_be_visible(timeout=WAIT)
    verify.click()
    sentence = "Verify r1-t3 at table 3: Éva Szabó won on time: Zoltán Kovács's time ran out?"
    assert confirm_text(page) == sentence
    answer(page, ok=True)
    expect(banner).to_contain_text("Verified by td", timeout=WAIT)
    expect(verify).to_be_hidden()
    assert room.hub.call(lambda: room.hub.hub.results["r1-t3"]["verified"])
