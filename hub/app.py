"""The running hub: broker (embedded or not), store, hub core and web server, started in order.

``HubApp`` is what ``bghub run`` starts and what the tests, the benchmark and the demo start too
(through :class:`hub.service.HubThread`), so all of them exercise the same assembly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from aiohttp import web

from hub.broker.embedded import EmbeddedBroker
from hub.fleet.setup import FleetOptions, FleetService
from hub.live.clock import Clock
from hub.live.config import HubConfig
from hub.live.core import Hub
from hub.live.draw_setup import read_draw_file
from hub.storage.dbfile import check_database, default_backup_dir, make_backup
from hub.storage.store import Store, StoreWriteFailed
from hub.web.auth import Auth, generate_password, hash_password, read_password_file
from hub.web.hosts import HostPolicy
from hub.web.server import make_app
from hub.web.table_pages import TablePages

log = logging.getLogger("hub")


@dataclass
class RunConfig:
    hub: HubConfig
    db: str
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    schedule: str | None = None
    #: the draw file (docs/draw.md, "The draw file") run from start
    draw: str | None = None
    password_file: str | None = None
    public: bool = False
    #: run an amqtt broker in-process on hub.broker_port (the hub connects to it at broker_host)
    embedded_broker: bool = False
    #: the address the embedded broker listens on (None: hub.broker_host)
    embedded_host: str | None = None
    #: where to print a generated password (once)
    out: TextIO = field(default_factory=lambda: sys.stdout)
    #: enrollment, the Tables page, updates, mDNS (hub.fleet.setup)
    fleet: FleetOptions = field(default_factory=FleetOptions)
    #: start a new database where ``db`` exists but is not a hub database (moved aside first)
    new_db: bool = False
    #: where the running hub keeps copies of its database (None: next to it, ``DB.backups``)
    backup_dir: str | None = None
    #: seconds between copies (None: none)
    backup_every_s: float | None = 600.0
    backup_keep: int = 6
    #: names the dashboard answers to besides its addresses and the machine's names (hub.web.hosts)
    allowed_hosts: tuple[str, ...] = ()


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::", "*")


class HubApp:
    """Start and stop the whole hub on the running asyncio loop."""

    def __init__(self, rc: RunConfig, *, clock: Clock | None = None, password: str | None = None) -> None:
        self.rc = rc
        self.clock = clock
        self._password = password
        self.broker: EmbeddedBroker | None = None
        self.store: Store | None = None
        self.hub: Hub | None = None
        self.runner: web.AppRunner | None = None
        self.url = ""
        self._backup_task: asyncio.Task[None] | None = None
        #: the last copy of the database: (path, wall ms)
        self.last_backup: tuple[str, int] | None = None
        self.fleet = FleetService(rc.fleet, embedded=rc.embedded_broker, db=rc.db)

    def _password_hash(self) -> str:
        if self._password is not None:
            return hash_password(self._password)
        if self.rc.password_file:
            return hash_password(read_password_file(self.rc.password_file))
        password = generate_password()
        print(f"bghub: TD password for this run: {password}", file=self.rc.out, flush=True)
        return hash_password(password)

    @property
    def backup_dir(self) -> Path:
        return Path(self.rc.backup_dir) if self.rc.backup_dir else default_backup_dir(self.rc.db)

    async def start(self) -> None:
        rc = self.rc
        # before anything else: a damaged or foreign database file stops the start with one line
        check_database(rc.db, new_db=rc.new_db, backup_dir=self.backup_dir)
        password_hash = self._password_hash()
        hub_config = self.fleet.hub_config(rc.hub)
        if rc.embedded_broker:
            self.broker = EmbeddedBroker(
                rc.embedded_host or rc.hub.broker_host, rc.hub.broker_port, credentials=self.fleet.credentials
            )
            await self.broker.start()
        self.store = Store(rc.db)
        try:  # a record of which password this run had; never a reason not to start (full disk)
            self.store.set_meta("td_password", password_hash)
            self.store.commit()
        except StoreWriteFailed:
            log.warning("the database cannot be written at start; the hub starts and alerts")
        self.hub = Hub(hub_config, self.store, self.clock)
        # the draw's matches carry their players' page addresses to the tables (only on the
        # public address the organiser gave: never one the room's phones may not reach)
        self.hub.automation.pages = TablePages(self.hub.draw, self.store, rc.fleet.public_url).pages
        self.fleet.attach(self.hub)
        if rc.schedule:
            summary = self.hub.round_control.import_schedule(Path(rc.schedule).read_bytes(), "cli")
            log.info("schedule %s: %s", rc.schedule, summary)
        if rc.draw:
            summary = self.hub.draw.define(read_draw_file(Path(rc.draw), self.hub.room_state.profiles), "cli")
            log.info("draw %s: %s", rc.draw, summary)
        await self.hub.start()
        hosts = HostPolicy([*rc.allowed_hosts, *([] if _is_wildcard(rc.http_host) else [rc.http_host])])
        auth = Auth(password_hash, lookup=self.store.account)
        app = make_app(self.hub, auth, public=rc.public, hosts=hosts, public_url=rc.fleet.public_url)
        await self.fleet.start_web(app, rc.http_host, rc.http_port)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, rc.http_host, rc.http_port)
        await site.start()
        host, port = self.runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        log.info("dashboard on %s (event %s)", self.url, rc.hub.event)
        await self.fleet.announce(rc.hub.event, host, port)
        if rc.backup_every_s and rc.db != ":memory:":
            self._backup_task = asyncio.create_task(self._backups(rc.backup_every_s))

    async def _backups(self, every_s: float) -> None:
        """A copy of the database every ``every_s`` (SQLite's online backup, in a worker thread)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every_s)
            try:
                path = await loop.run_in_executor(
                    None, lambda: make_backup(self.rc.db, self.backup_dir, keep=self.rc.backup_keep)
                )
            except (OSError, sqlite3.Error) as exc:
                log.warning("database backup to %s failed: %s", self.backup_dir, exc)
                continue
            wall = self.hub.clock.now_wall() if self.hub is not None else 0
            self.last_backup = (str(path), wall)
            if self.hub is not None:
                self.hub.storage.last_backup = {"path": str(path), "wall": wall}

    async def stop(self) -> None:
        if self._backup_task is not None:
            self._backup_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._backup_task
            self._backup_task = None
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        await self.fleet.stop()
        if self.hub is not None:
            await self.hub.stop()
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.broker is not None:
            await self.broker.stop()
            self.broker = None
