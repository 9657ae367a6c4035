"""Exports a pairing program can read: the schedule's player ids come back in results.csv and
results.json, the CSV opens as UTF-8 in a spreadsheet (byte order mark), and its columns are the
documented ones. Round trip over real HTTP with real tables: import ids → play → export."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import aiohttp

from hub.tournament.exports import CSV_COLUMNS, results_csv
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, PASSWORD, T0, event_id, iso, sim_table, start_hub


def pairing_csv() -> str:
    """What a pairing program exports: ids, and names in four alphabets (with its own BOM)."""
    return (
        "\ufeffround,table,player_a,player_a_id,player_b,player_b_id,length,start\n"
        f"1,3,Ζωή Παπαδοπούλου,GRE-1044,Ёлкин Сергей,BUL-0007,1,{iso(T0)}\n"
        f"1,4,Kovács Ödön,HUN-2231,Søren Ærø,NOR-0512,3,{iso(T0)}\n"
    )


def test_the_documented_columns_in_order():
    assert CSV_COLUMNS == (
        "round",
        "table",
        "match_id",
        "player_a",
        "player_b",
        "length",
        "score_a",
        "score_b",
        "winner",
        "end_reason",
        "penalties_a",
        "penalties_b",
        "finished",
        "verified",
        "verified_by",
        "corrected",
        "note",
        "player_a_id",
        "player_b_id",
        "correction_note",
        "corrected_by",
        "corrected_at",
        "decision",
    )
    text = results_csv([])
    assert text == "\ufeff" + ",".join(CSV_COLUMNS) + "\n"


async def _http(url: str, steps):
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.get(url + "/api/session") as r:
            csrf = (await r.json())["csrf"]
        login = {"password": PASSWORD}
        async with http.post(url + "/api/login", json=login, headers={"X-CSRF-Token": csrf}) as r:
            csrf = (await r.json())["csrf"]
        return await steps(http, csrf)


def test_ids_go_from_the_schedule_to_the_results_files(tmp_path, mosquitto, clock):
    ev = event_id("export")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    try:

        async def import_(http: aiohttp.ClientSession, csrf: str) -> dict:
            form = aiohttp.FormData()
            body = pairing_csv().encode("utf-8")
            form.add_field("file", body, filename="round1.csv", content_type="text/csv")
            async with http.post(hub.url + "/api/schedule", data=form, headers={"X-CSRF-Token": csrf}) as r:
                assert r.status == 200, await r.text()
                return await r.json()

        assert asyncio.run(_http(hub.url, import_))["added"] == 2
        clock.set(T0 + MIN)
        with (
            sim_table(ev, "3", mosquitto.host, mosquitto.port, clock) as t3,
            sim_table(ev, "4", mosquitto.host, mosquitto.port, clock) as t4,
        ):
            for sim, mid in ((t3, "r1-t3"), (t4, "r1-t4")):
                sim.wait_for(lambda s, mid=mid: s.match_id == mid)
                sim.checkin("A")
                sim.checkin("B")
            assert snapshot(t3.state)["players"]["A"] == {"name": "Ζωή Παπαδοπούλου", "id": "GRE-1044"}
            t3.opening_roll(2, 6)
            t3.win("B", "gammon")
            t4.opening_roll(5, 1)
            t4.win("A", "backgammon")
            hub.wait_for(lambda h: {"r1-t3", "r1-t4"} <= set(h.results))

        async def export(http: aiohttp.ClientSession, csrf: str) -> tuple[bytes, str, dict]:
            async with http.get(hub.url + "/api/results.csv") as r:
                assert r.status == 200 and r.content_type == "text/csv"
                raw = await r.read()
                disposition = r.headers["Content-Disposition"]
            async with http.get(hub.url + "/api/results.json") as r:
                data = json.loads(await r.read())
            return raw, disposition, data

        raw, disposition, data = asyncio.run(_http(hub.url, export))
        assert raw.startswith(b"\xef\xbb\xbf")  # the BOM: a spreadsheet reads the file as UTF-8
        assert f'filename="results-{ev}.csv"' in disposition
        rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
        assert list(rows[0]) == list(CSV_COLUMNS)
        got = {r["match_id"]: r for r in rows}
        assert got["r1-t3"]["player_a"] == "Ζωή Παπαδοπούλου" and got["r1-t3"]["player_a_id"] == "GRE-1044"
        assert got["r1-t3"]["player_b"] == "Ёлкин Сергей" and got["r1-t3"]["player_b_id"] == "BUL-0007"
        assert got["r1-t3"]["winner"] == "Ёлкин Сергей"
        assert (got["r1-t3"]["score_a"], got["r1-t3"]["score_b"]) == ("0", "2")
        assert got["r1-t4"]["player_a_id"] == "HUN-2231" and got["r1-t4"]["player_b"] == "Søren Ærø"
        assert got["r1-t4"]["player_b_id"] == "NOR-0512" and got["r1-t4"]["winner"] == "Kovács Ödön"
        by_id = {r["match_id"]: r for r in data["results"]}
        assert by_id["r1-t3"]["player_a_id"] == "GRE-1044" and by_id["r1-t3"]["player_b_id"] == "BUL-0007"
        assert by_id["r1-t4"]["player_a_id"] == "HUN-2231" and by_id["r1-t4"]["player_b_id"] == "NOR-0512"
    finally:
        hub.stop()


def test_a_double_loss_is_exported_with_no_winner():
    """FFBG 10.3: both players lose: the CSV names no winner and says why (``end_reason``)."""
    row = {
        "round": 1, "table": "21", "match_id": "r1-t21", "player_a": "Anna Berg", "player_b": "Jon Dahl",
        "length": 9, "score": {"A": 2, "B": 0}, "winner": None, "end_reason": "double_loss",
        "penalties": {"A": 0, "B": 0}, "finished_wall": None,
    }  # fmt: skip
    (out,) = list(csv.DictReader(io.StringIO(results_csv([row]).removeprefix("\ufeff"))))
    assert (out["winner"], out["end_reason"], out["score_a"], out["score_b"]) == ("", "double_loss", "2", "0")
