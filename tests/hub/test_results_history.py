"""Results as they happened: corrections with who, when and why; how a match ended kept beside the
TD's decision; impossible finals refused; verification one round at a time; the table's finish time.

Real Mosquitto, the real hub on a fake clock and simulated tables (the real reducer and link).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from demo.simtable import SimTable
from hub.live.actions import ActionError
from hub.live.clock import FakeClock
from hub.service import HubThread
from hub.tournament.exports import results_csv
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, sim_table, start_hub, tick

SECOND = 1000
ROWS = [
    {"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 3, "start": T0},
    {"round": 1, "table": "2", "player_a": "Cid", "player_b": "Dan", "length": 3, "start": T0},
    {"round": 2, "table": "3", "player_a": "Eva", "player_b": "Fay", "length": 3, "start": T0},
]


class Room:
    def __init__(self, tmp: Path, mosquitto: Any) -> None:
        self.tmp, self.mosquitto = tmp, mosquitto
        self.clock = FakeClock(T0 - MIN)
        self.event = event_id("results")
        self.hub: HubThread = self.start_hub()
        self.stack = ExitStack()
        self.sims: dict[str, SimTable] = {}
        for row in ROWS:
            t = str(row["table"])
            self.sims[t] = self.stack.enter_context(
                sim_table(self.event, t, mosquitto.host, mosquitto.port, self.clock)
            )
            self.sims[t].wait_for(lambda s, r=row: s.match_id == f"r{r['round']}-t{r['table']}")
            self.sims[t].checkin("A")
            self.sims[t].checkin("B")

    def start_hub(self) -> HubThread:
        return start_hub(
            self.tmp,
            self.mosquitto.host,
            self.mosquitto.port,
            self.event,
            self.clock,
            schedule=schedule_csv(ROWS),
        )

    def play_to_3_0(self, t: str) -> None:
        sim = self.sims[t]
        sim.opening_roll(6, 2)
        sim.win("A", "gammon")
        sim.opening_roll(6, 2)
        sim.win("A", "single")

    def result(self, match_id: str) -> dict[str, Any]:
        self.hub.wait_for(lambda h: match_id in h.results)
        return self.hub.call(lambda: dict(self.hub.hub.results[match_id]))

    def synced(self, t: str) -> None:
        sim = self.sims[t]
        self.hub.wait_for(lambda h: hub_state(h, t).get("seq") == sim.state.seq)

    def close(self) -> None:
        self.stack.close()
        self.hub.stop()


@pytest.fixture
def room(tmp_path: Path, mosquitto: Any) -> Iterator[Room]:
    r = Room(tmp_path, mosquitto)
    yield r
    r.close()


def csv_row(room: Room, match_id: str) -> dict[str, str]:
    text = results_csv(room.hub.call(room.hub.hub.store.results))
    return next(r for r in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))) if r["match_id"] == match_id)


def test_a_correction_at_the_table_after_the_match_is_exported_with_who_when_and_why(room: Room) -> None:
    """The defect: corrected at the table's TD menu after the match ended, exported corrected=no."""
    room.play_to_3_0("1")
    room.clock.set(T0 + 30 * MIN)
    sim = room.sims["1"]
    cmd = {"input": "cmd", "id": "local:menu1", "type": "correct_score", "score": {"A": 3, "B": 1}}
    sim.apply({**cmd, "note": "Bob won a game the sheet shows"})
    room.synced("1")
    room.hub.wait_for(lambda h: h.results.get("r1-t1", {}).get("score") == {"A": 3, "B": 1})
    result = room.result("r1-t1")
    assert result["corrected"] and not result["corrected_at_hub"]
    assert (result["winner"], result["end_reason"], result["decision"]) == ("A", "points", "correct_score")
    (corr,) = result["corrections"]
    assert corr == {
        "where": "table",
        "by": "TD at table 1",
        "wall": T0 + 30 * MIN,
        "before": "3-0",
        "after": "3-1",
        "note": "Bob won a game the sheet shows",
    }
    row = csv_row(room, "r1-t1")
    assert (row["corrected"], row["correction_note"], row["corrected_by"]) == (
        "yes",
        "Bob won a game the sheet shows",
        "TD at table 1",
    )
    assert row["corrected_at"] and row["end_reason"] == "points" and row["decision"] == "correct_score"


