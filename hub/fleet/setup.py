"""Assembly of the fleet into a running hub: credentials, provisioner, the job, routes, mDNS.

:class:`hub.app.HubApp` calls this in order — :meth:`FleetService.hub_config` before the broker
and the hub exist (the embedded broker needs the hub's credential), :meth:`attach` once the hub
exists and before it starts (the link's hooks), :meth:`start_web` once the dashboard's
application exists, :meth:`stop` at the end — so the fleet stays out of the hub's core.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from hub.broker.dynsec import DynsecProvisioner
from hub.broker.files import TEMPLATE_NAME
from hub.broker.mosquitto import load_table_template
from hub.broker.provision import Provisioner
from hub.fleet.device_change import DeviceChanges
from hub.fleet.devices import Fleet, FleetSettings
from hub.fleet.discovery import Announcer
from hub.fleet.hub_key import HubKey, default_path
from hub.fleet.routes import add_fleet_routes
from hub.fleet.software import Software
from hub.live.config import HubConfig
from hub.live.core import Hub

log = logging.getLogger("hub.fleet")
#: seconds between the fleet's upkeep (forgetting silent pending devices, saving polls' times)
UPKEEP_S = 5.0


@dataclass(frozen=True)
class FleetOptions:
    """``bghub run``'s fleet options (docs/hub.md)."""

    #: embedded broker: only the hub and enrolled tables may connect
    enrolled_only: bool = False
    #: the broker address tables are given (default: the host of ``public_url``, the broker's port)
    table_broker: tuple[str, int] | None = None
    #: the hub's address tables are given (default: the dashboard's address, or the first one
    #: announced when it listens on every interface)
    public_url: str | None = None
    #: the hub's signing key (default: ``hub-signing.key`` beside the database)
    hub_key: str | None = None
    #: the keys every table shares (a broker-config ``table-template.toml``)
    table_template: str | None = None
    #: TLS to the broker: the CA certificate handed to tables
    table_tls_ca: str | None = None
    #: a wheel to serve instead of one of the running build
    software: str | None = None
    #: signs the running build's wheel at start (``--software`` wheels come with their .sig)
    release_key: str | None = None
    #: announce the hub with mDNS (when the dashboard is reachable beyond loopback)
    announce: bool = True


def default_template(credentials_file: str | None) -> str | None:
    """``table-template.toml`` beside the broker credentials (broker-config keeps it there)."""
    if not credentials_file:
        return None
    path = Path(credentials_file).parent / TEMPLATE_NAME
    return str(path) if path.is_file() else None


