"""A table's device changes — retired, replaced, its credential revoked — and the room knows at once.

Mosquitto's dynamic-security plugin drops a deleted client without publishing its Will, so the
hub would never hear "offline" from that table: the status it holds, and the broker's retained
copy, would say online until another device connected, and automation would go on deciding on a
state nobody updates any more (a break-overrun point for a player who was back on time). So when
the fleet retires a device, the hub says it itself (:meth:`DeviceChanges.gone`):

- the table is offline in the hub's model at once (no grace period: nobody is there to reconnect),
  marked with why (:attr:`hub.logic.table_view.TableView.no_device`), stored, and the broker's retained status
  is cleared; automation gives nothing at a table that is offline;
- a match begun there is noted to be carried to the next device (its last known score, length and
  clocks: :meth:`hub.live.round_control.RoundControl.carry_to_next_device`, the mechanism a moved
  match uses), so that the next device never takes it from 0-0 silently; the next device numbers
  that match's events from 1 again, so the events stored of it so far are filed apart
  (``{match}~device-{wall}``, as a table that lost its journal:
  :meth:`hub.live.ingest.Ingest.renumbered`) and the new device's are stored, not taken for
  duplicates; a match that has just finished
  there (its result held for the players' confirmation) is released, so that the next device
  starts the table's next match rather than the finished one again;
- the next device's first "online" ends it (:mod:`hub.live.ingest`). The mark is kept in the store
  too, so a hub restarted meanwhile marks the table again (:meth:`DeviceChanges.mark_at_start`)
  unless a device has said it is online since.

Retiring a device or enrolling another one at a table in the middle of a match takes that match
from its players: :func:`in_progress` says what the table plays, and :func:`check_override`
refuses unless the TD named that match and its score (a typo for another table number must not
take a live match over).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub.broker.provision import FleetError
from hub.live.state import RoomState
from hub.logic.conditions import AlertSpec
from hub.tournament.schedule_diff import IN_PLAY
from rulebook.messages import SidePair, Status
from rulebook.sides import SIDES, Side
from rulebook.vocab import Phase

if TYPE_CHECKING:
    from hub.live.core import Hub

log = logging.getLogger("hub.fleet")

#: the store's meta key: table -> {"why", "wall"} of each table left without a device
NO_DEVICE = "tables_without_device"
#: why a table has no device, as the TD reads it (the device's id is not named: alerts and tiles
#: reach every reader of the dashboard)
RETIRED = "its device was retired"
REPLACED = "its device was replaced; the new one has not connected yet"


@dataclass(frozen=True, slots=True)
class InProgress:
    """The match a table is playing, as its last known state says."""

    table: str
    match_id: str
    score: SidePair
    players: dict[Side, str]
    phase: Phase

    def text(self) -> str:
        """``r1-t12 (Anna Berg – Jon Dahl, 3–2)``"""
        a, b = self.players["A"] or "A", self.players["B"] or "B"
        return f"{self.match_id} ({a} – {b}, {self.score['A']}–{self.score['B']})"

    def detail(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "match_id": self.match_id,
            "score": dict(self.score),
            "players": dict(self.players),
            "phase": self.phase,
        }


def in_progress(room: RoomState, table: str) -> InProgress | None:
    """The match ``table`` is playing (begun: a player checked in, or play under way, and no
    result yet), from the last state the hub holds of it; None when it plays none."""
    view = room.views.get(table)
    state = view.state if view is not None else None
    if state is None:
        return None
    mid = state["match_id"]
    if mid is None or mid in room.results:
        return None
    phase = state["phase"]
    present = state["present"]
    if not (phase in IN_PLAY or (phase == Phase.WAITING and (present["A"] or present["B"]))):
        return None
    match = room.by_id.get(mid)
    if match is not None and match.table != table:
        return None  # moved to another table: played there
    named = state["players"]
    players = {
        side: named[side]["name"] or (getattr(match, f"player_{side.lower()}") if match is not None else "")
        for side in SIDES
    }
    return InProgress(table, mid, state["score"].copy(), players, phase)


def check_override(progress: InProgress | None, override: Any, doing: str) -> None:
    """Refuse ``doing`` at a table playing a match, unless ``override`` names that match and its
    score as they are now: ``{"match_id": "r1-t12", "score": {"A": 3, "B": 2}}``."""
    if progress is None:
        return
    named = override if isinstance(override, dict) else {}
    if named.get("match_id") == progress.match_id and named.get("score") == progress.score:
        return
    a, b = progress.score["A"], progress.score["B"]
    now = " (the match or the score has changed since)" if override is not None else ""
    raise FleetError(
        f"table {progress.table} is playing match {progress.text()}: {doing}{now}. To do it all the "
        f'same, send "override": {{"match_id": "{progress.match_id}", "score": {{"A": {a}, "B": {b}}}}}; '
        f"the table's next device then takes the match at {a}–{b}.",
        409,
        code="match_in_progress",
        detail=progress.detail(),
    )


class DeviceChanges:
    """The fleet's hooks into the room: built beside the :class:`hub.live.core.Hub` by
    :class:`hub.fleet.setup.FleetService`; everything runs on the hub's loop."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def in_progress(self, table: str) -> InProgress | None:
        return in_progress(self.hub.room_state, table)

    def gone(self, table: str, why: str, actor: str) -> None:
        """``table``'s device was retired or replaced and the broker dropped it: offline now, its
        match carried to the next device (see module doc)."""
        hub = self.hub
        hub.ingest.drain()  # what the device sent before its credential went is its last word
        hub.round_control.carry_to_next_device(table, why, actor)
        cur = hub.room_state.current.get(table)
        if cur is not None and cur.match.match_id in hub.room_state.results:
            # its match is over, the result kept: the next device starts the table's next match,
            # never the finished one again from 0-0 (which would withdraw its result)
            hub.actions.release(table, actor)
        now = hub.clock.now_wall()
        view = hub.room_state.view(table)
        held = view.match_id
        if isinstance(held, str) and held not in hub.room_state.results:
            filed = hub.ingest.renumbered(table, held, f"{held}~device-{now}")
            log.info(
                "table %s: %d events of %s filed apart (its next device numbers them anew)",
                table,
                filed,
                held,
            )
        if view.online or view.status is None:
            view.status_since = now
        status: Status = {**view.status, "online": False} if view.status else {"online": False}
        view.status, view.online, view.no_device = status, False, why
        hub.store.put_status(table, status, False, view.status_since)
        marks = self._marks()
        marks[table] = {"why": why, "wall": now}
        hub.store.set_meta(NO_DEVICE, json.dumps(marks))
        link = hub.link
        if link is not None:
            link.clear_status(table)
        hub.store.commit()
        log.info("table %s: no device connected (%s)", table, why)
        hub.tick_room()

    def _marks(self) -> dict[str, dict[str, Any]]:
        try:
            marks = json.loads(self.hub.store.get_meta(NO_DEVICE) or "{}")
        except json.JSONDecodeError:
            marks = {}
        return marks if isinstance(marks, dict) else {}

    def mark_at_start(self) -> None:
        """At start: a table left without a device before the restart has none still, unless a
        device said it is online since (then its mark is forgotten)."""
        marks = self._marks()
        kept = {}
        for table, mark in marks.items():
            view = self.hub.room_state.views.get(table)
            wall = mark.get("wall") if isinstance(mark, dict) else None
            if view is None or view.status is None or not isinstance(wall, int):
                continue
            if view.online or view.status_since > wall:
                continue  # a device has spoken since
            view.no_device = str(mark.get("why") or RETIRED)
            kept[table] = mark
        if kept != marks:
            self.hub.store.set_meta(NO_DEVICE, json.dumps(kept))
        self.hub.store.commit()

    def alert(self, spec: AlertSpec) -> None:
        """Raise one of the fleet's alerts (one-shot: :data:`hub.live.incidents.FLEET_KINDS`) and show it."""
        hub = self.hub
        now = hub.clock.now_wall()
        if hub.alerts.raise_(spec, now):
            hub.store.commit()
            hub.display.push(now, set())