def test_a_hub_correction_keeps_how_the_match_ended_and_refuses_impossible_finals(room: Room) -> None:
    room.play_to_3_0("1")
    hub = room.hub
    before = room.result("r1-t1")
    assert before["end_reason"] == "points"

    def correct(score: dict[str, int], winner: str | None, note: Any = "score sheet") -> dict[str, Any]:
        return hub.call(hub.hub.actions.correct_result, "r1-t1", score, winner, note, "chief")

    refusals = [
        (({"A": 3, "B": 3}, "A"), "score.both_reached"),  # WBGF 4.7: both at the length
        (({"A": 4, "B": 5}, None), "score.both_reached"),  # never a winner by side order
        (({"A": 2, "B": 1}, "A"), "score.winner_short"),  # 4.5: played to its length
        (({"A": 2, "B": 1}, None), "score.no_winner"),
        (({"A": 3, "B": 1}, "B"), "score.loser_reached"),
    ]
    for (score, winner), code in refusals:
        with pytest.raises(ActionError) as caught:
            correct(score, winner)
        assert caught.value.code == code, (score, winner)
    for note in ("", "  ", None):
        with pytest.raises(ActionError) as caught:
            correct({"A": 3, "B": 1}, "A", note)
        assert caught.value.code == "field.missing"
    assert room.result("r1-t1")["score"] == {"A": 3, "B": 0}  # nothing was applied

    room.clock.set(T0 + 40 * MIN)
    fixed = correct({"A": 3, "B": 2}, None)
    assert (fixed["winner"], fixed["end_reason"], fixed["decision"]) == ("A", "points", "correct_score")
    assert fixed["corrected"] and fixed["corrected_at_hub"] and fixed["verified_by"] == "chief"
    (corr,) = fixed["corrections"]
    assert (corr["where"], corr["by"], corr["wall"], corr["before"], corr["after"], corr["note"]) == (
        "hub",
        "chief",
        T0 + 40 * MIN,
        "3-0",
        "3-2",
        "score sheet",
    )
    row = csv_row(room, "r1-t1")
    assert (row["end_reason"], row["corrected"], row["correction_note"], row["corrected_by"]) == (
        "points",
        "yes",
        "score sheet",
        "chief",
    )


def test_a_forfeit_result_is_corrected_with_its_winner_short_of_the_length(room: Room) -> None:
    """WBGF 2.2 iv / 4.5: a forfeit explains a winner below the length; the loser cannot have it."""
    room.synced("2")  # the table has taken its match: the TD's command is judged on its state
    hub = room.hub
    cmd = hub.call(hub.hub.actions.td_command, "2", "forfeit", {"against": "B", "reason": "conduct"}, "td")
    room.sims["2"].wait_cmd(cmd["id"])
    room.synced("2")
    assert room.result("r1-t2")["end_reason"] == "forfeit"
    with pytest.raises(ActionError) as caught:
        hub.call(hub.hub.actions.correct_result, "r1-t2", {"A": 1, "B": 3}, None, "sheet", "td")
    assert caught.value.code == "score.loser_reached"
    fixed = hub.call(hub.hub.actions.correct_result, "r1-t2", {"A": 1, "B": 0}, None, "sheet", "td")
    assert (fixed["winner"], fixed["end_reason"]) == ("A", "forfeit")


def test_the_hub_refuses_to_send_an_impossible_correction_to_a_table(room: Room) -> None:
    room.synced("1")
    hub = room.hub
    with pytest.raises(ActionError) as caught:
        score = {"score": {"A": 3, "B": 4}, "note": "x"}
        hub.call(hub.hub.actions.td_command, "1", "correct_score", score, "td")
    assert caught.value.code == "score.both_reached"
    with pytest.raises(ActionError) as caught:
        hub.call(hub.hub.actions.td_command, "1", "correct_score", {"score": {"A": 1, "B": 0}}, "td")
    assert caught.value.code == "field.missing"
    assert hub.call(hub.hub.store.commands, "1") == []


