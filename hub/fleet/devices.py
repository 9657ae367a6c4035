"""The fleet: tables that enroll themselves from one image, and what the organiser sees of them.

A table with no configuration says hello over HTTP (``/device/v1/hello``) with its device id and
a public key, gets a four-digit code, shows it, and waits (``/device/v1/poll``). The TD types the
table number for that code on the Tables page (``POST /api/fleet/{device}/enroll``); the hub then

1. gives the table a broker credential of its own, live (:mod:`hub.broker.provision`: Mosquitto's
   dynamic security, or the embedded broker's equivalent) — a username made for this enrollment
   and a random password;
2. writes the table's configuration (its number, the event, the broker, the keys every table
   shares) and seals it to the device's key (:mod:`drivers.sealed_box`): the poll hands it over,
   and nobody else on the network can read the password;
3. retires the device that had this table number before, if any: its credential is revoked at
   once (the broker drops its connection) and it is told to stop.

Protected because: a device can only say hello and wait — only a logged-in TD's request (session
and CSRF token, like every action) enrolls, and only with the code on the table's own screen;
codes expire (:data:`hub.fleet.model.CODE_TTL_MS`) and are single-use, and reach only the roles
that enroll (:func:`hub.fleet.model.shown_to`); a waiting or enrolled device keeps the key it
first said hello with (another key for its id is refused, and the TD told); hellos, polls and
waiting rows are limited per address, the busiest address losing first (:mod:`hub.fleet.limits`);
a device proves nothing by knowing another device's id (what it could fetch is sealed to the
other's key). Enrollments and retirements of one table run one at a time, and one that would take
a match from its players needs the TD to name it (:mod:`hub.fleet.device_change`): the room is told at
once that the table's old device is gone.

Enrolled tables report their health over MQTT (``table/{t}/device``, checked by
:func:`hub.fleet.model.check_report`) and take the fleet's orders (``table/{t}/control``: identify,
restart, button test, update, retire), each addressed to one device id.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from drivers.hub_link import HubLink
from drivers.sealed_box import b64decode, b64encode, seal
from hub.broker.mosquitto import hash_password
from hub.broker.provision import FleetError, Provisioner
from hub.fleet.device_change import REPLACED, RETIRED, InProgress, check_override
from hub.fleet.limits import PENDING_PER_SOURCE, SourceLimits, Waiting, to_evict
from hub.fleet.model import (
    CODE_TTL_MS,
    PENDING_FORGET_MS,
    SETUP,
    Hello,
    ReportError,
    check_code,
    check_report,
    check_table,
    code_valid,
    new_code,
    public_row,
    shown_to,
    with_check_heard,
)
from hub.fleet.store import Device, FleetStore
from hub.live.clock import Clock
from hub.live.incidents import device_conflict, hello_flood
from hub.live.state import natural
from hub.logic import clock_estimate
from hub.logic.clock_estimate import ClockEstimate, observe
from hub.logic.conditions import AlertSpec
from hub.storage.store import Store

log = logging.getLogger("hub.fleet")

#: bound into every sealed configuration (with the device id): a sealed blob is for one purpose
SEAL_CONTEXT = b"bgtable-enroll-v1:"
#: the longest a poll waits for the TD
POLL_WAIT_S = 25.0
CONTROL_ACTIONS = ("identify", "restart", "button_test", "hardware_check", "update")
#: addresses named in the TD's flood alert (the first ones)
FLOODERS_NAMED = 100


class FleetRoom(Protocol):
    """What the fleet asks of the room (:class:`hub.fleet.device_change.DeviceChanges`)."""

    def in_progress(self, table: str) -> InProgress | None:
        """The match ``table`` is playing, if any."""
        ...

    def gone(self, table: str, why: str, actor: str) -> None:
        """``table`` has no device connected any more (retired or replaced)."""
        ...

    def alert(self, spec: AlertSpec) -> None:
        """Tell the TD."""
        ...


@dataclass(frozen=True)
class FleetSettings:
    """What enrolled tables are given besides their own number and credential."""

    event: str
    #: the broker port tables use (the hub's broker port unless ``table_broker`` says otherwise)
    broker_port: int
    #: ``(host, port)`` of the broker for tables; None: the host of ``public_url``
    table_broker: tuple[str, int] | None = None
    #: the hub's address tables keep using, as the organiser configured or the hub announces it
    #: (never what a request said: :func:`hub.fleet.setup.public_addresses`)
    public_url: str = ""
    #: signs every answer a table acts on with the hub's key (:mod:`hub.fleet.hub_key`)
    sign: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
    #: the hub's public key (base64), pinned in each table's sealed configuration
    hub_key: str = ""
    #: TLS to the broker: the CA certificate (PEM) tables check it with
    tls_ca_pem: str | None = None
    #: the keys every table shares (language, td_pin, [pins], [dice], [screen], ...)
    template: dict[str, Any] = field(default_factory=dict)
    code_ttl_ms: int = CODE_TTL_MS


class Fleet:
    """The hub's fleet job (see module doc). Everything runs on the hub's loop."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        settings: FleetSettings,
        provisioner: Provisioner,
        *,
        link: Callable[[], HubLink | None],
        online: Callable[[str], bool],
        publish: Callable[[dict[str, Any]], None],
        room: FleetRoom,
        hub_build: Callable[[], str] = lambda: "",
    ) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.provisioner = provisioner
        self._db = FleetStore(store.db)
        self.devices: dict[str, Device] = self._db.load(store.quarantine)
        self._link = link
        self._online = online
        self._publish = publish
        self._hub_build = hub_build
        self.room = room
        self._changed: asyncio.Event = asyncio.Event()
        self.limits = SourceLimits()
        #: one enrollment or retirement of a table at a time (the TD's two tabs, two TDs)
        self._table_locks: dict[str, asyncio.Lock] = {}
        #: tells rows apart where a device's id is not shown (hub.fleet.model.shown_to)
        self._row_secret = secrets.token_bytes(16)
        self._flooders: list[str] = []
        self._enrolling: set[str] = set()
        self._dirty: set[str] = set()
        #: device -> the hub's estimate of how far its clock is off (hub.logic.clock_estimate):
        #: the largest offset its reports showed lately, so one late report (the broker's queue
        #: after an outage, a busy hub) does not make its clock look behind
        self._offsets: dict[str, ClockEstimate] = {}
        store.commit()

    # -- devices' side (HTTP, unauthenticated) ---------------------------------------------------

    def hello(self, h: Hello, ip: str, hub_url: str) -> dict[str, Any]:
        """A device says it is there; a pending one gets (or keeps) its code. A waiting or enrolled
        device keeps the key it first said hello with: another key for its id is refused."""
        now = self.clock.now_wall()
        if not self.limits.hellos.allow(ip, now):
            self._flooded(ip)
            raise FleetError("too many hellos from this address; wait a minute", 429)
        d = self.devices.get(h.device)
        if d is not None and d.state != "retired" and not secrets.compare_digest(d.key, h.key):
            log.warning("a hello from %s with device %s's id and another key: refused", ip, h.device)
            self.room.alert(device_conflict(ip, d.ip or "an unknown address", d.state))
            if d.state == "enrolled":
                raise FleetError(
                    f"device {h.device} is enrolled as table {d.table} with another key: retire it on "
                    "the Tables page to enroll it again",
                    409,
                )
            raise FleetError(
                f"device {h.device} is waiting to be enrolled with another key: refused (the TD was told)",
                409,
            )
        if d is not None and d.state == "enrolled":
            self._seen(d, h, ip, hub_url, now)
            return {"state": "enrolled", "table": d.table}
        if d is None or d.state == "retired":
            self._make_room(ip)
            d = Device(device=h.device, key=h.key, state="pending", first_seen_wall=now, last_seen_wall=now)
            self.devices[h.device] = d
            log.info("device %s (%s) says hello", h.device, ip)
        self._seen(d, h, ip, hub_url, now)
        if not code_valid(d, now):
            d.code = new_code({x.code for x in self.devices.values() if x.code and code_valid(x, now)})
            d.code_expires_wall = now + self.settings.code_ttl_ms
        self._save(d, push=True)
        return self._pending(d)

    def poll(self, device: str, key: str) -> dict[str, Any]:
        """Where the device stands: pending (its code), enrolled (its sealed configuration),
        retired, or expired (its code is no longer valid: say hello again)."""
        d = self._own(device, key)
        now = self.clock.now_wall()
        d.last_seen_wall = now
        self._dirty.add(d.device)
        if d.state == "enrolled":
            return {"state": "enrolled", "table": d.table, "sealed": d.sealed}
        if d.state == "retired":
            return {"state": "retired"}
        if not code_valid(d, now):
            return {"state": "expired"}
        return self._pending(d)

    async def wait(self, device: str, key: str, timeout: float, source: str = "") -> dict[str, Any]:
        """:meth:`poll`, after waiting up to ``timeout`` seconds for the device's state to change
        (polls are limited per ``source`` address: :mod:`hub.fleet.limits`)."""
        if not self.limits.polls.allow(source, self.clock.now_wall()):
            self._flooded(source)
            raise FleetError("too many polls from this address; wait a minute", 429)
        first = self.poll(device, key)
        if first["state"] != "pending" or not self.limits.hold(source):
            return first
        try:
            return await self._wait(device, key, timeout, first)
        finally:
            self.limits.release(source)

    async def _wait(self, device: str, key: str, timeout: float, first: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(timeout, POLL_WAIT_S)
        while True:
            event = self._changed
            left = deadline - loop.time()
            if left <= 0:
                return self.poll(device, key)
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                return self.poll(device, key)
            answer = self.poll(device, key)
            if answer != first:
                return answer

    def _own(self, device: str, key: str) -> Device:
        d = self.devices.get(device)
        if d is None:
            raise FleetError("unknown device: say hello first", 404)
        if not secrets.compare_digest(d.key, key):
            raise FleetError("this is not the key the device said hello with", 403)
        return d

    def _pending(self, d: Device) -> dict[str, Any]:
        return {
            "state": "pending",
            "code": d.code,
            "code_expires_wall": d.code_expires_wall,
            "event": self.settings.event,
            "poll_s": POLL_WAIT_S,
        }

    def _seen(self, d: Device, h: Hello, ip: str, hub_url: str, now: int) -> None:
        d.last_seen_wall = now
        d.version, d.build, d.hostname, d.ip = h.version, h.build, h.hostname, ip
        if hub_url:
            d.hub_url = hub_url

    def _make_room(self, ip: str) -> None:
        """Before a new waiting row from ``ip``: drop the row :func:`hub.fleet.limits.to_evict`
        names (the address's own oldest at its share, else the busiest address's oldest)."""
        waiting = [
            Waiting(x.device, x.ip, x.last_seen_wall) for x in self.devices.values() if x.state == "pending"
        ]
        victim = to_evict(waiting, ip)
        if victim is None:
            return
        log.warning("device %s (%s) dropped from the waiting list: its address has too many", victim.device,
                    victim.source)  # fmt: skip
        self._flooded(victim.source)
        self._forget(victim.device)

    def _flooded(self, ip: str) -> None:
        """Tell the TD (one alert, naming the first addresses) that ``ip`` asks too much."""
        if ip in self._flooders or len(self._flooders) >= FLOODERS_NAMED:
            return
        self._flooders.append(ip)
        self.room.alert(hello_flood(self._flooders, PENDING_PER_SOURCE))

    def _forget(self, device: str) -> None:
        """Drop a waiting device's row (it says hello again if it is still there)."""
        d = self.devices.pop(device)
        self._db.delete(device)
        self._dirty.discard(device)
        self._publish(
            {"type": "fleet", "removed": [self.key_of(d.device)], "now_wall": self.clock.now_wall()}
        )

    def key_of(self, device: str) -> str:
        """The row's handle where its device's id is not shown (stable while the hub runs)."""
        return hmac.new(self._row_secret, device.encode(), hashlib.sha256).hexdigest()[:16]

    def _lock(self, table: str | None) -> asyncio.Lock:
        return self._table_locks.setdefault(table or "", asyncio.Lock())

    # -- the TD's actions ------------------------------------------------------------------------

    async def enroll(
        self, device: str, table_value: Any, actor: str, code: Any = None, override: Any = None
    ) -> dict[str, Any]:
        """Make ``device`` table ``table`` (see module doc); the previous device there is retired.

        ``code`` is the one the table's screen shows (required); ``override`` names the match
        the table is playing and its score, when it plays one (:func:`check_override`). One
        enrollment or retirement of a table at a time: of two at the same instant, the second
        replaces the first's device (one working credential)."""
        table = check_table(table_value)
        typed = check_code(code)
        async with self._lock(table):
            return await self._enroll(device, table, actor, typed, override)

    async def _enroll(self, device: str, table: str, actor: str, code: str, override: Any) -> dict[str, Any]:
        d = self.devices.get(device)
        now = self.clock.now_wall()
        if d is None:
            raise FleetError(f"no device {device!r}", 404)
        if d.state != "pending":
            raise FleetError(f"device {device} is {d.state}, not waiting to be enrolled", 409)
        if not code_valid(d, now):
            raise FleetError(f"the code of device {device} has expired: it shows a new one soon", 409)
        if not secrets.compare_digest(code, d.code or ""):
            raise FleetError(f"code {code} is not the code device {device} shows now", 409, code="wrong_code")
        check_override(
            self.room.in_progress(table), override, f"enrolling device {device} there takes the match over"
        )
        if device in self._enrolling:  # the TD's two tabs, as two tables at once
            raise FleetError(f"device {device} is being enrolled already", 409)
        self._enrolling.add(device)
        try:
            return await self._make_table(d, table, actor)
        finally:
            self._enrolling.discard(device)

    async def _make_table(self, d: Device, table: str, actor: str) -> dict[str, Any]:
        previous = [x for x in self.devices.values() if x.state == "enrolled" and x.table == table]
        username = f"table-{table}-{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(24)
        await self.provisioner.grant(username, password, table)
        if d.state != "pending":  # dismissed meanwhile
            await self.provisioner.revoke(username)
            raise FleetError(f"device {d.device} is {d.state} now", 409)
        try:
            # the old device goes first: the room hears "offline" before the new one can connect
            for old in previous:
                await self._retire(old, actor, f"replaced by device {d.device}", REPLACED)
        except Exception:
            await self.provisioner.revoke(username)
            raise
        device = d.device
        now = self.clock.now_wall()
        configuration = self._configuration(d, table, username, password)
        context = SEAL_CONTEXT + d.device.encode()
        d.sealed = b64encode(seal(b64decode(d.key), json.dumps(configuration).encode(), context))
        d.state, d.table, d.username = "enrolled", table, username
        d.secret_hash = hash_password(password)
        d.enrolled_wall, d.code, d.code_expires_wall = now, None, None
        d.report, d.report_wall, d.clock_offset_ms = None, None, None
        self._offsets.pop(d.device, None)
        d.retired_wall, d.retired_why = None, ""
        self.store.audit(
            actor, "fleet_enroll", now, table=table, detail={"device": device, "username": username}
        )
        self._save(d, push=True)
        self.store.commit()
        log.info("device %s enrolled as table %s (%s)", device, table, username)
        return {**self.row(d), "replaced": [old.device for old in previous]}

    async def retire(self, device: str, actor: str, override: Any = None) -> dict[str, Any]:
        """Retire ``device`` (a waiting one: dismissed). An enrolled one playing a match needs
        ``override`` naming it (:func:`check_override`)."""
        d = self.devices.get(device)
        if d is None:
            raise FleetError(f"no device {device!r}", 404)
        async with self._lock(d.table if d.state == "enrolled" else None):
            if d.state == "retired":
                raise FleetError(f"device {device} is retired already", 409)
            if d.state == "enrolled" and d.table:
                check_override(
                    self.room.in_progress(d.table),
                    override,
                    "retiring its device leaves the match without a table",
                )
            await self._retire(d, actor, "retired by the TD", RETIRED)
            self.store.commit()
        return self.row(d)

    async def _retire(self, d: Device, actor: str, why: str, gone: str) -> None:
        """Retire ``d``: told to stop, its credential revoked (the broker drops it), and the room
        told at once that its table has no device (``gone``: why, in the TD's words)."""
        now = self.clock.now_wall()
        table = d.table if d.state == "enrolled" else None
        if table:
            self._send(d, "retire")
        if d.username:
            await self.provisioner.revoke(d.username)
        d.state, d.retired_wall, d.retired_why = "retired", now, why
        d.sealed, d.code, d.code_expires_wall = None, None, None
        self.store.audit(actor, "fleet_retire", now, table=d.table, detail={"device": d.device, "why": why})
        self._save(d, push=True)
        log.info("device %s (table %s) retired: %s", d.device, d.table, why)
        if table and not any(x.state == "enrolled" and x.table == table for x in self.devices.values()):
            self.room.gone(table, gone, actor)

    def control(self, device: str, action: str, actor: str) -> dict[str, Any]:
        """Send ``action`` (identify, restart, button_test, update) to an enrolled device."""
        if action not in CONTROL_ACTIONS:
            raise FleetError(f"action: expected one of {', '.join(CONTROL_ACTIONS)}")
        d = self.devices.get(device)
        if d is None:
            raise FleetError(f"no device {device!r}", 404)
        if d.state != "enrolled" or d.table is None:
            raise FleetError(f"device {device} is not enrolled", 409)
        link = self._link()
        if link is None or not link.online:
            raise FleetError("the hub is not connected to the broker: try again in a moment", 503)
        message = self._send(d, action)
        self.store.audit(
            actor, f"fleet_{action}", self.clock.now_wall(), table=d.table, detail={"device": device}
        )
        self.store.commit()
        return {"device": device, "table": d.table, "action": action, "id": message["id"]}

    def _send(self, d: Device, action: str) -> dict[str, Any]:
        message = {
            "action": action,
            "device": d.device,
            "id": uuid.uuid4().hex,
            "sent_wall": self.clock.now_wall(),
        }
        if self.settings.sign is not None:
            message = self.settings.sign("control", message)
        link = self._link()
        if link is not None and d.table is not None:
            link.send_control(d.table, message)
        return message

    # -- enrolled tables' reports (MQTT) ---------------------------------------------------------

    def on_report(self, table: str, obj: dict[str, Any]) -> None:
        """A table's health report (on the loop): checked, kept, pushed to the Tables page."""
        now = self.clock.now_wall()
        try:
            report = check_report(obj)
        except ReportError as exc:
            log.warning("dropped the device report of table %s: %s", table, exc)
            return
        d = self.devices.get(report["device"])
        if d is None or d.state != "enrolled" or d.table != table:
            log.info(
                "dropped a device report of table %s from device %s: not enrolled there",
                table,
                report["device"],
            )
            return
        d.report, d.report_wall = with_check_heard(report, d.report, now), now
        # reports are handled as they come (not through the room's inbox): each one counts as
        # prompt, and only the largest offset of the last minutes is shown
        estimate = observe(self._offsets.get(d.device), report["sent_wall"], None, now, prompt=True)
        self._offsets[d.device] = estimate
        d.clock_offset_ms = clock_estimate.offset(estimate)
        d.version, d.build = report["version"] or d.version, report["build"] or d.build
        if report["ip"]:
            d.ip = report["ip"]
        self._save(d, push=True, commit=False)

    # -- views and upkeep ------------------------------------------------------------------------

    def row(self, d: Device, who: str = SETUP) -> dict[str, Any]:
        """The device's row as ``who`` may see it (:func:`hub.fleet.model.shown_to`)."""
        online = bool(d.table) and self._online(d.table or "")
        row = public_row(
            d, self.clock.now_wall(), online=online, hub_build=self._hub_build(), key=self.key_of(d.device)
        )
        return shown_to(row, who)

    def rows(self, who: str = SETUP) -> list[dict[str, Any]]:
        order = {"pending": 0, "enrolled": 1, "retired": 2}
        devices = sorted(
            self.devices.values(),
            key=lambda d: (order.get(d.state, 3), natural(d.table or ""), -d.last_seen_wall, d.device),
        )
        return [self.row(d, who) for d in devices]

    def tick(self) -> None:
        """Forget pending devices gone quiet; save what polls and reports changed."""
        now = self.clock.now_wall()
        for d in list(self.devices.values()):
            if d.state == "pending" and now - d.last_seen_wall > PENDING_FORGET_MS and not code_valid(d, now):
                self._forget(d.device)
        for device in list(self._dirty):
            if device in self.devices:
                self._db.save(self.devices[device])
        self._dirty.clear()

    def _save(self, d: Device, *, push: bool, commit: bool = True) -> None:
        if commit:
            self._db.save(d)
            self._dirty.discard(d.device)
        else:
            self._dirty.add(d.device)
        if push:
            self._publish({"type": "fleet", "rows": [self.row(d)], "now_wall": self.clock.now_wall()})
        self._changed.set()
        self._changed = asyncio.Event()

    def _configuration(self, d: Device, table: str, username: str, password: str) -> dict[str, Any]:
        """What the table writes as its ``table.toml`` (docs/configuration.md), and the CA."""
        s = self.settings
        hub_url = s.public_url or d.hub_url
        host, port = s.table_broker or (_host_of(hub_url), s.broker_port)
        broker: dict[str, Any] = {"host": host, "port": port, "username": username, "password": password}
        if s.tls_ca_pem:
            broker["tls"] = True
        config = {k: v for k, v in s.template.items() if k not in ("table_id", "event", "broker", "fleet")}
        config.update(
            table_id=table,
            event=s.event,
            broker=broker,
            fleet={"hub": hub_url, "device": d.device, **({"hub_key": s.hub_key} if s.hub_key else {})},
        )
        return {"table": table, "config": config, "ca_pem": s.tls_ca_pem, "hub_key": s.hub_key}


def _host_of(url: str) -> str:
    host = urlsplit(url).hostname or ""
    return host
