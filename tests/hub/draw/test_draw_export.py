"""The bracket and its results as JSON and CSV: everything a rating list or a web site needs,
and enough to build the very same bracket again."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.draw import (
    Bracket,
    Call,
    EntryFlight,
    Event,
    FedFlight,
    Feed,
    Result,
    Withdrawal,
    bracket_csv,
    bracket_json,
)
from hub.draw.export import CSV_COLUMNS, FORMAT
from hub.draw.seeding import Draw
from tests.hub.draw.draw_play import brackets

EVENT = Event(
    (EntryFlight("main", 8, "wbgf-2023", (7, 9)), FedFlight("consolation", (Feed("main", 1),), "hbf", (5,)))
)
DRAW = Draw("main", ("a", None, "b", "c", "d", "e", "f", "g"), 77, ("a",))
IDS = {"a": "NOR-1", "b": "SWE-2", "c": "DEN-3"}


def played() -> Bracket:
    b = Bracket.build(EVENT, [DRAW]).with_result("main-r1-m2", "c", at=60_000, points=(7, 2))
    return b.verified("main-r1-m2", at=90_000).with_withdrawal("d", at=100_000)


def rebuilt(doc: dict) -> Bracket:
    """The bracket a reader builds back from the JSON alone."""
    flights = []
    draws = []
    results = []
    for f in doc["flights"]:
        lengths = tuple(f["lengths"])
        if f["kind"] == "entry":
            flights.append(EntryFlight(f["name"], f["size"], f["profile"], lengths))
            draws.append(Draw(f["name"], tuple(f["positions"]), f["random_seed"], tuple(f["seeds"])))
        else:
            feeds = tuple(Feed(x["flight"], x["round"]) for x in f["feeds"])
            flights.append(FedFlight(f["name"], feeds, f["profile"], lengths))
        for r in f["rounds"]:
            for m in r["matches"]:
                if m["result"] is not None:
                    x = m["result"]
                    points = tuple(x["points"]) if x["points"] is not None else None
                    results.append(Result(m["id"], x["winner"], x["confirmed_at"], x["verified_at"], points))
    withdrawals = [Withdrawal(w["player"], w["at"]) for w in doc["withdrawn"]]
    return Bracket.build(Event(tuple(flights)), draws, results, withdrawals)


def test_the_json_names_flights_draws_rounds_seats_and_results():
    calls = [Call("main-r1-m2", "4", 0, 300_000)]
    doc = json.loads(bracket_json(played(), calls, IDS))
    assert doc["format"] == FORMAT
    main, cons = doc["flights"]
    assert main["kind"] == "entry" and main["random_seed"] == 77 and main["seeds"] == ["a"]
    assert main["positions"] == ["a", None, "b", "c", "d", "e", "f", "g"]
    assert cons["kind"] == "fed" and cons["feeds"] == [{"flight": "main", "round": 1}]
    assert main["lengths"] == [7, 9] and [r["length"] for r in main["rounds"]] == [7, 9, 9]
    bye, m2, m3, _ = main["rounds"][0]["matches"]
    assert bye["state"] == "bye" and bye["seats"][1] == {"from": {"position": 2}, "player": None, "bye": True}
    assert bye["winner"] == "a" and bye["call"] is None
    assert m2["seats"][0] == {"from": {"position": 3}, "player": "b", "bye": False, "id": "SWE-2"}
    assert m2["result"] == {"winner": "c", "points": [7, 2], "confirmed_at": 60_000, "verified_at": 90_000}
    assert m2["call"] == {"table": "4", "called_at": 0, "start": 300_000}
    assert m3["state"] == "walkover" and m3["winner"] == "e"
    final = main["rounds"][2]["matches"][0]
    assert final["seats"][0]["from"] == {"winner_of": "main-r2-m1"}
    assert cons["rounds"][0]["matches"][0]["seats"][1]["from"] == {"loser_of": "main-r1-m2"}
    assert doc["withdrawn"] == [{"player": "d", "at": 100_000}]


def test_the_json_builds_the_same_bracket_again():
    b = played()
    assert rebuilt(json.loads(bracket_json(b))) == b


def test_the_csv_has_a_row_per_match_with_ids_and_a_walkovers_loser():
    rows = list(csv.DictReader(io.StringIO(bracket_csv(played(), [Call("main-r1-m2", "4", 0, 0)], IDS))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == len(EVENT.matches)
    by_id = {r["match"]: r for r in rows}
    bye = by_id["main-r1-m1"]
    assert (bye["state"], bye["seat_a"], bye["player_a_id"], bye["seat_b"], bye["winner"]) == (
        "bye",
        "player",
        "NOR-1",
        "bye",
        "a",
    )
    m2 = by_id["main-r1-m2"]
    assert (m2["winner"], m2["winner_id"], m2["loser"], m2["winner_points"], m2["loser_points"]) == (
        "c",
        "DEN-3",
        "b",
        "7",
        "2",
    )
    assert (m2["confirmed_at"], m2["verified_at"], m2["table"], m2["from_a"]) == (
        "60000",
        "90000",
        "4",
        "position 3",
    )
    m3 = by_id["main-r1-m3"]
    assert (m3["state"], m3["winner"], m3["loser"]) == ("walkover", "e", "d")
    waiting = by_id["main-r2-m2"]
    assert (waiting["state"], waiting["seat_a"], waiting["seat_b"], waiting["player_b"]) == (
        "waiting",
        "player",
        "tbd",
        "",
    )
    assert by_id["consolation-r1-m1"]["from_b"] == "loser of main-r1-m2"


@settings(max_examples=40)
@given(bracket=brackets(), data=st.data())
def test_any_bracket_exported_as_json_builds_back_the_same(bracket, data):
    for now in range(data.draw(st.integers(0, 40), label="results")):
        ready = bracket.ready()
        if not ready:
            break
        m = data.draw(st.sampled_from(ready), label="match")
        bracket = bracket.with_result(m.id, data.draw(st.sampled_from(m.players), label="winner"), at=now)
    assert rebuilt(json.loads(bracket_json(bracket))) == bracket
    rows = list(csv.DictReader(io.StringIO(bracket_csv(bracket))))
    assert [r["match"] for r in rows] == [m.id for m in bracket.event.matches]
    assert all(
        r["winner"] == (m.winner if isinstance(m.winner, str) else "")
        for r, m in zip(rows, bracket.matches(), strict=True)
    )
