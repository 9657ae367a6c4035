"""Room-wide actions with real MQTT tables: delay a round or start it now (lateness counts from the
new start), pause and resume every clock, suspend the room's automation, verify every result the
players confirmed, move a match to another table carrying its state, and a schedule import that
moves a match instead of doubling it. The timeline shows what the hub and the TD did."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from demo.simtable import SimTable
from hub.live.actions import ActionError
from hub.live.clock import FakeClock
from hub.logic.timeline import Filters
from hub.service import HubThread
from hub.tournament.schedule import ScheduleError
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, sim_table, start_hub, tick

PAIRS = [("1", "Anna Berg", "Jon Dahl"), ("2", "Mia Lund", "Ola Nes"), ("3", "Kari Holm", "Per Aas")]


def rows(start: int = T0, tables: list[tuple[str, str, str]] = PAIRS, rnd: int = 1) -> list[dict]:
    return [
        {"round": rnd, "table": t, "player_a": a, "player_b": b, "length": 7, "start": start, "clock": "yes"}
        for t, a, b in tables
    ]


class Room:
    def __init__(self, tmp: Path, mosquitto, start: int = T0, extra_tables: tuple[str, ...] = ()) -> None:
        self.clock = FakeClock(T0 - MIN)
        self.event = event_id("rounds")
        self.hub: HubThread = start_hub(
            tmp, mosquitto.host, mosquitto.port, self.event, self.clock, schedule=schedule_csv(rows(start))
        )
        self.stack = ExitStack()
        self.sims: dict[str, SimTable] = {}
        for t in [t for t, *_ in PAIRS] + list(extra_tables):
            self.sims[t] = self.stack.enter_context(
                sim_table(self.event, t, mosquitto.host, mosquitto.port, self.clock)
            )
        for t, *_ in PAIRS:
            self.sims[t].wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")

    def synced(self) -> None:
        """The hub holds every table's latest state."""
        self.hub.wait_for(
            lambda h: all(hub_state(h, t).get("seq") == sim.state.seq for t, sim in self.sims.items())
        )

    def at(self, wall: int) -> None:
        self.synced()
        self.clock.set(wall)
        tick(self.hub)

    @property
    def rc(self):
        return self.hub.hub.round_control

    def close(self) -> None:
        self.stack.close()
        self.hub.stop()


@pytest.fixture
def room(tmp_path, mosquitto) -> Iterator[Room]:
    r = Room(tmp_path, mosquitto)
    yield r
    r.close()


def penalties(sim: SimTable) -> dict[str, int]:
    return snapshot(sim.state)["penalties"]


def test_a_delayed_round_counts_lateness_from_its_new_start(room):
    room.sims["2"].checkin("A")
    room.sims["2"].checkin("B")
    room.sims["3"].checkin("A")  # Per Aas is not here yet
    room.at(T0 + 3 * MIN)
    out = room.hub.call(room.rc.delay, "1", 10, "td")
    assert out["start_wall"] == T0 + 10 * MIN and out["tables"] == ["1", "3"]  # table 2 is complete
    for t in ("1", "3"):
        room.sims[t].wait_for(lambda s: s.start_wall == T0 + 10 * MIN)
    assert room.sims["3"].state.present.a  # who had arrived stays checked in
    assert room.hub.call(lambda: room.hub.hub.room_state.by_id["r1-t1"].start_wall) == T0 + 10 * MIN
    room.at(T0 + 9 * MIN)  # nine minutes after the old start: no point
    assert penalties(room.sims["1"]) == {"A": 0, "B": 0} and penalties(room.sims["3"]) == {"A": 0, "B": 0}
    room.at(T0 + 15 * MIN + 1000)  # five minutes after the new start: the first point
    room.sims["3"].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
    room.synced()
    # table 1: both players absent, so no point for either (docs/rules.md), one alert for the TD
    assert penalties(room.sims["1"]) == {"A": 0, "B": 0}
    assert [c["id"] for c in room.hub.call(room.hub.hub.store.commands, "1")] == []
    alerts = room.hub.call(room.hub.hub.alert_list)
    assert [a["kind"] for a in alerts if a["table"] == "1"] == ["both_absent"]
    room.hub.wait_for(lambda h: (h.store.command("late:r1-t3:B:1") or {}).get("done_ok"))
    # the timeline has the TD's delay and the hub's points, newest first, naming the players
    items = room.hub.call(room.hub.hub.display.timeline, Filters())
    delay = next(i for i in items if i["action"] == "round_delay")
    assert delay["text"] == "Round 1 delayed by 10 min (2 matches)" and delay["actor"] == "td"
    auto = [i for i in items if i["automatic"]]
    assert {i["text"] for i in auto} >= {"1 point against Per Aas (lateness) to Kari Holm"}
    per = room.hub.call(room.hub.hub.display.timeline, Filters(person="per aas"))
    assert per and all(i["table"] == "3" for i in per)
    assert per[0]["undo"] == {"type": "waive", "penalty_id": "late:r1-t3:B:1", "label": "Waive"}
    with pytest.raises(ActionError):
        room.hub.call(room.rc.delay, "1", 0, "td")


