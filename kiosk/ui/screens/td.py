"""The TD menu, behind a PIN: pause and resume, set time, impose a clock, correct the score, give
penalty points, a forfeit, settle a time-out, answer a call, and the table's own settings
(language, table number, which side is which).

Match actions go to the table as ``cmd`` inputs, exactly as the hub's commands do (the application
adds ``id`` and ``at`` and journals them); table settings are requests to the application
(``{"app": ...}``). Whatever gives points or ends a match is asked once more on a page that names
the players and says what follows ("This ends the match: Boris Ivanov wins"); nothing is chosen
for the TD in advance (no player is preselected).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui import facts, keys, theme
from kiosk.ui.fmt import clock_text
from kiosk.ui.i18n import LANGUAGES, N_
from kiosk.ui.layout import Rect, hsplit, inset, vsplit
from kiosk.ui.local import CONFIRMED_COMMANDS, MSG_WRONG_PIN, PENALTY_REASONS
from kiosk.ui.scene import Intent
from kiosk.ui.screens.base import Ctx, Pen, other
from kiosk.ui.screens.dialogs import back_and_ok, back_button, bottom_row, full_dialog, title
from kiosk.ui.screens.refusal import text as refusal_text
from rulebook.clock import imposed_reserve_ms
from rulebook.errors import RuleError
from rulebook.match import score_refusal
from rulebook.messages import Snapshot
from rulebook.sides import SIDES, Pair, Side
from rulebook.vocab import LATENESS_REASONS, CommandType, CrawfordChoice, InputType, PauseReason, Phase

MINUTE = 60_000

#: how the penalty reasons read on the screen
REASON_LABELS: dict[str, str] = {
    "conduct": N_("Conduct"),
    "late": N_("Lateness"),
    "clock_handling": N_("Clock handling"),
    "checker_handling": N_("Checker handling"),
}


def build(c: Ctx, overlay: str) -> None:
    {
        "pin": _pin,
        "td": _menu,
        "td_time": _set_time,
        "td_clock": _impose_clock,
        "td_lang": _language,
        "td_table": _table,
        "td_settings": _settings,
        "td_score": _score,
        "td_penalty": _penalty,
        "td_forfeit": _forfeit,
        "td_flag": _flag,
        "td_confirm": _confirm,
        "td_forbid": _forbid,
        "td_force": _force,
        "td_crawford": _crawford,
    }.get(overlay, _menu)(c)


def keypad(
    pen: Pen, c: Ctx, rect: Rect, digit_intent: str, clear_intent: str, ok: list[Intent] | None
) -> None:
    """A 3×4 keypad: 1–9, Clear, 0 and OK (OK omitted when ``ok`` is None)."""
    lay = c.lay
    tr = c.tr()
    rows = vsplit(rect, 4, lay.pad)
    labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "clear", "0", "ok"]
    for i, label in enumerate(labels):
        cell = hsplit(rows[i // 3], 3, lay.pad)[i % 3]
        if label == "clear":
            pen.button(
                cell,
                tr("Clear"),
                [{"ui": clear_intent}],
                keys=keys.CLEAR,
                style="secondary",
                size=lay.f_label,
            )
        elif label == "ok":
            if ok is not None:
                pen.button(cell, tr("OK"), ok, keys=keys.OK, style="good", size=lay.f_label)
        else:
            pen.button(
                cell,
                label,
                [{"ui": digit_intent, "digit": label}],
                keys=keys.digit_keys(label),
                style="secondary",
                size=lay.f_title,
            )


def _pin(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    x, y, w, h = area
    left_w = w * 45 // 100
    left = (x, y, left_w - lay.pad, h)
    yy = title(pen, c, left, tr("TD menu: enter the PIN"), lay.H * 18 // 100)
    dots = "●" * len(c.local.pin_entry) if c.local.pin_entry else "–"
    pen.text(dots, (x, yy, left_w - lay.pad, lay.H // 8), lay.f_title)
    if c.local.message == MSG_WRONG_PIN:
        pen.text(
            tr("Wrong PIN"), (x, yy + lay.H // 8, left_w - lay.pad, lay.H // 10), lay.f_label, theme.FLAG
        )
    back = bottom_row(c, left)
    back_button(pen, c, back, tr)
    keypad(pen, c, (x + left_w, y, w - left_w, h), "pin", "pin_clear", [{"ui": "pin_ok"}])


# -- the menu ----------------------------------------------------------------------------------------


def _td_may(c: Ctx, command: CommandType) -> bool:
    """The TD may send ``command`` now: the rulebook's answer (the snapshot's ``legal.td``)."""
    return facts.may(c.snap, "td", command)


def _menu(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    snap = c.snap
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("TD menu"), lay.H * 10 // 100)
    x, _, w, _ = area
    clock = snap.get("clock") or {}
    entries: list[tuple[str, list[Intent], str]] = []
    if _td_may(c, CommandType.PAUSE):
        pause = _cmd(CommandType.PAUSE, reason=PauseReason.TD)
        entries.append((tr("Pause the clock"), [{"ui": "close"}, pause], "primary"))
    if _td_may(c, CommandType.RESUME):
        entries.append((tr("Resume the clock"), [{"ui": "close"}, _cmd(CommandType.RESUME)], "good"))
    if _td_may(c, CommandType.RESOLVE_FLAG):
        entries.append((tr("Settle the time-out"), [{"ui": "td", "page": "td_flag"}], "amber"))
    if _td_may(c, CommandType.SET_TIME):
        page = {"ui": "td", "page": "td_time", "reserve_ms": clock.get("reserve_ms")}
        entries.append((tr("Set the time"), [page], "secondary"))
    if _td_may(c, CommandType.IMPOSE_CLOCK):
        entries.append((tr("Impose a clock"), [{"ui": "td", "page": "td_clock"}], "secondary"))
    if _td_may(c, CommandType.CORRECT_SCORE):
        page = {"ui": "td", "page": "td_score", "score": snap.get("score")}
        entries.append((tr("Correct the score"), [page], "secondary"))
    if _td_may(c, CommandType.PENALTY):
        entries.append((tr("Penalty"), [{"ui": "td", "page": "td_penalty"}], "secondary"))
    if _td_may(c, CommandType.FORFEIT):
        entries.append((tr("Forfeit"), [{"ui": "td", "page": "td_forfeit"}], "secondary"))
    # the cube decisions the profile's rules give the TD (HU 7.5, 7.9; FFBG 6.5, 6.8, 10.3)
    if _td_may(c, CommandType.CRAWFORD_DOUBLE):
        entries.append((tr("Double in the Crawford game"), [{"ui": "td", "page": "td_crawford"}], "amber"))
    if _td_may(c, CommandType.FORBID_DOUBLE):
        entries.append((tr("Forbid doubling"), [{"ui": "td", "page": "td_forbid"}], "secondary"))
    if _td_may(c, CommandType.FORCE_DOUBLE):
        entries.append((tr("Enter a forced double"), [{"ui": "td", "page": "td_force"}], "secondary"))
    if _td_may(c, CommandType.DOUBLE_LOSS):
        loss = _confirm_intents(_cmd(CommandType.DOUBLE_LOSS, note="decided at the table"), "td")
        entries.append((tr("Double loss"), loss, "secondary"))
    if any(facts.td_calls(snap).values()) and _td_may(c, CommandType.TD_ACK):
        entries.append((tr("Answer the call"), [{"ui": "close"}, _cmd(CommandType.TD_ACK)], "amber"))
    entries.append((tr("Table settings"), [{"ui": "td", "page": "td_settings"}], "secondary"))
    back = bottom_row(c, area)
    _grid(pen, c, (x, y, w, back[1] - y - lay.pad), entries)
    pen.button(
        (x + w // 3, back[1], w // 3, back[3]),
        tr("Close"),
        [{"ui": "close"}],
        keys=keys.BACK,
        style="secondary",
    )


def _grid(pen: Pen, c: Ctx, rect: Rect, entries: list[tuple[str, list[Intent], str]]) -> None:
    """Menu entries three to a row, numbered for the keys 1–9."""
    lay = c.lay
    x, y, w, h = rect
    cols = 3
    rows = max(1, (len(entries) + cols - 1) // cols)
    cell_h = min(lay.H // 6, (h - (rows - 1) * lay.pad) // rows)
    cell_w = (w - (cols - 1) * lay.pad) // cols
    for i, (label, intents, style) in enumerate(entries):
        cell = (x + (i % cols) * (cell_w + lay.pad), y + (i // cols) * (cell_h + lay.pad), cell_w, cell_h)
        pen.button(
            cell, label, intents, keys=keys.digit_keys(i + 1) if i < 9 else (), style=style, size=lay.f_label
        )


def _cmd(kind: CommandType, **fields: object) -> Intent:
    return {"input": InputType.CMD, "type": kind, **fields}


def _to_menu() -> list[Intent]:
    return [{"ui": "td", "page": "td"}]


def _settings(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Table settings"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    entries = [
        (tr("Table language"), [{"ui": "td", "page": "td_lang"}], "secondary"),
        (
            tr("Table number"),
            [{"ui": "td", "page": "td_table", "table": c.snap.get("table") or ""}],
            "secondary",
        ),
        (tr("Swap the sides"), [{"ui": "close"}, {"app": "flip"}], "secondary"),
    ]
    if not facts.has_match(c.snap) or c.snap.get("phase") == Phase.FINISHED:
        # the check takes the buttons, the tower and the screen: never during a match
        entries.append((tr("Hardware check"), [{"ui": "close"}, {"app": "hardware_check"}], "secondary"))
    _grid(pen, c, (x, y, w, back[1] - y - lay.pad), entries)
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, _to_menu())


# -- clock -------------------------------------------------------------------------------------------


def _set_time(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Set the time"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    cols = hsplit((x, y, w, back[1] - y - lay.pad), 2, lay.pad * 4)
    steps = [(-MINUTE, "−1:00"), (-10_000, "−0:10"), (10_000, "+0:10"), (MINUTE, "+1:00")]
    for side, col in zip((c.left, other(c.left)), cols, strict=True):
        cx, cy, cw, ch = col
        pen.text(c.name(side), (cx, cy, cw, ch // 6), lay.f_label)
        pen.text(
            clock_text(c.local.td_reserve.get(side, 0)),
            (cx, cy + ch // 6, cw, ch * 2 // 6),
            lay.f_title * 3 // 2,
        )
        grid = (cx, cy + ch // 2 + lay.pad, cw, ch // 2 - lay.pad)
        for i, (delta, label) in enumerate(steps):
            cell = hsplit(vsplit(grid, 2, lay.pad)[i // 2], 2, lay.pad)[i % 2]
            pen.button(
                cell,
                label,
                [{"ui": "td_adjust", "side": side, "delta_ms": delta}],
                style="secondary",
                size=lay.f_label,
            )
    reserves = {s: int(v) for s, v in c.local.td_reserve.items()}
    back_and_ok(
        pen,
        c,
        back,
        tr,
        tr("Apply"),
        [{"ui": "close"}, _cmd(CommandType.SET_TIME, reserve_ms=reserves)],
        back_intents=_to_menu(),
    )


def _impose_clock(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Impose a clock"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    body_h = back[1] - y - lay.pad
    rows = vsplit((x, y, w, body_h * 2 // 3), 2, lay.pad)
    mpp, delay = c.local.td_mpp, c.local.td_delay_s
    mpp_text = f"{mpp:g}"
    settings = [
        (tr("Minutes per point"), mpp_text, "mpp_delta", 0.5),
        (tr("Delay in seconds"), str(delay), "delay_delta", 1),
    ]
    for (label, value, field, step), row in zip(settings, rows, strict=True):
        rx, ry, rw, rh = row
        pen.text(label, (rx, ry, rw * 2 // 5, rh), lay.f_label, align="left", wrap=True)
        minus, val, plus = hsplit((rx + rw * 2 // 5, ry, rw * 3 // 5, rh), 3, lay.pad)
        pen.button(minus, "−", [{"ui": "td_clock_adjust", field: -step}], style="secondary", size=lay.f_title)
        pen.text(value, val, lay.f_title)
        pen.button(plus, "+", [{"ui": "td_clock_adjust", field: step}], style="secondary", size=lay.f_title)
    length = int(c.snap.get("length") or 0)
    score = c.snap.get("score") or {}
    away = [max(0, length - int(score.get(s, 0))) for s in SIDES]
    reserve = imposed_reserve_ms(mpp, away[0], away[1])
    pen.note(
        (x, y + body_h * 2 // 3, w, body_h // 3),
        tr("Each player gets {time} for the rest of the match.").format(time=clock_text(reserve)),
    )
    back_and_ok(
        pen,
        c,
        back,
        tr,
        tr("Apply"),
        [{"ui": "close"}, _cmd(CommandType.IMPOSE_CLOCK, minutes_per_point=mpp, delay_s=delay)],
        back_intents=_to_menu(),
    )


# -- score, penalty, forfeit, time-out: chosen, then confirmed -----------------------------------


def _players(
    pen: Pen,
    c: Ctx,
    rect: Rect,
    chosen: str | None,
    intent: dict[str, Any],
    allowed: tuple[str, ...] = ("A", "B"),
) -> None:
    """One button per player, by name; the chosen one framed (none is chosen beforehand). A player
    not ``allowed`` (the rules refuse the command for them) has no button."""
    lay = c.lay
    for side, cell in zip((c.left, other(c.left)), hsplit(rect, 2, lay.pad * 3), strict=True):
        if side not in allowed:
            continue
        pen.button(
            cell,
            c.name(side),
            [{**intent, "side": side}],
            keys=keys.MAIN[keys.pos(c.is_left(side))],
            style="primary" if side == chosen else "secondary",
            size=lay.f_name,
        )
        if side == chosen:
            pen.frame(inset(cell, -3), theme.MARKER, 3, lay.radius)


def _confirm_intents(cmd: dict[str, Any], back: str) -> list[Intent]:
    return [{"ui": "td_confirm", "cmd": cmd, "back": back}]


def _flag(c: Ctx) -> None:
    """A time-out: the TD says who wins the match (4.3 iii: usually the opponent of the flagged
    player, unless the flagged player could not lose), then confirms."""
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Time-out: who wins the match?"), lay.H * 10 // 100)
    x, _, w, _ = area
    flagged = (c.snap.get("clock") or {}).get("flagged")
    note_h = lay.H // 10
    if flagged in ("A", "B"):
        pen.note((x, y, w, note_h), tr("{name}'s time has expired").format(name=c.name(flagged)), theme.FLAG)
    back = bottom_row(c, area)
    body = (x, y + note_h + lay.pad, w, back[1] - y - note_h - 3 * lay.pad)
    pick = {"ui": "td_pick_confirm", "type": CommandType.RESOLVE_FLAG, "back": "td_flag"}
    _players(pen, c, body, None, pick)
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, _to_menu())


def _forfeit(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Forfeit: who loses the match?"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    body = (x, y + lay.pad, w, back[1] - y - 3 * lay.pad)
    _players(pen, c, body, None, {"ui": "td_pick_confirm", "type": CommandType.FORFEIT, "back": "td_forfeit"})
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, _to_menu())


def _td_sides(c: Ctx, command: CommandType) -> tuple[str, ...]:
    """The players the rulebook lets the TD give ``command`` for now (``legal.td``)."""
    listed = facts.legal(c.snap, "td").get(command)
    return tuple(s for s in SIDES if isinstance(listed, list) and s in listed)


def _cube_page(c: Ctx, command: CommandType, heading: str, note: str) -> None:
    """A TD cube decision about one player: who, then the confirmation page."""
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, heading, lay.H * 10 // 100)
    x, _, w, _ = area
    note_h = lay.H // 8
    pen.note((x, y, w, note_h), note, theme.TEXT_DIM, size=lay.f_small)
    back = bottom_row(c, area)
    body = (x, y + note_h + lay.pad, w, back[1] - y - note_h - 3 * lay.pad)
    pick = {"ui": "td_pick_confirm", "type": command, "back": str(c.local.overlay)}
    _players(pen, c, body, None, pick, _td_sides(c, command))
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, _to_menu())


def _forbid(c: Ctx) -> None:
    """HU 7.9: the player who touched the cube without doubling may not double in this game."""
    tr = c.tr()
    _cube_page(
        c,
        CommandType.FORBID_DOUBLE,
        tr("Forbid doubling: which player?"),
        tr("The player touched the cube without doubling: no double for the rest of this game (HU 7.9)."),
    )


def _force(c: Ctx) -> None:
    """FFBG 6.8: handling the cube obliges the player to double; the TD enters that double."""
    tr = c.tr()
    _cube_page(
        c,
        CommandType.FORCE_DOUBLE,
        tr("Enter a forced double: which player?"),
        tr("The player handled the cube: the double is entered now, the opponent answers (FFBG 6.8)."),
    )


def _crawford(c: Ctx) -> None:
    """HU 7.5, FFBG 6.5: the match leader keeps or voids a double made in the Crawford game."""
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Double in the Crawford game: the leader's choice"), lay.H * 10 // 100)
    x, _, w, _ = area
    note_h = lay.H // 8
    rule = {"hu": "HU 7.5", "ffbg-cdf": "FFBG 6.5"}.get(facts.profile_of(c.snap).name, "")
    text = tr(
        "The rule forbids any double in the Crawford game; the match leader may keep it or void it ({rule})."
    )
    pen.note((x, y, w, note_h), text.format(rule=rule), theme.TEXT_DIM, size=lay.f_small)
    back = bottom_row(c, area)
    body = (x, y + note_h + lay.pad, w, back[1] - y - note_h - 3 * lay.pad)
    keep_r, void_r = hsplit(body, 2, lay.pad * 3)
    for cell, choice, label in (
        (keep_r, "keep", tr("Keep the double")),
        (void_r, "void", tr("Void the double")),
    ):
        cmd = _cmd(CommandType.CRAWFORD_DOUBLE, choice=choice)
        pen.button(cell, label, _confirm_intents(cmd, "td_crawford"), style="secondary", size=lay.f_label)
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, _to_menu())


def _stepper(pen: Pen, c: Ctx, rect: Rect, value: str, minus: list[Intent], plus: list[Intent]) -> None:
    lay = c.lay
    a, b, d = hsplit(rect, 3, lay.pad)
    pen.button(a, "−", minus, style="secondary", size=lay.f_title)
    pen.text(value, b, lay.f_title)
    pen.button(d, "+", plus, style="secondary", size=lay.f_title)


def _penalty(c: Ctx) -> None:
    """Penalty points against a player (they go to the opponent's score): who, how many, why."""
    lay = c.lay
    tr = c.tr()
    local = c.local
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Penalty points: against whom?"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    rows = vsplit((x, y, w, back[1] - y - lay.pad), 3, lay.pad)
    _players(pen, c, rows[0], local.td_side, {"ui": "td_pick"})
    rx, ry, rw, rh = rows[1]
    pen.text(tr("Points"), (rx, ry, rw // 3, rh), lay.f_label, align="left")
    _stepper(
        pen,
        c,
        (rx + rw // 3, ry, rw * 2 // 3, rh),
        str(local.td_points),
        [{"ui": "td_points", "delta": -1}],
        [{"ui": "td_points", "delta": 1}],
    )
    cells = hsplit(rows[2], len(PENALTY_REASONS), lay.pad)
    for reason, cell in zip(PENALTY_REASONS, cells, strict=True):
        chosen = reason == local.td_reason
        pen.button(
            cell,
            tr(REASON_LABELS[reason]),
            [{"ui": "td_reason", "reason": reason}],
            style="primary" if chosen else "secondary",
            size=lay.f_small,
        )
        if chosen:
            pen.frame(inset(cell, -3), theme.MARKER, 3, lay.radius)
    back_r, ok_r = hsplit(back, 2, lay.pad * 3)
    back_button(pen, c, back_r, tr, _to_menu())
    if local.td_side is not None:
        cmd = _cmd(CommandType.PENALTY, against=local.td_side, points=local.td_points, reason=local.td_reason)
        pen.button(ok_r, tr("Continue"), _confirm_intents(cmd, "td_penalty"), keys=keys.OK, style="good")


def _score(c: Ctx) -> None:
    """The score as the TD corrects it: each player's points −1 / +1, then a confirmation."""
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Correct the score"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    cols = hsplit((x, y, w, back[1] - y - lay.pad), 2, lay.pad * 4)
    for side, col in zip((c.left, other(c.left)), cols, strict=True):
        cx, cy, cw, ch = col
        pen.text(c.name(side), (cx, cy, cw, ch // 4), lay.f_label)
        pen.text(str(c.local.td_score.get(side, 0)), (cx, cy + ch // 4, cw, ch * 2 // 5), lay.f_score)
        steps = (cx, cy + ch * 13 // 20, cw, ch * 7 // 20)
        minus, plus = hsplit(steps, 2, lay.pad)
        for cell, delta, label in ((minus, -1, "−1"), (plus, 1, "+1")):
            pen.button(
                cell,
                label,
                [{"ui": "td_score_adjust", "side": side, "delta": delta}],
                style="secondary",
                size=lay.f_title,
            )
    back_r, ok_r = hsplit(back, 2, lay.pad * 3)
    back_button(pen, c, back_r, tr, _to_menu())
    score = {s: int(c.local.td_score.get(s, 0)) for s in SIDES}
    current = c.snap.get("score") or {}
    if score != {s: int(current.get(s, 0)) for s in SIDES}:
        # an impossible score (WBGF 4.7 with 4.5) is not offered: the rulebook's reason instead
        refusal = _score_refusal(c.snap, score)
        if refusal is not None:
            note = {"code": refusal.code, "params": refusal.params}
            pen.text(refusal_text(c, note, c.left), ok_r, lay.f_small, theme.AMBER, wrap=True)
            return
        cmd = _cmd(CommandType.CORRECT_SCORE, score=score, note="corrected at the table")
        pen.button(ok_r, tr("Continue"), _confirm_intents(cmd, "td_score"), keys=keys.OK, style="good")


def _score_refusal(snap: ScreenSnapshot, score: dict[Side, int]) -> RuleError | None:
    """Why the rulebook would refuse this corrected score (``rulebook.match.score_refusal``)."""
    length = int(snap.get("length") or 0)
    if length < 1:
        return None
    winner = snap.get("winner") if snap.get("winner") in ("A", "B") else None
    return score_refusal(length, Pair(score["A"], score["B"]), winner, snap.get("end_reason"))


def _confirm(c: Ctx) -> None:
    """The last question before a TD action that gives points or ends the match, naming the players
    and what follows."""
    lay = c.lay
    tr = c.tr()
    cmd = c.local.td_pending or {}
    pen, area = full_dialog(c)
    heading, lines, ends = describe(c, cmd)
    y = title(pen, c, area, heading, lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    line_h = (back[1] - y - lay.pad) // max(4, len(lines))
    for i, (text, size, color) in enumerate(lines):
        pen.text(text, (x, y + i * line_h, w, line_h), size, color, wrap=True)
    back_and_ok(
        pen,
        c,
        back,
        tr,
        tr("Confirm"),
        [{"ui": "close"}, cmd],
        back_intents=[{"ui": "td", "page": c.local.td_back, "keep": True}],
        style="bad" if ends else "good",
    )


Lines = list[tuple[str, int, tuple[int, int, int]]]


def describe(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines, bool]:
    """What a pending TD command does, in words: a heading, lines (text, size, colour), and whether
    it ends the match.

    What follows (the new score, the end of the match) is read from ``local.td_outcome``, the
    reducer's dry run of the command (``kiosk.td_preview``), never worked out here."""
    kind = cmd.get("type")
    words = _WORDS.get(kind, _no_words) if isinstance(kind, str) else _no_words
    heading, lines = words(c, cmd)
    outcome = c.local.td_outcome
    ends = outcome is not None and outcome.get("phase") == Phase.FINISHED
    if kind in (CommandType.PENALTY, CommandType.CORRECT_SCORE) and outcome is not None:
        lines += _score_lines(c, outcome)
        winner = outcome.get("winner")
        if ends and winner in SIDES:
            tr = c.tr()
            text = tr("This ends the match: {name} wins").format(name=c.name(winner))
            lines.append((text, c.lay.f_label, theme.AMBER))
    return heading, lines, ends


def _score_lines(c: Ctx, outcome: Snapshot) -> Lines:
    """The score the command leads to, and the one before it, left player first."""
    tr = c.tr()
    before, after = c.snap["score"], outcome["score"]
    right = other(c.left)
    new = tr("New score: {left} – {right}").format(left=after[c.left], right=after[right])
    was = tr("Before: {left} – {right}").format(left=before[c.left], right=before[right])
    return [
        (new, c.lay.f_title, theme.TEXT),
        (f"{c.name(c.left)} – {c.name(right)}  ·  {was}", c.lay.f_small, theme.TEXT_DIM),
    ]


def _flag_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    winner = cast(Side, str(cmd.get("winner")))
    return tr("Confirm the time-out decision"), [
        (tr("{name} wins the match on time").format(name=c.name(winner)), lay.f_title, theme.TEXT),
        (tr("{name} loses the match").format(name=c.name(other(winner))), lay.f_label, theme.TEXT),
    ]


def _forfeit_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    loser = cast(Side, str(cmd.get("against")))
    return tr("Confirm the forfeit"), [
        (tr("{name} loses the match by forfeit").format(name=c.name(loser)), lay.f_title, theme.TEXT),
        (tr("{name} wins the match").format(name=c.name(other(loser))), lay.f_label, theme.TEXT),
    ]


def _penalty_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    against = cast(Side, str(cmd.get("against")))
    points = int(cmd.get("points") or 0)
    reason = str(cmd.get("reason") or "")
    text = tr("Penalty points against {name}: {points}").format(name=c.name(against), points=points)
    lines: Lines = [
        (text, lay.f_title, theme.TEXT),
        (tr(REASON_LABELS.get(reason, reason)), lay.f_label, theme.TEXT_DIM),
    ]
    # what the log already holds, for the TD's eyes (whether it ends the match is the dry run's)
    late = sum(
        int(p.get("points") or 0)
        for p in c.snap.get("penalty_log") or []
        if p.get("against") == against and p.get("reason") in LATENESS_REASONS and not p.get("waived")
    )
    if reason in LATENESS_REASONS and late:
        already = tr("Lateness points already given: {points}").format(points=late)
        lines.append((already, lay.f_label, theme.AMBER))
    return tr("Confirm the penalty"), lines


def _score_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr = c.tr()
    return tr("Confirm the score correction"), []


def _forbid_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    side = cast(Side, str(cmd.get("side")))
    text = tr("{name} may not double for the rest of this game").format(name=c.name(side))
    return tr("Confirm: no more doubling"), [
        (text, lay.f_title, theme.TEXT),
        ("HU 7.9", lay.f_label, theme.TEXT_DIM),
    ]


def _force_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    side = cast(Side, str(cmd.get("side")))
    text = tr("{name} doubles: the cube goes to {value}").format(
        name=c.name(side), value=facts.offered_value(c.snap)
    )
    answer = tr("{name} answers: take or pass").format(name=c.name(other(side)))
    return tr("Confirm the forced double"), [
        (text, lay.f_title, theme.TEXT),
        (answer, lay.f_label, theme.TEXT),
        ("FFBG 6.8", lay.f_label, theme.TEXT_DIM),
    ]


def _crawford_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    if cmd.get("choice") == CrawfordChoice.KEEP:
        text = tr("The double made in the Crawford game stands")
    else:
        text = tr("The double made in the Crawford game is void: the cube goes back to where it was")
    rule = {"hu": "HU 7.5", "ffbg-cdf": "FFBG 6.5"}.get(facts.profile_of(c.snap).name, "")
    return tr("Confirm the leader's choice"), [
        (text, lay.f_title, theme.TEXT),
        (rule, lay.f_label, theme.TEXT_DIM),
    ]


def _double_loss_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr, lay = c.tr(), c.lay
    return tr("Confirm the double loss"), [
        (tr("Both players lose the match"), lay.f_title, theme.TEXT),
        (tr("FFBG 10.3: the table was left while the clock was neutralised"), lay.f_label, theme.TEXT_DIM),
    ]


def _no_words(c: Ctx, cmd: dict[str, Any]) -> tuple[str, Lines]:
    tr = c.tr()
    return tr("TD menu"), []


#: the words of each command the confirmation page asks about (``local.CONFIRMED_COMMANDS``)
_WORDS: dict[str, Callable[[Ctx, dict[str, Any]], tuple[str, Lines]]] = {
    CommandType.RESOLVE_FLAG: _flag_words,
    CommandType.FORFEIT: _forfeit_words,
    CommandType.PENALTY: _penalty_words,
    CommandType.CORRECT_SCORE: _score_words,
    CommandType.FORBID_DOUBLE: _forbid_words,
    CommandType.FORCE_DOUBLE: _force_words,
    CommandType.CRAWFORD_DOUBLE: _crawford_words,
    CommandType.DOUBLE_LOSS: _double_loss_words,
}
assert set(_WORDS) == set(CONFIRMED_COMMANDS), "every confirmed TD command has its words"


# -- the table's settings ----------------------------------------------------------------------------


def _language(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("Table language"), lay.H * 10 // 100)
    x, _, w, _ = area
    back = bottom_row(c, area)
    codes = list(LANGUAGES)
    grid = (x, y, w, back[1] - y - lay.pad)
    cols = 3
    rows = vsplit(grid, 2, lay.pad)
    for i, code in enumerate(codes):
        cell = hsplit(rows[i // cols], cols, lay.pad)[i % cols]
        style = "primary" if code == c.lang else "secondary"
        pen.button(
            cell,
            LANGUAGES[code],
            [{"ui": "close"}, {"app": "set_language", "lang": code}],
            keys=keys.digit_keys(i + 1),
            style=style,
            size=lay.f_label,
        )
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, [{"ui": "td", "page": "td_settings"}])


def _table(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    x, y, w, h = area
    settings = [{"ui": "td", "page": "td_settings"}]
    if c.local.table_number_fixed:
        # the broker credential is the table id's: another number would lock the table out
        yy = title(pen, c, area, tr("Table number"), lay.H * 12 // 100)
        back = bottom_row(c, area)
        number = str(c.snap.get("table") or "–")
        text = tr(
            "This table's number comes with its credential on the tournament network (table {table}), "
            "so it is changed only from the hub: retire the table on the hub's Tables page and enroll "
            "it again with the new number (or install the configuration made for that number)."
        ).format(table=number)
        pen.note((x, yy, w, back[1] - yy - lay.pad), text)
        back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, settings)
        return
    left_w = w * 45 // 100
    left = (x, y, left_w - lay.pad, h)
    yy = title(pen, c, left, tr("Table number"), lay.H * 12 // 100)
    pen.text(c.local.td_table or "–", (x, yy, left_w - lay.pad, lay.H // 6), lay.f_title * 3 // 2)
    back = bottom_row(c, left)
    back_button(pen, c, back, tr, settings)
    ok = [{"ui": "close"}, {"app": "set_table_id", "table": c.local.td_table}] if c.local.td_table else None
    keypad(pen, c, (x + left_w, y, w - left_w, h), "td_table_digit", "td_table_clear", ok)
