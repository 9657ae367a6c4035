#!/usr/bin/python3
"""The room's settings from the card's boot partition, turned into what the table's system uses.

One image serves every table, so nothing in it names a room. What the room needs — the hub's
address, the Wi-Fi network — the organiser writes once into ``room.txt`` on the boot partition
(a FAT partition any computer can edit after flashing; the same file on every card). At every
boot, and whenever the table's configuration changes, this script reads it and writes:

- ``/run/bgtable-room/hub``: the hub's URL, ``http://HOST:PORT`` (for enrollment and discovery);
- ``/run/bgtable-room/time.sources``: chrony's time source, the hub's host (room time: the hub
  is the room's time server); without a ``hub`` line, the broker host of the table's
  configuration (the hub's machine runs the broker), so an enrolled table follows the hub too;
- ``/run/bgtable-room/wpa_supplicant-wlan0.conf``: the Wi-Fi network, when one is named.

``language`` (the language of the "not set up" screen), ``event`` (the event whose hub a table
looks for by mDNS) and ``hub_key`` (the fingerprint of the hub's key, pinned before the first
contact) are read by the kiosk itself from the same file; here they are only checked, so that a
wrong one is reported with the others.

Never trust an edge: each line is checked by type and range; a bad line is reported (in the
journal) and dropped, and never stops the others or the boot. Uses the standard library only: it
runs with the system's python3 before the kiosk's venv is needed.
"""

from __future__ import annotations

import argparse
import hashlib
import ipaddress
import os
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_HUB_PORT = 8080
KEYS = ("hub", "language", "event", "hub_key", "wifi_ssid", "wifi_password", "wifi_country")
#: an event id (the MQTT topic level) and a key's fingerprint (drivers/signing.py)
EVENT_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
FINGERPRINT_RE = re.compile(r"^[0-9A-F]{4}(-[0-9A-F]{4}){3}$")
#: the kiosk's languages (kiosk/ui/i18n.py)
LANGUAGES = ("en", "el", "fr", "bg", "nb", "hu")
KEY_RE = re.compile(r"^[a-z_]+$")
LABEL_RE = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
COUNTRY_RE = re.compile(r"^[A-Z]{2}$")
HEX64_RE = re.compile(r"^[0-9a-fA-F]{64}$")
MAX_FILE_BYTES = 64 * 1024


class RoomSettingsError(ValueError):
    """A value of room.txt is wrong; the message names the key."""


@dataclass(frozen=True, slots=True)
class Hub:
    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Wifi:
    ssid: str
    #: the WPA passphrase (8-63 characters) or the 64-hex-digit key; empty for an open network
    password: str
    country: str


@dataclass(frozen=True, slots=True)
class RoomSettings:
    hub: Hub | None = None
    wifi: Wifi | None = None
    language: str | None = None


