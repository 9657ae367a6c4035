"""The dashboard's web server: static pages, the JSON API under ``/api/``, live pushes over WebSocket.

Read-only views need a logged-in TD unless the hub runs with ``--public``; the room-screen board
(``/board``, ``/api/board``) shows only what the tables show anyway and is always public. Every
POST needs a logged-in session (except the login itself) and that session's CSRF token in the
``X-CSRF-Token`` header. The API is documented in ``docs/api.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import inspect
import json
import logging
import sqlite3
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from hub.live.actions import ActionError
from hub.live.alerts import public_alert
from hub.live.core import Hub
from hub.live.dice_towers import THRESHOLDS, dice_csv
from hub.live.draw_setup import read_draw_text
from hub.live.round_control import PlayersToIdentify
from hub.live.transcripts import match_transcript
from hub.logic.table_view import board_tile
from hub.logic.timeline import Filters
from hub.storage.store import Listing, is_storage_error
from hub.tournament.exports import results_csv, results_json
from hub.tournament.schedule import ScheduleError
from hub.web import roles
from hub.web.accounts import Accounts
from hub.web.auth import BUILTIN_USER, COOKIE, Auth, Session
from hub.web.hosts import HostPolicy
from hub.web.login_throttle import Refused
from hub.web.player_pages import PlayerPages, add_player_routes
from rulebook import transcript

log = logging.getLogger("hub.web")
STATIC = Path(__file__).parent / "static"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: the largest JSON body a POST may have (a TD's action is well under 1 KiB)
MAX_JSON_BODY = 64 * 1024
#: the largest login body: a user name and a password
MAX_LOGIN_BODY = 4 * 1024
#: the largest body of all (a schedule CSV upload); aiohttp refuses more with 413
MAX_UPLOAD = 4 * 1024 * 1024
#: how often sessions idle for too long are dropped and their live connections closed
SWEEP_S = 30.0
#: how often the hub looks whether another process changed its database (an account removed or
#: given a new password with ``bghub user``): one cheap ``PRAGMA data_version`` each time
ACCOUNT_CHECK_S = 0.5
#: the Tables page's rows are pushed at most this often (coalesced: each device's latest row)
FLEET_PUSH_S = 0.5
#: the devices' own endpoints (no cookie, no session: hub/fleet/routes.py)
DEVICE_PREFIX = "/device/v1/"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

HUB_KEY = web.AppKey("hub", Hub)
AUTH_KEY = web.AppKey("auth", Auth)
ACCOUNTS_KEY = web.AppKey("accounts", Accounts)
PUBLIC_KEY = web.AppKey("public", bool)
HOSTS_KEY = web.AppKey("hosts", HostPolicy)
SESSION_KEY: web.RequestKey[Session | None] = web.RequestKey("session")


def _error(status: int, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


def _json(data: Any) -> web.Response:
    return web.json_response(data, dumps=lambda o: json.dumps(o, ensure_ascii=False))


def _listed(rows: Listing) -> web.Response:
    """A listing from the store; ``X-Truncated: true`` when its byte budget cut it short."""
    response = _json(rows)
    if rows.truncated:
        response.headers["X-Truncated"] = "true"
    return response


class Push:
    """Fan-out of the hub's change messages to every open WebSocket (serialised once each).

    Each connection opened with a logged-in session is filed under that session's token, so that
    logging out, or the session expiring, closes it: what the hub shows stops with the session.
    A message type with an entry in :attr:`shapes` is shown to each connection as its role may see
    it (the fleet's rows: codes and device ids only to the roles that enroll), once per role.
    """

    def __init__(self, hub: Hub) -> None:
        self.clients: dict[web.WebSocketResponse, tuple[asyncio.Queue[str], bool, str | None]] = {}
        self.by_session: dict[str, set[web.WebSocketResponse]] = {}
        #: the fleet's rows changed since the last fleet push (device -> row, or None: removed)
        self._fleet: dict[str, dict[str, Any] | None] = {}
        self._fleet_now: int | None = None
        self._fleet_flush: asyncio.TimerHandle | None = None
        #: fleet messages pushed (each to every dashboard open): docs/performance.md
        self.fleet_pushes = 0
        #: message type -> the message as a role (None: not logged in) may see it
        self.shapes: dict[str, Callable[[dict[str, Any], str | None], dict[str, Any]]] = {}
        self.unsubscribe = hub.subscribe(self.on_message)

    def add(
        self,
        ws: web.WebSocketResponse,
        queue: asyncio.Queue[str],
        board: bool,
        token: str | None,
        role: str | None = None,
    ) -> None:
        self.clients[ws] = (queue, board, role)
        if token is not None:
            self.by_session.setdefault(token, set()).add(ws)

    def remove(self, ws: web.WebSocketResponse) -> None:
        self.clients.pop(ws, None)
        for token, sockets in list(self.by_session.items()):
            sockets.discard(ws)
            if not sockets:
                del self.by_session[token]

    async def close_sessions(self, tokens: list[str], why: str) -> None:
        """Close the live connections of these sessions (logged out, expired, pushed out)."""
        for token in tokens:
            for ws in list(self.by_session.pop(token, ())):
                self.clients.pop(ws, None)
                await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=why.encode("utf-8"))

    def on_message(self, msg: dict[str, Any]) -> None:
        if not self.clients:
            return
        if msg["type"] == "fleet":
            self._coalesce_fleet(msg)
            return
        self._send(msg)

    def close(self) -> None:
        """No more pushes (the web server stops)."""
        if self._fleet_flush is not None:
            self._fleet_flush.cancel()
            self._fleet_flush = None

    def _coalesce_fleet(self, msg: dict[str, Any]) -> None:
        """The Tables page's rows, pushed at most every :data:`FLEET_PUSH_S`, each device's latest
        once: a table reporting as fast as its allowance lets it (or a burst of hellos) is one
        message per interval to each dashboard, not one per report."""
        for row in msg.get("rows") or []:
            self._fleet[row["device"]] = row
        for device in msg.get("removed") or []:
            self._fleet[device] = None
        self._fleet_now = msg.get("now_wall")
        if self._fleet_flush is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not on a loop (nothing to wait with): at once
                self._flush_fleet()
                return
            self._fleet_flush = loop.call_later(FLEET_PUSH_S, self._flush_fleet)

    def _flush_fleet(self) -> None:
        self._fleet_flush = None
        changed, self._fleet = self._fleet, {}
        if not changed or not self.clients:
            return
        rows = [row for row in changed.values() if row is not None]
        removed = [device for device, row in changed.items() if row is None]
        msg: dict[str, Any] = {"type": "fleet", "rows": rows, "now_wall": self._fleet_now}
        if removed:
            msg["removed"] = removed
        self.fleet_pushes += 1
        self._send(msg)

    def _send(self, msg: dict[str, Any]) -> None:
        full: str | None = None
        board: str | None = None
        shape = self.shapes.get(msg["type"])
        shaped: dict[str | None, str] = {}
        for ws, (queue, is_board, role) in list(self.clients.items()):
            if is_board:
                if msg["type"] != "tiles":
                    continue
                if board is None:
                    tiles = [board_tile(t) for t in msg["tiles"]]
                    board = json.dumps({"type": "tiles", "tiles": tiles, "now_wall": msg["now_wall"]})
                data = board
            elif shape is not None:
                if role not in shaped:
                    shaped[role] = json.dumps(shape(msg, role), ensure_ascii=False)
                data = shaped[role]
            else:
                if full is None:
                    full = json.dumps(msg, ensure_ascii=False)
                data = full
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:
                log.warning("a dashboard is not keeping up; closing its connection")
                del self.clients[ws]
                asyncio.get_running_loop().create_task(ws.close())


PUSH_KEY = web.AppKey("push", Push)


@web.middleware
async def security(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Host check, session lookup, CSRF check on every state-changing request, protective headers."""
    host = request.headers.get("Host")
    hosts = request.app[HOSTS_KEY]
    if not hosts.allows(host):
        return _error(421 if host else 400, hosts.refusal(host))
    auth = request.app[AUTH_KEY]
    session = auth.get(request.cookies.get(COOKIE))
    request[SESSION_KEY] = session
    origin = request.headers.get("Origin")
    if origin is not None and origin.split("://", 1)[-1] != request.host:
        return _error(403, "cross-origin request refused")
    # The devices' enrollment endpoints (hub/fleet/routes.py) use no session: nothing to forge.
    if (
        request.method not in SAFE_METHODS
        and not request.path.startswith(DEVICE_PREFIX)
        and not auth.check_csrf(session, request.headers.get("X-CSRF-Token"))
    ):
        return _error(403, "missing or wrong CSRF token (reload the page)")
    refused = _permission_refusal(request, session)
    if refused is not None:
        return refused
    try:
        response = await handler(request)
    except Exception as exc:
        if not is_storage_error(exc):
            raise
        hub = request.app[HUB_KEY]
        hub.store.write_failed(exc)
        return _error(503, f"the hub cannot write to its database ({hub.store.failure}): nothing was done")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'",
    )
    return response


