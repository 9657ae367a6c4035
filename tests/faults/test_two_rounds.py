"""A two-round room where a round-1 match overruns: its player is not late for round 2.

Real Mosquitto, a real hub on a fake clock, two simulated tables. Pierre Martin plays round 1 at
table 3; his round-2 match at table 2 starts at T0 + 60 while he is still playing. The hub knows
where he is: no point and no forfeit while his match is live; the tile and the alert say "still
playing r1-t3 (table 3, 4–2)"; the slow alert at table 3 speaks of round 2; and his lateness
counts from the end of his round-1 match plus the configured grace.
"""

from __future__ import annotations

from typing import Any

from demo.simtable import SimTable
from hub.live.automation import existing_late_points
from hub.live.clock import FakeClock
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub, tick

GRACE = 2 * MIN


def row(rnd: Any, table: int, a: str, b: str, length: int, start: int) -> dict[str, Any]:
    return {"round": rnd, "table": table, "player_a": a, "player_b": b, "length": length, "start": start}


def room_schedule(extra: list[dict[str, Any]] | None = None) -> str:
    rows = [
        row(1, 3, "Pierre Martin", "Kari Nordmann", 7, T0),
        row(1, 2, "Anna Nagy", "Ola Hansen", 3, T0),
        # the pairing program spells him differently in round 2: still the same player
        row(2, 2, "Anna Nagy", "pierre  MARTIN", 7, T0 + 60 * MIN),
        row(2, 3, "Kari Nordmann", "Ola Hansen", 7, T0 + 60 * MIN),
        *(extra or []),
    ]
    return schedule_csv(rows)


def game(sim: SimTable, winner: str, kind: str = "single") -> None:
    first, second = (6, 2) if winner == "A" else (2, 6)
    sim.opening_roll(first, second)
    sim.win(winner, kind)


def synced(hub: Any, sim: SimTable) -> None:
    hub.wait_for(
        lambda h: (
            hub_state(h, sim.table).get("seq") == sim.state.seq
            and hub_state(h, sim.table).get("match_id") == sim.state.match_id
        )
    )


def alerts(hub: Any) -> list[dict[str, Any]]:
    return hub.call(hub.hub.alert_list)


def cmds(hub: Any, table: str) -> list[str]:
    return sorted(c["id"] for c in hub.call(hub.hub.store.commands, table))


class Room:
    """Round 1 played at table 2 and confirmed; at table 3 Pierre leads 4–2, mid-match, when
    round 2 starts (T0 + 60) and Anna checks in at table 2."""

    def __init__(self, tmp_path: Any, mosquitto: Any, name: str) -> None:
        self.clock = FakeClock(T0 - MIN)
        ev = event_id(name)
        host, port = mosquitto.host, mosquitto.port
        self.hub = start_hub(
            tmp_path, host, port, ev, self.clock, schedule=room_schedule(), next_match_grace_ms=GRACE
        )
        self.t2 = SimTable(ev, "2", host, port, clock=self.clock).start()
        self.t3 = SimTable(ev, "3", host, port, clock=self.clock).start()
        t2, t3, clock, hub = self.t2, self.t3, self.clock, self.hub
        t2.wait_for(lambda s: s.match_id == "r1-t2")
        t3.wait_for(lambda s: s.match_id == "r1-t3")
        for sim in (t2, t3):
            sim.checkin("A")
            sim.checkin("B")
        clock.set(T0 + 20 * MIN)
        game(t2, "A", "gammon")
        game(t2, "A")  # Anna wins 3-0
        t2.confirm("A")
        t2.confirm("B")
        synced(hub, t2)
        tick(hub)
        t2.wait_for(lambda s: s.match_id == "r2-t2")
        game(t3, "A", "gammon")
        game(t3, "B", "gammon")
        game(t3, "A", "gammon")  # Pierre 4 - 2 Kari
        t3.opening_roll(5, 3)
        clock.set(T0 + 60 * MIN)
        t2.checkin("A")
        synced(hub, t2)
        synced(hub, t3)
        tick(hub)

    def stop(self) -> None:
        self.t2.stop()
        self.t3.stop()
        self.hub.stop()


