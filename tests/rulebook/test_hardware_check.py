"""The hardware check's message (``rulebook.hardware_check``): what a table may send, by property.

Any check a table can build passes whole and unchanged (through JSON too); any field replaced by
any JSON value is refused naming a field under it, or comes out checked and checks again the same;
a failed step carries its reason and only a failed one does; *ready* is exactly "nothing failed or
was skipped"; the firmware's flags and the temperature are judged as documented.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebook.errors import WireError
from rulebook.hardware_check import (
    FINE,
    HOT_MC,
    Origin,
    Outcome,
    Reason,
    Step,
    failed,
    parse_hardware_check,
    ready,
    temperature_outcome,
    throttling_outcome,
)


@st.composite
def step_results(draw: st.DrawFn, step: Step) -> dict[str, Any]:
    outcome = draw(st.sampled_from(list(Outcome)))
    return {
        "step": step.value,
        "outcome": outcome.value,
        "reason": draw(st.sampled_from(list(Reason))).value if outcome == Outcome.FAIL else None,
        "detail": draw(
            st.text(
                st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_categories=("Cc",)), max_size=120
            )
        ),
        "took_ms": draw(st.integers(0, 24 * 3600 * 1000)),
    }


@st.composite
def checks(draw: st.DrawFn) -> dict[str, Any]:
    steps = draw(st.lists(st.sampled_from(list(Step)), min_size=1, max_size=len(Step), unique=True))
    return {
        "id": draw(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True)),
        "origin": draw(st.sampled_from(list(Origin))).value,
        "finished_wall": draw(st.integers(0, 2**53 - 1)),
        "took_ms": draw(st.integers(0, 10**9)),
        "fitted": {"clock": draw(st.booleans()), "tower": draw(st.booleans())},
        "display": {
            "width_px": draw(st.integers(1, 16384)),
            "height_px": draw(st.integers(1, 16384)),
            "refresh_hz": draw(st.none() | st.integers(1, 1000)),
        },
        "cpu_temp_mc": draw(st.none() | st.integers(-60_000, 200_000)),
        "throttled": draw(st.none() | st.integers(0, 2**32 - 1)),
        "steps": [draw(step_results(s)) for s in steps],
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field's path in a message (objects' keys, lists' indices)."""
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def dotted(path: tuple[Any, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


@given(checks())
def test_a_check_a_table_can_build_passes_whole(check: dict[str, Any]):
    assert parse_hardware_check(check) == check
    assert parse_hardware_check(json.loads(json.dumps(check))) == check


@given(checks(), st.data(), JSON)
def test_any_field_replaced_is_refused_by_name_or_checked(
    check: dict[str, Any], data: st.DataObject, value: Any
):
    path = data.draw(st.sampled_from(paths(check)))
    bad = copy.deepcopy(check)
    holder = bad
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    try:
        checked = parse_hardware_check(bad)
    except WireError as exc:
        assert exc.kind == "hardware_check"
        # the refusal names the replaced field, a field above it (an object now incomplete, a
        # repeated step) or, for a step's outcome and reason, its sibling
        named = exc.path
        assert dotted(path).startswith(named) or named.startswith(dotted(path[:-1])), (named, path)
        return
    assert parse_hardware_check(checked) == checked


@given(checks())
def test_a_missing_field_is_refused_naming_it(check: dict[str, Any]):
    for key in list(check):
        bad = {k: v for k, v in check.items() if k != key}
        with pytest.raises(WireError) as caught:
            parse_hardware_check(bad)
        assert caught.value.code == "field.missing" and caught.value.path == key


@given(checks())
def test_ready_is_nothing_failed_or_skipped(check: dict[str, Any]):
    parsed = parse_hardware_check(check)
    outcomes = [s["outcome"] for s in parsed["steps"]]
    assert ready(parsed) == all(o in FINE for o in outcomes)
    assert ready(parsed) == (Outcome.FAIL not in outcomes and Outcome.SKIPPED not in outcomes)
    assert failed(parsed) == [s["step"] for s in parsed["steps"] if s["outcome"] == Outcome.FAIL]


def test_a_reason_goes_with_a_failure_only_and_each_step_once():
    base: dict[str, Any] = {
        "id": "c1",
        "origin": "table",
        "finished_wall": 1,
        "took_ms": 1,
        "fitted": {"clock": True, "tower": False},
        "display": {"width_px": 800, "height_px": 480, "refresh_hz": None},
        "cpu_temp_mc": None,
        "throttled": None,
        "steps": [{"step": "touch", "outcome": "fail", "reason": None, "detail": "", "took_ms": 0}],
    }
    with pytest.raises(WireError, match=r"steps\[0\]\.reason"):
        parse_hardware_check(base)
    base["steps"][0].update(outcome="pass", reason="timeout")
    with pytest.raises(WireError, match=r"steps\[0\]\.reason"):
        parse_hardware_check(base)
    base["steps"][0]["reason"] = None
    base["steps"].append(dict(base["steps"][0]))
    with pytest.raises(WireError, match="steps"):
        parse_hardware_check(base)


@given(st.none() | st.integers(0, 2**32 - 1))
def test_the_firmware_flags(bits: int | None):
    outcome, reason = throttling_outcome(bits)
    if bits is None:
        assert (outcome, reason) == (Outcome.NOT_AVAILABLE, None)
    elif bits & 0x10001:
        assert (outcome, reason) == (Outcome.FAIL, Reason.UNDER_VOLTAGE)
    elif bits & 0xE:
        assert (outcome, reason) == (Outcome.FAIL, Reason.THROTTLED)
    else:  # only "has happened" bits other than under-voltage, or none
        assert (outcome, reason) == (Outcome.PASS, None)


@given(st.none() | st.integers(-60_000, 200_000))
def test_the_temperature(mc: int | None):
    outcome, reason = temperature_outcome(mc)
    if mc is None:
        assert outcome == Outcome.NOT_AVAILABLE
    else:
        assert (outcome == Outcome.FAIL) == (mc >= HOT_MC) and (reason is not None) == (mc >= HOT_MC)
