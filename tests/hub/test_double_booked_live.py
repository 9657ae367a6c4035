"""A player the schedule puts at two matches with the same start, through a real hub (its ticks
called by the test, a fake clock), a real broker and a simulated table: the TD is alerted while
both matches stand — a match moved to another table still stands — and no longer once one of them
is released or finished (the player has one match left: nothing for the TD to do)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hub.service import HubThread
from tests.hub.support import T0, event_id, schedule_csv, sim_table, start_hub, tick
from tests.hub.test_draw_actions_live import alerts, api
from tests.hub.test_next_lines_live import play


def row(rnd: str, table: int, a: str, b: str) -> dict[str, Any]:
    return {"round": rnd, "table": table, "player_a": a, "player_b": b, "length": 3, "start": T0}


#: a side event starting with round 1: Anna and Kari are booked at two tables at once
SCHEDULE = schedule_csv(
    [
        row("1", 1, "Anna Nagy", "Ola Hansen"),
        row("1", 2, "Kari Nordmann", "Pierre Martin"),
        row("side", 8, "KARI NORDMANN", "Eva Holm"),
        row("side", 9, "anna  nagy", "Lena Berg"),
    ]
)


def booked_twice(hub: HubThread) -> dict[str, set[tuple[str, str]]]:
    """Each player the TD is told is at two matches at once (as one of his seats spells him), and
    those matches (id, table)."""
    return {
        a["data"]["player"].casefold(): {(m["match_id"], m["table"]) for m in a["data"]["matches"]}
        for a in alerts(hub)
        if a["kind"] == "double_booked"
    }


def test_a_player_booked_at_two_tables_is_alerted_while_both_matches_stand(
    tmp_path: Path, mosquitto: Any, clock: Any
) -> None:
    ev = event_id("double-booked")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=SCHEDULE)
    try:
        tick(hub)
        assert booked_twice(hub) == {
            "anna nagy": {("r1-t1", "1"), ("rside-t9", "9")},
            "kari nordmann": {("r1-t2", "2"), ("rside-t8", "8")},
        }
        assert {a["urgency"] for a in alerts(hub) if a["kind"] == "double_booked"} == {"medium"}

        # the TD moves Anna's side match, not begun, to table 7: its start stays, she is still
        # booked at two tables at once
        api(hub, "POST", "/api/matches/rside-t9/move", {"to_table": "7"})
        tick(hub)
        assert booked_twice(hub)["anna nagy"] == {("r1-t1", "1"), ("rside-t9", "7")}
        # then sets it aside: Anna has one match left, nothing more for the TD
        assert api(hub, "POST", "/api/tables/7/release")["released"] == "rside-t9"
        tick(hub)
        assert set(booked_twice(hub)) == {"kari nordmann"}

        # Kari plays his round-1 match to its end: his side match is all he has left
        with sim_table(ev, "2", mosquitto.host, mosquitto.port, clock) as t2:
            hub.wait_for(lambda h: h.views.get("2") is not None and h.views["2"].online)
            tick(hub)
            play(hub, t2, "r1-t2")
            assert booked_twice(hub) == {}
    finally:
        hub.stop()
