"""The dashboard under attack: login floods, slow and huge bodies, anonymous floods, DNS rebinding,
and live connections that must end with the session.

Reported: the login throttle was checked before the body was read and recorded after, so 60
concurrent guesses from one address were all checked, and rotating addresses was unlimited; scrypt
ran on the event loop (1.6 s stalls of the whole hub); 11,000 anonymous ``GET /api/session``
evicted the TD's session; ``Host`` was not checked; an open WebSocket kept streaming after logout.
Each is played here against the real hub's web server on loopback (distinct source addresses
127.0.x.y play distinct clients), with the hub's default limits.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp

from hub.live.clock import SystemClock
from hub.web.login_throttle import LoginLimits
from hub.web.server import AUTH_KEY, MAX_LOGIN_BODY, sweep_sessions
from tests.faults.support import (
    PASSWORD,
    WAIT,
    HubProcess,
    Players,
    event_id,
    make_table,
    room_schedule,
    start_hub_thread,
)
from tests.support.broker import Mosquitto

DEFAULTS = LoginLimits()


def _session(addr: str = "127.0.0.1") -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(local_addr=(addr, 0), limit=0, force_close=True)
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.CookieJar(unsafe=True))


async def _visitor(http: aiohttp.ClientSession, url: str) -> str:
    async with http.get(url + "/api/session") as r:
        assert r.status == 200
        return str((await r.json())["csrf"])


async def _login(http: aiohttp.ClientSession, url: str, password: str, csrf: str | None = None) -> int:
    csrf = csrf or await _visitor(http, url)
    async with http.post(
        url + "/api/login", json={"password": password}, headers={"X-CSRF-Token": csrf}
    ) as r:
        await r.read()
        return r.status


def _auth(hub: Any) -> Any:
    return hub.app.runner.app[AUTH_KEY]


def test_concurrent_guesses_from_one_address_are_held_to_its_limit(tmp_path, mosquitto):
    hub = start_hub_thread(tmp_path, mosquitto, event_id("guess1"), SystemClock())

    async def scenario() -> list[int]:
        async with _session("127.0.0.7") as http:
            csrf = await _visitor(http, hub.url)
            return list(await asyncio.gather(*(_login(http, hub.url, f"guess {i}", csrf) for i in range(60))))

    try:
        statuses = asyncio.run(scenario())
        checked = statuses.count(401)
        assert 1 <= checked <= DEFAULTS.per_address and statuses.count(429) == 60 - checked, statuses
        assert (
            hub.call(lambda: _auth(hub).throttle.counted("127.0.0.7", time.monotonic()))
            <= DEFAULTS.per_address
        )
        # another address is not affected
        assert asyncio.run(_one_login(hub.url, "127.0.0.8", PASSWORD)) == 200
    finally:
        hub.stop()


async def _one_login(url: str, addr: str, password: str) -> int:
    async with _session(addr) as http:
        return await _login(http, url, password)


def test_rotating_addresses_meet_the_hubs_own_limit(tmp_path, mosquitto):
    hub = start_hub_thread(tmp_path, mosquitto, event_id("guessall"), SystemClock())
    addresses = [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(DEFAULTS.overall + 50)]

    async def scenario() -> list[int]:
        statuses = []
        for group in range(0, len(addresses), 25):  # 25 at a time: what a botnet's share would be
            batch = addresses[group : group + 25]
            statuses += await asyncio.gather(*(_one_login(hub.url, a, "a guess") for a in batch))
        return statuses

    try:
        statuses = asyncio.run(scenario())
        assert statuses.count(401) <= DEFAULTS.overall and statuses.count(429) >= 50, statuses
        assert set(statuses) <= {401, 429}
    finally:
        hub.stop()


def test_using_up_the_hubs_allowance_does_not_lock_the_td_out(tmp_path, mosquitto):
    """Anyone may use up the hub's login allowance from addresses of their own; a share of it is
    kept for the addresses that logged in successfully before (the TD's laptop)."""
    hub = start_hub_thread(tmp_path, mosquitto, event_id("lockout"), SystemClock())
    laptop = "127.0.9.1"
    strangers = [f"127.0.8.{1 + i}" for i in range(DEFAULTS.overall)]

    async def scenario() -> tuple[list[int], int, int]:
        assert await _one_login(hub.url, laptop, PASSWORD) == 200  # the TD, earlier in the day
        statuses = []
        for group in range(0, len(strangers), 10):
            batch = strangers[group : group + 10]
            statuses += await asyncio.gather(*(_one_login(hub.url, a, "a guess") for a in batch))
        stranger = await _one_login(hub.url, "127.0.8.250", PASSWORD)  # even with the password
        return statuses, stranger, await _one_login(hub.url, laptop, PASSWORD)

    try:
        statuses, stranger, td = asyncio.run(scenario())
        open_share = DEFAULTS.open_to(False)[0]
        assert statuses.count(401) == open_share and statuses.count(429) == len(strangers) - open_share
        assert stranger == 429  # the allowance open to new addresses is used up
        assert td == 200  # and the TD still logs in
    finally:
        hub.stop()


async def _raw(addr: str, url: str, request: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port), local_addr=(addr, 0))
    writer.write(request)
    await writer.drain()
    return reader, writer


