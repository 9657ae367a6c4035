"""Finding the hub from a table that knows nothing: a ``hub =`` line, or mDNS.

In this order:

1. an address given on the command line (``--hub``);
2. a ``hub = HOST[:PORT]`` (or ``http://HOST:PORT``) line in a settings file on the card's boot
   partition, which any computer can edit after flashing — for venues whose network does not
   carry multicast. The files read are :data:`HUB_FILES` (``--hub-file`` names another);
3. the hub's mDNS announcement (``_bghub._tcp``, :mod:`hub.discovery`), asked on the network.

A line that is not a usable address is reported and skipped, never guessed at.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger("kiosk.discovery")

SERVICE_TYPE = "_bghub._tcp.local."
DEFAULT_PORT = 8080
#: the boot partition's settings files (the first names this product; the image's room.txt)
HUB_FILES = ("/boot/firmware/smart-table.txt", "/boot/firmware/room.txt")
LABEL_RE = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class DiscoveryError(ValueError):
    """A hub address that cannot be used (the message says which and why)."""


def normalize_hub(text: str) -> str:
    """``HOST``, ``HOST:PORT`` or ``http(s)://HOST[:PORT][/]`` as ``http(s)://HOST:PORT``."""
    raw = text.strip()
    url = raw if "://" in raw else f"http://{raw}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise DiscoveryError(f"hub: expected HOST[:PORT] or http://HOST:PORT, got {raw!r}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DiscoveryError(f"hub: expected HOST[:PORT] or http://HOST:PORT, got {raw!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise DiscoveryError(f"hub: expected HOST[:PORT] or http://HOST:PORT, got {raw!r}")
    host = parts.hostname
    try:
        ip = ipaddress.ip_address(host)
        host = f"[{ip}]" if ip.version == 6 else str(ip)
    except ValueError:
        if not all(LABEL_RE.match(label) for label in host.rstrip(".").split(".")):
            raise DiscoveryError(f"hub: {host!r} is neither an IP address nor a host name") from None
    return f"{parts.scheme}://{host}:{port or DEFAULT_PORT}"


def hub_from_text(text: str, source: str = "settings") -> str | None:
    """The ``hub =`` line of a settings file (``KEY = VALUE`` lines, ``#`` comments), or None."""
    found: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.strip().lstrip("\ufeff")
        if not body or body.startswith("#"):
            continue
        key, sep, value = body.partition("=")
        if not sep or key.strip().lower() != "hub":
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        try:
            found = normalize_hub(value)
        except DiscoveryError as exc:
            log.warning("%s line %d: %s; line ignored", source, number, exc)
    return found


def hub_from_files(paths: Sequence[str | Path]) -> tuple[str, Path] | None:
    """The first usable ``hub =`` line among ``paths``, and the file it came from."""
    for name in paths:
        path = Path(name)
        try:
            text = path.read_bytes()[: 64 * 1024].decode("utf-8", "replace")
        except OSError:
            continue
        url = hub_from_text(text, str(path))
        if url is not None:
            return url, path
    return None


def browse(timeout: float, stop: threading.Event | None = None) -> str | None:
    """Ask the network for ``_bghub._tcp`` for up to ``timeout`` s; the first hub's URL or None."""
    from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    found: list[str] = []
    done = threading.Event()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Added or done.is_set():
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is None or not info.port:
            return
        addresses = [a for a in info.parsed_addresses(IPVersion.V4Only) if not a.startswith("127.")]
        if addresses:
            found.append(f"http://{addresses[0]}:{info.port}")
            log.info("mDNS: found %s at %s", name, found[-1])
            done.set()

    zc = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
        waited = 0.0
        while not done.is_set() and waited < timeout and not (stop and stop.is_set()):
            done.wait(0.2)
            waited += 0.2
        browser.cancel()
    finally:
        zc.close()
    return found[0] if found else None


def find_hub(
    explicit: str | None,
    files: Sequence[str | Path] = HUB_FILES,
    *,
    mdns_timeout: float = 5.0,
    stop: threading.Event | None = None,
) -> tuple[str, str] | None:
    """``(url, how it was found)``, or None when nothing names or announces a hub (yet)."""
    if explicit:
        return normalize_hub(explicit), "given"
    from_file = hub_from_files(files)
    if from_file is not None:
        return from_file[0], f"from {from_file[1]}"
    try:
        url = browse(mdns_timeout, stop)
    except OSError as exc:
        log.warning("mDNS: cannot browse (%s)", exc)
        return None
    return (url, "found by mDNS") if url else None
