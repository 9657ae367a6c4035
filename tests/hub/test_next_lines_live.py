"""The tables' "Next:" lines through a real broker and a real hub (its ticks called by the test, a
fake clock) to simulated tables, whose links check them at the edge as a kiosk's does.

A main of 4 and a consolation fed by its round 1, on 3 tables: after a result, the two players'
lines arrive at their table (the winner waits for the winner of the other table, the loser is out
of the main and waits for the loser there); when the other match ends they say the table and the
opponent; each flight's winner won it, its loser is out; an undo withdraws the lines it makes wrong and
the others follow the match called again."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from demo.simtable import SimTable
from hub.service import HubThread
from rulebook.messages import NextLine, NextMessage
from tests.hub.support import event_id, sim_table, start_hub, tick
from tests.hub.test_draw_actions_live import DRAW, api, current

DRAW_WITH_CONSOLATION = (
    DRAW
    + """
[[flights]]
name = "consolation"
feeds = [{ flight = "main", round = 1 }]
profile = "wbgf-2023"
lengths = [3]
"""
)


def line(**fields: Any) -> NextLine:
    empty: NextLine = {
        "kind": "out",
        "flight": "main",
        "round": None,
        "table": None,
        "opponent": None,
        "waits_for": None,
        "from_table": None,
        "left": None,
    }
    return {**empty, **fields}  # type: ignore[typeddict-item]


def play(hub: HubThread, sim: SimTable, match_id: str, winner: str = "A") -> None:
    """The match at ``sim`` played to its end (a backgammon: 3 points) and confirmed by both."""
    sim.wait_for(lambda s: s.match_id == match_id)
    sim.checkin("A")
    sim.checkin("B")
    sim.opening_roll(6, 2) if winner == "A" else sim.opening_roll(2, 6)
    sim.win(winner, "backgammon")  # type: ignore[arg-type]
    sim.confirm("A")
    sim.confirm("B")
    hub.wait_for(lambda h: (h.results.get(match_id) or {}).get("confirmed") == {"A": True, "B": True})
    tick(hub)


def name(hub: HubThread, match_id: str, side: int) -> str:
    """The name the tables show for a seat of a called match."""

    def read() -> str:
        draw = hub.hub.draw
        assert draw.setup is not None
        return draw.setup.player(draw.called[match_id].players[side]).name

    result: str = hub.call(read)
    return result


def lines_of(sim: SimTable, match_id: str, predicate: Any = lambda m: True) -> NextMessage:
    got = sim.wait_next(lambda m: m is not None and m["match_id"] == match_id and predicate(m))
    assert got is not None
    return got


def test_the_players_next_lines_follow_the_draw(tmp_path: Path, mosquitto: Any, clock: Any) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW_WITH_CONSOLATION, encoding="utf-8")
    ev = event_id("next-lines")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "123"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "123"))
            tick(hub)
            assert current(hub) == {"1": "main-r1-m1", "2": "main-r1-m2"}
            assert all(s.next_lines is None for s in sims.values())  # nothing before a result
            a1, b1 = name(hub, "main-r1-m1", 0), name(hub, "main-r1-m1", 1)
            a2, b2 = name(hub, "main-r1-m2", 0), name(hub, "main-r1-m2", 1)

            # table 1's result: its winner waits for table 2's winner, its loser (out of the
            # main) for table 2's loser in the consolation
            play(hub, sims["1"], "main-r1-m1")
            got = lines_of(sims["1"], "main-r1-m1")
            assert got["A"] == line(kind="waiting", round=2, waits_for="winner", from_table="2")
            assert got["B"] == line(
                kind="waiting", flight="consolation", round=1, waits_for="loser", from_table="2", left="main"
            )

            # table 2's result: both next matches are called, and table 1's lines say where
            play(hub, sims["2"], "main-r1-m2", winner="B")
            calls = current(hub)
            final_table = next(t for t, m in calls.items() if m == "main-r2-m1")
            consolation_table = next(t for t, m in calls.items() if m == "consolation-r1-m1")
            # the main first, to the lowest free tables (docs/draw.md, "Calls")
            assert (final_table, consolation_table) == ("1", "2")
            got = lines_of(sims["1"], "main-r1-m1", lambda m: m["A"]["kind"] == "called")
            assert got["A"] == line(kind="called", round=2, table=final_table, opponent=b2)
            assert got["B"] == line(
                kind="called",
                flight="consolation",
                round=1,
                table=consolation_table,
                opponent=a2,
                left="main",
            )
            got = lines_of(sims["2"], "main-r1-m2", lambda m: m["B"]["kind"] == "called")
            assert got["B"] == line(kind="called", round=2, table=final_table, opponent=a1)
            assert got["A"]["opponent"] == b1 and got["A"]["left"] == "main"

            # the final and the consolation played: each flight's winner won it, its loser is out
            play(hub, sims[consolation_table], "consolation-r1-m1")
            got = lines_of(sims[consolation_table], "consolation-r1-m1")
            assert got["A"] == line(kind="won", flight="consolation")
            assert got["B"] == line(kind="out", flight="consolation")
            play(hub, sims[final_table], "main-r2-m1")
            got = lines_of(sims[final_table], "main-r2-m1")
            assert got["A"] == line(kind="won")
            assert got["B"] == line(kind="out")

            # the final's result undone: its lines withdrawn, the final called again, and the
            # lines of its players' earlier matches say its new table (table 1's again, the final
            # it held undone; table 2 played the consolation since: its lines are of that match)
            api(hub, "POST", "/api/draw/matches/main-r2-m1/undo")
            sims[final_table].wait_next(lambda m: m is None or m["match_id"] != "main-r2-m1")
            again = next(t for t, m in current(hub).items() if m.startswith("main-r2-m1-"))
            got = lines_of(sims["1"], "main-r1-m1", lambda m: m["A"]["table"] == again)
            assert got["A"] == line(kind="called", round=2, table=again, opponent=b2)
            assert (
                sims["2"].next_lines is not None and sims["2"].next_lines["match_id"] == "consolation-r1-m1"
            )
    finally:
        hub.stop()
