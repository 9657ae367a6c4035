"""The clock notice: this table's time of day is off from the room's (kiosk/room_clock.py).

What the players need to know, on each half in that player's language: the table's clock is off
(by how much, which way), and the TD should come (only the TD sets a table's time; the hub raised
its ``clock_skew`` alert too, but a TD busy elsewhere may not have seen it). Nothing else changes:
the match clocks run on the monotonic clock, and the table never sets its own clock from the hub's.

Unobtrusive, like the journal banner (kiosk/ui/screens/banner.py) an overlay region over what is
already drawn, but a narrow band in each player's half rather than across the top bar: the calls
to the TD and the language chips stay, and so do the scores, the clocks and every button. The band
covers the players' names once the match is under way; on the waiting screen, where the names
tell the arriving players which half is theirs, it covers the foot of the panel instead (the
lateness details there, which the table works out from its own clock). With no match, one band
in the table's language along the foot of the screen. It has no touch area: a touch goes to what
is beneath. It is drawn before the dialogs, which cover it.
"""

from __future__ import annotations

from kiosk.ui import facts, theme
from kiosk.ui.i18n import N_, Translator
from kiosk.ui.layout import Rect
from kiosk.ui.screens.base import Ctx, Pen
from rulebook.sides import SIDES, Side
from rulebook.vocab import Phase

#: the message for each unit and direction; whole sentences, so that each language can inflect
#: the amount as it needs (Hungarian "12 perccel", Greek "12 λεπτά")
BEHIND = {
    "s": N_("This table's clock is {n} s behind the room's — call the TD"),
    "min": N_("This table's clock is {n} min behind the room's — call the TD"),
    "h": N_("This table's clock is {n} h behind the room's — call the TD"),
    "days": N_("This table's clock is {n} days behind the room's — call the TD"),
}
AHEAD = {
    "s": N_("This table's clock is {n} s ahead of the room's — call the TD"),
    "min": N_("This table's clock is {n} min ahead of the room's — call the TD"),
    "h": N_("This table's clock is {n} h ahead of the room's — call the TD"),
    "days": N_("This table's clock is {n} days ahead of the room's — call the TD"),
}


def amount(offset_ms: int) -> tuple[str, int]:
    """The unit and the whole number the notice says: seconds under two minutes, then minutes
    under two hours, hours under two days, then days (as the hub's alert counts, truncated)."""
    s = abs(int(offset_ms)) // 1000
    if s < 120:
        return "s", s
    if s < 2 * 3600:
        return "min", s // 60
    if s < 2 * 86_400:
        return "h", s // 3600
    return "days", s // 86_400


def message(tr: Translator, offset_ms: int) -> str:
    """The notice in one language; ``offset_ms`` is the table's clock minus the room's."""
    unit, n = amount(offset_ms)
    table = AHEAD if offset_ms > 0 else BEHIND
    return tr(table[unit]).format(n=n)


def notice(c: Ctx, offset_ms: int) -> None:
    """Draw the notice for an offset of ``offset_ms`` (see module doc)."""
    if not facts.has_match(c.snap):
        lay = c.lay
        rect = (lay.pad, lay.H - lay.name_h - lay.pad, lay.W - 2 * lay.pad, lay.name_h)
        pen = c.region("clock_notice", rect, theme.OVERLAY, overlay=True)
        _band(pen, c, rect, message(c.tr(), offset_ms))
        return
    for side in SIDES:
        rect = band_rect(c, side)
        pen = c.region(f"{side}.clock_notice", rect, theme.OVERLAY, overlay=True)
        _band(pen, c, rect, message(c.tr(side), offset_ms))


def band_rect(c: Ctx, side: Side) -> Rect:
    """Where a player's band goes: over the name, or over the panel's foot while players arrive."""
    lay = c.lay
    x, w = c.side_x(side), lay.side_w
    if c.snap.get("phase") == Phase.WAITING:
        return (x, lay.top + lay.content_h - lay.delay_h, w, lay.delay_h)
    # the name row, with the top bar's margin under its buttons and the free space above the
    # score's digits (a fifth of the name row)
    y = lay.top - lay.pad * 3 // 4
    return (x, y, w, lay.top + lay.name_h + lay.name_h // 5 - y)


def _band(pen: Pen, c: Ctx, rect: Rect, text: str) -> None:
    lay = c.lay
    x, y, w, h = rect
    pen.frame((x + 2, y + 2, w - 4, h - 4), theme.AMBER, 2, lay.radius // 2)
    icon = lay.name_h * 2 // 5
    _clock_icon(pen, (x + lay.pad, y + (h - icon) // 2, icon, icon))
    text_x = x + lay.pad * 3 // 2 + icon
    box = (text_x, y + 4, x + w - text_x - lay.pad, h - 8)
    pen.text(text, box, lay.f_small, theme.TEXT, bold=False, wrap=True)


def _clock_icon(pen: Pen, rect: Rect) -> None:
    """A clock face (ring and hands): the notice is about the time of day, not about a player."""
    x, y, w, h = rect
    r = min(w, h) // 2
    cx, cy = x + w // 2, y + h // 2
    pen.circle((cx, cy), r, theme.AMBER, max(2, r // 5))
    pen.line((cx, cy), (cx, cy - r * 3 // 5), theme.AMBER, max(2, r // 6))
    pen.line((cx, cy), (cx + r // 2, cy), theme.AMBER, max(2, r // 6))
