"""The TD's actions on a running draw, through the API of a real hub (its ticks called by the
test, a fake clock), a real broker and simulated tables: a held flight is not called until
resumed, a call moved or swapped reaches its new table (its old table cleared), lateness counts
from the call plus the walking grace, and a withdrawn player's call is withdrawn and his
opponent walks over."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp

from demo.simtable import SimTable
from hub.draw import State
from hub.service import HubThread
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from rulebook.vocab import InputType
from tests.hub.support import (
    MIN,
    PASSWORD,
    Spy,
    event_id,
    hub_state,
    publish,
    sim_table,
    start_hub,
    tick,
)

DRAW = """
[draw]
tables = ["1", "2", "3"]
grace_minutes = 5
needs_verified = false
random_seed = 5

[[flights]]
name = "main"
size = 4
profile = "wbgf-2023"
lengths = [3]
""" + "".join(
    f'[[players]]\nkey = "p{n}"\nname = "Player {n}"\n[[entries]]\nflight = "main"\nplayer = "p{n}"\n'
    for n in range(1, 5)
)


async def _api(url: str, steps: list[tuple[str, str, dict[str, Any] | None]]) -> list[tuple[int, Any]]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.get(url + "/api/session") as r:
            csrf = (await r.json())["csrf"]
        async with http.post(
            url + "/api/login", json={"password": PASSWORD}, headers={"X-CSRF-Token": csrf}
        ) as r:
            csrf = (await r.json())["csrf"]
        out = []
        for method, path, body in steps:
            async with http.request(method, url + path, json=body, headers={"X-CSRF-Token": csrf}) as r:
                out.append((r.status, json.loads(await r.text())))
        return out


def api(hub: HubThread, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    ((status, answer),) = asyncio.run(_api(hub.url, [(method, path, body)]))
    assert status == 200, answer
    return answer


def current(hub: HubThread) -> dict[str, str]:
    result: dict[str, str] = hub.call(lambda: {t: c.match.match_id for t, c in hub.hub.current.items()})
    return result


def alerts(hub: HubThread) -> list[dict[str, Any]]:
    """The alerts the TD's dashboard lists now."""
    listed: list[dict[str, Any]] = hub.call(hub.hub.alert_list)
    return listed


def test_the_tds_actions_on_a_running_draw(tmp_path: Path, mosquitto: Any, clock: Any) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("draw-actions")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        assert api(hub, "POST", "/api/draw/flights/main/hold") == {"flight": "main", "held": True}
        with ExitStack() as stack:
            sims: dict[str, SimTable] = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "123"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "123"))
            tick(hub)
            assert current(hub) == {}  # held: nothing called
            # the Draw page's reading says what is held; the board's and the players' do not
            (main,) = api(hub, "GET", "/api/draw")["flights"]
            assert main["held"] is True
            assert {m["held"] for r in main["rounds"] for m in r["matches"]} == {False}
            api(hub, "POST", "/api/draw/matches/main-r2-m1/hold")
            (main,) = api(hub, "GET", "/api/draw")["flights"]
            assert [m["id"] for r in main["rounds"] for m in r["matches"] if m["held"]] == ["main-r2-m1"]
            assert "held" not in json.dumps(api(hub, "GET", "/api/board/draw"))
            api(hub, "POST", "/api/draw/matches/main-r2-m1/release")
            called_at = clock.now_wall()
            api(hub, "POST", "/api/draw/flights/main/resume")
            assert current(hub) == {"1": "main-r1-m1", "2": "main-r1-m2"}
            start = hub.call(lambda: hub.hub.room_state.by_id["main-r1-m1"].start_wall)
            assert start == called_at + 5 * MIN
            sims["1"].wait_for(lambda s: s.match_id == "main-r1-m1")
            sims["2"].wait_for(lambda s: s.match_id == "main-r1-m2")

            # a call moved to the free table 3: table 1 cleared, table 3 takes the match
            answer = api(hub, "POST", "/api/draw/matches/main-r1-m1/move", {"to_table": "3"})
            assert answer == {"moved": [{"match": "main-r1-m1", "table": "3"}]}
            assert current(hub) == {"3": "main-r1-m1-2", "2": "main-r1-m2"}
            sims["3"].wait_for(lambda s: s.match_id == "main-r1-m1-2")
            # two calls swap tables: each table takes the other match, though it held one unplayed
            api(hub, "POST", "/api/draw/swap", {"a": "main-r1-m1", "b": "main-r1-m2"})
            assert current(hub) == {"2": "main-r1-m1-3", "3": "main-r1-m2-2"}
            sims["2"].wait_for(lambda s: s.match_id == "main-r1-m1-3")
            sims["3"].wait_for(lambda s: s.match_id == "main-r1-m2-2")
            # the move kept the call's start
            assert hub.call(lambda: hub.hub.room_state.by_id["main-r1-m1-3"].start_wall) == start
            # the calls they replaced keep that start too, but stand no more: no player is at two
            # matches at once
            tick(hub)
            assert [a for a in alerts(hub) if a["kind"] == "double_booked"] == []

            # lateness counts from the start (the call + 5 minutes): 12 minutes after the call, a
            # player who has not come is 7 minutes late — one point, not the two of 12 minutes
            sims["2"].checkin("A")
            hub.wait_for(lambda h: (hub_state(h, "2").get("present") or {}).get("A"))
            clock.set(called_at + 12 * MIN)
            tick(hub)
            sims["2"].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
            tick(hub)
            marker = hub.call(hub.hub.actions.td_command, "2", "td_ack", {}, "test")
            sims["2"].wait_cmd(marker["id"])
            assert snapshot(sims["2"].state)["penalties"] == {"A": 0, "B": 1}

            # the late player withdraws: his call is withdrawn from table 2, his opponent walks over
            players = hub.call(lambda: hub.hub.draw.called["main-r1-m1-3"].players)
            answer = api(hub, "POST", f"/api/draw/players/{players[1]}/withdraw")
            assert "main-r1-m1" in answer["changed"]
            bracket = hub.call(lambda: hub.hub.draw.bracket)
            assert bracket.match("main-r1-m1").state is State.WALKOVER
            assert bracket.match("main-r1-m1").winner == players[0]
            assert "2" not in current(hub)
            ((status, refused),) = asyncio.run(
                _api(hub.url, [("POST", "/api/draw/matches/main-r1-m1/undo", None)])
            )
            assert status == 404 and refused["code"] == "draw.result.none"
            assert api(hub, "GET", "/api/draw")["format"] == "smart-table-draw/1"
    finally:
        hub.stop()


