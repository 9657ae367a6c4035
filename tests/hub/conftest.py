"""Fixtures for the hub's tests."""

from __future__ import annotations

import pytest

from hub.live.clock import FakeClock
from tests.hub.support import MIN, T0


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock one minute before the scheduled start ``T0``."""
    return FakeClock(T0 - MIN)
