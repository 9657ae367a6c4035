"""The players' page addresses of an assignment (its ``pages``, docs/protocol.md §3.1), read at
the table's edge: shown with their QR codes on the waiting screen of that match.

A table trusts the hub no more than the hub trusts a table: each side's address is checked
against its declaration (:func:`rulebook.wire.parse_pages`: an http(s) address of at most
``MAX_PAGE_URL`` characters); one that fails is dropped (logged), the other side's kept, and the
screen shows no code rather than a wrong one. Nothing here reaches the rulebook or the journal.

Pure: the application calls :func:`take` with each assignment it receives.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from rulebook.errors import WireError
from rulebook.messages import PlayerPages
from rulebook.sides import SIDES
from rulebook.wire import parse_pages

log = logging.getLogger("kiosk")

#: the matches whose pages are kept (the one on the screen and one assigned while it finishes)
KEEP = 2


def read(payload: Mapping[str, Any]) -> PlayerPages:
    """The valid page addresses of an ``assign`` payload (empty without any)."""
    raw = payload.get("pages")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        log.warning("assignment's pages dropped: not an object")
        return {}
    out: PlayerPages = {}
    for side in SIDES:
        if side not in raw:
            continue
        try:
            out.update(parse_pages({side: raw[side]}))
        except WireError as exc:
            log.warning("assignment's page of %s dropped: %s", side, exc)
    return out


def take(kept: Mapping[str, PlayerPages], payload: Mapping[str, Any]) -> dict[str, PlayerPages]:
    """``kept`` (match id -> pages) with the pages of the assignment ``payload``: a match's latest
    assignment decides (one without pages forgets them); only the last :data:`KEEP` matches."""
    match_id = payload.get("match_id")
    if not isinstance(match_id, str):
        return dict(kept)
    out = {k: v for k, v in kept.items() if k != match_id}
    pages = read(payload)
    if pages:
        out[match_id] = pages
    return dict(list(out.items())[-KEEP:])
