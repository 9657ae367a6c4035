"""Topic names and payload decoding shared by the table and hub ends of the MQTT link.

API::

    Topics(event)                       # all topic strings under bg/v1/{event}/
      .table_status(t) .table_state(t) .table_evt(t) .table_assign(t) .table_cmd(t) .table_resync(t)
      .table_device(t) .table_control(t) .table_next(t)
      .hub_status  .hub_time  .table_wildcard(kind)  .parse_table_topic(topic) -> (table, kind) | None
    is_valid_id(s) -> bool              # sane table / event id (usable inside a topic)
    encode_json(obj) -> bytes           # compact UTF-8 JSON
    decode_object(topic, payload, log) -> dict | None   # JSON object or None (logged)
    is_int(value) -> bool ; short(value) -> str          # JSON integer check ; repr for a log line
    now_wall() -> int                   # Unix epoch milliseconds
    MAX_PAYLOAD                         # larger payloads are refused

Both ends talk to people's hardware over a shared broker, so anything arriving on a topic is
untrusted: every decode here returns ``None`` with one log line instead of raising, and ids are
checked before they are put into a topic (a ``+``, ``#`` or ``/`` in a table id would make one
table's traffic land on, or subscribe to, another's).
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from typing import Any, TypeGuard

PREFIX = "bg/v1"
MAX_PAYLOAD = 256 * 1024
"""Bytes. A state snapshot of a long match is a few kilobytes; anything this big is an error."""

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: ``device`` (the table's health report) and ``control`` (identify, restart, button test, update,
#: retire) belong to the fleet: they concern the device, never the match (docs/protocol.md §6)
#: ``next`` is the hub's "Next:" lines for the table's finished match of a draw (§3.8)
TABLE_KINDS = ("status", "state", "evt", "assign", "cmd", "resync", "device", "control", "next")


def is_valid_id(value: object) -> bool:
    """True for a table or event id that is safe inside a topic: letters, digits, ``_ . -``."""
    return isinstance(value, str) and _ID.match(value) is not None


def now_wall() -> int:
    """Unix epoch milliseconds (the ``wall`` of PROTOCOL)."""
    return time.time_ns() // 1_000_000


def encode_json(obj: Any) -> bytes:
    """Compact UTF-8 JSON; raises ``TypeError``/``ValueError`` in the caller for what JSON can't hold."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


#: JSON integers beyond a signed 64-bit value cannot be stored (SQLite) or be a real time/seq
MAX_JSON_INT = 2**63 - 1


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def _bounded_int(text: str) -> int:
    value = int(text)
    if not -MAX_JSON_INT <= value <= MAX_JSON_INT:
        raise ValueError(f"integer {text[:20]}... is out of range")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


#: made once: ``json.loads`` with these hooks would build a decoder for every message
_STRICT = json.JSONDecoder(parse_constant=_no_constant, parse_int=_bounded_int, parse_float=_finite_float)


def loads_strict(text: str) -> Any:
    """Standard JSON only: no NaN/Infinity, no number that overflows a 64-bit int or a double.

    Python's ``json`` accepts all of these by default and would serve them back as invalid JSON.
    """
    return _STRICT.decode(text)


def decode_object(topic: str, payload: bytes, log: logging.Logger) -> dict[str, Any] | None:
    """The payload as a JSON object, or ``None`` (logged once) when it is anything else."""
    if len(payload) > MAX_PAYLOAD:
        log.warning("dropped %s: payload of %d bytes exceeds %d", topic, len(payload), MAX_PAYLOAD)
        return None
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        log.warning("dropped %s: payload is not UTF-8 (%s)", topic, exc)
        return None
    try:
        obj = loads_strict(text)
    except (ValueError, RecursionError) as exc:
        log.warning("dropped %s: payload is not JSON (%s)", topic, exc)
        return None
    if not isinstance(obj, dict):
        log.warning("dropped %s: payload is a JSON %s, not an object", topic, type(obj).__name__)
        return None
    return obj


def short(value: object, limit: int = 80) -> str:
    """``repr`` cut to ``limit`` characters, for log lines about untrusted values."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer (``bool`` is an ``int`` in Python but not in JSON)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Topics:
    """The topic strings of one tournament (``event``)."""

    def __init__(self, event: str) -> None:
        if not is_valid_id(event):
            raise ValueError(f"invalid event id {event!r} (letters, digits, _ . - only)")
        self.event = event
        self.base = f"{PREFIX}/{event}"
        self.hub_status = f"{self.base}/hub/status"
        #: the hub's time of day, for every table to compare its own with (QoS 0, not retained)
        self.hub_time = f"{self.base}/hub/time"

    def table(self, table: str, kind: str) -> str:
        if not is_valid_id(table):
            raise ValueError(f"invalid table id {table!r} (letters, digits, _ . - only)")
        if kind not in TABLE_KINDS:
            raise ValueError(f"unknown table topic kind {kind!r}")
        return f"{self.base}/table/{table}/{kind}"

    def table_status(self, table: str) -> str:
        return self.table(table, "status")

    def table_state(self, table: str) -> str:
        return self.table(table, "state")

    def table_evt(self, table: str) -> str:
        return self.table(table, "evt")

    def table_assign(self, table: str) -> str:
        return self.table(table, "assign")

    def table_cmd(self, table: str) -> str:
        return self.table(table, "cmd")

    def table_resync(self, table: str) -> str:
        return self.table(table, "resync")

    def table_device(self, table: str) -> str:
        return self.table(table, "device")

    def table_control(self, table: str) -> str:
        return self.table(table, "control")

    def table_next(self, table: str) -> str:
        return self.table(table, "next")

    def table_wildcard(self, kind: str) -> str:
        """``bg/v1/{event}/table/+/{kind}``: one kind of message from every table."""
        if kind not in TABLE_KINDS:
            raise ValueError(f"unknown table topic kind {kind!r}")
        return f"{self.base}/table/+/{kind}"

    def parse_table_topic(self, topic: str) -> tuple[str, str] | None:
        """``(table, kind)`` for a table topic of this event, else ``None``."""
        head = f"{self.base}/table/"
        if not topic.startswith(head):
            return None
        parts = topic[len(head) :].split("/")
        if len(parts) != 2 or parts[1] not in TABLE_KINDS or not is_valid_id(parts[0]):
            return None
        return parts[0], parts[1]
