"""The JSON API over real HTTP: login, CSRF, public mode, imports, exports, live pushes; the CLI."""

from __future__ import annotations

import asyncio
import csv
import csv as csvlib
import io
import json
import os
import re
import signal
import subprocess
import sys
from typing import Any
from urllib.parse import quote

import aiohttp

from hub.live.clock import FakeClock
from tests.hub.support import MIN, PASSWORD, T0, event_id, one_match, schedule_csv, sim_table, start_hub
from tests.support.broker import free_port, wait_for_port
from tests.support.patience import patience


class Client:
    """A browser-like HTTP client: cookie jar, CSRF header on every POST."""

    def __init__(self, base: str, session: aiohttp.ClientSession) -> None:
        self.base = base
        self.http = session
        self.csrf = ""

    async def get(self, path: str) -> tuple[int, Any]:
        async with self.http.get(self.base + path) as r:
            body = await r.read()
            return r.status, _decode(r, body)

    async def post(self, path: str, data: Any = None, *, csrf: bool = True, raw: bytes | None = None):
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        kwargs: dict[str, Any] = {"headers": headers}
        if raw is not None:
            kwargs["data"] = raw
            headers["Content-Type"] = "text/csv"
        elif data is not None:
            kwargs["json"] = data
        async with self.http.post(self.base + path, **kwargs) as r:
            return r.status, _decode(r, await r.read())

    async def start_session(self) -> dict[str, Any]:
        status, data = await self.get("/api/session")
        assert status == 200
        self.csrf = data["csrf"]
        return data

    async def login(self, password: str = PASSWORD) -> int:
        status, data = await self.post("/api/login", {"password": password})
        if status == 200:
            self.csrf = data["csrf"]
        return status


def _decode(r: aiohttp.ClientResponse, body: bytes) -> Any:
    if r.content_type == "application/json":
        return json.loads(body)
    return body.decode("utf-8")


def run(coro_fn, url: str) -> Any:
    async def main() -> Any:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            return await coro_fn(Client(url, http))

    return asyncio.run(main())


def test_login_csrf_and_td_actions(tmp_path, mosquitto, clock):
    ev = event_id("api")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("4", 7))

    async def scenario(c: Client) -> None:
        assert (await c.get("/api/room"))[0] == 401
        assert (await c.get("/api/board"))[0] == 200  # the room board is always public
        session = await c.start_session()
        assert session == {
            "logged_in": False,
            "csrf": c.csrf,
            "public": False,
            "event": ev,
            "user": None,
            "role": None,
            "permissions": [],
            "team": [],
        }
        cookie = next(iter(c.http.cookie_jar))
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        assert (await c.post("/api/login", {"password": PASSWORD}, csrf=False))[0] == 403
        assert await c.login("wrong password") == 401
        old_csrf = c.csrf
        assert await c.login() == 200
        assert c.csrf != old_csrf
        status, room = await c.get("/api/room")
        assert status == 200 and room["event"] == ev and [t["table"] for t in room["tables"]] == ["4"]
        # every POST needs the token
        assert (await c.post("/api/tables/4/commands", {"type": "pause"}, csrf=False))[0] == 403
        status, cmd = await c.post("/api/tables/4/commands", {"type": "penalty", "against": "B", "points": 1})
        assert status == 200 and re.fullmatch(r"td:[0-9a-f-]{36}", cmd["id"]) and cmd["reason"] == "conduct"
        status, err = await c.post("/api/tables/4/commands", {"type": "penalty", "against": "C", "points": 1})
        assert status == 400 and "against" in err["error"]
        assert (await c.post("/api/tables/4/commands", {"type": "explode"}))[0] == 400
        assert (await c.post("/api/tables/99/commands", {"type": "pause"}))[0] == 400
        status, _ = await c.post("/api/tables/4/automation", {"suspended": True})
        assert status == 200
        status, detail = await c.get("/api/tables/4")
        assert detail["automation_suspended"] is True and detail["commands"][0]["id"] == cmd["id"]
        assert (await c.get("/api/tables/nope"))[0] == 404
        status, audit = await c.get("/api/audit")
        assert {a["action"] for a in audit} >= {"login", "cmd:penalty", "suspend_automation"}
        assert (await c.post("/api/logout"))[0] == 200
        assert (await c.get("/api/room"))[0] == 401

    try:
        run(scenario, hub.url)
        stored = hub.call(hub.hub.store.get_meta, "td_password")
        assert stored.startswith("scrypt$") and PASSWORD not in stored
    finally:
        hub.stop()
    assert PASSWORD.encode() not in (tmp_path / "hub.db").read_bytes()