def test_with_verification_needed_the_next_match_waits_for_the_tds_verification(
    tmp_path: Path, mosquitto: Any, clock: Any
) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW.replace("needs_verified = false", "needs_verified = true"), encoding="utf-8")
    ev = event_id("draw-verify")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "12"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "12"))
            tick(hub)
            assert current(hub) == {"1": "main-r1-m1", "2": "main-r1-m2"}
            for t, mid in (("1", "main-r1-m1"), ("2", "main-r1-m2")):
                sim = sims[t]
                sim.wait_for(lambda s, mid=mid: s.match_id == mid)
                sim.checkin("A")
                sim.checkin("B")
                sim.opening_roll(6, 2)
                sim.win("A", "backgammon")
                sim.confirm("A")
                sim.confirm("B")
                hub.wait_for(
                    lambda h, mid=mid: (h.results.get(mid) or {}).get("confirmed") == {"A": True, "B": True}
                )
            tick(hub)
            bracket = hub.call(lambda: hub.hub.draw.bracket)
            assert bracket.match("main-r2-m1").state is State.READY
            assert current(hub) == {}  # confirmed, not verified: the final waits
            api(hub, "POST", "/api/results/main-r1-m1/verify")
            assert current(hub) == {}
            api(hub, "POST", "/api/results/main-r1-m2/verify")
            tick(hub)
            assert current(hub) == {"1": "main-r2-m1"}
            sims["1"].wait_for(lambda s: s.match_id == "main-r2-m1")
    finally:
        hub.stop()


def test_a_draw_call_is_not_moved_or_started_as_a_round_match(
    tmp_path: Path, mosquitto: Any, clock: Any
) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("draw-rounds")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock):
            hub.wait_for(lambda h: h.views.get("1") is not None and h.views["1"].online)
            tick(hub)
            assert current(hub) == {"1": "main-r1-m1"}
            answers = asyncio.run(
                _api(
                    hub.url,
                    [
                        ("POST", "/api/matches/main-r1-m1/move", {"to_table": "2"}),
                        ("POST", "/api/rounds/main-r1/start", None),
                    ],
                )
            )
            assert answers[0][0] == 409 and answers[0][1]["code"] == "draw.call.not_a_round_match"
            assert answers[1][0] == 400
            assert hub.call(lambda: hub.hub.store.schedule()) == []  # nothing written as an imported row
    finally:
        hub.stop()


def test_a_draw_defined_through_the_api(tmp_path: Path, mosquitto: Any, clock: Any) -> None:
    ev = event_id("draw-define")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    try:
        bad = DRAW.replace('profile = "wbgf-2023"', 'profile = "nope"')
        other = DRAW.replace("random_seed = 5", "random_seed = 6")
        answers = asyncio.run(
            _api(
                hub.url,
                [
                    ("GET", "/api/draw", None),
                    ("POST", "/api/draw/define", {"file": bad}),
                    ("POST", "/api/draw/define", {"file": DRAW}),
                    ("POST", "/api/draw/define", {"file": DRAW}),
                ],
            )
        )
        assert answers[0][0] == 404 and answers[0][1]["code"] == "draw.none"
        assert answers[1][0] == 422 and answers[1][1]["code"] == "draw.profile.unknown"
        assert answers[2] == (200, {"draw": "defined", "flights": ["main"], "matches": 3})
        assert answers[3] == (200, {"draw": "unchanged"})
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            hub.wait_for(lambda h: h.views.get("1") is not None and h.views["1"].online)
            tick(hub)
            sim.wait_for(lambda s: s.match_id == "main-r1-m1")
            ((status, refused),) = asyncio.run(_api(hub.url, [("POST", "/api/draw/define", {"file": other})]))
            assert status == 409 and refused["code"] == "draw.under_way"
            assert api(hub, "GET", "/api/draw")["flights"][0]["random_seed"] == 5
    finally:
        hub.stop()


