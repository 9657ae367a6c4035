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
from kiosk.ui.screens.base import Ctx, Pen, other
from kiosk.ui.theme import Color
from rulebook.sides import SIDES, Side
from rulebook.vocab import InputType

#: the delay bar moves in this many steps over the whole delay
DELAY_BAR_STEPS = 60


# -- top bar ---------------------------------------------------------------------------------------


def chip_rect(c: Ctx) -> tuple[int, int]:
    """The top bar's buttons: their y and height (a finger's width, off the screen's edge)."""
    lay = c.lay
    return lay.pad, lay.top - 2 * lay.pad


def top_bar(c: Ctx) -> None:
    """Each player's language and TD call at their corner, the table number (the TD menu) in the
    middle. While a player's call of the TD is open the whole bar turns amber: the TD sees it from
    across the room, and the caller can take the call back."""
    lay = c.lay
    calls = facts.td_calls(c.snap) if facts.has_match(c.snap) else {"A": False, "B": False}
    called = any(calls.values())
    bg = theme.AMBER if called else theme.TOPBAR
    for side in SIDES:
        _top_side(c, side, bg, calls[side])
    x, w = c.center_x(), lay.center
    pen = c.region("top.C", (x, 0, w, lay.top), bg)
    tr = c.tr()
    icon = lay.top * 2 // 5
    gy = (lay.top - icon) // 2
    pen.hub_mark((x + w - lay.pad - icon, gy, icon, icon), c.local.hub_online)
    table = tr("Table {table}").format(table=str(c.snap.get("table") or "–"))
    if called:
        label_x, label_w = x + lay.pad, w - 3 * lay.pad - icon
        pen.text(tr("TD called"), (label_x, 4, label_w, lay.top - 8), lay.f_label, theme.TEXT_DARK, wrap=True)
    else:
        pen.gear((x + lay.pad, gy, icon, icon), theme.TEXT_DIM, bg)
        label_x, label_w = x + 2 * lay.pad + icon, w - 4 * lay.pad - 2 * icon
        pen.text(table, (label_x, 4, label_w, lay.top - 8), lay.f_chip)
    y, h = chip_rect(c)
    pen.hit(
        (x + lay.pad // 2, y, w - lay.pad, h),
        [{"ui": "open", "overlay": "pin"}],
        keys.TD_MENU,
        grow=lay.pad // 2,
    )


def _top_side(c: Ctx, side: Side, bg: Color, called: bool) -> None:
    lay = c.lay
    x, w = c.side_x(side), lay.side_w
    pen = c.region(f"top.{side}", (x, 0, w, lay.top), bg)
    if not facts.has_match(c.snap):
        return
    tr = c.tr(side)
    where = keys.pos(c.is_left(side))
    y, chip_h = chip_rect(c)
    edge = lay.pad * 3 // 2  # from the screen's edge
    lang_w = lay.top * 6 // 5
    td_w = w - lang_w - edge - 2 * lay.pad
    left = c.is_left(side)
    lang_x = x + edge if left else x + w - edge - lang_w
    td_x = lang_x + lang_w + lay.pad if left else lang_x - lay.pad - td_w
    # language chip: globe + code
    lang_rect = (lang_x, y, lang_w, chip_h)
    pen.fill(lang_rect, theme.SECONDARY, lay.radius)
    g = chip_h * 9 // 20
    pen.globe((lang_x + lay.pad * 3 // 4, y + (chip_h - g) // 2, g, g), theme.TEXT)
    code = c.side_lang(side).upper()
    code_x = lang_x + lay.pad * 3 // 2 + g
    pen.text(code, (code_x, y, lang_x + lang_w - code_x - lay.pad // 2, chip_h), lay.f_chip)
    pen.hit(lang_rect, [{"ui": "open", "overlay": "lang", "side": side}], keys.LANG[where], grow=lay.pad // 2)
    # this player's call: make it, or take it back
    td_rect = (td_x, y, td_w, chip_h)
    b = chip_h // 2
    bell = (td_x + lay.pad, y + (chip_h - b) // 2, b, b)
    label_box = (td_x + lay.pad * 2 + b, y + 2, td_w - lay.pad * 5 // 2 - b, chip_h - 4)
    if called:
        usable = facts.may(c.snap, side, InputType.WITHDRAW_CALL)
        face, ink = (theme.TEXT_DARK, theme.AMBER) if usable else (theme.AMBER_MUTED, theme.AMBER_MUTED_TEXT)
        pen.fill(td_rect, face, lay.radius)
        pen.bell(bell, ink)
        pen.text(tr("Withdraw the call"), label_box, lay.f_chip, ink, wrap=True)
        if usable:
            intents = [{"input": InputType.WITHDRAW_CALL, "side": side}]
            pen.hit(td_rect, intents, keys.CALL_TD[where], grow=lay.pad // 2)
    elif facts.may(c.snap, side, InputType.CALL_TD):
        pen.fill(td_rect, theme.SECONDARY, lay.radius)
        pen.bell(bell, theme.TEXT)
        pen.text(tr("Call the TD"), label_box, lay.f_chip, theme.TEXT, wrap=True)
        intents = [{"input": InputType.CALL_TD, "side": side}]
        pen.hit(td_rect, intents, keys.CALL_TD[where], grow=lay.pad // 2)


# -- player panel rows -----------------------------------------------------------------------------


def rows(c: Ctx, side: Side) -> dict[str, Rect]:
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


def name_row(pen: Pen, c: Ctx, side: Side, color: Color = theme.TEXT) -> None:
    lay = c.lay
    x, y, w, h = rows(c, side)["name"]
    pen.text(c.name(side), (x + lay.pad * 2, y + 4, w - lay.pad * 4, h - 4), lay.f_name, color)


def head(c: Ctx, side: Side, bg: Color, name_fg: Color = theme.TEXT) -> Pen:
    """Name and score of one player. The score is never dimmed: whoever leads, both scores stay
    the easiest numbers on the screen to read (only a clock that is not running dims)."""
    lay = c.lay
    rect = rows(c, side)["head"]
    pen = c.region(f"{side}.head", rect, bg)
    name_row(pen, c, side, name_fg)
    x, y, w, _ = rect
    score = (c.snap.get("score") or {}).get(side, 0)
    pen.text(str(score), score_box(c, x, y + lay.name_h, w), lay.f_score, theme.TEXT)
    return pen


def score_box(c: Ctx, x: int, y: int, w: int) -> Rect:
    """Where a score-sized number is fitted: the cube's value uses the same box height, so it is
    drawn exactly as large as the scores."""
    return (x + c.lay.pad, y, w - 2 * c.lay.pad, c.lay.score_h)


def clock_row(
    c: Ctx,
    side: Side,
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
        # a word over the time, never bars beside it (they read as digits: "14:00II")
        label_h = h * 3 // 10
        pause_mark(pen, c, (x + lay.pad, y + lay.pad // 2, w - 2 * lay.pad, label_h), tr("Paused"))
        text_box = (x + lay.pad, y + label_h, w - 2 * lay.pad, h - label_h - lay.pad // 2)
    pen.text(clock_text(reserve), text_box, lay.f_clock, color)
    return pen


def pause_mark(pen: Pen, c: Ctx, rect: Rect, word: str) -> None:
    """A paused clock's mark: a pause sign in a ring, then the word, on one line in amber."""
    lay = c.lay
    x, y, w, h = rect
    ring = h * 4 // 5
    pen.circle((x + ring // 2, y + h // 2), ring // 2, theme.AMBER, max(2, ring // 10))
    bar_h = ring // 2
    pen.pause_icon((x + ring * 3 // 10, y + (h - bar_h) // 2, ring * 2 // 5, bar_h), theme.AMBER)
    pen.text(word, (x + ring + lay.pad, y, w - ring - lay.pad, h), lay.f_label, theme.AMBER, align="left")


def delay_row(c: Ctx, side: Side, bg: Color, *, running: bool) -> Pen:
    """The delay, shown apart from the reserve: label, seconds left, and a shrinking bar."""
    lay = c.lay
    rect = rows(c, side)["info"]
    pen = c.region(f"{side}.info", rect, bg)
    clock = c.snap.get("clock") or {}
    if not clock.get("enabled"):
        return pen
    delays = clock.get("delay_ms")
    left_ms = delays[side] if delays else 0
    full = max(delays["A"], delays["B"]) if delays else 0
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


def info_row(c: Ctx, side: Side, bg: Color) -> Pen:
    return c.region(f"{side}.info", rows(c, side)["info"], bg)


def bottom(c: Ctx, side: Side) -> Pen:
    return c.region(f"{side}.bot", rows(c, side)["bottom"], theme.BG)


def bottom_button_rect(c: Ctx, side: Side) -> Rect:
    return inset(rows(c, side)["bottom"], c.lay.pad)


# -- centre column ---------------------------------------------------------------------------------


def side_button(pen: Pen, c: Ctx, side: Side, label: str, intents: list[Intent], style: str) -> None:
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
    """The centre column's parts: match info, the cube, and the button stack."""
    lay = c.lay
    x, w = c.center_x(), lay.center
    y = lay.top
    info_h = lay.H * 20 // 100
    cube_h = lay.H * 26 // 100
    buttons_y = y + info_h + cube_h
    return {
        "info": (x, y, w, info_h),
        "cube": (x, y + info_h, w, cube_h),
        "buttons": (x, buttons_y, w, lay.H - buttons_y),
        "below_info": (x, y + info_h, w, lay.H - y - info_h),
    }


#: heights of the centre's buttons, in parts of the screen height (9 mm and more on both displays)
SMALL_BUTTON = 11
BIG_BUTTON = 15


def button_heights(c: Ctx) -> tuple[int, int]:
    return c.lay.H * SMALL_BUTTON // 100, c.lay.H * BIG_BUTTON // 100


def center_buttons(c: Ctx, area: Rect, n: int) -> list[Rect]:
    """``n`` buttons stacked at the bottom of ``area``: the last (the main one) is the tallest."""
    small, big = button_heights(c)
    room = area[3] - (n - 1) * (small + c.lay.pad)
    return stack_rects(area, [small] * (n - 1) + [min(big, room)], c.lay.pad)


def _info_rows(c: Ctx) -> tuple[int, int]:
    """Heights of the "Match to" label and of the length under it (the rest: the game's number)."""
    h = center_split(c)["info"][3]
    return h * 23 // 100, h * 56 // 100


def in_crawford_game(c: Ctx) -> bool:
    return bool(c.snap.get("crawford")) and facts.in_game(c.snap)


def match_info(c: Ctx) -> None:
    """ "Match to" over the length in large type, then the game's number (or post-Crawford).

    In the Crawford game the notice takes the game number's line too, to be larger."""
    lay = c.lay
    x, y, w, h = center_split(c)["info"]
    label_h, number_h = _info_rows(c)
    if in_crawford_game(c):
        h = label_h + number_h
    pen = c.region("C.info", (x, y, w, h), theme.BG)
    tr = c.tr()
    length = c.snap.get("length") or 0
    game = c.snap.get("game") or 0
    ix, iw = x + lay.pad, w - 2 * lay.pad
    pen.text(tr("Match to"), (ix, y, iw, label_h), lay.f_small, bold=False)
    pen.text(str(length), (ix, y + label_h, iw, number_h), lay.f_length)
    foot = (ix, y + label_h + number_h, iw, h - label_h - number_h)
    if in_crawford_game(c):
        return
    if c.snap.get("post_crawford") and facts.in_game(c.snap):
        pen.text(tr("Post-Crawford"), foot, lay.f_small, theme.TEXT_DIM, bold=False)
    elif game and facts.in_game(c.snap):
        pen.text(tr("Game {number}").format(number=game), foot, lay.f_small, theme.TEXT_DIM, bold=False)


def crawford_badge(pen: Pen, c: Ctx, rect: Rect, text: str) -> None:
    """The Crawford notice: black on amber in a heavy frame — meant to be unmistakable."""
    lay = c.lay
    box = inset(rect, lay.pad // 2)
    pen.fill(box, theme.AMBER, lay.radius)
    pen.frame(inset(box, 3), theme.TEXT_DARK, 3, lay.radius)
    pen.text(text, inset(box, lay.pad * 3 // 4 + 1), lay.f_badge, theme.TEXT_DARK, wrap=True)


def badge_and_cube(c: Ctx) -> None:
    """During play: the cube, or — in the Crawford game — a large CRAWFORD GAME badge in its place."""
    lay = c.lay
    split = center_split(c)
    tr = c.tr()
    if in_crawford_game(c):
        x, y, w, h = split["cube"]
        label_h, number_h = _info_rows(c)
        top = split["info"][1] + label_h + number_h
        y, h = top, y + h - top
        pen = c.region("C.crawford", (x, y, w, h), theme.BG)
        note_h = lay.f_small * 5 // 4
        crawford_badge(pen, c, (x, y, w, h - note_h), tr("CRAWFORD GAME"))
        pen.text(
            tr("No doubling"),
            (x + lay.pad, y + h - note_h, w - 2 * lay.pad, note_h),
            lay.f_small,
            theme.TEXT_DIM,
            bold=False,
        )
        return
    cube_view(c)


def cube_view(c: Ctx) -> None:
    """The cube: its value as large as the scores, and where it is (centre, or an arrow to its
    owner with the owner's name)."""
    lay = c.lay
    rect = center_split(c)["cube"]
    pen = c.region("C.cube", rect, theme.BG)
    tr = c.tr()
    x, y, w, h = rect
    cb = facts.cube(c.snap)
    owner, offered = cb.get("owner"), cb.get("offered_by")
    value = int(cb.get("value") or 1)
    shown = facts.offered_value(c.snap) if offered else value
    digits = len(str(shown))
    face_h = lay.score_h * 7 // 8
    face_w = max(face_h, digits * lay.f_score * 7 // 10 + 2 * lay.pad)
    box = score_box(c, x, y, w)
    widest = w - 2 * lay.pad
    if face_w > widest:
        # a cube past what the face holds at the scores' size (FFBG: no limit to redoubles): the
        # face takes the column's width and the value shrinks to fit it, never beyond the face
        face_w = widest
    face = (x + (w - face_w) // 2, box[1] + (lay.score_h - face_h) // 2, face_w, face_h)
    pen.fill(face, theme.DIE_FACE, lay.radius)
    if offered:
        pen.frame(inset(face, -3), theme.AMBER, 4, lay.radius)
    text_box = box if face_w < widest else inset(face, lay.pad // 2)
    pen.text(str(shown), text_box, lay.f_score, theme.TEXT_DARK)
    holder = owner if not offered else other(offered)
    arrow_w = min(lay.pad * 4, (w - face_w) // 2 - 2 * lay.pad)
    if holder is not None and arrow_w > 8:
        towards_left = c.is_left(holder)
        ax = face[0] - lay.pad - arrow_w if towards_left else face[0] + face_w + lay.pad
        pen.arrow(
            (ax, face[1] + face_h * 3 // 10, arrow_w, face_h * 2 // 5),
            "left" if towards_left else "right",
            theme.TEXT,
        )
    label_y = box[1] + lay.score_h
    label_box = (x + lay.pad // 2, label_y, w - lay.pad, y + h - label_y)
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