def test_schedule_import_results_and_exports_over_http(tmp_path, mosquitto, clock):
    ev = event_id("apiresults")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    csv = schedule_csv(
        [{"round": 1, "table": "5", "player_a": "Ann", "player_b": "Bob", "length": 1, "start": T0 + MIN}]
    )

    async def scenario(c: Client) -> None:
        await c.start_session()
        await c.login()
        status, body = await c.post("/api/schedule", raw=b"round,table\n1,2\n")
        assert (
            status == 422
            and body["errors"][0]["line"] == 1
            and "missing column" in body["errors"][0]["message"]
        )
        assert (await c.get("/api/schedule"))[1] == []
        form = aiohttp.FormData()
        form.add_field("file", csv.encode(), filename="r1.csv", content_type="text/csv")
        async with c.http.post(c.base + "/api/schedule", data=form, headers={"X-CSRF-Token": c.csrf}) as r:
            assert r.status == 200 and (await r.json())["added"] == 1
        status, rows = await c.get("/api/schedule")
        assert [r["match_id"] for r in rows] == ["r1-t5"]

    try:
        run(scenario, hub.url)
        with sim_table(ev, "5", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t5")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(2, 6)
            sim.win("B", "gammon")
            hub.wait_for(lambda h: "r1-t5" in h.results)

        async def results(c: Client) -> None:
            await c.start_session()
            await c.login()
            status, rows = await c.get("/api/results")
            assert status == 200 and rows[0]["score"] == {"A": 0, "B": 2} and rows[0]["winner"] == "B"
            status, verified = await c.post("/api/results/r1-t5/verify")
            assert status == 200 and verified["verified"] and verified["verified_by"] == "td"
            status, fixed = await c.post(
                "/api/results/r1-t5/correct",
                {"score": {"A": 0, "B": 1}, "winner": "B", "note": "single, not gammon"},
            )
            assert status == 200 and fixed["score"] == {"A": 0, "B": 1} and fixed["corrected"]
            status, text = await c.get("/api/results.csv")
            assert status == 200
            # how it ended stays (points); the TD's correction is beside it, with who and why
            assert "r1-t5,Ann,Bob,1,0,1,Bob,points," in text and "single, not gammon" in text
            row = next(csvlib.DictReader(io.StringIO(text.lstrip("\ufeff"))))
            assert (row["corrected"], row["correction_note"], row["corrected_by"]) == (
                "yes",
                "single, not gammon",
                "td",
            )
            assert row["decision"] == "correct_score" and row["corrected_at"]
            status, data = await c.get("/api/results.json")
            assert data["event"] == ev and data["results"][0]["note"] == "single, not gammon"
            assert (await c.post("/api/results/nope/verify"))[0] == 400

        run(results, hub.url)
    finally:
        hub.stop()


def test_public_mode_and_live_pushes(tmp_path, mosquitto):
    clock = FakeClock(T0 - MIN)
    ev = event_id("public")
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("6", 5), public=True
    )

    async def scenario(c: Client) -> None:
        status, room = await c.get("/api/room")
        assert status == 200 and room["tables"][0]["table"] == "6"
        await c.start_session()
        assert (await c.post("/api/tables/6/commands", {"type": "pause"}))[0] == 401  # reading only
        async with c.http.ws_connect(c.base.replace("http", "ws") + "/api/ws") as ws:
            hello = await ws.receive_json(timeout=patience(10))
            assert hello["type"] == "hello" and "alerts" in hello
            async with c.http.ws_connect(c.base.replace("http", "ws") + "/api/ws?board=1") as board:
                hello_board = await board.receive_json(timeout=patience(10))
                assert "alerts" not in hello_board and "clock" not in hello_board["tables"][0]
                with sim_table(ev, "6", mosquitto.host, mosquitto.port, clock) as sim:
                    sim.wait_for(lambda s: s.match_id == "r1-t6")
                    await asyncio.to_thread(sim.checkin, "A")
                    seen = await _until(ws, lambda m: m["type"] == "tiles" and m["tiles"][0]["present"]["A"])
                    assert seen["tiles"][0]["players"] == {"A": "Ann", "B": "Bob"}
                    seen = await _until(
                        board, lambda m: m["type"] == "tiles" and m["tiles"][0]["table"] == "6"
                    )
                    assert "present" not in seen["tiles"][0]

    try:
        run(scenario, hub.url)
    finally:
        hub.stop()