def test_starting_a_round_now_moves_its_start_to_this_moment(tmp_path, mosquitto):
    room = Room(tmp_path, mosquitto, start=T0 + 30 * MIN)
    try:
        room.at(T0 + 10 * MIN)
        out = room.hub.call(room.rc.start_now, "1", "td")
        assert out["start_wall"] == T0 + 10 * MIN and out["tables"] == ["1", "2", "3"]
        room.sims["1"].wait_for(lambda s: s.start_wall == T0 + 10 * MIN)
        room.sims["1"].checkin("A")
        room.at(T0 + 15 * MIN - 1000)
        assert penalties(room.sims["1"]) == {"A": 0, "B": 0}
        room.at(T0 + 15 * MIN + 1000)
        room.sims["1"].wait_for(lambda s: snapshot(s)["penalties"] == {"A": 0, "B": 1})
    finally:
        room.close()


def _playing(sim: SimTable) -> None:
    sim.checkin("A")
    sim.checkin("B")
    sim.opening_roll(6, 2)
    sim.press("B")


def test_pause_and_resume_every_clock_and_suspend_the_room(room):
    for t in ("1", "2"):
        _playing(room.sims[t])
    room.sims["3"].checkin("A")
    room.at(T0 + MIN)
    out = room.hub.call(room.rc.pause_all, "td")
    assert out["tables"] == ["1", "2"]  # table 3 is waiting for its players: no clock to pause
    for t in ("1", "2"):
        room.sims[t].wait_for(lambda s: s.phase == "paused" and s.paused == "td")
    room.synced()
    assert room.hub.call(room.rc.resume_all, "td")["tables"] == ["1", "2"]
    for t in ("1", "2"):
        room.sims[t].wait_for(lambda s: s.phase == "playing")

    room.hub.call(room.rc.set_room_automation, True, "td")
    assert room.hub.call(room.hub.hub.display.automation_state) == "suspended"
    room.at(T0 + 11 * MIN)  # table 3's B is 11 minutes late, but the room is suspended
    assert penalties(room.sims["3"]) == {"A": 0, "B": 0}
    room.hub.call(room.rc.set_room_automation, False, "td")
    room.at(T0 + 11 * MIN + 1000)
    room.sims["3"].wait_for(lambda s: snapshot(s)["penalties"] == {"A": 0, "B": 2})


def test_verify_every_result_both_players_confirmed(room):
    for t in ("1", "2"):
        sim = room.sims[t]
        sim.checkin("A")
        sim.checkin("B")
        sim.opening_roll(6, 2)
        sim.win("A", "backgammon")
        sim.opening_roll(6, 2)
        sim.win("A", "backgammon")
        sim.opening_roll(6, 2)
        sim.win("A", "single")
    room.sims["1"].confirm("A")
    room.sims["1"].confirm("B")
    room.sims["2"].confirm("A")  # only one of them
    room.synced()
    room.hub.wait_for(lambda h: {"r1-t1", "r1-t2"} <= set(h.results))
    out = room.hub.call(room.rc.verify_confirmed, "1", "td")
    assert out == {"round": "1", "count": 1, "verified": ["r1-t1"]}
    results = room.hub.hub.results
    assert results["r1-t1"]["verified"] and not results["r1-t2"]["verified"]


