"""Shared pytest fixtures: a real mosquitto per test session, and an isolated one per test."""

from __future__ import annotations

import os

import pytest

from tests.support.broker import Mosquitto
from tests.support.patience import patience, scale_default_timeout

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


def pytest_configure(config: pytest.Config) -> None:
    """The harnesses' own waits (see :func:`~tests.support.patience.scale_default_timeout`)."""
    from demo.kiosk_window import KioskProcess
    from demo.simtable import SimTable
    from hub.service import HubThread

    for func in (
        SimTable.wait_for,
        SimTable.wait_cmd,
        KioskProcess.wait_online,
        HubThread.start,
        HubThread.stop,
        HubThread.wait_for,
        HubThread.call,
    ):
        scale_default_timeout(func)


@pytest.fixture(scope="session")
def mosquitto():
    """One real broker for the whole session (tests use distinct event ids / topics)."""
    broker = Mosquitto().start()
    yield broker
    broker.stop()


@pytest.fixture
def own_mosquitto():
    """A broker of this test's own, which it may stop and start (outage tests)."""
    broker = Mosquitto().start()
    yield broker
    broker.stop()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's limit per test (``--timeout``, ``timeout`` in pyproject.toml, or a test's
    own ``timeout`` mark) is a deadline like any other: scaled for a loaded machine."""
    option = config.getoption("timeout", None)
    base = float(option if option is not None else config.getini("timeout") or 0)
    for item in items:
        mark = item.get_closest_marker("timeout")
        seconds = base
        if mark is not None:
            seconds = float(mark.args[0] if mark.args else mark.kwargs.get("timeout", base))
        if seconds > 0:
            item.add_marker(pytest.mark.timeout(patience(seconds)), append=False)