def parse_host(text: str, key: str) -> str:
    """An IPv4/IPv6 address or a DNS name; anything else is refused."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    name = text[:-1] if text.endswith(".") else text
    if not name or len(name) > 253 or not all(LABEL_RE.match(label) for label in name.split(".")):
        raise RoomSettingsError(f"{key}: expected an IP address or a host name, got {text!r}")
    if name.replace(".", "").isdigit():
        raise RoomSettingsError(f"{key}: {text!r} is not an IP address")
    return name.lower()


def parse_hub(text: str) -> Hub:
    """``HOST``, ``HOST:PORT`` or ``http(s)://HOST[:PORT][/]``; the port defaults to 8080."""
    url = text if "://" in text else f"http://{text}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RoomSettingsError(f"hub: expected HOST[:PORT] or http://HOST:PORT, got {text!r}") from exc
    if parts.scheme not in ("http", "https"):
        raise RoomSettingsError(f"hub: the address must start with http:// or https://, got {text!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise RoomSettingsError(f"hub: expected HOST[:PORT] or http://HOST:PORT, got {text!r}")
    if not parts.hostname:
        raise RoomSettingsError(f"hub: no host in {text!r}")
    if port == 0:
        raise RoomSettingsError(f"hub: port 0 is not a port in {text!r}")
    return Hub(parts.scheme, parse_host(parts.hostname, "hub"), port or DEFAULT_HUB_PORT)


def parse_ssid(text: str) -> str:
    size = len(text.encode())
    if not 1 <= size <= 32 or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise RoomSettingsError(f"wifi_ssid: expected 1 to 32 bytes of printable text, got {size} bytes")
    return text


def parse_password(text: str) -> str:
    if HEX64_RE.match(text):
        return text.lower()
    if not 8 <= len(text) <= 63 or not all(32 <= ord(c) <= 126 for c in text):
        raise RoomSettingsError(
            "wifi_password: expected 8 to 63 printable ASCII characters (or a 64-hex-digit key), "
            f"got {len(text)} characters"
        )
    return text


def parse_country(text: str) -> str:
    code = text.upper()
    if not COUNTRY_RE.match(code):
        raise RoomSettingsError(f"wifi_country: expected a two-letter country code such as GR, got {text!r}")
    return code


def parse_language(text: str) -> str:
    if text not in LANGUAGES:
        raise RoomSettingsError(f"language: expected one of {', '.join(LANGUAGES)}, got {text!r}")
    return text


def parse_event(text: str) -> str:
    if not EVENT_RE.match(text):
        raise RoomSettingsError(f"event: expected the event's id (letters, digits, _ . -), got {text!r}")
    return text


def parse_hub_key(text: str) -> str:
    if not FINGERPRINT_RE.match(text.upper()):
        raise RoomSettingsError(f"hub_key: expected a fingerprint such as 3F2A-91C0-7B44-E1D8, got {text!r}")
    return text.upper()


def unquote(value: str) -> str:
    """Organisers may write ``ssid = "My net"``: one pair of matching quotes is removed."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse(text: str) -> tuple[RoomSettings, list[str]]:
    """room.txt's settings and the problems found (each problem's line was dropped)."""
    problems: list[str] = []
    raw: dict[str, str] = {}
    # only LF (and CRLF) end a line: str.splitlines() would also break at characters such as
    # U+0085 or U+2028, which may be part of a network's name
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        body = line.strip().lstrip("\ufeff")
        if not body or body.startswith("#"):
            continue
        key, sep, value = body.partition("=")
        key = key.strip().lower()
        if not sep or not KEY_RE.match(key):
            problems.append(f"line {number}: expected KEY = VALUE, got {body[:80]!r}")
        elif key not in KEYS:
            problems.append(f"line {number}: unknown key {key!r} (known: {', '.join(KEYS)})")
        elif key in raw:
            problems.append(f"line {number}: {key} given a second time; the first one is used")
        else:
            raw[key] = unquote(value.strip())

    def checked(key: str, check: Callable[[str], str]) -> str | None:
        if key not in raw:
            return None
        try:
            return check(raw[key])
        except RoomSettingsError as exc:
            problems.append(str(exc))
            return None

    hub: Hub | None = None
    if "hub" in raw:
        try:
            hub = parse_hub(raw["hub"])
        except RoomSettingsError as exc:
            problems.append(str(exc))
    ssid = checked("wifi_ssid", parse_ssid)
    password = checked("wifi_password", parse_password)
    country = checked("wifi_country", parse_country)
    language = checked("language", parse_language)
    checked("event", parse_event)  # the kiosk reads these two itself
    checked("hub_key", parse_hub_key)
    wifi: Wifi | None = None
    if ssid is not None:
        if country is None:
            problems.append("wifi_country: missing; the Wi-Fi network is not used without it")
        elif "wifi_password" in raw and password is None:
            problems.append("wifi_ssid: the Wi-Fi network is not used: its password is wrong")
        else:
            wifi = Wifi(ssid, password or "", country)
    elif "wifi_ssid" not in raw and ("wifi_password" in raw or "wifi_country" in raw):
        problems.append("wifi_ssid: missing; wifi_password and wifi_country are not used without it")
    return RoomSettings(hub, wifi, language), problems


def broker_host(config: Path) -> tuple[str | None, list[str]]:
    """The broker host of the table's configuration, if there is one and it is well formed."""
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return None, [f"{config}: not readable as TOML ({exc})"]
    broker = data.get("broker")
    host = broker.get("host") if isinstance(broker, dict) else None
    if host is None or host == "":
        return None, []
    if not isinstance(host, str):
        return None, [f"{config}: broker.host: expected a host name, got {type(host).__name__}"]
    try:
        return parse_host(host, "broker.host"), []
    except RoomSettingsError as exc:
        return None, [f"{config}: {exc}"]


