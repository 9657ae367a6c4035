"""The pages the players and the room see of the draw: each player's page (``/p/<code>``, its data
``GET /api/players/{code}``, its QR code), the public board's brackets (``GET /api/board/draw``),
and the TD's printable draw sheet (``/draw-sheet``, ``GET /api/draw/sheet``: every entry's name,
address and QR code). docs/draw.md, "What the room and the players see"; docs/api.md.

Everything here is read-only and cut by :mod:`hub.web.draw_public` from the draw's export, so a
player's page says no more than the board does. A page's address is built on the hub's public
address (``--public-url``) when the organiser gave one, else on the ``Host`` the request came
with (the address the TD's browser reached the hub by: the one the room's phones reach it by).
"""

from __future__ import annotations

import asyncio
import functools
import json
import urllib.parse
from pathlib import Path
from typing import Any

import qrcode
import qrcode.constants
import qrcode.image.svg
from aiohttp import web

from hub.live.actions import ActionError
from hub.live.core import Hub
from hub.logic.table_view import board_tile
from hub.web import i18n
from hub.web.draw_public import player_view, public_draw
from hub.web.player_codes import PlayerCodes

STATIC = Path(__file__).parent / "static"


class PlayerPages:
    """What the routes below need: the hub, the players' codes, the public address."""

    def __init__(self, hub: Hub, base_url: str | None = None) -> None:
        self.hub = hub
        self.base_url = (base_url or "").rstrip("/")
        self._codes: PlayerCodes | None = None
        self._doc: dict[str, Any] | None = None
        self._doc_key: tuple[Any, tuple[Any, ...]] = (None, ())

    @property
    def codes(self) -> PlayerCodes:
        """Made at the first page asked for (the secret is written to the store once)."""
        if self._codes is None:
            self._codes = PlayerCodes.load(self.hub.store)
        return self._codes

    def names(self) -> dict[str, str]:
        """The draw's players, registry key -> name, in the draw's order (empty without a draw)."""
        setup = self.hub.draw.setup
        return {} if setup is None else {p.key: p.name for p in setup.players}

    def doc(self) -> dict[str, Any] | None:
        """The draw's export as a dictionary, or None for an event without a draw. Made again only
        when the bracket or the calls changed (every phone in the hall asks after each result)."""
        draw = self.hub.draw
        key = (draw.bracket, tuple(c.call for c in draw.called.values()))
        if self._doc is not None and key[0] is self._doc_key[0] and key[1] == self._doc_key[1]:
            return self._doc
        try:
            doc: dict[str, Any] = json.loads(draw.as_json())
        except ActionError:
            return None
        self._doc, self._doc_key = doc, key
        return doc

    def tile(self, table: str) -> dict[str, Any] | None:
        """The board's tile of a table (what the room board shows of it), or None."""
        if not self.hub.room_state.is_known(table):
            return None
        return board_tile(self.hub.tile(table))

    def base(self, request: web.Request) -> str:
        return page_base(self.base_url, request.scheme, request.host)

    def player_key(self, code: str) -> str | None:
        return self.codes.key_of(code, self.names())


PAGES_KEY = web.AppKey("player_pages", PlayerPages)


def page_base(configured: str, scheme: str, host: str) -> str:
    """Where the players' pages are: the hub's public address if the organiser gave one, else the
    address the request came by (its ``Host``, which the host policy has let in)."""
    return configured.rstrip("/") or f"{scheme}://{host}"


def _error(status: int, message: str, code: str) -> web.Response:
    return web.json_response({"error": message, "code": code}, status=status)


def _json(data: Any) -> web.Response:
    return web.json_response(data, dumps=lambda o: json.dumps(o, ensure_ascii=False))


