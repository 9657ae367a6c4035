"""Which names the dashboard answers to (the ``Host`` header): the defence against DNS rebinding.

A web page on another site can make a browser send requests to the hub by pointing one of its own
DNS names at the hub's address (DNS rebinding); the browser then treats the hub as that site, so
its same-origin rules protect nothing. What gives the trick away is the ``Host`` header: it names
the other site. The hub answers only to names it knows to be its own:

- an IP address written as such (``192.168.1.10:8080``, ``[::1]``) — a page that reached the hub by
  its address is on the hub's origin, nothing was rebound;
- ``localhost`` and names under ``.localhost`` (they never leave the machine);
- this machine's host name, its fully qualified name and ``NAME.local`` (mDNS: how tables and TDs
  find the hub, docs/install-pi.md);
- the names given with ``--allowed-host`` (a DNS name the organiser set up for the hub).

Anything else is refused with ``421 Misdirected Request`` and a message naming the option.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterable


def _name_of(host: str) -> str | None:
    """The name or address in a ``Host`` header, without its port; None if it is not one."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 address: [::1] or [::1]:8080
        end = host.find("]")
        rest = host[end + 1 :] if end > 0 else "?"
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return host[1:end]
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def machine_names() -> set[str]:
    """This machine's own names: its host name, its fully qualified name, its mDNS name."""
    names = {"localhost"}
    short = socket.gethostname().lower().rstrip(".")
    if short:
        names |= {short, f"{short.split('.')[0]}.local"}
    with contextlib.suppress(OSError):
        names.add(socket.getfqdn().lower().rstrip("."))
    return names


class HostPolicy:
    """The names the dashboard answers to; :meth:`allows` checks one ``Host`` header."""

    def __init__(self, extra: Iterable[str] = (), *, own: Iterable[str] | None = None) -> None:
        names = [*(machine_names() if own is None else own), *extra]
        self.names = frozenset(n.lower().rstrip(".") for n in names)

    def allows(self, host: str | None) -> bool:
        if not host:
            return False
        name = _name_of(host)
        if name is None:
            return False
        return _is_address(name) or name == "localhost" or name.endswith(".localhost") or name in self.names

    def refusal(self, host: str | None) -> str:
        if not host:
            return "the request names no host (a Host header is required)"
        shown = host[:100].encode("ascii", "replace").decode("ascii")
        return (
            f"this hub does not answer to the name {shown!r}: open it by its address or its own name, "
            "or start it with --allowed-host NAME for a name of your own"
        )


def check_allowed_host(name: str) -> str:
    """A ``--allowed-host`` value: a DNS name (letters, digits, dots, hyphens), lower-cased."""
    name = name.strip().lower().rstrip(".")
    labels = name.split(".")
    if (
        not name
        or len(name) > 253
        or not all(
            label and len(label) <= 63 and all(c.isalnum() or c == "-" for c in label) and label.isascii()
            for label in labels
        )
    ):
        raise ValueError(f"not a host name: {name!r}")
    return name
