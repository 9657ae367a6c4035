"""Scripted players play whole matches at simulated tables, deterministically on a fake clock."""

from __future__ import annotations

from demo.simtable import SimRoom, SimTable, Temperament
from hub.live.clock import AcceleratedClock, FakeClock
from hub.service import HubThread
from tests.hub.support import MIN, T0, event_id, hub_state, schedule_csv, start_hub, tick

CALM = Temperament(p_late=0.0, p_slowcoach=0.0, p_call_td=0.0, p_overrun=0.0)


def _play(tmp_path, mosquitto, seed: int) -> tuple[HubThread, list[SimTable]]:
    """Two 3-point matches played to the end by scripted players (the caller stops everything)."""
    clock = FakeClock(T0 - 10 * MIN)
    ev = event_id("simroom")
    rows = [
        {"round": 1, "table": t, "player_a": f"A{t}", "player_b": f"B{t}", "length": 3, "start": T0}
        for t in ("1", "2")
    ]
    hub = start_hub(
        tmp_path,
        mosquitto.host,
        mosquitto.port,
        ev,
        clock,
        schedule=schedule_csv(rows),
        db=tmp_path / f"{ev}.db",
    )
    sims = [SimTable(ev, t, mosquitto.host, mosquitto.port, clock=clock).start() for t in ("1", "2")]
    for sim in sims:
        sim.wait_for(lambda s, sim=sim: s.match_id == f"r1-t{sim.table}")
    room = SimRoom(sims, clock=clock, seed=seed, temperament=CALM)
    for _ in range(20_000):
        clock.advance(2_000)
        room.step()
        if all(s.state.phase == "finished" for s in sims):
            break
    return hub, sims


def _stop(hub: HubThread, sims: list[SimTable]) -> None:
    for sim in sims:
        sim.stop()
    hub.stop()


def _inputs(sim: SimTable) -> list[tuple]:
    """What the players did (a retained assignment may be delivered twice, at any moment)."""
    return [
        (e["type"], e.get("side"), tuple(e.get("dice") or ()), e.get("kind"))
        for e in sim.events
        if e["type"] != "assign"
    ]


def test_scripted_players_finish_their_matches_and_the_hub_records_them(tmp_path, mosquitto):
    hub, sims = _play(tmp_path, mosquitto, seed=7)
    try:
        assert all(s.state.phase == "finished" for s in sims), [s.state.phase for s in sims]
        kinds = {e["type"] for s in sims for e in s.events}
        assert {"checkin", "opening_roll", "roll", "press", "game_over", "match_over", "confirm"} <= kinds
        assert not [e for s in sims for e in s.events if e.get("rejected")]
        for s in sims:
            assert s.state.match is not None and max(s.state.match.score.a, s.state.match.score.b) >= 3
        hub.wait_for(lambda h: all(hub_state(h, s.table).get("phase") == "finished" for s in sims))
        tick(hub)
        results = hub.call(hub.hub.result_list)
        assert sorted(r["match_id"] for r in results) == ["r1-t1", "r1-t2"]
    finally:
        _stop(hub, sims)


def test_the_same_seed_plays_the_same_match(tmp_path, mosquitto):
    first = _play(tmp_path, mosquitto, seed=11)
    _stop(*first)
    second = _play(tmp_path, mosquitto, seed=11)
    _stop(*second)
    assert _inputs(first[1][0]) == _inputs(second[1][0])
    assert len(_inputs(first[1][0])) > 20


def test_an_accelerated_clock_runs_faster_than_real_time():
    clock = AcceleratedClock(600.0, start_wall=T0)
    assert clock.sleep_ms(60_000) == 0.1
    assert clock.now_wall() >= T0 and clock.monotonic_ms() >= 0
