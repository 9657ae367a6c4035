"""The TD hub's end of the MQTT link: every table's status, state and events in; assignments,
commands and resync requests out.

API::

    link = HubLink(event, host, port, *,
                   on_status: Callable[[str, dict], None],   # (table, {"online", "boot_id", ...})
                   on_state: Callable[[str, dict], None],    # (table, snapshot)
                   on_event: Callable[[str, dict], None],    # (table, {"seq", "match_id", "type", ...})
                   username=None, password=None, client_id=f"hub-{event}",
                   keepalive=10, backoff=(0.2, 10.0),
                   on_online: Callable[[bool], None] | None = None,
                   on_raw_state: Callable[[str, RawState], None] | None = None)
    link.start()
    link.send_assign(table, assign)      # retained, QoS 1
    link.clear_assign(table)             # empty retained payload: the broker forgets it
    link.clear_status(table)             # the same for a table whose device is gone
    link.send_next(table, message)       # the "Next:" lines of its finished match (retained, QoS 1)
    link.clear_next(table)               # empty retained payload: no lines any more
    link.send_cmd(table, cmd)            # QoS 1, not retained; cmd needs "id" and "type"
    link.request_resync(table, match_id, from_seq)
    link.send_control(table, message)    # fleet: identify, restart, button test, update (QoS 1)
    link.send_time(wall)                 # the hub's time of day for every table (QoS 0, not retained)
    link.add_handler(topic, callback)    # any other topic the hub's credential may read (callback(payload))
    link.online -> bool ; link.wait_online(timeout) -> bool
    link.stop(timeout=5.0, graceful=True)
    SeqTracker                           # re-exported from drivers.seq_tracker
    RawState(topic, payload, replayed)   # a state not decoded yet: .decode(table, log), .peek()

Why it is built this way:

* **Persistent session** (``clean_session=False``, a fixed client id, QoS 1 subscriptions to
  ``table/+/status|state|evt``): while the hub is down or restarting, the broker keeps the table
  events for it; nothing that happened in the room is missed. ``on_event`` runs before the
  PUBACK, so a hub that stores the event before returning loses none even if it crashes.
* **Presence.** The Will is the retained ``hub/status`` ``{"online": false, "since_wall"}``; on
  every connect the hub publishes ``{"online": true, "since_wall": <now>}`` retained, which makes
  every table announce its status and state again. A graceful ``stop()`` publishes offline itself.
* **Only delivery here.** Duplicate and gap detection is the hub's, with its own durable store:
  ``SeqTracker`` is the pure helper for it, and ``request_resync`` the way to fill a gap.
* **Untrusted input.** Topics whose table id is not sane and payloads that are not a JSON object
  with the right field types are logged and dropped; nothing raises into the network loop.
* **States decoded by whoever handles them.** With ``on_raw_state`` a table's state is handed
  over undecoded (:class:`RawState`): under a backlog the hub handles only a table's newest
  state and would otherwise have decoded, on this thread, every older one it then throws away
  (a snapshot is a few kilobytes of JSON; decoding them was a sixth of a flooded hub's time,
  docs/performance.md). :meth:`RawState.decode` makes the same checks, with the same log lines,
  as the link makes for a state it decodes itself; :meth:`RawState.peek` reads the match, the
  sequence number and the phase from the bytes when it can be sure of them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.mqtt_client import MqttClient
from drivers.mqtt_topics import MAX_PAYLOAD, Topics, decode_object, encode_json, is_int, now_wall, short
from drivers.seq_tracker import Accepted, SeqTracker

__all__ = ["Accepted", "HubLink", "RawState", "SeqTracker"]

log = logging.getLogger("drivers.hub_link")

#: a snapshot's own keys, as a key (a string token followed by a colon) and their plain values
_SEQ = re.compile(rb'"seq"\s*:\s*(\d+)\s*[,}]')
_SEQ_KEY = re.compile(rb'"seq"\s*:')
_MATCH = re.compile(rb'"match_id"\s*:\s*(null|"[^"]*")\s*[,}]')
_MATCH_KEY = re.compile(rb'"match_id"\s*:')
_PHASE = re.compile(rb'"phase"\s*:\s*"([^"]*)"\s*[,}]')
_PHASE_KEY = re.compile(rb'"phase"\s*:')


@dataclass(frozen=True, slots=True)
class Peek:
    """What :meth:`RawState.peek` read from a state's bytes."""

    match_id: str | None
    seq: int
    phase: str


