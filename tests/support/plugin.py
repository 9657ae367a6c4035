"""Shared pytest fixtures: a real mosquitto per test session, and an isolated one per test."""

from __future__ import annotations

import os

import pytest

from tests.support.broker import Mosquitto

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


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