def tiles(room: Room) -> dict[str, dict]:
    return {t["table"]: t for t in room.hub.call(lambda: room.hub.hub.room()["tables"])}


def test_a_match_moved_to_another_table_takes_its_score_and_clocks(tmp_path, mosquitto):
    room = Room(tmp_path, mosquitto, extra_tables=("9",))
    try:
        sim1, sim9 = room.sims["1"], room.sims["9"]
        _playing(sim1)
        sim1.win("A", "gammon")
        room.at(T0 + 2 * MIN)
        before = snapshot(sim1.state)
        assert before["score"] == {"A": 2, "B": 0}
        with pytest.raises(ActionError, match="has r1-t2"):
            room.hub.call(room.rc.move, "r1-t1", "2", "td")
        out = room.hub.call(room.rc.move, "r1-t1", "9", "td")
        assert out["from"] == "1" and out["to"] == "9" and out["carried"]["score"] == {"A": 2, "B": 0}
        sim9.wait_for(lambda s: s.match_id == "r1-t1")
        room.at(T0 + 2 * MIN + 1000)  # the next tick carries the score and the clocks
        sim9.wait_for(lambda s: snapshot(s)["score"] == {"A": 2, "B": 0})
        sim9.wait_for(lambda s: snapshot(s)["clock"]["reserve_ms"] == before["clock"]["reserve_ms"])
        assert snapshot(sim9.state)["start_wall"] == T0 + 2 * MIN  # lateness counts from the move
        room.synced()
        shown = tiles(room)
        assert shown["9"]["match_id"] == "r1-t1" and shown["9"]["score"] == {"A": 2, "B": 0}
        assert shown["1"]["match_id"] is None and shown["1"]["status"] == "idle"  # no ghost
        assert [t for t, x in shown.items() if x["match_id"] == "r1-t1"] == ["9"]
        assert room.hub.call(room.rc.carries) == {}
        # players check in at the new table; nothing is given for the walk over
        room.at(T0 + 6 * MIN)
        assert snapshot(sim9.state)["penalties"] == {"A": 0, "B": 0}
    finally:
        room.close()


def test_reimporting_a_round_to_move_a_match_moves_it_rather_than_doubling_it(room):
    _playing(room.sims["2"])
    room.at(T0 + MIN)
    moved = rows(tables=[PAIRS[0], ("6", "Mia Lund", "Ola Nes"), PAIRS[2]])  # default id: r1-t6
    csv = schedule_csv(moved)
    pv = room.hub.call(room.rc.preview, csv)
    assert [m["match_id"] for m in pv["moved"]] == ["r1-t2"] and pv["moved"][0]["from_table"] == "2"
    assert pv["added"] == [] and pv["removed"] == [] and pv["unchanged"] == 2 and pv["errors"] == []
    assert pv["warnings"] == [
        "r1-t2 (Mia Lund – Ola Nes) is being played at table 2 (0–0): it moves to table 6 with its score "
        "and clocks, and the players check in there"
    ]
    out = room.hub.call(room.hub.hub.round_control.import_schedule, csv, "td")
    assert out["moved"] == 1 and out["added"] == 0
    schedule = room.hub.call(lambda: {m.match_id: m.table for m in room.hub.hub.schedule})
    assert schedule == {"r1-t1": "1", "r1-t2": "6", "r1-t3": "3"}
    # a player booked twice in a round is refused, nothing imported
    twice = schedule_csv([{**rows()[0], "table": "7", "player_b": "Ola Nes"}])
    with pytest.raises(ActionError, match="Anna Berg would play two matches in round 1"):
        room.hub.call(room.hub.hub.round_control.import_schedule, twice, "td")
    with pytest.raises(ScheduleError):
        room.hub.call(room.rc.preview, "round,table\n1,2\n")
