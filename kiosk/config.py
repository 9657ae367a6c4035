"""The table's configuration: one TOML file, every key validated before the kiosk starts.

A table in a tournament room must not come up half-configured: a wrong value or an unknown key
(usually a typo) stops the start with a message naming the key, e.g.
``screen.size: expected WIDTHxHEIGHT, got '800'``. Every key has a default that suits a desktop
trial (no broker, no GPIO, no dice tower, a window of 800x480), so ``bgtable run`` works with no
file at all. ``docs/configuration.md`` lists the keys.

Settings changed at the table (table id, language, screen flip) are kept in ``settings.json``
in the data directory and override the file, so they survive a restart.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from kiosk.errors import KioskError
from rulebook.profiles import PROFILES

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
LANG_RE = re.compile(r"^[a-z]{2,3}([_-][A-Za-z]{2,4})?$")
SIZE_RE = re.compile(r"^(\d{2,5})x(\d{2,5})$")
URL_RE = re.compile(r"^https?://[^\s/?#]+$")
BAUDS = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
ROTATIONS = (0, 90, 180, 270)
PIN_NAMES = ("A", "B", "pause", "td")
SETTINGS_FILE = "settings.json"


class ConfigError(KioskError, ValueError):
    """A configuration value is wrong; the message starts with the key's dotted name."""


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    #: empty: no network; the table works on its own
    host: str = ""
    port: int = 1883
    #: default: the table id (PROTOCOL.md §3: table id = MQTT username)
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""


@dataclass(frozen=True, slots=True)
class PinsConfig:
    """BCM GPIO numbers of the four buttons."""

    enabled: bool = True
    A: int = 17
    B: int = 27
    pause: int = 22
    td: int = 23

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in PIN_NAMES}


@dataclass(frozen=True, slots=True)
class DiceConfig:
    #: serial device of the dice tower (or a pyserial URL); empty: no tower
    device: str = ""
    baud: int = 115200
    #: players enter every roll on the screen (only at a table without a tower)
    manual_entry: bool = False


@dataclass(frozen=True, slots=True)
class ScreenConfig:
    size: tuple[int, int] = (800, 480)
    rotation: int = 0
    #: side A on the right of the screen
    flip: bool = False
    fullscreen: bool = False


@dataclass(frozen=True, slots=True)
class FleetConfig:
    """What an enrolled table knows of its hub (written at enrollment; docs/configuration.md)."""

    #: the hub's address, ``http://HOST:PORT`` (empty: not enrolled, no fleet reports)
    hub: str = ""
    #: this device's id at the hub
    device: str = ""
    #: take the hub's software between matches when it differs
    auto_update: bool = True
    #: seconds between health reports to the hub
    report_s: int = 30
    #: seconds between asking the hub which software it serves
    update_check_s: int = 600
    #: the hub's public key, pinned at enrollment: the table acts only on what it signed
    hub_key: str = ""
    #: the release keys (``*.pub``) whose signature an update needs: the image's own
    release_keys: str = "/usr/share/bgtable/release-keys"


@dataclass(frozen=True, slots=True)
class Config:
    table_id: str = "1"
    event: str = "local"
    language: str = "en"
    profile: str = "wbgf-2023"
    data_dir: str = ""
    td_pin: str = "0000"
    tick_interval_ms: int = 1000
    log_level: str = "info"
    #: the screen says the table's clock is off when it is further than this from the hub's
    clock_notice_s: int = 30
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    dice: DiceConfig = field(default_factory=DiceConfig)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    fleet: FleetConfig = field(default_factory=FleetConfig)

    @property
    def data_path(self) -> Path:
        if self.data_dir:
            return Path(self.data_dir).expanduser()
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "bgtable"

    @property
    def journal_path(self) -> Path:
        return self.data_path / "journal.sqlite3"

    @property
    def mqtt_username(self) -> str:
        return self.broker.username or self.table_id


# -- validators ---------------------------------------------------------------------------------


def _str(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key}: expected a string, got {value!r}")
    return value


