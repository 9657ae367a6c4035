"""The fleet's pure parts: checking what devices send, enrollment codes, and the rows the TD sees.

Everything a device sends is an edge: a hello (before the device has any credential) and the
health reports of enrolled tables are checked field by field here; a bad one is refused with the
field named, never half-used. No clock, no I/O: times come in as arguments.
"""

from __future__ import annotations

import ipaddress
import math
import re
import secrets
from dataclasses import dataclass
from typing import Any

from drivers.sealed_box import KEY_BYTES, SealedBoxError, b64decode
from hub.broker.provision import FleetError
from hub.errors import HubError
from hub.fleet.store import Device
from hub.web import roles
from rulebook.errors import WireError
from rulebook.hardware_check import HardwareCheck, parse_hardware_check

DEVICE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: table ids: safe inside a topic, as a Mosquitto username part and a file name
TABLE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
TEXT_RE = re.compile(r"^[\x20-\x7e]*$")
#: a code is shown this long; a device still waiting then gets a new one
CODE_TTL_MS = 15 * 60_000
#: a pending device not heard from for this long is dropped from the list (it says hello again)
PENDING_FORGET_MS = 10 * 60_000
STATES = ("pending", "enrolled", "retired")
BUTTONS = ("A", "B", "pause", "td")
TEST_STATES = ("idle", "running", "passed", "stopped", "refused")
UPDATE_STATES = ("idle", "waiting", "downloading", "installing", "restarting", "done", "failed")
#: what the table's screen shows: nothing assigned, a match, or one of the fleet's screens
SCREENS = ("idle", "match", "identify", "button_test", "hardware_check")


@dataclass(frozen=True)
class Hello:
    """A device's hello, checked."""

    device: str
    key: str
    version: str
    build: str
    hostname: str


def _text(body: dict[str, Any], name: str, limit: int, *, required: bool = False) -> str:
    value = body.get(name, None if required else "")
    if not isinstance(value, str) or len(value) > limit or not TEXT_RE.match(value):
        raise FleetError(f"{name}: expected printable text of at most {limit} characters")
    return value


def check_hello(body: dict[str, Any]) -> Hello:
    """The hello's fields, or :class:`FleetError` naming the first bad one."""
    device = body.get("device")
    if not isinstance(device, str) or not DEVICE_RE.match(device):
        raise FleetError("device: expected 1-64 letters, digits, '.', '_' or '-'")
    key = body.get("key")
    try:
        raw = b64decode(key) if isinstance(key, str) else b""
    except SealedBoxError:
        raw = b""
    if len(raw) != KEY_BYTES:
        raise FleetError(f"key: expected a {KEY_BYTES}-byte X25519 public key in base64")
    return Hello(
        device=device,
        key=key,  # type: ignore[arg-type]  # checked above
        version=_text(body, "version", 64, required=True),
        build=_text(body, "build", 64),
        hostname=_text(body, "hostname", 64),
    )


def check_table(value: Any) -> str:
    """A table number the TD typed: letters, digits, '_' and '-'; not ``hub``."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)  # {"table": 12} means table "12"
    table = value.strip() if isinstance(value, str) else value
    if not isinstance(table, str) or not TABLE_RE.match(table) or table == "hub":
        raise FleetError("table: expected 1-32 letters, digits, '_' or '-' (e.g. 12)")
    return table


CODE_RE = re.compile(r"^[0-9]{4}$")


def check_code(value: Any) -> str:
    """The code the TD read on the table's screen: required for every enrollment, so that only
    the device whose screen shows it can be enrolled (not a row picked from a list)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    code = value.strip() if isinstance(value, str) else ""
    if not CODE_RE.match(code):
        raise FleetError(
            "code: type the four-digit code the table shows on its screen", 400, code="code_required"
        )
    return code


def new_code(taken: set[str]) -> str:
    """A four-digit code no other pending device shows (1000-9999: no leading zero to misread)."""
    for _ in range(50):
        code = str(1000 + secrets.randbelow(9000))
        if code not in taken:
            return code
    free = [str(n) for n in range(1000, 10000) if str(n) not in taken]
    if not free:
        raise FleetError("too many devices are waiting to be enrolled", 503)
    return secrets.choice(free)


def code_valid(device: Device, now: int) -> bool:
    return (
        device.state == "pending"
        and device.code is not None
        and device.code_expires_wall is not None
        and now < device.code_expires_wall
    )


# -- health reports ------------------------------------------------------------------------------


class ReportError(HubError, ValueError):
    """A device report field is wrong (the message names it)."""


