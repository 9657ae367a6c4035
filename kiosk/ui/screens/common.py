"""Parts shared by several screens: top bar, player panels (name, score, clock, delay), centre.

A player panel is stacked rows — name, score, clock, a status row — above the action bar; each
row is its own region so a running clock repaints only its own rectangle.
"""

from __future__ import annotations

from kiosk.ui import facts, keys, theme
from kiosk.ui.fmt import clock_text, delay_seconds
from kiosk.ui.i18n import LANGUAGES
from kiosk.ui.layout import Rect, inset
from kiosk.ui.scene import Intent
from kiosk.ui.screens.base import SIDES, Ctx, Pen, other
from kiosk.ui.theme import Color

#: the delay bar moves in this many steps over the whole delay
DELAY_BAR_STEPS = 60


# -- top bar ---------------------------------------------------------------------------------------


def top_bar(c: Ctx) -> None:
    lay = c.lay
    for side in SIDES:
        _top_side(c, side)
    x, w = c.center_x(), lay.center
    pen = c.region("top.C", (x, 0, w, lay.top), theme.TOPBAR)
    tr = c.tr()
    icon = lay.top * 2 // 5
    gy = (lay.top - icon) // 2
    pen.gear((x + lay.pad, gy, icon, icon), theme.TEXT_DIM, theme.TOPBAR)
    pen.hub_mark((x + w - lay.pad - icon, gy, icon, icon), c.local.hub_online)
    label_x = x + 2 * lay.pad + icon
    label_w = w - 4 * lay.pad - 2 * icon
    table = str(c.snap.get("table") or "–")
    pen.text(tr("Table {table}").format(table=table), (label_x, 4, label_w, lay.top - 8), lay.f_chip)
    pen.hit((x, 0, w, lay.top), [{"ui": "open", "overlay": "pin"}], keys.TD_MENU)


