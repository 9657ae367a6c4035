"""Fonts and text: the shipped DejaVu Sans, shrink-to-fit, and a cache of rendered text.

DejaVu Sans ships with the package (``kiosk/fonts``, Bitstream Vera licence) because the screen
must show Greek, Cyrillic and Hungarian accents whatever fonts the system has. Its digits all have
the same width, so a running clock does not jitter.

Rendering text is the costly part of a frame, so every rendered line is cached by
(text, size, bold, colour); a clock that changes once a second renders one new string per second.

**Any text at all.** Names come from the schedule through the hub, so the screen must draw
whatever it is given and never fail on it. SDL_ttf cannot take every string: pygame refuses to
render one holding NUL (``ValueError``), cannot encode a lone surrogate, and raises "Text has
zero width" for text made only of zero-width characters (U+200B, tag characters). So every text
is made :func:`displayable` first — control characters (C0 but the line break, DEL, C1) dropped,
tabs as spaces, surrogates as U+FFFD, at most :data:`MAX_CHARS` characters — every measure and
render is guarded, and a text that does not fit its box even at :data:`MIN_SIZE` is cut with an
ellipsis, so it never overflows.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pygame

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
FONT_FILES = {False: FONT_DIR / "DejaVuSans.ttf", True: FONT_DIR / "DejaVuSans-Bold.ttf"}
MIN_SIZE = 6
#: the longest text fitted: no box on any screen shows more (a longer one is cut with "…")
MAX_CHARS = 1000
ELLIPSIS = "…"
#: C0 controls but the line break, DEL and C1 controls: nothing a screen can show
_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def displayable(text: str) -> str:
    """``text`` as the screen can draw it (see the module doc); unchanged for ordinary text."""
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 1] + ELLIPSIS
    text = text.replace("\t", " ")
    text = _CONTROLS.sub("", text)
    return _SURROGATES.sub("\ufffd", text)


class TextCache:
    """Fonts by size, fitted layouts and rendered surfaces, with bounded memory."""

    def __init__(self, max_surfaces: int = 600, max_fits: int = 4000):
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[tuple[bool, int], pygame.font.Font] = {}
        self._fits: OrderedDict[tuple[Any, ...], tuple[int, tuple[str, ...]]] = OrderedDict()
        self._surfaces: OrderedDict[tuple[Any, ...], pygame.Surface] = OrderedDict()
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
        text = displayable(text)
        s = max(1, size)
        floor = min(s, MIN_SIZE)
        while True:
            font = self.font(bold, s)
            lines = self._wrap(font, text, w) if wrap else tuple(_visible(t) for t in text.split("\n"))
            sizes = [_measure(font, line) for line in lines]
            width = max(lw for lw, _ in sizes)
            height = block_height(font.get_linesize(), [lh for _, lh in sizes])
            if width <= w and height <= h:
                return s, lines
            if s <= floor:
                return s, _cut(font, lines, w, h)
            if len(lines) == 1 and not wrap:
                ratio = min(w / max(1, width), h / max(1, height))
                s = max(floor, min(s - 1, int(s * ratio)))
            else:
                s = max(floor, s - max(1, s // 16))

    @staticmethod
    def _wrap(font: pygame.font.Font, text: str, w: int) -> tuple[str, ...]:
        """Greedy line breaking at spaces, after hyphens, and at soft hyphens (shown as "-")."""
        lines: list[str] = []
        for para in text.split("\n"):
            line = ""
            for token, spaced in _tokens(para):
                trial = f"{line} {token}" if line and spaced else line + token
                if not line or _width(font, _visible(trial)) <= w:
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
        font = self.font(bold, size)
        try:
            surf = font.render(displayable(text), True, color)
        except (pygame.error, ValueError):  # zero-width text: nothing to see, a blank line
            surf = pygame.Surface((1, font.get_height()), pygame.SRCALPHA)
        if pygame.display.get_init() and pygame.display.get_surface() is not None:
            surf = surf.convert_alpha()
        self._surfaces[key] = surf
        if len(self._surfaces) > self._max_surfaces:
            self._surfaces.popitem(last=False)
        return surf

    def line_height(self, bold: bool, size: int) -> int:
        return self.font(bold, size).get_linesize()


SOFT_HYPHEN = "\u00ad"


def _measure(font: pygame.font.Font, text: str) -> tuple[int, int]:
    """The size SDL_ttf draws ``text`` at: no width and the font's height for text it cannot
    measure (a blank line still takes a line)."""
    try:
        w, h = font.size(text)
    except (pygame.error, ValueError):
        return 0, font.get_height()
    return int(w), int(h) or font.get_height()


def _width(font: pygame.font.Font, text: str) -> int:
    return _measure(font, text)[0]


def block_height(line_height: int, heights: list[int]) -> int:
    """The height of lines drawn ``line_height`` apart: a line's glyphs can reach below the
    font's height (SDL_ttf gives "g" a taller box than "a" in some fonts), so the last line
    alone does not say where the block ends."""
    return max(i * line_height + h for i, h in enumerate(heights))


def _cut(font: pygame.font.Font, lines: tuple[str, ...], w: int, h: int) -> tuple[str, ...]:
    """As many of ``lines`` as fit ``h``, each cut to ``w`` with an ellipsis where it is cut."""
    step = font.get_linesize()
    room = max(1, 1 + (h - font.get_height()) // max(1, step))
    heights = [_measure(font, line)[1] for line in lines[:room]]
    while room > 1 and block_height(step, heights[:room]) > h:
        room -= 1
    kept = list(lines[:room])
    if len(lines) > room:
        kept[-1] = kept[-1] + ELLIPSIS
    return tuple(_ellipsize(font, line, w) for line in kept)


def _ellipsize(font: pygame.font.Font, line: str, w: int) -> str:
    """``line`` if it fits ``w``, else its longest beginning that fits with "…" after it."""
    if _width(font, line) <= w:
        return line
    body = line.removesuffix(ELLIPSIS)
    lo, hi = 0, len(body)  # the longest prefix body[:lo] + "…" that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _width(font, body[:mid] + ELLIPSIS) <= w:
            lo = mid
        else:
            hi = mid - 1
    return body[:lo].rstrip() + ELLIPSIS if lo else ""


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
