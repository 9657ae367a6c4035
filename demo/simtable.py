"""A simulated table: the real rulebook reducer behind the real MQTT table link, without a kiosk.

Tests use it to play a table against the hub ("A checks in", "the clock flags"); the demo fills
a room with them and lets :class:`ScriptedPlayers` play: players who check in (some late), roll,
press, double, take or pass, take breaks (some overrun them), call the TD, and now and then run
out of time. Everything random comes from one seeded RNG and every instant from one injectable
clock, so a demo room can run twenty times faster than real time and a test can move time by
hand.

A :class:`SimTable` journals nothing: it applies each input to its in-memory state and publishes
the resulting events (through the link's durable outbox, in memory here) and the new snapshot.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from drivers.outbox import Outbox
from drivers.table_link import TableLink
from hub.live.clock import Clock, SystemClock
from rulebook.messages import Event, NextMessage, Snapshot
from rulebook.policy import break_ms, breaks_allowed
from rulebook.sides import SIDES, Side, other
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table
from rulebook.vocab import EventType, InputType, Phase, RollSource

log = logging.getLogger("demo.simtable")


def stamp(clock: Clock, ago_ms: int = 0) -> dict[str, int]:
    """An input's ``at`` (the clock's monotonic ms) and ``wall``, ``ago_ms`` in the past."""
    return {"at": max(0, clock.monotonic_ms() - ago_ms), "wall": clock.now_wall() - ago_ms}


class SimTable:
    """One table: reducer + :class:`TableLink`. Thread-safe; inputs may come from any thread."""

    def __init__(
        self,
        event: str,
        table: str,
        host: str,
        port: int,
        *,
        clock: Clock | None = None,
        outbox_path: str = ":memory:",
        username: str | None = None,
        password: str | None = None,
        keepalive: int = 10,
    ) -> None:
        self.table = table
        self.clock = clock or SystemClock()
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self.state: TableState = new_table(table)
        self.events: list[Event] = []
        self.assigns: list[dict[str, Any]] = []
        self.cmds: list[dict[str, Any]] = []
        #: the hub's "Next:" lines as the table's link took them (None: none, or withdrawn)
        self.next_lines: NextMessage | None = None
        self.outbox = Outbox(outbox_path)
        self.link = TableLink(
            event,
            table,
            host,
            port,
            outbox=self.outbox,
            state_provider=self.snapshot,
            on_assign=self._on_assign,
            on_cmd=self._on_cmd,
            on_next=self._on_next,
            username=username,
            password=password,
            keepalive=keepalive,
        )

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, wait: float | None = 10.0) -> SimTable:
        self.link.start()
        if wait is not None and not self.link.wait_online(wait):
            raise TimeoutError(f"table {self.table} did not connect within {wait}s")
        return self

    def stop(self, *, graceful: bool = True) -> None:
        self.link.stop(graceful=graceful)

    # -- inputs -------------------------------------------------------------------------------

    def apply(self, inp: dict[str, Any], *, ago_ms: int = 0) -> list[Event]:
        """Apply one input now (``at``/``wall`` from the clock) and publish its events and state.

        ``ago_ms``: as if it had happened that long ago (for the inputs of a room set up before the
        test or the demo began: applied in order, before anything else at this table)."""
        with self._lock:
            full = {**inp, **stamp(self.clock, ago_ms)}
            self.state, events = apply(self.state, full)
            snap = snapshot(self.state)
            for evt in events:
                self.events.append(evt)
                self.link.publish_event(evt)
            self.link.publish_state(snap)
            self._changed.notify_all()
        return events

    def _on_assign(self, payload: dict[str, Any]) -> None:
        with self._lock:
            self.assigns.append(payload)
        self.apply({**payload, "input": InputType.ASSIGN})

    def assigned_earlier(self, payload: dict[str, Any], ago_ms: int) -> None:
        """Take an assignment as if it had arrived ``ago_ms`` ago, before the link started (a room
        set up before the round: the hub's lateness counts from when a table took its match)."""
        self.apply({**payload, "input": InputType.ASSIGN}, ago_ms=ago_ms)

    def _on_cmd(self, cmd: dict[str, Any]) -> None:
        with self._lock:
            self.cmds.append(cmd)
        self.apply({**cmd, "input": InputType.CMD})

    def _on_next(self, message: NextMessage | None) -> None:
        with self._lock:
            self.next_lines = message
            self._changed.notify_all()

    def wait_next(
        self, predicate: Callable[[NextMessage | None], bool], timeout: float = 10.0
    ) -> NextMessage | None:
        """Block until the "Next:" lines the table holds satisfy ``predicate``; TimeoutError if not."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.next_lines):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"table {self.table}: next lines {self.next_lines} within {timeout}s")
                self._changed.wait(left)
            return self.next_lines

    def snapshot(self) -> Snapshot:
        """The snapshot as of now (as a kiosk publishes it: its durations are measured when sent)."""
        with self._lock:
            return snapshot(self.state, max(self.clock.monotonic_ms(), self.state.now))

    def wait_for(self, predicate: Callable[[TableState], bool], timeout: float = 10.0) -> TableState:
        """Block until ``predicate(state)`` holds (checked after every input); TimeoutError if not."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.state):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"table {self.table}: condition not met within {timeout}s")
                self._changed.wait(left)
            return self.state

    def wait_cmd(self, cmd_id: str, timeout: float = 10.0) -> Event:
        """The ``cmd_done`` event this table produced for ``cmd_id``."""
        found: list[Event] = []

        def done(_: TableState) -> bool:
            found[:] = [
                e for e in self.events if e.get("type") == EventType.CMD_DONE and e.get("id") == cmd_id
            ]
            return bool(found)

        self.wait_for(done, timeout)
        return found[0]

    # -- the players' inputs, by name ---------------------------------------------------------

    def checkin(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.CHECKIN, "side": side})

    def opening_roll(self, a: int, b: int) -> list[Event]:
        return self.apply({"input": InputType.OPENING_ROLL, "A": a, "B": b})

    def press(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.PRESS, "side": side})

    def roll(self, d1: int, d2: int, source: str = RollSource.TOWER) -> list[Event]:
        return self.apply({"input": InputType.ROLL, "dice": [d1, d2], "source": source})

    def double(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.DOUBLE, "side": side})

    def take(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.TAKE, "side": side})

    def pass_(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.PASS, "side": side})

    def win(self, side: Side, kind: str = "single") -> list[Event]:
        return self.apply({"input": InputType.WIN, "side": side, "kind": kind})

    def take_break(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.BREAK, "side": side})

    def back(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.RETURN, "side": side})

    def call_td(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.CALL_TD, "side": side})

    def confirm(self, side: Side) -> list[Event]:
        return self.apply({"input": InputType.CONFIRM, "side": side})

    def tick(self) -> list[Event]:
        return self.apply({"input": InputType.TICK})


