"""A round moved while a player is late, with a real hub, a real Mosquitto and simulated tables
(issue 19, item 2): the TD's *Delay* of one round never switches another round's lateness off.

Round 1 starts at T0 at two tables, each with player B late: a 7-point match (points at 5, 10 and
15 minutes, the forfeit at 20) and a 5-point match (points at 5 and 10, the forfeit at 15). Six
minutes in, the TD delays round 2 (the same tables' next matches) by ten minutes. Round 1's
tables wait for their late players and send nothing: their lateness must go on from the hub's
own schedule, each point at its mark, and no alert may speak of a "next point" that has passed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from demo.simtable import SimTable
from hub.live.alerts import public_alert
from hub.live.clock import FakeClock
from hub.logic.conditions import hhmm
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, sim_table, start_hub, tick

ROWS = [
    {"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 7, "start": T0},
    {"round": 1, "table": "2", "player_a": "Cid", "player_b": "Dan", "length": 5, "start": T0},
    {"round": 2, "table": "1", "player_a": "Ann", "player_b": "Dan", "length": 7, "start": T0 + 90 * MIN},
    {"round": 2, "table": "2", "player_a": "Cid", "player_b": "Bob", "length": 5, "start": T0 + 90 * MIN},
]


class Room:
    def __init__(self, tmp: Path, mosquitto: object) -> None:
        self.clock = FakeClock(T0 - 2 * MIN)
        self.event = event_id("moved")
        host, port = mosquitto.host, mosquitto.port  # type: ignore[attr-defined]
        self.hub: HubThread = start_hub(tmp, host, port, self.event, self.clock, schedule=schedule_csv(ROWS))
        self.stack = ExitStack()
        self.sims: dict[str, SimTable] = {
            t: self.stack.enter_context(sim_table(self.event, t, host, port, self.clock)) for t in ("1", "2")
        }
        for t, sim in self.sims.items():
            sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
            sim.checkin("A")
        self.synced()

    def synced(self) -> None:
        self.hub.wait_for(
            lambda h: all(hub_state(h, t).get("seq") == sim.state.seq for t, sim in self.sims.items())
        )

    def at(self, wall: int) -> None:
        """Time moves to ``wall``; the hub ticks, and whatever it sent has reached the tables."""
        self.synced()
        self.clock.set(wall)
        tick(self.hub)
        self.settle()

    def settle(self) -> None:
        """Every command the hub recorded has been answered by its table, and the hub holds the
        tables' latest states."""

        def answered(h: object) -> bool:
            store = self.hub.hub.store
            return all(c["done_ok"] is not None for t in self.sims for c in store.commands(t))

        self.hub.wait_for(answered)
        self.synced()

    def given(self, table: str) -> list[str]:
        """The automatic commands the table applied, in order."""
        return [c["id"] for c in self.sims[table].cmds if c["id"].startswith("late:")]

    def alerts(self) -> list[dict]:
        return [public_alert(a) for a in self.hub.call(lambda: list(self.hub.hub.alerts.active.values()))]

    def close(self) -> None:
        self.stack.close()
        self.hub.stop()


@pytest.fixture
def room(tmp_path: Path, mosquitto: object) -> Iterator[Room]:
    r = Room(tmp_path, mosquitto)
    yield r
    r.close()


NEXT = re.compile(r"(?:next point|forfeit|first point) at (\d\d:\d\d)")


def no_past_times(room: Room) -> None:
    """No alert speaks of a point or a forfeit to come at a time that has passed."""
    now = room.clock.now_wall()
    for a in room.alerts():
        for at in NEXT.findall(a["message"]):
            assert at >= hhmm(now), (a["message"], hhmm(now))
        for side in ((a.get("data") or {}).get("sides") or {}).values():
            assert side.get("next_due_wall") is None or side["next_due_wall"] > now
        nxt = (a.get("data") or {}).get("next_due_wall")
        assert nxt is None or nxt > now, a


def test_delaying_another_round_leaves_lateness_at_its_marks(room: Room) -> None:
    marks: dict[int, dict[str, list[str]]] = {}
    for minute in (5, 6, 10, 15, 16, 20):
        room.at(T0 + minute * MIN)
        if minute == 6:
            out = room.hub.call(room.hub.hub.round_control.delay, "2", 10, "td")
            assert out["start_wall"] == T0 + 100 * MIN
            room.settle()
        marks[minute] = {t: room.given(t) for t in room.sims}
        no_past_times(room)
        if minute == 15:
            # forfeited at its mark: finished by lateness
            assert snapshot(room.sims["2"].state)["end_reason"] == "lateness"
    print("\nround 2 delayed at 6 min; points given at each mark:", marks)
    # the 7-point match: a point at 5, 10 and 15 minutes, the forfeit at 20
    assert marks[5]["1"] == ["late:r1-t1:B:1"]
    assert marks[10]["1"] == ["late:r1-t1:B:1", "late:r1-t1:B:2"]
    assert marks[15]["1"] == ["late:r1-t1:B:1", "late:r1-t1:B:2", "late:r1-t1:B:3"]
    assert marks[20]["1"][-1] == "late:r1-t1:B:forfeit"
    # the 5-point match: points at 5 and 10, forfeited at its mark of 15 minutes
    assert marks[10]["2"] == ["late:r1-t2:B:1", "late:r1-t2:B:2"]
    assert marks[15]["2"] == ["late:r1-t2:B:1", "late:r1-t2:B:2", "late:r1-t2:B:forfeit"]
    # each command went out at its mark, not in a burst later
    store = room.hub.hub.store
    for cmd_id, minute in (("late:r1-t1:B:2", 10), ("late:r1-t1:B:3", 15), ("late:r1-t2:B:forfeit", 15)):
        assert room.hub.call(store.command, cmd_id)["created_wall"] == T0 + minute * MIN


def test_delaying_the_late_players_own_round_counts_from_its_new_start(room: Room) -> None:
    room.at(T0 + 5 * MIN)
    assert room.given("1") == ["late:r1-t1:B:1"] and room.given("2") == ["late:r1-t2:B:1"]
    room.at(T0 + 7 * MIN)
    out = room.hub.call(room.hub.hub.round_control.delay, "1", 10, "td")
    assert out["start_wall"] == T0 + 10 * MIN and out["tables"] == ["1", "2"]
    for sim in room.sims.values():
        sim.wait_for(lambda s: s.start_wall == T0 + 10 * MIN)
    marks: dict[int, dict[str, list[str]]] = {}
    for minute in (10, 15, 20, 24, 25, 30):
        room.at(T0 + minute * MIN)
        marks[minute] = {t: room.given(t) for t in room.sims}
        no_past_times(room)
    print("\nround 1 delayed to T0+10 at 7 min; points given at each mark:", marks)
    # the point given at 5 minutes stands as the first (same id); the next ones count from the
    # new start: the second at 20, the third (or the 5-point match's forfeit) at 25
    assert marks[15]["2"] == ["late:r1-t2:B:1"]
    assert marks[20]["2"] == ["late:r1-t2:B:1", "late:r1-t2:B:2"]
    assert marks[24]["2"] == ["late:r1-t2:B:1", "late:r1-t2:B:2"]
    assert marks[25]["2"] == ["late:r1-t2:B:1", "late:r1-t2:B:2", "late:r1-t2:B:forfeit"]
    assert marks[30]["1"] == ["late:r1-t1:B:1", "late:r1-t1:B:2", "late:r1-t1:B:3", "late:r1-t1:B:forfeit"]
