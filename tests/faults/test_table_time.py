"""The hub owns time: a table's wrong wall clock never gives or withholds a penalty.

Real Mosquitto, a real hub (on a fake clock the test moves) and simulated tables whose wall clock
is off — 12 minutes or a day behind (a Pi without a real-time clock before NTP answers), 12
minutes ahead, or stepped in the middle of a break — while their monotonic clock, which measures
every duration the hub uses, is right. Also: a schedule imported half an hour late with both
players absent, and a table whose state claims a huge length and a start in 1970.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.tournament.schedule import parse_schedule
from rulebook.schema import MAX_LENGTH
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import (
    MIN,
    T0,
    event_id,
    hub_state,
    one_match,
    present,
    publish,
    schedule_csv,
    start_hub,
    tick,
)

DAY = 24 * 60 * MIN


class TableClock:
    """A table's clocks: the room's monotonic time, and a wall clock ``offset`` ms off that can
    be stepped (as NTP steps a clock that was far off)."""

    def __init__(self, room: FakeClock, offset: int) -> None:
        self.room = room
        self.offset = offset
        self._lock = threading.Lock()

    def now_wall(self) -> int:
        with self._lock:
            return self.room.now_wall() + self.offset

    def monotonic_ms(self) -> int:
        return self.room.monotonic_ms()

    def step(self, ms: int) -> None:
        with self._lock:
            self.offset += ms


def commands(hub: Any, table: str) -> list[str]:
    return sorted(c["id"] for c in hub.call(hub.hub.store.commands, table))


def alerts(hub: Any, kind: str) -> list[dict[str, Any]]:
    return [a for a in hub.call(hub.hub.alert_list) if a["kind"] == kind]


def synced(hub: Any, sim: SimTable) -> None:
    """Wait until the hub holds the table's latest state (before the test moves time on)."""
    hub.wait_for(
        lambda h: (
            hub_state(h, sim.table).get("seq") == sim.state.seq
            and hub_state(h, sim.table).get("match_id") == sim.state.match_id
            and h.views[sim.table].state_fresh
        )
    )


def on_a_break(sim: SimTable, clock: FakeClock, hub: Any) -> None:
    """Both in, a game played, and B on a five-minute break from T0 + 10 (hub time)."""
    sim.wait_for(lambda s: s.match_id == "r1-t1")
    sim.checkin("A")
    sim.checkin("B")
    sim.opening_roll(6, 1)
    sim.win("A")
    clock.set(T0 + 10 * MIN)
    sim.take_break("B")
    synced(hub, sim)


@pytest.mark.parametrize("offset", [-12 * MIN, -DAY], ids=["12-min-behind", "a-day-behind"])
def test_a_table_clock_behind_gets_no_penalty_in_a_legal_break(tmp_path, mosquitto, offset):
    clock = FakeClock(T0 - MIN)
    ev = event_id("behind")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7))
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=TableClock(clock, offset)).start()
    try:
        on_a_break(sim, clock, hub)
        for minute in (10, 11, 13, 14):
            clock.set(T0 + minute * MIN + 59_000)
            tick(hub)
        assert commands(hub, "1") == []
        assert alerts(hub, "break_overrun") == []
        (skew,) = alerts(hub, "clock_skew")
        assert skew["table"] == "1" and "behind the hub" in skew["message"]
        assert abs(skew["data"]["offset_ms"] - offset) <= 1_000
        assert abs(hub.call(hub.hub.tile, "1")["clock_offset_ms"] - offset) <= 1_000
        # back in time: nothing, ever
        sim.back("B")
        synced(hub, sim)
        clock.set(T0 + 40 * MIN)
        tick(hub)
        assert commands(hub, "1") == []
        assert snapshot(sim.state)["penalties"] == {"A": 0, "B": 0}
    finally:
        sim.stop()
        hub.stop()


def test_a_table_clock_ahead_overrunning_is_penalised_by_the_true_duration(tmp_path, mosquitto):
    clock = FakeClock(T0 - MIN)
    ev = event_id("ahead")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7))
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=TableClock(clock, 12 * MIN)).start()
    try:
        on_a_break(sim, clock, hub)
        clock.set(T0 + 19 * MIN + 59_000)  # 4:59 over
        tick(hub)
        assert commands(hub, "1") == []
        clock.set(T0 + 20 * MIN)  # 5:00 over: the first point, by the table's own stopwatch
        tick(hub)
        done = sim.wait_cmd("break:r1-t1:B:1:1")
        # applied although the table's clock reads 12 minutes past the hub's expiry time
        assert done["ok"] is True
        clock.set(T0 + 25 * MIN)
        tick(hub)
        sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
        assert commands(hub, "1") == ["break:r1-t1:B:1:1", "break:r1-t1:B:1:2"]
        (skew,) = alerts(hub, "clock_skew")
        assert "ahead of the hub" in skew["message"]
    finally:
        sim.stop()
        hub.stop()