# -- scripted players ---------------------------------------------------------------------------


@dataclass
class Temperament:
    """How a simulated room behaves; probabilities per opportunity, times in ms of clock time."""

    #: chance a player arrives late, and how late (uniform range)
    p_late: float = 0.15
    late_ms: tuple[int, int] = (6 * 60_000, 18 * 60_000)
    #: arrival of punctual players, relative to the start time
    arrive_ms: tuple[int, int] = (-4 * 60_000, 2 * 60_000)
    think_ms: tuple[int, int] = (4_000, 20_000)
    roll_ms: tuple[int, int] = (1_500, 5_000)
    #: chance per turn the player on roll doubles, when allowed
    p_double: float = 0.04
    p_take: float = 0.7
    #: chance per turn that the game ends (about 1/turns per game)
    p_game_over: float = 0.035
    kinds: tuple[tuple[str, float], ...] = (("single", 0.75), ("gammon", 0.22), ("backgammon", 0.03))
    #: chance per between-games moment that a player takes a break (when allowed)
    p_break: float = 0.2
    p_overrun: float = 0.25
    overrun_ms: tuple[int, int] = (2 * 60_000, 12 * 60_000)
    p_call_td: float = 0.002
    #: chance a table has a slow player who will run out of time
    p_slowcoach: float = 0.05
    slow_think_ms: tuple[int, int] = (40_000, 90_000)


@dataclass
class _Plan:
    due_wall: int
    seq: int
    inp: dict[str, Any]


