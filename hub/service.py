"""Run a :class:`hub.app.HubApp` on its own event-loop thread.

Tests, the benchmark and the demo are ordinary synchronous programs; this gives them a live hub
and a way to run code on its loop (``call``) — e.g. ``hub_thread.call(hub_thread.hub.tick)`` after
moving a fake clock twelve minutes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from hub.app import HubApp, RunConfig
from hub.live.clock import Clock
from hub.live.core import Hub

T = TypeVar("T")


class HubThread:
    def __init__(self, rc: RunConfig, *, clock: Clock | None = None, password: str | None = None) -> None:
        self.app = HubApp(rc, clock=clock, password=password)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="hub-loop", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def start(self, timeout: float = 30.0) -> HubThread:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.app.start(), self.loop).result(timeout)
        return self

    def stop(self, timeout: float = 30.0) -> None:
        if not self._thread.is_alive():
            return
        try:
            asyncio.run_coroutine_threadsafe(self.app.stop(), self.loop).result(timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
            self.loop.close()

    @property
    def hub(self) -> Hub:
        assert self.app.hub is not None
        return self.app.hub

    @property
    def url(self) -> str:
        return self.app.url

    def wait_for(self, predicate: Callable[[Hub], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate(hub)`` (run on the loop) is truthy, re-checking after each change."""
        cond = threading.Condition()
        counter = [0]

        def bump() -> None:
            with cond:
                counter[0] += 1
                cond.notify_all()

        remove = self.call(self.hub.on_change, bump)
        deadline = time.monotonic() + timeout
        try:
            while True:
                with cond:
                    seen = counter[0]
                result = self.call(predicate, self.hub)
                if result:
                    return result
                with cond:
                    while counter[0] == seen:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            raise TimeoutError(f"hub condition not met within {timeout}s")
                        cond.wait(left)
        finally:
            self.call(remove)

    def call(self, func: Callable[..., Any], *args: Any, timeout: float = 30.0, **kwargs: Any) -> Any:
        """Run ``func(*args, **kwargs)`` on the hub's loop (awaited if it is a coroutine function)."""

        async def runner() -> Any:
            result = func(*args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
            return result

        future: concurrent.futures.Future[Any] = asyncio.run_coroutine_threadsafe(runner(), self.loop)
        return future.result(timeout)
