"""One player across round files with and without ids: real Mosquitto, a real hub on a fake clock,
two simulated tables, the rounds built as ``tests/e2e/room60.py`` builds them (round 1 with the
federation's ids, round 2 without).

Zoi plays round 1 at table 43 and is on a break there when round 2 starts at table 42, where
Ola is waiting for her. She is one player (the registry resolves round 2's name to round 1's id):
no late point at table 42 while she plays at 43, the late alert says where she is, and someone
checking in as her at table 42 is "at two matches at once". When a round file misspells her, she
is another player until a file with her id says otherwise: the point the hub gave meanwhile is
named in an alert with its waive, and stays on the score until the TD waives it.
"""

from __future__ import annotations

from typing import Any

import pytest

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.live.round_control import PlayersToIdentify
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub, tick

ZOI = "Ζωή Παπαδοπούλου"


def round_one() -> str:
    return schedule_csv(
        [
            {"round": 1, "table": 42, "player_a": "Ola Hansen", "player_b": "Kari Nordmann", "length": 3,
             "start": T0, "player_a_id": "P083", "player_b_id": "P084"},
            {"round": 1, "table": 43, "player_a": "Anna Berg", "player_b": ZOI, "length": 9,
             "start": T0, "player_a_id": "P085", "player_b_id": "P086"},
        ]
    )  # fmt: skip


def round_two(zoi: str = "Zoi Papadopoulou", ids: bool = False) -> str:
    rows: list[dict[str, Any]] = [
        {"round": 2, "table": 42, "player_a": "Ola Hansen", "player_b": zoi, "length": 7,
         "start": T0 + 60 * MIN},
        {"round": 2, "table": 43, "player_a": "Kari Nordmann", "player_b": "Anna Berg", "length": 7,
         "start": T0 + 60 * MIN},
    ]  # fmt: skip
    if ids:
        rows[0].update(player_a_id="P083", player_b_id="P086")
        rows[1].update(player_a_id="P084", player_b_id="P085")
    return schedule_csv(rows)


def game(sim: SimTable, winner: str, kind: str = "single") -> None:
    sim.opening_roll(6, 2) if winner == "A" else sim.opening_roll(2, 6)
    sim.win(winner, kind)


def synced(hub: Any, sim: SimTable) -> None:
    hub.wait_for(
        lambda h: (
            hub_state(h, sim.table).get("seq") == sim.state.seq
            and hub_state(h, sim.table).get("match_id") == sim.state.match_id
        )
    )


def alerts(hub: Any, kind: str) -> list[dict[str, Any]]:
    return [a for a in hub.call(hub.hub.alert_list) if a["kind"] == kind]


def commands(hub: Any, table: str) -> list[str]:
    return sorted(c["id"] for c in hub.call(hub.hub.store.commands, table))


class Room:
    """Round 1 imported with ids, round 2 without (``second``). Table 42's round 1 ends at once;
    at table 43 Zoi (B) takes her break at T0 + 57, mid-match; Ola checks in at table 42 at
    T0 + 60, round 2's start."""

    def __init__(self, tmp_path: Any, mosquitto: Any, name: str, second: str) -> None:
        self.clock = clock = FakeClock(T0 - MIN)
        ev = event_id(name)
        self.hub = hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=round_one())
        hub.call(hub.hub.round_control.import_schedule, second, "td")
        self.t42 = t42 = SimTable(ev, "42", mosquitto.host, mosquitto.port, clock=clock).start()
        self.t43 = t43 = SimTable(ev, "43", mosquitto.host, mosquitto.port, clock=clock).start()
        t42.wait_for(lambda s: s.match_id == "r1-t42")
        t43.wait_for(lambda s: s.match_id == "r1-t43")
        for sim in (t42, t43):
            sim.checkin("A")
            sim.checkin("B")
        clock.set(T0 + 20 * MIN)
        game(t42, "A", "backgammon")  # Ola wins 3-0
        t42.confirm("A")
        t42.confirm("B")
        synced(hub, t42)
        tick(hub)
        t42.wait_for(lambda s: s.match_id == "r2-t42")
        clock.set(T0 + 50 * MIN)
        game(t43, "A")
        game(t43, "B", "gammon")  # Anna 1 - 2 Zoi
        clock.set(T0 + 57 * MIN)
        t43.take_break("B")
        clock.set(T0 + 60 * MIN)
        t42.checkin("A")
        synced(hub, t42)
        synced(hub, t43)
        tick(hub)

    def stop(self) -> None:
        self.t42.stop()
        self.t43.stop()
        self.hub.stop()


