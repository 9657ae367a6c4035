"""Fixtures for the dashboard tests: one headless Chromium per module, and a fresh page (its own
browser context) per test in the module's ``room``."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.pages import CHROMIUM_ARGS, context


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, room):
    ctx = context(browser)
    pg = ctx.new_page()
    yield pg
    ctx.close()
