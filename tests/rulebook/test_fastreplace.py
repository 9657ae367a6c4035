"""``rulebook.fastreplace.replace`` gives exactly what ``dataclasses.replace`` gives (it is a speed-up)."""

from __future__ import annotations

import dataclasses

import pytest

from rulebook.clock import new_clock
from rulebook.fastreplace import replace
from rulebook.match import Cube, Match
from rulebook.sides import Pair
from tests.rulebook.helpers import Table


def test_same_result_as_dataclasses_replace() -> None:
    state = Table().start(length=7, clock=True).opening(6, 1).state
    for obj, changes in [
        (state, {"phase": "paused", "paused": "td", "seq": 99}),
        (state, {}),
        (new_clock(1000, 10), {"running": "A", "since": 5}),
        (Match(length=7), {"score": Pair(3, 4), "cube": Cube(2, "A")}),
        (Pair(1, 2), {"b": 5}),
    ]:
        fast = replace(obj, **changes)
        slow = dataclasses.replace(obj, **changes)
        assert fast == slow and type(fast) is type(slow) and fast is not obj
        for f in dataclasses.fields(obj):
            assert getattr(fast, f.name) is getattr(slow, f.name)


def test_result_stays_frozen_and_unknown_fields_are_refused() -> None:
    cube = replace(Cube(), value=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cube.value = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        replace(Cube(), colour="red")


def test_only_for_dataclasses() -> None:
    with pytest.raises(TypeError):
        replace(object())