def _ident(key: str, value: Any) -> str:
    text = _str(key, value)
    if not ID_RE.match(text):
        raise ConfigError(
            f"{key}: expected 1-64 letters, digits, '.', '_' or '-' (no '/', '+', '#'), got {value!r}"
        )
    return text


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: expected true or false, got {value!r}")
    return value


def _int(key: str, value: Any, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"{key}: expected a whole number from {lo} to {hi}, got {value!r}")
    return value


def _choice(key: str, value: Any, choices: tuple[Any, ...]) -> Any:
    if isinstance(value, bool) or value not in choices:
        names = ", ".join(str(c) for c in choices)
        raise ConfigError(f"{key}: expected one of {names}, got {value!r}")
    return value


def _size(key: str, value: Any) -> tuple[int, int]:
    match = SIZE_RE.match(value) if isinstance(value, str) else None
    if match is None:
        raise ConfigError(f"{key}: expected WIDTHxHEIGHT (e.g. '800x480'), got {value!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (160 <= width <= 7680 and 120 <= height <= 4320):
        raise ConfigError(f"{key}: {width}x{height} is out of range (160x120 to 7680x4320)")
    return width, height


def _language(key: str, value: Any) -> str:
    text = _str(key, value)
    if not LANG_RE.match(text):
        raise ConfigError(f"{key}: expected a language code such as 'en' or 'pt_BR', got {value!r}")
    return text


def _profile(key: str, value: Any) -> str:
    text = _str(key, value)
    if text not in PROFILES:
        raise ConfigError(f"{key}: expected one of {', '.join(sorted(PROFILES))}, got {value!r}")
    return text


def _td_pin(key: str, value: Any) -> str:
    text = _str(key, value)
    if not (text.isdigit() and text.isascii() and 4 <= len(text) <= 8):
        raise ConfigError(f"{key}: expected 4 to 8 digits in quotes, got {value!r}")
    return text


def _host(key: str, value: Any) -> str:
    text = _str(key, value)
    if any(ch.isspace() for ch in text) or "/" in text:
        raise ConfigError(f"{key}: expected a host name or address, got {value!r}")
    return text


def _log_level(key: str, value: Any) -> str:
    return str(_choice(key, value, ("debug", "info", "warning", "error")))


def _gpio(key: str, value: Any) -> int:
    return _int(key, value, 0, 27)


def _baud(key: str, value: Any) -> int:
    return int(_choice(key, value, BAUDS))


def _rotation(key: str, value: Any) -> int:
    return int(_choice(key, value, ROTATIONS))


def _tick(key: str, value: Any) -> int:
    return _int(key, value, 100, 10_000)


def _port(key: str, value: Any) -> int:
    return _int(key, value, 1, 65535)


def _url(key: str, value: Any) -> str:
    text = _str(key, value)
    if text and (not URL_RE.match(text)):
        raise ConfigError(f"{key}: expected http://HOST:PORT or https://HOST:PORT, got {value!r}")
    return text


def _device(key: str, value: Any) -> str:
    text = _str(key, value)
    return _ident(key, text) if text else text


def _public_key(key: str, value: Any) -> str:
    text = _str(key, value)
    if text and not re.fullmatch(r"[A-Za-z0-9_-]{43}", text):
        raise ConfigError(f"{key}: expected a public key (43 characters of base64), got {value!r}")
    return text


def _seconds(key: str, value: Any) -> int:
    return _int(key, value, 5, 86_400)


Validator = Any

TOP: dict[str, Validator] = {
    "table_id": _ident,
    "event": _ident,
    "language": _language,
    "profile": _profile,
    "data_dir": _str,
    "td_pin": _td_pin,
    "tick_interval_ms": _tick,
    "log_level": _log_level,
    "clock_notice_s": _seconds,
}

SECTIONS: dict[str, tuple[type, dict[str, Validator]]] = {
    "broker": (
        BrokerConfig,
        {
            "host": _host,
            "port": _port,
            "username": _str,
            "password": _str,
            "tls": _bool,
            "ca_file": _str,
        },
    ),
    "pins": (
        PinsConfig,
        {"enabled": _bool, "A": _gpio, "B": _gpio, "pause": _gpio, "td": _gpio},
    ),
    "dice": (DiceConfig, {"device": _str, "baud": _baud, "manual_entry": _bool}),
    "screen": (
        ScreenConfig,
        {"size": _size, "rotation": _rotation, "flip": _bool, "fullscreen": _bool},
    ),
    "fleet": (
        FleetConfig,
        {
            "hub": _url,
            "device": _device,
            "auto_update": _bool,
            "report_s": _seconds,
            "update_check_s": _seconds,
            "hub_key": _public_key,
            "release_keys": _str,
        },
    ),
}


def from_mapping(data: dict[str, Any]) -> Config:
    """Validate a parsed TOML document; raise :class:`ConfigError` naming the first bad key."""
    top: dict[str, Any] = {}
    sections: dict[str, Any] = {}
    for key, value in data.items():
        if key in TOP:
            top[key] = TOP[key](key, value)
        elif key in SECTIONS:
            cls, validators = SECTIONS[key]
            if not isinstance(value, dict):
                raise ConfigError(f"{key}: expected a [{key}] table, got {value!r}")
            fields: dict[str, Any] = {}
            for sub, subvalue in value.items():
                if sub not in validators:
                    known = ", ".join(validators)
                    raise ConfigError(f"{key}.{sub}: unknown key (known in [{key}]: {known})")
                fields[sub] = validators[sub](f"{key}.{sub}", subvalue)
            sections[key] = cls(**fields)
        else:
            known = ", ".join([*TOP, *SECTIONS])
            raise ConfigError(f"{key}: unknown key (known: {known})")
    config = Config(**top, **sections)
    _check_pins(config.pins)
    if config.broker.ca_file and not config.broker.tls:
        raise ConfigError("broker.ca_file: only used with broker.tls = true")
    if config.dice.manual_entry and config.dice.device:
        raise ConfigError("dice.manual_entry: only for a table without a dice tower (dice.device is set)")
    return config


def _check_pins(pins: PinsConfig) -> None:
    seen: dict[int, str] = {}
    for name in PIN_NAMES:
        pin = getattr(pins, name)
        if pin in seen:
            raise ConfigError(f"pins.{name}: GPIO {pin} is already used by pins.{seen[pin]}")
        seen[pin] = name


def load(path: str | Path | None) -> Config:
    """Read and validate a configuration file; ``None``: all defaults."""
    if path is None:
        return Config()
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"config: cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config: {path} is not valid TOML: {exc}") from None
    return from_mapping(data)


