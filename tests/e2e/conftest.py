"""Fixtures for the dashboard tests: one headless Chromium per module."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.pages import CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()
