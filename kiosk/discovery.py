"""Finding the hub from a table that knows nothing: a ``hub =`` line, or mDNS.

In this order:

1. an address given on the command line (``--hub``);
2. a ``hub = HOST[:PORT]`` (or ``http://HOST:PORT``) line in a settings file on the card's boot
   partition, which any computer can edit after flashing — for venues whose network does not
   carry multicast. The files read are :data:`HUB_FILES` (``--hub-file`` names another);
3. the hub's mDNS announcement (``_bghub._tcp``, :mod:`hub.fleet.discovery`), asked on the network.

Anyone on the room's network can announce ``_bghub._tcp``. So an announcement counts only for
the table's event (an ``event =`` line in the same settings file; TXT ``event``) and, when the
file pins the hub's key (``hub_key =`` its fingerprint), only with that key (TXT ``key``). When
two hubs still answer, the table does not choose: :class:`TwoHubs` names them, the set-up screen
shows both, and the organiser writes a ``hub =`` line. (What a hub then answers is checked
against its key anyway: :mod:`kiosk.trust`.)

A line that is not a usable address is reported and skipped, never guessed at.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from kiosk.errors import KioskError

log = logging.getLogger("kiosk.discovery")

SERVICE_TYPE = "_bghub._tcp.local."
DEFAULT_PORT = 8080
#: the boot partition's settings files (the first names this product; the image's room.txt)
HUB_FILES = ("/boot/firmware/smart-table.txt", "/boot/firmware/room.txt")
LABEL_RE = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


#: after the first answer, how long other hubs have to answer too (mDNS answers within ~120 ms)
SETTLE_S = 3.0
FINGERPRINT_RE = re.compile(r"^[0-9A-F]{4}(-[0-9A-F]{4}){3}$")


class DiscoveryError(KioskError, ValueError):
    """A hub address that cannot be used (the message says which and why)."""


class TwoHubs(DiscoveryError):
    """More than one hub answered for this table: it does not choose (``hubs``: what answered)."""

    def __init__(self, hubs: list[Announced]) -> None:
        self.hubs = hubs
        super().__init__(
            "more than one hub answers: "
            + ", ".join(h.label for h in hubs)
            + "; write the right one as 'hub = HOST:PORT' in room.txt"
        )


@dataclass(frozen=True)
class Announced:
    """One ``_bghub._tcp`` answer."""

    url: str
    event: str = ""
    key: str = ""

    @property
    def label(self) -> str:
        return f"{self.url} (key {self.key})" if self.key else self.url


@dataclass(frozen=True)
class Hints:
    """What the card's settings file says about the hub (every field optional)."""

    hub: str | None = None
    source: Path | None = None
    event: str = ""
    hub_key: str = ""


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


def value_from_text(text: str, wanted: str) -> str:
    """The value of the first ``wanted = VALUE`` line (quotes removed), else ""."""
    for line in text.splitlines():
        key, sep, value = line.strip().lstrip("\ufeff").partition("=")
        if sep and not key.startswith("#") and key.strip().lower() == wanted:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            return value
    return ""


def hints_from_files(paths: Sequence[str | Path]) -> Hints:
    """The hub, event and hub key lines of the first settings file that exists."""
    for name in paths:
        path = Path(name)
        try:
            text = path.read_bytes()[: 64 * 1024].decode("utf-8", "replace")
        except OSError:
            continue
        hub = hub_from_text(text, str(path))
        key = value_from_text(text, "hub_key").upper()
        if key and not FINGERPRINT_RE.match(key):
            log.warning("%s: hub_key %r is not a fingerprint such as 3F2A-91C0-7B44-E1D8; ignored", path, key)
            key = ""
        return Hints(hub, path if hub else None, value_from_text(text, "event"), key)
    return Hints()


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


def _text(properties: dict[bytes, bytes | None], key: bytes) -> str:
    value = properties.get(key)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else ""


def browse(
    timeout: float, stop: threading.Event | None = None, *, event: str = "", hub_key: str = ""
) -> list[Announced]:
    """Ask the network for ``_bghub._tcp`` for up to ``timeout`` s (and :data:`SETTLE_S` more
    after the first answer, for the others); the hubs of ``event`` (any event when empty) with
    ``hub_key`` (any key when empty), one entry per hub."""
    from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    found: dict[str, Announced] = {}
    first = threading.Event()
    lock = threading.Lock()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Added:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is None or not info.port:
            return
        addresses = [a for a in info.parsed_addresses(IPVersion.V4Only) if not a.startswith("127.")]
        if not addresses:
            return
        hub = Announced(
            f"http://{addresses[0]}:{info.port}",
            _text(info.properties, b"event"),
            _text(info.properties, b"key"),
        )
        if event and hub.event != event:
            log.info("mDNS: %s at %s is a hub of event %r, not %r: ignored", name, hub.url, hub.event, event)
            return
        if hub_key and hub.key != hub_key:
            log.info("mDNS: %s at %s has key %r, not %s: ignored", name, hub.url, hub.key, hub_key)
            return
        log.info("mDNS: found %s at %s", name, hub.url)
        with lock:  # one entry per address: a copied key does not make a rogue the same hub
            found[hub.url] = hub
        first.set()

    zc = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
        pause = stop or threading.Event()
        end = time.monotonic() + timeout
        settled = False
        while not pause.is_set() and time.monotonic() < end:
            if first.is_set() and not settled:
                settled, end = True, time.monotonic() + SETTLE_S
            (pause if settled else first).wait(0.2)
        browser.cancel()
    finally:
        zc.close()
    with lock:
        return sorted(found.values(), key=lambda h: h.url)


def find_hub(
    explicit: str | None,
    files: Sequence[str | Path] = HUB_FILES,
    *,
    mdns_timeout: float = 5.0,
    stop: threading.Event | None = None,
) -> tuple[str, str] | None:
    """``(url, how it was found)``, or None when nothing names or announces a hub (yet);
    :class:`TwoHubs` when more than one hub of the event answers."""
    if explicit:
        return normalize_hub(explicit), "given"
    hints = hints_from_files(files)
    if hints.hub is not None:
        return hints.hub, f"from {hints.source}"
    try:
        hubs = browse(mdns_timeout, stop, event=hints.event, hub_key=hints.hub_key)
    except OSError as exc:
        log.warning("mDNS: cannot browse (%s)", exc)
        return None
    if len(hubs) > 1:
        raise TwoHubs(hubs)
    return (hubs[0].url, "found by mDNS") if hubs else None
