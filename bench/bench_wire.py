"""How much the wire schema costs the hub per message (``rulebook.wire``).

Why: a busy room sends thousands of state snapshots a second and the hub parses every one on its
event loop before anything else reads it. The schema checks every field by type and range and
rebuilds the message with the known fields only; the check it replaced (the hub's old
``check_state``, kept below as the baseline) looked at a dozen top-level fields. Figures: µs per
snapshot (median of several rounds), for a snapshot early in a match and for a long one (a
25-point match with 40 games played and penalties), and per event; and what share of one core a
room sending 5,000 snapshots a second would spend on it.

    python -m bench wire
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from rulebook.wire import parse_event, parse_snapshot

ROUNDS = 7
PLAYERS = {"A": {"name": "Zoltán Kovács", "id": "HU-1"}, "B": {"name": "Ιωάννης Π.", "id": "GR-2"}}


def _old_check_state(s: dict[str, Any]) -> str | None:
    """The hub's check before the wire schema (hub/logic/table_view.py, kept verbatim as the baseline)."""
    seq = s.get("seq")
    if type(seq) is not int or seq < 0:
        return "seq"
    mid = s.get("match_id")
    if mid is not None and type(mid) is not str:
        return "match_id"
    if s.get("phase") not in (
        "waiting",
        "opening",
        "playing",
        "between_games",
        "break",
        "paused",
        "flag",
        "finished",
    ):
        return "phase"
    if type(s.get("length")) is not int:
        return "length"
    score, present = s.get("score"), s.get("present")
    if not (type(score) is dict and type(score.get("A")) is int and type(score.get("B")) is int):
        return "score"
    if not (type(present) is dict and type(present.get("A")) is bool and type(present.get("B")) is bool):
        return "present"
    players = s.get("players")
    if players is not None:
        for side in ("A", "B"):
            p = players.get(side)
            if type(p) is not dict or type(p.get("name")) is not str:
                return "players"
    clock = s.get("clock")
    if clock is not None:
        if type(clock) is not dict or type(clock.get("enabled")) is not bool:
            return "clock"
        if clock.get("running") not in (None, "A", "B"):
            return "clock.running"
    breaks = s.get("breaks")
    if breaks is not None:
        for side in ("A", "B"):
            b = breaks.get(side)
            if type(b) is not dict or type(b.get("used")) is not int:
                return "breaks"
    if s.get("td_call") not in (None, "A", "B"):
        return "td_call"
    if type(s.get("games", [])) is not list or type(s.get("penalty_log", [])) is not list:
        return "games"
    return None


def _match(games: int, penalties: int) -> dict[str, Any]:
    state = new_table("12")
    at = 0

    def step(inp: dict[str, Any]) -> None:
        nonlocal state, at
        at += 1000
        state, _ = apply(state, {**inp, "at": at, "wall": 1_800_000_000_000 + at})

    step(
        {
            "input": "assign",
            "match_id": "r3-t12",
            "length": 25,
            "players": PLAYERS,
            "clock": True,
            "profile": "wbgf-2023",
        }
    )
    step({"input": "checkin", "side": "A"})
    for n in range(penalties):
        step(
            {
                "input": "cmd",
                "id": f"late:r3-t12:B:{n + 1}",
                "type": "penalty",
                "against": "B",
                "points": 1,
                "reason": "late",
            }
        )
    step({"input": "checkin", "side": "B"})
    for g in range(games):
        step({"input": "opening_roll", "A": 6 if g % 2 else 1, "B": 1 if g % 2 else 6})
        step({"input": "win", "side": "B" if g % 2 else "A", "kind": "single"})
        if state.phase == "finished":
            break
    snap = json.loads(json.dumps(snapshot(state)))
    assert len(snap["games"]) == games and len(snap["penalty_log"]) == penalties, snap
    return snap


def _per_call_us(func: Callable[[Any], Any], arg: Any, n: int) -> float:
    rounds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(n):
            func(arg)
        rounds.append((time.perf_counter() - started) / n * 1e6)
    return statistics.median(rounds)


def main() -> int:
    early = _match(games=1, penalties=0)
    long = _match(games=40, penalties=3)
    event = {
        "seq": 57,
        "match_id": "r3-t12",
        "type": "roll",
        "dice": [3, 4],
        "source": "tower",
        "side": "A",
        "at": 123_000,
        "wall": 1_800_000_123_000,
    }
    assert parse_snapshot(early) == early and parse_snapshot(long) == long
    print(
        f"snapshot sizes: early {len(json.dumps(early))} B, long {len(json.dumps(long))} B "
        f"({len(long['games'])} games)"
    )
    rows = []
    for name, snap in (("early in a match", early), ("long match", long)):
        old = _per_call_us(_old_check_state, snap, 20_000)
        new = _per_call_us(parse_snapshot, snap, 20_000)
        # the hub's case: the table's previous snapshot (another object, equal lists) is known
        previous = parse_snapshot(json.loads(json.dumps(snap)))
        hub = _per_call_us(lambda s, p=previous: parse_snapshot(s, p), snap, 20_000)
        rows.append((name, old, hub))
        print(
            f"snapshot, {name:17}: old check {old:6.2f} µs; wire schema {new:6.2f} µs alone, "
            f"{hub:6.2f} µs after the table's previous snapshot ({hub / old:.1f}× the old check)"
        )
    ev = _per_call_us(parse_event, event, 100_000)
    print(f"event (roll):               wire schema {ev:6.2f} µs")
    worst = max(new for _, _, new in rows)
    print(f"a room sending 5,000 snapshots/s: {5000 * worst / 1e4:.1f} % of one core on the schema")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
