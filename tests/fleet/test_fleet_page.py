"""The Tables page in a real headless Chromium, against a ``bghub`` process and real tables.

The TD's flow for a new table: read the code on its screen, type code and table number, Enter;
the table then reports its health and the page shows it. *Identify* makes the table's screen
flash its number (its report says so), the *button test* is started from the page, *Restart*
brings the kiosk back (a new boot).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.e2e.pages import CHROMIUM_ARGS, SCREENSHOTS_ENV
from tests.fleet.support import PASSWORD, WAIT, Enroll, Hub, Table, cleanup

EVENT = "fleet-page"
MS = int(WAIT * 1000)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


def login(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.fill("#password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#logout-button")).to_be_visible(timeout=MS)


@pytest.mark.long
def test_enroll_from_the_page_then_identify_test_and_restart(browser: Browser, tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        page = browser.new_context(viewport={"width": 1500, "height": 900}).new_page()
        login(page, hub.url)
        page.click("a[href='/fleet']")
        expect(page.locator("#pending .empty")).to_be_visible(timeout=MS)

        first = Enroll(tmp_path, hub.url, tmp_path / "a", "dev-a")
        code = first.code()
        # the fingerprint the table shows is the one on the page: the TD compares them
        shown = first.out.wait_for(r"^hub key (\S+)$").group(1)
        expect(page.locator("#hub-key")).to_contain_text(f"Hub key {shown}", timeout=MS)
        assert shown == hub.fingerprint
        other = Enroll(tmp_path, hub.url, tmp_path / "b", "dev-b")
        other_code = other.code()
        # pushed to the page as the devices say hello
        expect(page.locator("#pending [data-device=dev-a] .code")).to_have_text(code, timeout=MS)
        expect(page.locator("#pending [data-device=dev-b] .code")).to_have_text(other_code, timeout=MS)

        # the TD types dev-b's table number, then enrolls dev-a by its code: the list is drawn
        # again (dev-a leaves it), and what was typed into dev-b's card is still there
        page.fill("#pending [data-device=dev-b] input", "6")
        page.fill("#quick-code", code)
        page.fill("#quick-table", "5")
        page.press("#quick-table", "Enter")
        expect(page.locator("#quick-result")).to_have_text(f"Code {code} → table 5", timeout=MS)
        assert first.wait() == 0
        expect(page.locator("#pending [data-device=dev-a]")).to_have_count(0, timeout=MS)
        expect(page.locator("#pending [data-device=dev-b] input")).to_have_value("6")
        # the per-device form works as well
        page.click("#pending [data-device=dev-b] button")
        assert other.wait() == 0
        expect(page.locator("#pending .empty")).to_be_visible(timeout=MS)

        table = Table(tmp_path, tmp_path / "a" / "table.toml", "a")
        with cleanup(table):
            row = page.locator("#enrolled tr[data-device=dev-a]")
            expect(row).to_contain_text("● online", timeout=MS)
            expect(row).to_contain_text("✓", timeout=MS)  # the journal's check
            expect(page.locator("#enrolled tr[data-device=dev-b]")).to_contain_text("○ offline")
            waiting = Enroll(tmp_path, hub.url, tmp_path / "c", "bgt-3f9a1c2b7d04")
            expect(page.locator("#pending [data-device=bgt-3f9a1c2b7d04] .code")).to_have_text(
                waiting.code(), timeout=MS
            )
            if os.environ.get(SCREENSHOTS_ENV):
                page.screenshot(path=str(Path(os.environ[SCREENSHOTS_ENV]) / "dashboard-tables.png"))
            page.screenshot(path=str(tmp_path / "tables.png"))

            row.locator("button", has_text="Identify").click()
            expect(row).to_contain_text("identify", timeout=MS)  # the table's report: its screen flashes
            table.out.wait_for("fleet: identify")

            row.locator("button", has_text="Button test").click()
            expect(row).to_contain_text("button test", timeout=MS)
            expect(row).to_contain_text("running", timeout=MS)

            boots = hub.table("5")["status"]["boot_id"]  # type: ignore[index]
            page.once("dialog", lambda d: d.accept())
            row.locator("button", has_text="Restart").click()
            table.out.wait_for("starting again \\(restart\\)")
            table.out.wait_for("first frame", start=len(table.out.lines) - 1)

            def rebooted() -> bool:
                detail = hub.table("5")
                return bool(detail and detail["status"]["online"] and detail["status"]["boot_id"] != boots)

            from tests.fleet.support import wait_until

            wait_until(rebooted, WAIT, "table 5 back with a new boot id")
            assert table.proc.poll() is None, "restart replaced the process image, it did not exit"
            waiting.proc.terminate()
            waiting.proc.wait(WAIT)


def test_enrolling_a_table_that_plays_a_match_asks_the_td_naming_the_match_and_its_score(
    browser: Browser, tmp_path: Path
):
    from tests.fleet.scenes import MIN, enroll, seed_waiting, wall_now, write_schedule
    from tests.fleet.support import wait_until

    schedule = write_schedule(tmp_path, "12", start=wall_now() - 20 * MIN)
    hub = Hub(tmp_path, EVENT, extra=["--schedule", str(schedule)])
    with cleanup(hub):
        old = enroll(hub, tmp_path, "dev-old", "12")
        seed_waiting(old, "12", "r1-t12", first_point_in_ms=4 * MIN)
        table = Table(tmp_path, old / "table.toml", "old")
        with cleanup(table):
            wait_until(
                lambda: ((hub.table("12") or {}).get("state") or {}).get("present", {}).get("A"),
                WAIT,
                "table 12 playing r1-t12 on the hub",
            )
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            login(page, hub.url)
            page.goto(hub.url + "/fleet")
            new = Enroll(tmp_path, hub.url, tmp_path / "new", "dev-new", "--timeout", "90")
            code = new.code()
            expect(page.locator("#pending [data-device=dev-new] .code")).to_have_text(code, timeout=MS)

            # the TD types table 12 for the new device: the page names the match and its score
            # first, in the dashboard's confirmation (Cancel is the default button)
            dialog = page.locator("#confirm-dialog")
            page.fill("#quick-code", code)
            page.fill("#quick-table", "12")
            page.press("#quick-table", "Enter")
            expect(dialog).to_be_visible(timeout=MS)
            asked = page.locator("#confirm-text").inner_text()
            assert "r1-t12" in asked and "Anna Berg – Jon Dahl" in asked and "0–0" in asked, asked
            expect(page.locator("#confirm-cancel")).to_be_focused()
            if os.environ.get(SCREENSHOTS_ENV):
                page.screenshot(
                    path=str(Path(os.environ[SCREENSHOTS_ENV]) / "dashboard-tables-mid-match.png")
                )
            page.screenshot(path=str(tmp_path / "tables-mid-match.png"))
            page.click("#confirm-cancel")
            expect(page.locator("#quick-result")).to_contain_text("keeps its match", timeout=MS)
            assert hub.device("dev-old")["state"] == "enrolled"  # type: ignore[index]

            page.press("#quick-table", "Enter")
            expect(dialog).to_be_visible(timeout=MS)
            page.click("#confirm-ok")
            expect(page.locator("#quick-result")).to_have_text(f"Code {code} → table 12", timeout=MS)
            assert new.wait() == 0
            assert hub.device("dev-old")["state"] == "retired"  # type: ignore[index]
            wait_until(lambda: not hub.online("12"), WAIT, "table 12 without a device")
