"""The messages are declared once: each declaration reads into the schema the wire checks, and a
declaration whose static type and spec disagree is refused when the rulebook is imported."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict, get_origin, get_type_hints

import pytest

from rulebook.messages import EVENT_TYPES, Snapshot, word
from rulebook.schema import LENGTH, PHASES, Choice, Int, Items, Text, declared
from rulebook.snapshot import snapshot
from rulebook.table import new_table
from rulebook.vocab import EventType, Phase
from rulebook.wire import EVENT_FIELDS, SNAPSHOT, parse_snapshot


def test_the_wire_checks_exactly_the_declared_keys():
    assert [f.name for f in SNAPSHOT.fields] == list(Snapshot.__annotations__)
    hints = get_type_hints(Snapshot, include_extras=True)
    assert {f.name for f in SNAPSHOT.fields if f.required} == {
        k for k, h in hints.items() if get_origin(h) is not NotRequired
    }


def test_every_event_type_of_the_vocabulary_is_declared():
    assert set(EVENT_TYPES) == set(EVENT_FIELDS)
    # ``tick`` and ``invalid`` only ever name a refused input: the envelope and its reason
    assert {str(e) for e in EventType} - {"invalid", "tick"} <= set(EVENT_TYPES)


def test_a_messages_word_is_its_members_plain_string():
    held = word(Phase.PLAYING)
    assert type(held) is str and held == Phase.PLAYING and hash(held) == hash(Phase.PLAYING)
    assert SNAPSHOT.field("phase").spec == Choice(PHASES)


def test_a_fresh_tables_snapshot_is_of_the_declared_shape():
    snap = snapshot(new_table("12"))
    assert parse_snapshot(snap) == snap
    assert set(snap) == set(Snapshot.__annotations__)


class _Good(TypedDict):
    length: Annotated[int, LENGTH]
    note: NotRequired[Annotated[str | None, Text(10, nullable=True)]]
    side: Literal["A", "B"] | None
    rows: Annotated[list[_Row], Items(3)]


class _Row(TypedDict):
    n: Annotated[int, Int(1, 2)]


def test_a_declaration_reads_into_its_schema():
    spec = declared(_Good)
    assert [(f.name, f.required) for f in spec.fields] == [
        ("length", True),
        ("note", False),
        ("side", True),
        ("rows", True),
    ]
    assert spec.field("side").spec == Choice(("A", "B"), nullable=True)
    assert spec.field("rows").spec.max_items == 3


class _TextAsInt(TypedDict):
    length: Annotated[str, LENGTH]


class _NullDisagrees(TypedDict):
    length: Annotated[int | None, LENGTH]


class _NoRange(TypedDict):
    length: int


class _ForeignWord(TypedDict):
    side: Annotated[Literal["A", "B"], Choice(("A", "B", "C"))]


@pytest.mark.parametrize("bad", [_TextAsInt, _NullDisagrees, _NoRange, _ForeignWord])
def test_a_declaration_that_contradicts_its_spec_is_refused(bad):
    with pytest.raises(TypeError):
        declared(bad)
