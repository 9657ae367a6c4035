"""The demo room's schedule and players, on a fake clock (no broker, no waiting).

The demo promises a round of every length and profile starting shortly, a late player whose
lateness costs a point, a slow player who runs out of time, players who play whole games
(rolls, clock presses, cubes, results, breaks), and a journal per table that replays to the
table's state. Each is checked here with the real reducer and the demo's own players.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from demo.players import DemoPlayers, DemoSimRoom, DemoTable, demo_temperament, slow_table_temperament
from demo.schedule import (
    FIRST_START_MS,
    MAX_TABLES,
    Row,
    first_point_ms,
    first_round,
    late_arrival,
    next_round,
    pairing,
    player_name,
    roles,
    to_csv,
)
from hub.live.clock import FakeClock
from hub.tournament.schedule import parse_schedule
from rulebook.profiles import get_profile
from rulebook.replay import replay_lines
from rulebook.snapshot import snapshot
from rulebook.table import TableState
from tests.hub.support import MIN, T0, Spy, event_id, publish


def test_the_first_round_has_every_length_and_profile_and_starts_a_minute_or_two_from_now() -> None:
    rows = first_round(T0, 8)
    matches = parse_schedule(to_csv(rows))  # the hub's own import accepts it whole
    assert len(matches) == 8
    assert {m.length for m in matches} == {5, 7, 9, 11}
    assert {m.profile for m in matches} == {"wbgf-2023", "hbf", "hu", "ffbg-cdf"}
    assert [m.table for m in matches if not m.clock] == ["5"]
    late = roles(8).late
    for m in matches:
        if m.table == late:
            # the round began so long ago that the first lateness point falls 30 s from now
            assert m.start_wall + first_point_ms(m.length, m.profile, m.clock) == T0 + 30_000
        else:
            assert T0 + FIRST_START_MS[0] - 1000 <= m.start_wall <= T0 + FIRST_START_MS[1]


def test_speed_brings_the_starts_closer_but_not_the_rules_minutes() -> None:
    rows = {r.table: r for r in first_round(T0, 8, speed=10)}
    assert all(T0 + 5_000 <= r.start_wall <= T0 + 12_000 for t, r in rows.items() if t != "8")
    late = rows["8"]
    assert late.start_wall + 5 * MIN == T0 + 3_000
    # the late player still arrives after the first point and well before the second
    assert late.start_wall + 5 * MIN + 10_000 <= late_arrival(late, 10) < late.start_wall + 10 * MIN


@pytest.mark.parametrize("tables", [1, 2, 3, 5, 8, 13, MAX_TABLES])
def test_any_room_size_makes_a_valid_schedule_for_several_rounds(tables: int) -> None:
    rows = first_round(T0, tables)
    for n in (2, 3, 4):
        rows += next_round(n, T0 + n * 20 * MIN, tables)
    matches = parse_schedule(to_csv(rows))  # refused if a player played twice in a round
    assert len(matches) == 4 * tables
    r = roles(tables)
    assert r.late == str(tables)
    assert r.flag != r.late


def test_players_change_opponents_each_round() -> None:
    assert pairing(1, 1, 8) != pairing(2, 1, 8)
    assert pairing(1, 1, 8)[0] == pairing(2, 1, 8)[0]
    assert len({player_name(k) for k in range(256)}) == 256


# -- players on a fake clock ----------------------------------------------------------------------


def _table(tmp_path: Path, row, clock: FakeClock, **roles_: object) -> tuple[DemoTable, DemoSimRoom]:
    """One demo table (its link never connects: events wait in its outbox) and its players."""
    sim = DemoTable("demo-test", row.table, "127.0.0.1", 1, directory=tmp_path / row.table, clock=clock)
    players = DemoPlayers(sim, random.Random(4), demo_temperament(), **roles_)  # type: ignore[arg-type]
    match = parse_schedule(to_csv([row]))[0]
    sim.apply({**match.assign_payload(), "input": "assign"})
    return sim, DemoSimRoom([players], clock=clock)


def _run(room: DemoSimRoom, clock: FakeClock, sim: DemoTable, done, step_ms: int, limit_ms: int) -> None:
    end = clock.now_wall() + limit_ms
    while not done(sim.state):
        assert clock.now_wall() < end, f"not done after {limit_ms / MIN:.0f} minutes: {snapshot(sim.state)}"
        room.step()
        clock.advance(step_ms)


def _replays(sim: DemoTable) -> bool:
    lines = sim.journal_path.read_text(encoding="utf-8").splitlines()
    return snapshot(replay_lines(lines, sim.table)) == snapshot(sim.state)


def test_the_late_player_walks_in_after_the_first_point_and_before_the_second(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    row = next(r for r in first_round(T0, 8) if r.table == "8")
    sim, room = _table(tmp_path, row, clock, late="B", late_arrival_wall=late_arrival(row))
    try:
        _run(room, clock, sim, lambda s: s.present.b, 1000, 10 * MIN)
        checkins = {e["side"]: e for e in sim.events if e["type"] == "checkin"}
        # A sits at the table when the demo starts (the round began 4.5 minutes ago): no point yet
        assert checkins["A"]["late_ms"] <= 5 * MIN - 30_000 + 1000
        assert 5 * MIN <= checkins["B"]["late_ms"] < 10 * MIN
    finally:
        sim.stop()


def test_a_match_is_played_through_with_cubes_results_and_breaks_and_the_journal_replays(
    tmp_path: Path,
) -> None:
    clock = FakeClock(T0)
    row = next(r for r in first_round(T0, 8) if r.table == "2")  # 9 points, wbgf-2023, clock
    sim, room = _table(tmp_path, row, clock)
    try:
        _run(room, clock, sim, lambda s: s.phase == "finished" and s.confirmed.a, 250, 90 * MIN)
        inputs = [json.loads(line) for line in sim.journal_path.read_text(encoding="utf-8").splitlines()]
        kinds = {i["input"] for i in inputs}
        assert {"assign", "checkin", "opening_roll", "roll", "press", "double", "win", "confirm"} <= kinds
        assert kinds & {"take", "pass"}, "no cube action in a whole match"
        assert "break" in kinds and "return" in kinds
        # a break ends well before its five minutes: the players come back early
        away = [i["wall"] for i in inputs if i["input"] in ("break", "return")]
        assert all(back - left < 2 * MIN for left, back in zip(away[::2], away[1::2], strict=True))
        games = snapshot(sim.state)["games"]
        assert max(sim.state.match.score.a, sim.state.match.score.b) >= 9
        # about a minute a game: the room stays lively
        minutes = (clock.now_wall() - row.start_wall) / MIN
        assert len(games) >= 2 and minutes / len(games) < 3
        assert _replays(sim)
    finally:
        sim.stop()


def test_the_slow_player_runs_out_of_time_in_real_minutes(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    row = next(r for r in first_round(T0, 8) if r.table == "3")  # 5 points: a 10-minute reserve
    sim, room = _table(tmp_path, row, clock, slow="A")
    room.players[0].temperament = slow_table_temperament()

    def flagged(s: TableState) -> bool:
        return s.phase == "flag"

    try:
        _run(room, clock, sim, flagged, 1000, 40 * MIN)
        snap = snapshot(sim.state)
        assert snap["clock"]["flagged"] == "A"
        assert snap["clock"]["reserve_ms"]["A"] == 0
        # a 10-minute reserve cannot run out sooner than ten minutes after the first clock starts
        reserve = get_profile(row.profile).reserve_ms(row.length)
        assert clock.now_wall() - row.start_wall >= reserve - MIN
        assert _replays(sim)
    finally:
        sim.stop()


def test_players_waiting_for_a_busy_table_sit_down_with_the_assignment(tmp_path: Path, mosquitto) -> None:
    """A match assigned after its start because the table was busy finds its players there: the
    hub never sees them absent (it would count them late); a table's first match does not."""
    event = event_id("demo-seat")
    clock = FakeClock(T0)
    sim = DemoTable(event, "1", mosquitto.host, mosquitto.port, directory=tmp_path / "1", clock=clock).start()
    spy = Spy(mosquitto.host, mosquitto.port, event, "table/1/state")
    topic = f"bg/v1/{event}/table/1/assign"

    def assign(row: Row) -> None:
        payload = parse_schedule(to_csv([row]))[0].assign_payload()
        publish(mosquitto.host, mosquitto.port, [(topic, json.dumps(payload), True)])
        sim.wait_for(lambda s: s.match_id == row.match_id)

    try:
        assign(Row(1, "1", "Ann", "Bob", 1, T0 - 2 * MIN, "wbgf-2023", None))  # begun two minutes ago
        assert not (sim.state.present.a or sim.state.present.b)
        sim.checkin("A")
        sim.checkin("B")
        sim.opening_roll(6, 1)
        sim.win("A")
        assert sim.state.phase == "finished"
        clock.advance(10 * MIN)
        assign(Row(2, "1", "Cid", "Dan", 5, T0, "wbgf-2023", None))  # should have begun 10 minutes ago
        assert sim.state.present.a and sim.state.present.b and sim.state.phase == "opening"

        def round2(s: Spy) -> list[dict]:
            return [p for p in s.payloads("/state") if p.get("match_id") == "r2-t1"]

        spy.wait_for(lambda s: any(p["phase"] == "opening" for p in round2(s)))
        assert all(p["present"] == {"A": True, "B": True} for p in round2(spy))
        assert _replays(sim)
    finally:
        spy.close()
        sim.stop()
