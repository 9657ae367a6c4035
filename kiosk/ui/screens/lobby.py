"""Screens before play: no match assigned, waiting for the players, and the opening roll."""

from __future__ import annotations

from kiosk.ui import facts, keys, theme
from kiosk.ui.fmt import countdown_text, elapsed_text, wall_clock
from kiosk.ui.i18n import translator
from kiosk.ui.layout import Rect, inset
from kiosk.ui.local import MSG_TIE
from kiosk.ui.scene import Intent
from kiosk.ui.screens import common, next_line
from kiosk.ui.screens.base import Ctx, Pen
from kiosk.ui.theme import Color
from rulebook.policy import Lateness
from rulebook.sides import SIDES, Side
from rulebook.vocab import InputType


def idle(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    rect = (0, lay.top, lay.W, lay.H - lay.top)
    pen = c.region("idle", rect, theme.BG)
    x, y, w, h = rect
    table = str(c.snap.get("table") or "–")
    pen.text(
        tr("Table {table}").format(table=table),
        (x + lay.pad, y + h // 10, w - 2 * lay.pad, h * 3 // 10),
        lay.f_huge * 2 // 3,
    )
    pen.text(tr("No match assigned"), (x + lay.pad, y + h * 45 // 100, w - 2 * lay.pad, h // 6), lay.f_title)
    pen.note(
        (x + w // 8, y + h * 65 // 100, w * 3 // 4, h // 5),
        tr("The tournament director assigns the next match to this table."),
        theme.TEXT_DIM,
    )


# -- waiting for the players -----------------------------------------------------------------------


def waiting(c: Ctx) -> None:
    for side in SIDES:
        _waiting_side(c, side)
    _waiting_center(c)


def _waiting_side(c: Ctx, side: Side) -> None:
    lay = c.lay
    tr = c.tr(side)
    present = bool((c.snap.get("present") or {}).get(side))
    bg = theme.PANEL_ACTIVE if present else theme.PANEL
    r = common.rows(c, side)
    pen = c.region(f"{side}.name", r["name"], bg)
    common.name_row(pen, c, side)
    body = r["body"]
    page = (c.local.pages.get(str(c.snap.get("match_id"))) or {}).get(side)
    if page is not None:
        body = _page(c, side, body, bg, page)
    carried = _carried_line(c, side)
    if carried is not None:
        bx, by, bw, bh = body
        strip_h = bh * 2 // 5
        body = (bx, by, bw, bh - strip_h)
        strip = (bx, by + bh - strip_h, bw, strip_h)
        pen = c.region(f"{side}.prev", strip, theme.BG)
        # the previous match's player's line, in his language, on the half he sat at
        pen.note(inset(strip, lay.pad), carried, theme.AMBER, size=lay.f_label)
    pen = c.region(f"{side}.status", body, bg)
    x, y, w, h = body
    if present:
        mark = h // 3
        pen.check((x + (w - mark) // 2, y + h // 8, mark, mark * 3 // 4), theme.GOOD, 8)
        pen.text(tr("Checked in"), (x + lay.pad, y + h // 8 + mark, w - 2 * lay.pad, h // 4), lay.f_title)
    else:
        late = facts.lateness_of(c.snap, side, c.now)
        if late is None:
            pen.note(
                inset(body, lay.pad * 2),
                tr("Touch “Check in” when you are at the table."),
                theme.TEXT_DIM,
            )
        else:
            _lateness(pen, c, side, body, late)
    pen = common.bottom(c, side)
    if facts.may(c.snap, side, InputType.CHECKIN):
        intents = [{"input": InputType.CHECKIN, "side": side}]
        common.side_button(pen, c, side, tr("Check in"), intents, "good")


def _page(c: Ctx, side: Side, body: Rect, bg: Color, page: str) -> Rect:
    """The player's page (the draw's: docs/draw.md) as a QR code with its address under it, at
    the outer edge of his half's body, small beside what he has to do; returns the body left."""
    lay = c.lay
    bx, by, bw, bh = body
    text_h = lay.f_small * 5 // 2
    side_px = max(0, min(bh - text_h - 2 * lay.pad, bw * 2 // 5, lay.H // 4))
    col_w = side_px + 2 * lay.pad
    col_x = bx if c.is_left(side) else bx + bw - col_w
    pen = c.region(f"{side}.page", (col_x, by, col_w, bh), bg)
    top = by + (bh - side_px - text_h) // 2
    pen.qr((col_x + lay.pad, top, side_px, side_px), page)
    # the address on two rows, the host and the player's path, each shrunk to the column
    host, _, path = page.split("://", 1)[-1].partition("/")
    tx, tw, row = col_x + lay.pad // 2, col_w - lay.pad, text_h // 2
    pen.text(host, (tx, top + side_px, tw, row), lay.f_small, theme.TEXT_DIM, bold=False)
    pen.text("/" + path, (tx, top + side_px + row, tw, row), lay.f_small, theme.TEXT_DIM, bold=False)
    return (bx + col_w, by, bw - col_w, bh) if c.is_left(side) else (bx, by, bw - col_w, bh)


def _carried_line(c: Ctx, side: Side) -> str | None:
    """The line of the previous match's player at this half, while it is carried over (the
    application says until when, :mod:`kiosk.ui.next_carry`), in that player's language."""
    carried = c.local.carried
    if carried is None or carried.match_id != c.snap.get("match_id"):
        return None
    lines = next_line.for_match(c.local.next_lines, carried.previous)
    if lines is None:
        return None
    return next_line.text(translator(carried.langs.get(side) or c.lang), lines[side])


def _lateness(pen: Pen, c: Ctx, side: Side, rect: Rect, late: Lateness) -> None:
    """Lateness as it accrues: time late, penalty points due so far, and when the next falls due."""
    lay = c.lay
    tr = c.tr(side)
    x, y, w, h = rect
    row = h // 5
    pen.text(tr("Late"), (x + lay.pad, y + lay.pad, w - 2 * lay.pad, row), lay.f_label, theme.LOW_TIME)
    pen.text(
        elapsed_text(late.late_ms),
        (x + lay.pad, y + lay.pad + row, w - 2 * lay.pad, row * 2),
        lay.f_score * 3 // 4,
        theme.LOW_TIME,
    )
    yy = y + lay.pad + row * 3
    pen.text(
        tr("Penalty points: {points}").format(points=late.points),
        (x + lay.pad, yy, w - 2 * lay.pad, row),
        lay.f_label,
    )
    if late.forfeit:
        text = tr("Match lost by lateness unless the TD decides otherwise")
    elif late.next_due_ms is not None:
        text = tr("Next penalty point in {time}").format(time=countdown_text(late.next_due_ms))
    else:
        text = tr("No penalty points: the clock runs instead")
    pen.note((x + lay.pad, yy + row, w - 2 * lay.pad, y + h - yy - row), text, size=lay.f_small)


def _waiting_center(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    rect = c.center_rect()
    x, y, w, h = rect
    info_h = h * 45 // 100
    pen = c.region("C.info", (x, y, w, info_h), theme.BG)
    line = info_h // 4
    ix, iw = x + lay.pad, w - 2 * lay.pad
    rnd = c.snap.get("round")
    if rnd:
        pen.text(tr("Round {round}").format(round=rnd), (ix, y + lay.pad, iw, line), lay.f_label)
    pen.text(
        tr("Match to {length}").format(length=c.snap.get("length") or 0),
        (ix, y + lay.pad + line, iw, line),
        lay.f_label,
    )
    pen.text(
        str(c.snap.get("match_id") or ""),
        (ix, y + lay.pad + 2 * line, iw, line),
        lay.f_small,
        theme.TEXT_DIM,
        bold=False,
    )
    start = c.snap.get("start_wall")
    pen = c.region("C.start", (x, y + info_h, w, h - info_h), theme.BG)
    if start is None:
        return
    sy = y + info_h
    sh = h - info_h
    row = sh // 4
    pen.text(tr("Start {time}").format(time=wall_clock(start)), (ix, sy, iw, row), lay.f_label)
    if c.now < start:
        pen.text(tr("Starts in"), (ix, sy + row, iw, row), lay.f_small, theme.TEXT_DIM, bold=False)
        pen.text(countdown_text(start - c.now), (ix, sy + 2 * row, iw, row * 3 // 2), lay.f_title * 3 // 2)
    else:
        pen.text(tr("Started"), (ix, sy + row, iw, row), lay.f_small, theme.TEXT_DIM, bold=False)
        pen.text(
            elapsed_text(c.now - start),
            (ix, sy + 2 * row, iw, row * 3 // 2),
            lay.f_title * 3 // 2,
            theme.LOW_TIME,
        )


# -- opening roll ----------------------------------------------------------------------------------


def opening(c: Ctx, *, overlay: bool = False) -> None:
    """Each player touches the die they rolled; both dice go to the table as one opening roll."""
    for side in SIDES:
        _dice_side(c, side, overlay)
    _opening_center(c, overlay)


def _dice_side(c: Ctx, side: Side, overlay: bool) -> None:
    lay = c.lay
    tr = c.tr(side)
    r = common.rows(c, side)
    picked = c.local.opening.get(side)
    pen = c.region(f"{side}.name", r["name"], theme.PANEL, overlay)
    common.name_row(pen, c, side)
    rect = r["below_name"]
    pen = c.region(f"{side}.dice", rect, theme.PANEL, overlay)
    x, y, w, h = rect
    title_h = lay.f_label * 2
    pen.text(
        tr("Touch the die you rolled") if picked is None else tr("Your die: {value}").format(value=picked),
        (x + lay.pad, y, w - 2 * lay.pad, title_h),
        lay.f_label,
        wrap=True,
    )
    gap = lay.pad + 2
    face = min((w - 2 * lay.pad - 2 * gap) // 3, (h - title_h - 2 * lay.pad - gap) // 2)
    gx = x + (w - 3 * face - 2 * gap) // 2
    gy = y + title_h + (h - title_h - 2 * face - gap) // 2
    others = [s for s in (c.left, "B" if c.left == "A" else "A") if c.local.opening.get(s) is None]
    digit_side = others[0] if others else None
    for i in range(6):
        value = i + 1
        fx = gx + (i % 3) * (face + gap)
        fy = gy + (i // 3) * (face + gap)
        frect = (fx, fy, face, face)
        pen.die(frect, value, picked == value)
        intents = _die_intents(c, side, value)
        pen.hit(frect, intents, keys.digit_keys(value) if digit_side == side else (), grow=gap // 2)


def _die_intents(c: Ctx, side: Side, value: int) -> list[Intent]:
    intents: list[Intent] = [{"ui": "die", "side": side, "value": value}]
    mine = dict(c.local.opening)
    mine[side] = value
    if mine["A"] is not None and mine["B"] is not None:
        intents.append({"input": InputType.OPENING_ROLL, "A": mine["A"], "B": mine["B"]})
    return intents


def _opening_center(c: Ctx, overlay: bool) -> None:
    lay = c.lay
    tr = c.tr()
    rect = c.center_rect()
    pen = c.region("C.opening", rect, theme.BG, overlay)
    x, y, w, h = rect
    ix, iw = x + lay.pad, w - 2 * lay.pad
    row = h // 8
    pen.text(tr("Opening roll"), (ix, y + lay.pad, iw, row * 3 // 2), lay.f_label, wrap=True)
    game = int(c.snap.get("game") or 0) + 1
    pen.text(
        tr("Game {number}").format(number=game),
        (ix, y + lay.pad + row * 3 // 2, iw, row // 2 + 8),
        lay.f_small,
        theme.TEXT_DIM,
        bold=False,
    )
    yy = y + lay.pad + row * 2 + 8
    if c.snap.get("crawford"):
        common.crawford_badge(pen, c, (x, yy, w, row * 2), tr("CRAWFORD GAME"))
        yy += row * 2
    if c.local.message == MSG_TIE:
        pen.text(
            tr("Same number: roll again"), (ix, yy, iw, row * 3 // 2), lay.f_label, theme.AMBER, wrap=True
        )
        yy += row * 3 // 2
    back_h = row * 3 // 2 if overlay else 0
    pen.text(
        tr("Each player rolls one die, or roll both in the dice tower."),
        (ix, yy, iw, y + h - yy - back_h - 2 * lay.pad),
        lay.f_small,
        theme.TEXT_DIM,
        bold=False,
        wrap=True,
        min_size=lay.f_small * 2 // 3,
    )
    if overlay:
        pen.button(
            (ix, y + h - back_h - lay.pad, iw, back_h),
            tr("Back"),
            [{"ui": "close"}],
            keys=keys.BACK,
            style="secondary",
            size=lay.f_label,
        )