def _top_side(c: Ctx, side: str) -> None:
    lay = c.lay
    x, w = c.side_x(side), lay.side_w
    pen = c.region(f"top.{side}", (x, 0, w, lay.top), theme.TOPBAR)
    if not facts.has_match(c.snap):
        return
    tr = c.tr(side)
    where = keys.pos(c.is_left(side))
    chip_h = lay.top - 2 * (lay.pad - 2)
    y = lay.pad - 2
    lang_w = lay.top * 6 // 5
    td_w = w - lang_w - 4 * lay.pad
    left = c.is_left(side)
    lang_x = x + lay.pad if left else x + w - lay.pad - lang_w
    td_x = lang_x + lang_w + lay.pad if left else lang_x - lay.pad - td_w
    # language chip: globe + code
    lang_rect = (lang_x, y, lang_w, chip_h)
    pen.fill(lang_rect, theme.SECONDARY, lay.radius)
    g = chip_h * 9 // 20
    pen.globe((lang_x + lay.pad * 3 // 4, y + (chip_h - g) // 2, g, g), theme.TEXT)
    code = c.side_lang(side).upper()
    code_x = lang_x + lay.pad * 3 // 2 + g
    pen.text(code, (code_x, y, lang_x + lang_w - code_x - lay.pad // 2, chip_h), lay.f_chip)
    pen.hit(lang_rect, [{"ui": "open", "overlay": "lang", "side": side}], keys.LANG[where], grow=2)
    # call-the-TD chip, or the indicator that the TD was called
    td_rect = (td_x, y, td_w, chip_h)
    called = c.snap.get("td_call")
    b = chip_h // 2
    bell = (td_x + lay.pad, y + (chip_h - b) // 2, b, b)
    label_box = (td_x + lay.pad * 2 + b, y + 2, td_w - lay.pad * 5 // 2 - b, chip_h - 4)
    if called == side:
        pen.fill(td_rect, theme.AMBER, lay.radius)
        pen.bell(bell, theme.TEXT_DARK)
        pen.text(tr("TD called"), label_box, lay.f_chip, theme.TEXT_DARK, wrap=True)
    else:
        pen.fill(td_rect, theme.SECONDARY, lay.radius)
        pen.bell(bell, theme.TEXT)
        pen.text(tr("Call the TD"), label_box, lay.f_chip, theme.TEXT, wrap=True)
        pen.hit(td_rect, [{"input": "call_td", "side": side}], keys.CALL_TD[where], grow=2)


# -- player panel rows -----------------------------------------------------------------------------


def rows(c: Ctx, side: str) -> dict[str, Rect]:
    """The rectangles of a player panel's rows: head (name + score), clock, info, bottom."""
    lay = c.lay
    x, w = c.side_x(side), lay.side_w
    y0 = lay.top
    return {
        "name": (x, y0, w, lay.name_h),
        "head": (x, y0, w, lay.name_h + lay.score_h),
        "clock": (x, y0 + lay.name_h + lay.score_h, w, lay.clock_h),
        "info": (x, y0 + lay.name_h + lay.score_h + lay.clock_h, w, lay.delay_h),
        "body": (x, y0 + lay.name_h, w, lay.content_h - lay.name_h),
        "below_name": (x, y0 + lay.name_h, w, lay.H - y0 - lay.name_h),
        "bottom": c.bottom_rect(side),
    }


def name_row(pen: Pen, c: Ctx, side: str, color: Color = theme.TEXT) -> None:
    lay = c.lay
    x, y, w, h = rows(c, side)["name"]
    pen.text(c.name(side), (x + lay.pad * 2, y + 4, w - lay.pad * 4, h - 4), lay.f_name, color)


def head(c: Ctx, side: str, bg: Color, fg: Color = theme.TEXT, *, score_size: int | None = None) -> Pen:
    """Name and score of one player."""
    lay = c.lay
    rect = rows(c, side)["head"]
    pen = c.region(f"{side}.head", rect, bg)
    name_row(pen, c, side, fg)
    x, y, w, _ = rect
    score = (c.snap.get("score") or {}).get(side, 0)
    pen.text(
        str(score), (x + lay.pad, y + lay.name_h, w - 2 * lay.pad, lay.score_h), score_size or lay.f_score, fg
    )
    return pen


def clock_row(
    c: Ctx,
    side: str,
    bg: Color,
    *,
    running: bool = False,
    paused: bool = False,
    flagged: bool = False,
) -> Pen:
    """The reserve of one player; the running one is framed and pointed at, not only brighter."""
    lay = c.lay
    rect = rows(c, side)["clock"]
    pen = c.region(f"{side}.clock", rect, bg)
    clock = c.snap.get("clock") or {}
    x, y, w, h = rect
    tr = c.tr(side)
    if not clock.get("enabled"):
        pen.text(tr("No clock"), inset(rect, lay.pad * 2), lay.f_label, theme.TEXT_DIM, bold=False)
        return pen
    reserve = int((clock.get("reserve_ms") or {}).get(side, 0))
    mark = h * 3 // 10
    left = c.is_left(side)
    zone = 3 * lay.pad + mark * 3 // 4  # the marker's strip on the outer edge
    text_x = x + zone if left else x + lay.pad
    text_box = (text_x, y + lay.pad, w - zone - lay.pad, h - 2 * lay.pad)
    color = theme.TEXT if running else theme.TEXT_DIM
    if running and reserve < 20_000:
        color = theme.LOW_TIME
    if flagged:
        color = theme.FLAG
    mx = x + lay.pad if left else x + w - lay.pad - mark
    my = y + (h - mark) // 2
    if running:
        pen.frame(inset(rect, lay.pad // 2), theme.MARKER, 4, lay.radius)
        pen.arrow((mx, my, mark * 3 // 4, mark), "right" if left else "left", theme.MARKER)
    elif flagged:
        pen.flag((mx, my - mark // 4, mark * 3 // 4, mark * 3 // 2), theme.FLAG)
    elif paused:
        pen.pause_icon((mx, my, mark * 3 // 4, mark), theme.TEXT_DIM)
    pen.text(clock_text(reserve), text_box, lay.f_clock, color)
    return pen


def delay_row(c: Ctx, side: str, bg: Color, *, running: bool) -> Pen:
    """The delay, shown apart from the reserve: label, seconds left, and a shrinking bar."""
    lay = c.lay
    rect = rows(c, side)["info"]
    pen = c.region(f"{side}.info", rect, bg)
    clock = c.snap.get("clock") or {}
    if not clock.get("enabled"):
        return pen
    delays = clock.get("delay_ms") or {}
    left_ms = int(delays.get(side, 0))
    full = max(int(v or 0) for v in delays.values()) if delays else 0
    if full <= 0:
        return pen
    x, y, w, h = rect
    tr = c.tr(side)
    bar_h = max(4, h // 9)
    text_h = h - bar_h - lay.pad * 2
    color = theme.TEXT if running else theme.TEXT_DIM
    label_w = (w - 4 * lay.pad) * 3 // 5
    pen.text(
        tr("Delay"),
        (x + 2 * lay.pad, y + 2, label_w, text_h),
        lay.f_label,
        color,
        bold=False,
        align="left",
        wrap=True,
    )
    value_box = (x + 3 * lay.pad + label_w, y + 2, w - 5 * lay.pad - label_w, text_h)
    pen.text(str(delay_seconds(left_ms)), value_box, lay.f_delay, color, align="right")
    bar = (x + 2 * lay.pad, y + h - bar_h - lay.pad, w - 4 * lay.pad, bar_h)
    pen.fill(bar, theme.LINE, bar_h // 2)
    if running and left_ms > 0:
        steps = DELAY_BAR_STEPS
        filled = bar[2] * (left_ms * steps // full) // steps
        if filled > 0:
            pen.fill((bar[0], bar[1], filled, bar_h), theme.TEXT, bar_h // 2)
    return pen


def info_row(c: Ctx, side: str, bg: Color) -> Pen:
    return c.region(f"{side}.info", rows(c, side)["info"], bg)


def bottom(c: Ctx, side: str) -> Pen:
    return c.region(f"{side}.bot", rows(c, side)["bottom"], theme.BG)


def bottom_button_rect(c: Ctx, side: str) -> Rect:
    return inset(rows(c, side)["bottom"], c.lay.pad)


# -- centre column ---------------------------------------------------------------------------------


def side_button(pen: Pen, c: Ctx, side: str, label: str, intents: list[Intent], style: str) -> None:
    """The main button at the bottom of a player's half, also reachable by that player's own key."""
    pen.button(
        bottom_button_rect(c, side),
        label,
        intents,
        keys=keys.MAIN[keys.pos(c.is_left(side))],
        style=style,
    )


def undo_button(pen: Pen, c: Ctx, rect: Rect, size: int) -> None:
    """The centre "Undo" button, which opens the undo dialog (same on every screen that offers it)."""
    tr = c.tr()
    pen.button(
        rect,
        tr("Undo"),
        [{"ui": "open", "overlay": "undo"}],
        keys=keys.UNDO,
        style="secondary",
        size=size,
    )


def center_split(c: Ctx) -> dict[str, Rect]:
    """The centre column's parts: match info, badge, cube, and the button stack."""
    lay = c.lay
    x, w = c.center_x(), lay.center
    y = lay.top
    info_h = lay.H * 10 // 100
    badge_h = lay.H * 16 // 100
    cube_h = lay.H * 20 // 100
    buttons_y = y + info_h + badge_h + cube_h
    return {
        "info": (x, y, w, info_h),
        "badge": (x, y + info_h, w, badge_h),
        "cube": (x, y + info_h + badge_h, w, cube_h),
        "buttons": (x, buttons_y, w, lay.H - buttons_y),
        "below_info": (x, y + info_h, w, lay.H - y - info_h),
    }


def match_info(c: Ctx) -> None:
    lay = c.lay
    rect = center_split(c)["info"]
    pen = c.region("C.info", rect, theme.BG)
    tr = c.tr()
    x, y, w, h = rect
    length = c.snap.get("length") or 0
    game = c.snap.get("game") or 0
    half = h // 2
    pen.text(
        tr("Match to {length}").format(length=length),
        (x + lay.pad, y + 2, w - 2 * lay.pad, half),
        lay.f_label,
    )
    if game and facts.in_game(c.snap):
        pen.text(
            tr("Game {number}").format(number=game),
            (x + lay.pad, y + half, w - 2 * lay.pad, h - half - 2),
            lay.f_small,
            theme.TEXT_DIM,
            bold=False,
        )


def crawford_badge(pen: Pen, c: Ctx, rect: Rect, text: str) -> None:
    """The Crawford notice: black on amber in a heavy frame — meant to be unmistakable."""
    lay = c.lay
    box = inset(rect, lay.pad)
    pen.fill(box, theme.AMBER, lay.radius)
    pen.frame(inset(box, 3), theme.TEXT_DARK, 3, lay.radius)
    pen.text(text, inset(box, lay.pad + 2), lay.f_badge, theme.TEXT_DARK, wrap=True)


def badge_and_cube(c: Ctx) -> None:
    """During play: the cube, or — in the Crawford game — a large CRAWFORD GAME badge in its place."""
    lay = c.lay
    split = center_split(c)
    tr = c.tr()
    if c.snap.get("crawford") and facts.in_game(c.snap):
        x, y, w, h = split["badge"]
        total = h + split["cube"][3]
        pen = c.region("C.crawford", (x, y, w, total), theme.BG)
        badge_h = total * 13 // 20
        crawford_badge(pen, c, (x, y, w, badge_h), tr("CRAWFORD GAME"))
        row = (x + lay.pad, y + badge_h + lay.pad, w - 2 * lay.pad, total - badge_h - 2 * lay.pad)
        icon = min(row[3], w // 5)
        box = (row[0] + lay.pad, row[1] + (row[3] - icon) // 2, icon, icon)
        pen.frame(box, theme.TEXT_DIM, 2, lay.radius // 3)
        pen.cross(inset(box, icon // 5), theme.TEXT_DIM, 2)
        text_x = box[0] + icon + lay.pad
        pen.text(
            tr("No doubling"),
            (text_x, row[1], row[0] + row[2] - text_x, row[3]),
            lay.f_small,
            theme.TEXT_DIM,
            bold=False,
            wrap=True,
        )
        return
    pen = c.region("C.badge", split["badge"], theme.BG)
    if c.snap.get("post_crawford"):
        pen.text(
            tr("Post-Crawford"), inset(split["badge"], lay.pad * 2), lay.f_small, theme.TEXT_DIM, bold=False
        )
    cube_view(c)


def cube_view(c: Ctx) -> None:
    """The cube: its value and where it is (centre, or an arrow to its owner with the owner's name)."""
    lay = c.lay
    rect = center_split(c)["cube"]
    pen = c.region("C.cube", rect, theme.BG)
    tr = c.tr()
    x, y, w, h = rect
    cb = facts.cube(c.snap)
    size = h // 2
    label_h = h - size - lay.pad
    cx = x + (w - size) // 2
    owner, offered = cb.get("owner"), cb.get("offered_by")
    value = int(cb.get("value") or 1)
    box = (cx, y + lay.pad // 2, size, size)
    shown = facts.offered_value(c.snap) if offered else value
    pen.fill(box, theme.DIE_FACE, lay.radius // 2)
    if offered:
        pen.frame(inset(box, -3), theme.AMBER, 4, lay.radius // 2)
    pen.text(str(shown), inset(box, lay.pad // 2), lay.f_title, theme.TEXT_DARK)
    holder = owner if not offered else other(offered)
    arrow_w = (w - size) // 2 - 2 * lay.pad
    if holder is not None and arrow_w > 8:
        towards_left = c.is_left(holder)
        ax = x + lay.pad if towards_left else cx + size + lay.pad
        pen.arrow(
            (ax, y + size // 2 - size // 5, arrow_w, size * 2 // 5),
            "left" if towards_left else "right",
            theme.TEXT,
        )
    label_box = (x + lay.pad // 2, y + size + lay.pad, w - lay.pad, label_h)
    if offered:
        text = tr("{name} doubles").format(name=c.name(offered))
    elif owner:
        text = tr("Owner: {name}").format(name=c.name(owner))
    else:
        text = tr("Cube in the middle")
    pen.text(text, label_box, lay.f_small, theme.TEXT, bold=False, wrap=True)


def center_stack(c: Ctx, key: str = "C.buttons") -> tuple[Pen, Rect]:
    rect = center_split(c)["buttons"]
    return c.region(key, rect, theme.BG), inset(rect, c.lay.pad)


def stack_rects(area: Rect, heights: list[int], gap: int) -> list[Rect]:
    """Rects of the given heights stacked from the bottom of ``area`` upwards (last = lowest)."""
    x, y, w, h = area
    out: list[Rect] = []
    bottom_y = y + h
    for hh in reversed(heights):
        out.append((x, bottom_y - hh, w, hh))
        bottom_y -= hh + gap
    return list(reversed(out))


def language_name(code: str) -> str:
    return LANGUAGES.get(code, code)
