"""Why the table refused a player's input, on that player's half, in that player's language.

A touch can only send what the rulebook allows (the buttons follow the snapshot's ``legal``), but
a clock button, the dice tower or a key can send anything: a press on the clock that is not
running, a roll before the turn is over. The table keeps the match as it was and says why, with
the message of the rulebook's refusal code from the ``rules`` catalog of the player's language
(never the reducer's English text), over the status row of the player whose input it was (both
halves for the table's own inputs), for a few seconds or until a touch.
"""

from __future__ import annotations

from typing import Any

from kiosk.ui import theme
from kiosk.ui.i18n import rules_translator
from kiosk.ui.layout import inset
from kiosk.ui.screens import common
from kiosk.ui.screens.base import Ctx
from rulebook.sides import SIDES, Side

#: message values that name a side: shown as the player's name
SIDE_PARAMS = frozenset({"side", "owner"})


def text(c: Ctx, note: dict[str, Any], side: Side) -> str:
    """The refusal's message in ``side``'s language, sides named by the players' names."""
    params = {
        key: c.name(value) if key in SIDE_PARAMS and value in SIDES else value
        for key, value in (note.get("params") or {}).items()
    }
    return rules_translator(c.side_lang(side))(str(note.get("code") or ""), params)


def draw(c: Ctx, note: dict[str, Any]) -> None:
    """The note over the status row of the player concerned (both, for the table's inputs)."""
    until = note.get("until_wall")
    if not isinstance(until, int) or c.now >= until:
        return
    lay = c.lay
    sides = [note["side"]] if note.get("side") in SIDES else list(SIDES)
    for side in sides:
        rect = common.rows(c, side)["info"]
        pen = c.region(f"refusal.{side}", rect, theme.AMBER, overlay=True)
        pen.text(
            text(c, note, side),
            inset(rect, lay.pad // 2),
            lay.f_small,
            theme.TEXT_DARK,
            bold=False,
            wrap=True,
        )
        pen.hit(inset(rect, lay.pad), [{"ui": "dismiss"}])
