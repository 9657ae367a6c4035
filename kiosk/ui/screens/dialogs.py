"""Dialogs over the screen: a player's language, pass and break confirmations, the result entry
wizard, pausing the clock with a reason, and undo.

Whatever ends a game or spends an allowance (pass, a result, a break, undo) asks once more
before it is sent to the table; the rest acts on the first touch.
"""

from __future__ import annotations

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui import facts, keys, theme
from kiosk.ui.i18n import LANGUAGES, Translator
from kiosk.ui.layout import Rect, hsplit, inset, vsplit
from kiosk.ui.local import RESULT_KINDS, LocalState
from kiosk.ui.scene import Intent
from kiosk.ui.screens import between, lobby, messages
from kiosk.ui.screens.base import Ctx, Pen, other
from kiosk.ui.screens.messages import PAUSE_CHOICES, PAUSE_REASONS
from rulebook.sides import SIDES, Side
from rulebook.vocab import InputType, Phase, RollSource

#: ``legal``'s word for "a pause by this player now counts as passing the double" (WBGF 4.4 iii)
PAUSE_PASSES = "pause_passes"

__all__ = ["PAUSE_REASONS", "build", "is_valid"]


def is_valid(overlay: str | None, snap: ScreenSnapshot, local: LocalState) -> bool:
    """Whether a dialog still makes sense for this snapshot (else it is closed): the rulebook still
    allows what it leads to (the snapshot's ``legal``)."""
    if overlay is None:
        return True
    side = local.overlay_side
    if overlay == "lang":
        return side is not None
    if overlay == "pass":
        return side in SIDES and facts.may(snap, side, InputType.PASS)
    if overlay == "break":
        return side in SIDES and facts.may(snap, side, InputType.BREAK)
    if overlay == "result":
        return facts.either_may(snap, InputType.WIN, InputType.RESIGN)
    if overlay == "pause":
        return facts.either_may(snap, InputType.PAUSE)
    if overlay == "dice":
        return side is not None and local.manual_dice and facts.roller(snap) == side
    if overlay == "undo":
        return facts.may(snap, "table", InputType.UNDO)
    if overlay == "opening":
        return facts.may(snap, "table", InputType.OPENING_ROLL)
    return True  # the PIN pad and the TD menu stay until closed


def build(c: Ctx, overlay: str) -> None:
    from kiosk.ui.screens import td

    side = c.local.overlay_side
    if overlay == "lang" and side:
        _language(c, side)
    elif overlay == "pass" and side:
        _pass(c, side)
    elif overlay == "break" and side:
        _break(c, side)
    elif overlay == "dice" and side:
        _dice(c, side)
    elif overlay == "result":
        _result(c)
    elif overlay == "pause":
        _pause(c)
    elif overlay == "undo":
        _undo(c)
    elif overlay == "opening":
        lobby.opening(c, overlay=True)
    else:
        td.build(c, overlay)


# -- frames ----------------------------------------------------------------------------------------


def side_dialog(c: Ctx, side: Side) -> tuple[Pen, Rect]:
    rect = c.side_rect(side)
    pen = c.region(f"dlg.{side}", rect, theme.OVERLAY, overlay=True)
    pen.frame(rect, theme.LINE, 2)
    return pen, inset(rect, c.lay.pad * 2)


def full_dialog(c: Ctx, key: str = "dlg") -> tuple[Pen, Rect]:
    rect = c.content_rect()
    pen = c.region(key, rect, theme.OVERLAY, overlay=True)
    return pen, inset(rect, c.lay.pad * 2)


def title(pen: Pen, c: Ctx, rect: Rect, text: str, height: int | None = None) -> int:
    """Draw a dialog title at the top of ``rect``; returns the y below it."""
    x, y, w, _ = rect
    h = height or c.lay.H * 12 // 100
    pen.text(text, (x, y, w, h), c.lay.f_title, wrap=True)
    return y + h + c.lay.pad


def bottom_row(c: Ctx, rect: Rect) -> Rect:
    x, y, w, h = rect
    bh = c.lay.H * 16 // 100
    return (x, y + h - bh, w, bh)


def back_button(pen: Pen, c: Ctx, rect: Rect, tr: Translator, intents: list[Intent] | None = None) -> None:
    pen.button(rect, tr("Back"), intents or [{"ui": "close"}], keys=keys.BACK, style="secondary")


