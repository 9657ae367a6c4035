"""Draws a :class:`~kiosk.ui.scene.Scene` and reports which rectangles changed.

A region is redrawn only when its content differs from the previous frame (or when a region
under the same pixels was redrawn before it); when the screen's set of regions changes the whole
surface is redrawn. Each drawn text's rectangle is recorded with the box it had to fit, so tests
can check that nothing overflows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pygame

from kiosk.ui import qr
from kiosk.ui.layout import Rect, contains
from kiosk.ui.scene import Circle, Fill, Frame, Line, Poly, Qr, Region, Scene, Text
from kiosk.ui.text import TextCache, block_height
from kiosk.ui.theme import BG


class TextPlacement(NamedTuple):
    """One drawn text: where it landed (``rect``), the box it had to fit, and the sizes."""

    text: str
    rect: Rect
    box: Rect
    size: int
    requested: int
    region: str


class Renderer:
    def __init__(self, texts: TextCache):
        self.texts = texts
        self._prev: dict[str, tuple[Any, ...]] = {}
        self._order: list[tuple[str, Rect]] = []
        self._placements: dict[str, list[TextPlacement]] = {}
        self._size: tuple[int, int] | None = None

    def reset(self) -> None:
        """Forget the previous frame: the next draw repaints everything."""
        self._prev.clear()
        self._order = []
        self._placements.clear()
        self._size = None

    def placements(self) -> list[TextPlacement]:
        return [p for key, _ in self._order for p in self._placements.get(key, ())]

    def draw(self, surface: pygame.Surface, scene: Scene) -> list[pygame.Rect]:
        regions = _visible(scene.regions)
        order = [(r.key, r.rect) for r in regions]
        size = surface.get_size()
        full = size != self._size or order != self._order
        if full:
            surface.fill(BG)
            self._prev.clear()
            self._placements.clear()
        dirty: list[pygame.Rect] = []
        for region in regions:
            sig = region.signature()
            rect = pygame.Rect(region.rect)
            changed = full or self._prev.get(region.key) != sig
            if not changed and dirty and region.overlay and rect.collidelist(dirty) != -1:
                changed = True
            if not changed:
                continue
            self._prev[region.key] = sig
            self._placements[region.key] = self._draw_region(surface, region)
            if not full:
                dirty.append(rect)
        self._order = order
        self._size = size
        if full:
            return [surface.get_rect()]
        return dirty

    def _draw_region(self, surface: pygame.Surface, region: Region) -> list[TextPlacement]:
        placed: list[TextPlacement] = []
        surface.set_clip(pygame.Rect(region.rect))
        try:
            if region.bg is not None:
                surface.fill(region.bg, region.rect)
            for item in region.items:
                if isinstance(item, Text):
                    placement = self._draw_text(surface, item, region.key)
                    if placement is not None:
                        placed.append(placement)
                elif isinstance(item, Fill):
                    pygame.draw.rect(surface, item.color, item.rect, 0, item.radius)
                elif isinstance(item, Frame):
                    pygame.draw.rect(surface, item.color, item.rect, item.width, item.radius)
                elif isinstance(item, Poly):
                    pygame.draw.polygon(surface, item.color, item.points, item.width)
                elif isinstance(item, Circle):
                    pygame.draw.circle(surface, item.color, item.center, item.radius, item.width)
                elif isinstance(item, Line):
                    pygame.draw.line(surface, item.color, item.start, item.end, item.width)
                elif isinstance(item, Qr):
                    x, y, w, h = item.rect
                    code = qr.surface(item.text, min(w, h))
                    surface.blit(code, (x + (w - code.get_width()) // 2, y + (h - code.get_height()) // 2))
        finally:
            surface.set_clip(None)
        return placed

    def _draw_text(self, surface: pygame.Surface, item: Text, key: str) -> TextPlacement | None:
        bx, by, bw, bh = item.box
        size, lines = self.texts.fit(item.text, item.bold, item.size, bw, bh, item.wrap)
        if size < item.min_size:
            return None
        line_h = self.texts.line_height(item.bold, size)
        surfaces = [self.texts.render(line, size, item.bold, item.color) for line in lines]
        total_h = block_height(line_h, [surf.get_height() for surf in surfaces])
        y = by + (bh - total_h) // 2
        left = right = top = None
        bottom = y
        for surf in surfaces:
            w = surf.get_width()
            if item.align == "left":
                x = bx
            elif item.align == "right":
                x = bx + bw - w
            else:
                x = bx + (bw - w) // 2
            surface.blit(surf, (x, y))
            left = x if left is None else min(left, x)
            right = x + w if right is None else max(right, x + w)
            top = y if top is None else top
            bottom = y + surf.get_height()
            y += line_h
        assert left is not None and right is not None and top is not None
        rect = (left, top, right - left, bottom - top)
        return TextPlacement(item.text, rect, item.box, size, item.size, key)


def _visible(regions: list[Region]) -> list[Region]:
    """Drop base regions that an overlay region covers completely (they would not be seen)."""
    covers = [r.rect for r in regions if r.overlay]
    if not covers:
        return regions
    return [r for r in regions if r.overlay or not any(contains(c, r.rect) for c in covers)]
