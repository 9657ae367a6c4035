"""The wire schema: every snapshot and event a table makes passes, and any one hostile value, at
any depth, is refused with a stable code and the path of that field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook.errors import FieldError, WireError
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from rulebook.wire import (
    EVENT_FIELDS,
    MAX_EVENT_BYTES,
    MAX_POINTS,
    NEXT,
    PAGES,
    SNAPSHOT,
    STATUS,
    Obj,
    Text,
    compile_spec,
    event_spec,
    parse_event,
    parse_next,
    parse_pages,
    parse_seq_key,
    parse_snapshot,
    parse_status,
)
from tests.support.wire_strategies import hostile, typed_event, valid

GOLDEN = Path(__file__).parent.parent / "golden"
CODES = {"field.missing", "field.type", "field.range", "field.choice", "field.too_long"}


EVENT_KINDS = st.sampled_from(sorted(EVENT_FIELDS))


def _roundtrip(obj):
    return json.loads(json.dumps(obj))


def _golden_runs():
    for path in sorted(GOLDEN.glob("*.jsonl")):
        state = new_table("12")
        for line in path.read_text().splitlines():
            if line.strip():
                state, events = apply(state, json.loads(line))
                yield state, events


def test_every_golden_snapshot_and_event_passes_unchanged():
    count = 0
    for state, events in _golden_runs():
        snap = _roundtrip(snapshot(state))
        assert parse_snapshot(snap) == snap
        for event in events:
            event = _roundtrip(event)
            assert parse_event(event) == event
            count += 1
    assert count > 400


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["A", "B"]), st.integers(0, 12)), max_size=60))
def test_snapshots_of_random_play_pass(moves):
    """Whatever the players do at the table, what the table publishes fits the schema."""
    state = new_table("7")
    at = 0
    inputs = [
        {
            "input": "assign",
            "match_id": "r1-t7",
            "length": 5,
            "clock": True,
            "profile": "wbgf-2023",
            "players": {"A": {"name": "Zoé Ünal", "id": "1"}, "B": {"name": "Георги", "id": "2"}},
        },
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
    ]
    kinds = [
        "press",
        "roll",
        "double",
        "take",
        "pass",
        "win",
        "resign",
        "break",
        "return",
        "call_td",
        "undo",
        "confirm",
        "premature_pickup",
        "opening_roll",
    ]
    for side, k in moves:
        kind = kinds[k] if k < len(kinds) else "opening_roll"
        inp = {"input": kind, "side": side}
        if kind == "roll":
            inp["dice"] = [1 + at % 6, 1 + (at // 7) % 6]
        if kind == "opening_roll":
            inp = {"input": "opening_roll", "A": 1 + at % 6, "B": 1 + (at // 3) % 6}
        if kind in ("win", "resign"):
            inp["kind"] = "gammon"
        inputs.append(inp)
    for inp in inputs:
        at += 17_000
        state, events = apply(state, {**inp, "at": at, "wall": 1_800_000_000_000 + at})
        snap = _roundtrip(snapshot(state))
        assert parse_snapshot(snap) == snap
        for event in events:
            event = _roundtrip(event)
            assert parse_event(event) == event


@settings(max_examples=300, deadline=None)
@given(valid(SNAPSHOT))
def test_any_valid_snapshot_passes_and_comes_back_equal(snap):
    assert parse_snapshot(snap) == snap


@settings(max_examples=300, deadline=None)
@given(EVENT_KINDS.flatmap(lambda kind: valid(typed_event(kind))))
def test_any_valid_event_passes_and_comes_back_equal(event):
    assert parse_event(event) == event


def _is_label(value):
    try:
        compile_spec(Text(64, 1))(value)
    except Exception:
        return False
    return True


def _refused_at(parse, message, path):
    with pytest.raises(WireError) as caught:
        parse(message)
    err = caught.value
    assert err.code in CODES
    assert err.path == path, (err, path)
    assert str(err).startswith(path or err.kind)
    return err


@pytest.mark.long
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile(SNAPSHOT))
def test_one_hostile_value_anywhere_in_a_snapshot_is_named(case):
    message, path = case
    _refused_at(parse_snapshot, message, path)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EVENT_KINDS.flatmap(lambda kind: hostile(typed_event(kind))))
def test_one_hostile_value_anywhere_in_an_event_is_named(case):
    message, path = case
    if path == "type" and _is_label(message.get("type")):
        return  # another label is just another (or an unknown) type, checked as such
    _refused_at(parse_event, message, path)


@settings(max_examples=300, deadline=None)
@given(hostile(STATUS))
def test_one_hostile_value_in_a_status_is_named(case):
    message, path = case
    _refused_at(parse_status, message, path)


@settings(max_examples=300, deadline=None)
@given(valid(NEXT))
def test_any_valid_next_message_passes_and_comes_back_equal(message):
    """The hub's "Next:" lines (hub → table), read at the table's edge."""
    assert parse_next(message) == message


@settings(max_examples=300, deadline=None)
@given(hostile(NEXT))
def test_one_hostile_value_in_a_next_message_is_named(case):
    message, path = case
    _refused_at(parse_next, message, path)


@settings(max_examples=300, deadline=None)
@given(valid(PAGES))
def test_any_valid_players_pages_pass_and_come_back_equal(pages):
    """An assignment's players' page addresses (hub → table), read at the table's edge."""
    assert parse_pages(pages) == pages


