"""What a full look at the room's lateness and alerts costs the hub per tick (``hub.live.alerts``).

Why: once a second the hub re-evaluates every table's alerts (``Alerts.sync``) and every tile's
lateness. Since lateness knows where every player is (their other matches, the end of the
previous one), when the opponent arrived and what was already given, each table's look does
more than comparing two times. Measured: a room of N tables with three rounds scheduled, every
round-1 match waiting with player B absent 7 minutes after the start (each table with a late
alert: the worst case), the time of one full ``Alerts.sync`` (minimum and median of 15) and of
every table's tile lateness (``Alerts.tile_facts``). No broker, no I/O beyond the in-memory
SQLite the alerts write to.

    python -m bench lateness
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from hub.live.alerts import Alerts
from hub.live.state import RoomState
from hub.logic.conditions import AlertConfig
from hub.logic.lateness import LateConfig
from hub.storage.store import Store
from hub.tournament.rounds import current_matches
from hub.tournament.schedule import parse_schedule
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table

T0 = 1_900_000_000_000
MIN = 60_000
REPEAT = 15


def room(tables: int, db: Path) -> tuple[Alerts, RoomState]:
    lines = ["round,table,player_a,player_b,length,start"]
    for rnd in (1, 2, 3):
        start = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime((T0 + (rnd - 1) * 120 * MIN) / 1000))
        for t in range(1, tables + 1):
            a, b = (t * 2 + rnd) % (2 * tables), (t * 3 + rnd) % (2 * tables)
            lines.append(f"{rnd},{t},Player A{a},Player B{b},7,{start}")
    schedule = parse_schedule("\n".join(lines) + "\n")
    state = RoomState(get_profile("wbgf-2023"))
    state.set_schedule(schedule)
    state.current = current_matches(
        schedule, results={}, released=set(), confirmed=set(), now=T0, hold_ms=2 * MIN
    )
    for t, cur in state.current.items():
        st, _ = apply(
            new_table(t), {**cur.match.assign_payload(), "input": "assign", "at": 0, "wall": T0 - MIN}
        )
        st, _ = apply(st, {"input": "checkin", "side": "A", "at": 1})
        view = state.view(t)
        view.state, view.state_wall, view.state_fresh = snapshot(st), T0 - MIN, True
        view.online, view.status = True, {"online": True}
    return Alerts(state, Store(db), AlertConfig(), LateConfig()), state


def timed(fn: object) -> tuple[float, float]:
    runs = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        runs.append(time.perf_counter() - started)
    return min(runs) * 1000, statistics.median(runs) * 1000


def main() -> None:
    now = T0 + 7 * MIN
    print("tables  sync min / median (ms)  tiles' lateness min / median (ms)  per table (µs)")
    for tables in (100, 500, 1000):
        with tempfile.TemporaryDirectory() as tmp:
            alerts, state = room(tables, Path(tmp) / "hub.db")
            alerts.sync(now, None)
            sync = timed(lambda a=alerts: a.sync(now, None))
            tiles = timed(lambda a=alerts, s=state: [a.tile_facts(t, s.match_for(t), now) for t in s.current])
            per = (sync[0] + tiles[0]) * 1000 / tables
            print(
                f"{tables:6}  {sync[0]:7.1f} / {sync[1]:7.1f}          "
                f"{tiles[0]:7.1f} / {tiles[1]:7.1f}                    {per:6.0f}"
            )


if __name__ == "__main__":
    main()
