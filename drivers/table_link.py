"""The table's end of the MQTT link: status, state and events out; assignments and commands in.

API::

    link = TableLink(event, table, host, port, *,
                     outbox: Outbox,
                     state_provider: Callable[[], dict],    # the current snapshot (PROTOCOL §2)
                     on_assign: Callable[[dict], None],      # retained assign payload (PROTOCOL §1)
                     on_cmd: Callable[[dict], None],         # a hub command (PROTOCOL §3.3)
                     username=None, password=None, version=VERSION, boot_id=None,
                     keepalive=10, backoff=(0.2, 10.0), window=64,
                     on_online: Callable[[bool], None] | None = None,
                     status_fields: Callable[[], dict] | None = None,  # more status fields
                     on_hub_time: Callable[[int], None] | None = None,  # the hub's wall (hub/time)
                     on_next: Callable[[NextMessage | None], None] | None = None)  # table/{t}/next
    link.start()
    link.publish_event(evt) -> int      # durable in the outbox first, then sent in order (QoS 1)
    link.publish_state(snapshot)        # retained, QoS 1, latest wins
    link.refresh_status()               # publish status again (status_fields changed)
    link.online -> bool ; link.wait_online(timeout) -> bool
    link.wait_drained(timeout) -> bool  # every stored event acknowledged by the broker
    link.publish_device(report)         # fleet: the device's health report (retained, QoS 1)
    link.stop(timeout=5.0, graceful=True)
    hub_time_wall(obj) -> int | None    # the checked ``wall`` of a ``hub/time`` message

The MQTT client id is the table id, and so is the username unless another is given (PROTOCOL §3:
table id = username = client id, which is what per-table ACLs key on). The session is clean: what
the table must not lose lives in its own outbox, not in the broker.

What the link guarantees, and how:

* **Presence.** The Will is the retained ``status`` ``{"online": false, ...}``; on every connect
  the link publishes ``status`` online and the current ``state`` (both retained), then sends the
  outbox. It does so again whenever ``hub/status`` turns online (a restarted hub may have lost its
  view). A graceful ``stop()`` publishes ``status`` offline itself (the broker discards the Will
  on a clean disconnect).
* **Events, exactly as stored, in order.** ``publish_event`` writes to the outbox (fsync'd)
  before anything is sent. A single pump hands outbox rows to the client in rowid order, at most
  ``window`` unacknowledged at a time, and marks a row sent only on the broker's PUBACK. Rows
  handed to the client stay with it across reconnects (it re-sends them before anything newer);
  rows not acknowledged when the process dies are sent again at the next start. Duplicates are
  possible, losses are not; the hub drops duplicates by ``(table, match_id, seq)``.
* **State, latest wins.** Only one state message is in flight; newer snapshots published
  meanwhile replace each other and the last one goes out on the ack. Offline, nothing is queued:
  the next connect publishes ``state_provider()``.
* **Resync** (an extension, ``table/{t}/resync`` ``{"match_id", "from_seq"}``): the hub saw a gap;
  the table publishes its state and re-sends every stored event of that match from ``from_seq``.
* **The room's time** (``hub/time`` ``{"wall"}``, QoS 0): handed to ``on_hub_time`` as it
  arrives, so the application can compare it with its own wall clock at that moment.
* **The "Next:" lines** (``table/{t}/next``, retained): the hub's message checked against its
  declaration (:func:`rulebook.wire.parse_next`) and handed to ``on_next``; an empty payload (the
  hub withdrew them) as ``None``. A message that fails is logged, naming the field, and dropped.
* **Untrusted input.** Payloads on every topic are checked (JSON object, field types, size);
  anything else is logged and dropped. Exceptions in ``on_assign``/``on_cmd`` are logged.

``on_assign``/``on_cmd`` run on the network thread: journal the input and return (the kiosk's
controller applies it); do not block there.
"""

from __future__ import annotations

import functools
import logging
import threading
import uuid
from collections.abc import Callable
from importlib import metadata
from typing import Any

from drivers.mqtt_client import MqttClient
from drivers.mqtt_topics import Topics, decode_object, encode_json, is_int, is_valid_id, now_wall, short
from drivers.outbox import Outbox
from rulebook.errors import WireError
from rulebook.messages import Event, NextMessage, Snapshot
from rulebook.wire import MAX_MS, parse_next

log = logging.getLogger("drivers.table_link")