def _login_head(url: str, cookie: str, csrf: str, length: int | None) -> bytes:
    host = url.removeprefix("http://")
    size = f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
    return (
        f"POST /api/login HTTP/1.1\r\nHost: {host}\r\nCookie: bghub_session={cookie}\r\n"
        f"X-CSRF-Token: {csrf}\r\nContent-Type: application/json\r\n{size}\r\n"
    ).encode()


async def _status(reader: asyncio.StreamReader) -> int:
    line = await asyncio.wait_for(reader.readline(), WAIT)
    return int(line.split()[1])


def test_slow_and_huge_login_bodies_are_refused_before_they_are_read(tmp_path, mosquitto):
    hub = start_hub_thread(tmp_path, mosquitto, event_id("bodies"), SystemClock())

    async def scenario() -> None:
        async with _session("127.0.0.9") as http:
            await _visitor(http, hub.url)
            cookie = next(c.value for c in http.cookie_jar if c.key == "bghub_session")
            csrf = await _visitor(http, hub.url)
        slow = []
        for _ in range(DEFAULTS.in_flight_per_address):  # bodies that never finish arriving
            slow.append(
                await _raw("127.0.0.9", hub.url, _login_head(hub.url, cookie, csrf, 2000) + b'{"pass')
            )
        await asyncio.sleep(0)  # (a turn of our own loop; the hub's loop is another thread)
        # one more from the same address is refused at once, its body never read
        reader, writer = await _raw("127.0.0.9", hub.url, _login_head(hub.url, cookie, csrf, 50))
        assert await _status(reader) == 429
        writer.close()
        # a huge body is refused from its length alone (not one byte of it was sent)
        reader, writer = await _raw("127.0.0.10", hub.url, _login_head(hub.url, cookie, csrf, 50_000_000))
        assert await _status(reader) == 413
        writer.close()
        # a chunked one is read no further than the limit
        reader, writer = await _raw("127.0.0.11", hub.url, _login_head(hub.url, cookie, csrf, None))
        chunk = b"x" * (MAX_LOGIN_BODY * 4)
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        await writer.drain()
        assert await _status(reader) == 413
        writer.close()
        # while the slow ones hang, the TD logs in from elsewhere
        assert await _one_login(hub.url, "127.0.0.12", PASSWORD) == 200
        for _, w in slow:
            w.close()

    try:
        asyncio.run(scenario())
    finally:
        hub.stop()


def test_every_post_has_a_body_limit(tmp_path, mosquitto):
    clock = SystemClock()
    hub = start_hub_thread(
        tmp_path, mosquitto, event_id("postsize"), clock, schedule=room_schedule(["1"], clock.now_wall())
    )

    async def scenario() -> None:
        async with _session() as http:
            csrf = await _visitor(http, hub.url)
            assert await _login(http, hub.url, PASSWORD, csrf) == 200
            async with http.get(hub.url + "/api/session") as r:
                csrf = (await r.json())["csrf"]
            big = json.dumps({"type": "penalty", "note": "x" * 100_000}).encode()
            headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
            for path in ("/api/tables/1/commands", "/api/tables/1/automation", "/api/rounds/1/delay"):
                async with http.post(hub.url + path, data=big, headers=headers) as r:
                    assert r.status == 413, (path, r.status)
            async with http.post(hub.url + "/api/schedule", data=b"x" * 5_000_000, headers=headers) as r:
                assert r.status == 413

    try:
        asyncio.run(scenario())
    finally:
        hub.stop()


def test_a_login_storm_does_not_stall_the_room(tmp_path, mosquitto):
    """Password checks run on worker threads: while they run, the hub's loop keeps taking the
    table's messages and pushing the room to the TD's open WebSocket. (A check on the loop could
    never overlap a push: the count of running checks is seen by the loop's own push callback.)"""
    clock = SystemClock()
    ev = event_id("storm")
    sim = make_table(ev, "1", mosquitto, clock, tmp_path / "outbox.sqlite3")
    hub = start_hub_thread(tmp_path, mosquitto, ev, clock, schedule=room_schedule(["1"], clock.now_wall()))
    auth = _auth(hub)
    during: list[int] = []
    unsubscribe = hub.call(hub.hub.subscribe, lambda msg: during.append(auth.hashing))

    async def scenario() -> None:
        async with _session() as http:
            assert await _login(http, hub.url, PASSWORD) == 200
            ws = await http.ws_connect(hub.url + "/api/ws")
            hello = json.loads((await ws.receive(WAIT)).data)
            assert hello["type"] == "hello"
            players = Players([sim], clock, seed=5)
            stop = asyncio.Event()

            async def play() -> None:
                while not stop.is_set():
                    await asyncio.to_thread(players.step)
                    await asyncio.sleep(0.005)

            player = asyncio.create_task(play())
            pushed = 0
            gate = asyncio.Semaphore(DEFAULTS.open_to(False)[1])  # new addresses: the open share

            async def td_login(i: int) -> int:
                async with gate:
                    return await _one_login(hub.url, f"127.0.3.{i}", PASSWORD)

            storm = asyncio.gather(*(td_login(i) for i in range(1, 41)))
            while not storm.done() or pushed == 0:
                try:
                    msg = await ws.receive(0.2)
                except TimeoutError:
                    continue
                if msg.type == aiohttp.WSMsgType.TEXT:
                    pushed += 1
            assert set(await storm) == {200}
            stop.set()
            await player
            await ws.close()

    try:
        sim.start(WAIT)
        sim.wait_for(lambda s: s.match_id == "r1-t1", WAIT)
        asyncio.run(scenario())
        assert any(n > 0 for n in during), "no push while a password was being checked"
    finally:
        hub.call(unsubscribe)
        hub.stop()
        sim.stop()