@dataclass
class ScriptedPlayers:
    """The two players at one :class:`SimTable`, deciding their next input from its state."""

    sim: SimTable
    rng: random.Random
    temperament: Temperament = field(default_factory=Temperament)
    _match_id: str | None = None
    _arrival: dict[str, int] = field(default_factory=dict)
    _break_return: dict[str, int] = field(default_factory=dict)
    _slowcoach: Side | None = None

    def _new_match(self, state: TableState) -> None:
        t = self.temperament
        self._match_id = state.match_id
        start = state.start_wall or self.sim.clock.now_wall()
        self._arrival = {}
        for side in ("A", "B"):
            lo, hi = t.late_ms if self.rng.random() < t.p_late else t.arrive_ms
            self._arrival[side] = start + self.rng.randint(lo, hi)
        self._break_return = {}
        self._slowcoach = self.rng.choice(("A", "B")) if self.rng.random() < t.p_slowcoach else None

    def _think(self, side: Side) -> int:
        t = self.temperament
        return self.rng.randint(*(t.slow_think_ms if side == self._slowcoach else t.think_ms))

    def plan(self, now: int) -> _Plan | None:
        """The next input and when it happens, or None while the players wait for someone else
        (one way to decide per phase: :data:`_PHASE_PLANS`; paused, flag: the TD acts)."""
        st = self.sim.state
        if st.match is None:
            return None
        if st.match_id != self._match_id:
            self._new_match(st)
        step = _PHASE_PLANS.get(st.phase)
        return step(self, st, now) if step is not None else None

    def _plan_waiting(self, st: TableState, now: int) -> _Plan | None:
        absent = [s for s in ("A", "B") if not st.present.of(s)]
        if not absent:
            return None
        side = min(absent, key=lambda s: self._arrival[s])
        return _Plan(max(now, self._arrival[side]), st.seq, {"input": InputType.CHECKIN, "side": side})

    def _plan_break(self, st: TableState, now: int) -> _Plan | None:
        side = "A" if st.away.a else "B"
        due = self._break_return.get(side, now)
        return _Plan(max(now, due), st.seq, {"input": InputType.RETURN, "side": side})

    def _plan_between_games(self, st: TableState, now: int) -> _Plan | None:
        if st.away.a or st.away.b:
            return self._plan_break(st, now)
        t, r = self.temperament, self.rng
        for side in SIDES:
            allowed = _breaks_left(st, side)
            if allowed and r.random() < t.p_break:
                length = break_ms(st.profile)
                if r.random() < t.p_overrun:
                    length += r.randint(*t.overrun_ms)
                self._break_return[side] = now + length
                return _Plan(now + r.randint(5_000, 20_000), st.seq, {"input": InputType.BREAK, "side": side})
        return self._plan_opening(st, now)

    def _plan_opening(self, st: TableState, now: int) -> _Plan | None:
        r = self.rng
        return _Plan(
            now + r.randint(10_000, 30_000),
            st.seq,
            {"input": InputType.OPENING_ROLL, "A": r.randint(1, 6), "B": r.randint(1, 6)},
        )

    def _plan_finished(self, st: TableState, now: int) -> _Plan | None:
        for side in SIDES:
            if not st.confirmed.of(side):
                return _Plan(
                    now + self.rng.randint(10_000, 40_000), st.seq, {"input": InputType.CONFIRM, "side": side}
                )
        return None

    def _plan_playing(self, st: TableState, now: int) -> _Plan | None:
        """The clock and the cube first: a press still due, a double to answer."""
        assert st.match is not None
        t, r = self.temperament, self.rng
        clock = st.clock
        offered = st.match.cube.offered_by
        if clock.enabled and clock.running is None and st.opening_lower is not None:
            return _Plan(
                now + r.randint(1_000, 3_000), st.seq, {"input": InputType.PRESS, "side": st.opening_lower}
            )
        if offered is not None:
            if clock.enabled and clock.running == offered:
                return _Plan(now + r.randint(500, 2_000), st.seq, {"input": InputType.PRESS, "side": offered})
            answer = InputType.TAKE if r.random() < t.p_take else InputType.PASS
            return _Plan(now + r.randint(5_000, 25_000), st.seq, {"input": answer, "side": other(offered)})
        if clock.enabled and clock.running is not None and clock.running != st.turn:
            return _Plan(
                now + r.randint(500, 2_000), st.seq, {"input": InputType.PRESS, "side": clock.running}
            )
        if st.turn is None:
            return None
        return self._plan_turn(st, now, st.turn)

    def _plan_turn(self, st: TableState, now: int, turn: Side) -> _Plan:
        """The player on turn: call the TD, double, roll, end the game or press the clock."""
        t, r = self.temperament, self.rng

        def at(delay: int, inp: dict[str, Any]) -> _Plan:
            return _Plan(now + delay, st.seq, inp)

        if r.random() < t.p_call_td:
            return at(r.randint(1_000, 5_000), {"input": InputType.CALL_TD, "side": turn})
        if not st.rolled:
            if st.can_double(turn) and r.random() < t.p_double:
                return at(r.randint(2_000, 10_000), {"input": InputType.DOUBLE, "side": turn})
            return at(
                r.randint(*t.roll_ms),
                {
                    "input": InputType.ROLL,
                    "dice": [r.randint(1, 6), r.randint(1, 6)],
                    "source": RollSource.TOWER,
                },
            )
        if r.random() < t.p_game_over:
            kind = _weighted(r, t.kinds)
            return at(self._think(turn), {"input": InputType.WIN, "side": turn, "kind": kind})
        return at(self._think(turn), {"input": InputType.PRESS, "side": turn})


