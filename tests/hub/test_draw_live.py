"""The draw in the running hub: a rolling knockout played through a real broker, the real hub (its
own ticker, once a second) and simulated tables, with scripted players.

A main flight of 16 places with 12 entries (4 byes) and a consolation fed by its round 1, on 3
tables; and 29 entries in 32 places on 8 tables: every match is called as a table frees up, no
table and no player is ever booked twice, a player who comes late to the first call is late from
the call plus the walking grace (not from the call) and gets the profile's point at the first
mark, once, and still plays his match; a wrong result is undone (the match called again, what
depended on it derived again), the hub stopped and started again in the middle goes on where it
was, the exported bracket equals the scripted truth, and a restarted hub holds the same bracket.

The main's round 1 is played to 3 points and the rest to 1 (the draw's lengths by round): a
lateness point must not end the late player's match (in a 1-point match it is a forfeit).
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import statistics
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from demo.simtable import SimTable
from hub.draw import Bracket, State
from hub.live.draw_setup import read_draw_file
from hub.service import HubThread
from rulebook.custom_profiles import ProfileBook
from rulebook.policy import lateness_points
from rulebook.profiles import PROFILES
from rulebook.sides import SIDES, Side
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, PASSWORD, event_id, hub_state, present, sim_table, start_hub, tick
from tests.support.patience import patience, wait_until


def draw_file(tmp: Path, size: int, entries: int, tables: tuple[str, ...]) -> Path:
    """A main of ``size`` places with ``entries`` players (the first four seeded) and a
    consolation fed by its round 1, on ``tables``."""
    keys = [f"p{n:02d}" for n in range(1, entries + 1)]
    players = "\n".join(
        f'[[players]]\nkey = "{p}"\nname = "Player {p[1:]}"\nid = "FED-{p[1:]}"\n' for p in keys
    )
    entries = "\n".join(
        f'[[entries]]\nflight = "main"\nplayer = "{p}"\n' + (f"seed = {i}\n" if i <= 4 else "")
        for i, p in enumerate(keys, start=1)
    )
    path = tmp / "draw.toml"
    path.write_text(
        f"""
[draw]
tables = {json.dumps(list(tables))}
grace_minutes = 5
needs_verified = false
random_seed = 2026

[[flights]]
name = "main"
size = {size}
profile = "wbgf-2023"
lengths = [3, 1]

[[flights]]
name = "consolation"
feeds = [{{ flight = "main", round = 1 }}]
profile = "wbgf-2023"
lengths = [1]

