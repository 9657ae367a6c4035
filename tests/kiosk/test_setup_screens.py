"""The device's own screens (domain ``setup``): not set up, identify, the button test.

Complete catalogs in the six languages with the same placeholders, and the pictures themselves:
the code is drawn big enough to read across a table, and nothing leaves the screen.
"""

from __future__ import annotations

import string

import pygame
import pytest

from kiosk.ui.i18n import LANGUAGES, catalog, catalog_path, extract_msgids, ui_sources
from kiosk.ui.screens.setup.button_test import ButtonTestView
from kiosk.ui.screens.setup.identify import IdentifyView
from kiosk.ui.screens.setup.unconfigured import SetupModel, SetupView

USED = extract_msgids(ui_sources("setup"))
OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_setup_messages_are_in_their_own_domain_only():
    assert "Table not set up" in USED and "code {code}" in USED
    assert ui_sources("setup") and not set(ui_sources("setup")) & set(ui_sources())


def test_english_template_lists_exactly_the_shown_messages():
    ids = {
        line[7:-1]
        for line in catalog_path("en", "setup").read_text().splitlines()
        if line.startswith("msgid ")
    }
    assert ids - {""} == USED


@pytest.mark.parametrize("lang", OTHERS)
def test_every_language_translates_every_setup_message(lang: str):
    messages = catalog(lang, "setup")
    assert sorted(USED - set(messages)) == []
    for msgid in USED:
        assert fields(messages[msgid]) == fields(msgid), (lang, msgid)


@pytest.fixture
def surface():
    pygame.display.init()
    pygame.font.init()
    yield pygame.Surface((800, 480))
    pygame.display.quit()


def drawn_box(surface: pygame.Surface, color: tuple[int, int, int]) -> pygame.Rect | None:
    """The bounding box of pixels of exactly ``color``."""
    mask = pygame.mask.from_threshold(surface, color, (1, 1, 1, 255))
    boxes = mask.get_bounding_rects()
    return boxes[0].unionall(boxes[1:]) if boxes else None


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_code_is_big_and_every_line_fits(surface: pygame.Surface, lang: str):
    from kiosk.ui.theme import AMBER

    view = SetupView(surface.get_size(), lang)
    model = SetupModel(
        phase="waiting", code="4821", hub="http://192.168.1.10:8080", device="bgt-0a1b2c3d4e5f"
    )
    assert view.draw(surface, model, None, 0)
    code = drawn_box(surface, AMBER)
    assert code is not None and code.height >= surface.get_height() * 0.2, code
    assert surface.get_rect().contains(code)
    for line in view.lines(model):
        _size, lines = view.texts.fit(line, False, 10, 10_000, 10_000, False)
        assert lines  # renders in the shipped font
    assert view.draw(surface, model, None, 0) == []  # unchanged: nothing redrawn


def test_identify_flashes(surface: pygame.Surface):
    view = IdentifyView("12")
    assert view.draw(surface, None, None, 0)
    first = surface.get_at((5, 5))
    assert view.draw(surface, None, None, 100) == []
    assert view.draw(surface, None, None, 600)
    assert surface.get_at((5, 5)) != first


def test_button_test_ticks_buttons_off(surface: pygame.Surface):
    from kiosk.ui.theme import GOOD

    view = ButtonTestView("en")
    buttons = ("A", "B", "pause", "td")
    view.draw(surface, (buttons, frozenset(), 100.0), None, 0)
    assert drawn_box(surface, GOOD) is None
    view.draw(surface, (buttons, frozenset({"A"}), 99.0), None, 0)
    ticked = drawn_box(surface, GOOD)
    assert ticked is not None and ticked.right < surface.get_width() // 3
    assert view.lines(buttons, frozenset(buttons))[0] == "All buttons work"


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_hub_key_fingerprint_is_shown_and_fits(surface: pygame.Surface, lang: str):
    """The organiser compares it with the hub's Tables page: it is on the screen, whole."""
    from kiosk.ui.theme import TEXT

    view = SetupView(surface.get_size(), lang)
    model = SetupModel(
        phase="waiting",
        code="4821",
        hub="http://192.168.1.10:8080",
        device="bgt-0a1b2c3d4e5f",
        hub_key="3F2A-91C0-7B44-E1D8",
    )
    assert "3F2A-91C0-7B44-E1D8" in view.lines(model)[4]
    view.draw(surface, model, None, 0)
    bottom = surface.subsurface(pygame.Rect(0, int(surface.get_height() * 0.85), surface.get_width(), 40))
    drawn = drawn_box(bottom, TEXT)
    assert drawn is not None and drawn.height >= 14, drawn
    _size, lines = view.texts.fit(view.lines(model)[4], False, 27, surface.get_width() * 0.9, 36, False)
    assert len(lines) == 1


def test_two_hubs_are_listed_and_the_table_waits(surface: pygame.Surface):
    view = SetupView(surface.get_size(), "en")
    model = SetupModel(phase="choose", hubs=("http://10.0.0.2:8080", "http://10.0.0.9:8080"))
    status = view.lines(model)[2]
    assert "10.0.0.2" in status and "10.0.0.9" in status and "room.txt" in status
    assert view.draw(surface, model, None, 0)