async def _until(ws: aiohttp.ClientWebSocketResponse, predicate) -> dict[str, Any]:
    async with asyncio.timeout(10):
        while True:
            msg = await ws.receive_json()
            if predicate(msg):
                return msg


def test_bghub_cli_with_the_embedded_broker(tmp_path):
    ev = event_id("cli")
    mqtt_port, http_port = free_port(), free_port()
    schedule = tmp_path / "r1.csv"
    schedule.write_text(one_match("2", 5, start=T0), encoding="utf-8")
    db = tmp_path / "cli.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "--event",
            ev,
            "--embedded-port",
            str(mqtt_port),
            "--schedule",
            str(schedule),
            "--db",
            str(db),
            "--http",
            f"127.0.0.1:{http_port}",
            "--log-level",
            "WARNING",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines = [proc.stdout.readline() for _ in range(2)]  # type: ignore[union-attr]
        password = re.search(r"TD password for this run: (\S+)", lines[0])
        assert password, lines
        assert f"dashboard http://127.0.0.1:{http_port}" in lines[1] and "embedded broker" in lines[1]
        wait_for_port("127.0.0.1", mqtt_port)
        with sim_table(ev, "2", "127.0.0.1", mqtt_port, None) as sim:
            st = sim.wait_for(lambda s: s.match_id == "r1-t2")
            assert st.match is not None and st.match.length == 5

        async def scenario(c: Client) -> None:
            await c.start_session()
            assert await c.login(password.group(1)) == 200
            status, health = await c.get("/api/health")
            assert status == 200 and health["link_online"]

        run(scenario, f"http://127.0.0.1:{http_port}")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert password.group(1).encode() not in db.read_bytes()


