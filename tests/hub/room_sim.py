"""A room played in process against a real :class:`hub.live.core.Hub` on a fake clock, for properties
that need hundreds of rooms (tests/hub/test_automation_holds.py).

No broker: the hub runs as it does before its link exists, and the tables are the rulebook's
reducer, each taking what the hub decided — its current match for the table, the commands it
recorded (a command is recorded and committed before it is published: ``hub.live.commands``) — and
telling the hub its state and events through the hub's own ``Ingest.post``, as a table's link
does. A snapshot is computed when it is told, so the hub anchors its durations at receipt as it
does for a real table. The real-process counterpart is tests/hub/test_round_moves_lateness.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from drivers.hub_link import RawState
from hub.live.clock import FakeClock
from hub.live.config import HubConfig
from hub.live.core import Hub
from hub.storage.store import Store
from hub.tournament.schedule import ScheduledMatch
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table
from rulebook.vocab import EventType, InputType


def wire(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the hub receives it: JSON, as the table's link sends it."""
    return cast(dict[str, Any], json.loads(json.dumps(message)))


@dataclass
class SimTable:
    """One table: the reducer, what it took from the hub, what it did."""

    name: str
    state: TableState
    #: the assignment last taken
    assign: dict[str, Any] | None = None
    #: command ids taken (each once, as a table's link delivers a recorded command)
    taken: set[str] = field(default_factory=set)
    #: the command ids the table applied (``cmd_done`` ok), in order
    applied: list[str] = field(default_factory=list)


class SimRoom:
    """A hub on a database file, tables in memory, one fake clock for both."""

    def __init__(
        self, path: Path, schedule: list[ScheduledMatch], clock: FakeClock, tables: list[str]
    ) -> None:
        self.path = path
        self.clock = clock
        store = Store(path)
        store.import_schedule(schedule, clock.now_wall())
        store.commit()
        store.db.close()
        self.tables = {t: SimTable(t, new_table(t)) for t in tables}
        self.hub: Hub | None = None
        self.start_hub()

    # -- the hub ------------------------------------------------------------------------------

    def start_hub(self) -> None:
        """A hub (again) on the same database: it announces itself, the tables answer with
        their status and state (docs/protocol.md)."""
        config = HubConfig(event="sim", tick_interval=None)
        self.hub = Hub(config, Store(self.path), self.clock)
        for t in self.tables:
            self.hub.ingest.post("status", t, {"online": True})
            self._tell_state(self.tables[t])
        self.hub.tick()

    def stop_hub(self) -> None:
        """The hub's process ends (as a kill: nothing more is saved than what was committed)."""
        assert self.hub is not None
        self.hub.store.db.close()
        self.hub = None

    @property
    def alive(self) -> bool:
        return self.hub is not None

    # -- the tables -----------------------------------------------------------------------------

    def _stamp(self) -> dict[str, int]:
        return {"at": self.clock.monotonic_ms(), "wall": self.clock.now_wall()}

    def input(self, table: str, inp: dict[str, Any]) -> list[dict[str, Any]]:
        """An input at the table now; told to the hub if it runs."""
        sim = self.tables[table]
        sim.state, events = apply(sim.state, {**inp, **self._stamp()})
        for e in events:
            if e.get("type") == EventType.CMD_DONE and e.get("ok") is True:
                sim.applied.append(str(e.get("id")))
            if self.hub is not None:
                self.hub.ingest.post("event", table, wire(e))
        self._tell_state(sim)
        return events

    def _tell_state(self, sim: SimTable) -> None:
        """The table's state, as the hub's link hands it on: undecoded (the hub decodes it)."""
        if self.hub is not None:
            payload = json.dumps(snapshot(sim.state, self.clock.monotonic_ms()), separators=(",", ":"))
            raw = RawState(f"bg/v1/sim/table/{sim.name}/state", payload.encode())
            self.hub.ingest.post("state", sim.name, raw)

    def checkin(self, table: str, side: str) -> None:
        if not self.tables[table].state.present.of(side):  # type: ignore[arg-type]
            self.input(table, {"input": InputType.CHECKIN, "side": side})

    def deliver(self) -> bool:
        """Each table takes its current assignment and the commands recorded for it (oldest
        first); True if any table took something."""
        hub = self.hub
        if hub is None:
            return False
        took = False
        for name, sim in self.tables.items():
            cur = hub.current.get(name)
            if cur is not None:
                payload = cur.match.assign_payload()
                if cur.force:
                    payload["force"] = True
                if payload != sim.assign:
                    sim.assign = payload
                    self.input(name, {**payload, "input": InputType.ASSIGN})
                    took = True
            for cmd in reversed(hub.store.commands(name)):
                body = cmd["body"]
                if body["id"] in sim.taken:
                    continue
                sim.taken.add(body["id"])
                self.input(name, {**body, "input": InputType.CMD})
                took = True
        return took

    def settle(self) -> None:
        """Tick and deliver until nothing more moves (bounded)."""
        for _ in range(20):
            if self.hub is None:
                return
            self.hub.tick()
            if not self.deliver():
                self.hub.tick()
                return
        raise AssertionError("the room does not settle")

    # -- what was decided -------------------------------------------------------------------------

    def automatic(self) -> dict[str, list[str]]:
        """Every automatic command id the hub recorded, by table, in the order recorded."""
        store = Store(self.path) if self.hub is None else self.hub.store
        rows = store.db.execute(
            "SELECT tbl, id FROM commands WHERE origin = 'auto' ORDER BY created_wall, id"
        )
        out: dict[str, list[str]] = {}
        for table, cmd_id in rows:
            out.setdefault(table, []).append(cmd_id)
        return out