def test_anonymous_requests_leave_the_tds_session_alone(tmp_path, mosquitto):
    hub = start_hub_thread(tmp_path, mosquitto, event_id("anon"), SystemClock())

    async def scenario() -> None:
        async with _session() as td:
            assert await _login(td, hub.url, PASSWORD) == 200
            connector = aiohttp.TCPConnector(limit=50)
            async with aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar()
            ) as anon:

                async def visit(n: int) -> None:
                    for _ in range(n):
                        async with anon.get(hub.url + "/api/session") as r:
                            assert r.status == 200
                            await r.read()

                await asyncio.gather(*(visit(200) for _ in range(50)))  # 10,000 visitors
            async with td.get(hub.url + "/api/room") as r:
                assert r.status == 200  # still logged in
            async with td.get(hub.url + "/api/session") as r:
                assert (await r.json())["logged_in"] is True

    try:
        asyncio.run(scenario())
        assert hub.call(lambda: len(_auth(hub).sessions)) == 1  # only the TD's is kept
    finally:
        hub.stop()


def test_websockets_close_on_logout_and_on_expiry(tmp_path, mosquitto):
    hub = start_hub_thread(tmp_path, mosquitto, event_id("wsend"), SystemClock())
    auth = _auth(hub)

    async def scenario() -> None:
        async with _session() as http:
            assert await _login(http, hub.url, PASSWORD) == 200
            async with http.get(hub.url + "/api/session") as r:
                csrf = (await r.json())["csrf"]
            ws = await http.ws_connect(hub.url + "/api/ws")
            assert json.loads((await ws.receive(WAIT)).data)["type"] == "hello"
            async with http.post(hub.url + "/api/logout", headers={"X-CSRF-Token": csrf}) as r:
                assert r.status == 200
            msg = await _until_closed(ws)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED) and ws.closed
            assert "logged out" in (msg.extra or "")
            try:  # and a new one is not opened
                await http.ws_connect(hub.url + "/api/ws")
                raise AssertionError("a WebSocket opened after logout")
            except aiohttp.WSServerHandshakeError as exc:
                assert exc.status == 401

        async with _session() as http:
            assert await _login(http, hub.url, PASSWORD) == 200
            ws = await http.ws_connect(hub.url + "/api/ws")
            assert json.loads((await ws.receive(WAIT)).data)["type"] == "hello"
            # thirteen hours later (past the 12 h idle limit) the hub's sweep ends the session
            later = time.monotonic() + 13 * 3600
            hub.call(setattr, auth, "now", lambda: later)
            hub.call(sweep_sessions, hub.app.runner.app)
            msg = await _until_closed(ws)
            assert ws.closed and "expired" in (msg.extra or "")
            async with http.get(hub.url + "/api/room") as r:
                assert r.status == 401

    try:
        asyncio.run(scenario())
    finally:
        hub.stop()


async def _until_closed(ws: aiohttp.ClientWebSocketResponse) -> aiohttp.WSMessage:
    while True:
        msg = await ws.receive(WAIT)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return msg


def test_a_rebound_dns_name_is_refused(tmp_path, mosquitto: Mosquitto):
    """DNS rebinding: a page of evil.example whose name now points at the hub sends the hub
    ``Host: evil.example``; the hub answers only to its addresses, its names and --allowed-host."""
    hub = HubProcess(
        tmp_path,
        mosquitto,
        event_id("rebind"),
        tmp_path / "hub.db",
        extra=["--allowed-host", "tdhub.example"],
    )
    port = hub.url.rsplit(":", 1)[1]

    async def get(host: str, path: str = "/api/board") -> tuple[int, Any]:
        async with _session() as http, http.get(hub.url + path, headers={"Host": host}) as r:
            return r.status, await r.json(content_type=None)

    async def scenario() -> None:
        for host in (f"evil.example:{port}", "evil.example", f"tdhub.example.evil.example:{port}"):
            status, body = await get(host)
            assert status == 421 and "--allowed-host" in body["error"], (host, status, body)
        # a WebSocket and a login through the rebound name are refused the same way
        assert (await get(f"evil.example:{port}", "/api/ws"))[0] == 421
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"tdhub.example:{port}", f"[::1]:{port}"):
            assert (await get(host))[0] == 200, host

    try:
        asyncio.run(scenario())
    finally:
        hub.stop()
