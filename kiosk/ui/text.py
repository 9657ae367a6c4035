"""Fonts and text: the shipped DejaVu Sans, shrink-to-fit, and a cache of rendered text.

DejaVu Sans ships with the package (``kiosk/fonts``, Bitstream Vera licence) because the screen
must show Greek, Cyrillic and Hungarian accents whatever fonts the system has. Its digits all have
the same width, so a running clock does not jitter.

Rendering text is the costly part of a frame, so every rendered line is cached by
(text, size, bold, colour); a clock that changes once a second renders one new string per second.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pygame

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
FONT_FILES = {False: FONT_DIR / "DejaVuSans.ttf", True: FONT_DIR / "DejaVuSans-Bold.ttf"}
MIN_SIZE = 6


class TextCache:
    """Fonts by size, fitted layouts and rendered surfaces, with bounded memory."""

    def __init__(self, max_surfaces: int = 600, max_fits: int = 4000):
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[tuple[bool, int], pygame.font.Font] = {}
        self._fits: OrderedDict[tuple, tuple[int, tuple[str, ...]]] = OrderedDict()
        self._surfaces: OrderedDict[tuple, pygame.Surface] = OrderedDict()
        self._max_surfaces = max_surfaces
        self._max_fits = max_fits

    def font(self, bold: bool, size: int) -> pygame.font.Font:
        key = (bold, size)
        font = self._fonts.get(key)
        if font is None:
            font = pygame.font.Font(str(FONT_FILES[bold]), size)
            self._fonts[key] = font
        return font

    def fit(
        self, text: str, bold: bool, size: int, w: int, h: int, wrap: bool
    ) -> tuple[int, tuple[str, ...]]:
        """The largest size ≤ ``size`` (and its lines) at which ``text`` fits ``w``×``h``."""
        key = (text, bold, size, w, h, wrap)
        hit = self._fits.get(key)
        if hit is not None:
            self._fits.move_to_end(key)
            return hit
        result = self._fit(text, bold, size, w, h, wrap)
        self._fits[key] = result
        if len(self._fits) > self._max_fits:
            self._fits.popitem(last=False)
        return result

    def _fit(
        self, text: str, bold: bool, size: int, w: int, h: int, wrap: bool
    ) -> tuple[int, tuple[str, ...]]:
        s = max(1, size)
        while True:
            font = self.font(bold, s)
            lines = self._wrap(font, text, w) if wrap else tuple(_visible(t) for t in text.split("\n"))
            width = max(font.size(line)[0] for line in lines)
            height = font.get_height() + font.get_linesize() * (len(lines) - 1)
            if (width <= w and height <= h) or s == 1:
                return s, lines
            if len(lines) == 1 and not wrap:
                ratio = min(w / max(1, width), h / max(1, height))
                s = max(1, min(s - 1, int(s * ratio)))
            else:
                s = max(1, s - max(1, s // 16))

    @staticmethod
    def _wrap(font: pygame.font.Font, text: str, w: int) -> tuple[str, ...]:
        """Greedy line breaking at spaces, after hyphens, and at soft hyphens (shown as "-")."""
        lines: list[str] = []
        for para in text.split("\n"):
            line = ""
            for token, spaced in _tokens(para):
                trial = f"{line} {token}" if line and spaced else line + token
                if not line or font.size(_visible(trial))[0] <= w:
                    line = trial
                else:
                    lines.append(_line_end(line))
                    line = token
            lines.append(_line_end(line))
        return tuple(lines)

    def render(self, text: str, size: int, bold: bool, color: tuple[int, int, int]) -> pygame.Surface:
        key = (text, size, bold, color)
        surf = self._surfaces.get(key)
        if surf is not None:
            self._surfaces.move_to_end(key)
            return surf
        surf = self.font(bold, size).render(text, True, color)
        if pygame.display.get_init() and pygame.display.get_surface() is not None:
            surf = surf.convert_alpha()
        self._surfaces[key] = surf
        if len(self._surfaces) > self._max_surfaces:
            self._surfaces.popitem(last=False)
        return surf

    def line_height(self, bold: bool, size: int) -> int:
        return self.font(bold, size).get_linesize()


SOFT_HYPHEN = "\u00ad"


def _tokens(para: str) -> list[tuple[str, bool]]:
    """Break opportunities: (piece, preceded by a space). Hyphens stay at the end of their piece."""
    out: list[tuple[str, bool]] = []
    for i, word in enumerate(para.split(" ")):
        piece = ""
        first = True
        for ch in word:
            piece += ch
            if ch in ("-", SOFT_HYPHEN) and len(piece) > 1:
                out.append((piece, first and i > 0))
                piece, first = "", False
        if piece or first:
            out.append((piece, first and i > 0))
    return out


def _visible(text: str) -> str:
    return text.replace(SOFT_HYPHEN, "")


def _line_end(line: str) -> str:
    """A line broken at a soft hyphen shows a hyphen; soft hyphens inside a line vanish."""
    if line.endswith(SOFT_HYPHEN):
        return _visible(line) + "-"
    return _visible(line)