# -- settings changed at the table --------------------------------------------------------------

SETTINGS: dict[str, Validator] = {"table_id": _ident, "language": _language, "flip": _bool}


def with_settings(config: Config) -> Config:
    """The configuration with the table's own saved settings applied (bad ones are ignored)."""
    path = config.data_path / SETTINGS_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return config
    if not isinstance(saved, dict):
        return config
    for key, value in saved.items():
        try:
            config = _set(config, key, SETTINGS[key](key, value))
        except (KeyError, ConfigError):
            continue
    return config


def save_setting(config: Config, key: str, value: Any) -> Config:
    """Validate, persist (atomically) and return the configuration with one setting changed."""
    if key not in SETTINGS:
        raise ConfigError(f"{key}: not a setting that can be changed at the table")
    config = _set(config, key, SETTINGS[key](key, value))
    path = config.data_path / SETTINGS_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(saved, dict):
            saved = {}
    except (OSError, ValueError):
        saved = {}
    saved[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(saved, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return config


def _set(config: Config, key: str, value: Any) -> Config:
    if key == "flip":
        return replace(config, screen=replace(config.screen, flip=value))
    return replace(config, **{key: value})


def describe(config: Config) -> dict[str, Any]:
    """The effective configuration without secrets (for the start-up log)."""
    data = asdict(config)
    if data["broker"]["password"]:
        data["broker"]["password"] = "***"
    data["td_pin"] = "***"
    return data
