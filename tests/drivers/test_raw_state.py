"""A state handed over undecoded (:class:`drivers.hub_link.RawState`): what ``peek`` reads from the
bytes is what decoding them gives, or nothing; ``decode`` drops what the link drops.

The hub replaces a waiting state by the table's newer one on what ``peek`` reads, without
decoding either: a wrong reading would replace a finished match's state or another match's. The
property: for any JSON object, however it is encoded, a reading ``peek`` gives is the decoded
object's own ``seq``, ``match_id`` and ``phase`` wherever the object has them."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_hub import template_state
from drivers.hub_link import RawState

TOPIC = "bg/v1/ev/table/7/state"
KEYS = ("seq", "match_id", "phase")

# text that tries to look like the keys the peek reads: quotes, escapes, colons, braces
tricky = st.lists(
    st.sampled_from(['"', "\\", ":", ",", "{", "}", "[", "]", " ", "seq", "phase", "match_id", "é", "x"]),
    max_size=8,
).map("".join)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.sampled_from(["finished", "playing"]), tricky
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), tricky), inner, max_size=4),
    ),
    max_leaves=12,
)
tops = st.fixed_dictionaries(
    {},
    optional={
        "seq": st.one_of(st.integers(0, 2**40), values),
        "match_id": st.one_of(st.none(), tricky, values),
        "phase": st.one_of(st.sampled_from(["finished", "playing", "waiting"]), values),
        "table": st.just("7"),
        "nested": values,
        "other": values,
    },
)


def encode(obj: dict[str, Any], style: int) -> bytes:
    if style == 0:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()
    if style == 1:
        return json.dumps(obj).encode()
    return json.dumps(obj, indent=2, ensure_ascii=True).encode()


@settings(max_examples=400, deadline=None)
@given(tops, st.integers(0, 2))
def test_what_peek_reads_is_what_decoding_gives(obj: dict[str, Any], style: int) -> None:
    peek = RawState(TOPIC, encode(obj, style)).peek()
    if peek is None:
        return
    if "seq" in obj:
        assert obj["seq"] == peek.seq and type(obj["seq"]) is int
    if "match_id" in obj:
        assert obj["match_id"] == peek.match_id
    if "phase" in obj:
        assert obj["phase"] == peek.phase


@pytest.mark.parametrize("style", [0, 1, 2])
def test_a_real_snapshot_is_read(style: int) -> None:
    state = template_state("7", "r1-t7")
    peek = RawState(TOPIC, encode(state, style)).peek()
    assert peek is not None
    assert (peek.match_id, peek.seq, peek.phase) == (state["match_id"], state["seq"], state["phase"])


@pytest.mark.parametrize(
    "payload",
    [
        b'{"seq":1,"seq":2,"match_id":"m","phase":"playing"}',  # a key twice: the decoder keeps the last
        b'{"seq":1,"match_id":"m","phase":"play\\u0069ng"}',  # an escape anywhere
        b'{"seq":1.5,"match_id":"m","phase":"playing"}',
        b'{"seq":1e3,"match_id":"m","phase":"playing"}',
        b'{"seq":"1","match_id":"m","phase":"playing"}',
        b'{"seq":1,"match_id":7,"phase":"playing"}',
        b'{"seq":1,"phase":"playing"}',
        b'{"seq":1,"match_id":"m","phase":"playing","x":{"phase":"finished"}}',
    ],
)
def test_what_is_not_certain_is_not_read(payload: bytes) -> None:
    assert RawState(TOPIC, payload).peek() is None


def test_decode_drops_what_the_link_drops(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.raw_state")
    bad = [
        b"not json",
        b"\xc3\x28 not utf-8",
        b"[1, 2]",
        b'{"table": "4", "seq": 1}',
        b'{"table": "7", "seq": -2}',
        b'{"table": "7", "match_id": 7}',
    ]
    with caplog.at_level(logging.WARNING, logger="test.raw_state"):
        for payload in bad:
            assert RawState(TOPIC, payload).decode("7", log) is None
    assert [r.getMessage().startswith(f"dropped {TOPIC}") for r in caplog.records] == [True] * len(bad)
    good = {"table": "7", "seq": 2, "match_id": None}
    assert RawState(TOPIC, json.dumps(good).encode()).decode("7", log) == good