def _permission_refusal(request: web.Request, session: Session | None) -> web.Response | None:
    """401 or 403 unless the session's role has what this route needs (hub/web/roles.py's table)."""
    resource = request.match_info.route.resource
    if resource is None:  # no such path or method: aiohttp's own 404/405 follows
        return None
    needed = roles.needs(request.method, resource.canonical)
    if needed is None:
        return _error(403, "this endpoint has no permission assigned: refused to everybody")
    if needed in (roles.ANYONE, roles.DEVICE):
        return None
    if resource.canonical == "/api/ws" and request.query.get("board") == "1":
        return None  # the room board's live tiles: what the tables show anyway (api_ws)
    role = session.role if session is not None and session.logged_in else None
    if needed == roles.READ and request.app[PUBLIC_KEY]:
        return None
    if role is None:
        return _error(401, "log in first")
    if not roles.may(role, needed):
        label = roles.LABELS.get(role, role)
        return _error(
            403, f"a {label} may not do this (it needs the permission {needed!r})", missing=needed, role=role
        )
    return None


def _session(request: web.Request) -> Session | None:
    return request[SESSION_KEY]


def _can_read(request: web.Request) -> bool:
    s = _session(request)
    return request.app[PUBLIC_KEY] or (s is not None and s.logged_in)


