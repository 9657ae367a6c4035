"""The screen's size: configured, or the display's own when nobody has said it yet."""

from __future__ import annotations

import pygame
import pytest

from kiosk.ui.window import Window


@pytest.fixture(autouse=True)
def _quit_display():
    yield
    pygame.display.quit()


def test_a_configured_size_is_the_panel_and_the_picture():
    window = Window((800, 480), 0, headless=True)
    assert window.panel == (800, 480) and window.size == (800, 480)


def test_size_zero_takes_the_displays_own_size():
    """A table not set up has no configured screen: it draws for the display it finds (a fixed
    800x480 made SDL switch an HDMI screen's mode)."""
    window = Window((0, 0), 0, headless=True)
    (desktop,) = pygame.display.get_desktop_sizes()
    assert desktop[0] > 0 and desktop[1] > 0
    assert window.panel == desktop and window.size == desktop


def test_a_turned_panel_of_the_displays_size_draws_an_upright_picture():
    window = Window((0, 0), 90, headless=True)
    width, height = pygame.display.get_desktop_sizes()[0]
    assert window.panel == (width, height) and window.size == (height, width)
