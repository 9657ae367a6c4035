"""The building blocks every screen uses: the build context, a pen per region, icons and buttons.

Screens are written in the coordinates of their :class:`~kiosk.ui.layout.Layout`; the pen scales
them to the surface. Each player's half of the screen speaks that player's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui import theme
from kiosk.ui.i18n import Translator, translator
from kiosk.ui.layout import Geo, Layout, Point, Rect, inset
from kiosk.ui.local import LocalState
from kiosk.ui.scene import Circle, Fill, Frame, Hit, Intent, Line, Poly, Qr, Region, Scene, Text
from kiosk.ui.theme import Color
from rulebook.sides import Side


def other(side: Side) -> Side:
    return "B" if side == "A" else "A"


@dataclass
class Ctx:
    """Everything a screen builder needs: the snapshot, local state, time, geometry, languages."""

    snap: ScreenSnapshot
    local: LocalState
    now: int
    lay: Layout
    geo: Geo
    lang: str
    flip: bool
    scene: Scene = field(default_factory=Scene)
    #: a dialog is open: only touch areas of overlay regions are live
    modal: bool = False
    _keys: set[str] = field(default_factory=set)

    # -- sides and languages ---------------------------------------------------------------------

    @property
    def left(self) -> Side:
        return "B" if self.flip else "A"

    def is_left(self, side: Side) -> bool:
        return side == self.left

    def side_x(self, side: Side) -> int:
        return 0 if self.is_left(side) else self.lay.W - self.lay.side_w

    def side_lang(self, side: Side | None) -> str:
        if side is None:
            return self.lang
        return self.local.langs.get(side) or self.lang

    def tr(self, side: Side | None = None) -> Translator:
        return translator(self.side_lang(side))

    def name(self, side: Side) -> str:
        players = self.snap.get("players") or {}
        name = (players.get(side) or {}).get("name") or ""
        return name or side

    # -- common rectangles ------------------------------------------------------------------------

    def center_x(self) -> int:
        return self.lay.side_w

    def content_rect(self) -> Rect:
        """Everything below the top bar (full-screen dialogs)."""
        return (0, self.lay.top, self.lay.W, self.lay.H - self.lay.top)

    def side_rect(self, side: Side) -> Rect:
        """A player's half below the top bar, down to the bottom (side dialogs)."""
        return (self.side_x(side), self.lay.top, self.lay.side_w, self.lay.H - self.lay.top)

    def center_rect(self) -> Rect:
        return (self.lay.side_w, self.lay.top, self.lay.center, self.lay.H - self.lay.top)

    def bottom_rect(self, side: Side) -> Rect:
        return (self.side_x(side), self.lay.H - self.lay.bottom, self.lay.side_w, self.lay.bottom)

    # -- regions ------------------------------------------------------------------------------------

    def region(self, key: str, rect: Rect, bg: Color | None = theme.BG, overlay: bool = False) -> Pen:
        """A new region; keys are unique on a screen (the renderer tells frames apart by them)."""
        if key in self._keys:
            raise ValueError(f"region {key!r} drawn twice on one screen")
        self._keys.add(key)
        region = Region(key, self.geo.r(rect), bg, [], overlay)
        self.scene.regions.append(region)
        return Pen(self, region)


