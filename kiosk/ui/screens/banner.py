"""The journal banner: across the top of every screen while the journal notice is open.

Why a banner and not a dialog: the players must still see the match (score, clocks) that the
table restored, and the TD must still reach the TD menu; the banner covers only the top bar,
says what happened in the table's language, and a touch on it opens the TD menu's PIN pad.
It goes away when the application clears ``local.journal_notice`` (a TD dealt with the table).
"""

from __future__ import annotations

from kiosk.ui import keys, theme
from kiosk.ui.screens.base import Ctx
from rulebook.messages import JournalNotice


def message(c: Ctx, notice: JournalNotice) -> str:
    """The banner's text for a notice, in the table's language."""
    tr = c.tr()
    if notice.get("problem") == "lost":
        match = str(notice.get("match_id") or "–")
        return tr("Journal lost for match {match} — call the TD").format(match=match)
    return tr("Journal damaged after input {n} — call the TD").format(n=int(notice.get("after_input") or 0))


def banner(c: Ctx, notice: JournalNotice) -> None:
    lay = c.lay
    rect = (0, 0, lay.W, lay.top)
    pen = c.region("banner", rect, theme.AMBER, overlay=True)
    icon = lay.top * 9 // 20
    pen.bell((lay.pad * 2, (lay.top - icon) // 2, icon, icon), theme.TEXT_DARK)
    text_x = lay.pad * 4 + icon
    pen.text(
        message(c, notice),
        (text_x, 4, lay.W - text_x - lay.pad * 2, lay.top - 8),
        lay.f_label,
        theme.TEXT_DARK,
        wrap=True,
    )
    # the whole banner opens the PIN pad; its drawn target stays off the screen's edge
    touch = (lay.pad, lay.pad, lay.W - 2 * lay.pad, lay.top - 2 * lay.pad)
    pen.hit(touch, [{"ui": "open", "overlay": "pin"}], keys.TD_MENU, grow=lay.pad)
