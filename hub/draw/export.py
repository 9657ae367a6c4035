"""The bracket and its results for the world outside: a federation's rating list, the event's web
site (pure: the bracket in, text out; docs/draw.md describes both forms).

Players are the registry's keys, with their federation ids when the caller gives them (``ids``:
key → id). JSON keeps the whole structure (flights, feeds, draws, rounds, where each seat comes
from); CSV is one row per match for a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from typing import Any

from hub.draw.bracket import BYE, Bracket, BracketMatch, Seat, State
from hub.draw.calls import Call
from hub.draw.flights import EntryFlight, LoserOf, Slot, Source, WinnerOf

#: the JSON's ``format``: a reader checks it before anything else
FORMAT = "smart-table-draw/1"
CSV_COLUMNS = (
    "flight",
    "round",
    "match",
    "length",
    "state",
    "seat_a",
    "player_a",
    "player_a_id",
    "from_a",
    "seat_b",
    "player_b",
    "player_b_id",
    "from_b",
    "winner",
    "winner_id",
    "loser",
    "loser_id",
    "winner_points",
    "loser_points",
    "confirmed_at",
    "verified_at",
    "table",
)


def bracket_json(bracket: Bracket, calls: Iterable[Call] = (), ids: Mapping[str, str] | None = None) -> str:
    """The whole bracket as JSON (see docs/draw.md, "Exports")."""
    ids = ids or {}
    by_match = {c.match: c for c in calls}
    draws = {d.flight: d for d in bracket.draws}
    flights: list[dict[str, Any]] = []
    for f in bracket.event.flights:
        item: dict[str, Any] = {"name": f.name, "profile": f.profile, "lengths": list(f.lengths)}
        if isinstance(f, EntryFlight):
            d = draws[f.name]
            item.update(kind="entry", size=f.size, random_seed=d.random_seed, seeds=list(d.seeds))
            item["positions"] = list(d.positions)
        else:
            item.update(kind="fed", feeds=[{"flight": x.source, "round": x.round} for x in f.feeds])
        rounds: list[dict[str, Any]] = []
        for r in range(1, bracket.event.rounds(f.name) + 1):
            ms = bracket.event.round_matches(f.name, r)
            rows = [_match_json(bracket.match(m.id), by_match.get(m.id), ids) for m in ms]
            rounds.append({"round": r, "length": ms[0].length, "matches": rows})
        item["rounds"] = rounds
        flights.append(item)
    doc = {"format": FORMAT, "flights": flights, "withdrawn": _withdrawn(bracket)}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def bracket_csv(bracket: Bracket, calls: Iterable[Call] = (), ids: Mapping[str, str] | None = None) -> str:
    """One row per match, in the event's order (see docs/draw.md, "Exports")."""
    ids = ids or {}
    by_match = {c.match: c for c in calls}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in bracket.matches():
        winner, loser = outcome(m, bracket.withdrawn)
        points = m.result.points if m.result is not None and m.result.points is not None else None
        call = by_match.get(m.id)
        a, b = m.seats
        writer.writerow(
            (
                m.match.flight,
                m.match.round,
                m.id,
                m.match.length,
                m.state.value,
                _seat_kind(a),
                _key(a),
                ids.get(_key(a), ""),
                _source(m.match.sources[0]),
                _seat_kind(b),
                _key(b),
                ids.get(_key(b), ""),
                _source(m.match.sources[1]),
                winner or "",
                ids.get(winner or "", ""),
                loser or "",
                ids.get(loser or "", ""),
                "" if points is None else points[0],
                "" if points is None else points[1],
                "" if m.result is None else m.result.at,
                "" if m.result is None or m.result.verified_at is None else m.result.verified_at,
                "" if call is None else call.table,
            )
        )
    return out.getvalue()


def outcome(m: BracketMatch, withdrawn: Iterable[str]) -> tuple[str | None, str | None]:
    """Who won and who lost, as a result list says it: a walkover's loser is the withdrawn
    player (who feeds no flight); a bye has no loser."""
    winner = m.winner if isinstance(m.winner, str) else None
    if m.state is State.PLAYED:
        return winner, m.loser if isinstance(m.loser, str) else None
    if m.state is State.WALKOVER:
        out = set(withdrawn)
        losers = [p for p in m.players if p in out]
        return winner, losers[0] if len(losers) == 1 else None
    return winner, None


def _withdrawn(bracket: Bracket) -> list[dict[str, Any]]:
    return [
        {"player": w.player, "at": w.at} for w in sorted(bracket.withdrawals, key=lambda w: (w.at, w.player))
    ]


def _match_json(m: BracketMatch, call: Call | None, ids: Mapping[str, str]) -> dict[str, Any]:
    seats = [_seat_json(seat, source, ids) for seat, source in zip(m.seats, m.match.sources, strict=True)]
    out: dict[str, Any] = {"id": m.id, "number": m.match.number, "state": m.state.value, "seats": seats}
    out["winner"] = m.winner if isinstance(m.winner, str) else None
    r = m.result
    out["result"] = (
        None
        if r is None
        else {
            "winner": r.winner,
            "points": list(r.points) if r.points is not None else None,
            "confirmed_at": r.at,
            "verified_at": r.verified_at,
        }
    )
    out["call"] = (
        None if call is None else {"table": call.table, "called_at": call.called_at, "start": call.start}
    )
    return out


def _seat_json(seat: Seat, source: Source, ids: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"from": _source_json(source), "player": _key(seat) or None, "bye": seat is BYE}
    if isinstance(seat, str) and seat in ids:
        out["id"] = ids[seat]
    return out


def _source_json(source: Source) -> dict[str, Any]:
    if isinstance(source, Slot):
        return {"position": source.position}
    if isinstance(source, WinnerOf):
        return {"winner_of": source.match}
    assert isinstance(source, LoserOf)
    return {"loser_of": source.match}


def _source(source: Source) -> str:
    return source.describe()


def _key(seat: Seat) -> str:
    return seat if isinstance(seat, str) else ""


def _seat_kind(seat: Seat) -> str:
    if seat is None:
        return "tbd"
    return "bye" if seat is BYE else "player"
