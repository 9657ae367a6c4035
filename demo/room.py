"""``bghub demo``: a whole tournament room on one machine, with nothing installed but Python.

``make demo`` runs this. It starts the real hub with its embedded broker (amqtt, in-process),
imports a made-up schedule (:mod:`demo.schedule`) and fills the room with simulated tables:
headless kiosks, each the rulebook's reducer behind the real MQTT table link, with its journal
and outbox in a temporary directory, played by scripted players (:mod:`demo.players`). The
TD's dashboard then shows what a real room shows: players checking in (one of them late, so the
hub applies a lateness point by itself), clocks running, cubes, breaks, games won, a time flag,
matches finishing and the next round being assigned. Beside the rounds, a small rolling
knockout (:mod:`demo.knockout`) on tables of its own: the hub calls its matches as tables free
up, the Draw page fills in, and each table shows its players where they go next.

Clocks and lateness run in real time; only the players are quick. Everything stops on Ctrl-C
(SIGINT or SIGTERM) or after ``--duration``, and nothing is left behind: the broker and every
thread stop, the temporary directory is removed (the database too, unless ``--db`` names one).
``--window`` makes one table the real kiosk application, in its own window and process
(:mod:`demo.kiosk_window`): you are its players.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from hub.cli import host_port

log = logging.getLogger("demo.room")

DEFAULT_EVENT = "demo"
DEFAULT_BROKER_PORT = 1883
#: seconds between the status lines the demo prints
STATUS_EVERY_S = 30.0
#: seconds between looks at the room (next round, status line)
HOUSEKEEPING_EVERY_S = 1.0


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now (as asyncio's servers do: SO_REUSEADDR)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on (the kernel's choice)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class DemoOptions:
    tables: int = 8
    http: tuple[str, int] = ("127.0.0.1", 8080)
    seed: int | None = None
    speed: float = 1.0
    db: str | None = None
    event: str = DEFAULT_EVENT
    broker_port: int = DEFAULT_BROKER_PORT
    #: the table that is a real kiosk in a window (None: all are simulated)
    window: str | None = None
    #: tables of the rolling knockout, after the round tables (0: no knockout)
    knockout: int = 4


class DemoRoom:
    """The hub, its broker and the simulated tables, started and stopped together (see module doc).

    ``start()`` then ``housekeeping()`` now and then (it imports the next round when half the
    current one is over, and prints a status line), then ``stop()``; ``stop()`` is safe after a
    failed or partial start and when called twice.
    """

    def __init__(self, options: DemoOptions, out: TextIO | None = None) -> None:
        self.options = options
        self.out = out or sys.stdout
        self.seed = options.seed if options.seed is not None else random.SystemRandom().randrange(10**6)
        self.tmp: Path | None = None
        self.hub_thread: Any = None
        self.tables: list[Any] = []
        self.sim_room: Any = None
        self.kiosk: Any = None
        self._kiosk_reported = False
        self.password = ""
        self.broker_port = 0
        self.url = ""
        self.round = 0
        self.rows: list[Any] = []
        self._stopped = False
        self._started_mono = 0.0
        self._started_cpu = 0.0
        self._next_look = 0.0
        self._next_status = 0.0
        self._last_messages = (0.0, 0)
        #: the knockout's calls already printed (scheduled match ids), and whether its end was
        self._calls_seen: set[str] = set()
        self._knockout_over = False

    # -- start --------------------------------------------------------------------------------

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.stop(quiet=True)
            raise

    def _start(self) -> None:
        from demo.players import (
            DemoPlayers,
            DemoSimRoom,
            DemoTable,
            demo_temperament,
            slow_table_temperament,
        )
        from demo.schedule import first_round, late_arrival, roles, to_csv
        from hub.app import RunConfig
        from hub.live.clock import SystemClock
        from hub.live.config import HubConfig
        from hub.service import HubThread
        from hub.tournament.schedule import parse_schedule
        from hub.web.auth import generate_password

        o = self.options
        self._started_mono = time.monotonic()
        self._started_cpu = time.process_time()
        self.tmp = Path(tempfile.mkdtemp(prefix="bghub-demo-"))
        db = o.db or str(self.tmp / "hub.sqlite3")
        self.broker_port = o.broker_port if port_free("127.0.0.1", o.broker_port) else free_port()
        http_host, http_port = o.http
        if http_port and not port_free(http_host, http_port):
            print(f"demo: {http_host}:{http_port} is taken; the dashboard takes a free port", file=self.out)
            http_port = 0
        self.password = generate_password()
        draw = None
        if o.knockout:
            from demo.knockout import draw_toml

            draw = self.tmp / "knockout.toml"
            draw.write_text(draw_toml(o.tables, o.knockout, o.speed), encoding="utf-8")
        rc = RunConfig(
            hub=HubConfig(event=o.event, broker_host="127.0.0.1", broker_port=self.broker_port),
            db=db,
            http_host=http_host,
            http_port=http_port,
            public=True,
            embedded_broker=True,
            out=self.out,
            draw=str(draw) if draw is not None else None,
        )
        self.hub_thread = HubThread(rc, password=self.password)
        self.hub_thread.start()
        self.url = self.hub_thread.url

        clock = SystemClock()
        self.rows = first_round(clock.now_wall(), o.tables, o.speed, window=o.window)
        self.round = 1
        simulated = [row for row in self.rows if row.table != o.window]
        r = roles(o.tables)
        for row in simulated:
            table = DemoTable(
                o.event, row.table, "127.0.0.1", self.broker_port, directory=self.tmp / f"table-{row.table}"
            )
            if row.table == r.late:
                # the late table's round began minutes ago: it had its match since before then (the
                # hub counts lateness from when a table took its match, never earlier)
                match = next(m for m in parse_schedule(to_csv(self.rows)) if m.table == row.table)
                table.assigned_earlier(match.assign_payload(), clock.now_wall() - row.start_wall + 60_000)
            self.tables.append(table)
            table.start(wait=10)
        self.hub_thread.call(self.hub_thread.hub.round_control.import_schedule, to_csv(self.rows), "demo")
        if o.window is not None:
            self._start_kiosk(o.window)

        rng = random.Random(self.seed)
        players = []
        for table, row in zip(self.tables, simulated, strict=True):
            players.append(
                DemoPlayers(
                    table,
                    random.Random(rng.random()),
                    slow_table_temperament() if row.table == r.flag else demo_temperament(),
                    speed=o.speed,
                    late="B" if row.table == r.late else None,
                    late_arrival_wall=late_arrival(row, o.speed) if row.table == r.late else None,
                    slow="A" if row.table == r.flag else None,
                )
            )
        for t in self._knockout_tables():
            table = DemoTable(o.event, t, "127.0.0.1", self.broker_port, directory=self.tmp / f"table-{t}")
            self.tables.append(table)
            table.start(wait=10)
            players.append(DemoPlayers(table, random.Random(rng.random()), demo_temperament(), speed=o.speed))
        self.sim_room = DemoSimRoom(players, clock=clock).start()
        now = time.monotonic()
        self._next_look = now + HOUSEKEEPING_EVERY_S
        self._next_status = now + STATUS_EVERY_S
        self._last_messages = (now, 0)

    def _knockout_tables(self) -> list[str]:
        from demo.knockout import tables

        return tables(self.options.tables, self.options.knockout) if self.options.knockout else []

    def _start_kiosk(self, table: str) -> None:
        from demo.kiosk_window import KioskProcess

        assert self.tmp is not None
        self.kiosk = KioskProcess(table, self.options.event, self.broker_port, self.tmp / f"table-{table}")
        self.kiosk.start()

        def online() -> bool:
            view = self.hub_thread.call(lambda: self.hub_thread.hub.views.get(table))
            return bool(view is not None and view.online and view.state and view.state.get("match_id"))

        self.kiosk.wait_online(online)

    def banner(self) -> str:
        """What the demo prints once it runs: where to look, the password, what will happen."""
        from demo.schedule import roles
        from rulebook.profiles import get_profile

        o = self.options
        r = roles(o.tables)
        # the window's table is yours: it plays no scripted part
        late_table = r.late if r.late != o.window else None
        flag_table = r.flag if r.flag != o.window else None
        starts = sorted({row.start_wall for row in self.rows if row.table != r.late})
        kind = (
            f"{o.tables} simulated tables"
            if self.kiosk is None
            else f"{o.tables - 1} simulated tables + 1 kiosk"
        )
        lines = [
            f"Smart table demo room: {kind}, event {o.event!r} (seed {self.seed})",
            f"  Dashboard:   {self.url}/   TD password: {self.password}",
            f"  Room board:  {self.url}/board",
            f"  MQTT broker: embedded, 127.0.0.1:{self.broker_port}",
            f"  Files:       {self.tmp}  (table-N/journal.jsonl: `bgtable replay` reads them)",
        ]
        if starts:
            lines.append(f"  Round 1 starts at {_hhmm(starts[0])}–{_hhmm(starts[-1])}.")
        late = next((row for row in self.rows if row.table == late_table), None)
        if late is not None:
            lines.append(
                f"  Table {late.table} began at {_hhmm(late.start_wall)} and {late.player_b} is not"
                " there yet: watch the hub give the lateness point."
            )
        if flag_table is not None:
            flag = next(row for row in self.rows if row.table == flag_table)
            reserve = get_profile(flag.profile).reserve_ms(flag.length) / 60_000
            due = (flag.start_wall - time.time() * 1000) / 60_000 + reserve * 1.25
            lines.append(
                f"  At table {flag.table}, {flag.player_a} thinks far too long: their {reserve:g} minutes"
                f" should run out in about {max(1, round(due))} minutes (a time flag: the TD decides)."
            )
        knockout = self._knockout_tables()
        if knockout:
            lines.append(
                f"  Knockout:    8 players, a main flight and a consolation on tables"
                f" {knockout[0]}–{knockout[-1]}: the hub calls each match as a table frees up"
                f" (Draw page: {self.url}/#/draw)."
            )
        if self.kiosk is not None:
            lines.append(
                f"  Table {o.window} is the real kiosk, in its own window (process {self.kiosk.pid}, log"
                f" {self.kiosk.log_path}): you are its players. Check them in, roll and press the clocks"
                " with the mouse or the keys of docs/screens.md."
            )
        lines.append("Press Ctrl-C to stop.")
        return "\n".join(lines)

    # -- while it runs ------------------------------------------------------------------------

    def housekeeping(self) -> None:
        """Import the next round when half the current one is over; print a status line now and then."""
        now = time.monotonic()
        if self.hub_thread is None or now < self._next_look:
            return
        self._next_look = now + HOUSEKEEPING_EVERY_S
        if self.kiosk is not None and not self._kiosk_reported and (code := self.kiosk.poll()) is not None:
            self._kiosk_reported = True
            print(
                f"[{datetime.now():%H:%M:%S}] the kiosk of table {self.options.window} has ended (exit status"
                f" {code}): the room goes on, and the hub will report the table offline",
                file=self.out,
                flush=True,
            )
        try:
            facts = self.hub_thread.call(self._facts, timeout=10)
        except Exception:
            log.exception("could not look at the room")
            return
        if facts["round_done"] * 2 >= self.options.tables:
            self._import_next_round()
        self._print_draw(facts["draw"])
        if now >= self._next_status:
            self._next_status = now + STATUS_EVERY_S
            print(self._status_line(facts, now), file=self.out, flush=True)

    def _facts(self) -> dict[str, Any]:
        """Runs on the hub's loop: what the status line and the round logic need."""
        hub = self.hub_thread.hub
        room = hub.room()
        tiles = room["tables"]
        prefix = f"r{self.round}-"
        return {
            "draw": _draw_facts(hub.draw),
            "online": sum(1 for t in tiles if t["online"]),
            "statuses": Counter(t["status_label"] for t in tiles),
            "round_done": sum(1 for mid in hub.results if mid.startswith(prefix)),
            "results": len(hub.results),
            "messages": hub.stats["messages"],
            "alerts": len(room["alerts"]),
        }

    def _print_draw(self, draw: dict[str, Any]) -> None:
        """Each call of the knockout as it is made, and the flights' winners at its end."""
        for match_id, table, (a, b) in sorted(draw["calls"], key=lambda c: c[0]):
            if match_id in self._calls_seen:
                continue
            self._calls_seen.add(match_id)
            print(
                f"[{datetime.now():%H:%M:%S}] knockout: {match_id} called to table {table}: {a} v {b}",
                file=self.out,
                flush=True,
            )
        if draw["flights"] and len(draw["winners"]) == draw["flights"] and not self._knockout_over:
            self._knockout_over = True
            won = "; ".join(f"{flight} won by {name}" for flight, name in draw["winners"].items())
            print(f"[{datetime.now():%H:%M:%S}] knockout over: {won}", file=self.out, flush=True)

    def _status_line(self, facts: dict[str, Any], now: float) -> str:
        then, before = self._last_messages
        rate = (facts["messages"] - before) / max(now - then, 1e-6)
        self._last_messages = (now, facts["messages"])
        statuses = ", ".join(f"{n} {label.lower()}" for label, n in facts["statuses"].most_common())
        return (
            f"[{datetime.now():%H:%M:%S}] round {self.round}: {facts['online']}/{self._all_tables} online"
            f" · {statuses} · {facts['results']} matches finished · {facts['alerts']} alerts"
            f" · {rate:.1f} msg/s"
        )

    @property
    def _all_tables(self) -> int:
        return self.options.tables + self.options.knockout

    def _import_next_round(self) -> None:
        from demo.schedule import next_round, to_csv

        rows = next_round(self.round + 1, int(time.time() * 1000), self.options.tables, self.options.speed)
        self.hub_thread.call(self.hub_thread.hub.round_control.import_schedule, to_csv(rows), "demo")
        self.round += 1
        print(
            f"[{datetime.now():%H:%M:%S}] round {self.round} imported: it starts at "
            f"{_hhmm(rows[0].start_wall)}; each table moves on when its match is over",
            file=self.out,
            flush=True,
        )

    # -- stop ---------------------------------------------------------------------------------

    def stop(self, *, quiet: bool = False) -> None:
        """Stop the players, the tables, the hub and its broker; remove the temporary directory."""
        if self._stopped:
            return
        self._stopped = True
        messages = 0
        if self.kiosk is not None:
            try:
                self.kiosk.stop()
            except Exception:
                log.exception("the kiosk did not stop cleanly")
        if self.sim_room is not None:
            self.sim_room.stop()
        for table in self.tables:
            try:
                table.stop()
            except Exception:
                log.exception("table %s did not stop cleanly", table.table)
        if self.hub_thread is not None:
            with contextlib.suppress(Exception):
                messages = self.hub_thread.hub.stats["messages"]
            try:
                self.hub_thread.stop()
            except Exception:
                log.exception("the hub did not stop cleanly")
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        if not quiet and self._started_mono:
            wall = max(time.monotonic() - self._started_mono, 1e-6)
            cpu = time.process_time() - self._started_cpu
            kept = f"; database kept in {self.options.db}" if self.options.db else ""
            print(
                f"demo: stopped after {_duration(wall)}: {messages} MQTT messages reached the hub "
                f"({messages / wall:.1f}/s), CPU {100 * cpu / wall:.0f}% of one core; "
                f"removed {self.tmp}{kept}",
                file=self.out,
                flush=True,
            )


