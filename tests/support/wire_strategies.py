"""Hypothesis strategies derived from the wire schema (:mod:`rulebook.wire`): valid messages, and
messages with one hostile value at a known path.

Both walk the schema's own description (``Int``, ``Text``, ``Obj`` …), so a field added to the
schema is fuzzed without touching the tests. ``hostile(spec)`` draws a valid message, picks one
place in it (any depth: a list item, a nested object's field) and puts there a value of the
wrong type, out of range, too long, with a control character, or takes a required field away;
it returns the message and the path the parser must name.
"""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

from rulebook.schema import ID_PATTERN
from rulebook.wire import Array, Bool, Choice, Echo, Field, Int, Map, Obj, Spec, Text, event_spec

#: printable text the schema accepts (no control characters, no surrogates, no separators)
SAFE_TEXT = st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\u2028\u2029")
ID_CHARS = string.ascii_letters + string.digits + "_.-"


def valid(spec: Spec, max_items: int = 3) -> st.SearchStrategy[Any]:
    """Values the schema accepts."""
    if isinstance(spec, Int):
        s: st.SearchStrategy[Any] = st.integers(spec.lo, spec.hi)
    elif isinstance(spec, Bool):
        s = st.booleans()
    elif isinstance(spec, Text):
        if spec.pattern and spec.pattern != ID_PATTERN:
            # an address (a player's page): text of the pattern within the bounds
            s = st.from_regex(spec.pattern, fullmatch=True).filter(
                lambda v, lo=spec.min_len, hi=spec.max_len: lo <= len(v) <= hi
            )
        elif spec.pattern:
            s = st.builds(
                lambda head, tail: head + tail,
                st.sampled_from(string.ascii_letters + string.digits),
                st.text(ID_CHARS, max_size=min(spec.max_len - 1, 20)),
            )
        else:
            s = st.text(SAFE_TEXT, min_size=spec.min_len, max_size=min(spec.max_len, 30))
    elif isinstance(spec, Choice):
        s = st.sampled_from(spec.values)
    elif isinstance(spec, Echo):
        s = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(SAFE_TEXT, max_size=20))
    elif isinstance(spec, Obj):
        s = st.fixed_dictionaries(
            {f.name: valid(f.spec, max_items) for f in spec.fields if f.required},
            optional={f.name: valid(f.spec, max_items) for f in spec.fields if not f.required},
        )
    elif isinstance(spec, Map):
        s = st.dictionaries(valid(spec.key), valid(spec.value, max_items), max_size=min(spec.max_items, 3))
    else:
        s = st.lists(
            valid(spec.item, max_items), min_size=spec.min_items, max_size=min(spec.max_items, max_items)
        )
    if getattr(spec, "nullable", False):
        s = st.one_of(st.none(), s)
    return s


