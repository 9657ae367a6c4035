"""How many password guesses the dashboard takes: per address and for the whole hub, reserved first.

A login costs the hub a scrypt hash (tens of milliseconds of a core and 16 MiB of memory), so
guesses are limited before anything is read or hashed: a login *reserves* an attempt — one in
its address's window and one in the hub's — and an in-flight slot, and only then is its body read.
A wrong password, a bad body or a client that hangs up keeps the attempt counted; a right one gives
it back, so the TD's own logins never count. A share of the hub's allowance (attempts and logins
at once) is kept for addresses that logged in successfully before: anyone using up the rest from
any number of other addresses cannot lock the TD's laptop out. The in-flight slots bound how many
bodies are being read and how many hashes run at once, so a flood of slow or huge login requests
cannot hold more than a few small buffers, whatever the number of addresses it comes from.

Pure bookkeeping: time is passed in (a monotonic clock), nothing here reads the network.
"""

from __future__ import annotations

import contextlib
from collections import deque
from dataclasses import dataclass

from hub.errors import HubError


@dataclass(frozen=True, slots=True)
class LoginLimits:
    #: attempts one address may start in a window (the TD's successful logins are given back)
    per_address: int = 10
    #: attempts the whole hub takes in a window, from every address together (rotating addresses)
    overall: int = 100
    window_s: float = 60.0
    #: logins being read or hashed at once, from one address and in all
    in_flight_per_address: int = 2
    in_flight: int = 16
    #: the share of ``overall`` and of ``in_flight`` kept for addresses that logged in
    #: successfully before: whoever uses up the rest from other addresses cannot lock the TD out
    reserved_share: float = 0.25
    #: how many such addresses are remembered (the least recent forgotten first)
    known_addresses: int = 1000

    def __post_init__(self) -> None:
        if min(self.per_address, self.overall, self.in_flight_per_address, self.in_flight) < 1:
            raise ValueError("login limits must be at least 1")
        if self.window_s <= 0:
            raise ValueError("the login window must be positive")
        if not 0 <= self.reserved_share < 1:
            raise ValueError("the reserved share of logins must be at least 0 and below 1")

    def open_to(self, known: bool) -> tuple[int, int]:
        """``(attempts in a window, logins at once)`` open to an address: all of them to one
        that logged in before, the rest without the reserved share to any other."""
        if known:
            return self.overall, self.in_flight
        return (
            max(1, int(self.overall * (1 - self.reserved_share))),
            max(1, int(self.in_flight * (1 - self.reserved_share))),
        )


class Refused(HubError):
    """Why an attempt was not reserved (the message is the client's)."""


@dataclass(slots=True)
class Attempt:
    """A reserved login attempt: :meth:`LoginThrottle.release` it when done, success or not."""

    client: str
    at: float
    done: bool = False


class LoginThrottle:
    def __init__(self, limits: LoginLimits | None = None) -> None:
        self.limits = limits or LoginLimits()
        self._by_client: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._in_flight: dict[str, int] = {}
        self._in_flight_total = 0
        #: addresses that logged in successfully, oldest first (the reserved share is theirs)
        self._known: dict[str, None] = {}

    @property
    def in_flight(self) -> int:
        return self._in_flight_total

    def _prune(self, now: float) -> None:
        horizon = now - self.limits.window_s
        while self._all and self._all[0] <= horizon:
            self._all.popleft()
        for client in [c for c, q in self._by_client.items() if not q or q[-1] <= horizon]:
            del self._by_client[client]
        for q in self._by_client.values():
            while q and q[0] <= horizon:
                q.popleft()

    def reserve(self, client: str, now: float) -> Attempt:
        """One attempt from ``client`` now, or :class:`Refused` saying which limit it met."""
        lim = self.limits
        self._prune(now)
        overall, in_flight = lim.open_to(client in self._known)
        if self._in_flight_total >= in_flight:
            raise Refused("the hub is busy with other logins; try again in a moment")
        if self._in_flight.get(client, 0) >= lim.in_flight_per_address:
            raise Refused("a login from this address is already being checked; wait for it")
        if len(self._by_client.get(client, ())) >= lim.per_address:
            raise Refused("too many failed attempts from this address; wait a minute")
        if len(self._all) >= overall:
            raise Refused("too many failed logins at this hub; logins are paused for a minute")
        self._by_client.setdefault(client, deque()).append(now)
        self._all.append(now)
        self._in_flight[client] = self._in_flight.get(client, 0) + 1
        self._in_flight_total += 1
        return Attempt(client, now)

    def release(self, attempt: Attempt, *, succeeded: bool) -> None:
        """The attempt is over; a successful one no longer counts against anybody."""
        if attempt.done:
            return
        attempt.done = True
        left = self._in_flight.get(attempt.client, 1) - 1
        if left > 0:
            self._in_flight[attempt.client] = left
        else:
            self._in_flight.pop(attempt.client, None)
        self._in_flight_total -= 1
        if succeeded:
            _forget(self._by_client.get(attempt.client), attempt.at)
            _forget(self._all, attempt.at)
            self._known.pop(attempt.client, None)
            self._known[attempt.client] = None
            while len(self._known) > self.limits.known_addresses:
                del self._known[next(iter(self._known))]

    def counted(self, client: str, now: float) -> int:
        """Attempts from ``client`` still counted in the window."""
        self._prune(now)
        return len(self._by_client.get(client, ()))


def _forget(q: deque[float] | None, at: float) -> None:
    if q is None:
        return
    with contextlib.suppress(ValueError):  # already out of the window
        q.remove(at)
