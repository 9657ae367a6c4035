"""The fleet's HTTP side: the Tables page and its API for the TD, and the devices' own endpoints.

TD side (the dashboard's session and CSRF rules, like every other endpoint; docs/api.md):
``GET /fleet`` (the page), ``GET /api/fleet`` (and its live rows: what each role may see of them,
:func:`hub.fleet.model.shown_to`), ``GET /api/fleet/hub`` (the hub's key fingerprint and the
addresses tables are given), ``POST /api/fleet/{device}/enroll`` ``{"table", "code",
"override"}``, ``POST /api/fleet/{device}/retire`` ``{"override"}``,
``POST /api/fleet/{device}/{identify|restart|button-test|hardware-check|update}``. A refusal
carries its ``code`` and parameters beside the sentence (``match_in_progress``: the match and its score).

Devices' side, under ``/device/v1/`` (docs/protocol.md §6): ``POST hello``, ``POST poll``, and the
software the hub runs (``GET software``, ``GET software/{file}``). A device has no session: these
take no cookie, change nothing but the device's own pending row, and hand out only what is sealed
to the device's key, so the dashboard's CSRF check does not apply to them (web.py exempts the
prefix).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from hub.broker.provision import FleetError
from hub.fleet.devices import Fleet
from hub.fleet.hub_key import hub_fingerprint, signed_answer
from hub.fleet.model import audience, check_hello, shown_message
from hub.fleet.software import Software
from hub.web.server import (
    DEVICE_PREFIX,
    PUSH_KEY,
    STATIC,
    _actor,
    _body,
    _error,
    _json,
    _session,
    reader,
    writer,
)

log = logging.getLogger("hub.fleet_web")

FLEET_KEY = web.AppKey("fleet", Fleet)
SOFTWARE_KEY = web.AppKey("software", Software)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _fleet_errors(handler: Handler) -> Handler:
    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except FleetError as exc:
            return _error(exc.status, str(exc), **({"code": exc.code} if exc.code else {}), **exc.detail)

    return wrapped


# -- the TD's side -------------------------------------------------------------------------------


async def page_fleet(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "fleet.html", headers={"Cache-Control": "no-cache"})


def _role(request: web.Request) -> str | None:
    session = _session(request)
    return session.role if session is not None and session.logged_in else None


@reader
async def api_fleet(request: web.Request) -> web.Response:
    return _json(request.app[FLEET_KEY].rows(audience(_role(request))))


@reader
async def api_fleet_hub(request: web.Request) -> web.Response:
    """What tables are given and pin: the hub's key fingerprint and addresses (the Tables page)."""
    settings = request.app[FLEET_KEY].settings
    broker = settings.table_broker
    return _json(
        {
            "fingerprint": hub_fingerprint(settings.hub_key),
            "url": settings.public_url,
            "broker": f"{broker[0]}:{broker[1]}" if broker else None,
            "tls": bool(settings.tls_ca_pem),
        }
    )


@writer
@_fleet_errors
async def api_enroll(request: web.Request) -> web.Response:
    body = await _body(request)
    fleet = request.app[FLEET_KEY]
    row = await fleet.enroll(
        request.match_info["device"],
        body.get("table"),
        _actor(request),
        body.get("code"),
        body.get("override"),
    )
    return _json(row)


@writer
@_fleet_errors
async def api_retire(request: web.Request) -> web.Response:
    body = await _body(request)
    fleet = request.app[FLEET_KEY]
    return _json(await fleet.retire(request.match_info["device"], _actor(request), body.get("override")))


def _control(action: str) -> Handler:
    @writer
    @_fleet_errors
    async def handler(request: web.Request) -> web.Response:
        fleet = request.app[FLEET_KEY]
        return _json(fleet.control(request.match_info["device"], action, _actor(request)))

    return handler


# -- the devices' side ---------------------------------------------------------------------------


def _hub_url(request: web.Request) -> str:
    """The hub's address tables keep using: the configured one, never the request's ``Host``
    (a relay in front of the hub would otherwise become the table's hub)."""
    return request.app[FLEET_KEY].settings.public_url


@_fleet_errors
async def device_hello(request: web.Request) -> web.Response:
    body = await _body(request)
    hello = check_hello(body)
    answer = request.app[FLEET_KEY].hello(hello, request.remote or "", _hub_url(request))
    return _json(signed_answer(request.app[FLEET_KEY], "hello", answer, body))


@_fleet_errors
async def device_poll(request: web.Request) -> web.Response:
    body = await _body(request)
    device, key = body.get("device"), body.get("key")
    if not isinstance(device, str) or not isinstance(key, str):
        raise FleetError("device and key: expected strings")
    wait = body.get("wait", 0)
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= 60:
        raise FleetError("wait: expected seconds from 0 to 60")
    answer = await request.app[FLEET_KEY].wait(device, key, float(wait), request.remote or "")
    return _json(signed_answer(request.app[FLEET_KEY], "poll", answer, body))


async def device_software(request: web.Request) -> web.Response:
    query = {"device": request.query.get("device"), "nonce": request.query.get("nonce")}
    answer = request.app[SOFTWARE_KEY].manifest()
    return _json(signed_answer(request.app[FLEET_KEY], "software", answer, query))


async def device_software_file(request: web.Request) -> web.StreamResponse:
    software = request.app[SOFTWARE_KEY]
    path = software.wheel_path()
    if path is None or request.match_info["file"] != path.name:
        return _error(404, "no such file: ask /device/v1/software for the current one")
    return web.FileResponse(path, headers={"Content-Type": "application/octet-stream"})


def add_fleet_routes(app: web.Application, fleet: Fleet, software: Software) -> None:
    """Register the fleet's pages and endpoints on the dashboard's application."""
    app[FLEET_KEY] = fleet
    app[SOFTWARE_KEY] = software
    app[PUSH_KEY].shapes["fleet"] = shown_message
    r = app.router
    r.add_get("/fleet", page_fleet)
    r.add_get("/api/fleet", api_fleet)
    r.add_get("/api/fleet/hub", api_fleet_hub)
    r.add_post("/api/fleet/{device}/enroll", api_enroll)
    r.add_post("/api/fleet/{device}/retire", api_retire)
    for path, action in (
        ("identify", "identify"),
        ("restart", "restart"),
        ("button-test", "button_test"),
        ("hardware-check", "hardware_check"),
        ("update", "update"),
    ):
        r.add_post(f"/api/fleet/{{device}}/{path}", _control(action))
    r.add_post(f"{DEVICE_PREFIX}hello", device_hello)
    r.add_post(f"{DEVICE_PREFIX}poll", device_poll)
    r.add_get(f"{DEVICE_PREFIX}software", device_software)
    r.add_get(f"{DEVICE_PREFIX}software/{{file}}", device_software_file)