@dataclass(frozen=True, slots=True)
class RawState:
    """A table's state as it came off the wire, decoded only by whoever handles it."""

    topic: str
    payload: bytes
    #: a retained state the broker replayed (on subscribing), not one the table just sent
    replayed: bool = False

    def decode(self, table: str, logger: logging.Logger = log) -> dict[str, Any] | None:
        """The snapshot as a JSON object with a sane table, ``seq`` and ``match_id``; ``None``
        (logged, as the link logs what it drops) for anything else."""
        obj = decode_object(self.topic, self.payload, logger)
        if obj is None or not _state_ok(self.topic, table, obj, logger):
            return None
        return obj

    def peek(self) -> Peek | None:
        """The state's match, ``seq`` and phase, read from the bytes without decoding them, or
        ``None`` unless that reading is certain for whatever JSON the bytes hold.

        Certain because: with no backslash in the payload, no string holds a quote, so a quoted
        ``"seq"`` followed by a colon is a key, never text inside a string; each key is found
        exactly once in the whole payload (at any depth), so it is the one the decoded object
        would hold if it has that key at all (if it has not, the state fails the wire schema
        however it is read); and its value is read only when it is a plain number or string.
        Anything else (an escape anywhere, a key twice, a value of another shape) gives
        ``None``: the caller then treats the state as one it knows nothing about."""
        data = self.payload
        if b"\\" in data or len(data) > MAX_PAYLOAD:
            return None
        seq, match, phase = (
            _one(_SEQ, _SEQ_KEY, data),
            _one(_MATCH, _MATCH_KEY, data),
            _one(_PHASE, _PHASE_KEY, data),
        )
        if seq is None or match is None or phase is None:
            return None
        try:
            match_id = None if match == b"null" else match[1:-1].decode("utf-8")
            return Peek(match_id, int(seq), phase.decode("utf-8"))
        except UnicodeDecodeError:
            return None


def _one(value: re.Pattern[bytes], key: re.Pattern[bytes], data: bytes) -> bytes | None:
    """The value of the one ``key`` in ``data`` (``None``: none, several, or not a plain value)."""
    found = value.search(data)
    if found is None or len(key.findall(data)) != 1:
        return None
    return found.group(1)


def _state_ok(topic: str, table: str, obj: dict[str, Any], logger: logging.Logger) -> bool:
    """What the link checks of a state before handing it on (logged when it drops one)."""
    if "table" in obj and str(obj["table"]) != table:
        logger.warning("dropped %s: the snapshot is of table %s", topic, short(obj["table"]))
        return False
    if "seq" in obj and (not is_int(obj["seq"]) or obj["seq"] < 0):
        logger.warning("dropped %s: seq must be a non-negative integer, got %s", topic, short(obj["seq"]))
        return False
    if not _is_match_id(obj.get("match_id")):
        logger.warning(
            "dropped %s: match_id must be a string or null, got %s", topic, short(obj.get("match_id"))
        )
        return False
    return True


