"""*Identify*: the table's number flashing over the whole screen, so the TD finds the table.

The Tables page's "Identify" button sends it; the screen alternates two colours twice a second for
:data:`IDENTIFY_S` seconds (less during a match: the players need their clock back), then the
match screen returns. A tap ends it early.
"""

from __future__ import annotations

from typing import Any

import pygame

from kiosk.ui.i18n import translator
from kiosk.ui.screens.setup.draw import band, text_in
from kiosk.ui.text import TextCache
from kiosk.ui.theme import AMBER, BG, TEXT, TEXT_DARK

IDENTIFY_S = 10.0
IDENTIFY_IN_MATCH_S = 4.0
FLASH_MS = 500


class IdentifyView:
    """Draws the flashing number (``draw`` as the match screen's, for the window)."""

    def __init__(self, table: str, lang: str = "en") -> None:
        self.table = table
        self.lang = lang
        self.texts = TextCache()
        self._phase: int | None = None

    def draw(self, surface: pygame.Surface, snap: Any, local: Any, now_wall_ms: int) -> list[pygame.Rect]:
        phase = (now_wall_ms // FLASH_MS) % 2
        if phase == self._phase:
            return []
        self._phase = phase
        background, color = (AMBER, TEXT_DARK) if phase == 0 else (BG, TEXT)
        surface.fill(background)
        w, h = surface.get_size()
        tr = translator(self.lang, "setup")
        y, bh = band(h, 0.04, 0.2)
        text_in(surface, self.texts, tr("Table"), (0, y, w, bh), bh, color, bold=True)
        y, bh = band(h, 0.22, 0.74)
        text_in(surface, self.texts, self.table, (w // 20, y, w - w // 10, bh), bh, color, bold=True)
        return [surface.get_rect()]
