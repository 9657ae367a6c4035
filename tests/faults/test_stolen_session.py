"""A stolen session ends when its account's password changes or the account is made again.

A real ``bghub`` process, and ``bghub user`` run as another process on the same database while
the hub runs, as an organiser would. The attacker holds a chief's session cookie and CSRF token
(and a live dashboard WebSocket). Changing that account's password — with ``bghub user passwd``,
or the old way, ``remove`` then ``add`` with the same name — must end the session at once: its
next request is refused (it cannot create itself a chief account), and its WebSocket is closed.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.faults.support import HubProcess, event_id
from tests.support.broker import Mosquitto
from tests.support.patience import patience

CHIEF_PASSWORD = "chief-password-1"


class Browser:
    """One browser's cookie and CSRF token, logged in to a named account."""

    def __init__(self, url: str, user: str, password: str) -> None:
        self.url = url
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = self.call("GET", "/api/session")[1]["csrf"]
        status, body = self.call("POST", "/api/login", {"user": user, "password": password})
        assert status == 200, body
        self.csrf = body["csrf"]

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if method != "GET":
            request.add_header("X-CSRF-Token", self.csrf)
        try:
            with self.opener.open(request, timeout=patience(10)) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def bghub_user(db: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hub.cli", "user", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=patience(60),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[HubProcess, Path]]:
    broker = Mosquitto().start()
    db = tmp_path / "hub.db"
    hub = HubProcess(tmp_path, broker, event_id("sessions"), db)
    try:
        yield hub, db
    finally:
        hub.stop()
        broker.stop()


def password_file(tmp_path: Path, name: str, password: str) -> str:
    path = tmp_path / name
    path.write_text(password + "\n", encoding="utf-8")
    return str(path)


async def ws_closed_by(url: str, cookie: str, change: Any) -> tuple[float, str]:
    """Open the dashboard's WebSocket with ``cookie``, run ``change`` (another process), and
    return how long the hub took to close the socket, and why."""
    loop = asyncio.get_running_loop()
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url + "/api/ws", headers={"Cookie": cookie}) as ws,
    ):
        hello = await ws.receive(timeout=patience(10))
        assert hello.type == aiohttp.WSMsgType.TEXT and json.loads(hello.data)["type"] == "hello"
        await loop.run_in_executor(None, change)
        started = loop.time()
        while True:
            msg = await ws.receive(timeout=patience(10))
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
                return loop.time() - started, str(ws.close_code)


def test_remove_and_add_again_ends_a_stolen_session_and_its_websocket(hub, tmp_path: Path):
    proc, db = hub
    secret = password_file(tmp_path, "chief", CHIEF_PASSWORD)
    bghub_user(db, "add", "boss", "--role", "chief", "--password-file", secret)
    stolen = Browser(proc.url, "boss", CHIEF_PASSWORD)
    assert stolen.call("GET", "/api/accounts")[0] == 200

    def remake() -> None:  # "changing the password" the old way, same name, same role
        bghub_user(db, "remove", "boss")
        bghub_user(db, "add", "boss", "--role", "chief", "--password-file", secret)

    took, _code = asyncio.run(ws_closed_by(proc.url, stolen.cookie, remake))
    assert took < 5.0
    assert stolen.call("GET", "/api/accounts")[0] == 401
    assert stolen.call("GET", "/api/session")[1]["logged_in"] is False
    status, _ = stolen.call(
        "POST", "/api/accounts", {"name": "mallory", "role": "chief", "password": "mallory-pass"}
    )
    assert status in (401, 403)
    assert "mallory" not in bghub_user(db, "list")


def test_passwd_ends_every_session_of_that_account_and_nobody_elses(hub, tmp_path: Path):
    proc, db = hub
    boss, ann = password_file(tmp_path, "a", CHIEF_PASSWORD), password_file(tmp_path, "b", "ann-password")
    bghub_user(db, "add", "boss", "--role", "chief", "--password-file", boss)
    bghub_user(db, "add", "ann", "--role", "td", "--password-file", ann)
    stolen = Browser(proc.url, "boss", CHIEF_PASSWORD)
    other = Browser(proc.url, "ann", "ann-password")
    new = password_file(tmp_path, "c", "a-brand-new-password")

    def passwd() -> None:
        bghub_user(db, "passwd", "boss", "--password-file", new)

    took, _code = asyncio.run(ws_closed_by(proc.url, stolen.cookie, passwd))
    assert took < 5.0
    assert stolen.call("GET", "/api/session")[1]["logged_in"] is False
    assert other.call("GET", "/api/session")[1]["logged_in"] is True  # another account's goes on
    # the old password no longer logs in; the new one does
    with pytest.raises(AssertionError):
        Browser(proc.url, "boss", CHIEF_PASSWORD)
    assert Browser(proc.url, "boss", "a-brand-new-password").call("GET", "/api/accounts")[0] == 200


def test_passwd_refuses_the_hubs_own_password_account_and_unknown_names(hub, tmp_path: Path):
    _proc, db = hub
    secret = password_file(tmp_path, "x", "whatever-password")
    for name in ("td", "nobody"):
        done = subprocess.run(
            [sys.executable, "-m", "hub.cli", "user", "passwd", name, "--password-file", secret, "--db", db],
            capture_output=True,
            text=True,
            timeout=patience(60),
            check=False,
        )
        assert done.returncode == 2 and name in done.stderr, done.stderr
