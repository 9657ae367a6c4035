"""Screens of a game in progress: play (with a cube offer), clock paused, and time expired."""

from __future__ import annotations

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui import facts, keys, theme
from kiosk.ui.layout import Rect, hsplit, inset
from kiosk.ui.scene import Intent
from kiosk.ui.screens import common, messages
from kiosk.ui.screens.base import Ctx, Pen, other
from rulebook.sides import SIDES, Side
from rulebook.vocab import InputType, PauseReason

#: ``legal``'s word for a double made during the opponent's turn, which stands (WBGF 4.4 v)
PREMATURE_DOUBLE = "premature_double"
#: ``legal``'s word for a double made in the Crawford game, which the leader may void (HU 7.5)
CRAWFORD_DOUBLE = "crawford_double"
#: the article that makes a premature double stand, in each profile's own text
PREMATURE_RULE = {"wbgf-2023": "WBGF 4.4 v", "hbf": "HBF 4.4 v", "hu": "HU 7.8", "ffbg-cdf": "FFBG 6.8"}
#: the article that lets the leader void a double made in the Crawford game
CRAWFORD_RULE = {"hu": "HU 7.5", "ffbg-cdf": "FFBG 6.5"}


def play(c: Ctx) -> None:
    clock = c.snap.get("clock") or {}
    running = clock.get("running")
    for side in SIDES:
        active = running == side
        bg = theme.PANEL_ACTIVE if active else theme.PANEL
        common.head(c, side, bg)
        common.clock_row(c, side, bg, running=active)
        asked = _asked_double(c, side)
        if asked is not None and c.local.double_ask == side:
            _ask_note(c, side, bg, asked)  # what the second touch does, and the rule: over the delay
        else:
            common.delay_row(c, side, bg, running=active)
        _play_actions(c, side)
    common.match_info(c)
    common.badge_and_cube(c)
    _center_buttons(c)


def _play_actions(c: Ctx, side: Side) -> None:
    """The player's action bar: Double and (dice entered by hand) the roll, or Take/Pass when
    doubled, or what to do with the clock. Each button is drawn when the snapshot's ``legal``
    allows its input to this player; a double during the opponent's turn (premature, it stands:
    WBGF 4.4 v) is offered apart, as "Double early"."""
    lay = c.lay
    pen = common.bottom(c, side)
    rect = common.bottom_button_rect(c, side)
    tr = c.tr(side)
    where = keys.pos(c.is_left(side))
    cb = facts.cube(c.snap)
    offered = cb.get("offered_by")
    clock = c.snap.get("clock") or {}
    timed = bool(clock.get("enabled"))
    running = clock.get("running")
    if offered == other(side):
        take, pas = hsplit(rect, 2, lay.pad)
        value = facts.offered_value(c.snap)
        if facts.may(c.snap, side, InputType.TAKE):
            pen.button(
                take,
                tr("Take"),
                [{"input": InputType.TAKE, "side": side}],
                keys=keys.MAIN[where],
                style="good",
                sublabel=tr("Cube to {value}").format(value=value),
            )
        if facts.may(c.snap, side, InputType.PASS):
            pen.button(
                pas,
                tr("Pass"),
                [{"ui": "open", "overlay": "pass", "side": side}],
                keys=keys.SECOND[where],
                style="bad",
            )
        return
    if offered == side:
        if timed and running == side:
            # 4.4 ii: the doubler presses, so that the answer is thought on the opponent's time
            text = tr("Press your clock button: {name} answers on their own time").format(
                name=c.name(other(side))
            )
            pen.note(rect, text, theme.AMBER)
        else:
            value = facts.offered_value(c.snap)
            pen.note(rect, tr("Doubled to {value}: waiting for the answer").format(value=value))
        return
    hint = _clock_hint(c, side)
    asked = _asked_double(c, side)
    if asked is not None and c.local.double_ask == side:
        _confirm_double(c, pen, side, rect, asked)
        return
    actions: list[tuple[str, list[Intent], tuple[int, ...], str, str]] = []
    sub = tr("Cube to {value}").format(value=facts.offered_value(c.snap))
    double = [{"input": InputType.DOUBLE, "side": side}]
    if facts.may(c.snap, side, InputType.DOUBLE):
        actions.append((tr("Double"), double, keys.MAIN[where], "primary", sub))
    elif asked is not None and hint is None:
        # while this player must press the clock, that comes first. A double that is not a proper
        # one is asked once more, and its button is smaller than the proper one (a stray touch
        # must not record a double that stands)
        label = tr("Double early") if asked == PREMATURE_DOUBLE else tr("Double: Crawford game")
        ask = [{"ui": "double_ask", "side": side}]
        actions.append((label, ask, keys.MAIN[where], "secondary", ""))
    if c.local.manual_dice and facts.roller(c.snap) == side:
        intents = [{"ui": "open", "overlay": "dice", "side": side}]
        actions.append((tr("Enter the roll"), intents, keys.ROLL[where], "secondary", ""))
    if actions:
        for (label, intents, k, style, sub), cell in zip(
            actions, hsplit(rect, len(actions), lay.pad), strict=True
        ):
            if intents[0].get("ui") == "double_ask":
                cell = _smaller(c, side, cell)
            pen.button(cell, label, intents, keys=k, style=style, sublabel=sub)
        return
    dice = c.snap.get("dice")
    if c.local.manual_dice and dice and c.snap.get("turn") == side and len(dice) == 2:
        _rolled(pen, c, side, rect, (int(dice[0]), int(dice[1])))
    elif hint is not None:
        pen.note(rect, hint, theme.AMBER)


