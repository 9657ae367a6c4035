"""Each player's page address in the assignment of a match of the draw, for the table's waiting
screen to show with its QR code (an ``assign``'s ``pages``; docs/protocol.md §3.1, docs/draw.md).

The address is the one printed on the draw sheet: the hub's public address (``--public-url``),
``/p/`` and the player's code (:mod:`hub.web.player_codes`). Without a public address the hub
sends none: the dashboard's own address is often ``localhost`` or an interface the room's phones
do not reach, and a QR code that leads nowhere is worse than none. A match not of the draw (a
schedule's) has no page.
"""

from __future__ import annotations

import logging

from hub.live.calls import DrawCalls
from hub.web.player_codes import Meta, PlayerCodes
from rulebook.errors import WireError
from rulebook.messages import PlayerPages
from rulebook.wire import parse_pages

log = logging.getLogger("hub")


class TablePages:
    """The page addresses of a called match's players (see module doc)."""

    def __init__(self, draw: DrawCalls, store: Meta, public_url: str | None) -> None:
        self.draw = draw
        self.store = store
        self.base = (public_url or "").rstrip("/")
        self._codes: PlayerCodes | None = None

    def pages(self, match_id: str) -> PlayerPages | None:
        """Each seat's page address of ``match_id``, or None (no public address, not a match of
        the draw, or an address the wire would refuse: too long a public address)."""
        called = self.draw.called.get(match_id)
        if not self.base or called is None:
            return None
        if self._codes is None:  # the secret the draw sheet's codes are made with (made once)
            self._codes = PlayerCodes.load(self.store)
        a, b = called.players
        pages = {"A": f"{self.base}/p/{self._codes.code(a)}", "B": f"{self.base}/p/{self._codes.code(b)}"}
        try:
            return parse_pages(pages)
        except WireError as exc:
            log.warning("players' pages not sent to the tables: %s (check --public-url)", exc)
            return None
