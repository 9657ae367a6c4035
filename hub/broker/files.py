"""What a broker directory holds and how its files are written: the reserved users, the ids a
table, an event or a room may have, the files' names, and the TOML of the credentials' fragments.

Shared by the broker's configuration (:mod:`hub.broker.mosquitto`) and its bridges
(:mod:`hub.broker.bridges`), below both, so neither imports the other for them.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hub.errors import HubError

#: Username of the hub's credential; no table may take it.
HUB_USER = "hub"
#: Username of the read-only diagnostics credential (``mosquitto_sub -u monitor``); reserved too.
MONITOR_USER = "monitor"
RESERVED_USERS = (HUB_USER, MONITOR_USER)
#: Table and event ids: safe inside an MQTT topic level and as a Mosquitto username / client id.
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")

PASSWD_NAME = "passwd"
ACL_NAME = "acl"
CONF_NAME = "mosquitto.conf"
HUB_FRAGMENT = "hub.toml"
MONITOR_FRAGMENT = "monitor.toml"
TABLES_DIR = "tables"
DATA_DIR = "data"
#: The last --table-template, kept so that a later --keep or --force run writes the same keys.
TEMPLATE_NAME = "table-template.toml"


class BrokerConfigError(HubError, ValueError):
    """A broker configuration that cannot be written as asked; the message says why and what to do."""


def validate_id(kind: str, value: str) -> str:
    """Return ``value`` if it is a usable id (MQTT-safe, not reserved), else raise with a reason."""
    if not ID_RE.fullmatch(value):
        raise BrokerConfigError(
            f"invalid {kind} id {value!r}: use 1 to 32 letters, digits, '_' or '-', starting with a "
            "letter or digit (no spaces, '/', '+', '#')"
        )
    if kind == "table" and value in RESERVED_USERS:
        raise BrokerConfigError(f"table id {value!r} is reserved for the {value}'s credential")
    return value


def toml_string(value: str) -> str:
    """A TOML basic string (quotes, backslashes and control characters escaped)."""
    out = ['"']
    for ch in value:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")


def toml_key(key: str) -> str:
    return key if BARE_KEY_RE.fullmatch(key) else toml_string(key)


def toml_value(value: Any) -> str:
    """A TOML value for the scalars (and arrays of scalars) a kiosk configuration holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise BrokerConfigError(f"cannot copy the value {value!r} into a table configuration")