@settings(max_examples=300, deadline=None)
@given(hostile(PAGES))
def test_one_hostile_page_address_is_named(case):
    message, path = case
    _refused_at(parse_pages, message, path)


@pytest.mark.parametrize(
    "address", ["ftp://room/p/abc", "javascript:alert(1)", "http://a b", "https://", "h" * 300]
)
def test_a_page_that_is_not_an_http_address_is_refused(address):
    with pytest.raises(WireError):
        parse_pages({"A": address})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hostile(SNAPSHOT).map(lambda c: c[0]), valid(SNAPSHOT)))
def test_the_fast_check_and_the_explaining_check_always_agree(message):
    """The generated straight-line check and the closures must accept exactly the same messages."""
    explain = compile_spec(SNAPSHOT)
    try:
        expected = explain(message)
    except Exception:
        expected = None
    try:
        got = parse_snapshot(message)
    except WireError:
        got = None
    assert got == expected


def test_the_crashes_reported_against_the_hub_are_refused_with_their_field():
    """The messages that once stopped the room (a tick failing for every table, the room view
    blank for everyone) are refused at the edge with the field they got wrong."""
    good = _roundtrip(snapshot(next(iter(_golden_runs()))[0]))
    good["games"] = [{"game": 1, "winner": "A", "kind": "single", "cube": 1, "points": 1}] * 3
    good["penalty_log"] = []
    cases = {
        "confirmed": {**good, "confirmed": "yes"},
        "games[2].points": {**good, "games": [*good["games"][:2], {**good["games"][2], "points": "1"}]},
        "cube.value": {**good, "cube": {**good["cube"], "value": {"v": 2}}},
        "game": {**good, "game": {"n": 1}},
        "penalty_log[0]": {**good, "penalty_log": [None]},
        "length": {**good, "length": 10**6},
        "start_wall": {**good, "start_wall": -1},
        "players.A.name": {**good, "players": {**good["players"], "A": {"name": "Ann\x00", "id": ""}}},
    }
    for path, message in cases.items():
        err = _refused_at(parse_snapshot, message, path)
        assert path in str(err)


def test_errors_say_what_was_expected_and_what_came():
    """A WireError is the rulebook's FieldError: a field.* code, the English message with the path."""
    good = _roundtrip(snapshot(next(iter(_golden_runs()))[0]))
    with pytest.raises(FieldError) as caught:
        parse_snapshot({**good, "score": {"A": 1, "B": "2"}})
    assert caught.value.code == "field.type"
    assert str(caught.value) == f"score.B: expected an integer from 0 to {MAX_POINTS}, got '2'"
    with pytest.raises(WireError) as caught:
        parse_snapshot({**good, "length": 100})
    assert (caught.value.code, str(caught.value)) == (
        "field.range",
        "length: expected a value from 0 to 99, got 100",
    )
    with pytest.raises(WireError) as caught:
        parse_snapshot({**good, "phase": "dancing"})
    assert caught.value.code == "field.choice" and "waiting, opening" in str(caught.value)
    with pytest.raises(WireError) as caught:
        parse_snapshot([1, 2])
    assert caught.value.code == "field.type" and caught.value.path == ""
    assert str(caught.value).startswith("state: expected an object")
    missing = dict(good)
    del missing["present"]
    with pytest.raises(WireError) as caught:
        parse_snapshot(missing)
    assert (caught.value.code, caught.value.path, str(caught.value)) == (
        "field.missing",
        "present",
        "present: required",
    )


