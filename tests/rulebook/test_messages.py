"""The messages are declared once: each declaration reads into the schema the wire checks, and a
declaration whose static type and spec disagree is refused when the rulebook is imported."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypedDict, get_origin, get_type_hints

import pytest
from hypothesis import given

from rulebook.messages import EVENT_TYPES, Event, Snapshot, word
from rulebook.replay import parse_lines
from rulebook.schema import LENGTH, PHASES, Choice, Int, Items, Text, declared
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from rulebook.vocab import EventType, Phase
from rulebook.wire import EVENT_FIELDS, SNAPSHOT, parse_snapshot
from tests.rulebook.helpers import check_declared
from tests.rulebook.test_properties import SETTINGS, journals

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


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


# -- the events the reducer makes are of their declarations ------------------------------------


def _golden_events() -> list[Event]:
    events: list[Event] = []
    for journal in sorted(GOLDEN.glob("*.jsonl")):
        state = new_table("t")
        for inp in parse_lines(journal.read_text().splitlines()):
            state, made = apply(state, inp)
            events.extend(made)
    return events


def test_every_event_of_the_golden_journals_is_of_its_declaration():
    events = _golden_events()
    kinds = {e["type"] for e in events}
    # the journals reach most types: the check below is not vacuous
    assert len(kinds) >= 25, kinds
    for event in events:
        check_declared(event)


@SETTINGS
@given(journal=journals(max_steps=80))
def test_every_event_the_reducer_makes_is_of_its_declaration(journal: list[dict[str, Any]]) -> None:
    state = new_table("t9")
    for inp in journal:
        state, made = apply(state, inp)
        for event in made:
            check_declared(event)


def test_the_tds_legal_part_names_every_command_of_the_vocabulary():
    """``TdLegal.as_json`` lists the commands by name: a command added to the vocabulary must be
    added to the declaration and to it."""
    from rulebook.legal import legal_actions
    from rulebook.messages import TdLegal
    from rulebook.vocab import CommandType

    declared_keys = set(get_type_hints(TdLegal))
    assert {str(k) for k in CommandType} <= declared_keys
    assert set(legal_actions(new_table("12")).td.as_json()) == declared_keys