def reader(handler: Handler) -> Handler:
    async def wrapped(request: web.Request) -> web.StreamResponse:
        if not _can_read(request):
            return _error(401, "log in first")
        return await handler(request)

    return wrapped


def writer(handler: Handler) -> Handler:
    async def wrapped(request: web.Request) -> web.StreamResponse:
        s = _session(request)
        if s is None or not s.logged_in:
            return _error(401, "log in first")
        return await handler(request)

    return wrapped


async def _read_limited(request: web.Request, limit: int) -> bytes:
    """The request's body, read no further than ``limit`` bytes (413 beyond it, unread)."""
    too_big = web.HTTPRequestEntityTooLarge(
        max_size=limit,
        actual_size=request.content_length or limit + 1,
        text=json.dumps({"error": f"the body is too large (at most {limit} bytes)"}),
        content_type="application/json",
    )
    if request.content_length is not None and request.content_length > limit:
        raise too_big
    data = bytearray()
    while chunk := await request.content.read(limit + 1 - len(data)):
        data += chunk
        if len(data) > limit:
            raise too_big
    return bytes(data)


async def _body(request: web.Request, limit: int = MAX_JSON_BODY) -> dict[str, Any]:
    """The request's JSON object (400 if it is not one, 413 if longer than ``limit``)."""
    raw = await _read_limited(request, limit)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise web.HTTPBadRequest(
            text='{"error": "the body must be JSON"}', content_type="application/json"
        ) from None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(
            text='{"error": "the body must be a JSON object"}', content_type="application/json"
        )
    return data


def _actor(request: web.Request) -> str:
    s = _session(request)
    return s.actor if s else "anonymous"


# -- pages ----------------------------------------------------------------------------------------


