"""Screens between games: the score so far, breaks, and the end of the match."""

from __future__ import annotations

from collections.abc import Mapping

from kiosk.ui import facts, keys, theme
from kiosk.ui.fmt import countdown_text, elapsed_text
from kiosk.ui.i18n import Translator
from kiosk.ui.layout import inset
from kiosk.ui.screens import common, messages, next_line
from kiosk.ui.screens.base import Ctx, other
from kiosk.ui.theme import Color
from rulebook.sides import SIDES, Side
from rulebook.vocab import EndReason, InputType


def between_games(c: Ctx) -> None:
    for side in SIDES:
        common.head(c, side, theme.PANEL)
        common.clock_row(c, side, theme.PANEL)
        _breaks_info(c, side)
        _break_button(c, side)
    common.match_info(c)
    _summary(c)
    lay = c.lay
    tr = c.tr()
    pen, area = common.center_stack(c)
    undo_r, next_r = common.center_buttons(c, area, 2)
    if facts.may(c.snap, "table", InputType.UNDO):
        common.undo_button(pen, c, undo_r, lay.f_label)
    if facts.may(c.snap, "table", InputType.OPENING_ROLL):
        pen.button(
            next_r,
            tr("Next game"),
            [{"ui": "open", "overlay": "opening"}],
            keys=keys.NEXT_GAME,
            size=lay.f_label,
        )


def _breaks_info(c: Ctx, side: Side) -> None:
    lay = c.lay
    pen = common.info_row(c, side, theme.PANEL)
    rect = inset(common.rows(c, side)["info"], lay.pad)
    tr = c.tr(side)
    penalties = int((c.snap.get("penalties") or {}).get(side) or 0)
    lines = []
    if facts.breaks_on_clock(c.snap):
        lines.append(tr("Breaks run on your own clock"))
    else:
        lines.append(tr("Breaks left: {count}").format(count=facts.breaks_left(c.snap, side)))
    if penalties:
        lines.append(tr("Penalty points: {points}").format(points=penalties))
    pen.text("\n".join(lines), rect, lay.f_small, theme.TEXT_DIM, bold=False)


def _break_button(c: Ctx, side: Side) -> None:
    pen = common.bottom(c, side)
    if not facts.may(c.snap, side, InputType.BREAK):
        return
    tr = c.tr(side)
    common.side_button(
        pen, c, side, tr("Take a break"), [{"ui": "open", "overlay": "break", "side": side}], "secondary"
    )


def last_game_text(c: Ctx, tr: Translator) -> str:
    game = facts.last_game(c.snap)
    if game is None:
        return ""
    kind = tr(messages.KINDS.get(game.get("kind") or "", game.get("kind") or ""))
    winner = game.get("winner") or "A"
    if game.get("resigned"):
        won = tr("Game {number}: {name} resigned ({kind})").format(
            number=game.get("game"), name=c.name(other(winner)), kind=kind
        )
    else:
        won = tr("Game {number}: {name} won ({kind})").format(
            number=game.get("game"), name=c.name(winner), kind=kind
        )
    return won + "\n" + tr("Points: {points}").format(points=game.get("points"))


def _summary(c: Ctx) -> None:
    """The last game's result and, when it comes next, the Crawford notice (large)."""
    lay = c.lay
    split = common.center_split(c)
    x, y, w, total = split["cube"]
    pen = c.region("C.summary", (x, y, w, total), theme.BG)
    tr = c.tr()
    text = last_game_text(c, tr)
    if c.snap.get("crawford"):
        badge_h = total * 7 // 10
        common.crawford_badge(
            pen, c, (x, y + total - badge_h, w, badge_h), tr("Next game is the Crawford game")
        )
        pen.text(
            text,
            (x + lay.pad, y, w - 2 * lay.pad, total - badge_h),
            lay.f_small,
            bold=False,
            wrap=True,
            min_size=lay.f_small * 2 // 3,
        )
        return
    pen.note(inset((x, y, w, total), lay.pad), text, size=lay.f_small)