def test_verify_confirmed_is_one_round_and_says_how_many(room: Room) -> None:
    for t in ("1", "2", "3"):
        room.play_to_3_0(t)
    for t in ("1", "3"):
        room.sims[t].confirm("A")
        room.sims[t].confirm("B")
    room.sims["2"].confirm("A")  # only one player confirmed
    for t in ("1", "2", "3"):
        room.synced(t)
    room.result("r2-t3")
    rounds = {r["round"]: r for r in room.hub.call(room.hub.hub.display.rounds)}
    assert (rounds["1"]["to_verify"], rounds["2"]["to_verify"]) == (1, 1)
    rc = room.hub.hub.round_control
    out = room.hub.call(rc.verify_confirmed, "1", "td")
    assert out == {"round": "1", "count": 1, "verified": ["r1-t1"]}
    results = room.hub.hub.results
    assert results["r1-t1"]["verified"] and not results["r1-t2"]["verified"]
    assert not results["r2-t3"]["verified"]  # another round's result is not touched
    with pytest.raises(ActionError):
        room.hub.call(rc.verify_confirmed, "9", "td")
    assert room.hub.call(rc.verify_confirmed, "2", "td")["verified"] == ["r2-t3"]


def test_a_result_finished_while_the_hub_was_down_keeps_the_tables_finish_time(room: Room) -> None:
    """The defect: after a hub restart, a result's finish time was the hub's receipt."""
    room.hub.stop()
    room.clock.set(T0 + 20 * MIN)
    room.play_to_3_0("1")  # the match ends at T0 + 20 while the hub is down
    room.clock.set(T0 + 26 * MIN)
    room.hub = room.start_hub()
    tick(room.hub)
    room.hub.wait_for(lambda h: h.results.get("r1-t1", {}).get("finished_wall") == T0 + 20 * MIN, 15)
    assert room.result("r1-t1")["finished_wall"] == T0 + 20 * MIN


def test_undo_forfeit_from_the_hub_gives_the_table_its_clock_back(room: Room) -> None:
    """The defect: *Undo forfeit* reopened the match with no clock running. WBGF 2.2 iii: taken
    back, the match goes on as it stood: the same side's clock, its delay left, both reserves."""
    sim, hub = room.sims["2"], room.hub
    assert sim.state.clock.enabled
    room.clock.set(T0 + 10 * MIN)
    sim.opening_roll(6, 2)
    sim.press("B")  # the lower roller starts A's clock
    room.clock.set(T0 + 10 * MIN + 20 * SECOND)
    sim.press("A")  # B's turn
    room.clock.set(T0 + 10 * MIN + 25 * SECOND)
    room.synced("2")
    before = snapshot(sim.state, sim.clock.monotonic_ms())
    assert before["clock"]["running"] == "B"
    cmd = hub.call(hub.hub.actions.td_command, "2", "forfeit", {"against": "B", "reason": "conduct"}, "td")
    sim.wait_cmd(cmd["id"])
    assert sim.state.phase == "finished" and not sim.state.clock.is_running()
    room.synced("2")
    room.result("r1-t2")

    room.clock.set(T0 + 12 * MIN)  # the TD takes it back two minutes later
    detail = hub.call(hub.hub.table_detail, "2")
    assert detail["undo_end"]["command_id"] == cmd["id"]
    undo = hub.call(hub.hub.actions.td_command, "2", "waive", {"penalty_id": cmd["id"]}, "td")
    sim.wait_cmd(undo["id"])
    after = snapshot(sim.state)
    assert after["phase"] == "playing" and after["winner"] is None
    for key in ("running", "paused", "reserve_ms", "delay_ms"):
        assert after["clock"][key] == before["clock"][key], key
    room.hub.wait_for(lambda h: "r1-t2" not in h.results)  # the result is withdrawn