def wpa_config(wifi: Wifi) -> str:
    """wpa_supplicant's network block; the SSID in hex and the key as a PSK, so no text is quoted."""
    ssid = wifi.ssid.encode()
    lines = [
        f"country={wifi.country}",
        "ctrl_interface=DIR=/run/wpa_supplicant",
        "",
        "network={",
        f"\tssid={ssid.hex()}",
        "\tscan_ssid=1",
    ]
    if not wifi.password:
        lines.append("\tkey_mgmt=NONE")
    elif HEX64_RE.match(wifi.password):
        lines.append(f"\tpsk={wifi.password}")
    else:
        psk = hashlib.pbkdf2_hmac("sha1", wifi.password.encode(), ssid, 4096, 32)
        lines.append(f"\tpsk={psk.hex()}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str | None, mode: int = 0o644) -> None:
    """Write (atomically) or remove one output file."""
    if text is None:
        path.unlink(missing_ok=True)
        return
    new = path.with_name(path.name + ".new")
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(new, mode)
    os.replace(new, path)


def apply(boot: Path, config: Path, out: Path) -> list[str]:
    """Read room.txt (and the table's configuration), write the outputs; return the problems."""
    problems: list[str] = []
    text = ""
    room = boot / "room.txt"
    try:
        data = room.read_bytes()
        if len(data) > MAX_FILE_BYTES:
            problems.append(f"{room}: larger than {MAX_FILE_BYTES} bytes; not read")
        else:
            text = data.decode("utf-8")
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{room}: not readable as UTF-8 text ({exc})")
    settings, found = parse(text)
    problems += [f"{room}: {problem}" for problem in found]

    time_host = settings.hub.host if settings.hub else None
    if time_host is None:
        time_host, found = broker_host(config)
        problems += found

    out.mkdir(mode=0o755, parents=True, exist_ok=True)
    write(out / "hub", f"{settings.hub.url}\n" if settings.hub else None)
    write(out / "time.sources", f"server {time_host} iburst\n" if time_host else None)
    write(out / "wpa_supplicant-wlan0.conf", wpa_config(settings.wifi) if settings.wifi else None, 0o600)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boot", type=Path, default=Path("/boot/firmware"), help="the boot partition")
    parser.add_argument(
        "--config", type=Path, default=Path("/var/lib/bgtable/table.toml"), help="the table's configuration"
    )
    parser.add_argument("--out", type=Path, default=Path("/run/bgtable-room"), help="where to write")
    args = parser.parse_args(argv)
    for problem in apply(args.boot, args.config, args.out):
        print(f"room-settings: {problem}", file=sys.stderr)
    hub = (args.out / "hub").read_text().strip() if (args.out / "hub").exists() else "none"
    source = (args.out / "time.sources").read_text().split() if (args.out / "time.sources").exists() else []
    wifi = "yes" if (args.out / "wpa_supplicant-wlan0.conf").exists() else "no"
    print(f"room-settings: hub {hub}; time server {source[1] if source else 'none'}; Wi-Fi {wifi}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
