"""Helpers for driving the dashboard in Chromium: logging in, confirming, sizes, screenshots."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.hub.support import PASSWORD
from tests.support.patience import patience

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
]
WAIT = round(patience(10.0) * 1000)  # ms, as playwright counts
#: the sizes the dashboard is checked at: a laptop, a tablet, a phone
SIZES = {"laptop": (1440, 900), "tablet": (1024, 768), "phone": (390, 844)}
#: where screenshots go; the documentation's copies are made with BGHUB_SCREENSHOTS=docs/screenshots
#: (a plain test run leaves the tree untouched)
SCREENSHOTS_ENV = "BGHUB_SCREENSHOTS"


def context(browser: Browser, size: str = "laptop", **kw: object) -> BrowserContext:
    w, h = SIZES.get(size, (0, 0)) if "x" not in size else map(int, size.split("x"))
    return browser.new_context(viewport={"width": w, "height": h}, accept_downloads=True, **kw)  # type: ignore[arg-type]


def login(page: Page, url: str, hash_: str = "#/") -> None:
    """Log in on the login form and wait for the room (or the page asked for)."""
    page.goto(url + "/" + hash_)
    expect(page.locator("#login-view")).to_be_visible(timeout=WAIT)
    page.fill("#password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-view")).to_be_hidden(timeout=WAIT)
    if hash_ in ("#/", ""):
        expect(page.locator("#grid .tile").first).to_be_visible(timeout=WAIT)


def confirm_text(page: Page) -> str:
    """The open confirmation's sentence."""
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible(timeout=WAIT)
    return page.locator("#confirm-text").inner_text()


def answer(page: Page, ok: bool) -> None:
    page.click("#confirm-ok" if ok else "#confirm-cancel")
    expect(page.locator("#confirm-dialog")).to_be_hidden(timeout=WAIT)


def wait_seq(page: Page, at_least: int) -> None:
    """Wait until the table page shows a table state at least this far on."""
    page.wait_for_function(
        "n => Number(document.getElementById('table-view').dataset.seq || 0) >= n", arg=at_least, timeout=WAIT
    )


def shots_dir(tmp_path: Path) -> Path:
    out = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def in_viewport(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the viewport without scrolling."""
    return bool(
        page.eval_on_selector(
            selector,
            "el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.top >= 0"
            " && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; }",
        )
    )
