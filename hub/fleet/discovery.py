"""The hub announces itself on the room's network with mDNS (``_bghub._tcp``).

A table flashed from the one image knows no address: it asks the local network for
``_bghub._tcp.local.`` and finds the hub (the way DGT boards find LiveChess). The announcement
names the dashboard's port, the addresses the hub answers on, the event (TXT ``event``,
``path=/device/v1/``) and the fingerprint of the hub's signing key (TXT ``key``): a table takes
only a hub of its own event (and of its pinned key, when its room.txt names one), and refuses to
choose when two answer (:mod:`kiosk.discovery`). Where multicast does not pass (some venue
Wi-Fi), the organiser writes the hub's address on the cards' boot partition instead
(docs/install-pi.md).

Only a dashboard listening beyond loopback is announced: nothing else could reach it.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

log = logging.getLogger("hub.discovery")

SERVICE_TYPE = "_bghub._tcp.local."


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback."""
    import ifaddr  # zeroconf's own dependency

    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback:
                out.append(ip.ip)
    return sorted(set(out))


def announced_addresses(http_host: str) -> list[str]:
    """Where tables can reach a dashboard bound to ``http_host``: none for loopback."""
    if http_host in ("", "0.0.0.0", "::"):
        return local_addresses()
    try:
        address = ipaddress.ip_address(http_host)
    except ValueError:
        try:
            address = ipaddress.ip_address(socket.gethostbyname(http_host))
        except OSError:
            return []
    return [] if address.is_loopback else [str(address)]


class Announcer:
    """Registers the hub's service on the running loop; ``stop()`` withdraws it."""

    def __init__(self, event: str, http_host: str, http_port: int, key: str = "") -> None:
        self.event = event
        self.key = key
        self.http_host = http_host
        self.http_port = http_port
        self.addresses: list[str] = []
        self._zc: Any = None
        self._info: Any = None

    async def start(self) -> bool:
        """Announce; False (and nothing announced) when no table could reach the dashboard."""
        self.addresses = announced_addresses(self.http_host)
        if not self.addresses:
            log.info("mDNS: the dashboard listens on %s only; not announced", self.http_host)
            return False
        from zeroconf import IPVersion, ServiceInfo
        from zeroconf.asyncio import AsyncZeroconf

        host = socket.gethostname().split(".")[0] or "bghub"
        self._info = ServiceInfo(
            SERVICE_TYPE,
            f"Smart table hub {self.event} on {host}.{SERVICE_TYPE}",
            port=self.http_port,
            properties={"event": self.event, "path": "/device/v1/", "scheme": "http", "key": self.key},
            server=f"{host}.local.",
            parsed_addresses=self.addresses,
        )
        self._zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
        await self._zc.async_register_service(self._info, allow_name_change=True)
        log.info("mDNS: announced %s on %s port %d", SERVICE_TYPE, ", ".join(self.addresses), self.http_port)
        return True

    async def stop(self) -> None:
        if self._zc is not None:
            zc, self._zc = self._zc, None
            try:
                await zc.async_unregister_service(self._info)
            finally:
                await zc.async_close()