def back_and_ok(
    pen: Pen,
    c: Ctx,
    row: Rect,
    tr: Translator,
    label: str,
    intents: list[Intent],
    *,
    back_intents: list[Intent] | None = None,
    ok_keys: tuple[int, ...] = keys.OK,
    style: str = "good",
) -> None:
    """A full dialog's bottom row: Back on the left, the confirming button on the right."""
    back_r, ok_r = hsplit(row, 2, c.lay.pad * 3)
    back_button(pen, c, back_r, tr, back_intents)
    pen.button(ok_r, label, intents, keys=ok_keys, style=style)


def ok_above_back(
    pen: Pen,
    c: Ctx,
    row: Rect,
    tr: Translator,
    label: str,
    intents: list[Intent],
    *,
    ok_keys: tuple[int, ...],
    style: str = "primary",
) -> None:
    """A side dialog's confirming button, stacked just above its Back button (``row``)."""
    x, y, w, h = row
    pen.button((x, y - h - c.lay.pad, w, h), label, intents, keys=ok_keys, style=style)
    back_button(pen, c, row, tr)


# -- a player's language ---------------------------------------------------------------------------


def _language(c: Ctx, side: Side) -> None:
    lay = c.lay
    tr = c.tr(side)
    pen, area = side_dialog(c, side)
    y = title(pen, c, area, tr("Language"))
    x, _, w, _ = area
    back = bottom_row(c, area)
    grid_h = back[1] - y - lay.pad
    codes = list(LANGUAGES)
    rows = (len(codes) + 1) // 2
    cell_h = (grid_h - (rows - 1) * lay.pad) // rows
    cell_w = (w - lay.pad) // 2
    current = c.side_lang(side)
    for i, code in enumerate(codes):
        rect = (x + (i % 2) * (cell_w + lay.pad), y + (i // 2) * (cell_h + lay.pad), cell_w, cell_h)
        style = "primary" if code == current else "secondary"
        pen.button(
            rect,
            LANGUAGES[code],
            [{"ui": "lang", "side": side, "lang": code}],
            keys=keys.digit_keys(i + 1),
            style=style,
            size=lay.f_label,
        )
        if code == current:
            pen.frame(rect, theme.MARKER, 3, lay.radius)
    back_button(pen, c, back, tr)


# -- pass, break -----------------------------------------------------------------------------------


def _pass(c: Ctx, side: Side) -> None:
    lay = c.lay
    tr = c.tr(side)
    pen, area = side_dialog(c, side)
    y = title(pen, c, area, tr("Pass?"))
    x, _, w, _ = area
    doubler = other(side)
    points = int(facts.cube(c.snap).get("value") or 1)
    pen.note(
        (x, y, w, lay.H // 5),
        tr("{name} wins the game.").format(name=c.name(doubler))
        + "\n"
        + tr("Points: {points}").format(points=points),
    )
    where = keys.pos(c.is_left(side))
    ok_above_back(
        pen,
        c,
        bottom_row(c, area),
        tr,
        tr("Pass"),
        [{"ui": "close"}, {"input": InputType.PASS, "side": side}],
        ok_keys=keys.SECOND[where] + keys.OK,
        style="bad",
    )


def _break(c: Ctx, side: Side) -> None:
    lay = c.lay
    tr = c.tr(side)
    pen, area = side_dialog(c, side)
    profile = facts.profile_of(c.snap)
    y = title(
        pen,
        c,
        area,
        tr("Take a break of {minutes} minutes?").format(minutes=profile.break_minutes),
        lay.H * 20 // 100,
    )
    x, _, w, _ = area
    if facts.breaks_on_clock(c.snap):
        text = tr("The break runs on your own clock.")
    else:
        text = tr("Breaks left after this one: {count}").format(count=facts.breaks_left(c.snap, side) - 1)
    pen.note((x, y, w, lay.H // 6), text)
    where = keys.pos(c.is_left(side))
    ok_above_back(
        pen,
        c,
        bottom_row(c, area),
        tr,
        tr("Start the break"),
        [{"ui": "close"}, {"input": InputType.BREAK, "side": side}],
        ok_keys=keys.MAIN[where] + keys.OK,
    )


# -- result entry ----------------------------------------------------------------------------------


def _result(c: Ctx) -> None:
    local = c.local
    if local.result_winner is None:
        _result_winner(c)
    elif local.result_kind is None:
        _result_kind(c, local.result_winner)
    else:
        _result_confirm(c, local.result_winner, local.result_kind, local.result_resigned)


def _result_winner(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Who won the game?"))
    x, _, w, _ = area
    back = bottom_row(c, area)
    choices = hsplit((x, y, w, back[1] - y - 2 * lay.pad), 2, lay.pad * 3)
    for side, rect in zip((c.left, other(c.left)), choices, strict=True):
        where = keys.pos(c.is_left(side))
        side_tr = c.tr(side)
        pen.button(
            rect,
            c.name(side),
            [{"ui": "result_winner", "side": side}],
            keys=keys.MAIN[where],
            size=lay.f_name,
            sublabel=side_tr("won the game"),
        )
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr)


def _result_kind(c: Ctx, winner: Side) -> None:
    """How the game was won: played to the end, or the loser resigned (4.5), each as a single
    game, a gammon or a backgammon with the points it is worth."""
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("{name} won: how?").format(name=c.name(winner)), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    value = int(facts.cube(c.snap).get("value") or 1)
    loser = other(winner)
    heading_h = lay.f_small * 3 // 2
    rows = vsplit((x, y, w, back[1] - y - lay.pad), 2, lay.pad)
    headings = (tr("Played to the end"), tr("{name} resigned").format(name=c.name(loser)))
    for r, (row, heading) in enumerate(zip(rows, headings, strict=True)):
        rx, ry, rw, rh = row
        pen.text(heading, (rx, ry, rw, heading_h), lay.f_small, theme.TEXT_DIM, bold=False, align="left")
        cells = hsplit((rx, ry + heading_h, rw, rh - heading_h), 3, lay.pad * 2)
        for i, (kind, rect) in enumerate(zip(RESULT_KINDS, cells, strict=True)):
            number = r * 3 + i + 1
            shortcut = keys.KINDS[kind] if r == 0 else ()
            pen.button(
                rect,
                tr(messages.KINDS[kind]),
                [{"ui": "result_kind", "kind": kind, "resigned": r == 1}],
                keys=shortcut + keys.digit_keys(number),
                style="primary" if r == 0 else "secondary",
                size=lay.f_label,
                sublabel=tr("Points: {points}").format(points=facts.points_for(kind, value)),
            )
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, [{"ui": "result_back"}])


def _result_confirm(c: Ctx, winner: Side, kind: str, resigned: bool) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Confirm the result"))
    x, _, w, _ = area
    value = int(facts.cube(c.snap).get("value") or 1)
    points = facts.points_for(kind, value)
    loser = other(winner)
    line = lay.H // 8
    if resigned:
        headline = tr("{name} resigns: {kind}").format(name=c.name(loser), kind=tr(messages.KINDS[kind]))
        entry: Intent = {"input": InputType.RESIGN, "side": loser, "kind": kind}
    else:
        headline = tr("{name} wins: {kind}").format(name=c.name(winner), kind=tr(messages.KINDS[kind]))
        entry = {"input": InputType.WIN, "side": winner, "kind": kind}
    pen.text(headline, (x, y, w, line), lay.f_title, wrap=True)
    y += line
    gain = tr("Points for {name}: {points}").format(name=c.name(winner), points=points)
    pen.text(gain, (x, y, w, line * 2 // 3), lay.f_label, wrap=True)
    y += line * 2 // 3
    given = c.snap.get("score") or {"A": 0, "B": 0}
    score = {"A": given["A"], "B": given["B"]}
    score[winner] = int(score.get(winner, 0)) + points
    right = other(c.left)
    pen.text(
        tr("New score: {left} – {right}").format(left=score.get(c.left, 0), right=score.get(right, 0)),
        (x, y + lay.pad, w, line),
        lay.f_label,
    )
    pen.text(
        f"{c.name(c.left)} – {c.name(right)}",
        (x, y + line + lay.pad, w, line * 2 // 3),
        lay.f_small,
        theme.TEXT_DIM,
        bold=False,
    )
    back = bottom_row(c, area)
    back_and_ok(
        pen,
        c,
        back,
        tr,
        tr("Confirm"),
        [{"ui": "close"}, entry],
        back_intents=[{"ui": "result_back"}],
    )


# -- a roll entered by hand ------------------------------------------------------------------------


def _dice(c: Ctx, side: Side) -> None:
    """The player on roll touches the two dice they rolled (the same face twice for a double)."""
    lay = c.lay
    tr = c.tr(side)
    pen, area = side_dialog(c, side)
    picked = c.local.dice_pick
    heading = (
        tr("Your roll: touch both dice")
        if picked is None
        else tr("First die: {value}. Touch the second.").format(value=picked)
    )
    y = title(pen, c, area, heading, lay.H * 14 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    gap = lay.pad * 2
    face = min((w - 2 * gap) // 3, (back[1] - y - 2 * lay.pad - gap) // 2)
    gx = x + (w - 3 * face - 2 * gap) // 2
    for i in range(6):
        value = i + 1
        rect = (gx + (i % 3) * (face + gap), y + (i // 3) * (face + gap), face, face)
        pen.die(rect, value, picked == value)
        intents: list[Intent] = [{"ui": "roll_die", "value": value}]
        if picked is not None:
            intents.append({"input": InputType.ROLL, "dice": [picked, value], "source": RollSource.MANUAL})
        pen.hit(rect, intents, keys.digit_keys(value), grow=gap // 2)
    if picked is None:
        back_button(pen, c, back, tr)
    else:
        back_button(pen, c, back, tr, [{"ui": "roll_clear"}])


# -- pause -----------------------------------------------------------------------------------------


def _pausing_side(snap: ScreenSnapshot) -> Side:
    """The side a pause from the shared Pause button is recorded for (a player's pause names
    one): the player whose clock runs, else the one on turn, unless the rulebook says that
    player's pause would count as passing a double (``legal[X].pause_passes``, WBGF 4.4 iii):
    nobody knows who touched the shared button, so it never passes a double for anyone."""
    clock = snap.get("clock") or {}
    order = [clock.get("running"), snap.get("turn"), *SIDES]
    sides = [s for o in order for s in SIDES if s == o]
    for side in sides:
        if facts.pause_reasons(snap, side) and not facts.may(snap, side, PAUSE_PASSES):
            return side
    return sides[0]


def _pause(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Pause the clock: why?"))
    x, _, w, _ = area
    back = bottom_row(c, area)
    side = _pausing_side(c.snap)
    reasons = [r for r in facts.pause_reasons(c.snap, side) if r in PAUSE_CHOICES]
    entries: list[tuple[str, list[Intent], str]] = [
        (
            tr(PAUSE_CHOICES[r]),
            [{"ui": "close"}, {"input": InputType.PAUSE, "side": side, "reason": r}],
            "secondary",
        )
        for r in reasons
    ]
    turn = c.snap.get("turn")
    if turn in SIDES and facts.may(c.snap, turn, InputType.INVALID_ROLL):
        entries.append(
            (
                tr("Invalid roll: restart the delay"),
                [{"ui": "close"}, {"input": InputType.INVALID_ROLL, "side": turn}],
                "primary",
            )
        )
    cols = 4 if len(entries) > 9 else 3
    rows = max(1, (len(entries) + cols - 1) // cols)
    grid_h = back[1] - y - lay.pad
    cell_h = (grid_h - (rows - 1) * lay.pad) // rows
    cell_w = (w - (cols - 1) * lay.pad) // cols
    for i, (label, intents, style) in enumerate(entries):
        rect = (x + (i % cols) * (cell_w + lay.pad), y + (i // cols) * (cell_h + lay.pad), cell_w, cell_h)
        pen.button(
            rect, label, intents, keys=keys.digit_keys(i + 1) if i < 9 else (), style=style, size=lay.f_label
        )
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr)


# -- undo ------------------------------------------------------------------------------------------


def undo_text(c: Ctx, tr: Translator) -> str:
    phase = c.snap.get("phase")
    if phase in (Phase.BETWEEN_GAMES, Phase.FINISHED):
        return between.last_game_text(c, tr)
    cb = facts.cube(c.snap)
    if cb["offered_by"]:
        return tr("{name}'s double").format(name=c.name(cb["offered_by"]))
    if cb["owner"]:
        return tr("{name}'s take (cube at {value})").format(name=c.name(cb["owner"]), value=cb["value"])
    return ""


def _undo(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Undo the last entry?"))
    x, _, w, _ = area
    pen.text(undo_text(c, tr), (x, y, w, lay.H // 6), lay.f_label, wrap=True)
    pen.note(
        (x, y + lay.H // 6 + lay.pad, w, lay.H // 8),
        tr("Clock presses are not undone."),
        theme.TEXT_DIM,
        size=lay.f_small,
    )
    back = bottom_row(c, area)
    back_and_ok(
        pen,
        c,
        back,
        tr,
        tr("Undo"),
        [{"ui": "close"}, {"input": InputType.UNDO}],
        ok_keys=keys.OK + keys.UNDO,
        style="bad",
    )
