"""The table's messages at the JSON boundary: a state snapshot, an event and a status parsed
into their declared types (:mod:`rulebook.messages`), every field checked by type *and* range
(PROTOCOL §2, §3).

Whatever arrives from a table is untrusted: a kiosk with a bug, a tampered one, a half-written
retained message. ``parse_snapshot`` / ``parse_event`` / ``parse_status`` take the decoded JSON
and either return a value of the declared type (a dict holding exactly the fields the
declaration knows, each checked; unknown fields are left out, as PROTOCOL §2 lets a reader ignore
them) or raise :class:`rulebook.errors.WireError` with a stable ``code`` and the ``path`` of the
first bad field (``games[2].points``). Nothing downstream then has to doubt a field it reads.

The schemas below are not written here: each is read from its declaration
(:func:`rulebook.schema.declared`), so the type a reader holds and the check the wire makes are
one text. ``msgspec`` Structs were measured for this (a 3.8 KB snapshot, the same constraints,
on a loaded 2-core machine): ``json.loads`` + this check about 160–190 µs, ``msgspec``'s typed
decoding about 180–220 µs once each text carries the no-control-character pattern (30 µs
without it), and its errors carry neither the rulebook's codes nor the path form; the typed
dictionaries also go to the store and the dashboards as they are.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from rulebook.messages import EVENT_TYPES, Envelope, NextMessage, PlayerPages, Snapshot, Status
from rulebook.schema import (
    _NO_SKIP,
    MAX_EVENT_BYTES,
    MAX_MS,
    MAX_POINTS,
    Array,
    Bool,
    Choice,
    Echo,
    Field,
    Int,
    Map,
    Obj,
    Spec,
    Text,
    _Bad,
    _wire_error,
    compile_fast,
    compile_spec,
    declared,
)

__all__ = [
    "EVENT_ENVELOPE",
    "EVENT_FIELDS",
    "MAX_EVENT_BYTES",
    "MAX_MS",
    "MAX_POINTS",
    "NEXT",
    "PAGES",
    "SNAPSHOT",
    "STATUS",
    "Array",
    "Bool",
    "Choice",
    "Echo",
    "Envelope",
    "Field",
    "Int",
    "Map",
    "Obj",
    "Snapshot",
    "Spec",
    "Status",
    "Text",
    "compile_spec",
    "event_spec",
    "parse_event",
    "parse_next",
    "parse_pages",
    "parse_seq_key",
    "parse_snapshot",
    "parse_status",
]

SNAPSHOT: Final = declared(Snapshot)
STATUS: Final = declared(Status)
#: the hub's "Next:" lines (hub → table): checked at the table's edge, and by the hub before it sends
NEXT: Final = declared(NextMessage)
#: the players' page addresses of an ``assign`` (hub → table): checked by the hub and the table
PAGES: Final = declared(PlayerPages)
EVENT_ENVELOPE: Final = declared(Envelope).fields
_ENVELOPE_KEYS: Final = frozenset(f.name for f in EVENT_ENVELOPE)
#: per event type, the fields of its declaration beyond the envelope, in its order, each checked
#: when present (required or not in the declaration: a refused input's event bears the input's
#: type with the envelope and its reason only); an unknown type keeps the envelope only
EVENT_FIELDS: Final[Mapping[str, tuple[Field, ...]]] = {
    kind: tuple(Field(f.name, f.spec, False) for f in declared(td).fields if f.name not in _ENVELOPE_KEYS)
    for kind, td in EVENT_TYPES.items()
}


def event_spec(kind: str) -> Obj:
    """The full schema of an event of type ``kind`` (envelope plus the type's own fields)."""
    return Obj(EVENT_ENVELOPE + tuple(EVENT_FIELDS.get(kind, ())))


# -- the entry points -------------------------------------------------------------------------

#: the long lists of a snapshot: the same from one snapshot of a table to the next for most of a
#: match, so when they equal the previous (valid) snapshot's, that one's lists are kept
_REUSABLE = ("games", "penalty_log", "corrections", "legal")
_snapshot = compile_fast(SNAPSHOT, _REUSABLE)
_status = compile_fast(STATUS)
_next = compile_fast(NEXT)
_pages = compile_fast(PAGES)
_envelope = compile_fast(Obj(EVENT_ENVELOPE))
_seq_key = compile_spec(Obj(EVENT_ENVELOPE[:2]))
_events = {kind: compile_fast(event_spec(kind)) for kind in EVENT_FIELDS}


def parse_snapshot(obj: object, previous: Snapshot | None = None) -> Snapshot:
    """A table's state snapshot, every field checked; raises :class:`WireError`.

    ``previous``, a snapshot this function returned before for the same table, makes a long
    match cheap: a list equal to the previous one's is not checked again, and the previous one's
    objects are kept (equal is not identical: ``1 == 1.0 == True``; the kept ones are checked).
    """
    skip = _NO_SKIP
    if previous is not None and type(obj) is dict:
        same = [k for k in _REUSABLE if k in obj and k in previous and obj[k] == previous[k]]  # type: ignore[literal-required]
        if same:
            obj = {**obj, **{k: previous[k] for k in same}}  # type: ignore[literal-required]
            skip = frozenset(same)
    try:
        return cast(Snapshot, _snapshot(obj, skip))
    except _Bad as bad:
        raise _wire_error(bad, "state") from None


def parse_event(obj: object) -> Envelope:
    """A table's event: the envelope and its type's known fields, checked; raises :class:`WireError`."""
    try:
        kind = obj.get("type") if type(obj) is dict else None
        check = _events.get(kind, _envelope) if type(kind) is str else _envelope
        return cast(Envelope, check(obj))
    except _Bad as bad:
        raise _wire_error(bad, "event") from None


def parse_seq_key(obj: object) -> tuple[int, str | None]:
    """Only an event's ``seq`` and ``match_id``: enough to count an event whose other fields are
    bad as received (so the hub does not ask the table for it again and again)."""
    try:
        key = _seq_key(obj)
        return key["seq"], key["match_id"]
    except _Bad as bad:
        raise _wire_error(bad, "event") from None


def parse_status(obj: object) -> Status:
    """A table's status (also its Will); raises :class:`WireError`."""
    try:
        return cast(Status, _status(obj))
    except _Bad as bad:
        raise _wire_error(bad, "status") from None


def parse_next(obj: object) -> NextMessage:
    """The hub's "Next:" lines for a table's finished match (``table/{t}/next``); raises
    :class:`WireError`. A table trusts the hub no more than the hub trusts a table."""
    try:
        return cast(NextMessage, _next(obj))
    except _Bad as bad:
        raise _wire_error(bad, "next") from None


def parse_pages(obj: object) -> PlayerPages:
    """The players' page addresses of an assignment (its ``pages``); raises :class:`WireError`."""
    try:
        return cast(PlayerPages, _pages(obj))
    except _Bad as bad:
        raise _wire_error(bad, "pages") from None