@pytest.mark.parametrize("step", [-60 * MIN, 60 * MIN], ids=["step-back-an-hour", "step-on-an-hour"])
def test_a_time_step_during_a_break_changes_nothing(tmp_path, mosquitto, step):
    clock = FakeClock(T0 - MIN)
    ev = event_id("step")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7))
    table_clock = TableClock(clock, 0)
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=table_clock).start()
    try:
        on_a_break(sim, clock, hub)
        clock.set(T0 + 12 * MIN)
        table_clock.step(step)  # NTP steps the table's clock; the kiosk's next tick carries it
        sim.tick()
        # the table now says its break ends an hour earlier (or later) by its wall clock
        hub.wait_for(lambda h: hub_state(h, "1")["breaks"]["B"]["until_wall"] == T0 + 15 * MIN + step)
        clock.set(T0 + 19 * MIN)
        tick(hub)
        assert commands(hub, "1") == []
        clock.set(T0 + 20 * MIN)
        tick(hub)
        sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
        assert commands(hub, "1") == ["break:r1-t1:B:1:1"]
    finally:
        sim.stop()
        hub.stop()


def test_a_schedule_imported_half_an_hour_late_with_both_players_absent(tmp_path, mosquitto):
    clock = FakeClock(T0 + 30 * MIN)
    ev = event_id("lateimport")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=clock).start()
    try:
        hub.call(hub.hub.round_control.import_schedule, one_match("1", 7), "td")
        sim.wait_for(lambda s: s.match_id == "r1-t1")
        synced(hub, sim)
        for minute in (31, 36, 45, 60, 90, 120):
            clock.set(T0 + minute * MIN)
            tick(hub)
            assert commands(hub, "1") == [], minute
        table_alerts = [a for a in hub.call(hub.hub.alert_list) if a["table"] == "1"]
        assert [(a["kind"], a["urgency"]) for a in table_alerts] == [("both_absent", "high")]
        assert "no automatic point or forfeit" in table_alerts[0]["message"]
        assert snapshot(sim.state)["penalties"] == {"A": 0, "B": 0} and sim.state.phase == "waiting"
        # A arrives at T0 + 121: B's lateness counts from the import (T0 + 30); the marks both
        # missed give nobody a point; the next mark (T0 + 125) gives B one — one, not a burst
        clock.set(T0 + 121 * MIN)
        sim.checkin("A")
        synced(hub, sim)
        clock.set(T0 + 124 * MIN)
        tick(hub)
        assert commands(hub, "1") == []
        (late,) = [a for a in hub.call(hub.hub.alert_list) if a["table"] == "1"]
        assert late["kind"] == "late" and late["data"]["next_due_wall"] == T0 + 125 * MIN
        assert late["urgency"] == "medium" and "first point at" in late["message"]
        assert "none for the time both players were absent" in late["message"]
        clock.set(T0 + 125 * MIN)
        tick(hub)
        sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
        assert commands(hub, "1") == ["late:r1-t1:B:19"]
    finally:
        sim.stop()
        hub.stop()


def test_a_huge_length_and_an_ancient_start_in_a_tables_state_change_nothing(tmp_path, mosquitto):
    clock = FakeClock(T0 - MIN)
    ev = event_id("huge")
    rows = [
        {"round": 1, "table": t, "player_a": f"Ann{t}", "player_b": f"Bob{t}", "length": 7, "start": T0}
        for t in ("1", "2")
    ]
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=schedule_csv(rows))
    honest = SimTable(ev, "2", mosquitto.host, mosquitto.port, clock=clock).start()
    try:
        honest.wait_for(lambda s: s.match_id == "r1-t2")
        honest.checkin("A")
        hub.wait_for(lambda h: present(h, "2", "A"))
        # table 1's state: its match, A checked in, and a length and a start no schedule has
        assign = next(m for m in parse_schedule(schedule_csv(rows)) if m.table == "1").assign_payload()
        st, events = apply(new_table("1"), {**assign, "input": "assign", "at": 0, "wall": T0 - 20 * MIN})
        assert not any(e.get("rejected") for e in events), events
        st, _ = apply(st, {"input": "checkin", "side": "A", "at": 0})
        good = snapshot(st, 19 * MIN)
        assert good["present"]["A"]

        def send(state: dict[str, Any]) -> None:
            publish(
                mosquitto.host,
                mosquitto.port,
                [
                    (f"bg/v1/{ev}/table/1/status", json.dumps({"online": True}), True),
                    (f"bg/v1/{ev}/table/1/state", json.dumps(state), True),
                ],
            )

        # a length beyond any match is refused at the edge (the room's alert names the field)
        send({**good, "length": 10**15, "start_wall": 1})
        hub.wait_for(lambda h: any(a["kind"] == "invalid_message" for a in h.alert_list()))
        # the longest length a table may claim, and a start in 1970: neither counts
        send({**good, "length": MAX_LENGTH, "start_wall": 1})
        hub.wait_for(lambda h: hub_state(h, "1").get("length") == MAX_LENGTH and h.views["1"].state_fresh)
        clock.set(T0 + 12 * MIN)
        tick(hub)
        # the schedule's 7 points from T0 count, for both tables
        honest.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
        assert commands(hub, "1") == ["late:r1-t1:B:1", "late:r1-t1:B:2"]
        # a day later: at most the forfeit, never millions of points
        clock.set(T0 + DAY)
        tick(hub)
        assert commands(hub, "1") == [
            "late:r1-t1:B:1", "late:r1-t1:B:2", "late:r1-t1:B:3", "late:r1-t1:B:forfeit"
        ]  # fmt: skip
        # the loop keeps serving the others: the honest table's next input arrives and is seen
        honest.wait_for(lambda s: s.phase == "finished")
        honest.confirm("A")
        hub.wait_for(lambda h: hub_state(h, "2").get("confirmed", {}).get("A") is True)
    finally:
        honest.stop()
        hub.stop()
