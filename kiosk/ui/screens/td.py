"""The TD menu, behind a PIN: pause and resume, set time, impose a clock, settle a time-out,
acknowledge a call, and the table's own settings (language, table number, which side is which).

Match actions go to the table as ``cmd`` inputs, exactly as the hub's commands do (the application
adds ``id`` and ``at``); table settings are requests to the application (``{"app": ...}``).
"""

from __future__ import annotations

from kiosk.ui import facts, keys, theme
from kiosk.ui.fmt import clock_text
from kiosk.ui.i18n import LANGUAGES
from kiosk.ui.layout import Rect, hsplit, vsplit
from kiosk.ui.local import MSG_WRONG_PIN
from kiosk.ui.screens.base import Ctx, Pen, other
from kiosk.ui.screens.dialogs import back_and_ok, back_button, bottom_row, full_dialog, title
from rulebook.clock import imposed_reserve_ms

MINUTE = 60_000


def build(c: Ctx, overlay: str) -> None:
    {
        "pin": _pin,
        "td": _menu,
        "td_time": _set_time,
        "td_clock": _impose_clock,
        "td_lang": _language,
        "td_table": _table,
    }.get(overlay, _menu)(c)


def keypad(pen: Pen, c: Ctx, rect: Rect, digit_intent: str, clear_intent: str, ok: list[dict] | None) -> None:
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


def _menu(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    snap = c.snap
    pen, area = full_dialog(c)
    y = title(pen, c, area, tr("TD menu"), lay.H * 10 // 100)
    x, _, w, _ = area
    phase = snap.get("phase")
    clock = snap.get("clock") or {}
    entries: list[tuple[str, list[dict], str]] = []
    if facts.has_match(snap) and phase in ("opening", "playing", "between_games", "break"):
        entries.append((tr("Pause the clock"), [{"ui": "close"}, _cmd("pause", reason="td")], "primary"))
    if phase == "paused":
        entries.append((tr("Resume the clock"), [{"ui": "close"}, _cmd("resume")], "good"))
    if phase == "flag":
        flagged = clock.get("flagged")
        for side in (c.left, other(c.left)):
            label = tr("{name} wins the match").format(name=c.name(side))
            style = "secondary" if side == flagged else "primary"
            entries.append((label, [{"ui": "close"}, _cmd("resolve_flag", winner=side)], style))
    if facts.has_match(snap) and clock.get("enabled") and phase != "finished":
        entries.append(
            (
                tr("Set the time"),
                [{"ui": "td", "page": "td_time", "reserve_ms": clock.get("reserve_ms")}],
                "secondary",
            )
        )
    if facts.has_match(snap) and phase != "finished":
        entries.append((tr("Impose a clock"), [{"ui": "td", "page": "td_clock"}], "secondary"))
    if any(facts.td_calls(snap).values()):
        entries.append((tr("Answer the call"), [{"ui": "close"}, _cmd("td_ack")], "amber"))
    entries.append((tr("Table language"), [{"ui": "td", "page": "td_lang"}], "secondary"))
    entries.append(
        (
            tr("Table number"),
            [{"ui": "td", "page": "td_table", "table": snap.get("table") or ""}],
            "secondary",
        )
    )
    entries.append((tr("Swap the sides"), [{"ui": "close"}, {"app": "flip"}], "secondary"))
    back = bottom_row(c, area)
    cols = 3
    rows = (len(entries) + cols - 1) // cols
    grid_h = back[1] - y - lay.pad
    cell_h = min(lay.H // 6, (grid_h - (rows - 1) * lay.pad) // rows)
    cell_w = (w - (cols - 1) * lay.pad) // cols
    for i, (label, intents, style) in enumerate(entries):
        rect = (x + (i % cols) * (cell_w + lay.pad), y + (i // cols) * (cell_h + lay.pad), cell_w, cell_h)
        pen.button(
            rect, label, intents, keys=keys.digit_keys(i + 1) if i < 9 else (), style=style, size=lay.f_label
        )
    pen.button(
        (x + w // 3, back[1], w // 3, back[3]),
        tr("Close"),
        [{"ui": "close"}],
        keys=keys.BACK,
        style="secondary",
    )


def _cmd(kind: str, **fields: object) -> dict:
    return {"input": "cmd", "type": kind, **fields}


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
        [{"ui": "close"}, _cmd("set_time", reserve_ms=reserves)],
        back_intents=[{"ui": "td", "page": "td"}],
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
    away = [max(0, length - int(score.get(s, 0))) for s in ("A", "B")]
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
        [{"ui": "close"}, _cmd("impose_clock", minutes_per_point=mpp, delay_s=delay)],
        back_intents=[{"ui": "td", "page": "td"}],
    )


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
    back_button(pen, c, (x + w // 3, back[1], w // 3, back[3]), tr, [{"ui": "td", "page": "td"}])


def _table(c: Ctx) -> None:
    lay = c.lay
    tr = c.tr()
    pen, area = full_dialog(c)
    x, y, w, h = area
    left_w = w * 45 // 100
    left = (x, y, left_w - lay.pad, h)
    yy = title(pen, c, left, tr("Table number"), lay.H * 12 // 100)
    pen.text(c.local.td_table or "–", (x, yy, left_w - lay.pad, lay.H // 6), lay.f_title * 3 // 2)
    back = bottom_row(c, left)
    back_button(pen, c, back, tr, [{"ui": "td", "page": "td"}])
    ok = [{"ui": "close"}, {"app": "set_table_id", "table": c.local.td_table}] if c.local.td_table else None
    keypad(pen, c, (x + left_w, y, w - left_w, h), "td_table_digit", "td_table_clear", ok)