def test_a_player_on_a_break_in_round_one_is_not_late_in_round_two(tmp_path, mosquitto):
    room = Room(tmp_path, mosquitto, "registry", round_two())
    hub, clock, t42 = room.hub, room.clock, room.t42
    try:
        assert hub_state(hub.hub, "43")["phase"] == "break"
        players = hub.call(hub.hub.player_list)
        (zoi,) = [p for p in players if p["fed_id"] == "P086"]
        assert {m["match_id"] for m in zoi["matches"]} == {"r1-t43", "r2-t42"}
        assert len(players) == 4
        for minute in (65, 66, 71):
            clock.set(T0 + minute * MIN)
            tick(hub)
        assert commands(hub, "42") == []  # before the registry: late:r2-t42:B:1 at T0 + 65
        assert snapshot(t42.state)["penalties"] == {"A": 0, "B": 0}
        (late,) = alerts(hub, "late")
        assert late["table"] == "42" and late["urgency"] == "low"
        assert "still playing r1-t43 (table 43, 1–2): not late" in late["message"]
        assert hub.call(hub.hub.tile, "42")["lateness"]["B"]["elsewhere"]["match_id"] == "r1-t43"
        assert alerts(hub, "double_booked") == []

        # someone checks in as Zoi at table 42 while she is on her break at table 43
        t42.checkin("B")
        synced(hub, t42)
        tick(hub)
        (double,) = alerts(hub, "double_booked")
        assert double["urgency"] == "high" and "is at two matches at once" in double["message"]
        assert {m["table"] for m in double["data"]["matches"]} == {"42", "43"}
        assert hub_state(hub.hub, "43")["phase"] == "break"
    finally:
        room.stop()


def test_a_point_given_to_a_player_found_elsewhere_is_offered_for_waiving(tmp_path, mosquitto):
    # round 2's file misspells her and gives no id: for the hub she is somebody else
    room = Room(tmp_path, mosquitto, "waive", round_two("Zoi Papadopulou"))
    hub, clock, t42 = room.hub, room.clock, room.t42
    try:
        clock.set(T0 + 65 * MIN)
        tick(hub)
        t42.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
        assert commands(hub, "42") == ["late:r2-t42:B:1"]
        hub.wait_for(lambda h: h.store.command("late:r2-t42:B:1")["done_ok"] is True)
        synced(hub, t42)
        tick(hub)
        assert alerts(hub, "late_elsewhere") == []  # nothing says yet that she was elsewhere

        # the pairing program's file with the ids: P086 is her, spelled so; the TD must say so
        with_ids = round_two("Zoi Papadopulou", ids=True)
        preview = hub.call(hub.hub.round_control.preview, with_ids)
        (conflict,) = preview["conflicts"]
        assert conflict["id"] == "r2-t42:B" and conflict["kind"] == "id_two_names"
        assert (
            "id P086 is Ζωή Παπαδοπούλου in the registry but Zoi Papadopulou in this file"
            in conflict["message"]
        )
        her = conflict["candidates"][0]["key"]
        with pytest.raises(PlayersToIdentify):
            hub.call(hub.hub.round_control.import_schedule, with_ids, "td")
        hub.call(hub.hub.round_control.import_schedule, with_ids, "td", {"r2-t42:B": her})
        tick(hub)

        (alert,) = alerts(hub, "late_elsewhere")
        assert alert["table"] == "42" and alert["urgency"] == "high"
        assert alert["message"].startswith("Table 42: late:r2-t42:B:1 (1 point for lateness against")
        assert "the player was at r1-t43 (table 43, round 1) then, not late: waive it" in alert["message"]
        assert alert["data"]["last_penalty_id"] == "late:r2-t42:B:1"
        assert alert["data"]["elsewhere"] == {"match_id": "r1-t43", "table": "43", "round": "1"}
        # never waived by the hub itself; no further point while she plays at 43
        clock.set(T0 + 72 * MIN)
        tick(hub)
        assert commands(hub, "42") == ["late:r2-t42:B:1"]
        assert snapshot(t42.state)["penalties"]["B"] == 1
        assert len(alerts(hub, "late_elsewhere")) == 1

        # the TD's one click: the waive the alert names
        hub.call(hub.hub.actions.td_command, "42", "waive", {"penalty_id": "late:r2-t42:B:1"}, "td")
        t42.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 0)
        synced(hub, t42)
        tick(hub)
        assert alerts(hub, "late_elsewhere") == []
    finally:
        room.stop()