def _opt_int(obj: dict[str, Any], name: str, lo: int, hi: int) -> int | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ReportError(f"{name}: expected a whole number from {lo} to {hi} or null")
    return value


def _opt_float(obj: dict[str, Any], name: str, lo: float, hi: float) -> float | None:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ReportError(f"{name}: expected a number or null")
    if not lo <= value <= hi:
        raise ReportError(f"{name}: {value} is out of range")
    return round(float(value), 1)


def _bool(obj: dict[str, Any], name: str) -> bool:
    value = obj.get(name)
    if not isinstance(value, bool):
        raise ReportError(f"{name}: expected true or false")
    return value


def _str(obj: dict[str, Any], name: str, limit: int) -> str:
    value = obj.get(name, "")
    if not isinstance(value, str) or len(value) > limit or not TEXT_RE.match(value):
        raise ReportError(f"{name}: expected printable text of at most {limit} characters")
    return value


def _section(obj: dict[str, Any], name: str) -> dict[str, Any]:
    value = obj.get(name)
    if not isinstance(value, dict):
        raise ReportError(f"{name}: expected an object")
    return value


def _ip(value: str) -> str:
    if value:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ReportError(f"ip: {value!r} is not an IP address") from None
    return value


WALL_MAX = 2**53


def check_report(obj: dict[str, Any]) -> dict[str, Any]:
    """A device's health report reduced to the checked fields (docs/protocol.md §6)."""
    journal = _section(obj, "journal")
    dice = _section(obj, "dice")
    buttons = _section(obj, "buttons")
    seen = buttons.get("seen")
    if not isinstance(seen, dict) or set(seen) - set(BUTTONS):
        raise ReportError(f"buttons.seen: expected an object with keys among {', '.join(BUTTONS)}")
    test = _section(obj, "button_test")
    pressed = test.get("pressed")
    if (
        not isinstance(pressed, list)
        or any(p not in BUTTONS for p in pressed)
        or len(set(pressed)) != len(pressed)
    ):
        raise ReportError("button_test.pressed: expected a list of distinct button names")
    if test.get("state") not in TEST_STATES:
        raise ReportError(f"button_test.state: expected one of {', '.join(TEST_STATES)}")
    update = _section(obj, "update")
    if update.get("state") not in UPDATE_STATES:
        raise ReportError(f"update.state: expected one of {', '.join(UPDATE_STATES)}")
    if obj.get("screen") not in SCREENS:
        raise ReportError(f"screen: expected one of {', '.join(SCREENS)}")
    sent = _opt_int(obj, "sent_wall", 0, WALL_MAX)
    if sent is None:
        raise ReportError("sent_wall: required")
    return {
        **_hardware_check(obj),
        "device": _str(obj, "device", 64),
        "version": _str(obj, "version", 64),
        "build": _str(obj, "build", 64),
        "slot": _str(obj, "slot", 16),
        "ip": _ip(_str(obj, "ip", 64)),
        "hostname": _str(obj, "hostname", 64),
        "uptime_s": _opt_int(obj, "uptime_s", 0, 10**9),
        "cpu_temp_c": _opt_float(obj, "cpu_temp_c", -60, 200),
        "disk_free_mb": _opt_int(obj, "disk_free_mb", 0, 10**9),
        "disk_total_mb": _opt_int(obj, "disk_total_mb", 0, 10**9),
        "journal": {"ok": _bool(journal, "ok"), "detail": _str(journal, "detail", 200)},
        "dice": {
            "configured": _bool(dice, "configured"),
            "seen": _bool(dice, "seen"),
            "last_wall": _opt_int(dice, "last_wall", 0, WALL_MAX),
        },
        "buttons": {
            "configured": _bool(buttons, "configured"),
            "seen": {name: _opt_int(seen, name, 0, WALL_MAX) for name in BUTTONS},
        },
        "button_test": {
            "state": test["state"],
            "pressed": list(pressed),
            "finished_wall": _opt_int(test, "finished_wall", 0, WALL_MAX),
        },
        "update": {
            "state": update["state"],
            "detail": _str(update, "detail", 200),
            "target": _str(update, "target", 64),
        },
        "in_match": _bool(obj, "in_match"),
        "screen": obj["screen"],
        "sent_wall": sent,
    }