def test_a_match_called_again_to_a_table_whose_call_an_undo_voided_replaces_it(
    tmp_path: Path, mosquitto: Any, clock: Any
) -> None:
    """The TD undoes a round-1 result after the final was called to table 1: the final's call is
    void, and round 1's match called again to table 1 replaces the final the table still holds
    (unplayed): the assignment is forced. A table's own match still being played is not."""
    from tests.hub.test_next_lines_live import play

    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("draw-recall")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with ExitStack() as stack:
            sims: dict[str, SimTable] = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "123"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "123"))
            tick(hub)
            assert current(hub) == {"1": "main-r1-m1", "2": "main-r1-m2"}
            play(hub, sims["1"], "main-r1-m1")
            play(hub, sims["2"], "main-r1-m2", winner="B")
            assert current(hub) == {"1": "main-r2-m1"}
            sims["1"].wait_for(lambda s: s.match_id == "main-r2-m1")
            sims["1"].checkin("A")  # the final begun: one player has come

            api(hub, "POST", "/api/draw/matches/main-r1-m2/undo")
            tick(hub)
            # called again to the lowest free table: table 1, whose final the undo voided
            assert current(hub) == {"1": "main-r1-m2-2"}
            # the undo needs nothing more of the TD: the undone match, the voided final and the
            # finished match stay in the schedule with the start they had (the fake clock has not
            # moved: every call's), but only the match called again stands, so no player is
            # "scheduled at two matches at once"
            assert alerts(hub) == []
            sims["1"].wait_for(lambda s: s.match_id == "main-r1-m2-2")
            hub.wait_for(lambda h: hub_state(h, "1").get("match_id") == "main-r1-m2-2")
            assert hub.call(lambda: hub.hub.current["1"].force)
            # the table took it: a later tick sends no second assignment (the same match set up
            # again would lose the check-in below)
            sims["1"].checkin("B")
            tick(hub)
            hub.wait_for(lambda h: (hub_state(h, "1").get("present") or {}).get("B"))
            assert sims["1"].state.match_id == "main-r1-m2-2" and sims["1"].state.present.b
    finally:
        hub.stop()


def test_a_match_called_again_is_forced_over_a_voided_call_the_table_took_unreported(
    tmp_path: Path, mosquitto: Any, clock: Any
) -> None:
    """The final called to table 1, which took it, but whose state saying so has not reached the
    hub when the TD undoes a round-1 result (a busy room, a slow hub): round 1's match called again
    to table 1 still replaces the voided final, forced, as sent. That state, arriving afterwards,
    is dropped (a voided call counts for nothing) without an alert of a table reporting a match
    not its own. Table 1 is the test itself on the broker: it sends its state only when told."""
    from tests.hub.test_next_lines_live import play

    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("draw-recall-unseen")
    spy = Spy(mosquitto.host, mosquitto.port, ev, "table/1/assign")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with ExitStack() as stack:
            sims: dict[str, SimTable] = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "23"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "23"))
            tick(hub)
            assert current(hub) == {"2": "main-r1-m1", "3": "main-r1-m2"}
            play(hub, sims["2"], "main-r1-m1")
            publish(
                mosquitto.host, mosquitto.port, [(f"bg/v1/{ev}/table/1/status", b'{"online": true}', True)]
            )
            hub.wait_for(lambda h: h.views.get("1") is not None and h.views["1"].online)
            play(hub, sims["3"], "main-r1-m2", winner="B")
            assert current(hub) == {"1": "main-r2-m1"}  # the lowest free table
            spy.wait_for(lambda s: [p["match_id"] for p in s.payloads("assign")] == ["main-r2-m1"])
            (final,) = spy.payloads("assign")

            api(hub, "POST", "/api/draw/matches/main-r1-m2/undo")
            assert current(hub) == {"1": "main-r1-m2-2"}
            spy.wait_for(lambda s: s.payloads("assign")[-1]["match_id"] == "main-r1-m2-2")
            assert spy.payloads("assign")[-1]["force"] is True
            tick(hub)
            assert len(spy.payloads("assign")) == 2  # sent once, as forced

            # the table's state of the final it took (before the recall reached it) comes late
            took, _ = apply(
                new_table("1"), {**final, "input": InputType.ASSIGN, "at": 0, "wall": clock.now_wall()}
            )
            publish(
                mosquitto.host,
                mosquitto.port,
                [(f"bg/v1/{ev}/table/1/state", json.dumps(snapshot(took)).encode(), True)],
            )
            hub.wait_for(lambda h: h.ingest.stats["not_assigned"] == 1)
            tick(hub)
            kinds = hub.call(lambda: {a["kind"] for a in hub.hub.alerts.active.values() if a["tbl"] == "1"})
            assert "not_assigned" not in kinds
            assert len(spy.payloads("assign")) == 2 and current(hub) == {"1": "main-r1-m2-2"}
    finally:
        hub.stop()
        spy.close()
