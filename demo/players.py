"""The demo room's tables and players: headless kiosks played by scripted players, in real time.

:mod:`demo.simtable` already has a table (the rulebook's reducer behind the real MQTT
``TableLink``) and players who choose their next input from the table's state
(``ScriptedPlayers``, run by a ``SimRoom``). The demo adds three things to them, by composition:

* **A journal.** :class:`DemoTable` writes every input as a JSON line before applying it, as a
  kiosk does, and keeps its outbox next to it, in the demo's temporary directory; ``bgtable
  replay`` reads the journal while the demo runs. (Flushed, not fsync'd: a demo's journal need
  not survive a power cut.)
* **A pace.** The clocks run in real time (``at`` is the real monotonic clock, so a reserve on the
  dashboard runs down second by second and lateness is counted in real minutes), but the players
  act ``BASE_PACE × speed`` times faster than people at a real table, so a game takes about a
  minute and the room stays lively.
* **Roles.** At the late table one player walks in after the first lateness point; at the flag
  table one player thinks far too long and runs out of time. Both are the rules' real minutes,
  whatever the pace.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from demo.simtable import ScriptedPlayers, SimRoom, SimTable, Temperament, _Plan, stamp
from hub.live.clock import Clock
from rulebook.messages import Event, Snapshot
from rulebook.sides import SIDES, Side
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply
from rulebook.vocab import InputType, Phase

log = logging.getLogger("demo.room")

#: how many times faster than people the demo's players act at speed 1
BASE_PACE = 6.0
#: a punctual player sits down between these moments around the start time (real ms at speed 1)
ARRIVE_MS = (-45_000, 20_000)
#: a break lasts this long (real ms at speed 1): players come back well before the break is over
BREAK_MS = (15_000, 45_000)
#: now and then a player thinks long enough for the reserve to run (real ms at speed 1)
P_LONG_THINK = 0.05
LONG_THINK_MS = (13_000, 30_000)
#: the flag table's slow player, in real ms at any speed: about eight moves empty a 10-minute reserve
SLOW_THINK_MS = (60_000, 100_000)
#: events a table keeps in memory (the journal and the outbox keep them all)
KEEP_EVENTS = 500


def demo_temperament() -> Temperament:
    """The demo's people: nobody late or slow by chance (the roles see to that), breaks never overrun."""
    return Temperament(
        p_late=0.0,
        p_slowcoach=0.0,
        p_overrun=0.0,
        p_double=0.06,
        p_game_over=0.06,
        p_break=0.12,
        p_call_td=0.0004,
    )


def slow_table_temperament() -> Temperament:
    """At the flag table games last: no cube, long games, so the slow player's reserve runs out
    before the match is over (a 5-point match can otherwise end within eight moves)."""
    t = demo_temperament()
    t.p_double = 0.0
    t.p_game_over = 0.02
    return t


