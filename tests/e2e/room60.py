"""A 60-table room in every state a TD meets, on a fake clock, for the dashboard's layout tests and
screenshots: 57 simulated tables on the real broker and hub (three never connect), players from
Greece, Bulgaria, Hungary, Norway, France and elsewhere, a second round scheduled for later.

At the room's moment (``T0 + 7 min``): tables 1–30 playing (clocks running, various scores),
31–36 a player late (a point given at 5:00), 37–42 finished a minute ago (38–40 waiting for
verification at their tables; 37 confirmed by both players, 41–42 verified by the TD: those three
have their round-2 match, waiting), 43–44 a break (45 between games: a 5-point match has no
break), 46–47 a time flag, 48–49 a TD call, 50–52 offline, 53–54 nobody there yet, 55–57 both
players there but not started, 58–60 never connected.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.service import HubThread
from rulebook.snapshot import snapshot
from tests.hub.support import MIN, T0, hub_state, schedule_csv, start_hub, tick
from tests.support.patience import patience

FIRST_LAST = {
    "el": (
        ["Γιώργος", "Ελένη", "Δημήτρης", "Ζωή", "Νίκος", "Σοφία"],
        ["Παπαδόπουλος", "Νικολάου", "Ιωάννου", "Οικονόμου"],
    ),
    "bg": (
        ["Георги", "Мария", "Димитър", "Елена", "Йордан", "Светлана"],
        ["Иванов", "Петрова", "Георгиев", "Стоянова"],
    ),
    "hu": (["Ödön", "Éva", "Gábor", "Zsuzsanna", "Árpád", "Lőrinc"], ["Kovács", "Szabó", "Tóth", "Horváth"]),
    "nb": (["Søren", "Åse", "Øystein", "Kari", "Håkon", "Ingrid"], ["Ærø", "Bjørnstad", "Dæhlie", "Sæther"]),
    "fr": (
        ["Camille", "Léa", "Jérôme", "Chloé", "Benoît", "Françoise"],
        ["Durand", "Lefèvre", "Dubois", "Moreau"],
    ),
    "en": (["Anna", "Jon", "Mia", "Ola", "Kevin", "Ruth"], ["Berg", "Dahl", "Lund", "Walsh"]),
}
TABLES = [str(n) for n in range(1, 61)]
WAIT = patience(30.0)  # seconds on a quiet machine, scaled for a loaded one
NEVER = {"58", "59", "60"}
OFFLINE = {"50", "51", "52"}


def players() -> list[str]:
    """120 distinct names, the languages interleaved (Hungarian names family name first)."""
    names = []
    for lang, (first, last) in FIRST_LAST.items():
        for f, surname in itertools.product(first, last):
            names.append(f"{surname} {f}" if lang == "hu" else f"{f} {surname}")
    rng = random.Random(60)
    rng.shuffle(names)
    return names[:120]


@dataclass
class Room60:
    hub: HubThread
    clock: FakeClock
    names: list[str]
    sims: dict[str, SimTable] = field(default_factory=dict)

    def pair(self, table: str) -> tuple[str, str]:
        i = int(table) - 1
        return self.names[2 * i], self.names[2 * i + 1]

    def stop(self) -> None:
        for sim in self.sims.values():
            sim.stop()
        self.hub.stop()


def _game(sim: SimTable, winner: str, kind: str = "single") -> None:
    sim.opening_roll(6, 2) if winner == "A" else sim.opening_roll(2, 6)
    sim.win(winner, kind)


def build(tmp_path: Path, host: str, port: int, event: str, *, public: bool = False) -> Room60:
    names = players()
    rows = []
    for t in TABLES:
        i = int(t) - 1
        length = 1 if t in ("46", "47") else (5, 7, 9, 11)[i % 4]
        rows.append(
            {
                "round": 1,
                "table": t,
                "player_a": names[2 * i],
                "player_b": names[2 * i + 1],
                "length": length,
                "start": T0,
                "clock": "yes",
                "player_a_id": f"P{2 * i + 1:03d}",
                "player_b_id": f"P{2 * i + 2:03d}",
            }
        )
    for t in TABLES:  # round 2: the winners' bracket, two hours later (pairs rotated)
        i = int(t) - 1
        j = (i + 1) % 60
        rows.append(
            {
                "round": 2,
                "table": t,
                "player_a": names[2 * i],
                "player_b": names[2 * j + 1],
                "length": 7,
                "start": T0 + 120 * MIN,
                "clock": "yes",
            }
        )
    clock = FakeClock(T0 - 2 * MIN)
    hub = start_hub(tmp_path, host, port, event, clock, schedule=schedule_csv(rows), public=public)
    room = Room60(hub, clock, names)
    try:
        for t in TABLES:
            if t not in NEVER:
                room.sims[t] = SimTable(event, t, host, port, clock=clock).start()
        for t, sim in room.sims.items():
            sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
        rng = random.Random(7)
        s = room.sims
        for t, sim in s.items():
            n = int(t)
            if n <= 30 or 37 <= n <= 49 or n in (50, 51, 52, 55, 56, 57):
                sim.checkin("A")
                sim.checkin("B")
            elif 31 <= n <= 36:
                sim.checkin("A")
            if n <= 30:
                for _ in range(rng.randint(0, 3)):
                    _game(sim, rng.choice("AB"), rng.choice(["single", "single", "gammon"]))
                sim.opening_roll(5, 3)
                sim.press("B")
            elif 43 <= n <= 45:
                _game(sim, "A")
            elif n in (46, 47):
                sim.opening_roll(4, 1)
                sim.press("B")
            elif n in (48, 49):
                sim.opening_roll(3, 5)
                sim.press("A")
                sim.call_td("B" if n == 48 else "A")
            elif n in OFFLINE:
                sim.opening_roll(6, 1)
        clock.set(T0 + 4 * MIN)
        for t in ("43", "44", "45"):
            s[t].take_break("B")
        for t in OFFLINE:
            s[t].stop(graceful=False)
        hub.wait_for(lambda h: all(t in h.views and not h.views[t].online for t in OFFLINE))
        for t in OFFLINE:
            del s[t]
        _in_sync(hub, s)
        clock.set(T0 + 6 * MIN)
        for t in ("37", "38", "39", "40", "41", "42"):  # finished a minute ago: still at their tables
            sim = s[t]
            while sim.state.match is not None and not sim.state.match.is_over():
                _game(sim, "A" if int(t) % 2 else "B", "backgammon")
            if t in ("37", "41", "42"):
                sim.confirm("A")
                sim.confirm("B")
        _in_sync(hub, s)
        tick(hub)
        clock.set(T0 + 7 * MIN)
        for sim in s.values():
            sim.tick()
        _in_sync(hub, s)
        tick(hub)
        hub.wait_for(
            lambda h: all(
                t in h.views and hub_state(h, t).get("penalties", {}).get("B") == 1
                for t in ("31", "32", "33", "34", "35", "36")
            )
        )
        hub.wait_for(lambda h: all(f"r1-t{t}" in h.results for t in ("37", "38", "39", "40", "41", "42")))
        for mid in ("r1-t41", "r1-t42"):
            hub.call(hub.hub.actions.verify_result, mid, "td")
        tick(hub)
        return room
    except BaseException:
        room.stop()
        raise


def _in_sync(hub: HubThread, sims: dict[str, SimTable]) -> None:
    hub.wait_for(
        lambda h: all(
            hub_state(h, t).get("seq") == sim.state.seq
            and hub_state(h, t).get("match_id") == sim.state.match_id
            for t, sim in sims.items()
        ),
        timeout=WAIT,
    )


# -- round 2 starts while round 1 still plays -------------------------------------------------------

#: the round-1 alerts the TD answered as they came (the decisions: flags, calls, both absent)
ANSWERED = ("flag", "td_call", "both_absent")
#: the round-2 tables whose match is at the table at round 2's start (their round-1 match over)
ROUND2_READY = [str(n) for n in range(31, 43)]
#: the round-2 table whose player A calls the TD just after round 2 started (B is not there)
CALLER = "41"
ROUND2 = T0 + 120 * MIN


def round_two(room: Room60) -> None:
    """From the room's moment to round 2's start, as a TD lives it: the TD answered round 1's
    flags, calls and absent pairs when they came (acknowledged), the lateness at tables 31–36 and
    the overrun breaks at 43–44 ran to their forfeits, and round 2 starts at ``T0 + 120 min`` while
    most of round 1 still plays (tables 1–30 and more)."""
    hub = room.hub
    for a in hub.call(hub.hub.alert_list):
        if a["kind"] in ANSWERED and not a["acked_wall"]:
            hub.call(hub.hub.actions.ack_alert, a["id"], "td")
    for t in ("48", "49"):  # the TD's acknowledgement clears the call at the table
        room.sims[t].wait_for(lambda s: snapshot(s)["td_call"] is None)
    _in_sync(hub, room.sims)
    room.clock.set(ROUND2)
    tick(hub)
    forfeits = ("31", "32", "33", "34", "35", "36", "43", "44")
    hub.wait_for(lambda h: all(hub_state(h, t).get("phase") == "finished" for t in forfeits), timeout=WAIT)
    _in_sync(hub, room.sims)
    tick(hub)


def round_two_goes_on(room: Room60) -> None:
    """Round 2's first minutes: player A at table 41 checks in and calls the TD; the
    TD verifies round 1's results at tables 31–40 so that round 2 is at tables 31–42; at each of
    them player A checks in and player B does not: twelve late players, each given an automatic
    point at 5 minutes."""
    hub = room.hub
    s = room.sims
    room.clock.set(ROUND2 + 30_000)
    s[CALLER].checkin("A")
    s[CALLER].call_td("A")
    _in_sync(hub, s)
    tick(hub)
    room.clock.set(ROUND2 + 60_000)
    for t in ROUND2_READY:
        if not hub.call(lambda t=t: hub.hub.results[f"r1-t{t}"]["verified"]):
            hub.call(hub.hub.actions.verify_result, f"r1-t{t}", "td")
    tick(hub)
    for t in ROUND2_READY:
        s[t].wait_for(lambda st, t=t: st.match_id == f"r2-t{t}")
        if t != CALLER:
            s[t].checkin("A")
    _in_sync(hub, s)
    tick(hub)
    for minute in (2, 3, 4, 5, 6):
        room.clock.set(ROUND2 + minute * MIN + 10_000)
        tick(hub)
        _in_sync(hub, s)
    hub.wait_for(
        lambda h: all(hub_state(h, t).get("penalties", {}).get("B") == 1 for t in ROUND2_READY), timeout=WAIT
    )
    _in_sync(hub, s)
    tick(hub)