class FleetService:
    def __init__(self, options: FleetOptions, *, embedded: bool, db: str) -> None:
        self.options = options
        self.embedded = embedded
        self.db = db
        self.credentials: Any = None
        self.fleet: Fleet | None = None
        self.software: Software | None = None
        self.announcer: Announcer | None = None
        self._upkeep: asyncio.Task[None] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.key: HubKey | None = None
        if embedded:
            from hub.broker.embedded_auth import RoomCredentials

            self._credentials_class = RoomCredentials

    def hub_config(self, config: HubConfig) -> HubConfig:
        """The hub's settings; with the embedded broker, the credential made for this run."""
        if not self.embedded:
            return config
        self.credentials = self._credentials_class(config.event, open_room=not self.options.enrolled_only)
        from hub.broker.embedded_auth import HUB_USER

        return dataclasses.replace(config, username=HUB_USER, password=self.credentials.hub_password)

    def attach(self, hub: Hub) -> Fleet:
        """Create the fleet job for ``hub`` (on its loop, before ``hub.start()``)."""
        loop = asyncio.get_running_loop()
        provisioner: Provisioner
        if self.embedded:
            from hub.broker.embedded_auth import EmbeddedProvisioner

            provisioner = EmbeddedProvisioner(self.credentials)
        else:
            dynsec = DynsecProvisioner(hub.config.event, lambda: hub.link)
            hub.link_setup.append(lambda link: dynsec.attach(link, loop))
            provisioner = dynsec
        key_path = Path(self.options.hub_key) if self.options.hub_key else default_path(self.db)
        key = self.key = HubKey.load_or_create(key_path or self._scratch() / "hub-signing.key")
        settings = FleetSettings(
            sign=key.sign,
            hub_key=key.public_b64,
            event=hub.config.event,
            broker_port=hub.config.broker_port,
            table_broker=self.options.table_broker,
            tls_ca_pem=Path(self.options.table_tls_ca).read_text() if self.options.table_tls_ca else None,
            template=load_table_template(Path(self.options.table_template))
            if self.options.table_template
            else {},
        )
        software = self.software = Software(
            self._software_dir(),
            Path(self.options.software) if self.options.software else None,
            release_key=self.options.release_key,
        )
        changes = DeviceChanges(hub)
        fleet = Fleet(
            hub.store,
            hub.clock,
            settings,
            provisioner,
            link=lambda: hub.link,
            online=lambda table: bool((view := hub.views.get(table)) and view.online),
            publish=hub._publish,
            hub_build=lambda: software.build,
            room=changes,
        )
        changes.mark_at_start()  # a table left without a device before a restart has none still
        if self.embedded:
            for d in fleet.devices.values():
                if d.username and d.state == "enrolled" and d.secret_hash and d.table:
                    self.credentials.add(d.username, d.secret_hash, d.table)
                elif d.username:
                    self.credentials.revoke(d.username)
        hub.on_device = fleet.on_report
        self.fleet = fleet
        self._upkeep = loop.create_task(self._run_upkeep(fleet, hub))
        return fleet

    async def start_web(self, app: web.Application, http_host: str, http_port: int) -> None:
        """Serve the fleet's routes and the software; announce the hub."""
        assert self.fleet is not None and self.software is not None
        await asyncio.get_running_loop().run_in_executor(None, self.software.prepare)
        add_fleet_routes(app, self.fleet, self.software)
        self._http = (http_host, http_port)

    async def announce(self, event: str, http_host: str, http_port: int) -> None:
        """The dashboard listens: tables are given its public address; announce it with mDNS."""
        fleet = self.fleet
        if fleet is not None:
            url, broker = public_addresses(self.options, http_host, http_port, fleet.settings.broker_port)
            fleet.settings = dataclasses.replace(fleet.settings, public_url=url, table_broker=broker)
            log.info(
                "tables are given the hub %s and the broker %s:%d (hub key %s)",
                url,
                *broker,
                self.key.fingerprint if self.key else "?",
            )
        if not self.options.announce:
            return
        self.announcer = Announcer(event, http_host, http_port, self.key.fingerprint if self.key else "")
        try:
            await self.announcer.start()
        except OSError as exc:
            log.warning("mDNS: cannot announce the hub (%s); tables need its address", exc)
            self.announcer = None

    async def stop(self) -> None:
        if self.announcer is not None:
            await self.announcer.stop()
            self.announcer = None
        if self._upkeep is not None:
            self._upkeep.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._upkeep
            self._upkeep = None
        if self.fleet is not None:
            self.fleet.tick()
        if self._tmp is not None:
            self._tmp.cleanup()

    async def _run_upkeep(self, fleet: Fleet, hub: Hub) -> None:
        while True:
            await asyncio.sleep(UPKEEP_S)
            try:
                fleet.tick()
                hub.store.commit()
            except Exception:
                log.exception("fleet upkeep failed")

    def _software_dir(self) -> Path:
        if self.db and self.db != ":memory:":
            return Path(self.db).resolve().parent / "software"
        return self._scratch()

    def _scratch(self) -> Path:
        """A directory for this run only (a hub whose database is in memory)."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="bghub-software-")
        return Path(self._tmp.name)


def public_addresses(
    options: FleetOptions, http_host: str, http_port: int, broker_port: int
) -> tuple[str, tuple[str, int]]:
    """``(hub URL, (broker host, port))`` that enrolled tables are given: what the organiser
    configured (``--public-url``, ``--public-broker``), else the dashboard's own address (the
    first announced one when it listens on every interface) and the broker's port. Never the
    address a request came in on: whoever relays a table's hello must not become its hub."""
    from urllib.parse import urlsplit

    from hub.fleet.discovery import announced_addresses

    url = options.public_url
    if not url:
        host = http_host
        if host in ("", "0.0.0.0", "::", "*"):
            found = announced_addresses(host)
            host = found[0] if found else "127.0.0.1"
            if not found:
                log.warning("no address to give tables: use --public-url http://HOST:PORT")
        url = f"http://{f'[{host}]' if ':' in host else host}:{http_port}"
    broker = options.table_broker or (urlsplit(url).hostname or "127.0.0.1", broker_port)
    return url.rstrip("/"), broker
