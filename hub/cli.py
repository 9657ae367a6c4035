"""``bghub``: the TD hub's command line.

``bghub run --event EVT ...`` (or just ``bghub --event EVT ...``) runs the hub. Other commands
register themselves on the same parser (``broker-config`` writes a Mosquitto configuration;
``demo``, from the separate ``demo`` package, plugs in through the ``bghub.commands`` entry points).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import tomllib
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any

from drivers.mqtt_topics import is_valid_id
from rulebook.custom_profiles import ProfileBook
from rulebook.errors import ProfileError
from rulebook.profiles import DEFAULT_PROFILE, PROFILES

DEFAULT_EMBEDDED_PORT = 1883


def host_port(text: str, default_port: int | None = None) -> tuple[str, int]:
    """``HOST:PORT`` (or ``HOST`` when a default port exists) for argparse."""
    host, sep, port = text.rpartition(":")
    if not sep:
        if default_port is None:
            raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
        return text, default_port
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be a number in {text!r}") from None
    if not 0 <= number <= 65535 or not host:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), number


def _event_id(text: str) -> str:
    if not is_valid_id(text):
        raise argparse.ArgumentTypeError(f"invalid event id {text!r} (letters, digits, _ . - only)")
    return text


def _profiles(directory: str | None, default: str) -> ProfileBook:
    """The built-in profiles and those of ``--profiles DIR``; ``--profile`` must name one of them."""
    from hub.tournament.profile_files import load_profiles

    book = load_profiles(directory) if directory else ProfileBook()
    book.get(default)
    return book


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--event", required=True, type=_event_id, help="tournament id (the MQTT topic prefix)")
    p.add_argument(
        "--broker",
        type=lambda t: host_port(t, 1883),
        help="MQTT broker HOST:PORT; without it an embedded broker runs in the hub",
    )
    p.add_argument(
        "--embedded-port",
        type=int,
        default=DEFAULT_EMBEDDED_PORT,
        help=f"port of the embedded broker (default {DEFAULT_EMBEDDED_PORT})",
    )
    p.add_argument(
        "--embedded-host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address the embedded broker listens on (default 127.0.0.1; 0.0.0.0 lets the room's tables in)",
    )
    p.add_argument(
        "--broker-credentials",
        metavar="FILE",
        help="TOML file with [broker] username and password (the hub.toml that broker-config writes)",
    )
    p.add_argument("--schedule", metavar="FILE.csv", help="import this schedule at start (PROTOCOL §4)")
    p.add_argument(
        "--draw",
        metavar="FILE.toml",
        help="run this draw: knockout flights with rolling calls (docs/draw.md)",
    )
    p.add_argument(
        "--db", required=True, metavar="FILE", help="the hub's SQLite database (created if missing)"
    )
    p.add_argument(
        "--new-db",
        action="store_true",
        help="start a new database where --db exists but is not a hub database (empty, or another "
        "file): the file is moved aside to FILE.old-<time> first; a sound hub database is opened as it is",
    )
    p.add_argument(
        "--backup-dir",
        metavar="DIR",
        help="where the running hub keeps copies of its database (default: next to it, FILE.backups)",
    )
    p.add_argument(
        "--backup-every",
        type=float,
        default=10.0,
        metavar="MIN",
        help="minutes between copies of the database (default 10; 0: none); the newest 6 are kept",
    )
    p.add_argument(
        "--table-rate",
        type=float,
        default=20.0,
        metavar="N",
        help="messages a second one table may send on average (default 20); the excess is dropped, alerted",
    )
    p.add_argument(
        "--table-burst",
        type=int,
        default=1000,
        metavar="N",
        help="messages one table may send at once, e.g. its outbox after an outage (default 1000)",
    )
    p.add_argument(
        "--min-free-mb",
        type=int,
        default=200,
        metavar="MB",
        help="alert the TD when the database's disk has less free space than this (default 200)",
    )
    p.add_argument(
        "--http",
        type=host_port,
        default=("127.0.0.1", 8080),
        metavar="HOST:PORT",
        help="where the dashboard listens (default 127.0.0.1:8080)",
    )
    p.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help=f"rules profile for rows that name none ({', '.join(sorted(PROFILES))}, or a custom one)",
    )
    p.add_argument(
        "--profiles",
        metavar="DIR",
        help="custom rules profiles: one TOML file each (base = ... plus overrides; docs/rules.md)",
    )
    p.add_argument(
        "--password-file",
        metavar="FILE",
        help="file whose first line is the TD's password; without it one is generated and printed",
    )
    p.add_argument("--public", action="store_true", help="read-only views without logging in")
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        type=_allowed_host,
        metavar="NAME",
        help="a DNS name the dashboard also answers to (repeatable); its addresses, localhost and "
        "this machine's names are always allowed, any other Host is refused (DNS rebinding)",
    )
    p.add_argument(
        "--offline-grace",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds before an offline table alerts",
    )
    p.add_argument(
        "--assign-grace",
        type=_minutes,
        default=0.0,
        metavar="MIN",
        help="minutes added when lateness counts from a late assignment (default 0)",
    )
    p.add_argument(
        "--next-match-grace",
        type=_minutes,
        default=0.0,
        metavar="MIN",
        help="minutes added when lateness counts from the end of a player's previous match (default 0)",
    )
    p.add_argument(
        "--opening-grace",
        type=_minutes,
        default=5.0,
        metavar="MIN",
        help="minutes after the second check-in before 'both players are there but the match has not "
        "started' alerts (default 5)",
    )
    p.add_argument(
        "--late-alert-lead",
        type=_minutes,
        default=1.0,
        metavar="MIN",
        help="a late player's own alert appears this long before the first point (default 1)",
    )
    p.add_argument(
        "--clock-skew-alert",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a table's clock may be off before the TD is told (default 30)",
    )
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    add_fleet_arguments(p)


def add_fleet_arguments(p: argparse.ArgumentParser) -> None:
    """Enrollment, the Tables page, updates and mDNS (docs/hub.md, docs/install-pi.md)."""
    g = p.add_argument_group("fleet (tables that enroll themselves)")
    g.add_argument(
        "--enrolled-only",
        action="store_true",
        help="embedded broker: only the hub and enrolled tables may connect",
    )
    g.add_argument(
        "--public-url",
        type=_public_url,
        metavar="URL",
        help="the hub's address given to enrolled tables, printed on the draw sheet and shown at the "
        "tables with each player's page (no page at the tables without it), "
        "http://HOST:PORT (default: the dashboard's address, or the first address announced by mDNS)",
    )
    g.add_argument(
        "--public-broker",
        "--table-broker",
        dest="table_broker",
        type=lambda t: host_port(t, 1883),
        metavar="HOST:PORT",
        help="broker address given to enrolled tables (default: [tables] broker in "
        "--broker-credentials, else the host of --public-url and the broker's port)",
    )
    g.add_argument(
        "--hub-key",
        metavar="FILE",
        help="the hub's signing key, made on first use (default: hub-signing.key beside --db)",
    )
    g.add_argument(
        "--table-template",
        metavar="FILE",
        help="TOML with the keys every table shares (default: table-template.toml beside "
        "--broker-credentials, when broker-config wrote one)",
    )
    g.add_argument(
        "--table-tls-ca",
        metavar="FILE",
        help="tables reach the broker over TLS, checked with this CA (PEM) (default: [tables] "
        "tls_ca in --broker-credentials, written by broker-config --tls)",
    )
    g.add_argument(
        "--software",
        metavar="FILE.whl",
        help="wheel that tables update to, signed by `bghub sign-release` (FILE.whl.sig beside it) "
        "(default: the running build)",
    )
    g.add_argument(
        "--release-key",
        metavar="FILE",
        help="sign the wheel of the running build with this release key at start (a lab, a demo)",
    )
    g.add_argument("--no-announce", action="store_true", help="do not announce the hub with mDNS")


def _public_url(text: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(text.strip())
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected http://HOST:PORT, got {text!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise argparse.ArgumentTypeError(f"expected http://HOST:PORT, got {text!r}")
    return text.strip().rstrip("/")


def _tables_defaults(path: str | None) -> dict[str, Any]:
    """The ``[tables]`` section broker-config writes into the hub's credentials: the broker
    address and CA that enrolled tables are given."""
    if not path:
        return {}
    with open(path, "rb") as fh:
        tables = tomllib.load(fh).get("tables", {})
    return tables if isinstance(tables, dict) else {}


def _allowed_host(text: str) -> str:
    from hub.web.hosts import check_allowed_host

    try:
        return check_allowed_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _minutes(text: str) -> float:
    """A number of minutes from 0 to a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected minutes, got {text!r}") from None
    if not 0 <= value <= 24 * 60:
        raise argparse.ArgumentTypeError(f"expected 0 to 1440 minutes, got {text}")
    return value