def test_a_player_still_playing_round_one_is_not_late_for_round_two(tmp_path, mosquitto):
    room = Room(tmp_path, mosquitto, "overrun")
    hub, clock, t2, t3 = room.hub, room.clock, room.t2, room.t3
    try:
        # the round's absentees: one line, saying where he is
        (absent,) = [a for a in alerts(hub) if a["kind"] == "absent"]
        assert absent["message"] == "Round 2: 1 player not checked in (1 still playing an earlier match)"
        (who,) = absent["data"]["players"]
        assert who["table"] == "2" and who["side"] == "B"
        assert who["elsewhere"]["text"] == "still playing r1-t3 (table 3, 4–2)"
        tile = hub.call(hub.hub.tile, "2")
        assert tile["status"] == "waiting"
        assert tile["lateness"]["B"]["elsewhere"]["text"] == "still playing r1-t3 (table 3, 4–2)"
        assert tile["lateness"]["B"]["counts_from"] is None and tile["lateness"]["A"] is None

        clock.set(T0 + 64 * MIN)
        tick(hub)
        (late,) = [a for a in alerts(hub) if a["kind"] == "late"]
        assert late["table"] == "2" and late["urgency"] == "low"
        assert "(B) still playing r1-t3 (table 3, 4–2): not late" in late["message"]
        (slow,) = [a for a in alerts(hub) if a["kind"] == "slow"]
        assert slow["table"] == "3" and "4 min after round 2 started" in slow["message"]
        assert "is due at table 2 (r2-t2)" in slow["message"]
        assert {"table": "2", "match_id": "r2-t2", "name": "Pierre Martin"} in slow["data"]["holds_up"]

        for minute in (66, 70, 80, 84):
            clock.set(T0 + minute * MIN)
            tick(hub)
        assert cmds(hub, "2") == []  # no point, no forfeit, while he plays
        assert snapshot(t2.state)["penalties"] == {"A": 0, "B": 0}

        # his round-1 match ends at T0 + 85: lateness counts from T0 + 87 (the grace)
        clock.set(T0 + 85 * MIN)
        t3.win("A", "gammon")  # 6 - 2, Crawford
        game(t3, "A")  # 7 - 2
        hub.wait_for(lambda h: "r1-t3" in h.results)
        assert hub.call(lambda: hub.hub.results["r1-t3"]["finished_wall"]) == T0 + 85 * MIN
        tick(hub)
        assert [a for a in alerts(hub) if a["kind"] == "slow"] == []
        tile = hub.call(hub.hub.tile, "2")
        assert tile["lateness"]["B"]["counts_from"] == T0 + 87 * MIN
        assert tile["lateness"]["B"]["counts_from_reason"] == "previous_match"
        assert tile["lateness"]["B"]["first_point_wall"] == T0 + 92 * MIN
        assert tile["status"] == "waiting"  # until T0 + 87

        clock.set(T0 + 91 * MIN)
        tick(hub)
        assert cmds(hub, "2") == []
        (late,) = [a for a in alerts(hub) if a["kind"] == "late"]
        assert late["urgency"] == "medium" and "counted from" in late["message"]
        assert "the end of r1-t3" in late["message"] and "first point at" in late["message"]
        assert hub.call(hub.hub.tile, "2")["status"] == "late"

        clock.set(T0 + 92 * MIN)
        tick(hub)
        t2.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
        assert cmds(hub, "2") == ["late:r2-t2:B:1"]
        hub.wait_for(lambda h: h.store.command("late:r2-t2:B:1")["done_ok"] is True)
        tick(hub)
        (late,) = [a for a in alerts(hub) if a["kind"] == "late"]
        assert late["urgency"] == "high"
        assert "1 point given automatically at" in late["message"] and "next point at" in late["message"]
        assert late["data"]["last_penalty_id"] == "late:r2-t2:B:1"
        assert late["data"]["next_due_wall"] == T0 + 97 * MIN
        # what the TD's "Give penalty … late" must confirm against
        (given,) = hub.call(existing_late_points, hub.hub.room_state, hub.hub.store, "2", "B")
        assert given["id"] == "late:r2-t2:B:1" and given["applied"] and not given["waived"]
    finally:
        room.stop()


def test_the_same_player_at_two_live_matches_is_an_alert(tmp_path, mosquitto):
    room = Room(tmp_path, mosquitto, "twice")
    hub, clock, t2 = room.hub, room.clock, room.t2
    try:
        assert not [a for a in alerts(hub) if a["kind"] == "double_booked"]
        clock.set(T0 + 62 * MIN)
        t2.checkin("B")  # someone checks in as Pierre at table 2 while he plays at table 3
        synced(hub, t2)
        tick(hub)
        (double,) = [a for a in alerts(hub) if a["kind"] == "double_booked"]
        assert double["urgency"] == "high" and "is at two matches at once" in double["message"]
        assert {m["table"] for m in double["data"]["matches"]} == {"2", "3"}
        assert double in hub.call(hub.hub.room)["alerts"]
    finally:
        room.stop()


def test_a_player_scheduled_at_two_matches_at_once_is_an_alert_at_import(tmp_path, mosquitto):
    clock = FakeClock(T0 - 30 * MIN)
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, event_id("import2"), clock)
    try:
        side_event = row("side", 9, "Anna  Nagy", "Eva Holm", 5, T0 + 60 * MIN)
        hub.call(hub.hub.round_control.import_schedule, room_schedule([side_event]), "td")
        (double,) = [a for a in hub.call(hub.hub.room)["alerts"] if a["kind"] == "double_booked"]
        assert double["urgency"] == "medium"
        assert double["message"].startswith("Anna Nagy is scheduled at two matches at once")
        assert {m["match_id"] for m in double["data"]["matches"]} == {"r2-t2", "rside-t9"}
    finally:
        hub.stop()
