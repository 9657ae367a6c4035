"""A fast ``dataclasses.replace`` for the rulebook's frozen value types.

Why: the reducer builds a new ``TableState`` (45 fields) several times per input; the generic
``dataclasses.replace`` looks every field up by name through ``getattr`` and validates each call,
which made it about 80 % of the reducer's time. This version compiles, once per class, a function
that copies the fields directly, so the result is exactly what ``dataclasses.replace`` returns
(same class, same field values, no ``__post_init__`` in these classes) at a fraction of the cost.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING: Any = object()
#: the type of a ``__slots__`` member's descriptor
_SLOT = types.MemberDescriptorType
_REPLACERS: dict[type, Callable[..., Any]] = {}


def _compile(cls: type) -> Callable[..., Any]:
    if not dataclasses.is_dataclass(cls) or getattr(cls, "__post_init__", None) is not None:
        raise TypeError(f"{cls.__name__}: fast replace needs a dataclass without __post_init__")
    names = [f.name for f in dataclasses.fields(cls)]
    if any(not f.init for f in dataclasses.fields(cls)):
        raise TypeError(f"{cls.__name__}: fast replace needs every field in __init__")
    lines = [f"def replace(obj, *, {', '.join(f'{n}=_MISSING' for n in names)}):", "    new = _new(_cls)"]
    namespace: dict[str, Any] = {
        "_MISSING": _MISSING,
        "_new": object.__new__,
        "_cls": cls,
        "_set": object.__setattr__,
    }
    for n in names:
        slot = cls.__dict__.get(n)
        if isinstance(slot, _SLOT):
            # a slots class: set the slot through its own descriptor (no attribute lookup on the
            # class for each field, as object.__setattr__ does; about a third faster)
            namespace[f"_set_{n}"] = slot.__set__
            lines.append(f"    _set_{n}(new, obj.{n} if {n} is _MISSING else {n})")
        else:
            lines.append(f"    _set(new, {n!r}, obj.{n} if {n} is _MISSING else {n})")
    lines.append("    return new")
    exec("\n".join(lines), namespace)  # the same technique dataclasses uses to build __init__
    replacer: Callable[..., Any] = namespace["replace"]
    return replacer


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for a dataclass whose fields are all in ``__init__``."""
    replacer = _REPLACERS.get(type(obj))
    if replacer is None:
        replacer = _REPLACERS[type(obj)] = _compile(type(obj))
    result: T = replacer(obj, **changes)
    return result
