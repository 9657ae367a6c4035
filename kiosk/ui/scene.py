"""What a screen is made of: regions of drawing primitives, plus the touch areas over them.

A screen is rebuilt from the snapshot on every frame as plain values (no pixels yet). Because the
values compare by content, the renderer redraws a region only when what it shows has changed,
and hit-testing uses the very areas the frame drew, so a button is pressable exactly where it is
seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kiosk.ui.layout import Point, Rect
from kiosk.ui.theme import Color

Intent = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Fill:
    rect: Rect
    color: Color
    radius: int = 0


@dataclass(frozen=True, slots=True)
class Frame:
    rect: Rect
    color: Color
    width: int
    radius: int = 0


@dataclass(frozen=True, slots=True)
class Poly:
    points: tuple[Point, ...]
    color: Color
    width: int = 0


@dataclass(frozen=True, slots=True)
class Circle:
    center: Point
    radius: int
    color: Color
    width: int = 0


@dataclass(frozen=True, slots=True)
class Line:
    start: Point
    end: Point
    color: Color
    width: int = 1


@dataclass(frozen=True, slots=True)
class Text:
    """``text`` drawn inside ``box`` at ``size`` px, shrunk (and wrapped if allowed) to fit."""

    text: str
    box: Rect
    size: int
    color: Color
    bold: bool = True
    align: str = "center"
    wrap: bool = False
    #: an optional text: left out when it would have to shrink below this size
    min_size: int = 0


@dataclass(frozen=True, slots=True)
class Qr:
    """``text`` as a QR code (quiet zone included), square, centred in ``rect``
    (:mod:`kiosk.ui.qr`)."""

    text: str
    rect: Rect


Item = Fill | Frame | Poly | Circle | Line | Text | Qr


@dataclass(slots=True)
class Region:
    """A rectangle of the screen redrawn as a whole: background, then its items, clipped."""

    key: str
    rect: Rect
    bg: Color | None
    items: list[Item] = field(default_factory=list)
    #: drawn over other regions (a dialog); regions it fully covers are not drawn
    overlay: bool = False

    def signature(self) -> tuple[Any, ...]:
        return (self.rect, self.bg, tuple(self.items))


@dataclass(frozen=True, slots=True)
class Hit:
    """A touch area: touching ``rect`` (or pressing one of ``keys``) yields ``intents``.

    ``shown`` is what the player sees of it (a button's face); ``rect`` may be larger, for fingers.
    """

    rect: Rect
    intents: tuple[Intent, ...]
    keys: tuple[int, ...] = ()
    shown: Rect | None = None


@dataclass(slots=True)
class Scene:
    regions: list[Region] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)

    def hit_at(self, pos: Point) -> Hit | None:
        """The touch area under ``pos``; where areas overlap, the one drawn last wins."""
        x, y = pos
        for hit in reversed(self.hits):
            hx, hy, hw, hh = hit.rect
            if hx <= x < hx + hw and hy <= y < hy + hh:
                return hit
        return None

    def hit_for_key(self, key: int) -> Hit | None:
        for hit in reversed(self.hits):
            if key in hit.keys:
                return hit
        return None

    def texts(self) -> list[Text]:
        return [item for region in self.regions for item in region.items if isinstance(item, Text)]