def _asked_double(c: Ctx, side: Side) -> str | None:
    """The kind of double ``side`` may make now that is asked once more, if any."""
    for word in (PREMATURE_DOUBLE, CRAWFORD_DOUBLE):
        if facts.may(c.snap, side, word):
            return word
    return None


def _smaller(c: Ctx, side: Side, cell: Rect) -> Rect:
    """The early double's button: half its cell, at the screen's edge, not its full height — smaller
    than the proper Double, which fills the cell."""
    x, y, w, h = cell
    small_w, small_h = max(w // 2, c.lay.H // 6), max(h * 3 // 4, c.lay.H // 10)
    sx = x if c.is_left(side) else x + w - small_w
    return (sx, y + (h - small_h) // 2, small_w, small_h)


def _rule(c: Ctx, table: dict[str, str]) -> str:
    return table.get(facts.profile_of(c.snap).name, "")


def _ask_note(c: Ctx, side: Side, bg: theme.Color, asked: str) -> None:
    """Why the double is asked once more, naming the rule, in the player's status row."""
    tr = c.tr(side)
    rect = common.rows(c, side)["info"]
    pen = c.region(f"{side}.info", rect, bg)
    if asked == PREMATURE_DOUBLE:
        text = tr("{name} has not finished: an early double stands ({rule})").format(
            name=c.name(other(side)), rule=_rule(c, PREMATURE_RULE)
        )
    else:
        text = tr("The rule forbids it; the leader may void it ({rule})").format(rule=_rule(c, CRAWFORD_RULE))
    pen.note(inset(rect, c.lay.pad), text, theme.AMBER, size=c.lay.f_small)


def _confirm_double(c: Ctx, pen: Pen, side: Side, rect: Rect, asked: str) -> None:
    """The second touch: it says what it does (the rule is named just above it), on the inner part
    of the bar; the outer part, where the first touch was, cancels."""
    tr = c.tr(side)
    where = keys.pos(c.is_left(side))
    x, y, w, h = rect
    cancel_w = (w - c.lay.pad) // 3
    ok_w = w - cancel_w - c.lay.pad
    if c.is_left(side):
        cancel_r, ok_r = (x, y, cancel_w, h), (x + cancel_w + c.lay.pad, y, ok_w, h)
    else:
        ok_r, cancel_r = (x, y, ok_w, h), (x + ok_w + c.lay.pad, y, cancel_w, h)
    label = tr("Double now: it stands") if asked == PREMATURE_DOUBLE else tr("Double in the Crawford game")
    intents: list[Intent] = [{"ui": "double_cancel"}, {"input": InputType.DOUBLE, "side": side}]
    pen.button(ok_r, label, intents, keys=keys.MAIN[where], style="amber")
    pen.button(cancel_r, tr("Cancel"), [{"ui": "double_cancel"}], keys=keys.SECOND[where], style="secondary")


def _clock_hint(c: Ctx, side: Side) -> str | None:
    """What ``side`` is to do with the clock now, when the game waits for their press."""
    tr = c.tr(side)
    clock = c.snap.get("clock") or {}
    if not clock.get("enabled") or c.snap.get("turn") != other(side):
        return None
    running = clock.get("running")
    if running is None:
        return tr("Press your clock button to start {name}'s clock").format(name=c.name(other(side)))
    if running == side:
        # after a take the taker presses back: the doubler's turn goes on (4.4 iii)
        return tr("Press your clock button: {name} goes on playing").format(name=c.name(other(side)))
    return None


def _rolled(pen: Pen, c: Ctx, side: Side, rect: Rect, dice: tuple[int, int]) -> None:
    """The roll entered by hand, as two die faces, while the player moves."""
    lay = c.lay
    tr = c.tr(side)
    x, y, w, h = rect
    face = h - lay.pad
    label_w = w - 2 * face - 3 * lay.pad
    pen.text(tr("Roll"), (x, y, label_w, h), lay.f_label, theme.TEXT_DIM, bold=False, align="right")
    fx = x + label_w + lay.pad
    for i, value in enumerate(dice):
        pen.die((fx + i * (face + lay.pad), y + (h - face) // 2, face, face), value, False)


def _center_buttons(c: Ctx) -> None:
    lay = c.lay
    pen, area = common.center_stack(c)
    tr = c.tr()
    pause_r, undo_r, result_r = common.center_buttons(c, area, 3)
    if facts.either_may(c.snap, InputType.PAUSE):
        pen.button(
            pause_r,
            tr("Pause"),
            [{"ui": "open", "overlay": "pause"}],
            keys=keys.PAUSE,
            style="secondary",
            size=lay.f_label,
        )
    if facts.may(c.snap, "table", InputType.UNDO):
        common.undo_button(pen, c, undo_r, lay.f_label)
    if facts.either_may(c.snap, InputType.WIN, InputType.RESIGN):
        pen.button(
            result_r,
            tr("Game over"),
            [{"ui": "open", "overlay": "result"}],
            keys=keys.RESULT,
            size=lay.f_label,
        )


# -- clock paused ----------------------------------------------------------------------------------


def paused(c: Ctx) -> None:
    clock = c.snap.get("clock") or {}
    resumes = clock.get("on")
    reason = c.snap.get("clock", {}).get("paused") or ""
    for side in SIDES:
        common.head(c, side, theme.PANEL)
        common.clock_row(c, side, theme.PANEL, paused=resumes == side)
        common.delay_row(c, side, theme.PANEL, running=False)
        common.bottom(c, side)
    common.match_info(c)
    _paused_center(c, reason)


def _paused_center(c: Ctx, reason: str) -> None:
    lay = c.lay
    tr = c.tr()
    split = common.center_split(c)
    x, y, w, total = split["cube"]
    pen = c.region("C.badge", (x, y, w, total), theme.BG)
    icon = total // 4
    pen.pause_icon((x + (w - icon) // 2, y + lay.pad // 2, icon * 3 // 4, icon), theme.AMBER)
    title_y = y + icon + lay.pad
    title_h = total * 3 // 10
    pen.text(
        tr("Clock paused"),
        (x + lay.pad, title_y, w - 2 * lay.pad, title_h),
        lay.f_label,
        theme.AMBER,
        wrap=True,
    )
    if reason == PauseReason.POWER_LOSS:
        text = tr("Restored after a power cut. Resume when both players are ready.")
    else:
        text = tr(reason_message(reason))
    note_y = title_y + title_h
    pen.note((x + lay.pad, note_y, w - 2 * lay.pad, y + total - note_y), text, theme.TEXT, size=lay.f_small)
    pen2, area = common.center_stack(c)
    undo_r, result_r, resume_r = common.center_buttons(c, area, 3)
    if not players_resume(c.snap):
        pen2.note(resume_r, tr("Waiting for the TD"), theme.TEXT_DIM, size=lay.f_small)
    else:
        pen2.button(
            resume_r,
            tr("Resume"),
            [{"input": InputType.RESUME}],
            keys=keys.RESUME,
            style="good",
            size=lay.f_label,
        )
    if facts.either_may(c.snap, InputType.WIN, InputType.RESIGN):
        pen2.button(
            result_r,
            tr("Game over"),
            [{"ui": "open", "overlay": "result"}],
            keys=keys.RESULT,
            style="secondary",
            size=lay.f_small,
        )
    if facts.may(c.snap, "table", InputType.UNDO):
        common.undo_button(pen2, c, undo_r, lay.f_small)


def players_resume(snap: ScreenSnapshot) -> bool:
    """The players resume the clock from the screen when the rulebook takes a resume now, except
    after the TD paused it: the TD resumes that one (from the hub or the TD menu)."""
    by_td = (snap.get("clock") or {}).get("paused") == PauseReason.TD
    return not by_td and facts.may(snap, "table", InputType.RESUME)


def reason_message(reason: str) -> str:
    """The English message for a pause reason (translated by the caller)."""
    return messages.PAUSE_REASONS.get(reason, reason)


# -- time expired ----------------------------------------------------------------------------------


def flag(c: Ctx) -> None:
    lay = c.lay
    clock = c.snap.get("clock") or {}
    flagged = clock.get("flagged")
    for side in SIDES:
        mine = side == flagged
        bg = theme.PANEL_ALERT if mine else theme.PANEL
        common.head(c, side, bg)
        common.clock_row(c, side, bg, flagged=mine)
        pen = common.info_row(c, side, bg)
        if mine:
            tr = c.tr(side)
            pen.text(
                tr("Time expired"),
                inset(common.rows(c, side)["info"], lay.pad),
                lay.f_delay,
                theme.FLAG,
                wrap=True,
            )
        common.bottom(c, side)
    common.match_info(c)
    tr = c.tr()
    rect = common.center_split(c)["below_info"]
    pen = c.region("C.flag", rect, theme.BG)
    x, y, w, h = rect
    icon = lay.H // 8
    pen.flag((x + (w - icon) // 2, y + lay.pad, icon, icon * 5 // 4), theme.FLAG)
    ty = y + lay.pad * 2 + icon * 5 // 4
    pen.text(
        tr("Time expired"),
        (x + lay.pad, ty, w - 2 * lay.pad, lay.f_title * 2),
        lay.f_label,
        theme.FLAG,
        wrap=True,
    )
    ty += lay.f_title * 2
    name = c.name(flagged) if flagged else ""
    pen.note(
        (x + lay.pad, ty, w - 2 * lay.pad, lay.H // 7),
        tr("{name}'s time has expired").format(name=name),
        size=lay.f_small,
    )
    ty += lay.H // 7
    pen.note(
        (x + lay.pad, ty, w - 2 * lay.pad, y + h - ty - lay.pad),
        tr("The TD has been called and decides the match."),
        theme.AMBER,
        size=lay.f_small,
    )