def _wrong_leaf(spec: Spec) -> st.SearchStrategy[Any]:
    """A value that breaks ``spec`` right here (not deeper)."""
    options: list[st.SearchStrategy[Any]] = []
    if not getattr(spec, "nullable", False) and not isinstance(spec, Echo):
        options.append(st.none())
    if isinstance(spec, Int):
        options += [
            st.text(max_size=5),
            st.booleans(),
            st.floats(allow_nan=False, allow_infinity=False),
            st.just({"value": 1}),
            st.just([1]),
            st.integers(max_value=spec.lo - 1),
            st.integers(min_value=spec.hi + 1),
            st.sampled_from([2**63, 2**64 + 1, -(2**70)]),
        ]
    elif isinstance(spec, Bool):
        options += [
            st.integers(0, 1),
            st.sampled_from(["true", "false", "yes", ""]),
            st.just({}),
            st.just([]),
        ]
    elif isinstance(spec, Text):
        options += [
            st.integers(),
            st.just({}),
            st.just([]),
            st.text(SAFE_TEXT, min_size=spec.max_len + 1, max_size=spec.max_len + 5),
            st.builds(
                lambda a, c, b: a + c + b,
                st.text(max_size=3),
                st.sampled_from(["\x00", "\x1b", "\n", "\x85", "\ud800", "\u2028"]),
                st.text(max_size=3),
            ),
        ]
        if spec.min_len > 0:
            options.append(st.just(""))
        if spec.pattern and spec.pattern != ID_PATTERN:
            options.append(
                st.sampled_from(["ftp://x.org/p", "javascript:alert(1)", "http://a b", "https://", "x"])
            )
    elif isinstance(spec, Choice):
        options += [
            st.text(max_size=8).filter(lambda v: v not in spec.values),
            st.integers(),
            st.just({"A": 1}),
            st.just(["A"]),
        ]
    elif isinstance(spec, Echo):
        options += [st.just({}), st.just([]), st.floats(allow_nan=False), st.integers(min_value=2**53)]
    elif isinstance(spec, Obj | Map):
        options += [st.text(max_size=5), st.integers(), st.just([]), st.just([{}])]
    else:
        options += [st.text(max_size=5), st.integers(), st.just({}), st.just({"0": 1})]
    return st.one_of(options)


@st.composite
def hostile(draw: st.DrawFn, spec: Obj) -> tuple[Any, str]:
    """A message of ``spec`` with exactly one bad value; and the path the parser must name."""
    message = draw(valid(spec))
    path = draw(_break(spec, message, ""))
    return message, path


def _breakable_inside(spec: Spec, value: Any) -> bool:
    """Whether something inside ``value`` can be broken (an object with a field to break, a list)."""
    if value is None:
        return False
    if isinstance(spec, Obj):
        return any(f.required or f.name in value for f in spec.fields)
    return isinstance(spec, Array | Map)


@st.composite
def _break(draw: st.DrawFn, spec: Spec, holder: Any, path: str) -> str:
    """Break something inside ``holder`` (a valid value of ``spec``, changed in place); the path."""
    assert isinstance(spec, Obj | Array | Map)
    if isinstance(spec, Map):
        keys = sorted(holder)
        name = draw(st.sampled_from(keys)) if keys else draw(valid(spec.key))
        here = f"{path}.{name}" if path else name
        if name in holder and _breakable_inside(spec.value, holder[name]) and draw(st.booleans()):
            return draw(_break(spec.value, holder[name], here))
        holder[name] = draw(_wrong_leaf(spec.value))
        return here
    if isinstance(spec, Obj):
        # an object of optional fields only may be empty: one of them is then given a bad value
        fields = [f for f in spec.fields if f.required or f.name in holder] or list(spec.fields)
        f = draw(st.sampled_from(fields))
        here = f"{path}.{f.name}" if path else f.name
        inner = holder.get(f.name)
        if f.required and draw(st.integers(0, 9)) == 0:
            del holder[f.name]
            return here
        if _breakable_inside(f.spec, inner) and draw(st.booleans()):
            return draw(_break(f.spec, inner, here))
        holder[f.name] = draw(_wrong_leaf(f.spec))
        return here
    if not holder or draw(st.integers(0, 9)) == 0:
        holder.append(draw(_wrong_leaf(spec.item)))
        if len(holder) > spec.max_items:
            return path  # one item too many: the list itself is named
        return f"{path}[{len(holder) - 1}]"
    index = draw(st.integers(0, len(holder) - 1))
    here = f"{path}[{index}]"
    if _breakable_inside(spec.item, holder[index]) and draw(st.booleans()):
        return draw(_break(spec.item, holder[index], here))
    holder[index] = draw(_wrong_leaf(spec.item))
    return here


def typed_event(kind: str) -> Obj:
    """The schema of one event type, with its ``type`` pinned to that kind."""
    spec = event_spec(kind)
    pinned = Field("type", Choice((kind,)))
    return Obj(tuple(pinned if f.name == "type" else f for f in spec.fields))
