"""``bghub broker-config``: a locked-down Mosquitto configuration for one event's room.

A room's broker must not let one table speak for another: a table could otherwise post a fake
result for its neighbour, or send itself a TD command. This module writes, into one directory:

- ``mosquitto.conf``: no anonymous clients, a password file, an ACL file, client id forced to the
  username, persistence (retained states and assignments survive a broker restart), optional TLS;
- ``passwd``: one credential per table (username = table id), one for the hub (``hub``) and a
  read-only one for diagnostics (``monitor``), hashed in Mosquitto's own PBKDF2-SHA512 ``$7$``
  format, so ``mosquitto_passwd`` is not needed;
- ``acl``: a table may publish only its own ``status``/``state``/``evt`` and read only its own
  ``assign``/``cmd``/``resync`` and the hub's ``status`` and ``time``; the hub reads and writes the
  whole event; ``monitor`` reads the whole event (and the broker's ``$SYS`` statistics) and writes
  nothing;
- limits (:func:`room_limits`), so that no client — a broken or tampered table, or a stranger
  on the room's network who has no credential at all — can make the broker allocate more than a
  bounded amount: a largest packet, a cap on what is queued for one client, on messages in
  flight, and on connections per listener, sized for the room;
- ``dynamic-security.json`` (when missing): Mosquitto's dynamic-security plugin, loaded by
  ``mosquitto.conf``, with no clients yet: tables enrolled from the dashboard get their
  credentials there, live (:mod:`hub.broker.dynsec`); the ACL lets the hub speak to the plugin;
- ``tables/{table}.toml``, ``hub.toml`` and ``monitor.toml``: each client's own credential in
  plain text, to copy into that client's configuration when provisioning it. With
  ``--table-template`` (the keys all tables share) each table's file is its whole
  ``table.toml``; the template is kept in the directory for later runs.

Every file is readable by its owner only (0600, directories 0700; with ``--broker-user`` the
broker's files belong to that user). Re-running refuses to replace existing credentials unless
``--force`` (new passwords for everyone) or ``--keep`` (existing passwords kept, new tables
added, dropped tables removed) says what to do. docs/deployment.md is the user's guide.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import getpass
import hashlib
import hmac
import os
import pwd
import re
import secrets
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.mqtt_topics import MAX_PAYLOAD
from drivers.private_file import write_private
from hub.broker import bridges as bridge_config
from hub.broker import dynsec
from hub.broker import tls as broker_tls
from hub.broker.bridges import BridgeError, BridgeSettings
from hub.broker.files import (
    ACL_NAME,
    CONF_NAME,
    DATA_DIR,
    HUB_FRAGMENT,
    HUB_USER,
    MONITOR_FRAGMENT,
    MONITOR_USER,
    PASSWD_NAME,
    RESERVED_USERS,
    TABLES_DIR,
    TEMPLATE_NAME,
    BrokerConfigError,
    toml_key,
    toml_string,
    toml_value,
    validate_id,
)
from hub.broker.firewall import FIREWALL_NAME, render_nft
from hub.broker.provision import table_rights

#: A range item in a table list: ``5-9``, ``01-12`` or ``A1-A12`` (same prefix on both ends).
RANGE_RE = re.compile(r"(?P<prefix>[A-Za-z_]*)(?P<lo>\d+)-(?P=prefix)?(?P<hi>\d+)")
#: A room is a few hundred tables at most; a larger list is a typing mistake.
MAX_TABLES = 5000
#: Mosquitto's default PBKDF2 iteration count for ``$7$`` hashes (mosquitto_passwd uses 101).
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12
#: Where a table expects the broker's CA certificate when the fragment says ``tls = true``.
TABLE_CA_PATH = "/etc/bgtable/broker-ca.pem"

# --------------------------------------------------------------------------------------------
# Table lists and ids


def parse_tables(spec: str) -> list[str]:
    """Expand a table list such as ``1-50`` or ``1,2,5-9,A1`` into ids, in the order given.

    An item ``N-M`` (digits; optionally the same letter prefix on both ends, ``A1-A12``) is a
    range; leading zeros on the start keep the width (``01-12``). Any other item is one table id.
    Duplicates, empty items and reversed ranges are refused with the offending item named.
    """
    tables: list[str] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    items = [item.strip() for item in spec.split(",")]
    if not spec.strip():
        raise BrokerConfigError("the table list is empty (example: --tables 1-50 or 1,2,5-9,A1)")
    for position, item in enumerate(items, start=1):
        if not item:
            raise BrokerConfigError(f"empty item at position {position} in table list {spec!r}")
        for table in _expand_item(item):
            validate_id("table", table)
            if table in seen:
                duplicates.append(table)
            seen.add(table)
            tables.append(table)
            if len(tables) > MAX_TABLES:
                raise BrokerConfigError(f"more than {MAX_TABLES} tables in {spec!r}: check the ranges")
    if duplicates:
        listed = ", ".join(dict.fromkeys(duplicates))
        raise BrokerConfigError(f"tables listed more than once: {listed}")
    return tables


def _expand_item(item: str) -> list[str]:
    match = RANGE_RE.fullmatch(item)
    if match is None:
        return [item]
    prefix, lo_text, hi_text = match["prefix"], match["lo"], match["hi"]
    lo, hi = int(lo_text), int(hi_text)
    if lo > hi:
        raise BrokerConfigError(f"range {item!r} runs backwards (write {prefix}{hi}-{prefix}{lo})")
    if hi - lo + 1 > MAX_TABLES:
        raise BrokerConfigError(f"range {item!r} has more than {MAX_TABLES} tables")
    width = len(lo_text) if lo_text.startswith("0") and len(lo_text) > 1 else 0
    return [f"{prefix}{n:0{width}d}" for n in range(lo, hi + 1)]


# --------------------------------------------------------------------------------------------
# Mosquitto's $7$ password hash


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """Hash ``password`` as ``mosquitto_passwd`` does: ``$7$<iterations>$<b64 salt>$<b64 sha512>``.

    PBKDF2-HMAC-SHA512 over the UTF-8 password with a random 12-byte salt; salt and the 64-byte
    digest are standard base64 (with padding), exactly the fields Mosquitto 2.x parses.
    """
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def verify_password(password: str, encoded: str) -> bool:
    """Check ``password`` against a ``$7$`` hash (the broker's own check, for tests and ``--keep``)."""
    parts = encoded.split("$")
    if len(parts) != 5 or parts[0] != "" or parts[1] != "7":
        return False
    try:
        iterations = int(parts[2])
        salt = base64.b64decode(parts[3], validate=True)
        expected = base64.b64decode(parts[4], validate=True)
    except ValueError:
        return False
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return hmac.compare_digest(digest, expected)


def new_password() -> str:
    """A random password: 24 bytes of entropy, URL-safe, nothing to escape in TOML or shells."""
    return secrets.token_urlsafe(24)


# --------------------------------------------------------------------------------------------
# Settings and rendering (pure: strings in, strings out)


@dataclass(frozen=True)
class TlsSettings:
    """A TLS listener's certificate files (absolute paths) and port."""

    cert: Path
    key: Path
    cafile: Path | None = None
    port: int = 8883
    #: the room's own CA and the broker's certificate, made by broker-config (:mod:`hub.broker.tls`)
    generated: bool = False


@dataclass(frozen=True)
class BrokerSettings:
    """Everything ``broker-config`` needs; paths are made absolute by :func:`settings_from_args`."""

    event: str
    tables: tuple[str, ...]
    out: Path
    port: int = 1883
    bind: str | None = None
    host: str = "bghub.local"
    hub_host: str = "127.0.0.1"
    tls: TlsSettings | None = None
    persistence_dir: Path | None = None
    broker_user: str = field(default_factory=lambda: pwd.getpwuid(os.geteuid()).pw_name)
    #: the rest of every table's configuration (see :func:`load_table_template`)
    table_template: dict[str, Any] = field(default_factory=dict)
    #: a room's broker bridged to the central one (``--room NAME --bridge-to HOST:PORT``)
    bridge: BridgeSettings | None = None

    @property
    def data_dir(self) -> Path:
        return self.persistence_dir if self.persistence_dir is not None else self.out / DATA_DIR


@dataclass(frozen=True)
class RoomLimits:
    """What one client may make the broker hold (``mosquitto.conf`` options of the same names)."""

    #: the largest MQTT packet (bytes, header and topic included): the product's own payload
    #: limit plus room for the topic; a larger packet, even a half-sent CONNECT that merely
    #: announces its length, disconnects its sender before anything is allocated for it
    max_packet_size: int
    #: bytes queued for one client while it is away or slow (the hub's persistent session)
    max_queued_bytes: int
    #: messages queued for one client (whichever limit comes first)
    max_queued_messages: int
    #: QoS 1 messages in flight to one client at once
    max_inflight_messages: int
    #: connections per listener: every table, the hub and the monitor, with room to spare
    max_connections: int


#: bytes for the fixed header and the topic of a packet at the payload limit
PACKET_OVERHEAD = 1024
#: connections beyond the room's own: reconnects overlapping, spare tables, a second monitor
SPARE_CONNECTIONS = 16


def room_limits(tables: int) -> RoomLimits:
    """The limits for a room of ``tables`` tables.

    Why these numbers: real messages are far below :data:`MAX_PAYLOAD` (an event is under 2 KB,
    the state of a whole 25-point match about 5 KB), and every client of the product already
    refuses larger payloads. 20,000 queued messages keep ten minutes of a busy room's events for
    a hub that is away; 64 MiB stops a table sending packets at the limit from queueing
    gigabytes for it (what is dropped past it, the hub asks the tables for again). So the worst
    a stranger can make the broker hold is about ``max_connections × max_packet_size``.
    """
    return RoomLimits(
        max_packet_size=MAX_PAYLOAD + PACKET_OVERHEAD,
        max_queued_bytes=64 * 1024 * 1024,
        max_queued_messages=20_000,
        max_inflight_messages=20,
        max_connections=tables + len(RESERVED_USERS) + max(SPARE_CONNECTIONS, tables // 5),
    )


def render_conf(settings: BrokerSettings, extra_connections: int = 0) -> str:
    """The broker's configuration: authenticated listeners only, ACL, persistence, optional TLS
    (``extra_connections``: the rooms' bridges connecting to a central broker)."""
    out = settings.out
    bind = f" {settings.bind}" if settings.bind else ""
    limits = room_limits(len(settings.tables) + extra_connections)
    lines = [
        f"# Mosquitto configuration for event {settings.event!r}: written by `bghub broker-config`.",
        "# Regenerate it with that command rather than editing it (see docs/deployment.md).",
        "",
        "# The same password file and ACL on every listener.",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {out / PASSWD_NAME}",
        f"acl_file {out / ACL_NAME}",
        "# Mosquitto started as root drops to this user before reading the files above.",
        f"user {settings.broker_user}",
        *dynsec.conf_lines(out, dynsec.find_plugin()),
        "",
        "# Retained states, assignments and statuses survive a broker restart.",
        "persistence true",
        f"persistence_location {str(settings.data_dir).rstrip('/')}/",
        "autosave_interval 60",
        "",
        "# Limits: nothing any client sends, authenticated or not, makes the broker hold more than",
        "# a bounded amount. A packet larger than max_packet_size disconnects its sender (a CONNECT",
        "# announcing a huge length is dropped before anything is allocated for it).",
        f"max_packet_size {limits.max_packet_size}",
        "# A hub that is away for a while must not lose a busy room's events, nor be sent gigabytes.",
        f"max_queued_messages {limits.max_queued_messages}",
        f"max_queued_bytes {limits.max_queued_bytes}",
        f"max_inflight_messages {limits.max_inflight_messages}",
        "set_tcp_nodelay true",
        "",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "log_type information",
        "connection_messages true",
        "",
        "# Listener options come after their `listener` line: written before the first one, they",
        "# would open Mosquitto's default listener on port 1883 of every interface.",
        f"listener {settings.port}{bind}",
        "protocol mqtt",
        *_listener_options(limits),
    ]
    if settings.tls is not None:
        tls = settings.tls
        lines += [
            "",
            f"listener {tls.port}{bind}",
            "protocol mqtt",
            *_listener_options(limits),
            f"certfile {tls.cert}",
            f"keyfile {tls.key}",
        ]
        if tls.cafile is not None:
            lines.append(f"cafile {tls.cafile}")
    return "\n".join(lines) + "\n"


def _listener_options(limits: RoomLimits) -> list[str]:
    return [
        "# The client id is the username: one table's credential cannot take over another's session.",
        "use_username_as_clientid true",
        "# Every table, the hub and the monitor, with room to spare (not reloaded on SIGHUP).",
        f"max_connections {limits.max_connections}",
    ]


def render_acl(event: str, tables: Sequence[str]) -> str:
    """One ``user`` block per table (its own topics only) and the hub's whole-event access.

    Explicit blocks rather than ``%u`` patterns: the file says exactly who may do what, a table
    missing from the list has no rights at all, and Mosquitto logs no pattern warnings.
    """
    prefix = f"bg/v1/{event}"
    parts = [
        f"# Access control for event {event!r}: written by `bghub broker-config`.\n"
        "# Everything not granted here is denied: a forbidden publish is dropped, a forbidden\n"
        "# subscription receives nothing. A table publishes only its own status (also its Will),\n"
        "# state and events, and reads only its own assignment, commands and resync requests,\n"
        "# and the hub's status and time.\n"
        "\n"
        "# The hub reads and writes everything of this event.\n"
        f"user {HUB_USER}\n"
        f"topic readwrite {prefix}/#\n" + "".join(f"{line}\n" for line in dynsec.hub_acl_lines()) + "\n"
        "# Diagnostics (mosquitto_sub -u monitor): reads everything of this event and the broker's\n"
        "# own statistics, writes nothing; its own client id, so it never disconnects the hub.\n"
        f"user {MONITOR_USER}\n"
        f"topic read {prefix}/#\n"
        "topic read $SYS/#\n"
    ]
    for table in tables:
        # the same rights as an enrolled table's (hub.broker.provision.table_rights), listed once
        publish, subscribe = table_rights(event, table)
        lines = [f"topic write {t}" for t in publish] + [f"topic read {t}" for t in subscribe]
        parts.append(f"\nuser {table}\n" + "".join(f"{line}\n" for line in lines))
    return "".join(parts)


def render_passwd(credentials: dict[str, str]) -> str:
    """``username:$7$…`` lines, hub and monitor first, then the tables in the order given."""
    return "".join(f"{user}:{hash_password(password)}\n" for user, password in credentials.items())


#: Keys of a table's configuration that broker-config writes itself (a template may not set them).
GENERATED_KEYS = ("table_id", "event", "broker")


def load_table_template(path: Path) -> dict[str, Any]:
    """Read the keys every table shares (language, td_pin, [pins], [dice], [screen], …).

    ``table_id``, ``event`` and ``[broker]`` are refused: they are what broker-config writes.
    Values may be strings, numbers, booleans and arrays, at the top level or in one level of
    sections, which is all a table's configuration has.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BrokerConfigError(f"--table-template {path}: {exc}") from exc
    for key in GENERATED_KEYS:
        if key in data:
            raise BrokerConfigError(
                f"--table-template {path}: remove {key!r}; broker-config writes it for each table"
            )
    for key, value in data.items():
        for sub, item in value.items() if isinstance(value, dict) else [(None, value)]:
            name = f"{key}.{sub}" if sub is not None else key
            try:
                toml_value(item)
            except BrokerConfigError:
                raise BrokerConfigError(
                    f"--table-template {path}: {name}: only strings, numbers, booleans and arrays"
                ) from None
    return data


def render_template(template: dict[str, Any]) -> str:
    """The template as TOML again (kept in OUT for later runs)."""
    lines = ["# Keys every table shares: used by `bghub broker-config` when no --table-template is given."]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in template.items() if not isinstance(v, dict)]
    for name, body in template.items():
        if isinstance(body, dict):
            lines += [
                "",
                f"[{toml_key(name)}]",
                *(f"{toml_key(k)} = {toml_value(v)}" for k, v in body.items()),
            ]
    return "\n".join(lines) + "\n"


def render_table_fragment(settings: BrokerSettings, table: str, password: str) -> str:
    """One table's configuration in the kiosk's own keys (docs/configuration.md): ``table_id``,
    ``event`` and the ``[broker]`` section, plus the template's keys when one was given — then it
    is the table's whole ``/etc/bgtable/table.toml``."""
    tls = settings.tls
    template = settings.table_template
    top = {k: v for k, v in template.items() if not isinstance(v, dict)}
    sections = {k: v for k, v in template.items() if isinstance(v, dict)}
    what = "configuration" if template else "broker credential"
    lines = [
        f"# Table {table} at event {settings.event}: its {what} (written by `bghub broker-config`).",
        "# Install as (or merge into) /etc/bgtable/table.toml on that table; keep it 0600.",
        f"table_id = {toml_string(table)}",
        f"event = {toml_string(settings.event)}",
        *(f"{toml_key(k)} = {toml_value(v)}" for k, v in top.items()),
        "",
        "[broker]",
        f"host = {toml_string(settings.host)}",
        f"port = {tls.port if tls else settings.port}",
        f"username = {toml_string(table)}",
        f"password = {toml_string(password)}",
    ]
    if tls:
        lines += ["tls = true", f"ca_file = {toml_string(TABLE_CA_PATH)}"]
    for name, body in sections.items():
        lines += ["", f"[{toml_key(name)}]", *(f"{toml_key(k)} = {toml_value(v)}" for k, v in body.items())]
    return "\n".join(lines) + "\n"


def render_monitor_fragment(settings: BrokerSettings, password: str) -> str:
    """The read-only diagnostics credential, with the command line that uses it."""
    tls = settings.tls
    port = tls.port if tls else settings.port
    tls_args = f" --cafile {TABLE_CA_PATH}" if tls else ""
    return (
        f"# Read-only credential for diagnostics at event {settings.event}"
        " (written by `bghub broker-config`).\n"
        "# It reads every topic of the event and writes none; use it instead of the hub's, which would\n"
        "# take the hub's session over and disconnect the real hub:\n"
        f"#   mosquitto_sub -h {settings.host} -p {port}{tls_args} -u {MONITOR_USER} -P 'PASSWORD' "
        f"-t 'bg/v1/{settings.event}/#' -v\n"
        f"event = {toml_string(settings.event)}\n"
        "\n"
        "[broker]\n"
        f"host = {toml_string(settings.host)}\n"
        f"port = {port}\n"
        f"username = {toml_string(MONITOR_USER)}\n"
        f"password = {toml_string(password)}\n"
    )


def table_ca(settings: BrokerSettings) -> Path | None:
    """The CA enrolled tables check the broker with: the room's own, or ``--cafile``."""
    tls = settings.tls
    if tls is None:
        return None
    if tls.generated:
        return settings.out / broker_tls.TLS_DIR / broker_tls.CA_CERT
    return tls.cafile


def render_hub_fragment(settings: BrokerSettings, password: str) -> str:
    """The hub's credential (the hub runs beside the broker: plain port, loopback by default), and
    ``[tables]``: the broker address (and CA) the hub gives the tables it enrolls."""
    ca = table_ca(settings)
    port = settings.tls.port if settings.tls is not None and ca is not None else settings.port
    tables = f"broker = {toml_string(f'{settings.host}:{port}')}\n"
    if ca is not None:
        tables += f"tls_ca = {toml_string(str(ca))}\n"
    return (
        f"# The hub's broker credential for event {settings.event} (written by `bghub broker-config`).\n"
        "# Merge into the hub's configuration (/etc/bgtable/hub.toml); keep it 0600.\n"
        f"event = {toml_string(settings.event)}\n"
        "\n"
        "[broker]\n"
        f"host = {toml_string(settings.hub_host)}\n"
        f"port = {settings.port}\n"
        f"username = {toml_string(HUB_USER)}\n"
        f"password = {toml_string(password)}\n"
        "\n"
        "# What `bghub run` gives the tables it enrolls (--public-broker, --table-tls-ca override it).\n"
        "[tables]\n" + tables
    )


# --------------------------------------------------------------------------------------------
# Writing the directory


@dataclass
class GenerateResult:
    """What a run wrote: the files, and which credentials are new, kept or removed."""

    files: list[Path] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: the room's bridge was added to the central broker's files (``--central``)
    registered: bool = False


def existing_credentials(out: Path) -> dict[str, str]:
    """Usernames and passwords from a previous run's fragments (hub, monitor, tables/*.toml)."""
    found: dict[str, str] = {}
    paths = [out / HUB_FRAGMENT, out / MONITOR_FRAGMENT, *sorted((out / TABLES_DIR).glob("*.toml"))]
    for path in paths:
        if not path.is_file():
            continue
        try:
            broker = tomllib.loads(path.read_text(encoding="utf-8"))["broker"]
            found[str(broker["username"])] = str(broker["password"])
        except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
            raise BrokerConfigError(f"cannot reuse credentials from {path}: {exc}") from exc
    return found


def generate(settings: BrokerSettings, *, force: bool = False, keep: bool = False) -> GenerateResult:
    """Write the broker's files and the provisioning fragments into ``settings.out``.

    Refuses (raises) when credentials already exist there unless ``force`` (all new passwords) or
    ``keep`` (reuse the passwords of tables still listed, add new ones, remove dropped ones).
    """
    if force and keep:
        raise BrokerConfigError("--force and --keep contradict each other: choose one")
    _check_settings(settings)
    out = settings.out
    previous = existing_credentials(out) if out.exists() else {}
    has_previous = bool(previous) or (out / PASSWD_NAME).exists()
    if has_previous and not (force or keep):
        raise BrokerConfigError(
            f"{out} already holds broker credentials: --keep reuses them (adds new tables, removes "
            "dropped ones), --force replaces every password (every table must be provisioned again)"
        )
    owner = _broker_owner(settings.broker_user)
    stored_template = out / TEMPLATE_NAME
    if not settings.table_template and stored_template.is_file():
        settings = dataclasses.replace(settings, table_template=load_table_template(stored_template))

    result = GenerateResult()
    credentials: dict[str, str] = {}
    for user in (*RESERVED_USERS, *settings.tables):
        if keep and user in previous:
            credentials[user] = previous[user]
            result.kept.append(user)
        else:
            credentials[user] = new_password()
            result.new.append(user)
    bridge = _bridge(settings, keep, result)
    bridges = [] if bridge is not None else _registered_bridges(settings)

    _make_dir(out, 0o700 if owner is None else 0o710, group=None if owner is None else owner[1])
    _make_dir(out / TABLES_DIR, 0o700)
    created_data = not settings.data_dir.exists()
    _make_dir(settings.data_dir, 0o700)
    if owner is not None and (created_data or settings.persistence_dir is None):
        os.chown(settings.data_dir, *owner)

    if settings.tls is not None and settings.tls.generated:
        _make_dir(
            out / broker_tls.TLS_DIR, 0o700 if owner is None else 0o710, None if owner is None else owner[1]
        )
        names = [
            settings.host,
            *([settings.bind] if settings.bind and settings.bind not in ("0.0.0.0", "::") else []),
        ]
        broker_tls.ensure(
            out,
            settings.event,
            names,
            lambda path, text, broker_reads: write_private(path, text, owner if broker_reads else None),
            renew_ca=force,
        )
        result.files.append(out / broker_tls.TLS_DIR / broker_tls.CA_CERT)
    conf = render_conf(settings, extra_connections=len(bridges))
    if bridge is not None and settings.bridge is not None:
        conf += bridge_config.render_section(
            settings.event, settings.tables, settings.bridge, bridge.password
        )
    broker_files = {
        out / CONF_NAME: conf,
        out / PASSWD_NAME: render_passwd(credentials | {b.username: b.password for b in bridges}),
        out / ACL_NAME: render_acl(settings.event, settings.tables)
        + bridge_config.render_acl(settings.event, bridges),
    }
    fragments = {
        out / HUB_FRAGMENT: render_hub_fragment(settings, credentials[HUB_USER])
        + bridge_config.render_rooms(bridges),
        out / MONITOR_FRAGMENT: render_monitor_fragment(settings, credentials[MONITOR_USER]),
    }
    if bridge is not None:
        fragments[out / bridge_config.BRIDGE_FRAGMENT] = bridge_config.render_fragment(bridge)
    if settings.table_template:
        fragments[stored_template] = render_template(settings.table_template)
    ports = [settings.port] + ([settings.tls.port] if settings.tls is not None else [])
    fragments[out / FIREWALL_NAME] = render_nft(settings.event, ports)
    for table in settings.tables:
        fragments[out / TABLES_DIR / f"{table}.toml"] = render_table_fragment(
            settings, table, credentials[table]
        )
    broker_files.update(dynsec.broker_files(out))
    for path, text in broker_files.items():
        write_private(path, text, owner)
        result.files.append(path)
    for path, text in fragments.items():
        write_private(path, text, None)
        result.files.append(path)

    wanted = {f"{table}.toml" for table in settings.tables}
    for stale in sorted((out / TABLES_DIR).glob("*.toml")):
        if stale.name not in wanted:
            stale.unlink()
            result.removed.append(stale.stem)
    if bridge is not None and settings.bridge is not None and settings.bridge.central is not None:
        result.files += _register(settings.bridge.central, bridge)
        result.registered = True
    return result


def _bridge(settings: BrokerSettings, keep: bool, result: GenerateResult) -> bridge_config.Bridge | None:
    """A room's bridge, with its password kept (``--keep``) from the room's last run."""
    if settings.bridge is None:
        return None
    user = settings.bridge.username
    fragment = settings.out / bridge_config.BRIDGE_FRAGMENT
    password = None
    if keep and fragment.is_file():
        try:
            password = bridge_config.read_fragment(fragment).password
        except BridgeError as exc:
            raise BrokerConfigError(str(exc)) from None
    if password is None:
        password = new_password()
        result.new.append(user)
    else:
        result.kept.append(user)
    return bridge_config.Bridge(settings.event, settings.bridge.room, password, settings.tables)


def _registered_bridges(settings: BrokerSettings) -> list[bridge_config.Bridge]:
    """The rooms bridged to this (central) broker: kept across its own runs, whatever the mode
    (their passwords are in the rooms' configurations)."""
    try:
        bridges = bridge_config.load_bridges(settings.out, settings.event)
        bridge_config.check_central_tables(settings.tables, bridges)
    except BridgeError as exc:
        raise BrokerConfigError(str(exc)) from None
    return bridges


def _register(central: Path, bridge: bridge_config.Bridge) -> list[Path]:
    """Give the central broker the bridge's credential (files keep their owner and mode)."""

    def write(path: Path, text: str) -> None:
        owner = None
        if path.exists():
            st = path.stat()
            owner = None if st.st_uid == os.geteuid() else (st.st_uid, st.st_gid)
        write_private(path, text, owner)

    try:
        return bridge_config.register(central, bridge, hash_password=hash_password, write=write)
    except BridgeError as exc:
        raise BrokerConfigError(str(exc)) from None


def _check_settings(settings: BrokerSettings) -> None:
    validate_id("event", settings.event)
    if not settings.tables:
        raise BrokerConfigError("no tables to configure")
    for table in settings.tables:
        validate_id("table", table)
    if len(set(settings.tables)) != len(settings.tables):
        raise BrokerConfigError("tables listed more than once")
    ports = [settings.port] + ([settings.tls.port] if settings.tls else [])
    for port in ports:
        if not 1 <= port <= 65535:
            raise BrokerConfigError(f"port {port} is not between 1 and 65535")
    if settings.tls is not None:
        if settings.tls.port == settings.port:
            raise BrokerConfigError(f"the TLS port and the plain port are both {settings.port}")
        for label, path in (("--cert", settings.tls.cert), ("--key", settings.tls.key)):
            if not settings.tls.generated and not path.is_file():
                raise BrokerConfigError(f"{label} {path}: no such file")
        if settings.tls.cafile is not None and not settings.tls.cafile.is_file():
            raise BrokerConfigError(f"--cafile {settings.tls.cafile}: no such file")
    if settings.bridge is not None:
        validate_id("room", settings.bridge.room)
        if settings.bridge.username in settings.tables:
            raise BrokerConfigError(f"table id {settings.bridge.username!r} is the room's bridge credential")
        central = settings.bridge.central
        if central is not None and (not central.is_absolute() or central == settings.out):
            raise BrokerConfigError(f"--central {central}: the central broker's own directory, not --out")
    for path in (settings.out, settings.data_dir):
        if not path.is_absolute():
            raise BrokerConfigError(f"{path} must be an absolute path (the broker may run elsewhere)")
        if any(ch.isspace() for ch in str(path)):
            raise BrokerConfigError(f"{path}: Mosquitto cannot read paths with spaces")


def _broker_owner(user: str) -> tuple[int, int] | None:
    """(uid, gid) to give the broker's files to, or None when the broker runs as ourselves."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise BrokerConfigError(f"--broker-user {user!r}: no such user on this machine") from None
    if entry.pw_uid == os.geteuid():
        return None
    if os.geteuid() != 0:
        raise BrokerConfigError(
            f"--broker-user {user!r} differs from you ({getpass.getuser()}): run as root so the "
            "broker's files can be handed over, or leave --broker-user out"
        )
    return entry.pw_uid, entry.pw_gid


def _make_dir(path: Path, mode: int, group: int | None = None) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if group is not None:
        os.chown(path, 0, group)
    os.chmod(path, mode)


# --------------------------------------------------------------------------------------------
# Command line


DESCRIPTION = (
    "Write a Mosquitto configuration for one event's room (no anonymous clients; each table may "
    "publish and read only its own topics) with one credential per table and one for the hub, and "
    "each client's configuration fragment. See docs/deployment.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``broker-config`` (``bghub broker-config`` and ``-m hub.broker.mosquitto``)."""
    parser.add_argument(
        "--event", required=True, metavar="EVT", help="event (tournament) id, as in bg/v1/EVT/"
    )
    parser.add_argument("--tables", required=True, metavar="LIST", help="table ids: 1-50 or 1,2,5-9,A1-A4")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory to write (created 0700)")
    parser.add_argument("--port", type=int, default=1883, metavar="N", help="plain MQTT port (default 1883)")
    parser.add_argument(
        "--bind", default=None, metavar="ADDR", help="listen on this address only (default: all)"
    )
    parser.add_argument(
        "--host", default="bghub.local", metavar="NAME", help="broker address written for the tables"
    )
    parser.add_argument(
        "--hub-host", default="127.0.0.1", metavar="NAME", help="broker address written for the hub"
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="add a TLS listener (tables then use it); without --cert/--key the room's own CA and "
        "the broker's certificate are made in OUT/tls",
    )
    parser.add_argument("--tls-port", type=int, default=8883, metavar="N", help="TLS port (default 8883)")
    parser.add_argument("--cert", metavar="FILE", help="server certificate (PEM), with --tls")
    parser.add_argument("--key", metavar="FILE", help="server private key (PEM), with --tls")
    parser.add_argument("--cafile", metavar="FILE", help="CA certificate(s) for the TLS listener (optional)")
    parser.add_argument(
        "--table-template",
        metavar="FILE",
        help="TOML with the keys all tables share: each table's file becomes its whole table.toml",
    )
    parser.add_argument(
        "--persistence-dir", metavar="DIR", help="broker persistence directory (default OUT/data)"
    )
    parser.add_argument(
        "--broker-user",
        default=None,
        metavar="USER",
        help="user the broker runs as; its files are given to it (default: yourself)",
    )
    rooms = parser.add_argument_group("rooms joined by bridges (docs/rooms.md)")
    rooms.add_argument("--room", metavar="NAME", help="this broker is room NAME's, bridged to a central one")
    rooms.add_argument(
        "--bridge-to", metavar="HOST:PORT", help="the central broker the room's bridge connects to"
    )
    rooms.add_argument(
        "--central",
        metavar="DIR",
        help="the central broker's broker-config directory: the bridge's credential is added there",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--force", action="store_true", help="replace existing credentials")
    mode.add_argument("--keep", action="store_true", help="keep existing credentials, add new tables")


def settings_from_args(args: argparse.Namespace) -> BrokerSettings:
    """Validate the options and build absolute-path settings."""
    tls: TlsSettings | None = None
    if args.tls and not args.cert and not args.key:
        if args.cafile:
            raise BrokerConfigError(
                "--cafile goes with --cert and --key (without them the room's CA is made)"
            )
        tls_dir = _absolute(args.out) / broker_tls.TLS_DIR
        tls = TlsSettings(
            cert=tls_dir / broker_tls.SERVER_CERT,
            key=tls_dir / broker_tls.SERVER_KEY,
            port=args.tls_port,
            generated=True,
        )
    elif args.tls:
        if not args.cert or not args.key:
            raise BrokerConfigError("--tls needs both --cert and --key (or neither: the room's CA is made)")
        tls = TlsSettings(
            cert=_absolute(args.cert),
            key=_absolute(args.key),
            cafile=_absolute(args.cafile) if args.cafile else None,
            port=args.tls_port,
        )
    elif args.cert or args.key or args.cafile:
        raise BrokerConfigError("--cert, --key and --cafile are for --tls")
    kwargs: dict[str, Any] = {}
    if args.room is not None or args.bridge_to is not None:
        if args.room is None or args.bridge_to is None:
            raise BrokerConfigError(
                "--room and --bridge-to go together: a room's broker and where it bridges to"
            )
        try:
            host, port = bridge_config.parse_host_port(args.bridge_to)
        except BridgeError as exc:
            raise BrokerConfigError(str(exc)) from None
        central = _absolute(args.central) if args.central else None
        kwargs["bridge"] = BridgeSettings(validate_id("room", args.room), host, port, central)
    elif args.central is not None:
        raise BrokerConfigError("--central is for a room's broker (with --room and --bridge-to)")
    if args.broker_user:
        kwargs["broker_user"] = args.broker_user
    if args.table_template:
        kwargs["table_template"] = load_table_template(_absolute(args.table_template))
    return BrokerSettings(
        event=validate_id("event", args.event),
        tables=tuple(parse_tables(args.tables)),
        out=_absolute(args.out),
        port=args.port,
        bind=args.bind,
        host=args.host,
        hub_host=args.hub_host,
        tls=tls,
        persistence_dir=_absolute(args.persistence_dir) if args.persistence_dir else None,
        **kwargs,
    )


def _absolute(path: str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(path)))


def main_broker_config(args: argparse.Namespace) -> int:
    """Run ``broker-config``: 0 when written, 2 with a message on stderr when refused."""
    try:
        settings = settings_from_args(args)
        result = generate(settings, force=args.force, keep=args.keep)
    except (BrokerConfigError, OSError) as exc:
        print(f"bghub broker-config: {exc}", file=sys.stderr)
        return 2
    out = settings.out
    print(f"wrote {out / CONF_NAME}, {out / PASSWD_NAME}, {out / ACL_NAME}")
    print(f"wrote {out / HUB_FRAGMENT}, {out / MONITOR_FRAGMENT} (read-only, for diagnostics)")
    print(f"wrote {len(settings.tables)} table fragments in {out / TABLES_DIR}/")
    print(f"credentials: {len(result.new)} new, {len(result.kept)} kept, {len(result.removed)} removed")
    if result.removed:
        print(f"removed tables: {', '.join(result.removed)}")
    bridge = settings.bridge
    if bridge is not None:
        print(f"room {bridge.room}: bridged to {bridge.host}:{bridge.port} as {bridge.username}")
        if result.registered and bridge.central is not None:
            print(
                f"added the bridge to the central broker in {bridge.central} (reload it: "
                "kill -HUP its pid, or systemctl reload mosquitto; restart the hub to show the room)"
            )
        else:
            print(
                f"give the central broker the bridge: copy {out / bridge_config.BRIDGE_FRAGMENT} into "
                f"its directory's {bridge_config.BRIDGES_DIR}/ as {bridge.room}.toml and run "
                "broker-config --keep there (or run this again with --central DIR)"
            )
    print(f"start the broker with: mosquitto -c {out / CONF_NAME}")
    print(f"limit connections per address in front of it (as root): nft -f {out / FIREWALL_NAME}")
    return 0


def add_broker_config_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``broker-config`` on the ``bghub`` command line."""
    parser = subparsers.add_parser(
        "broker-config",
        help="write a locked-down Mosquitto configuration and per-table credentials",
        description=DESCRIPTION,
    )
    add_arguments(parser)
    parser.set_defaults(func=main_broker_config)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub.broker.mosquitto", description=DESCRIPTION)
    add_arguments(parser)
    return main_broker_config(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