def _version() -> str:
    try:
        return metadata.version("smart-table")
    except metadata.PackageNotFoundError:
        return "0.0.0"


VERSION = _version()


def hub_time_wall(obj: dict[str, Any]) -> int | None:
    """The hub's time of day in a ``hub/time`` message: ``wall``, epoch milliseconds, an integer
    from 0 to 2**53 - 1 (what JSON carries exactly); ``None`` when it is missing or anything else.
    Other fields are ignored, so that a later hub may add some."""
    wall = obj.get("wall")
    return wall if is_int(wall) and 0 <= wall <= MAX_MS else None


class TableLink:
    """One table's connection to the room (see module doc)."""

    def __init__(
        self,
        event: str,
        table: str,
        host: str,
        port: int,
        *,
        outbox: Outbox,
        state_provider: Callable[[], Snapshot],
        on_assign: Callable[[dict[str, Any]], None],
        on_cmd: Callable[[dict[str, Any]], None],
        username: str | None = None,
        password: str | None = None,
        version: str = VERSION,
        boot_id: str | None = None,
        keepalive: int = 10,
        backoff: tuple[float, float] = (0.2, 10.0),
        window: int = 64,
        on_online: Callable[[bool], None] | None = None,
        tls: bool = False,
        tls_ca_file: str | None = None,
        status_fields: Callable[[], dict[str, Any]] | None = None,
        on_control: Callable[[dict[str, Any]], None] | None = None,
        on_hub_time: Callable[[int], None] | None = None,
        on_next: Callable[[NextMessage | None], None] | None = None,
    ) -> None:
        if not is_valid_id(table):
            raise ValueError(f"invalid table id {table!r} (letters, digits, _ . - only)")
        if window < 1:
            raise ValueError("window must be at least 1")
        self.topics = Topics(event)
        self.table = table
        self.version = version
        self.boot_id = boot_id or uuid.uuid4().hex
        self._outbox = outbox
        self._state_provider = state_provider
        self._on_assign = on_assign
        self._on_cmd = on_cmd
        self._on_online = on_online
        self._status_fields = status_fields
        self._window = window
        self._t_status = self.topics.table_status(table)
        self._t_state = self.topics.table_state(table)
        self._t_evt = self.topics.table_evt(table)
        self._t_assign = self.topics.table_assign(table)
        self._t_cmd = self.topics.table_cmd(table)
        self._t_resync = self.topics.table_resync(table)
        #: the fleet's messages to this device (identify, restart, ...), when someone listens
        self._on_control = on_control
        self._t_control = self.topics.table_control(table)
        self._on_hub_time = on_hub_time
        self._on_next = on_next
        self._t_next = self.topics.table_next(table)

        self._lock = threading.RLock()
        self._acked = threading.Condition(self._lock)
        self._handed_upto = 0  # highest outbox rowid handed to the client in this process
        self._unacked = 0  # events handed and not yet acknowledged
        self._state_unacked = 0
        self._state_pending: bytes | None = None
        self._latest_state: bytes | None = None
        self._state_version = 0  # counts publish_state calls
        self._hub: tuple[bool, Any] | None = None  # last hub/status (online, since_wall)

        self.client = MqttClient(
            host,
            port,
            table,
            username=table if username is None else username,
            password=password,
            clean_session=True,
            will=self._will,
            keepalive=keepalive,
            on_message=self._on_message,
            on_connect=self._on_connect,
            on_disconnect=self._on_disconnect,
            backoff=backoff,
            tls=tls,
            tls_ca_file=tls_ca_file,
        )

    # ----------------------------------------------------------------- application side
    def start(self) -> None:
        for topic in (self._t_assign, self._t_cmd, self.topics.hub_status, self._t_resync):
            self.client.subscribe(topic, qos=1)
        if self._on_control is not None:
            self.client.subscribe(self._t_control, qos=1)
        if self._on_hub_time is not None:
            self.client.subscribe(self.topics.hub_time, qos=0)
        if self._on_next is not None:
            self.client.subscribe(self._t_next, qos=1)
        self.client.start()

    def stop(self, timeout: float = 5.0, *, graceful: bool = True) -> None:
        """Leave the room: ``status`` offline, then DISCONNECT; ``graceful=False`` drops the
        connection as a power cut would (the broker publishes the Will)."""
        if graceful and self.online:
            self.client.publish(self._t_status, self._status(False), qos=1, retain=True)
        self.client.stop(timeout, graceful=graceful)

    @property
    def online(self) -> bool:
        return self.client.connected.is_set()

    def wait_online(self, timeout: float | None = None) -> bool:
        return self.client.wait_connected(timeout)

    def wait_drained(self, timeout: float | None = None) -> bool:
        """Wait until the outbox has nothing left to send (e.g. before a planned shutdown)."""
        with self._acked:
            return self._acked.wait_for(lambda: self._outbox.pending_count() == 0, timeout)

    def publish_event(self, evt: Event) -> int:
        """Store ``evt`` durably, then send it after every earlier one; returns its outbox rowid."""
        rowid = self._outbox.put(evt)
        self._pump()
        return rowid

    def publish_state(self, snapshot: Snapshot) -> None:
        """Publish the state snapshot (retained); superseded snapshots may be skipped."""
        if not isinstance(snapshot, dict):
            raise TypeError(f"a snapshot is a dict, not {type(snapshot).__name__}")
        payload = encode_json(snapshot)
        with self._lock:
            self._latest_state = payload
            self._state_version += 1
            if not self.online:
                return
            if self._state_unacked:
                self._state_pending = payload
                return
            self._send_state(payload)

    def publish_device(self, report: dict[str, Any]) -> None:
        """The device's health report for the fleet view (retained: a restarted hub has the last)."""
        if not isinstance(report, dict):
            raise TypeError(f"a device report is a dict, not {type(report).__name__}")
        if self.online:
            self.client.publish(self.topics.table_device(self.table), report, qos=1, retain=True)

    # ----------------------------------------------------------------- sending
    def refresh_status(self) -> None:
        """Publish ``status`` (online) again: what ``status_fields`` returns has changed."""
        if self.online:
            self.client.publish(self._t_status, self._status(True), qos=1, retain=True)

    def _status(self, online: bool) -> dict[str, Any]:
        status: dict[str, Any] = {}
        if self._status_fields is not None:
            try:
                status.update(self._status_fields())
            except Exception:
                log.exception("table %s: status_fields failed", self.table)
        status.update(online=online, boot_id=self.boot_id, version=self.version, wall=now_wall())
        return status

    def _will(self) -> tuple[str, bytes, int, bool]:
        return (self._t_status, encode_json(self._status(False)), 1, True)

    def _pump(self) -> None:
        """Hand the next outbox rows to the client, in order, keeping ``window`` in flight."""
        with self._lock:
            if not self.online:
                return
            room = self._window - self._unacked
            if room <= 0:
                return
            for rowid, evt in self._outbox.pending(room, after=self._handed_upto):
                self.client.publish(
                    self._t_evt, evt, qos=1, on_ack=functools.partial(self._event_acked, rowid)
                )
                self._handed_upto = rowid
                self._unacked += 1

    def _event_acked(self, rowid: int) -> None:
        try:
            self._outbox.mark_sent(rowid)
        except Exception:
            log.exception("table %s: cannot mark event %d sent; it will be sent again", self.table, rowid)
        with self._lock:
            self._unacked -= 1
            self._acked.notify_all()
            refill = self._unacked <= self._window // 2  # refill in batches, not one row per ack
        if refill:
            self._pump()

    def _send_state(self, payload: bytes) -> None:
        self._state_unacked += 1
        self.client.publish(self._t_state, payload, qos=1, retain=True, on_ack=self._state_acked)

    def _state_acked(self) -> None:
        with self._lock:
            self._state_unacked -= 1
            if self._state_unacked == 0 and self._state_pending is not None and self.online:
                payload, self._state_pending = self._state_pending, None
                self._send_state(payload)

    def _announce(self) -> None:
        """``status`` online and the current ``state``, both retained.

        ``state_provider`` is called without holding the link's lock (it may well take the
        application's own lock, which the application may hold while calling ``publish_event``);
        a snapshot published meanwhile through ``publish_state`` is newer and wins.
        """
        with self._lock:
            version = self._state_version
        try:
            payload: bytes | None = encode_json(self._state_provider())
        except Exception:
            log.exception("table %s: state_provider failed; publishing the last snapshot", self.table)
            payload = None
        with self._lock:
            if payload is None or self._state_version != version:
                payload = self._latest_state
            self.client.publish(self._t_status, self._status(True), qos=1, retain=True)
            self._state_pending = None
            if payload is not None:
                self._send_state(payload)

    # ----------------------------------------------------------------- network thread
    def _on_connect(self) -> None:
        self._announce()
        self._pump()
        self._notify(True)

    def _on_disconnect(self) -> None:
        self._notify(False)

    def _notify(self, online: bool) -> None:
        if self._on_online is not None:
            try:
                self._on_online(online)
            except Exception:
                log.exception("table %s: on_online raised", self.table)

    def _on_message(self, topic: str, payload: bytes) -> None:
        if topic == self._t_assign:
            self._handle_assign(topic, payload)
        elif topic == self._t_cmd:
            self._handle_cmd(topic, payload)
        elif topic == self.topics.hub_status:
            self._handle_hub_status(topic, payload)
        elif topic == self._t_resync:
            self._handle_resync(topic, payload)
        elif topic == self._t_control and self._on_control is not None:
            obj = decode_object(topic, payload, log)
            if obj is not None and isinstance(obj.get("action"), str):
                self._call("on_control", self._on_control, obj)
        elif topic == self.topics.hub_time and self._on_hub_time is not None:
            self._handle_hub_time(topic, payload)
        elif topic == self._t_next and self._on_next is not None:
            self._handle_next(topic, payload)
        else:
            log.debug("table %s: message on unexpected topic %s ignored", self.table, topic)

    def _handle_assign(self, topic: str, payload: bytes) -> None:
        if not payload:
            log.info("table %s: the hub withdrew the assignment (kept as it is)", self.table)
            return
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        match_id = obj.get("match_id")
        if not isinstance(match_id, str) or not match_id:
            log.warning("dropped %s: match_id must be a non-empty string, got %s", topic, short(match_id))
            return
        self._call("on_assign", self._on_assign, obj)

    def _handle_cmd(self, topic: str, payload: bytes) -> None:
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        for field in ("id", "type"):
            value = obj.get(field)
            if not isinstance(value, str) or not value:
                log.warning("dropped %s: %s must be a non-empty string, got %s", topic, field, short(value))
                return
        self._call("on_cmd", self._on_cmd, obj)

    def _handle_hub_status(self, topic: str, payload: bytes) -> None:
        if not payload:
            return
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        online = obj.get("online")
        if not isinstance(online, bool):
            log.warning("dropped %s: online must be a boolean, got %s", topic, short(online))
            return
        hub = (online, obj.get("since_wall"))
        with self._lock:
            turned_online = online and self._hub != hub
            self._hub = hub
        if turned_online:
            log.info("table %s: the hub is online; announcing status and state again", self.table)
            self._announce()

    def _handle_hub_time(self, topic: str, payload: bytes) -> None:
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        wall = hub_time_wall(obj)
        if wall is None:
            log.warning("dropped %s: wall must be epoch milliseconds, got %s", topic, short(obj.get("wall")))
            return
        assert self._on_hub_time is not None
        try:
            self._on_hub_time(wall)
        except Exception:
            log.exception("table %s: on_hub_time raised; the message is dropped", self.table)

    def _handle_next(self, topic: str, payload: bytes) -> None:
        message: NextMessage | None = None
        if payload:
            obj = decode_object(topic, payload, log)
            if obj is None:
                return
            try:
                message = parse_next(obj)
            except WireError as exc:
                log.warning("dropped %s: %s", topic, exc)
                return
        assert self._on_next is not None
        try:
            self._on_next(message)
        except Exception:
            log.exception("table %s: on_next raised; the message is dropped", self.table)

    def _handle_resync(self, topic: str, payload: bytes) -> None:
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        match_id, from_seq = obj.get("match_id"), obj.get("from_seq")
        if "match_id" not in obj or (
            match_id is not None and (not isinstance(match_id, str) or not match_id)
        ):
            log.warning("dropped %s: match_id must be a string or null, got %s", topic, short(match_id))
            return
        if not is_int(from_seq) or from_seq < 0:
            log.warning("dropped %s: from_seq must be a non-negative integer, got %s", topic, short(from_seq))
            return
        events = self._outbox.since(from_seq, match_id)
        log.info(
            "table %s: resync of %s from %d: re-sending %d events",
            self.table,
            match_id,
            from_seq,
            len(events),
        )
        self._announce()
        with self._lock:
            for evt in events:
                self.client.publish(self._t_evt, evt, qos=1)

    def _call(self, name: str, func: Callable[[dict[str, Any]], None], obj: dict[str, Any]) -> None:
        try:
            func(obj)
        except Exception:
            log.exception("table %s: %s raised; the message is dropped", self.table, name)
