"""Long random input sequences through the reducer: play, TD commands and garbage mixed.

``tests/rulebook/test_properties.py`` checks the rules' properties on journals of up to 80
plausible inputs and throws short runs of arbitrary JSON at ``apply``. What a table lives
through in a day is longer and messier: hundreds of inputs, hub commands (some repeated, as a
hub resends them), and now and then garbage from a bad driver or a hostile message. This reuses
that module's strategies and adds, per step of a long mixed sequence:

* ``apply`` never raises and never reports an internal fault;
* every event and every snapshot can be published as they are: standard JSON (no NaN or
  Infinity, which the table's link refuses) — otherwise the table could not tell the hub;
* reserves and delays never go negative; events are numbered one after the other in a match;
* the score moves only with an event that says why (a game result, a penalty, a TD correction,
  a waiver, an undo, a new assignment);
* a command id is applied at most once (a repeat is answered as a duplicate and changes
  nothing); penalty ids are unique in the penalty log;
* and at the end, replaying the journal gives the very state live application gave.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.mqtt_topics import encode_json
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import INTERNAL_ERROR, apply, new_table
from tests.rulebook.helpers import PLAYERS
from tests.rulebook.test_properties import FUZZ_INPUTS, GAPS, OTHER, PLAY

#: event types that may come with a change of score
SCORING = {"game_over", "penalty", "correct_score", "waive", "undo", "assign", "match_over", "set_length"}


@st.composite
def long_journals(draw: st.DrawFn, min_steps: int, max_steps: int) -> list[Any]:
    profile = draw(st.sampled_from(["wbgf-2023", "hbf", "hu", "ffbg-cdf"]))
    length = draw(st.sampled_from([3, 5, 7, 11]))
    clock = draw(st.sampled_from([False, True, {"minutes_per_point": 0.5, "delay_s": 5}]))
    at = 0
    journal: list[Any] = [
        {
            "at": at,
            "wall": 1_795_000_000_000,
            "input": "assign",
            "match_id": "m",
            "length": length,
            "players": PLAYERS,
            "profile": profile,
            "clock": clock,
        },
        {"at": at, "input": "checkin", "side": "A"},
        {"at": at, "input": "checkin", "side": "B"},
    ]
    sent: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        at += draw(GAPS)
        kind = draw(st.integers(0, 99))
        if kind < 70:
            inp: Any = {"at": at, **draw(PLAY)}
        elif kind < 85:
            inp = {"at": at, **draw(OTHER)}
        elif kind < 90 and sent:
            inp = {**draw(st.sampled_from(sent)), "at": at}  # a command the hub sends again
        elif kind < 99:
            inp = draw(FUZZ_INPUTS)
            if isinstance(inp, dict):
                inp = {**inp, "at": at}  # garbage, but not a jump in time that stops the rest
        else:
            inp = {
                "at": at,
                "input": "assign",
                "match_id": draw(st.sampled_from(["m", "m2", "m3"])),
                "length": length,
                "players": PLAYERS,
                "profile": profile,
                "clock": clock,
                "force": draw(st.booleans()),
            }
        if isinstance(inp, dict) and inp.get("input") == "cmd":
            sent.append(inp)
        journal.append(inp)
    return journal


def check_journal(journal: list[Any]) -> None:
    state = new_table("t")
    for inp in journal:
        before = state
        state, events = apply(state, inp)
        text = encode_json(snapshot(state))  # raises on NaN / Infinity
        assert json.loads(text)["seq"] == state.seq
        for event in events:
            encode_json(event)
            assert INTERNAL_ERROR not in str(event.get("rejected", "")) + str(event.get("error", "")), event
        for side in ("A", "B"):
            assert state.clock.reserve_at(side, state.now) >= 0  # type: ignore[arg-type]
            assert state.clock.delay_at(side, state.now) >= 0  # type: ignore[arg-type]
        if events and state.match_id == before.match_id:
            assert [e["seq"] for e in events] == list(range(before.seq + 1, before.seq + 1 + len(events)))
        same_match = (
            before.match is not None and state.match is not None and state.match_id == before.match_id
        )
        if same_match and state.match.score != before.match.score:  # type: ignore[union-attr]
            kinds = {e["type"] for e in events if not e.get("rejected")}
            assert kinds & SCORING, (inp, events)
        is_cmd = isinstance(inp, dict) and inp.get("input") == "cmd" and isinstance(inp.get("id"), str)
        if is_cmd and inp["id"] in before.applied_cmds:
            assert [e.get("duplicate") for e in events if e["type"] == "cmd_done"] == [True], events
            # nothing but the passing of time (a flag may fall at this instant) changed
            ticked, _ = apply(before, {"at": inp["at"], "input": "tick"})
            assert (state.match, state.phase, state.clock) == (ticked.match, ticked.phase, ticked.clock)
        if state.match is not None:
            ids = [p.id for p in state.match.penalty_log]
            assert len(ids) == len(set(ids)), ids
    assert replay(journal, new_table("t")) == state


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@pytest.mark.long
@given(journal=long_journals(150, 400))
def test_long_mixed_sequences_keep_every_invariant(journal: list[Any]) -> None:
    check_journal(journal)


@pytest.mark.soak
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(journal=long_journals(500, 2000))
def test_long_mixed_sequences_soak(journal: list[Any]) -> None:
    check_journal(journal)