def _draw_facts(draw: Any) -> dict[str, Any]:
    """The knockout's calls (scheduled match id, table, the players' names) and each flight's
    winner once its final is decided (runs on the hub's loop)."""
    setup, bracket = draw.setup, draw.bracket
    if setup is None or bracket is None:
        return {"calls": [], "winners": {}, "flights": 0}
    winners = {}
    for flight in setup.event.flights:
        final = bracket.flight_matches(flight.name)[-1]  # the event's order: the final comes last
        if isinstance(final.winner, str):
            winners[flight.name] = setup.player(final.winner).name
    calls = [
        (c.match_id, c.call.table, tuple(setup.player(p).name for p in c.players))
        for c in draw.called.values()
    ]
    return {"calls": calls, "winners": winners, "flights": len(setup.event.flights)}


def _hhmm(wall: int) -> str:
    return datetime.fromtimestamp(wall / 1000).strftime("%H:%M:%S")


def _duration(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}m{s:02d}s" if m else f"{seconds:.1f}s"


# -- the command ----------------------------------------------------------------------------------


def _positive(kind: type, lo: float, hi: float) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not (lo <= value <= hi) or (isinstance(value, float) and math.isnan(value)):
            raise argparse.ArgumentTypeError(f"expected a number from {lo:g} to {hi:g}, got {text!r}")
        return value

    return parse