class DemoTable(SimTable):
    """A headless kiosk: :class:`SimTable` plus a journal and an outbox in ``directory``."""

    def __init__(
        self,
        event: str,
        table: str,
        host: str,
        port: int,
        *,
        directory: Path,
        clock: Clock | None = None,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(event, table, host, port, clock=clock, outbox_path=str(directory / "outbox.sqlite3"))
        self.journal_path = directory / "journal.jsonl"
        self._journal: TextIO | None = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115
        self._hold_state = False

    def apply(self, inp: dict[str, Any], *, ago_ms: int = 0) -> list[Event]:
        """Journal the input (stamped with the clock's ``at`` and ``wall``), then apply and publish."""
        with self._lock:
            if self._journal is None:
                raise RuntimeError(f"table {self.table} is closed")
            full = {**inp, **stamp(self.clock, ago_ms)}
            self._journal.write(json.dumps(full, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._journal.flush()
            self.state, events = apply(self.state, full)
            for evt in events:
                self.events.append(evt)
                self.link.publish_event(evt)
            if len(self.events) > 2 * KEEP_EVENTS:
                del self.events[:KEEP_EVENTS]
            if not self._hold_state:
                self.link.publish_state(snapshot(self.state))
            self._changed.notify_all()
        return events

    def _on_assign(self, payload: dict[str, Any]) -> None:
        """A match assigned after its start time, once an earlier one is over at this table, finds
        both its players waiting there (the table was busy, nobody is late): they check in at once,
        and the hub sees the new state only with both present."""
        with self._lock:
            self.assigns.append(payload)
            start = payload.get("start_wall")
            waited = (
                self.state.match is not None
                and payload.get("match_id") != self.state.match_id
                and isinstance(start, int)
                and self.clock.now_wall() > start
            )
            self._hold_state = waited
            try:
                self.apply({**payload, "input": InputType.ASSIGN})
                if (
                    waited
                    and self.state.match_id == payload.get("match_id")
                    and self.state.phase == Phase.WAITING
                ):
                    for side in SIDES:
                        self.apply({"input": InputType.CHECKIN, "side": side})
            finally:
                self._hold_state = False
            if waited:
                self.link.publish_state(snapshot(self.state))

    def snapshot_now(self) -> Snapshot:
        """The snapshot with the clocks as of now (what a kiosk's screen shows)."""
        with self._lock:
            return snapshot(self.state, max(self.clock.monotonic_ms(), self.state.now))

    def stop(self, *, graceful: bool = True) -> None:
        """Leave the room (status offline), then close the outbox and the journal."""
        super().stop(graceful=graceful)
        with self._lock:
            self.outbox.close()
            if self._journal is not None:
                self._journal.close()
                self._journal = None


@dataclass
class DemoPlayers(ScriptedPlayers):
    """:class:`ScriptedPlayers` at the demo's pace, with the late and slow roles of the first match.

    ``ScriptedPlayers.plan`` picks delays as people would take them; :meth:`plan` divides them by
    the pace, except for appointments (arrivals, the end of a break), which are real instants.
    Times that must stay real are multiplied by the pace beforehand (the slow player's thinking).
    """

    speed: float = 1.0
    #: the side that arrives late at the first match, and when it arrives (epoch ms)
    late: Side | None = None
    late_arrival_wall: int | None = None
    #: the side that thinks too long in the first match
    slow: Side | None = None
    _matches: int = 0

    @property
    def pace(self) -> float:
        return BASE_PACE * self.speed

    def _new_match(self, state: TableState) -> None:
        super()._new_match(state)
        self._matches += 1
        first = self._matches == 1
        start = state.start_wall or self.sim.clock.now_wall()
        for side in SIDES:
            self._arrival[side] = start + int(self.rng.randint(*ARRIVE_MS) / self.speed)
        if first and self.late is not None and self.late_arrival_wall is not None:
            self._arrival[self.late] = self.late_arrival_wall
        self._slowcoach = self.slow if first else None

    def _think(self, side: Side) -> int:
        if side == self._slowcoach:
            return int(self.rng.randint(*SLOW_THINK_MS) * self.pace)
        if self.rng.random() < P_LONG_THINK:
            return int(self.rng.randint(*LONG_THINK_MS) * BASE_PACE)
        return super()._think(side)

    def plan(self, now: int) -> _Plan | None:
        try:
            p = super().plan(now)
        except Exception:  # a scripted player must never stop the room
            log.exception("table %s: no plan", self.sim.table)
            return None
        if p is None:
            return None
        kind = p.inp.get("input")
        if kind in (InputType.CHECKIN, InputType.RETURN):
            return p
        p.due_wall = now + round((p.due_wall - now) / self.pace)
        if kind == InputType.BREAK:
            side = p.inp["side"]
            self._break_return[side] = p.due_wall + int(self.rng.randint(*BREAK_MS) / self.speed)
        return p


class DemoSimRoom(SimRoom):
    """A :class:`SimRoom` that runs the players it is given (the demo's) on its one thread."""

    def __init__(self, players: list[DemoPlayers], *, clock: Clock, max_wait_s: float = 0.5) -> None:
        super().__init__([p.sim for p in players], clock=clock, max_wait_s=max_wait_s)
        self.players: list[ScriptedPlayers] = list(players)
