"""Drawing helpers for the device's screens: text fitted and centred in a box, plain rectangles.

These screens change a few times a minute at most (a code, a tick), so each frame is drawn whole
and only when its content changed; the match screens' region renderer is not needed.
"""

from __future__ import annotations

import pygame

from kiosk.ui.text import TextCache
from kiosk.ui.theme import Color

Box = tuple[int, int, int, int]


def text_in(
    surface: pygame.Surface,
    texts: TextCache,
    text: str,
    box: Box,
    size: int,
    color: Color,
    *,
    bold: bool = False,
    wrap: bool = False,
) -> pygame.Rect:
    """Draw ``text`` as large as fits ``box`` (at most ``size`` px), centred; returns its rect."""
    x, y, w, h = box
    fitted, lines = texts.fit(text, bold, size, w, h, wrap)
    line_h = texts.line_height(bold, fitted)
    surfaces = [texts.render(line, fitted, bold, color) for line in lines]
    total = line_h * (len(lines) - 1) + (surfaces[-1].get_height() if surfaces else 0)
    top = y + (h - total) // 2
    drawn = pygame.Rect(x + w // 2, top, 0, 0)
    for index, line in enumerate(surfaces):
        rect = line.get_rect(midtop=(x + w // 2, top + index * line_h))
        surface.blit(line, rect)
        drawn.union_ip(rect)
    return drawn


def band(height: int, top: float, share: float) -> tuple[int, int]:
    """``(y, h)`` of a horizontal band starting at ``top`` of the height, ``share`` of it tall."""
    return int(height * top), int(height * share)
