"""Topic names and payload decoding (no broker needed)."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.mqtt_topics import (
    MAX_JSON_INT,
    MAX_PAYLOAD,
    Topics,
    decode_object,
    encode_json,
    is_int,
    is_valid_id,
    loads_strict,
    short,
)

log = logging.getLogger("test.topics")


def test_topic_names_follow_the_protocol():
    t = Topics("open-2026")
    assert t.hub_status == "bg/v1/open-2026/hub/status"
    assert t.table_status("12") == "bg/v1/open-2026/table/12/status"
    assert t.table_state("12") == "bg/v1/open-2026/table/12/state"
    assert t.table_evt("12") == "bg/v1/open-2026/table/12/evt"
    assert t.table_assign("12") == "bg/v1/open-2026/table/12/assign"
    assert t.table_cmd("12") == "bg/v1/open-2026/table/12/cmd"
    assert t.table_resync("12") == "bg/v1/open-2026/table/12/resync"
    assert t.table_wildcard("evt") == "bg/v1/open-2026/table/+/evt"


@pytest.mark.parametrize("bad", ["", "a/b", "+", "#", "a b", "-x", "x" * 65, "é", None, 12])
def test_ids_that_would_break_topics_are_refused(bad):
    assert not is_valid_id(bad)
    with pytest.raises(ValueError):
        Topics("ev").table_evt(bad)  # type: ignore[arg-type]


def test_parse_table_topic():
    t = Topics("ev")
    assert t.parse_table_topic("bg/v1/ev/table/12/evt") == ("12", "evt")
    assert t.parse_table_topic("bg/v1/ev/table/A-3.b_c/state") == ("A-3.b_c", "state")
    for topic in [
        "bg/v1/other/table/12/evt",
        "bg/v1/ev/table/12/evt/x",
        "bg/v1/ev/table/12/nope",
        "bg/v1/ev/table/bad id/evt",
        "bg/v1/ev/hub/status",
        "bg/v1/ev/table//evt",
    ]:
        assert t.parse_table_topic(topic) is None


def test_decode_object_accepts_only_json_objects(caplog):
    assert decode_object("t", encode_json({"a": "é", "n": [1]}), log) == {"a": "é", "n": [1]}
    for payload in [b"", b"[]", b"1", b'"s"', b"nope", b"\xff", b"[" * 100_000, b"x" * (MAX_PAYLOAD + 1)]:
        assert decode_object("t", payload, log) is None
    assert len([r for r in caplog.records if r.getMessage().startswith("dropped t:")]) == 8


def test_encode_json_is_compact_utf8_and_strict():
    assert encode_json({"name": "Zoë", "n": 1}) == '{"name":"Zoë","n":1}'.encode()
    assert json.loads(encode_json({"x": [1, None]})) == {"x": [1, None]}
    with pytest.raises(ValueError):
        encode_json({"x": float("inf")})


def test_small_helpers():
    assert is_int(3) and not is_int(True) and not is_int(3.0) and not is_int("3")
    assert short("x" * 1000).endswith("...") and len(short("x" * 1000)) == 80
    assert short(5) == "5"


def _reference(text: str) -> object:
    """The strict reading done number by number (what ``loads_strict`` always did)."""

    def bounded(t: str) -> int:
        if not -MAX_JSON_INT <= int(t) <= MAX_JSON_INT:
            raise ValueError(t)
        return int(t)

    def finite(t: str) -> float:
        if float(t) in (float("inf"), float("-inf")):
            raise ValueError(t)
        return float(t)

    def constant(name: str) -> float:
        raise ValueError(name)

    return json.loads(text, parse_constant=constant, parse_int=bounded, parse_float=finite)


_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-MAX_JSON_INT - 2, max_value=-MAX_JSON_INT + 2),
    st.integers(min_value=MAX_JSON_INT - 2, max_value=MAX_JSON_INT + 2),
    st.floats(allow_nan=False, allow_infinity=False),
    st.from_regex(r"\A-?[1-9][0-9]{0,24}(\.[0-9]{1,22})?([eE][-+]?[0-9]{1,4})?\Z"),
)
_json_text = st.recursive(
    _numbers.map(lambda n: n if isinstance(n, str) else json.dumps(n))
    | st.sampled_from(["NaN", "Infinity", "-Infinity", "true", "null", '"1234567890123456789012"']),
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(
            lambda d: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in d.items()) + "}"
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_json_text)
def test_strict_json_reads_every_text_as_the_number_by_number_check_does(text):
    """The fast path (numbers read in C when none can be out of range) gives what checking each
    number gives: the same value, or a refusal."""
    try:
        expected = _reference(text)
    except ValueError:
        with pytest.raises(ValueError):
            loads_strict(text)
        return
    assert repr(loads_strict(text)) == repr(expected)
