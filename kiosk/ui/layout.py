"""Screen geometry: one tuned layout per supported display, scaled for any other size.

The Raspberry Pi Touch Display is 800×480 and the Touch Display 2 is 1280×720 (landscape); both are
about 155 × 87 mm (``kiosk.ui.physical``), so the large layout is the small one at 1.5 times the
pixels. Screens are built in the coordinates of the nearest of these two layouts (by aspect ratio,
then size) and scaled to the real surface by :class:`Geo`, so an odd size still gets a sensible
screen. Sizes are chosen for a player 1.5 m away and for fingers: every touch target is at least
9 mm in both directions and 1.4 mm from the screen's edge.
"""

from __future__ import annotations

from dataclasses import dataclass

Rect = tuple[int, int, int, int]
Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Layout:
    """Sizes in the layout's own pixels. Side panels are left and right of a centre column."""

    W: int
    H: int
    top: int
    pad: int
    center: int
    bottom: int
    name_h: int
    score_h: int
    clock_h: int
    radius: int
    f_small: int
    f_label: int
    f_name: int
    f_button: int
    f_score: int
    f_clock: int
    f_delay: int
    f_title: int
    f_badge: int
    f_chip: int
    f_huge: int
    #: the match length under "Match to" (readable from the next table)
    f_length: int

    @property
    def side_w(self) -> int:
        return (self.W - self.center) // 2

    @property
    def content_h(self) -> int:
        """Height of a side panel between the top bar and the action bar."""
        return self.H - self.top - self.bottom

    @property
    def delay_h(self) -> int:
        return self.content_h - self.name_h - self.score_h - self.clock_h


SMALL = Layout(
    W=800,
    H=480,
    top=68,
    pad=8,
    center=204,
    bottom=92,
    name_h=46,
    score_h=96,
    clock_h=116,
    radius=10,
    f_small=18,
    f_label=22,
    f_name=30,
    f_button=28,
    f_score=80,
    f_clock=96,
    f_delay=30,
    f_title=34,
    f_badge=30,
    f_chip=22,
    f_huge=120,
    f_length=46,
)

LARGE = Layout(
    W=1280,
    H=720,
    top=102,
    pad=12,
    center=320,
    bottom=138,
    name_h=68,
    score_h=144,
    clock_h=172,
    radius=14,
    f_small=26,
    f_label=32,
    f_name=46,
    f_button=40,
    f_score=124,
    f_clock=150,
    f_delay=44,
    f_title=50,
    f_badge=44,
    f_chip=32,
    f_huge=180,
    f_length=68,
)

LAYOUTS = (SMALL, LARGE)


def nearest_layout(size: tuple[int, int]) -> Layout:
    """The layout closest in aspect ratio (then in width) to ``size``."""
    w, h = size
    aspect = w / h
    return min(LAYOUTS, key=lambda lay: (round(abs(lay.W / lay.H - aspect), 2), abs(lay.W - w)))


@dataclass(frozen=True, slots=True)
class Geo:
    """Maps layout coordinates to surface pixels (identity for the two native sizes)."""

    sx: float = 1.0
    sy: float = 1.0

    @property
    def identity(self) -> bool:
        return self.sx == 1.0 and self.sy == 1.0

    def r(self, rect: Rect) -> Rect:
        if self.identity:
            return rect
        x, y, w, h = rect
        x0, y0 = round(x * self.sx), round(y * self.sy)
        return (x0, y0, round((x + w) * self.sx) - x0, round((y + h) * self.sy) - y0)

    def p(self, point: Point) -> Point:
        if self.identity:
            return point
        return (round(point[0] * self.sx), round(point[1] * self.sy))

    def n(self, length: int) -> int:
        """A length that is not tied to an axis (font size, radius, line width)."""
        if self.identity:
            return length
        return max(1, round(length * min(self.sx, self.sy)))


def geometry(size: tuple[int, int]) -> tuple[Layout, Geo]:
    lay = nearest_layout(size)
    return lay, Geo(size[0] / lay.W, size[1] / lay.H)


def inset(rect: Rect, d: int) -> Rect:
    x, y, w, h = rect
    return (x + d, y + d, max(0, w - 2 * d), max(0, h - 2 * d))


def hsplit(rect: Rect, n: int, gap: int) -> list[Rect]:
    """``n`` equal columns of ``rect`` with ``gap`` between them."""
    x, y, w, h = rect
    each = (w - gap * (n - 1)) // n
    return [(x + i * (each + gap), y, each, h) for i in range(n)]


def vsplit(rect: Rect, n: int, gap: int) -> list[Rect]:
    x, y, w, h = rect
    each = (h - gap * (n - 1)) // n
    return [(x, y + i * (each + gap), w, each) for i in range(n)]


def contains(rect: Rect, inner: Rect) -> bool:
    x, y, w, h = rect
    ix, iy, iw, ih = inner
    return ix >= x and iy >= y and ix + iw <= x + w and iy + ih <= y + h
