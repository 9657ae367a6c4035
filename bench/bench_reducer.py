"""Reducer throughput and journal replay time.

Why: every press, roll and tick at a table goes through ``rulebook.table.apply``, the kiosk replays
the whole journal on every restart, and the hub runs the same reducer for a room of tables. Target:
at least 50,000 inputs/s on one core, so a day's journal (~100,000 inputs) replays in about 2 s.

The input mix is a set of scripted matches (four profiles, 5 to 25 points, with and without a clock)
played by a seeded generator: opening rolls, rolls and presses, cube actions, results, breaks,
pauses, ticks, TD commands and a few inputs the rules refuse, as a real table's journal has.

    python -m bench reducer          # or: python -m bench.bench_reducer [--profile]
"""

from __future__ import annotations

import cProfile
import json
import pstats
import random
import statistics
import sys
import time
from typing import Any

from rulebook.replay import replay_lines
from rulebook.sides import other
from rulebook.table import TableState, apply, new_table

TARGET_PER_S = 50_000
PLAYERS = {"A": {"name": "Ann", "id": "p-1"}, "B": {"name": "Bob", "id": "p-2"}}
PROFILES = [
    ("wbgf-2023", True),
    ("wbgf-2023", False),
    ("hbf", True),
    ("hu", False),
    ("ffbg-cdf", True),
    ("ffbg-cdf", False),
]
LENGTHS = [5, 7, 9, 11, 13, 17, 25]