@functools.lru_cache(maxsize=512)
def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG of black squares (medium error correction: a sheet folded or
    a little worn still reads)."""
    q = qrcode.QRCode(
        border=2,
        error_correction=qrcode.constants.ERROR_CORRECT_M,
        image_factory=qrcode.image.svg.SvgPathImage,
    )
    q.add_data(text)
    q.make(fit=True)
    svg: str = q.make_image().to_string(encoding="unicode")
    return svg


async def page_player(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "player.html", headers={"Cache-Control": "no-cache"})


async def page_draw_sheet(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "draw-sheet.html", headers={"Cache-Control": "no-cache"})


async def api_player(request: web.Request) -> web.Response:
    """A player's page: their next match, its table, opponent and live score, their path, the
    page's words in their language; 404 for a code that is nobody's (or an event without a
    draw)."""
    pages = request.app[PAGES_KEY]
    lang = i18n.language(request.query.get("lang"), request.headers.get("Accept-Language"))
    common = {"lang": lang, "languages": i18n.LANGUAGES, "words": i18n.words(lang)}
    key = pages.player_key(request.match_info["code"])
    doc = pages.doc() if key is not None else None
    if key is None or doc is None:
        return web.json_response(
            {"error": "no player has this address", "code": "player.unknown", **common}, status=404
        )
    hub = pages.hub
    view = player_view(doc, key, pages.names(), pages.tile)
    return _json({"event": hub.config.event, "now_wall": hub.clock.now_wall(), **view, **common})


async def api_player_qr(request: web.Request) -> web.Response:
    """The QR code of a player's page (the address on the draw sheet), an SVG."""
    pages = request.app[PAGES_KEY]
    code = request.match_info["code"]
    if pages.player_key(code) is None:
        return _error(404, "no player has this address", "player.unknown")
    # tens of milliseconds of a core each (a draw sheet asks for every player's at once): never
    # on the loop that serves the room
    svg = await asyncio.get_running_loop().run_in_executor(None, qr_svg, f"{pages.base(request)}/p/{code}")
    return web.Response(
        text=svg,
        content_type="image/svg+xml",
        headers={"Cache-Control": "no-cache"},
    )


async def api_board_draw(request: web.Request) -> web.Response:
    """The public board's brackets (players by name only); 404 for an event without a draw."""
    pages = request.app[PAGES_KEY]
    doc = pages.doc()
    if doc is None:
        return _error(404, "this event has no draw", "draw.none")
    return _json(public_draw(doc, pages.names()))


async def api_draw_sheet(request: web.Request) -> web.Response:
    """The draw sheet: every entry of the draw, its flight, its page's address and QR code."""
    pages = request.app[PAGES_KEY]
    hub = pages.hub
    setup = hub.draw.setup
    if setup is None:
        return _error(404, "this event has no draw", "draw.none")
    base = pages.base(request)
    flights: dict[str, str] = {}
    for d in setup.draws:  # each player's first flight: where their page starts
        for key in d.positions:
            if key is not None:
                flights.setdefault(key, d.flight)
    rows = []
    for p in setup.players:
        code = pages.codes.code(p.key)
        rows.append(
            {
                "name": p.name,
                "flight": flights.get(p.key, ""),
                "code": code,
                "url": f"{base}/p/{code}",
                "qr": f"/api/players/{urllib.parse.quote(code)}/qr.svg",
            }
        )
    rows.sort(key=lambda r: r["name"].casefold())
    return _json({"event": hub.config.event, "base_url": base, "players": rows})


def add_player_routes(app: web.Application, pages: PlayerPages) -> None:
    """Register the player pages' routes (their permissions: hub/web/roles.py)."""
    app[PAGES_KEY] = pages
    r = app.router
    r.add_get("/p/{code}", page_player)
    r.add_get("/draw-sheet", page_draw_sheet)
    r.add_get("/api/players/{code}", api_player)
    r.add_get("/api/players/{code}/qr.svg", api_player_qr)
    r.add_get("/api/board/draw", api_board_draw)
    r.add_get("/api/draw/sheet", api_draw_sheet)
