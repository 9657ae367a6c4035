"""Rooms joined by Mosquitto bridges: the bridge parts of ``bghub broker-config`` (docs/rooms.md).

An event with several rooms runs one Mosquitto per room, which its tables use, and one central
Mosquitto, which the hub uses. ``broker-config --room NAME --bridge-to HOST:PORT`` writes a room's
broker: everything of a plain room (its tables' credentials and ACL) plus a ``connection`` section
that bridges it to the central broker:

- its own credential ``room-NAME`` (client id forced to that name on the central broker, a fixed
  ``remote_clientid``), so one room cannot speak for another room's tables;
- the topics unchanged (``bg/v1/EVT/table/T/...`` on both sides): the tables and the hub use the
  same topics whether there is one room or ten. Out: each table's status, state, events and device
  report; in: each table's assignment, commands, resync and fleet control, the hub's status and
  time (each table's own rights, :func:`hub.broker.provision.table_rights`);
- QoS 1 both ways and a persistent bridge session (``cleansession false``): while the link is down
  the room broker keeps what its tables publish for the bridge, the central broker keeps what the
  hub sends to them, and both are delivered once the bridge is back;
- notifications on ``bg/v1/EVT/room/NAME/bridge``: ``1`` retained when the bridge connects, ``0``
  (its Will, published by the central broker) when it drops. This is how the hub learns that a
  room is cut off (:mod:`hub.live.bridged_rooms`), one message per room rather than one per table.

The central broker needs the bridge's credential: the room's run writes it into ``OUT/bridge.toml``
and, with ``--central DIR`` (the central broker's own broker-config directory), also into
``DIR/bridges/NAME.toml``, adds it to ``DIR``'s password file and ACL, and lists the room's tables
in ``DIR/hub.toml`` (``[rooms.NAME]``), which the hub reads. A later broker-config run for the
central broker keeps every bridge found in ``DIR/bridges/``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hub.broker.files import (
    ACL_NAME,
    HUB_FRAGMENT,
    PASSWD_NAME,
    toml_key,
    toml_string,
    toml_value,
    validate_id,
)
from hub.broker.provision import table_rights
from hub.errors import HubError

#: The bridge's username (and client id) on the central broker: ``room-<name>``.
BRIDGE_USER_PREFIX = "room-"
#: In a room's directory: the bridge's credential and tables, for the central broker.
BRIDGE_FRAGMENT = "bridge.toml"
#: In the central broker's directory: one fragment per room bridged to it.
BRIDGES_DIR = "bridges"
#: Marks where the generated bridge parts start in the central's ACL and hub.toml.
ACL_MARKER = "# Rooms bridged to this broker (bghub broker-config --room ... --central):"
ROOMS_MARKER = "# Rooms joined by bridges, and their tables (the hub shows one tab per room):"
#: What a room's tables send to the central broker (the table topics a table may write).
OUT_KINDS = ("status", "state", "evt", "device")
#: Seconds between the bridge's keepalives: a cut cable is noticed within 1.5 times this.
KEEPALIVE_S = 10
#: Reconnect back-off: first try after 1 s, never waiting more than 10 s.
RESTART_TIMEOUT = (1, 10)


class BridgeError(HubError, ValueError):
    """A bridge that cannot be written as asked (a :class:`hub.broker.mosquitto.BrokerConfigError`
    raises it again with the same message)."""


@dataclass(frozen=True)
class BridgeSettings:
    """``--room NAME --bridge-to HOST:PORT [--central DIR]``."""

    room: str
    host: str
    port: int
    central: Path | None = None

    @property
    def username(self) -> str:
        return bridge_user(self.room)


@dataclass(frozen=True)
class Bridge:
    """One room's bridge as the central broker knows it."""

    event: str
    room: str
    password: str
    tables: tuple[str, ...]

    @property
    def username(self) -> str:
        return bridge_user(self.room)


def bridge_user(room: str) -> str:
    return f"{BRIDGE_USER_PREFIX}{room}"


def room_rights(event: str, tables: Sequence[str]) -> tuple[list[str], list[str]]:
    """What the room's tables may publish and read, together: each table's rights
    (:func:`hub.broker.provision.table_rights`, the same as its own credential's), the hub's topics once."""
    publish: dict[str, None] = {}
    subscribe: dict[str, None] = {}
    for table in tables:
        pub, sub = table_rights(event, table)
        publish.update(dict.fromkeys(pub))
        subscribe.update(dict.fromkeys(sub))
    return list(publish), list(subscribe)


