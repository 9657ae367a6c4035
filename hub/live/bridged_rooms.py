"""The venue's bridged rooms as the hub sees them: which room each table is in, and whether that
room's bridge to the central broker is up (docs/rooms.md).

A *bridged room* is one of the venue's rooms whose broker is joined to the central one by a
Mosquitto bridge (``bghub broker-config --room NAME``); plain "room" in the hub's code is the
whole room the hub runs (``RoomState``, the dashboard's Room page, ``/api/room/...``).

**How the hub learns it.** A room's tables are listed where its bridge is registered: ``bghub
broker-config --room NAME --central DIR`` writes ``[rooms.NAME] tables = [...]`` into the central
broker's ``hub.toml``, the file the hub reads its broker credential from
(``--broker-credentials``); :func:`load_rooms` reads it. Whether a room is reachable comes from its
bridge's own notification on the central broker, ``bg/v1/EVT/room/NAME/bridge``: ``1`` retained
when the bridge connects, ``0`` — the bridge's Will, published by the central broker itself —
when the room's broker dies or the link is cut. Why not the topics themselves: the tables and the
hub use the same topics in every room, so nothing changes for them, and one retained message per
room says what a room's worth of table statuses could not: the central broker cannot see a room's
tables go offline while the bridge is down, so their last statuses there still say online.

**What follows for automation.** While a room's bridge is down (or not heard of yet), the hub
knows nothing current about its tables: they are shown as "Room offline", one alert names the
room (not one per table), and no automatic lateness or offline decision is taken for them
(:meth:`BridgedRooms.cut_off`). When the bridge is back, what the room kept arrives first; the hub asks
each table of the room for its state and any events after the last it stored (a resync), and
waits :data:`CATCH_UP_MS` (the backlog of a room arrives in well under a second) and for a state
received after the bridge came back before deciding anything about the room's tables again.
"""

from __future__ import annotations

import asyncio
import logging
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.hub_link import HubLink
from drivers.mqtt_topics import PREFIX, is_valid_id
from hub.errors import HubError
from hub.logic.conditions import AlertSpec

log = logging.getLogger("hub.rooms")

#: After a room's bridge is back, no automatic decision for its tables for this long: the room's
#: backlog (what its broker kept during the outage) is being delivered meanwhile.
CATCH_UP_MS = 5_000
#: The most tables one room lists (broker-config's own limit for a broker).
MAX_ROOM_TABLES = 5000

ROOM_OFFLINE = "room_offline"
ROOM_CATCHING_UP = "room_catching_up"
#: what a tile of a cut-off room's table shows instead of its own status: (label, icon)
ROOM_LOOK = {ROOM_OFFLINE: ("Room offline", "⚠"), ROOM_CATCHING_UP: ("Room reconnecting", "…")}


class RoomsError(HubError, ValueError):
    """A rooms list that cannot be used; the message names the file and the entry."""


def notification_topic(event: str, room: str) -> str:
    """The bridge's notification topic (as :func:`hub.broker.bridges.notification_topic`)."""
    return f"{PREFIX}/{event}/room/{room}/bridge"


def parse_rooms(data: Mapping[str, Any], source: str) -> dict[str, tuple[str, ...]]:
    """``[rooms.NAME] tables = [...]`` of a hub.toml, checked: ids usable in a topic, a table in
    one room only."""
    rooms = data.get("rooms", {})
    if not isinstance(rooms, dict):
        raise RoomsError(f"{source}: [rooms] must be a table of rooms")
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for name, body in rooms.items():
        tables = body.get("tables") if isinstance(body, dict) else None
        if not is_valid_id(name):
            raise RoomsError(f"{source}: room name {name!r} is not a valid id")
        if not isinstance(tables, list) or not 0 < len(tables) <= MAX_ROOM_TABLES:
            raise RoomsError(f"{source}: [rooms.{name}] needs tables = [...] (1 to {MAX_ROOM_TABLES} ids)")
        for table in tables:
            if not is_valid_id(table):
                raise RoomsError(f"{source}: [rooms.{name}] table {table!r} is not a valid id")
            if table in owner:
                raise RoomsError(f"{source}: table {table} is in rooms {owner[table]} and {name}")
            owner[table] = name
        out[name] = tuple(tables)
    return out


def load_rooms(path: str | None) -> dict[str, tuple[str, ...]]:
    """The rooms listed in the hub's credentials file (none without a file, or without rooms)."""
    if not path:
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RoomsError(f"{path}: {exc}") from exc
    return parse_rooms(data, str(Path(path)))


@dataclass(slots=True)
class RoomLink:
    """One room's bridge as the hub last heard of it."""

    name: str
    tables: tuple[str, ...]
    #: None until the bridge's notification is heard
    up: bool | None = None
    #: hub time of the last change (of the hub's start while not heard of)
    since: int = 0
    #: hub time the bridge came back (the room is catching up until CATCH_UP_MS after it)
    back_at: int | None = None

    def catching_up(self, now: int) -> bool:
        return self.up is True and self.back_at is not None and now < self.back_at + CATCH_UP_MS

    def look(self, now: int) -> str:
        """``up``, ``catching_up``, ``down`` or ``unknown``."""
        if self.up is None:
            return "unknown"
        if not self.up:
            return "down"
        return "catching_up" if self.catching_up(now) else "up"