# -- break -----------------------------------------------------------------------------------------


def break_screen(c: Ctx) -> None:
    lay = c.lay
    for side in SIDES:
        away = facts.is_away(c.snap, side)
        bg = theme.PANEL_ACTIVE if away else theme.PANEL
        common.head(c, side, bg)
        if away:
            _break_countdown(c, side, bg)
        else:
            common.clock_row(c, side, theme.PANEL)
            _breaks_info(c, side)
        pen = common.bottom(c, side)
        tr = c.tr(side)
        if facts.may(c.snap, side, InputType.RETURN):
            intents = [{"input": InputType.RETURN, "side": side}]
            common.side_button(pen, c, side, tr("I am back"), intents, "good")
        elif facts.may(c.snap, side, InputType.BREAK):
            common.side_button(
                pen,
                c,
                side,
                tr("Take a break"),
                [{"ui": "open", "overlay": "break", "side": side}],
                "secondary",
            )
    common.match_info(c)
    tr = c.tr()
    split = common.center_split(c)
    x, y, w, total = split["cube"]
    pen = c.region("C.break", (x, y, w, total), theme.BG)
    icon = total // 4
    pen.pause_icon((x + (w - icon) // 2, y + lay.pad * 2, icon * 3 // 4, icon), theme.TEXT)
    title_y = y + icon + 3 * lay.pad
    pen.text(
        tr("Break"),
        (x + lay.pad, title_y, w - 2 * lay.pad, y + total - title_y - lay.pad),
        lay.f_title,
        wrap=True,
    )
    if c.snap.get("crawford"):
        bx, by, bw, bh = split["buttons"]
        badge_h = bh * 11 // 20
        badge_pen = c.region("C.crawford", (bx, by, bw, badge_h), theme.BG)
        common.crawford_badge(badge_pen, c, (bx, by, bw, badge_h), tr("Next game is the Crawford game"))
        pen2 = c.region("C.buttons", (bx, by + badge_h, bw, bh - badge_h), theme.BG)
        area = inset((bx, by + badge_h, bw, bh - badge_h), lay.pad)
    else:
        pen2, area = common.center_stack(c)
    pen2.note(area, last_game_text(c, tr), theme.TEXT_DIM, size=lay.f_small)


def _break_countdown(c: Ctx, side: Side, bg: Color) -> None:
    """Time left of the break, or how late the player is back, with the lateness it costs."""
    lay = c.lay
    tr = c.tr(side)
    r = common.rows(c, side)
    until = facts.break_until(c.snap, side)
    pen = c.region(f"{side}.clock", r["clock"], bg)
    x, y, w, h = r["clock"]
    label_h = h // 4
    late = facts.lateness_of(c.snap, side, c.now)
    info = c.region(f"{side}.info", r["info"], bg)
    if until is None:  # a break on one's own running clock
        pen.text(tr("On a break"), inset(r["clock"], lay.pad), lay.f_title, wrap=True)
        return
    if late is None:
        pen.text(tr("On a break"), (x + lay.pad, y + 2, w - 2 * lay.pad, label_h), lay.f_label)
        pen.text(
            countdown_text(until - c.now),
            (x + lay.pad, y + label_h, w - 2 * lay.pad, h - label_h - 2),
            lay.f_clock,
        )
        info.note(
            inset(r["info"], lay.pad),
            tr("Be back before the time runs out."),
            theme.TEXT_DIM,
            size=lay.f_small,
        )
        return
    pen.text(
        tr("Break over: late"), (x + lay.pad, y + 2, w - 2 * lay.pad, label_h), lay.f_label, theme.LOW_TIME
    )
    pen.text(
        elapsed_text(late.late_ms),
        (x + lay.pad, y + label_h, w - 2 * lay.pad, h - label_h - 2),
        lay.f_clock,
        theme.LOW_TIME,
    )
    info.text(
        tr("Penalty points: {points}").format(points=late.points), inset(r["info"], lay.pad), lay.f_label
    )


# -- match over ------------------------------------------------------------------------------------


def finished(c: Ctx) -> None:
    lay = c.lay
    winner = c.snap.get("winner")
    confirmed: Mapping[str, object] = c.snap.get("confirmed") or {}
    lines = next_line.for_match(c.local.next_lines, c.snap.get("match_id"))
    for side in SIDES:
        won = side == winner
        bg = theme.PANEL_ACTIVE if won else theme.PANEL
        common.head(c, side, bg, theme.TEXT if won else theme.TEXT_DIM)
        tr = c.tr(side)
        r = common.rows(c, side)
        pen = c.region(f"{side}.clock", r["clock"], bg)
        x, y, w, h = r["clock"]
        if won:
            star = h * 2 // 3
            pen.star((x + (w - star) // 2, y + lay.pad, star, star), theme.AMBER)
            pen.text(
                tr("Winner"),
                (x + lay.pad, y + star + lay.pad, w - 2 * lay.pad, h - star - 2 * lay.pad),
                lay.f_label,
                theme.AMBER,
            )
        info = c.region(f"{side}.info", r["info"], bg)
        bot = common.bottom(c, side)
        if confirmed.get(side):
            info.text("✓ " + tr("Score confirmed"), inset(r["info"], lay.pad), lay.f_label, theme.TEXT)
            if lines is not None:
                # where this player goes next, in his language, where his button was
                bot.note(
                    inset(r["bottom"], lay.pad),
                    next_line.text(tr, lines[side]),
                    theme.AMBER,
                    size=lay.f_label,
                )
        elif facts.may(c.snap, side, InputType.CONFIRM):
            intents = [{"input": InputType.CONFIRM, "side": side}]
            common.side_button(bot, c, side, tr("Confirm the score"), intents, "good")
    common.match_info(c)
    tr = c.tr()
    rect = common.center_split(c)["below_info"]
    x, y, w, h = rect
    top_h = h * 3 // 5
    pen = c.region("C.over", (x, y, w, top_h), theme.BG)
    row = top_h // 5
    ix, iw = x + lay.pad, w - 2 * lay.pad
    pen.text(tr("Match over"), (ix, y + lay.pad, iw, row), lay.f_label, wrap=True)
    score = c.snap.get("score") or {}
    left, right = c.left, ("B" if c.left == "A" else "A")
    pen.text(
        f"{score.get(left, 0)} – {score.get(right, 0)}",
        (ix, y + lay.pad + row, iw, row * 3 // 2),
        lay.f_title,
    )
    if winner:
        pen.note(
            (ix, y + lay.pad + row * 5 // 2, iw, row * 3 // 2),
            tr("{name} wins the match").format(name=c.name(winner)),
            size=lay.f_small,
        )
    elif c.snap.get("end_reason") == EndReason.DOUBLE_LOSS:
        pen.note(
            (ix, y + lay.pad + row * 5 // 2, iw, row * 3 // 2), tr("Both players lose"), size=lay.f_small
        )
    reason = c.snap.get("end_reason") or ""
    if reason in messages.END_REASONS:
        pen.note(
            (ix, y + lay.pad + row * 4, iw, row),
            tr(messages.END_REASONS[reason]),
            theme.TEXT_DIM,
            size=lay.f_small,
        )
    pen2 = c.region("C.buttons", (x, y + top_h, w, h - top_h), theme.BG)
    area = inset((x, y + top_h, w, h - top_h), lay.pad)
    if facts.may(c.snap, "table", InputType.UNDO):
        (undo_r,) = common.stack_rects(area, [common.button_heights(c)[0]], lay.pad)
        common.undo_button(pen2, c, undo_r, lay.f_label)
    elif confirmed.get("A") and confirmed.get("B"):
        pen2.note(area, tr("Both players confirmed. Thank you!"), theme.GOOD, size=lay.f_small)
