"""Roles over real HTTP: every route of the running hub's application, as every role, against the
one permission table (hub/web/roles.py); the table in docs/api.md against the code; named logins,
the audit naming the person, accounts on the dashboard and with ``bghub user``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp

from hub.web import roles
from hub.web.accounts import new_account
from tests.hub.support import PASSWORD, event_id, one_match, start_hub
from tests.hub.test_web_api import Client
from tests.support.patience import patience

ROOT = Path(__file__).resolve().parents[2]
#: a value for each path parameter (nothing of that name exists: the point is who gets past the door)
PARAMS = {
    "table": "4",
    "match_id": "no-such-match",
    "alert_id": "999999",
    "round": "99",
    "device": "no-such-device",
    "name": "no-such-account",
    "file": "no-such.whl",
    "flight": "no_such_flight",
    "match": "no-such-match",
    "player": "no-such-player",
    "code": "2345678",
}
PEOPLE = {"ann": roles.CHIEF, "tom": roles.TD, "sue": roles.SCORER, "vic": roles.VIEWER}
PASSWORDS = {name: f"{name}-password-1" for name in PEOPLE}


def _add_people(hub: Any) -> None:
    for name, role in PEOPLE.items():
        hub.call(new_account, hub.hub.store, name, role, PASSWORDS[name], 0)
    hub.call(hub.hub.store.commit)


def _routes(hub: Any) -> list[tuple[str, str, str]]:
    """(method, route, a concrete path) for every route of the application (HEAD is GET's)."""
    app = hub.app.runner.app
    out = []
    for route in app.router.routes():
        if route.method == "HEAD":
            continue
        canonical = route.resource.canonical
        path = "/static/style.css" if canonical == "/static" else canonical
        for key, value in PARAMS.items():
            path = path.replace("{" + key + "}", value)
        assert "{" not in path, f"no test value for a parameter of {canonical}"
        out.append((route.method, canonical, path))
    return out


async def _login(c: Client, user: str | None) -> None:
    await c.start_session()
    if user is not None:
        status, data = await c.post("/api/login", {"user": user, "password": PASSWORDS[user]})
        assert status == 200 and data["role"] == PEOPLE[user], data
        c.csrf = data["csrf"]


async def _walk(c: Client, routes: list[tuple[str, str, str]], role: str | None, public: bool) -> list[str]:
    wrong = []
    for method, canonical, path in routes:
        needed = roles.needs(method, canonical)
        if needed is None:
            wrong.append(f"{method} {canonical}: not in hub/web/roles.py's ROUTES")
            continue
        if canonical == "/api/logout":
            continue  # walked last (it ends the session)
        if method == "GET":
            async with c.http.get(c.base + path) as r:
                raw = await r.read()
                status, body = r.status, json.loads(raw) if r.content_type == "application/json" else raw
        else:
            status, body = await c.post(path, {})
        if needed in (roles.ANYONE, roles.DEVICE) or (needed == roles.READ and public):
            expected = "in"
        elif role is None:
            expected = "401"
        elif roles.may(role, needed):
            expected = "in"
        else:
            expected = "403"
        got = "401" if status == 401 else "403" if status == 403 else "in"
        if got != expected:
            wrong.append(
                f"{role or 'anonymous'} {method} {path}: expected {expected}, got {status} {body!r:.200}"
            )
        elif expected == "403" and not (isinstance(body, dict) and body.get("missing") == needed):
            wrong.append(f"{role} {method} {path}: 403 without the missing permission: {body!r:.200}")
    status, _ = await c.post("/api/logout")
    if status != 200:
        wrong.append(f"{role or 'anonymous'} POST /api/logout: {status}")
    return wrong


def _run(url: str, scenario: Any) -> Any:
    async def main() -> Any:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            return await scenario(Client(url, http))

    return asyncio.run(main())


def test_every_route_as_every_role_matches_the_permission_table(tmp_path, mosquitto, clock):
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, event_id("roles"), clock, schedule=one_match("4", 7)
    )
    try:
        _add_people(hub)
        routes = _routes(hub)
        assert len(routes) >= 55 and {c for _, c, _ in routes} >= {"/api/accounts", "/api/fleet", "/api/ws"}
        wrong: list[str] = []
        for user in [None, *PEOPLE]:

            async def scenario(c: Client, user: str | None = user) -> list[str]:
                await _login(c, user)
                return await _walk(c, routes, PEOPLE.get(user or ""), public=False)

            wrong += _run(hub.url, scenario)
        assert not wrong, "\n".join(wrong)
        # and no permission in the table is left unused, nor a route in it that the app lacks
        in_app = {("GET" if m == "HEAD" else m, c) for m, c, _ in routes}
        assert set(roles.ROUTES) == in_app, set(roles.ROUTES) ^ in_app
    finally:
        hub.stop()


