"""An attacker's relay in front of the hub, on another loopback address: it forwards the tables'
HTTP requests to the real hub and may change the answers on the way; and a trap that records
whatever connects to an address (where a redirected table would send its MQTT password).

Both run on threads of the test process, with real sockets; the hub and the tables they stand
between are real processes.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import ClientSession, web

#: the attacker's address (Linux answers on all of 127.0.0.0/8)
RELAY_HOST = "127.0.0.2"

Tamper = Callable[[str, dict[str, Any]], dict[str, Any] | None]


def free_port_on(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class HttpRelay:
    """Forwards every request to ``target``; ``tamper(path, answer)`` may replace a JSON answer
    (None: forward it as it is). ``seen`` keeps every request and answer body it carried."""

    def __init__(self, target: str, *, host: str = RELAY_HOST, port: int | None = None) -> None:
        self.target = target.rstrip("/")
        self.host = host
        self.port = port or free_port_on(host)
        self.url = f"http://{host}:{self.port}"
        self.tamper: Tamper | None = None
        self.seen: list[tuple[str, bytes, bytes]] = []
        self.tampered: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> HttpRelay:
        self._thread.start()
        assert self._ready.wait(10), "the relay did not start"
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve())
        self._loop.run_forever()

    async def _serve(self) -> None:
        self._session = ClientSession()
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()
        self._ready.set()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {"Content-Type": request.headers.get("Content-Type", "application/json")}
        async with self._session.request(
            request.method, self.target + request.path_qs, data=body or None, headers=headers
        ) as upstream:
            data = await upstream.read()
            status = upstream.status
            kind = upstream.headers.get("Content-Type", "application/octet-stream")
        self.seen.append((request.path, body, data))
        if self.tamper is not None and kind.startswith("application/json"):
            try:
                answer = json.loads(data)
            except ValueError:
                answer = None
            if isinstance(answer, dict):
                changed = self.tamper(request.path, answer)
                if changed is not None:
                    self.tampered.append(request.path)
                    return web.json_response(changed, status=200)
        return web.Response(body=data, status=status, content_type=kind.split(";")[0])

    def carried(self, text: str) -> bool:
        """Whether ``text`` crossed the relay in clear, either way."""
        needle = text.encode()
        return any(needle in body or needle in answer for _, body, answer in self.seen)

    def stop(self) -> None:
        async def close() -> None:
            await self._runner.cleanup()
            await self._session.close()

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)


class Trap:
    """A listener that accepts connections and keeps what they send (a fake broker)."""

    def __init__(self, host: str = RELAY_HOST, port: int | None = None) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port or 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.received: list[bytes] = []
        self._stopping = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.received.append(conn.recv(65536))
            except OSError:
                self.received.append(b"")
            finally:
                conn.close()

    def stop(self) -> None:
        self._stopping = True
        self.sock.close()