#: how the players decide their next input in each phase (any other: they wait for the TD)
_PHASE_PLANS: dict[Phase, Callable[[ScriptedPlayers, TableState, int], _Plan | None]] = {
    Phase.WAITING: ScriptedPlayers._plan_waiting,
    Phase.BREAK: ScriptedPlayers._plan_break,
    Phase.BETWEEN_GAMES: ScriptedPlayers._plan_between_games,
    Phase.OPENING: ScriptedPlayers._plan_opening,
    Phase.FINISHED: ScriptedPlayers._plan_finished,
    Phase.PLAYING: ScriptedPlayers._plan_playing,
}


def _breaks_left(st: TableState, side: Side) -> bool:
    assert st.match is not None
    allowed = breaks_allowed(
        st.profile,
        st.match.length,
        final=st.final,
        clock=st.clock.enabled,
        double_match_point=st.match.is_double_match_point(),
    )
    return st.breaks_used.of(side) < allowed


def _weighted(r: random.Random, options: Iterable[tuple[str, float]]) -> str:
    opts = list(options)
    x = r.random() * sum(w for _, w in opts)
    for name, w in opts:
        x -= w
        if x <= 0:
            return name
    return opts[-1][0]


class SimRoom:
    """Runs :class:`ScriptedPlayers` at many tables on one thread, in the clock's time.

    With an accelerated clock a whole round plays in minutes. Each table's next input is planned
    from its state; if the state changed meanwhile (a hub command arrived) the plan is redone.
    A running clock also gets ``tick`` inputs so a flag falls when the reserve runs out.
    """

    def __init__(
        self,
        tables: list[SimTable],
        *,
        clock: Clock,
        seed: int = 1,
        temperament: Temperament | None = None,
        max_wait_s: float = 0.5,
    ) -> None:
        self.clock = clock
        #: clock ms per real ms (an AcceleratedClock's factor)
        self.speed = float(getattr(clock, "factor", 1.0))
        self.max_wait_s = max_wait_s
        rng = random.Random(seed)
        self.players = [
            ScriptedPlayers(sim, random.Random(rng.random()), temperament or Temperament()) for sim in tables
        ]
        self._plans: dict[str, _Plan | None] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> SimRoom:
        self._thread = threading.Thread(target=self._run, name="sim-room", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def step(self) -> int:
        """Apply every input that is due now; returns how many were applied."""
        now = self.clock.now_wall()
        applied = 0
        for p in self.players:
            sim = p.sim
            plan = self._plans.get(sim.table)
            if plan is None or plan.seq != sim.state.seq:
                plan = p.plan(now)
                self._plans[sim.table] = plan
            flag_at = sim.state.clock.flag_time() if sim.state.clock.enabled else None
            if flag_at is not None and flag_at <= self.clock.monotonic_ms():
                sim.tick()
                applied += 1
                continue
            if plan is not None and plan.due_wall <= now:
                try:
                    sim.apply(plan.inp)
                except Exception:  # a simulated player must never stop the room
                    log.exception("table %s: input %s failed", sim.table, plan.inp)
                self._plans[sim.table] = None
                applied += 1
        return applied

    def _next_due(self) -> int | None:
        dues = [p.due_wall for p in self._plans.values() if p is not None]
        return min(dues) if dues else None

    def _run(self) -> None:
        while not self._stop.is_set():
            applied = self.step()
            if applied:
                continue
            due = self._next_due()
            now = self.clock.now_wall()
            wait = self.max_wait_s if due is None else (due - now) / 1000 / self.speed
            self._stop.wait(min(max(wait, 0.005), self.max_wait_s))
