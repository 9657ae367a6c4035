"""A room in every interesting state, for the dashboard tests and the screenshots.

Nine tables on a fake clock: a match in play with running clocks, a late player with a penalty
point, a time flag, a break, a TD call, a finished match waiting for verification, an offline
table, a Crawford game, and a scheduled table that never connected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, hub_state, schedule_csv, start_hub, tick

PAIRS = [
    ("1", "Mochizuki Masayoshi", "Lars Trabolt", 7),
    ("2", "Akiko Yazawa", "Marc Olsen", 7),
    ("3", "Zoltán Kovács", "Éva Szabó", 1),
    ("4", "Sander Lylloff", "Ιωάννης Παπαδόπουλος", 9),
    ("5", "Camille Durand", "Tobias Hauge", 7),
    ("6", "Георги Иванов", "Ingrid Berg", 3),
    ("7", "Nikos Georgiou", "Anna Nagy", 7),
    ("8", "Pierre Martin", "Kari Nordmann", 7),
    ("9", "Jean Dupont", "Ola Hansen", 5),
]


@dataclass
class Scene:
    hub: HubThread
    clock: FakeClock
    sims: dict[str, SimTable] = field(default_factory=dict)

    def stop(self) -> None:
        for sim in self.sims.values():
            sim.stop()
        self.hub.stop()


def _both_in(sim: SimTable) -> None:
    sim.checkin("A")
    sim.checkin("B")


def _game(sim: SimTable, winner: str, kind: str = "single") -> None:
    first, second = (6, 2) if winner == "A" else (2, 6)
    sim.opening_roll(first, second)
    sim.win(winner, kind)


def _in_sync(hub: HubThread, sims: dict[str, SimTable]) -> None:
    """Wait until the hub holds every table's latest state (before time moves on)."""

    def synced(h: object) -> bool:
        return all(
            hub_state(h, t).get("seq") == sim.state.seq
            and hub_state(h, t).get("match_id") == sim.state.match_id
            for t, sim in sims.items()
            if sim.link.online
        )

    hub.wait_for(synced)


def build(tmp_path: Path, host: str, port: int, event: str, *, public: bool = False) -> Scene:
    clock = FakeClock(T0 - 2 * MIN)
    rows = [
        {"round": 1, "table": t, "player_a": a, "player_b": b, "length": n, "start": T0}
        for t, a, b, n in PAIRS
    ]
    rows.append(
        {
            "round": 2,
            "table": "1",
            "player_a": "Mochizuki Masayoshi",
            "player_b": "Akiko Yazawa",
            "length": 9,
            "start": T0 + 120 * MIN,
        }
    )
    hub = start_hub(tmp_path, host, port, event, clock, schedule=schedule_csv(rows), public=public)
    scene = Scene(hub, clock)
    try:
        for t, *_ in PAIRS[:8]:
            sim = SimTable(event, t, host, port, clock=clock).start()
            scene.sims[t] = sim
        for t, sim in scene.sims.items():
            sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
        s = scene.sims
        # 1: in play, 3-2, A's clock running
        _both_in(s["1"])
        _game(s["1"], "A", "gammon")
        _game(s["1"], "B", "gammon")
        _game(s["1"], "A")
        s["1"].opening_roll(5, 3)
        s["1"].press("B")
        # 2: Marc Olsen is late
        s["2"].checkin("A")
        # 3: a one-point match whose clock will run out
        _both_in(s["3"])
        s["3"].opening_roll(4, 1)
        s["3"].press("B")
        # 5: a TD call mid-game
        _both_in(s["5"])
        s["5"].opening_roll(3, 5)
        s["5"].press("A")
        s["5"].call_td("A")
        # 6: finished, waiting for verification
        _both_in(s["6"])
        _game(s["6"], "B", "gammon")
        _game(s["6"], "B")
        # 7: will go offline
        _both_in(s["7"])
        s["7"].opening_roll(6, 1)
        # 8: the Crawford game (A at 6 of 7)
        _both_in(s["8"])
        _game(s["8"], "A", "backgammon")
        _game(s["8"], "B")
        _game(s["8"], "A", "gammon")
        _game(s["8"], "A")
        s["8"].opening_roll(2, 5)
        s["8"].press("A")
        # 4: a break between games
        _both_in(s["4"])
        _game(s["4"], "A")
        # the hub must hold every table's state before time moves: it anchors the durations a
        # table reports (since check-in, since the assignment) at the moment it receives them
        _in_sync(hub, s)
        clock.set(T0 + 4 * MIN)
        s["4"].take_break("B")
        s["7"].stop(graceful=False)
        hub.wait_for(lambda h: "7" in h.views and not h.views["7"].online)
        _in_sync(hub, s)
        clock.set(T0 + 7 * MIN)
        s["3"].tick()  # the one-point match's two minutes ran out
        for t in ("1", "5", "8"):
            s[t].tick()
        _in_sync(hub, s)
        tick(hub)
        s["2"].wait_for(lambda st: snapshot(st)["penalties"]["B"] == 1)
        hub.wait_for(lambda h: hub_state(h, "2").get("penalties", {}).get("B") == 1)
        hub.wait_for(lambda h: hub_state(h, "3").get("phase") == "flag" and "r1-t6" in h.results)
        tick(hub)
        return scene
    except BaseException:
        scene.stop()
        raise