def notification_topic(event: str, room: str) -> str:
    """Where the bridge says ``1`` (connected) or ``0`` (its Will), retained, on both brokers."""
    return f"bg/v1/{event}/room/{room}/bridge"


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` of the central broker (the port is required: no guessing which listener)."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise BridgeError(f"--bridge-to {text!r}: expected HOST:PORT of the central broker")
    if any(ch.isspace() or ch == "#" for ch in host):
        raise BridgeError(f"--bridge-to {text!r}: the host may not hold spaces or '#'")
    return host, int(port)


# --------------------------------------------------------------------------------------------
# The room's side: the bridge section of its mosquitto.conf


def render_section(event: str, tables: Sequence[str], bridge: BridgeSettings, password: str) -> str:
    """The ``connection`` section that ends a room's mosquitto.conf (every option after the
    ``connection`` line belongs to the bridge, so it comes last)."""
    prefix = f"bg/v1/{event}"
    _publish, subscribe = room_rights(event, tables)
    lines = [
        "",
        f"# Bridge of room {bridge.room!r} to the central broker {bridge.host}:{bridge.port}.",
        "# Same topics on both sides; QoS 1 and a persistent session both ways: what the tables",
        "# publish while the link is down is kept here and delivered once it is back.",
        f"connection {bridge.username}",
        f"address {bridge.host}:{bridge.port}",
        f"remote_username {bridge.username}",
        f"remote_password {password}",
        f"remote_clientid {bridge.username}",
        f"local_clientid {bridge.username}.local",
        "bridge_protocol_version mqttv311",
        "try_private true",
        "cleansession false",
        "local_cleansession false",
        "start_type automatic",
        f"restart_timeout {RESTART_TIMEOUT[0]} {RESTART_TIMEOUT[1]}",
        f"keepalive_interval {KEEPALIVE_S}",
        "# 1 when the bridge is up, 0 (its Will, sent by the central broker) when it drops.",
        "notifications true",
        f"notification_topic {notification_topic(event, bridge.room)}",
        "# Out: the tables' own topics (this broker's ACL already keeps each table to its own).",
        *(f"topic {prefix}/table/+/{kind} out 1" for kind in OUT_KINDS),
        "# In: what the hub sends to this room's tables (named one by one: the central broker",
        "# gives this bridge no other table's), and the hub's status and time.",
        *(f"topic {topic} in 1" for topic in subscribe),
    ]
    return "\n".join(lines) + "\n"


def render_fragment(bridge: Bridge) -> str:
    """The bridge's credential and tables, for the central broker (``bridges/NAME.toml``)."""
    return (
        f"# Bridge of room {bridge.room} at event {bridge.event} (written by `bghub broker-config`).\n"
        "# The central broker's broker-config directory keeps it in bridges/; keep it 0600.\n"
        f"event = {toml_string(bridge.event)}\n"
        f"room = {toml_string(bridge.room)}\n"
        f"tables = {toml_value(list(bridge.tables))}\n"
        "\n"
        "[broker]\n"
        f"username = {toml_string(bridge.username)}\n"
        f"password = {toml_string(bridge.password)}\n"
    )


def read_fragment(path: Path) -> Bridge:
    """A bridge fragment, checked (it holds a credential the central broker will accept)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        event, room, tables = data["event"], data["room"], data["tables"]
        username, password = data["broker"]["username"], data["broker"]["password"]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise BridgeError(f"bridge fragment {path}: {exc}") from exc
    if not all(isinstance(v, str) for v in (event, room, username, password)) or not isinstance(tables, list):
        raise BridgeError(f"bridge fragment {path}: event, room, password are strings, tables a list")
    validate_id("event", event)
    validate_id("room", room)
    if username != bridge_user(room):
        raise BridgeError(f"bridge fragment {path}: username {username!r} is not {bridge_user(room)!r}")
    for table in tables:
        if not isinstance(table, str):
            raise BridgeError(f"bridge fragment {path}: table {table!r} is not a string")
        validate_id("table", table)
    return Bridge(event, room, password, tuple(tables))


# --------------------------------------------------------------------------------------------
# The central broker's side


def load_bridges(central: Path, event: str) -> list[Bridge]:
    """The bridges registered in a central broker's directory (``bridges/*.toml``), checked:
    each of this event, no table in two rooms."""
    bridges = [read_fragment(p) for p in sorted((central / BRIDGES_DIR).glob("*.toml"))]
    owner: dict[str, str] = {}
    for bridge in bridges:
        if bridge.event != event:
            raise BridgeError(f"room {bridge.room} is bridged for event {bridge.event}, not {event}")
        for table in bridge.tables:
            if table in owner and owner[table] != bridge.room:
                raise BridgeError(f"table {table} is in rooms {owner[table]} and {bridge.room}")
            owner[table] = bridge.room
    return bridges


def check_central_tables(tables: Sequence[str], bridges: Sequence[Bridge]) -> None:
    """A table connects to one broker: not to the central one and to a room's too, and no table
    may be named like a bridge's credential."""
    own = set(tables)
    for bridge in bridges:
        if bridge.username in own:
            raise BridgeError(
                f"table id {bridge.username!r} is the credential of room {bridge.room}'s bridge"
            )
        both = own.intersection(bridge.tables)
        if both:
            raise BridgeError(
                f"tables {', '.join(sorted(both))} are in room {bridge.room} and on the central broker"
            )


def render_acl(event: str, bridges: Sequence[Bridge]) -> str:
    """The central ACL's bridge blocks: a bridge writes what its tables may write and its own
    notification, and reads what its tables may read (the hub's status and time included)."""
    if not bridges:
        return ""
    parts = [f"\n{ACL_MARKER}\n"]
    for bridge in bridges:
        publish, subscribe = room_rights(event, bridge.tables)
        lines = [f"user {bridge.username}", f"topic write {notification_topic(event, bridge.room)}"]
        lines += [f"topic write {t}" for t in publish] + [f"topic read {t}" for t in subscribe]
        parts.append("\n" + "\n".join(lines) + "\n")
    return "".join(parts)


def render_rooms(bridges: Sequence[Bridge]) -> str:
    """The hub's ``[rooms.NAME]`` tables (appended to the central's hub.toml)."""
    if not bridges:
        return ""
    parts = [f"\n{ROOMS_MARKER}\n"]
    for bridge in bridges:
        parts.append(f"[rooms.{toml_key(bridge.room)}]\ntables = {toml_value(list(bridge.tables))}\n")
    return "".join(parts)


def without_generated(text: str, marker: str) -> str:
    """``text`` up to the marker line (what broker-config generated before bridges were added)."""
    head, sep, _ = text.partition(f"\n{marker}\n")
    return head if sep else text


def register(
    central: Path,
    bridge: Bridge,
    *,
    hash_password: Callable[[str], str],
    write: Callable[[Path, str], None],
) -> list[Path]:
    """Add (or replace) ``bridge`` in the central broker's directory: its fragment, its password
    line, its ACL block and its room in hub.toml. The broker reads the new files on SIGHUP."""
    passwd_path, acl_path, hub_path = central / PASSWD_NAME, central / ACL_NAME, central / HUB_FRAGMENT
    for path in (passwd_path, acl_path, hub_path):
        if not path.is_file():
            raise BridgeError(
                f"--central {central}: no {path.name} there; run broker-config for the central "
                "broker into that directory first"
            )
    hub_event = tomllib.loads(hub_path.read_text(encoding="utf-8")).get("event")
    if hub_event != bridge.event:
        raise BridgeError(f"--central {central} is the broker of event {hub_event!r}, not {bridge.event!r}")
    fragment = central / BRIDGES_DIR / f"{bridge.room}.toml"
    fragment.parent.mkdir(mode=0o700, exist_ok=True)
    others = [b for b in load_bridges(central, bridge.event) if b.room != bridge.room]
    bridges = sorted([*others, bridge], key=lambda b: b.room)
    load_bridges_check = {t: b.room for b in others for t in b.tables}
    for table in bridge.tables:
        if table in load_bridges_check:
            raise BridgeError(f"table {table} is already in room {load_bridges_check[table]}")
    central_tables = [p.stem for p in (central / "tables").glob("*.toml")]
    check_central_tables(central_tables, [bridge])
    write(fragment, render_fragment(bridge))
    users = [line for line in passwd_path.read_text(encoding="utf-8").splitlines() if line]
    users = [line for line in users if not line.startswith(f"{bridge.username}:")]
    users.append(f"{bridge.username}:{hash_password(bridge.password)}")
    write(passwd_path, "\n".join(users) + "\n")
    acl = without_generated(acl_path.read_text(encoding="utf-8"), ACL_MARKER)
    write(acl_path, acl + render_acl(bridge.event, bridges))
    hub_text = without_generated(hub_path.read_text(encoding="utf-8"), ROOMS_MARKER)
    write(hub_path, hub_text + render_rooms(bridges))
    return [fragment, passwd_path, acl_path, hub_path]