@dataclass
class BridgedRooms:
    """Every room and which one each table is in (pure: the hub feeds it the notifications)."""

    links: dict[str, RoomLink] = field(default_factory=dict)
    by_table: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, rooms: Mapping[str, tuple[str, ...]], now: int) -> BridgedRooms:
        links = {name: RoomLink(name, tables, since=now) for name, tables in rooms.items()}
        return cls(links, {t: name for name, tables in rooms.items() for t in tables})

    def room_of(self, table: str) -> str | None:
        return self.by_table.get(table)

    def cut_off(self, table: str, now: int) -> bool:
        """Whether the hub may take no automatic decision about ``table``: its room's bridge is
        down, not heard of yet, or back for less than :data:`CATCH_UP_MS`. A table in no room
        (on the central broker) is never cut off here."""
        name = self.by_table.get(table)
        if name is None:
            return False
        link = self.links[name]
        return link.up is not True or link.catching_up(now)

    def bridge_said(self, room: str, payload: bytes, now: int) -> RoomLink | None:
        """A notification of ``room``'s bridge; the room if its state changed."""
        link = self.links.get(room)
        text = payload.strip()
        if link is None or text not in (b"0", b"1"):
            return None
        up = text == b"1"
        if link.up is up:
            return None
        if up and link.up is False:
            link.back_at = now
        elif up:
            link.back_at = None  # first heard: nothing was kept from before, nothing to catch up
        link.up, link.since = up, now
        return link

    def alert_specs(self, now: int, grace_ms: int) -> list[AlertSpec]:
        """One alert per room whose bridge is down (or silent ``grace_ms`` after the hub started)."""
        out = []
        for link in self.links.values():
            if link.up is True or (link.up is None and now - link.since < grace_ms):
                continue
            n = len(link.tables)
            what = "is cut off from the hub" if link.up is False else "has not connected to the hub"
            out.append(
                AlertSpec(
                    f"room:{link.name}",
                    ROOM_OFFLINE,
                    "critical",
                    f"Room {link.name} {what} ({n} table{'s' if n != 1 else ''}): its tables keep "
                    "playing and their events arrive when it is back; no automatic lateness meanwhile",
                    None,
                    None,
                    {"room": link.name, "tables": list(link.tables), "since_wall": link.since},
                )
            )
        return out

    def tile_facts(self, table: str, now: int) -> dict[str, Any]:
        """What a table's tile adds: its room, and while the room is cut off, the room's status
        in place of the table's own (whose last news may be old)."""
        name = self.by_table.get(table)
        facts: dict[str, Any] = {"room": name}
        if name is not None and self.cut_off(table, now):
            kind = ROOM_CATCHING_UP if self.links[name].catching_up(now) else ROOM_OFFLINE
            label, icon = ROOM_LOOK[kind]
            facts.update(status=kind, status_label=label, status_icon=icon, lateness=None)
        return facts

    def listed(self, now: int) -> list[dict[str, Any]]:
        """The rooms for the dashboard's tabs, by name."""
        return [
            {"name": r.name, "tables": list(r.tables), "state": r.look(now), "since_wall": r.since}
            for r in sorted(self.links.values(), key=lambda r: r.name)
        ]


class BridgeListener:
    """Listens to the rooms' bridge notifications on the hub's link and acts on a change: the
    room's tables' states no longer count as current, a room back asks its tables for their
    state and missed events, and the alerts and tiles are looked at again."""

    def __init__(
        self,
        event: str,
        rooms: BridgedRooms,
        *,
        now: Callable[[], int],
        link: Callable[[], HubLink | None],
        max_seq: Callable[[str, str], int],
        mark_stale: Callable[[str], None],
        refresh: Callable[[int], None],
    ) -> None:
        self.event = event
        self.rooms = rooms
        self._now = now
        self._link = link
        self._max_seq = max_seq
        self._mark_stale = mark_stale
        self._refresh = refresh
        self._loop: asyncio.AbstractEventLoop | None = None
        #: table -> the match id its state was of when the room came back (for the resync)
        self.match_of: Callable[[str], str | None] = lambda _t: None

    def attach(self, link: HubLink) -> None:
        """Subscribe to every room's notification (called with the hub's link before it starts,
        on the hub's loop)."""
        self._loop = asyncio.get_running_loop()
        for name in self.rooms.links:
            link.add_handler(notification_topic(self.event, name), self._handler(name))

    def _handler(self, room: str) -> Callable[[bytes], None]:
        def on_message(payload: bytes) -> None:  # the MQTT thread
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self.bridge_said, room, payload)

        return on_message

    def bridge_said(self, room: str, payload: bytes) -> None:
        """A room's notification, on the loop."""
        now = self._now()
        link = self.rooms.bridge_said(room, payload, now)
        if link is None:
            return
        log.warning("room %s: bridge %s", room, "up" if link.up else "DOWN")
        for table in link.tables:
            self._mark_stale(table)
        if link.up and link.back_at is not None:
            self._resync(link)
            if self._loop is not None:  # the tiles change again when the catching up is over
                self._loop.call_later(CATCH_UP_MS / 1000 + 0.05, lambda: self._refresh(self._now()))
        self._refresh(now)

    def _resync(self, link: RoomLink) -> None:
        """Ask each table of the room for its state and the events after the last one stored."""
        hub_link = self._link()
        if hub_link is None:
            return
        for table in link.tables:
            match_id = self.match_of(table)
            from_seq = self._max_seq(table, match_id) + 1 if match_id else 1
            try:
                hub_link.request_resync(table, match_id, from_seq)
            except (OSError, ValueError) as exc:
                log.warning("room %s: could not ask table %s for its state: %s", link.name, table, exc)