class _Player:
    """Plays one table: appends inputs to the journal while applying them (to know the state)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.state: TableState = new_table("bench")
        self.now = 0
        self.journal: list[dict[str, Any]] = []

    def send(self, name: str, gap: int = 0, **fields: Any) -> None:
        self.now += gap
        inp = {"at": self.now, "input": name, **fields}
        self.journal.append(inp)
        self.state, _ = apply(self.state, inp)

    def match(self, number: int) -> None:
        rng = self.rng
        profile, clock = rng.choice(PROFILES)
        length = rng.choice(LENGTHS)
        self.send(
            "assign",
            60_000,
            match_id=f"m{number}",
            length=length,
            players=PLAYERS,
            profile=profile,
            clock=clock,
            wall=1_795_000_000_000 + self.now,
            force=True,
        )
        self.send("checkin", rng.randint(0, 90_000), side="A")
        self.send("checkin", rng.randint(0, 90_000), side="B")
        games = 0
        while self.state.match is not None and not self.state.match.is_over() and games < 60:
            games += 1
            self.game()
            if self.state.phase == "flag":
                self.send("cmd", 30_000, id=f"flag-{number}", type="resolve_flag", winner=rng.choice("AB"))
            if rng.random() < 0.08 and self.state.phase == "between_games":
                side = rng.choice("AB")
                self.send("break", 5_000, side=side)
                self.send("tick", 60_000)
                self.send("return", rng.randint(60_000, 300_000), side=side)

    def game(self) -> None:
        rng = self.rng
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        self.send("opening_roll", rng.randint(5_000, 30_000), A=a, B=b)
        while a == b:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            self.send("opening_roll", 3_000, A=a, B=b)
        if self.state.clock.enabled:
            self.send("press", 1_000, side="A" if a < b else "B")
        turns = rng.randint(12, 40)
        for turn in range(turns):
            side = self.state.turn
            if side is None or self.state.phase not in ("playing", "paused"):
                return
            if turn and rng.random() < 0.06:  # a cube action at the start of the turn
                self.send("double", rng.randint(2_000, 20_000), side=side)
                if self.state.clock.enabled:
                    self.send("press", 800, side=side)
                if rng.random() < 0.25:
                    self.send("pass", rng.randint(5_000, 40_000), side=other(side))
                    return
                self.send("take", rng.randint(5_000, 40_000), side=other(side))
                if self.state.clock.enabled:
                    self.send("press", 800, side=other(side))
            if turn:
                if rng.random() < 0.02:
                    self.send("invalid_roll", rng.randint(1_000, 3_000), side=side)
                self.send(
                    "roll",
                    rng.randint(1_000, 4_000),
                    dice=[rng.randint(1, 6), rng.randint(1, 6)],
                    source="tower",
                )
            if rng.random() < 0.3:
                self.send("tick", rng.randint(500, 5_000))
            if rng.random() < 0.01:
                self.send("pause", 1_000, reason="td")
                self.send("resume", rng.randint(10_000, 120_000))
            if rng.random() < 0.01:
                self.send("double", 500, side=other(side))  # out of turn: refused or premature
            self.send("press", rng.randint(3_000, 25_000), side=side)
        winner = rng.choice("AB")
        kind = rng.choices(["single", "gammon", "backgammon"], [70, 25, 5])[0]
        self.send(
            "resign" if rng.random() < 0.2 else "win",
            rng.randint(1_000, 10_000),
            side=other(winner) if rng.random() < 0.2 else winner,
            kind=kind,
        )


def scripted_mix(matches: int, seed: int = 20261122) -> list[dict[str, Any]]:
    """A journal of ``matches`` complete matches played one after another at one table."""
    player = _Player(random.Random(seed))
    for number in range(matches):
        player.match(number)
    return player.journal


def journal_of(size: int, seed: int = 1) -> list[dict[str, Any]]:
    """A journal of exactly ``size`` inputs (whole matches, cut at ``size``)."""
    player = _Player(random.Random(seed))
    number = 0
    while len(player.journal) < size:
        player.match(number)
        number += 1
    return player.journal[:size]


def _apply_all(journal: list[dict[str, Any]]) -> TableState:
    state = new_table("bench")
    for inp in journal:
        state, _ = apply(state, inp)
    return state


def throughput(journal: list[dict[str, Any]], repeats: int = 5) -> list[float]:
    """inputs/s of ``apply`` over the journal, one figure per repeat."""
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        _apply_all(journal)
        rates.append(len(journal) / (time.perf_counter() - started))
    return rates


def cpu_throughput(journal: list[dict[str, Any]], repeats: int = 7) -> float:
    """inputs per second of this process's CPU time, best of ``repeats``: on a machine shared with
    other work the wall-clock figure measures the neighbours too; this one much less."""
    best = 0.0
    for _ in range(repeats):
        started = time.process_time()
        _apply_all(journal)
        best = max(best, len(journal) / (time.process_time() - started))
    return best


def replay_seconds(lines: list[str], repeats: int = 3) -> list[float]:
    """Seconds to replay the journal text (JSON parsing included), as the kiosk does at boot."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        replay_lines(lines, table="bench")
        times.append(time.perf_counter() - started)
    return times


def profile(journal: list[dict[str, Any]]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    _apply_all(journal)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    mix = scripted_mix(200)
    rejected = sum(1 for evs in _events(mix) for e in evs if e.get("rejected") or e.get("ok") is False)
    print(f"reducer input mix: {len(mix)} inputs in 200 scripted matches ({rejected} refused by the rules)")
    if "--profile" in args:
        profile(mix)
        return 0
    rates = throughput(mix)
    best, median = max(rates), statistics.median(rates)
    verdict = "meets" if median >= TARGET_PER_S else "BELOW"
    print(
        f"apply throughput: median {median:,.0f} inputs/s, best {best:,.0f} inputs/s "
        f"({verdict} the {TARGET_PER_S:,} inputs/s target)"
    )
    print(f"apply throughput per CPU second (best of 7): {cpu_throughput(mix):,.0f} inputs/s")
    big = journal_of(100_000)
    lines = [json.dumps(inp) for inp in big]
    times = replay_seconds(lines)
    print(
        f"replay of a {len(lines):,}-input journal (JSON parsing included): median "
        f"{statistics.median(times):.2f} s, best {min(times):.2f} s "
        f"({len(lines) / statistics.median(times):,.0f} inputs/s)"
    )
    return 0


def _events(journal: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    state = new_table("bench")
    out = []
    for inp in journal:
        state, events = apply(state, inp)
        out.append(events)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