def test_public_mode_lets_anyone_read_and_nothing_more(tmp_path, mosquitto, clock):
    hub = start_hub(
        tmp_path,
        mosquitto.host,
        mosquitto.port,
        event_id("rolespub"),
        clock,
        schedule=one_match("4", 7),
        public=True,
    )
    try:
        routes = _routes(hub)

        async def scenario(c: Client) -> list[str]:
            await c.start_session()
            return await _walk(c, routes, None, public=True)

        wrong = _run(hub.url, scenario)
        assert not wrong, "\n".join(wrong)
    finally:
        hub.stop()


def test_docs_table_is_the_codes():
    """docs/api.md's role × endpoint table is what ``python -m hub.web.roles`` prints."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    printed = subprocess.run(
        [sys.executable, "-m", "hub.web.roles"], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    assert printed.strip() in text, "docs/api.md: paste the output of `python -m hub.web.roles`"
    assert printed.strip() == roles.endpoint_table().strip()


def test_named_logins_the_audit_names_the_person_and_a_refusal_names_the_permission(
    tmp_path, mosquitto, clock
):
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, event_id("rolesaudit"), clock, schedule=one_match("4", 7)
    )
    try:
        _add_people(hub)

        async def scenario(c: Client) -> None:
            await c.start_session()
            status, err = await c.post("/api/login", {"user": "tom", "password": PASSWORDS["sue"]})
            assert status == 401 and err["error"] == "wrong name or password"
            status, err = await c.post("/api/login", {"user": "nobody", "password": PASSWORDS["sue"]})
            assert status == 401 and err["error"] == "wrong name or password"
            await _login(c, "tom")
            status, session = await c.get("/api/session")
            assert session["user"] == "tom" and session["role"] == "td"
            assert "table-actions" in session["permissions"] and "schedule" not in session["permissions"]
            status, cmd = await c.post(
                "/api/tables/4/commands", {"type": "penalty", "against": "B", "points": 1}
            )
            assert status == 200, cmd
            status, err = await c.post("/api/schedule", raw=b"round,table\n")
            assert status == 403 and err["missing"] == "schedule" and err["role"] == "td"
            assert "schedule" in err["error"]
            await c.post("/api/logout")
            # the hub's own password, alone: the chief TD "td", as before named accounts
            await c.start_session()
            status, data = await c.post("/api/login", {"password": PASSWORD})
            assert status == 200 and data["user"] == "td" and data["role"] == "chief"
            c.csrf = data["csrf"]
            status, audit = await c.get("/api/audit")
            actors = [(a["actor"], a["action"]) for a in audit]
            assert (
                ("tom", "cmd:penalty") in actors and ("tom", "login") in actors and ("td", "login") in actors
            )
            status, session = await c.get("/api/session")
            assert {"user": "td", "role": "chief"} in session["team"]

        _run(hub.url, scenario)
    finally:
        hub.stop()


def test_the_chief_manages_accounts_and_a_removed_account_is_logged_out(tmp_path, mosquitto, clock):
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, event_id("rolesacc"), clock)
    try:

        async def scenario(chief: Client) -> None:
            await chief.start_session()
            assert await chief.login() == 200
            bad = await chief.post("/api/accounts", {"name": "hub", "role": "td", "password": "long enough"})
            assert bad[0] == 400 and "hub's own" in bad[1]["error"]
            assert (await chief.post("/api/accounts", {"name": "dan", "role": "boss", "password": "x" * 9}))[
                0
            ] == 400
            assert (await chief.post("/api/accounts", {"name": "dan", "role": "td", "password": "short"}))[
                0
            ] == 400
            status, row = await chief.post(
                "/api/accounts", {"name": "dan", "role": "viewer", "password": "dan-pass-1"}
            )
            assert status == 200 and row["name"] == "dan" and row["role"] == "viewer"
            assert (
                await chief.post("/api/accounts", {"name": "DAN", "role": "td", "password": "dan-pass-1"})
            )[0] == 409
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http2:
                dan = Client(chief.base, http2)
                await dan.start_session()
                status, data = await dan.post("/api/login", {"user": "dan", "password": "dan-pass-1"})
                assert status == 200 and data["role"] == "viewer"
                dan.csrf = data["csrf"]
                ws = await http2.ws_connect(chief.base + "/api/ws")
                assert json.loads((await ws.receive(10)).data)["type"] == "hello"
                status, listing = await chief.get("/api/accounts")
                by_name = {a["name"]: a for a in listing["accounts"]}
                assert by_name["dan"]["logged_in"] and by_name["td"]["builtin"] and by_name["td"]["logged_in"]
                assert {r["role"] for r in listing["roles"]} == set(roles.ROLES)
                status, err = await dan.post("/api/accounts/td/remove")
                assert status == 403 and err["missing"] == "accounts"
                assert (await chief.post("/api/accounts/td/remove"))[0] == 400  # the hub's own
                assert (await chief.post("/api/accounts/dan/remove"))[0] == 200
                msg = await ws.receive(10)
                assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert (await dan.get("/api/room"))[0] == 401
            status, audit = await chief.get("/api/audit")
            assert [a["action"] for a in audit if a["actor"] == "td"][:2] == ["account_remove", "account_add"]

        _run(hub.url, scenario)
    finally:
        hub.stop()


def test_bghub_user_add_list_remove(tmp_path):
    db = tmp_path / "hub.db"
    pw = tmp_path / "pw"
    pw.write_text("a-long-password\n", encoding="utf-8")

    def bghub(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hub.cli", "user", *args, "--db", str(db)], capture_output=True, text=True
        )

    assert bghub("add", "mia", "--role", "scorer", "--password-file", str(pw)).returncode == 0
    done = bghub("add", "mia", "--role", "td", "--password-file", str(pw))
    assert done.returncode == 2 and "exists already" in done.stderr
    assert bghub("add", "joe", "--role", "boss", "--password-file", str(pw)).returncode == 2
    assert bghub("add", "cli", "--role", "td", "--password-file", str(pw)).returncode == 2
    listed = bghub("list").stdout.splitlines()
    assert listed[0].startswith("td\tchief") and "mia\tscorer" in listed
    assert bghub("remove", "mia").returncode == 0
    assert "mia" not in bghub("list").stdout
    gone = bghub("remove", "mia")
    assert gone.returncode == 2 and "no account 'mia'" in gone.stderr
    assert b"a-long-password" not in db.read_bytes()


def test_the_boards_live_tiles_need_no_login(tmp_path, mosquitto, clock):
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, event_id("board"), clock, schedule=one_match("4", 7)
    )
    try:

        async def scenario(c: Client) -> None:
            async with c.http.ws_connect(c.base + "/api/ws?board=1") as board:
                hello = await board.receive_json(timeout=patience(10))
                assert hello["type"] == "hello" and "alerts" not in hello
            try:
                await c.http.ws_connect(c.base + "/api/ws")
                raise AssertionError("the dashboard's socket opened without a login")
            except aiohttp.WSServerHandshakeError as exc:
                assert exc.status == 401

        _run(hub.url, scenario)
    finally:
        hub.stop()