def _credentials(path: str | None) -> tuple[str | None, str | None]:
    if not path:
        return None, None
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    broker = data.get("broker", data)
    username, password = broker.get("username"), broker.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise ValueError(f"{path}: expected [broker] username and password")
    return username, password


def main_run(args: argparse.Namespace) -> int:
    from hub.app import HubApp, RunConfig
    from hub.fleet.setup import FleetOptions, default_template
    from hub.live.config import HubConfig
    from hub.storage.dbfile import DatabaseFileError
    from hub.tournament.schedule import ScheduleError

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        username, password = _credentials(args.broker_credentials)
        tables = _tables_defaults(args.broker_credentials)
        table_broker = args.table_broker or (
            host_port(tables["broker"], 1883) if isinstance(tables.get("broker"), str) else None
        )
    except (OSError, ValueError, argparse.ArgumentTypeError, tomllib.TOMLDecodeError) as exc:
        print(f"bghub: broker credentials: {exc}", file=sys.stderr)
        return 2
    tls_ca = args.table_tls_ca or (tables["tls_ca"] if isinstance(tables.get("tls_ca"), str) else None)
    try:
        profiles = _profiles(args.profiles, args.profile)
    except ProfileError as exc:
        print(f"bghub: profiles: {exc}", file=sys.stderr)
        return 2
    embedded = args.broker is None
    host, port = ("127.0.0.1", args.embedded_port) if embedded else args.broker
    from hub.live.bridged_rooms import RoomsError, load_rooms

    try:
        rooms = load_rooms(args.broker_credentials)
    except RoomsError as exc:
        print(f"bghub: rooms: {exc}", file=sys.stderr)
        return 2
    config = HubConfig(
        event=args.event,
        broker_host=host,
        broker_port=port,
        username=username,
        password=password,
        profile=args.profile,
        profiles=profiles,
        offline_grace_ms=int(args.offline_grace * 1000),
        assign_grace_ms=int(args.assign_grace * 60_000),
        next_match_grace_ms=int(args.next_match_grace * 60_000),
        opening_grace_ms=int(args.opening_grace * 60_000),
        late_alert_lead_ms=int(args.late_alert_lead * 60_000),
        clock_skew_alert_ms=int(args.clock_skew_alert * 1000),
        min_free_mb=args.min_free_mb,
        table_rate=args.table_rate,
        table_burst=args.table_burst,
        rooms=tuple(rooms.items()),
    )
    rc = RunConfig(
        hub=config,
        db=args.db,
        http_host=args.http[0],
        http_port=args.http[1],
        schedule=args.schedule,
        draw=args.draw,
        password_file=args.password_file,
        public=args.public,
        embedded_broker=embedded,
        embedded_host=args.embedded_host,
        fleet=FleetOptions(
            enrolled_only=args.enrolled_only,
            table_broker=table_broker,
            public_url=args.public_url,
            hub_key=args.hub_key,
            table_template=args.table_template or default_template(args.broker_credentials),
            table_tls_ca=tls_ca,
            software=args.software,
            release_key=args.release_key,
            announce=not args.no_announce,
        ),
        new_db=args.new_db,
        backup_dir=args.backup_dir,
        backup_every_s=args.backup_every * 60 if args.backup_every > 0 else None,
        allowed_hosts=tuple(args.allowed_host),
    )

    async def run() -> int:
        app = HubApp(rc)
        try:
            await app.start()
        except ScheduleError as exc:
            print(f"bghub: schedule {args.schedule} refused, nothing imported:", file=sys.stderr)
            for issue in exc.issues:
                print(f"  {issue}", file=sys.stderr)
            await app.stop()
            return 2
        except (OSError, ValueError, DatabaseFileError) as exc:
            print(f"bghub: {exc}", file=sys.stderr)
            await app.stop()
            return 2
        where = f"embedded broker on {args.embedded_host}:{port}" if embedded else f"broker {host}:{port}"
        key = app.fleet.key.fingerprint if app.fleet.key else "none"
        print(f"bghub: event {args.event}, {where}, hub key {key}, dashboard {app.url}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await app.stop()
        return 0

    return asyncio.run(run())


#: Other commands register here: each takes the subparsers object and adds its parser
#: (with ``set_defaults(func=...)`` returning an exit status).
REGISTRARS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = []

#: Installed packages add commands through this entry-point group (``bghub demo`` comes from the
#: ``demo`` package this way: the hub never imports the demo, the demo plugs into the hub).
COMMANDS_GROUP = "bghub.commands"


def _register_optional(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    with contextlib.suppress(ImportError):
        from hub.broker.mosquitto import add_broker_config_command

        add_broker_config_command(sub)
    from hub.fleet.release import add_release_commands
    from hub.web.accounts_cli import add_user_command

    add_user_command(sub)
    add_release_commands(sub)
    for entry in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.name):
        entry.load()(sub)
    for register in REGISTRARS:
        register(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bghub", description="Smart table: the TD hub")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser(
        "run", help="run the hub (the default: `bghub --event ...` is `bghub run --event ...`)"
    )
    add_run_arguments(run)
    run.set_defaults(func=main_run)
    _register_optional(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0].startswith("-") and args_list[0] not in ("-h", "--help"):
        args_list = ["run", *args_list]
    args = build_parser().parse_args(args_list)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