async def page_index(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def page_board(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "board.html", headers={"Cache-Control": "no-cache"})


# -- session --------------------------------------------------------------------------------------


def _set_cookie(response: web.Response, session: Session) -> None:
    response.set_cookie(COOKIE, session.token, httponly=True, samesite="Strict", path="/")


async def api_session(request: web.Request) -> web.Response:
    auth = request.app[AUTH_KEY]
    s = _session(request)
    fresh = s is None
    if s is None:
        s = auth.anonymous()  # kept nowhere: the cookie and the token it derives are enough
    hub = request.app[HUB_KEY]
    response = _json(
        {
            "logged_in": s.logged_in,
            "csrf": s.csrf,
            "public": request.app[PUBLIC_KEY],
            "event": hub.config.event,
            "user": s.user if s.logged_in else None,
            "role": s.role if s.logged_in else None,
            "permissions": roles.granted(s.role) if s.logged_in else [],
            # who else is logged in (each person once): the TD team sees itself
            "team": auth.team() if s.logged_in else [],
        }
    )
    if fresh:
        _set_cookie(response, s)
    return response


async def api_login(request: web.Request) -> web.Response:
    """A login: the attempt is reserved (throttle) before the body is read or a hash computed."""
    auth = request.app[AUTH_KEY]
    client = request.remote or "?"
    try:
        attempt = auth.reserve(client)
    except Refused as exc:
        return _error(429, str(exc))
    succeeded = False
    account: tuple[int, int] | None = None
    try:
        body = await _body(request, MAX_LOGIN_BODY)
        password, user = body.get("password"), body.get("user")
        if not isinstance(password, str):
            return _error(400, "password: expected a string")
        if user == "":
            user = None  # the login form's name left empty: the hub's own password
        if user is not None and not isinstance(user, str):
            return _error(400, "user: expected a name")
        stored, role, named, account = auth.credentials(user)
        loop = asyncio.get_running_loop()
        # scrypt takes tens of milliseconds of a core: never on the loop that serves the room
        succeeded = await loop.run_in_executor(None, auth.check_password, password, stored)
        succeeded = succeeded and role is not None
    finally:
        auth.release(attempt, succeeded=succeeded)
    if not succeeded or role is None:
        return _error(401, "wrong name or password" if user is not None else "wrong password")
    name = user if user is not None else BUILTIN_USER
    fresh, dropped = auth.open_session(_session(request), name, role, named=named, account=account)
    await request.app[PUSH_KEY].close_sessions(dropped, "session ended")
    hub = request.app[HUB_KEY]
    try:  # the audit row is kept if it can be: a full disk must not lock the TD out
        hub.store.audit(fresh.actor, "login", hub.clock.now_wall(), detail={"from": client, "role": role})
        hub.store.commit()
    except Exception as exc:
        if not is_storage_error(exc):
            raise
        hub.store.write_failed(exc)
        log.warning("login from %s not audited: the database cannot be written", client)
    response = _json({"logged_in": True, "csrf": fresh.csrf, "user": fresh.user, "role": fresh.role})
    _set_cookie(response, fresh)
    return response


async def api_logout(request: web.Request) -> web.Response:
    s = _session(request)
    if s is not None:
        request.app[AUTH_KEY].logout(s)
        await request.app[PUSH_KEY].close_sessions([s.token], "logged out")
    response = _json({"logged_in": False})
    response.del_cookie(COOKIE, path="/")
    return response


# -- accounts (the chief TD; the permission is checked by the middleware, hub/web/roles.py) ---------
# (adding and removing one are TD actions: their routes are in TD_ACTIONS below)


async def api_accounts(request: web.Request) -> web.Response:
    """Every account with whether it is logged in now, who is, and what each role may do."""
    return _json(request.app[ACCOUNTS_KEY].listed())


# -- read-only API --------------------------------------------------------------------------------


@reader
async def api_room(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].room())


@reader
async def api_tables(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].room()["tables"])


@reader
async def api_table(request: web.Request) -> web.Response:
    detail = request.app[HUB_KEY].table_detail(request.match_info["table"])
    if detail is None:
        return _error(404, "no such table")
    return _json(detail)


@reader
async def api_table_events(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    table = request.match_info["table"]
    try:
        limit = max(1, min(int(request.query.get("limit", "200")), 5000))
    except ValueError:
        return _error(400, "limit: expected a number")
    return _listed(hub.store.events(table, request.query.get("match_id"), limit=limit))


@reader
async def api_transcript(request: web.Request) -> web.StreamResponse:
    """A match's transcript: JSON (default), ``?format=text`` or ``?format=mat``."""
    hub = request.app[HUB_KEY]
    match_id = request.match_info["match_id"]
    t = match_transcript(hub.room_state, hub.store, match_id)
    if t is None:
        return _error(404, "no such match")
    fmt = request.query.get("format", "json")
    if fmt == "json":
        return _json(t)
    if fmt not in ("text", "mat"):
        return _error(400, "format: expected json, text or mat")
    body = transcript.to_text(t) if fmt == "text" else transcript.to_mat(t)
    name = f"{match_id}.{'txt' if fmt == 'text' else 'mat'}"
    return web.Response(
        text=body,
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'inline; filename="{_safe_filename(name)}"'},
    )


