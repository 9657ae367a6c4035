"""Fixtures of the rooms' tests: the dashboard's headless Chromium (as tests/e2e has it)."""

from __future__ import annotations

from tests.e2e.conftest import browser

__all__ = ["browser"]