def add_demo_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bghub demo`` on the ``bghub`` parser."""
    from demo.schedule import MAX_TABLES

    p = sub.add_parser(
        "demo",
        help="a simulated tournament room: hub, embedded broker and tables, on this machine",
        description=(
            "Run the hub with its embedded broker and a room of simulated tables whose players check "
            "in, roll, press their clocks, double, win games and take breaks. Prints the dashboard's "
            "address and the TD password; Ctrl-C stops everything and removes what it made."
        ),
    )
    p.add_argument(
        "--tables",
        type=_positive(int, 1, MAX_TABLES),
        default=8,
        help=f"number of tables (default 8, at most {MAX_TABLES})",
    )
    p.add_argument(
        "--http",
        type=host_port,
        default=("127.0.0.1", 8080),
        metavar="HOST:PORT",
        help="where the dashboard listens (default 127.0.0.1:8080; a free port if that one is taken)",
    )
    p.add_argument("--seed", type=int, help="seed of the players' choices (default: a new one each run)")
    p.add_argument(
        "--speed",
        type=_positive(float, 0.1, 50),
        default=1.0,
        help="how fast the players act, 1 = a game every minute or so (clocks always run in real time)",
    )
    p.add_argument(
        "--duration", type=_positive(float, 0, 7 * 24 * 3600), metavar="SECONDS", help="stop after this long"
    )
    p.add_argument(
        "--window",
        nargs="?",
        const="1",
        metavar="TABLE",
        help="make this table (default 1) the real kiosk, in a window: you are its players",
    )
    p.add_argument(
        "--db", metavar="FILE", help="keep the hub's database in FILE (a new file; default: temporary)"
    )
    p.add_argument(
        "--broker-port",
        type=_positive(int, 1, 65535),
        default=DEFAULT_BROKER_PORT,
        help=f"port of the embedded broker (default {DEFAULT_BROKER_PORT}; a free one if that is taken)",
    )
    p.add_argument(
        "--knockout-tables",
        type=_positive(int, 0, 4),
        default=4,
        metavar="N",
        help="tables of the rolling knockout after the round tables (default 4; 0: no knockout)",
    )
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    p.set_defaults(func=main_demo)


def main_demo(args: argparse.Namespace) -> int:
    """Run the demo room until Ctrl-C, SIGTERM or ``--duration``."""
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.db and Path(args.db).exists() and Path(args.db).stat().st_size > 0:
        print(f"bghub demo: {args.db} exists; give a new file (a demo room starts empty)", file=sys.stderr)
        return 2
    if args.window is not None and (not args.window.isdigit() or not 1 <= int(args.window) <= args.tables):
        print(f"bghub demo: --window: no table {args.window!r} (tables 1 to {args.tables})", file=sys.stderr)
        return 2
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    room = DemoRoom(
        DemoOptions(
            tables=args.tables,
            http=args.http,
            seed=args.seed,
            speed=args.speed,
            db=args.db,
            broker_port=args.broker_port,
            window=args.window,
            knockout=args.knockout_tables,
        )
    )
    try:
        try:
            room.start()
        except Exception as exc:  # a port, a file, the broker: say what, leave nothing behind
            log.debug("start failed", exc_info=True)
            print(f"bghub demo: could not start: {exc}", file=sys.stderr)
            return 2
        print(room.banner(), flush=True)
        deadline = None if args.duration is None else time.monotonic() + args.duration
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            stop.wait(0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic())))
            room.housekeeping()
        return 0
    finally:
        room.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