def _safe_filename(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


@reader
async def page_transcript(request: web.Request) -> web.StreamResponse:
    """A printable page of a match's transcript (the text, with links to the files)."""
    hub = request.app[HUB_KEY]
    match_id = request.match_info["match_id"]
    t = match_transcript(hub.room_state, hub.store, match_id)
    if t is None:
        return _error(404, "no such match")
    quoted = urllib.parse.quote(match_id, safe="")
    page = TRANSCRIPT_PAGE.format(
        title=html.escape(f"Transcript {match_id}"),
        body=html.escape(transcript.to_text(t)),
        json=f"/api/matches/{quoted}/transcript",
        mat=f"/api/matches/{quoted}/transcript?format=mat",
    )
    return web.Response(text=page, content_type="text/html", charset="utf-8")


TRANSCRIPT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #111; }}
pre {{ font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre-wrap; }}
nav a {{ margin-right: 1rem; }}
@media print {{ nav {{ display: none; }} body {{ margin: 0; }} pre {{ font-size: 10pt; }} }}
</style></head>
<body><nav><a href="/">Room</a><a href="{json}">JSON</a><a href="{mat}">Match file (.mat)</a>
<a href="javascript:print()">Print</a></nav>
<h1>{title}</h1><pre>{body}</pre></body></html>
"""


async def page_dice(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "dice.html", headers={"Cache-Control": "no-cache"})


@reader
async def api_dice(request: web.Request) -> web.Response:
    """Every tower's counts and fairness tests (suspect first), the room's total, the thresholds."""
    dice = request.app[HUB_KEY].dice
    return _json({"thresholds": THRESHOLDS, "room": dice.room_total(), "towers": dice.rows()})


@reader
async def api_dice_csv(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    name = _safe_filename(f"dice-{hub.config.event}.csv")
    return web.Response(
        body=dice_csv(hub.dice.rows()).encode("utf-8-sig"),  # the BOM: spreadsheets read UTF-8
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@reader
async def api_alerts(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    if request.query.get("all"):
        return _json([public_alert(a) for a in hub.store.alerts(active_only=False)])
    return _json(hub.alert_list())


@reader
async def api_commands(request: web.Request) -> web.Response:
    return _listed(request.app[HUB_KEY].store.commands(request.query.get("table")))


@reader
async def api_schedule(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].schedule_rows())


@reader
async def api_results(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].result_list())


@reader
async def api_results_csv(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    return web.Response(
        text=results_csv(hub.result_list()),
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="results-{hub.config.event}.csv"'},
    )


@reader
async def api_results_json(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    return web.Response(
        text=results_json(hub.config.event, hub.result_list()),
        content_type="application/json",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="results-{hub.config.event}.json"'},
    )


def _draw_export(request: web.Request, kind: str) -> web.Response:
    hub = request.app[HUB_KEY]
    try:
        text = hub.draw.as_json() if kind == "json" else hub.draw.as_csv()
    except ActionError as exc:
        return _error(exc.status, str(exc), **({"code": exc.code} if exc.code else {}))
    return web.Response(
        text=text,
        content_type="application/json" if kind == "json" else "text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="draw-{hub.config.event}.{kind}"'}
        if kind == "csv"
        else None,
    )


@reader
async def api_draw(request: web.Request) -> web.Response:
    """The draw's bracket and its calls (docs/draw.md, "Exports"); 404 for an event without a draw."""
    return _draw_export(request, "json")


@reader
async def api_draw_csv(request: web.Request) -> web.Response:
    return _draw_export(request, "csv")


@reader
async def api_audit(request: web.Request) -> web.Response:
    return _listed(request.app[HUB_KEY].store.audit_log(request.query.get("table")))


async def api_board(request: web.Request) -> web.Response:
    return _json(request.app[HUB_KEY].board())


async def api_health(request: web.Request) -> web.Response:
    """Whether the hub works: ``ok`` is false while its database cannot be written."""
    hub = request.app[HUB_KEY]
    storage = hub.storage.health()
    return _json(
        {
            "ok": storage["ok"],
            "link_online": bool(hub.link and hub.link.online),
            "storage": storage,
            "stats": hub.stats,
        }
    )


# -- TD actions -----------------------------------------------------------------------------------
#
# Every TD action follows one precedent (docs/ARCHITECTURE.md, "A TD action"): its permission is
# its route's row in hub/web/roles.py, its route a row of TD_ACTIONS (at the end of this module),
# and what it does a method of the action object that owns what it changes — ``Actions`` for a
# table, ``RoundControl`` for the room, ``Accounts`` for the TD team. A row only reads the request
# into the method's arguments; the method checks (an ``ActionError``: nothing done, its status,
# code and detail answer), audits, commits and pushes what changed.


@dataclass(frozen=True)
class Call:
    """What a TD action's row reads from its request."""

    hub: Hub
    accounts: Accounts
    push: Push
    actor: str
    session: Session | None
    #: the route's path parameters (``table``, ``match_id``, ``round``…)
    params: Mapping[str, str]
    #: the JSON object of the body (empty for a route that takes none)
    data: dict[str, Any]


@dataclass(frozen=True)
class TdAction:
    """One TD action's route: ``run`` calls its action object (and may be a coroutine)."""

    path: str
    run: Callable[[Call], Any]
    body: bool = True
    method: str = "POST"


def _td_action(action: TdAction) -> Handler:
    @writer
    async def wrapped(request: web.Request) -> web.StreamResponse:
        app = request.app
        data = await _body(request) if action.body else {}
        call = Call(
            app[HUB_KEY],
            app[ACCOUNTS_KEY],
            app[PUSH_KEY],
            _actor(request),
            _session(request),
            request.match_info,
            data,
        )
        try:
            result = action.run(call)
            if inspect.isawaitable(result):
                result = await result
        except ActionError as exc:
            return _error(exc.status, str(exc), **({"code": exc.code} if exc.code else {}), **exc.detail)
        return _json(result)

    return wrapped


def _command(c: Call) -> Any:
    kind = c.data.pop("type", None)
    if not isinstance(kind, str):
        raise ActionError("type: expected a command type")
    return c.hub.actions.td_command(c.params["table"], kind, c.data, c.actor)


def _automation(c: Call) -> Any:
    suspended = c.data.get("suspended")
    if not isinstance(suspended, bool):
        raise ActionError("suspended: expected true or false")
    c.hub.actions.set_automation(c.params["table"], suspended, c.actor)
    return {"table": c.params["table"], "automation_suspended": suspended}


def _ack(c: Call) -> Any:
    try:
        alert_id = int(c.params["alert_id"])
    except ValueError:
        raise ActionError("alert id: expected a number") from None
    return {"acknowledged": c.hub.actions.ack_alert(alert_id, c.actor)}


def _correct(c: Call) -> Any:
    d = c.data
    return c.hub.actions.correct_result(
        c.params["match_id"], d.get("score"), d.get("winner"), d.get("note", ""), c.actor
    )


async def _account_add(c: Call) -> Any:
    d = c.data
    return await c.accounts.add(d.get("name"), d.get("role"), d.get("password"), c.actor)


async def _account_remove(c: Call) -> Any:
    name = c.params["name"]
    await c.push.close_sessions(c.accounts.remove(name, c.actor, c.session), "account removed")
    return {"removed": name}


async def _csv_upload(request: web.Request) -> tuple[bytes, str | None] | web.Response:
    """The CSV of a schedule import — a multipart form's ``file`` field, or the body itself — and
    the TD's choices for its players (the form's ``choices`` field, or the ``choices`` query
    parameter: a JSON object, conflict id -> choice)."""
    choices = request.query.get("choices")
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        upload = form.get("file")
        if upload is None or not hasattr(upload, "file"):
            return _error(400, "send the CSV as the form field 'file'")
        data: bytes = upload.file.read()
        field = form.get("choices")
        if isinstance(field, str) and field:
            choices = field
        return data, choices
    return await request.read(), choices


def _schedule_refused(exc: ScheduleError | ActionError) -> web.Response:
    if isinstance(exc, ScheduleError):
        errors = [{"line": i.line, "message": i.message} for i in exc.issues]
    elif isinstance(exc, PlayersToIdentify):
        errors = [{"line": 0, "message": c.message()} for c in exc.conflicts]
        return _error(
            422,
            f"{exc}; nothing was imported",
            errors=errors,
            conflicts=[c.as_dict() for c in exc.conflicts],
        )
    else:
        errors = [{"line": 0, "message": m} for m in str(exc).split("; ")]
    return _error(422, "schedule refused: nothing was imported", errors=errors)


@writer
async def api_schedule_import(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    upload = await _csv_upload(request)
    if isinstance(upload, web.Response):
        return upload
    data, choices = upload
    try:
        summary = hub.round_control.import_schedule(data, _actor(request), choices)
    except (ScheduleError, ActionError) as exc:
        return _schedule_refused(exc)
    return _json(summary)


@writer
async def api_schedule_preview(request: web.Request) -> web.Response:
    """What importing this CSV would change (with the TD's choices so far); nothing is imported."""
    hub = request.app[HUB_KEY]
    upload = await _csv_upload(request)
    if isinstance(upload, web.Response):
        return upload
    data, choices = upload
    try:
        return _json(hub.round_control.preview(data, choices))
    except (ScheduleError, ActionError) as exc:
        return _schedule_refused(exc)


async def api_players(request: web.Request) -> web.Response:
    """The event's players, each once, with the seats the registry resolved to them."""
    return _json(request.app[HUB_KEY].player_list())


# -- the room and its rounds ----------------------------------------------------------------------


@reader
async def api_rounds(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    return _json({"rounds": hub.display.rounds(), "automation": hub.display.automation_state()})


@reader
async def api_timeline(request: web.Request) -> web.Response:
    hub = request.app[HUB_KEY]
    q = request.query
    auto = q.get("auto")
    try:
        limit = max(1, min(int(q.get("limit", "500")), 5000))
    except ValueError:
        return _error(400, "limit: expected a number")
    filters = Filters(
        table=q.get("table") or None,
        group=q.get("group") or None,
        person=q.get("person") or None,
        automatic=None if auto not in ("0", "1") else auto == "1",
    )
    return _json(hub.display.timeline(filters, limit))


# -- live updates ---------------------------------------------------------------------------------


async def api_ws(request: web.Request) -> web.StreamResponse:
    board = request.query.get("board") == "1"
    if not board and not _can_read(request):
        return _error(401, "log in first")
    hub = request.app[HUB_KEY]
    push = request.app[PUSH_KEY]
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    queue: asyncio.Queue[str] = asyncio.Queue(maxsize=5000)
    room = hub.board() if board else hub.room()
    queue.put_nowait(json.dumps({"type": "hello", **room}, ensure_ascii=False))
    session = _session(request)
    logged_in = session is not None and session.logged_in
    push.add(
        ws,
        queue,
        board,
        session.token if session is not None and logged_in else None,
        session.role if session is not None and logged_in else None,
    )

    async def pump() -> None:
        while True:
            data = await queue.get()
            await ws.send_str(data)

    sender = asyncio.create_task(pump())
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        push.remove(ws)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await sender
    return ws


# -- the application ------------------------------------------------------------------------------


async def sweep_sessions(app: web.Application) -> None:
    """Drop the sessions idle for too long, or whose account changed, and close their live
    connections."""
    await app[PUSH_KEY].close_sessions(app[AUTH_KEY].expire(), "session expired")


async def _sweeper(app: web.Application) -> AsyncIterator[None]:
    async def loop() -> None:
        store = app[HUB_KEY].store
        seen = -1
        with contextlib.suppress(sqlite3.Error):
            seen = store.data_version()
        swept = time.monotonic()
        while True:
            await asyncio.sleep(ACCOUNT_CHECK_S)
            # another process committed (``bghub user remove|add|passwd`` while the hub runs):
            # the sessions it ended close now, their WebSockets with them, not at the next sweep
            try:
                version = store.data_version()
            except sqlite3.Error:
                version = seen
            if version != seen or time.monotonic() - swept >= SWEEP_S:
                seen, swept = version, time.monotonic()
                await sweep_sessions(app)

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


#: every TD action's route (its permission: hub/web/roles.py's row for the same route)
TD_ACTIONS: tuple[TdAction, ...] = (
    # a table: hub.live.actions.Actions
    TdAction("/api/tables/{table}/commands", _command),
    TdAction("/api/tables/{table}/automation", _automation),
    TdAction(
        "/api/tables/{table}/release",
        lambda c: {"released": c.hub.actions.release(c.params["table"], c.actor)},
        body=False,
    ),
    TdAction("/api/alerts/{alert_id}/ack", _ack, body=False),
    TdAction(
        "/api/results/{match_id}/verify",
        lambda c: c.hub.actions.verify_result(c.params["match_id"], c.actor),
        body=False,
    ),
    TdAction("/api/results/{match_id}/correct", _correct),
    # the room: hub.live.round_control.RoundControl
    TdAction(
        "/api/rounds/{round}/start",
        lambda c: c.hub.round_control.start_now(c.params["round"], c.actor),
        body=False,
    ),
    TdAction(
        "/api/rounds/{round}/delay",
        lambda c: c.hub.round_control.delay(c.params["round"], c.data.get("minutes"), c.actor),
    ),
    TdAction("/api/room/pause", lambda c: c.hub.round_control.pause_all(c.actor), body=False),
    TdAction("/api/room/resume", lambda c: c.hub.round_control.resume_all(c.actor), body=False),
    TdAction(
        "/api/room/automation",
        lambda c: c.hub.round_control.set_room_automation(c.data.get("suspended"), c.actor),
    ),
    TdAction(
        "/api/results/verify-confirmed",
        lambda c: c.hub.round_control.verify_confirmed(c.data.get("round"), c.actor),
    ),
    TdAction(
        "/api/matches/{match_id}/move",
        lambda c: c.hub.round_control.move(c.params["match_id"], c.data.get("to_table"), c.actor),
    ),
    # the draw: hub.live.calls.DrawCalls
    TdAction(
        "/api/draw/define",
        lambda c: c.hub.draw.define(
            read_draw_text(c.data.get("file"), c.data.get("bracket"), c.hub.room_state.profiles), c.actor
        ),
    ),
    TdAction(
        "/api/draw/flights/{flight}/hold",
        lambda c: c.hub.draw.hold_flight(c.params["flight"], True, c.actor),
        body=False,
    ),
    TdAction(
        "/api/draw/flights/{flight}/resume",
        lambda c: c.hub.draw.hold_flight(c.params["flight"], False, c.actor),
        body=False,
    ),
    TdAction(
        "/api/draw/matches/{match}/hold",
        lambda c: c.hub.draw.hold_match(c.params["match"], True, c.actor),
        body=False,
    ),
    TdAction(
        "/api/draw/matches/{match}/release",
        lambda c: c.hub.draw.hold_match(c.params["match"], False, c.actor),
        body=False,
    ),
    TdAction(
        "/api/draw/matches/{match}/move",
        lambda c: c.hub.draw.move(c.params["match"], c.data.get("to_table"), c.actor),
    ),
    TdAction("/api/draw/swap", lambda c: c.hub.draw.swap(c.data.get("a"), c.data.get("b"), c.actor)),
    TdAction(
        "/api/draw/matches/{match}/undo",
        lambda c: c.hub.draw.undo(c.params["match"], c.actor),
        body=False,
    ),
    TdAction(
        "/api/draw/players/{player}/withdraw",
        lambda c: c.hub.draw.withdraw(c.params["player"], c.actor),
        body=False,
    ),
    # the TD team: hub.web.accounts.Accounts
    TdAction("/api/accounts", _account_add),
    TdAction("/api/accounts/{name}/remove", _account_remove, body=False),
)


def make_app(
    hub: Hub,
    auth: Auth,
    *,
    public: bool = False,
    hosts: HostPolicy | None = None,
    public_url: str | None = None,
) -> web.Application:
    """The dashboard's application; ``public_url``: the hub's address as the room reaches it
    (``--public-url``), which the players' pages and their QR codes are given (else the address
    each request came by)."""
    app = web.Application(middlewares=[security], client_max_size=MAX_UPLOAD)
    app[HUB_KEY] = hub
    app[AUTH_KEY] = auth
    app[ACCOUNTS_KEY] = Accounts(hub.store, hub.clock, auth)
    app[PUBLIC_KEY] = public
    app[HOSTS_KEY] = hosts or HostPolicy()
    app[PUSH_KEY] = Push(hub)
    app.cleanup_ctx.append(_sweeper)
    r = app.router
    r.add_get("/", page_index)
    r.add_get("/board", page_board)
    r.add_static("/static", STATIC, append_version=False)
    r.add_get("/api/session", api_session)
    r.add_post("/api/login", api_login)
    r.add_post("/api/logout", api_logout)
    r.add_get("/api/accounts", api_accounts)
    r.add_get("/api/health", api_health)
    r.add_get("/api/room", api_room)
    r.add_get("/api/board", api_board)
    r.add_get("/api/tables", api_tables)
    r.add_get("/api/tables/{table}", api_table)
    r.add_get("/api/tables/{table}/events", api_table_events)
    r.add_get("/api/alerts", api_alerts)
    r.add_get("/api/commands", api_commands)
    r.add_get("/api/schedule", api_schedule)
    r.add_post("/api/schedule", api_schedule_import)
    r.add_post("/api/schedule/preview", api_schedule_preview)
    r.add_get("/api/players", api_players)
    r.add_get("/api/rounds", api_rounds)
    r.add_get("/api/timeline", api_timeline)
    r.add_get("/api/results", api_results)
    r.add_get("/api/results.csv", api_results_csv)
    r.add_get("/api/results.json", api_results_json)
    r.add_get("/api/draw", api_draw)
    r.add_get("/api/draw.csv", api_draw_csv)
    r.add_get("/api/audit", api_audit)
    r.add_get("/api/matches/{match_id}/transcript", api_transcript)
    r.add_get("/transcript/{match_id}", page_transcript)
    r.add_get("/dice", page_dice)
    r.add_get("/api/dice", api_dice)
    r.add_get("/api/dice.csv", api_dice_csv)
    r.add_get("/api/ws", api_ws)
    for action in TD_ACTIONS:
        r.add_route(action.method, action.path, _td_action(action))
    add_player_routes(app, PlayerPages(hub, public_url))

    async def on_shutdown(app: web.Application) -> None:
        push = app[PUSH_KEY]
        push.unsubscribe()
        push.close()
        for ws in list(push.clients):
            await ws.close()

    app.on_shutdown.append(on_shutdown)
    return app
