"""The periodic tick in slices (``Hub.tick_in_slices``) decides what a tick at once decides, and lets
the loop run between its slices.

Two identical rooms of 30 tables (players arriving at some tables and not at others, so that there
are lateness points, late alerts and the room's alert of a round's absentees) are played minute
by minute through the first round's lateness, on a fake clock, the tables taking what the hub
decides: one room ticked at once (``tick``), the other in slices of 7 tables. After every minute
both hubs hold the same alerts, tiles, deadlines and automatic commands. A tick called while a
tick in slices is under way takes its remaining tables over."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hub.live.clock import FakeClock
from hub.live.core import Hub
from hub.tournament.schedule import parse_schedule
from tests.hub.room_sim import SimRoom
from tests.hub.support import MIN, T0, schedule_csv

TABLES = 30
SLICE = 7


def _room(path: Path) -> SimRoom:
    rows = [
        {"round": 1, "table": str(i), "player_a": f"A{i}", "player_b": f"B{i}", "length": 7, "start": T0}
        for i in range(1, TABLES + 1)
    ]
    clock = FakeClock(T0 - 2 * MIN)
    room = SimRoom(path, parse_schedule(schedule_csv(rows)), clock, [str(i) for i in range(1, TABLES + 1)])
    room.settle()
    return room


def _arrivals(room: SimRoom, minute: int) -> None:
    """Both players at a third of the tables at the start, one player at another third (the
    other comes at minute 6 at some of them), nobody at the rest."""
    for i in range(1, TABLES + 1):
        name = str(i)
        if i % 3 == 0 or (i % 3 == 1 and minute >= 0):
            room.checkin(name, "A")
        if i % 3 == 0 or (i % 3 == 1 and i % 2 == 0 and minute >= 6):
            room.checkin(name, "B")


def _held(hub: Hub) -> dict[str, Any]:
    """What a tick decides, as the dashboards and the tables see it."""
    return {
        "alerts": {k: (a["urgency"], a["message"], a.get("data")) for k, a in hub.alerts.active.items()},
        "tiles": dict(hub.display._tiles),
        "counters": hub.alerts.counters,
        "deadlines": {t: hub.deadlines.when(t) for t in hub.room_state.tables()},
        "commands": [(c["table"], c["id"], c["body"]) for c in hub.store.commands(limit=10_000)],
    }


async def _sliced_counting_yields(hub: Hub) -> int:
    """The tick in slices, and how many times the loop ran something else meanwhile."""
    ran = 0
    done = False

    async def other_work() -> None:
        nonlocal ran
        while not done:
            ran += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(other_work())
    await asyncio.sleep(0)
    ran = 0
    await hub.tick_in_slices(SLICE)
    done = True
    await other
    return ran


def test_a_tick_in_slices_decides_what_a_tick_at_once_decides(tmp_path: Path) -> None:
    whole, sliced = _room(tmp_path / "whole.db"), _room(tmp_path / "sliced.db")
    assert whole.hub is not None and sliced.hub is not None
    assert _held(whole.hub) == _held(sliced.hub)
    for minute in range(-1, 12):
        for room in (whole, sliced):
            room.clock.set(T0 + minute * MIN)
            _arrivals(room, minute)
        whole.hub.tick_room()  # a change of the whole room: every table looked at
        sliced.hub._whole_room = True
        assert asyncio.run(_sliced_counting_yields(sliced.hub)) >= TABLES // SLICE
        assert _held(whole.hub) == _held(sliced.hub), minute
        for room in (whole, sliced):
            room.deliver()  # the tables take the penalties, and tell their states
        whole.hub.tick()
        asyncio.run(sliced.hub.tick_in_slices(SLICE))  # a tick of the tables that changed
        assert _held(whole.hub) == _held(sliced.hub), minute
    late = [a for a in sliced.hub.alerts.active.values() if a["kind"] == "late"]
    assert late, "the room has late players"
    assert any(a["tbl"] is None for a in sliced.hub.alerts.active.values()), "and room alerts"
    assert sliced.automatic(), "and lateness points given"
    assert whole.automatic() == sliced.automatic()


def test_a_tick_called_meanwhile_takes_the_rest_over(tmp_path: Path) -> None:
    whole, sliced = _room(tmp_path / "whole.db"), _room(tmp_path / "sliced.db")
    assert whole.hub is not None and sliced.hub is not None
    for room in (whole, sliced):
        room.clock.set(T0 + 4 * MIN)
        _arrivals(room, 4)
    whole.hub.tick_room()
    hub = sliced.hub

    async def interrupted() -> tuple[int, bool]:
        hub._whole_room = True
        task = asyncio.create_task(hub.tick_in_slices(SLICE))
        await asyncio.sleep(0)  # the task does the room's steps and its first slice, then yields
        left = len(hub._slicing or ())
        hub.tick()  # e.g. a TD's action: takes the tables not looked at yet
        await task
        return left, hub._slicing is None

    left, finished = asyncio.run(interrupted())
    assert 0 < left < TABLES and finished
    assert _held(whole.hub) == _held(hub)
