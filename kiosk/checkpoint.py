"""Checkpoints of the table's state: a versioned JSON encoding derived from the dataclasses.

Why: restoring by replaying the whole journal costs time in proportion to the day's play (a
table journals every match it hosts, a tick a second while a clock runs). A checkpoint every
:data:`EVERY` inputs bounds the restore to decoding one state and replaying what came after.

The rule that matters: **a checkpoint never changes the restored state.** So

* the encoding is generic and exact: any frozen dataclass of the rulebook, the rulebook's enums
  (a ``StrEnum`` member comes back as that member, not as its string), tuples, lists,
  frozensets, dicts and JSON scalars, each container tagged so it decodes to the same type
  (no pickle: a checkpoint file cannot make the kiosk run code; only dataclasses defined in
  ``rulebook`` are built, field by field, and a class whose fields differ refuses the body);
* the format names a **fingerprint of the rulebook's source**: after a software update that
  changes any rule or any state field, old checkpoints are not used and the journal is
  replayed in full (what the new rules make of it is then, by definition, the state);
* anything unexpected (a type the encoding does not know, a damaged body) makes
  :class:`CheckpointError`, and the caller falls back to an older checkpoint or a full replay.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import rulebook
from kiosk.errors import KioskError

#: the encoding's own version (bump when the tagging below changes)
ENCODING = "st1"
#: a checkpoint every this many inputs: restore replays at most this many after decoding one
EVERY = 1000
#: modules whose dataclasses a checkpoint may name
ALLOWED_PREFIX = "rulebook."


class CheckpointError(KioskError, ValueError):
    """A state cannot be encoded, or a body cannot be decoded into the current classes."""


@functools.cache
def rulebook_fingerprint() -> str:
    """A short hash of every rulebook source file: changes whenever a rule or a state field does."""
    root = Path(rulebook.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def current_format() -> str:
    """The format a checkpoint written now carries; only checkpoints of this format are used."""
    return f"{ENCODING}:{rulebook_fingerprint()}"


def encode(state: Any) -> str:
    """The state as checkpoint text (JSON); raises :class:`CheckpointError` for unknown types."""
    try:
        return json.dumps(_enc(state), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"cannot encode the state: {exc}") from exc


def decode(body: str) -> Any:
    """The value ``encode`` was given; raises :class:`CheckpointError` on any mismatch."""
    try:
        return _dec(json.loads(body))
    except CheckpointError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, ImportError, RecursionError) as exc:
        raise CheckpointError(f"cannot decode the checkpoint: {type(exc).__name__}: {exc}") from exc


def _enc(value: Any) -> Any:
    if isinstance(value, enum.Enum):  # before str and int: a StrEnum member is a str too
        return {"$en": _name(type(value)), "v": _enc(value.value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _enc(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$dc": _name(type(value)), "f": fields}
    if isinstance(value, tuple):
        return {"$t": [_enc(v) for v in value]}
    if isinstance(value, list):
        return [_enc(v) for v in value]
    if isinstance(value, frozenset):
        return {"$fs": [_enc(v) for v in value]}
    if isinstance(value, dict):
        return {"$d": [[_enc(k), _enc(v)] for k, v in value.items()]}
    raise CheckpointError(f"no checkpoint encoding for {type(value).__name__}")


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _dec(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_dec(v) for v in value]
    if isinstance(value, dict) and len(value) == 2 and "$dc" in value:
        return _dec_dataclass(value["$dc"], value["f"])
    if isinstance(value, dict) and len(value) == 2 and "$en" in value:
        return _rulebook_class(value["$en"], enum.Enum)(_dec(value["v"]))
    if not isinstance(value, dict) or len(value) != 1:
        raise CheckpointError(f"unexpected value in a checkpoint: {type(value).__name__}")
    ((tag, items),) = value.items()
    if not isinstance(items, list):
        raise CheckpointError(f"{tag}: expected a list")
    if tag == "$t":
        return tuple(_dec(v) for v in items)
    if tag == "$fs":
        return frozenset(_dec(v) for v in items)
    if tag == "$d":
        return {_dec(k): _dec(v) for k, v in items}
    raise CheckpointError(f"unknown tag {tag!r}")


@functools.cache
def _rulebook_class(name: str, kind: type) -> Any:
    """The class ``module:QualName`` of the rulebook, when it is a ``kind`` (Enum) or a dataclass."""
    if not isinstance(name, str):
        raise CheckpointError("a class name must be a string")
    module_name, _, qualname = name.partition(":")
    if not module_name.startswith(ALLOWED_PREFIX) or not qualname:
        raise CheckpointError(f"{name}: not a rulebook class")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise CheckpointError(f"{name}: not a class")
    if kind is enum.Enum and not issubclass(obj, enum.Enum):
        raise CheckpointError(f"{name}: not an enum")
    if kind is object and not dataclasses.is_dataclass(obj):
        raise CheckpointError(f"{name}: not a dataclass")
    return obj


@functools.cache
def _dataclass(name: str) -> tuple[type, tuple[str, ...]]:
    cls = _rulebook_class(name, object)
    return cls, tuple(f.name for f in dataclasses.fields(cls))


def _dec_dataclass(name: Any, fields: Any) -> Any:
    if not isinstance(name, str) or not isinstance(fields, dict):
        raise CheckpointError("a dataclass entry needs a name and its fields")
    cls, names = _dataclass(name)
    if set(fields) != set(names):
        raise CheckpointError(f"{name}: fields differ from the checkpoint's")
    obj: Any = object.__new__(cls)
    for field_name in names:  # exactly the stored values, as dataclasses.replace would copy them
        object.__setattr__(obj, field_name, _dec(fields[field_name]))
    return obj