{players}
{entries}
""",
        encoding="utf-8",
    )
    return path


def strongest(players: tuple[str, ...]) -> str:
    """The scripted truth: the lower key wins."""
    return min(players)


#: the draw's walking grace and its profile, as the draw file says
GRACE_MS = 5 * MIN
PROFILE = PROFILES["wbgf-2023"]
#: how a single win scores at cube 1, by the points it takes
WIN_KIND = {1: "single", 2: "gammon", 3: "backgammon"}


def truth(path: Path) -> Bracket:
    """The bracket played out by the script, with the pure model alone."""
    setup = read_draw_file(path, ProfileBook())
    bracket = Bracket.build(setup.event, setup.draws)
    at = 0
    while ready := bracket.ready():
        for m in ready:
            at += 1
            bracket = bracket.with_result(m.id, strongest(m.players), at, points=(m.match.length, 0))
    return bracket


async def _get(url: str, paths: list[str]) -> list[tuple[int, str]]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.get(url + "/api/session") as r:
            csrf = (await r.json())["csrf"]
        async with http.post(
            url + "/api/login", json={"password": PASSWORD}, headers={"X-CSRF-Token": csrf}
        ) as r:
            csrf = (await r.json())["csrf"]
        out = []
        for path in paths:
            method, _, target = path.partition(" ")
            async with http.request(method, url + target, headers={"X-CSRF-Token": csrf}) as r:
                out.append((r.status, await r.text()))
        return out


def live_calls(hub: HubThread) -> list[tuple[str, str, tuple[str, ...]]]:
    """(match, table, players) of every call whose match is still to be played."""

    def read() -> list[tuple[str, str, tuple[str, ...]]]:
        draw = hub.hub.draw
        assert draw.bracket is not None
        return [
            (c.call.match, c.call.table, c.players)
            for c in draw.called.values()
            if draw.bracket.match(c.call.match).state is State.READY
        ]

    result: list[tuple[str, str, tuple[str, ...]]] = hub.call(read)
    return result


class Room:
    def __init__(self, tmp: Path, mosquitto: Any, clock: Any, size: int, entries: int, tables: int) -> None:
        self.tmp, self.mosquitto, self.clock = tmp, mosquitto, clock
        self.event = event_id("draw-live")
        self.tables = tuple(str(t) for t in range(1, tables + 1))
        self.path = draw_file(tmp, size, entries, self.tables)
        self.hub = self.start_hub()
        self.stack = ExitStack()
        self.sims: dict[str, SimTable] = {
            t: self.stack.enter_context(sim_table(self.event, t, mosquitto.host, mosquitto.port, clock))
            for t in self.tables
        }
        #: scheduled match ids played, in order
        self.played: list[str] = []
        #: seconds from a result confirmed at a table to that table's next call
        self.latencies: list[float] = []
        self._confirmed_at: dict[str, float] = {}

    def start_hub(self) -> HubThread:
        return start_hub(
            self.tmp,
            self.mosquitto.host,
            self.mosquitto.port,
            self.event,
            self.clock,
            draw=self.path,
            tick_interval=1.0,
        )

    def keys(self, table: str, match_id: str) -> tuple[str, str] | None:
        """The players (keys) of the match the hub has current at ``table``, if it is ``match_id``."""

        def read() -> tuple[str, str] | None:
            h = self.hub.hub
            cur = h.current.get(table)
            if cur is None or cur.match.match_id != match_id:
                return None
            return (h.room_state.players.key(cur.match, "A"), h.room_state.players.key(cur.match, "B"))

        result: tuple[str, str] | None = self.hub.call(read)
        return result

    def called(self) -> dict[str, tuple[str, tuple[str, str]]]:
        """table -> (match, players) of every match called to a table that has taken it and not
        begun to play it."""
        out = {}
        for t, sim in self.sims.items():
            st = sim.state
            if not st.match_id or st.match_id in self.played or st.phase not in ("waiting", "opening"):
                continue
            keys = self.keys(t, st.match_id)
            if keys is not None:
                out[t] = (st.match_id, keys)
        return out

    def play_ready(self, winner: Callable[[tuple[str, str]], str]) -> str | None:
        """Play one match called to a table (the hub's current match there); its id, or None."""
        for t, (match_id, keys) in self.called().items():
            self.play(t, match_id, keys, winner(keys))
            return match_id
        return None

    def play(self, table: str, match_id: str, keys: tuple[str, str], winner: str) -> None:
        """The players of ``match_id`` at ``table`` check in (those not there yet), and ``winner``
        wins it in one game, both confirm."""
        if table in self._confirmed_at:
            self.latencies.append(time.monotonic() - self._confirmed_at.pop(table))
        sim = self.sims[table]
        for s in SIDES:
            if not snapshot(sim.state)["present"][s]:
                sim.checkin(s)
        sim.opening_roll(6, 2)
        side: Side = "A" if winner == keys[0] else "B"
        snap = snapshot(sim.state)
        sim.win(side, WIN_KIND[snap["length"] - snap["score"][side]])
        assert sim.state.phase == "finished", snapshot(sim.state)
        sim.confirm("A")
        sim.confirm("B")
        self._confirmed_at[table] = time.monotonic()
        self.played.append(match_id)

    def late_player(self) -> tuple[str, int, int]:
        """A player comes 12 minutes after the first call (his opponent on time): lateness counts
        from the call plus the walking grace, so 9 minutes after the call he has nothing and at
        12 he is 7 minutes late and has the profile's point for it, once; then he plays.

        The clock is the room's: every other called table has both its players in first, so
        moving it makes nobody else late. Returns (the late player, the late ms, his points)."""
        calls = wait_until(
            lambda: (c := self.called()) and len(c) == len(self.tables) and c,
            patience(60),
            "every table called",
        )
        table = min(calls, key=lambda t: calls[t][0])
        match_id, keys = calls[table]
        late = strongest(keys)  # the late player still wins: the point decides nothing here
        side: Side = "A" if late == keys[0] else "B"
        on_time: Side = "B" if side == "A" else "A"
        called_at = self.clock.now_wall()  # the clock has not moved since the calls
        start = self.hub.call(lambda: self.hub.hub.room_state.by_id[match_id].start_wall)
        assert start == called_at + GRACE_MS
        for t, sim in self.sims.items():
            for s in SIDES if t != table else (on_time,):
                sim.checkin(s)
        self.hub.wait_for(
            lambda h: all(
                present(h, t, s) for t in self.tables for s in (SIDES if t != table else (on_time,))
            )
        )

        def lateness() -> dict[str, Any]:
            tick(self.hub)
            facts: dict[str, Any] = self.hub.call(self.hub.hub.tile, table)["lateness"][side]
            return facts

        # 9 minutes after the call: 4 late, counted from the start (from the call it would be 9)
        self.clock.set(called_at + 9 * MIN)
        facts = lateness()
        assert (facts["counts_from"], facts["counts_from_reason"]) == (start, "start")
        assert (facts["late_ms"], facts["penalty_ids"]) == (4 * MIN, [])
        assert lateness_points(PROFILE, 4 * MIN, clock=False) == 0
        # 12 minutes after the call: 7 late, past the first mark (5): the profile's one point
        self.clock.set(called_at + 12 * MIN)
        late_ms = self.clock.now_wall() - start
        due = lateness_points(PROFILE, late_ms, clock=False)
        assert (late_ms, due) == (7 * MIN, 1)
        facts = lateness()
        assert facts["late_ms"] == late_ms
        self.sims[table].wait_for(lambda s: snapshot(s)["penalties"][side] == due)
        self.hub.wait_for(lambda h: hub_state(h, table)["penalties"][side] == due)
        facts = lateness()  # the point applied at the table; a tick more gives nothing more
        assert facts["penalty_ids"] == [f"late:{match_id}:{side}:{n}" for n in range(1, due + 1)], facts
        assert facts["pending_ids"] == [], facts
        snap = snapshot(self.sims[table].state)
        assert snap["penalties"] == {side: due, on_time: 0}
        assert snap["score"] == {side: 0, on_time: due}
        # nobody else was late: every other called table had both its players in
        others = {t: snapshot(sim.state)["penalties"] for t, sim in self.sims.items() if t != table}
        assert others == {t: {"A": 0, "B": 0} for t in others}
        # he comes, plays and wins, 3-1
        self.play(table, match_id, keys, late)
        snap = snapshot(self.sims[table].state)
        assert (snap["penalties"], snap["score"]) == ({side: due, on_time: 0}, {side: 3, on_time: due})
        return late, late_ms, due

    def check_bookings(self) -> None:
        calls = live_calls(self.hub)
        tables = [t for _, t, _ in calls]
        players = [p for _, _, ps in calls for p in ps]
        assert len(tables) == len(set(tables)), calls
        assert len(players) == len(set(players)), calls

    def why(self) -> str:
        """What the hub and the tables hold (for a failure's message)."""

        def read() -> str:
            h = self.hub.hub
            d = h.draw
            return (
                f"ready {[m.id for m in d.bracket.ready()]}, calls {list(d.called)}, "
                f"current { {t: c.match.match_id for t, c in h.current.items()} }, "
                f"tables {d._tables()}, latencies {self.latencies}"
            )

        tables = {t: (s.state.match_id, str(s.state.phase)) for t, s in self.sims.items()}
        return f"{self.hub.call(read)}; sims {tables}"

    def complete(self) -> bool:
        return bool(self.hub.call(lambda: self.hub.hub.draw.bracket.is_complete()))

    def close(self) -> None:
        self.stack.close()
        self.hub.stop()


@pytest.mark.parametrize(
    ("size", "entries", "tables"),
    [(16, 12, 3), (32, 29, 8)],
    ids=["16-places-12-entries-3-tables", "32-places-29-entries-8-tables"],
)
def test_a_rolling_knockout_plays_itself_out(tmp_path, mosquitto, clock, size, entries, tables):
    room = Room(tmp_path, mosquitto, clock, size, entries, tables)
    try:
        # the first match played is given the wrong winner, then undone by the TD
        def play_first() -> str | None:
            room.check_bookings()
            return room.play_ready(lambda keys: max(keys))

        # a player late to the first call, then the first match played is given the wrong winner
        late, late_ms, points = room.late_player()
        draw_match = wait_until(play_first, patience(60), "a match called")  # the draw's match id
        room.hub.wait_for(lambda h: h.draw.bracket.match(draw_match).state is State.PLAYED, timeout=30)
        ((status, body),) = asyncio.run(_get(room.hub.url, [f"POST /api/draw/matches/{draw_match}/undo"]))
        assert status == 200, body
        assert draw_match in json.loads(body)["changed"]
        assert room.hub.call(lambda: room.hub.hub.draw.bracket.match(draw_match).state) is State.READY

        restarted = False

        def play_on() -> bool:
            """One step of the draw: every call checked, one match played; True once it is over."""
            nonlocal restarted
            room.check_bookings()
            if not restarted and len(room.played) >= 6:
                # the hub stops in the middle of the draw and starts again on its database
                restarted = True
                room.hub.stop()
                room.hub = room.start_hub()
                room._confirmed_at.clear()
            room.play_ready(strongest)
            return room.complete()

        try:
            wait_until(play_on, patience(30 * entries), "the draw finished")
        except TimeoutError as exc:
            raise AssertionError(f"the draw did not finish; played {room.played}: {room.why()}") from exc

        # the wrong result's match was called again, under a new id, and played once more
        assert f"{draw_match}-2" in room.played
        expected = truth(room.path)
        statuses = asyncio.run(_get(room.hub.url, ["GET /api/draw", "GET /api/draw.csv"]))
        assert [s for s, _ in statuses] == [200, 200]
        exported = json.loads(statuses[0][1])
        got = {
            m["id"]: (m["state"], tuple(s["player"] for s in m["seats"]), m["winner"])
            for f in exported["flights"]
            for r in f["rounds"]
            for m in r["matches"]
        }
        want = {
            m.id: (m.state.value, tuple(p if isinstance(p, str) else None for p in m.seats), m.winner)
            for m in expected.matches()
        }
        assert got == want
        rows = list(csv.DictReader(io.StringIO(statuses[1][1])))
        assert {r["match"]: r["winner"] for r in rows} == {m.id: m.winner or "" for m in expected.matches()}
        # every match played was called once (the undone one twice), at most 3 at a time
        played = [m for m in expected.matches() if m.state is State.PLAYED]
        assert len(room.played) == len(played) + 1
        print(
            f"\n{late} absent {late_ms // MIN} minutes past his start (the call + {GRACE_MS // MIN} "
            f"minutes): {points} point; "
            f"{len(room.played)} matches on {tables} tables; confirmed result to the table's next "
            f"call: median {statistics.median(room.latencies):.2f} s, max {max(room.latencies):.2f} s "
            f"({len(room.latencies)} calls)"
        )

        # a restarted hub holds the same bracket (from its store and the tables' results)
        before = room.hub.call(lambda: room.hub.hub.draw.bracket)
        room.hub.stop()
        room.hub = room.start_hub()
        assert room.hub.call(lambda: room.hub.hub.draw.bracket) == before
    finally:
        room.close()