class HubLink:
    """The hub's connection to the room (see module doc)."""

    def __init__(
        self,
        event: str,
        host: str,
        port: int,
        *,
        on_status: Callable[[str, dict[str, Any]], None],
        on_state: Callable[[str, dict[str, Any]], None],
        on_event: Callable[[str, dict[str, Any]], None],
        username: str | None = None,
        password: str | None = None,
        client_id: str | None = None,
        keepalive: int = 10,
        backoff: tuple[float, float] = (0.2, 10.0),
        on_online: Callable[[bool], None] | None = None,
        on_state_replayed: Callable[[str, dict[str, Any]], None] | None = None,
        tls: bool = False,
        tls_ca_file: str | None = None,
        on_device: Callable[[str, dict[str, Any]], None] | None = None,
        on_raw_state: Callable[[str, RawState], None] | None = None,
    ) -> None:
        self.topics = Topics(event)
        #: states handed over undecoded (live and replayed alike, told apart by ``replayed``);
        #: ``on_state`` and ``on_state_replayed`` are then not called
        self._on_raw_state = on_raw_state
        #: the fleet's device reports (``table/+/device``); not subscribed without a receiver
        self._on_device = on_device
        #: exact topics outside the tables' ones, e.g. the broker's dynamic-security answers
        self._handlers: dict[str, Callable[[bytes], None]] = {}
        self._on_status = on_status
        self._on_state = on_state
        self._on_event = on_event
        self._on_online = on_online
        #: retained states the broker replays on (re)subscribing: possibly older than the table's
        #: current one (e.g. a broker restored from its persistence file); default: as on_state
        self._on_state_replayed = on_state_replayed
        self.client = MqttClient(
            host,
            port,
            client_id or f"hub-{event}",
            username=username,
            password=password,
            clean_session=False,
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
        for kind in ("status", "state", "evt"):
            self.client.subscribe(self.topics.table_wildcard(kind), qos=1)
        if self._on_device is not None:
            self.client.subscribe(self.topics.table_wildcard("device"), qos=1)
        self.client.start()

    def add_handler(self, topic: str, callback: Callable[[bytes], None]) -> None:
        """Subscribe to one exact ``topic`` and hand its payloads to ``callback`` (network thread).

        One connection per credential (the broker forces the client id to the username), so
        whatever else the hub talks to the broker about goes over this link."""
        self._handlers[topic] = callback
        self.client.subscribe(topic, qos=1)

    def stop(self, timeout: float = 5.0, *, graceful: bool = True) -> None:
        """``hub/status`` offline, then DISCONNECT (the session stays with the broker);
        ``graceful=False`` drops the connection without either (the broker sends the Will)."""
        if graceful and self.online:
            self.client.publish(self.topics.hub_status, self._status(False), qos=1, retain=True)
        self.client.stop(timeout, graceful=graceful)

    @property
    def online(self) -> bool:
        return self.client.connected.is_set()

    def wait_online(self, timeout: float | None = None) -> bool:
        return self.client.wait_connected(timeout)

    def send_assign(self, table: str, assign: dict[str, Any]) -> None:
        """Assign a match to ``table`` (retained: a table that connects later still gets it)."""
        if not isinstance(assign, dict):
            raise TypeError(f"an assignment is a dict, not {type(assign).__name__}")
        self.client.publish(self.topics.table_assign(table), assign, qos=1, retain=True)

    def clear_assign(self, table: str) -> None:
        """Withdraw the retained assignment (a table keeps the match it already has)."""
        self.client.publish(self.topics.table_assign(table), None, qos=1, retain=True)

    def clear_status(self, table: str) -> None:
        """Forget the table's retained status: its device was retired or replaced, and the broker
        dropped it without its Will (Mosquitto's dynamic security does), so the last status kept
        would say online to whoever subscribes next (a restarted hub, a monitor)."""
        self.client.publish(self.topics.table_status(table), None, qos=1, retain=True)

    def send_next(self, table: str, message: dict[str, Any]) -> None:
        """Where the players of ``table``'s finished match go next (docs/protocol.md §3.8).
        Retained: a table that restarts on its result screen shows them again."""
        if not isinstance(message, dict):
            raise TypeError(f"a next message is a dict, not {type(message).__name__}")
        self.client.publish(self.topics.table_next(table), message, qos=1, retain=True)

    def clear_next(self, table: str) -> None:
        """Withdraw the retained "Next:" lines (the result they followed was undone)."""
        self.client.publish(self.topics.table_next(table), None, qos=1, retain=True)

    def send_cmd(self, table: str, cmd: dict[str, Any]) -> None:
        """Send a TD command (PROTOCOL §3.3); the table answers with a ``cmd_done`` event."""
        if not isinstance(cmd, dict):
            raise TypeError(f"a command is a dict, not {type(cmd).__name__}")
        for key in ("id", "type"):
            if not isinstance(cmd.get(key), str) or not cmd[key]:
                raise ValueError(f"a command needs a non-empty string {key!r}: {cmd!r}")
        self.client.publish(self.topics.table_cmd(table), cmd, qos=1, retain=False)

    def request_resync(self, table: str, match_id: str | None, from_seq: int) -> None:
        """Ask ``table`` for its state and its events of ``match_id`` from ``from_seq`` on."""
        if not is_int(from_seq) or from_seq < 0:
            raise ValueError(f"from_seq must be a non-negative integer, not {from_seq!r}")
        payload = {"match_id": match_id, "from_seq": from_seq}
        self.client.publish(self.topics.table_resync(table), payload, qos=1, retain=False)

    def send_control(self, table: str, message: dict[str, Any]) -> None:
        """A fleet message to ``table``'s device (identify, restart, ...; docs/protocol.md §6)."""
        if not isinstance(message, dict) or not isinstance(message.get("action"), str):
            raise ValueError(f"a control message is a dict with an action: {message!r}")
        self.client.publish(self.topics.table_control(table), message, qos=1, retain=False)

    def send_time(self, wall: int) -> None:
        """The hub's time of day on ``hub/time``: each table compares it with its own clock.

        QoS 0 and not retained: a time is worth something only when it is fresh, so a lost one
        waits for the next rather than arriving late, and a table never reads an old one."""
        if not is_int(wall) or wall < 0:
            raise ValueError(f"wall must be epoch milliseconds, not {wall!r}")
        self.client.publish(self.topics.hub_time, {"wall": wall}, qos=0, retain=False)

    def publish_raw(self, topic: str, payload: bytes) -> None:
        """Publish ``payload`` on a topic outside the tables' ones (QoS 1, not retained)."""
        self.client.publish(topic, payload, qos=1, retain=False)

    # ----------------------------------------------------------------- network thread
    def _status(self, online: bool) -> dict[str, Any]:
        return {"online": online, "since_wall": now_wall()}

    def _will(self) -> tuple[str, bytes, int, bool]:
        # The broker sends it later; its since_wall is the last moment the hub was known online.
        return (self.topics.hub_status, encode_json(self._status(False)), 1, True)

    def _on_connect(self) -> None:
        self.client.publish(self.topics.hub_status, self._status(True), qos=1, retain=True)
        self._notify(True)

    def _on_disconnect(self) -> None:
        self._notify(False)

    def _notify(self, online: bool) -> None:
        if self._on_online is not None:
            try:
                self._on_online(online)
            except Exception:
                log.exception("hub: on_online raised")

    def _on_message(self, topic: str, payload: bytes) -> None:
        handler = self._handlers.get(topic)
        if handler is not None:
            try:
                handler(payload)
            except Exception:
                log.exception("hub: the handler of %s raised; the message is dropped", topic[:200])
            return
        parsed = self.topics.parse_table_topic(topic)
        if parsed is None:
            log.warning("dropped a message on unexpected topic %r", topic[:200])
            return
        table, kind = parsed
        if not payload:
            log.debug("retained %s cleared", topic)
            return
        if kind == "state" and self._on_raw_state is not None:
            if len(payload) > MAX_PAYLOAD:  # not held for the loop, even for a moment
                log.warning("dropped %s: payload of %d bytes exceeds %d", topic, len(payload), MAX_PAYLOAD)
                return
            raw = RawState(topic, payload, self.client.last_retained)
            self._call("on_raw_state", self._on_raw_state, table, raw)
            return
        obj = decode_object(topic, payload, log)
        if obj is None:
            return
        if kind == "status":
            self._deliver_status(topic, table, obj)
        elif kind == "state":
            self._deliver_state(topic, table, obj)
        elif kind == "evt":
            self._deliver_event(topic, table, obj)
        elif kind == "device" and self._on_device is not None:
            self._call("on_device", self._on_device, table, obj)

    def _deliver_status(self, topic: str, table: str, obj: dict[str, Any]) -> None:
        if not isinstance(obj.get("online"), bool):
            log.warning("dropped %s: online must be a boolean, got %s", topic, short(obj.get("online")))
            return
        self._call("on_status", self._on_status, table, obj)

    def _deliver_state(self, topic: str, table: str, obj: dict[str, Any]) -> None:
        if not _state_ok(topic, table, obj, log):
            return
        if self.client.last_retained and self._on_state_replayed is not None:
            self._call("on_state_replayed", self._on_state_replayed, table, obj)
            return
        self._call("on_state", self._on_state, table, obj)

    def _deliver_event(self, topic: str, table: str, obj: dict[str, Any]) -> None:
        seq, kind = obj.get("seq"), obj.get("type")
        if not is_int(seq) or seq < 0:
            log.warning("dropped %s: seq must be a non-negative integer, got %s", topic, short(seq))
        elif "match_id" not in obj or not _is_match_id(obj["match_id"]):
            log.warning(
                "dropped %s: match_id must be a string or null, got %s", topic, short(obj.get("match_id"))
            )
        elif not isinstance(kind, str) or not kind:
            log.warning("dropped %s: type must be a non-empty string, got %s", topic, short(kind))
        else:
            self._call("on_event", self._on_event, table, obj)

    def _call(self, name: str, func: Callable[[str, Any], None], table: str, obj: Any) -> None:
        try:
            func(table, obj)
        except Exception:
            log.exception("hub: %s raised for table %s; the message is dropped", name, table)


def _is_match_id(value: object) -> bool:
    return value is None or (isinstance(value, str) and bool(value))