def test_a_matchs_transcript_from_the_hub_matches_the_tables_story(tmp_path, mosquitto, clock):
    ev = event_id("transcript")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("8", 5))
    try:
        with sim_table(ev, "8", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t8")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(5, 2)
            sim.press("B")
            sim.press("A")
            sim.double("B")
            sim.take("A")
            sim.roll(6, 4)
            sim.win("A", "gammon")
            sim.opening_roll(1, 3)
            sim.win("B", "single")
            sim.opening_roll(4, 3)
            sim.win("A", "single")
            hub.wait_for(lambda h: "r1-t8" in h.results)

        async def scenario(c: Client) -> None:
            await c.start_session()
            assert (await c.get("/api/matches/r1-t8/transcript"))[0] == 401
            await c.login()
            status, t = await c.get("/api/matches/r1-t8/transcript")
            assert status == 200
            assert t["players"]["A"]["name"] == "Ann" and t["length"] == 5
            assert [(g["game"], g["result"]["winner"], g["result"]["points"]) for g in t["games"]] == [
                (1, "A", 4),
                (2, "B", 1),
                (3, "A", 1),
            ]
            assert t["games"][1]["crawford"] is True
            assert t["result"] == {"winner": "A", "end_reason": "points", "score": {"A": 5, "B": 1}}
            assert [e["event"] for e in t["entries"] if e["event"] in ("roll", "double", "take")] == [
                "double",
                "take",
                "roll",
            ]
            status, text = await c.get("/api/matches/r1-t8/transcript?format=text")
            assert status == 200 and "Bob doubles to 2" in text and "Ann takes (2)" in text
            status, mat = await c.get("/api/matches/r1-t8/transcript?format=mat")
            assert status == 200 and " 5 point match" in mat and "Wins 4 points" in mat
            status, page = await c.get("/transcript/r1-t8")
            assert status == 200 and "<pre>" in page and "Ann takes (2)" in page
            assert (await c.get("/api/matches/r1-t8/transcript?format=pdf"))[0] == 400
            assert (await c.get("/api/matches/nope/transcript"))[0] == 404

        run(scenario, hub.url)
    finally:
        hub.stop()


def test_players_to_identify_preview_import_and_exports_over_http(tmp_path, mosquitto, clock):
    """Round 1 with ids, round 2 without: one registry; a file giving Ann's id to another name is
    refused with the conflict listed until the TD's choice comes with it; the results export the
    registry's ids for a round whose file had none."""
    ev = event_id("apiplayers")
    round_one = schedule_csv(
        [{"round": 1, "table": "5", "player_a": "Ann Lee", "player_b": "Bob Ray", "length": 1, "start": T0,
          "player_a_id": "ANN-1", "player_b_id": "BOB-1"}]
    )  # fmt: skip
    round_two = schedule_csv(
        [{"round": 2, "table": "6", "player_a": "bob  ray", "player_b": "ANN LEE", "length": 1,
          "start": T0 + MIN}]
    )  # fmt: skip
    typo = schedule_csv(
        [{"round": 3, "table": "5", "player_a": "Anne Leigh", "player_b": "Bob Ray", "length": 1,
          "start": T0 + 60 * MIN, "player_a_id": "ANN-1", "player_b_id": "BOB-1"}]
    )  # fmt: skip
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=round_one)

    async def scenario(c: Client) -> None:
        await c.start_session()
        await c.login()
        status, body = await c.post("/api/schedule", raw=round_two.encode())
        assert status == 200 and body["players_new"] == 0
        status, players = await c.get("/api/players")
        assert [(p["name"], p["fed_id"], len(p["matches"])) for p in players] == [
            ("Ann Lee", "ANN-1", 2),
            ("Bob Ray", "BOB-1", 2),
        ]
        status, rows = await c.get("/api/schedule")
        by_match = {r["match_id"]: r for r in rows}
        assert by_match["r2-t6"]["player_b_key"] == by_match["r1-t5"]["player_a_key"]

        status, pv = await c.post("/api/schedule/preview", raw=typo.encode())
        assert status == 200 and pv["players"]["to_identify"] == 1
        (conflict,) = pv["conflicts"]
        assert conflict["id"] == "r3-t5:A" and conflict["kind"] == "id_two_names"
        assert [o["value"] for o in conflict["options"]] == [by_match["r1-t5"]["player_a_key"], "new"]
        status, body = await c.post("/api/schedule", raw=typo.encode())
        assert status == 422 and "1 player to identify before the import" in body["error"]
        assert body["conflicts"][0]["id"] == "r3-t5:A"
        message = body["errors"][0]["message"]
        assert "id ANN-1 is Ann Lee in the registry but Anne Leigh in this file" in message
        assert "r3-t5" not in {r["match_id"] for r in (await c.get("/api/schedule"))[1]}
        # a choice that is not an option, or not an object, is refused too
        status, body = await c.post("/api/schedule?choices=" + quote('{"r3-t5:A": "p99"}'), raw=typo.encode())
        assert status == 422 and "'p99' is not one of its options" in json.dumps(body)
        status, body = await c.post("/api/schedule?choices=[1]", raw=typo.encode())
        assert status == 422 and "choices: expected" in body["error"] + json.dumps(body["errors"])
        # the TD's choice, as the dashboard sends it (a form field beside the file)
        form = aiohttp.FormData()
        form.add_field("file", typo.encode(), filename="r3.csv", content_type="text/csv")
        form.add_field("choices", json.dumps({"r3-t5:A": conflict["options"][0]["value"]}))
        async with c.http.post(c.base + "/api/schedule", data=form, headers={"X-CSRF-Token": c.csrf}) as r:
            assert r.status == 200 and (await r.json())["choices"] == 1
        status, players = await c.get("/api/players")
        assert [(p["name"], len(p["matches"])) for p in players] == [("Ann Lee", 3), ("Bob Ray", 3)]
        audit = [a for a in (await c.get("/api/audit"))[1] if a["action"] == "import_schedule"]
        assert audit[0]["detail"]["choices"][0]["conflict"] == "r3-t5:A"

    try:
        run(scenario, hub.url)
        with sim_table(ev, "6", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r2-t6")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(2, 6)
            sim.win("B")
            hub.wait_for(lambda h: "r2-t6" in h.results)

        async def export(c: Client) -> None:
            await c.start_session()
            await c.login()
            _, text = await c.get("/api/results.csv")
            (row,) = [
                r for r in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))) if r["match_id"] == "r2-t6"
            ]
            assert (row["player_a_id"], row["player_b_id"]) == ("BOB-1", "ANN-1")  # round 2's file gave none

        run(export, hub.url)
    finally:
        hub.stop()