def _hardware_check(obj: dict[str, Any]) -> dict[str, HardwareCheck]:
    """The table's last hardware check (an addition: a table that never ran one, or an older
    one, sends none, and the checked report has none), checked against its declaration
    (:mod:`rulebook.hardware_check`)."""
    value = obj.get("hardware_check")
    if value is None:
        return {}
    try:
        return {"hardware_check": parse_hardware_check(value)}
    except WireError as exc:
        raise ReportError(f"hardware_check.{exc}") from None


def with_check_heard(report: dict[str, Any], before: dict[str, Any] | None, now: int) -> dict[str, Any]:
    """``report`` with ``hardware_check_wall``: when the hub first heard of its check (hub time,
    never the table's clock), kept from ``before`` while the check is the same one."""
    check = report.get("hardware_check")
    if check is None:
        return {**report, "hardware_check_wall": None}
    old = (before or {}).get("hardware_check") or {}
    heard = (before or {}).get("hardware_check_wall") if old.get("id") == check["id"] else None
    return {**report, "hardware_check_wall": heard if heard is not None else now}


# -- what the TD sees ------------------------------------------------------------------------------


def public_row(device: Device, now: int, *, online: bool, hub_build: str, key: str = "") -> dict[str, Any]:
    """One row of ``GET /api/fleet`` (never a key, a hash or a sealed configuration), as the
    roles that enroll see it (:func:`shown_to` for the others). ``key`` tells rows apart where
    the device's id is not shown."""
    report = device.report or {}
    code = device.code if code_valid(device, now) else None
    version = report.get("version") or device.version
    build = report.get("build") or device.build
    return {
        "key": key or device.device,
        "device": device.device,
        "code": code,
        "code_expires_wall": device.code_expires_wall if code else None,
        "state": device.state,
        "table": device.table,
        "version": version,
        "build": build,
        "update_due": device.state == "enrolled" and bool(hub_build) and bool(build) and build != hub_build,
        "ip": report.get("ip") or device.ip,
        "hostname": report.get("hostname") or device.hostname,
        "online": online if device.state == "enrolled" else None,
        "last_seen_wall": max(device.last_seen_wall, device.report_wall or 0),
        "first_seen_wall": device.first_seen_wall,
        "enrolled_wall": device.enrolled_wall,
        "retired_wall": device.retired_wall,
        "retired_why": device.retired_why,
        "slot": report.get("slot"),
        "uptime_s": report.get("uptime_s"),
        "cpu_temp_c": report.get("cpu_temp_c"),
        "disk_free_mb": report.get("disk_free_mb"),
        "disk_total_mb": report.get("disk_total_mb"),
        "journal": report.get("journal"),
        "dice": report.get("dice"),
        "buttons": report.get("buttons"),
        "button_test": report.get("button_test"),
        "hardware_check": report.get("hardware_check"),
        "hardware_check_wall": report.get("hardware_check_wall"),
        "update": report.get("update"),
        "in_match": report.get("in_match"),
        "screen": report.get("screen"),
        "clock_offset_ms": device.clock_offset_ms,
        "report_wall": device.report_wall,
    }


# -- who sees what -------------------------------------------------------------------------------

#: the roles that enroll (codes and every device's id), those that act on enrolled devices
#: (identify, restart, button test: their ids), and everyone else who reads the dashboard
SETUP, CONTROL, READ = "setup", "control", "read"
_DEVICE_NAMED = re.compile(r"device \S+")


def audience(role: str | None) -> str:
    """What of the fleet ``role`` sees (None: not logged in, a ``--public`` reader)."""
    if roles.may(role, roles.FLEET_SETUP):
        return SETUP
    if roles.may(role, roles.FLEET_CONTROL):
        return CONTROL
    return READ


def shown_to(row: dict[str, Any], who: str) -> dict[str, Any]:
    """A row of :func:`public_row` as ``who`` may see it. A waiting device's id and code are what
    enrolls it (whoever holds them can say hello in its name, or enroll it): only the roles that
    enroll see them. An enrolled device's id is also shown to the roles that act on it; readers
    see neither (rows keep their ``key``)."""
    if who == SETUP:
        return row
    out = dict(row, code=None, code_expires_wall=None)
    if who == READ or row["state"] == "pending":
        out["device"] = None
        out["retired_why"] = _DEVICE_NAMED.sub("another device", row["retired_why"] or "")
    return out


def shown_message(message: dict[str, Any], role: str | None) -> dict[str, Any]:
    """A ``fleet`` push (rows changed, rows removed) as ``role`` may see it."""
    who = audience(role)
    if who == SETUP:
        return message
    return {**message, "rows": [shown_to(r, who) for r in message.get("rows") or []]}