class Pen:
    """Adds items to one region, in layout coordinates."""

    def __init__(self, ctx: Ctx, region: Region):
        self.ctx = ctx
        self.region = region
        self.geo = ctx.geo
        self.lay = ctx.lay

    # -- primitives -------------------------------------------------------------------------------

    def fill(self, rect: Rect, color: Color, radius: int = 0) -> None:
        self.region.items.append(Fill(self.geo.r(rect), color, self.geo.n(radius) if radius else 0))

    def frame(self, rect: Rect, color: Color, width: int, radius: int = 0) -> None:
        self.region.items.append(
            Frame(self.geo.r(rect), color, self.geo.n(width), self.geo.n(radius) if radius else 0)
        )

    def poly(self, points: list[Point], color: Color, width: int = 0) -> None:
        pts = tuple(self.geo.p(p) for p in points)
        self.region.items.append(Poly(pts, color, self.geo.n(width) if width else 0))

    def circle(self, center: Point, radius: int, color: Color, width: int = 0) -> None:
        self.region.items.append(
            Circle(self.geo.p(center), self.geo.n(radius), color, self.geo.n(width) if width else 0)
        )

    def line(self, start: Point, end: Point, color: Color, width: int = 1) -> None:
        self.region.items.append(Line(self.geo.p(start), self.geo.p(end), color, self.geo.n(width)))

    def text(
        self,
        text: str,
        rect: Rect,
        size: int,
        color: Color = theme.TEXT,
        *,
        bold: bool = True,
        align: str = "center",
        wrap: bool = False,
        min_size: int = 0,
    ) -> None:
        if text:
            item = Text(
                text,
                self.geo.r(rect),
                self.geo.n(size),
                color,
                bold,
                align,
                wrap,
                self.geo.n(min_size) if min_size else 0,
            )
            self.region.items.append(item)

    def hit(self, rect: Rect, intents: list[Intent], keys: tuple[int, ...] = (), grow: int = 0) -> None:
        """A touch area (``grow`` enlarges it beyond what is drawn, for fingers)."""
        if self.ctx.modal and not self.region.overlay:
            return
        x, y, w, h = rect
        area = (x - grow, y - grow, w + 2 * grow, h + 2 * grow)
        self.ctx.scene.hits.append(Hit(self.geo.r(area), tuple(intents), keys, self.geo.r(rect)))

    # -- widgets -----------------------------------------------------------------------------------

    def button(
        self,
        rect: Rect,
        label: str,
        intents: list[Intent],
        *,
        keys: tuple[int, ...] = (),
        style: str = "primary",
        size: int | None = None,
        sublabel: str = "",
    ) -> None:
        """A rounded button with a label (and an optional second line), touchable over its area."""
        bg, fg = theme.STYLES[style]
        self.fill(rect, bg, self.lay.radius)
        inner = inset(rect, self.lay.pad)
        fsize = size or self.lay.f_button
        if sublabel:
            x, y, w, h = inner
            top_h = min(h * 3 // 5, fsize * 5 // 2)
            sub_h = min(h - top_h, self.lay.f_small * 5 // 2)
            y += (h - top_h - sub_h) // 2
            self.text(label, (x, y, w, top_h), fsize, fg, wrap=True)
            self.text(
                sublabel,
                (x, y + top_h, w, sub_h),
                self.lay.f_small,
                fg,
                bold=False,
                wrap=True,
                min_size=self.lay.f_small * 3 // 4,
            )
        else:
            self.text(label, inner, fsize, fg, wrap=True)
        self.hit(rect, intents, keys, grow=self.lay.pad // 2)

    def qr(self, rect: Rect, text: str) -> None:
        """``text`` as a QR code, square, centred in ``rect`` (whole pixels per module)."""
        self.region.items.append(Qr(text, self.geo.r(rect)))

    def note(self, rect: Rect, text: str, color: Color = theme.TEXT, size: int | None = None) -> None:
        self.text(text, rect, size or self.lay.f_label, color, bold=False, wrap=True)

    # -- icons (shapes, so that no state relies on colour alone) ---------------------------------

    def arrow(self, rect: Rect, pointing: str, color: Color) -> None:
        """A solid triangle pointing ``left``, ``right``, ``up`` or ``down`` inside ``rect``."""
        x, y, w, h = rect
        if pointing == "right":
            pts = [(x, y), (x + w, y + h // 2), (x, y + h)]
        elif pointing == "left":
            pts = [(x + w, y), (x, y + h // 2), (x + w, y + h)]
        elif pointing == "down":
            pts = [(x, y), (x + w, y), (x + w // 2, y + h)]
        else:
            pts = [(x, y + h), (x + w, y + h), (x + w // 2, y)]
        self.poly(pts, color)

    def check(self, rect: Rect, color: Color, width: int = 5) -> None:
        x, y, w, h = rect
        self.line((x, y + h * 55 // 100), (x + w * 38 // 100, y + h), color, width)
        self.line((x + w * 38 // 100, y + h), (x + w, y), color, width)

    def cross(self, rect: Rect, color: Color, width: int = 4) -> None:
        x, y, w, h = rect
        self.line((x, y), (x + w, y + h), color, width)
        self.line((x + w, y), (x, y + h), color, width)

    def flag(self, rect: Rect, color: Color) -> None:
        """A flag on a pole (time expired)."""
        x, y, w, h = rect
        pole = max(2, w // 10)
        self.fill((x, y, pole, h), color)
        self.poly([(x + pole, y), (x + w, y + h // 5), (x + pole, y + h * 2 // 5)], color)

    def star(self, rect: Rect, color: Color) -> None:
        import math

        x, y, w, h = rect
        cx, cy, r = x + w / 2, y + h / 2, min(w, h) / 2
        pts = []
        for i in range(10):
            rad = r if i % 2 == 0 else r * 0.45
            ang = -math.pi / 2 + i * math.pi / 5
            pts.append((round(cx + rad * math.cos(ang)), round(cy + rad * math.sin(ang))))
        self.poly(pts, color)

    def pause_icon(self, rect: Rect, color: Color) -> None:
        x, y, w, h = rect
        bar = w // 3
        self.fill((x, y, bar, h), color)
        self.fill((x + w - bar, y, bar, h), color)

    def bell(self, rect: Rect, color: Color) -> None:
        x, y, w, h = rect
        self.poly(
            [
                (x + w // 2, y),
                (x + w * 3 // 4, y + h // 5),
                (x + w * 4 // 5, y + h * 3 // 4),
                (x + w, y + h * 17 // 20),
                (x, y + h * 17 // 20),
                (x + w // 5, y + h * 3 // 4),
                (x + w // 4, y + h // 5),
            ],
            color,
        )
        self.circle((x + w // 2, y + h * 9 // 10), max(2, w // 8), color)

    def globe(self, rect: Rect, color: Color) -> None:
        x, y, w, h = rect
        r = min(w, h) // 2
        cx, cy = x + w // 2, y + h // 2
        self.circle((cx, cy), r, color, 2)
        self.line((cx - r, cy), (cx + r, cy), color, 2)
        self.line((cx, cy - r), (cx, cy + r), color, 2)
        self.region.items.append(
            Frame(self.geo.r((cx - r // 2, cy - r, r, 2 * r)), color, self.geo.n(2), self.geo.n(r))
        )

    def gear(self, rect: Rect, color: Color, bg: Color) -> None:
        x, y, w, h = rect
        r = min(w, h) // 2
        cx, cy = x + w // 2, y + h // 2
        tooth = max(3, r // 3)
        for dx, dy in ((0, -1), (0, 1), (-1, 0), (1, 0), (-0.7, -0.7), (0.7, 0.7), (-0.7, 0.7), (0.7, -0.7)):
            tx, ty = round(cx + dx * (r - tooth // 2)), round(cy + dy * (r - tooth // 2))
            self.fill((tx - tooth // 2, ty - tooth // 2, tooth, tooth), color)
        self.circle((cx, cy), r - tooth // 2, color)
        self.circle((cx, cy), max(2, r // 3), bg)

    def hub_mark(self, rect: Rect, online: bool) -> None:
        """Online: a solid disc. Offline: an open ring with a cross through it."""
        x, y, w, h = rect
        r = min(w, h) // 2
        center = (x + w // 2, y + h // 2)
        if online:
            self.circle(center, r, theme.GOOD)
        else:
            self.circle(center, r, theme.FLAG, 3)
            d = r * 7 // 10
            self.cross((center[0] - d, center[1] - d, 2 * d, 2 * d), theme.FLAG, 3)

    def die(self, rect: Rect, value: int, picked: bool) -> None:
        """A die face; the picked one is inverted and framed (not colour alone)."""
        face = theme.DIE_PICKED if picked else theme.DIE_FACE
        pip = theme.TEXT if picked else theme.DIE_PIP
        x, y, w, h = rect
        self.fill(rect, face, self.lay.radius)
        if picked:
            self.frame(rect, theme.AMBER, 5, self.lay.radius)
        r = max(3, w // 11)
        lo, mid, hi = w // 4, w // 2, w * 3 // 4
        spots = {
            1: [(mid, mid)],
            2: [(lo, lo), (hi, hi)],
            3: [(lo, lo), (mid, mid), (hi, hi)],
            4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
            5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
            6: [(lo, lo), (hi, lo), (lo, mid), (hi, mid), (lo, hi), (hi, hi)],
        }[value]
        for sx, sy in spots:
            self.circle((x + sx, y + sy * h // w), r, pip)