def test_unknown_fields_are_left_out_known_ones_kept():
    event = {"seq": 3, "match_id": "m1", "type": "press", "side": "A", "at": 5, "wall": 7, "pad": "x" * 9}
    assert parse_event(event) == {
        "seq": 3,
        "match_id": "m1",
        "type": "press",
        "side": "A",
        "at": 5,
        "wall": 7,
    }
    odd = {"seq": 4, "match_id": None, "type": "from-a-newer-table", "side": "A"}
    assert parse_event(odd) == {"seq": 4, "match_id": None, "type": "from-a-newer-table"}


def test_an_event_with_bad_fields_still_has_a_readable_number():
    assert parse_seq_key({"seq": 9, "match_id": "m1", "type": "press", "side": 3}) == (9, "m1")
    with pytest.raises(WireError):
        parse_seq_key({"seq": "9", "match_id": "m1"})


def test_every_spec_in_the_schema_is_an_object_at_the_top():
    assert isinstance(SNAPSHOT, Obj) and isinstance(STATUS, Obj)
    assert all(isinstance(event_spec(kind), Obj) for kind in EVENT_FIELDS)


def test_a_list_equal_to_the_previous_snapshots_is_taken_from_it():
    """The hub passes the table's previous snapshot: an equal list is not checked again, and the
    previous (checked) objects are kept — equal is not identical (1 == 1.0 == True)."""
    state = None
    for state, _ in _golden_runs():
        if state.match is not None and len(state.match.games) >= 2:
            break
    snap = _roundtrip(snapshot(state))
    previous = parse_snapshot(_roundtrip(snap))
    sneaky = _roundtrip(snap)
    sneaky["games"][0]["points"] = float(sneaky["games"][0]["points"])
    out = parse_snapshot(sneaky, previous)
    assert out["games"] is previous["games"]
    assert type(out["games"][0]["points"]) is int
    changed = _roundtrip(snap)
    changed["games"][1]["points"] = "2"
    with pytest.raises(WireError) as caught:
        parse_snapshot(changed, previous)
    assert caught.value.path == "games[1].points"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    valid(SNAPSHOT), st.dictionaries(st.text(max_size=5).map(lambda k: "x-" + k), st.integers(), min_size=1)
)
def test_unknown_fields_are_dropped_at_every_depth(snap, extra):
    noisy = {**snap, **extra, "cube": {**snap["cube"], **extra}}
    assert parse_snapshot(noisy) == snap


_LONG = st.text(st.characters(blacklist_categories=("Cs",)), min_size=200, max_size=400)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["penalty", "forfeit", "waive", "pause", "set_length", "correct_score", "nonsense"]),
    _LONG,
    _LONG,
    _LONG,
)
def test_no_event_the_reducer_makes_is_over_the_hubs_size_limit(kind, cmd_id, text, other):
    """The hub refuses events over MAX_EVENT_BYTES: whatever a command or an input quotes back
    (ids, types, reasons, notes of hundreds of four-byte characters), the table stays under it."""
    state = new_table("7")
    players = {"A": {"name": text, "id": other}, "B": {"name": other, "id": text}}
    inputs = [
        {"input": "assign", "match_id": "m", "length": 5, "profile": "wbgf-2023", "clock": True,
         "players": players},
        {"input": "cmd", "id": cmd_id, "type": kind, "against": "A", "points": 1, "reason": text,
         "penalty_id": other, "length": 3, "note": text, "score": {"A": 1, "B": 0}},
        {"input": "cmd", "id": cmd_id, "type": text},
        {"input": text, "side": other},
        {"input": "pause", "side": "A", "reason": text},
        {"input": "roll", "dice": [1, 2], "source": other},
    ]  # fmt: skip
    for at, inp in enumerate(inputs, 1):
        state, events = apply(state, {**inp, "at": at * 1000})
        for event in events:
            assert len(json.dumps(event, ensure_ascii=False).encode()) <= MAX_EVENT_BYTES, event
