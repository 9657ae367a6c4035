"""One MQTT connection, owned by one thread, that survives broker restarts and bad callbacks.

API::

    client = MqttClient(host, port, client_id, *, username=None, password=None,
                        clean_session=True, will=None, keepalive=10,
                        on_message: Callable[[str, bytes], None],
                        on_connect: Callable[[], None] | None = None,
                        on_disconnect: Callable[[], None] | None = None,
                        backoff=(0.2, 10.0), connect_timeout=5.0, max_inflight=64,
                        max_backlog=10_000)
    client.start()
    client.subscribe(topic, qos=1)                     # remembered; (re)sent on every connect
    client.publish(topic, payload, qos=1, retain=False, on_ack=None)   # queued, returns at once
    client.connected                                   # threading.Event, set between CONNACK and loss
    client.subscribed                                  # threading.Event, connected and every SUBACK in
    client.wait_connected(timeout) -> bool ; client.wait_subscribed(timeout) -> bool
    client.stop(timeout=5.0, graceful=True)

``payload`` is ``bytes``, ``str`` (UTF-8), a ``dict`` (compact UTF-8 JSON) or ``None`` (empty: clears
a retained message). ``will`` is ``(topic, payload, qos, retain)`` or a callable returning one,
called before every connection attempt so the Will can carry fresh fields. ``on_ack()`` runs once
the broker has acknowledged a QoS 1/2 message (PUBACK/PUBCOMP) — for QoS 0, once it was written to
the socket; it never runs for a message that was still unacknowledged at ``stop()``.

Why it is built this way (the model is Home Assistant's MQTT client):

* **One owner.** paho's ``Client`` is not safe to drive from several threads, so exactly one thread
  creates it and is the only one to touch it; ``publish``/``subscribe`` put work on a
  ``queue.Queue`` and wake that thread through a socket pair. The thread runs its own ``select``
  loop over paho's socket (``loop_read``/``loop_write``/``loop_misc``).
* **Order.** Messages reach paho in the order they were queued. While disconnected, QoS ≥ 1
  messages wait in a backlog (QoS 0 ones are dropped, as QoS 0 means) and are handed to paho only
  after the next CONNACK, *after* paho has re-sent the messages left unacknowledged by the lost
  connection; so a stream of QoS 1 messages from one thread is first delivered in order. The
  user's ``on_connect`` runs after that, too, which is why it is not called from inside paho.
* **Never dies.** Every user callback is guarded: an exception is logged and the loop goes on.
  Anything unexpected in the loop itself drops the connection and reconnects.
* **Reconnect.** Exponential back-off with jitter between ``backoff`` bounds; the delay starts
  again from the minimum once a connection has stayed up for the maximum delay (a client that is
  kicked out right after each connect, e.g. by a duplicate client id, keeps backing off).
  Subscriptions are sent again on every connect, whatever the broker says about the session.

User callbacks run on the network thread: keep them short (hand heavy work to another thread),
or the keepalive suffers. ``on_message`` runs before paho acknowledges a QoS 1 message, so a
receiver that stores what it got before returning loses nothing if it crashes.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import queue
import random
import select
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from drivers.mqtt_topics import encode_json

log = logging.getLogger("drivers.mqtt")
paho_log = logging.getLogger("drivers.mqtt.paho")

Will = tuple[str, bytes, int, bool]
Payload = bytes | bytearray | str | dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class _Publish:
    topic: str
    payload: bytes
    qos: int
    retain: bool
    on_ack: Callable[[], None] | None


@dataclass(frozen=True, slots=True)
class _Subscribe:
    topic: str
    qos: int


def to_bytes(payload: Payload) -> bytes:
    """The wire form of a payload; raises ``TypeError`` in the caller for anything else."""
    if payload is None:
        return b""
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, dict):
        return encode_json(payload)
    raise TypeError(f"payload must be bytes, str, dict or None, not {type(payload).__name__}")


_READABLE = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR | select.POLLNVAL


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


def wait_sockets(
    read: Sequence[_HasFileno], write: Sequence[_HasFileno], timeout: float
) -> tuple[set[int], set[int]]:
    """The file numbers of ``read`` ready to read and of ``write`` ready to write, within ``timeout``.

    ``select.select`` cannot watch a file number above 1,023 (``FD_SETSIZE``): a process holding
    more than about a thousand files — a hub on an embedded broker, a benchmark playing hundreds
    of tables — would fail on every connection past that. poll(2) has no such limit. A hang-up or
    an error counts as readable, so that paho reads the end of the stream and reports the loss.
    """
    poller = select.poll()
    flags: dict[int, int] = {}
    for sock in read:
        flags[sock.fileno()] = flags.get(sock.fileno(), 0) | select.POLLIN | select.POLLPRI
    for sock in write:
        flags[sock.fileno()] = flags.get(sock.fileno(), 0) | select.POLLOUT
    for fd, mask in flags.items():
        poller.register(fd, mask)
    readable: set[int] = set()
    writable: set[int] = set()
    for fd, events in poller.poll(max(0.0, timeout) * 1000):
        if events & _READABLE:
            readable.add(fd)
        if events & select.POLLOUT:
            writable.add(fd)
    return readable, writable


def _check_topic(topic: str, *, wildcards: bool) -> None:
    if not isinstance(topic, str) or not topic or "\x00" in topic or len(topic.encode()) > 65535:
        raise ValueError(f"invalid topic {topic!r}")
    if not wildcards and ("+" in topic or "#" in topic):
        raise ValueError(f"wildcards are not allowed in a publish topic: {topic!r}")


def _check_qos(qos: int) -> None:
    if qos not in (0, 1, 2):
        raise ValueError(f"qos must be 0, 1 or 2, not {qos!r}")


class MqttClient:
    """A reconnecting MQTT 3.1.1 client whose paho object lives on one thread (see module doc)."""

    def __init__(
        self,
        host: str,
        port: int,
        client_id: str,
        *,
        username: str | None = None,
        password: str | None = None,
        clean_session: bool = True,
        will: Will | Callable[[], Will] | None = None,
        keepalive: int = 10,
        on_message: Callable[[str, bytes], None],
        on_connect: Callable[[], None] | None = None,
        on_disconnect: Callable[[], None] | None = None,
        backoff: tuple[float, float] = (0.2, 10.0),
        connect_timeout: float = 5.0,
        max_inflight: int = 64,
        max_backlog: int = 10_000,
        tls_ca_file: str | None = None,
        tls: bool = False,
    ) -> None:
        if not client_id:
            raise ValueError("a client id is required (the broker keeps sessions and Wills by it)")
        lo, hi = backoff
        if not 0 < lo <= hi:
            raise ValueError(f"backoff must be 0 < min <= max, got {backoff!r}")
        self.host = host
        self.port = port
        self.client_id = client_id
        self._username = username
        self._password = password
        self.last_retained = False
        #: TLS to the broker (the broker-config TLS listener); a CA file for a private CA
        self._tls = tls or tls_ca_file is not None
        self._tls_ca_file = tls_ca_file
        self._clean_session = clean_session
        self._will = will
        self._keepalive = keepalive
        self._on_message = on_message
        self._on_connect = on_connect
        self._on_disconnect = on_disconnect
        self._backoff = (float(lo), float(hi))
        self._connect_timeout = connect_timeout
        self._max_inflight = max_inflight
        self._max_backlog = max_backlog

        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self._queue: queue.Queue[_Publish | _Subscribe] = queue.Queue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop_requested = threading.Event()
        self._graceful = True
        self._stop_deadline = 0.0
        self._thread: threading.Thread | None = None
        # Everything below belongs to the network thread.
        self._paho: paho.Client | None = None
        self._subscriptions: dict[str, int] = {}
        self._backlog: collections.deque[_Publish] = collections.deque()
        self._inflight: dict[int, Callable[[], None] | None] = {}
        self._subacks: set[int] = set()
        self._notes: list[str] = []

    # ----------------------------------------------------------------- any thread
    def start(self) -> None:
        """Start the network thread; it connects (and keeps reconnecting) in the background."""
        if self._thread is not None or self._stop_requested.is_set():
            raise RuntimeError("an MqttClient starts once; make a new one to connect again")
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.client_id}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0, *, graceful: bool = True) -> None:
        """Stop the network thread.

        ``graceful``: messages queued before this call are sent, unacknowledged QoS ≥ 1 messages
        get up to half of ``timeout`` to be acknowledged, then a DISCONNECT is sent (the broker
        discards the Will). ``graceful=False`` closes the socket without DISCONNECT, as a power
        cut or a killed process would: the broker publishes the Will.
        """
        self._graceful = graceful
        self._stop_deadline = time.monotonic() + max(timeout, 0.0) / 2
        self._stop_requested.set()
        self._wake()
        thread = self._thread
        if thread is None:
            self._wake_r.close()
            self._wake_w.close()
        elif thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s: network thread still running %.1fs after stop()", self.client_id, timeout)

    def publish(
        self,
        topic: str,
        payload: Payload,
        qos: int = 1,
        retain: bool = False,
        *,
        on_ack: Callable[[], None] | None = None,
    ) -> None:
        """Queue a message for the network thread (never blocks on the network)."""
        _check_topic(topic, wildcards=False)
        _check_qos(qos)
        data = to_bytes(payload)
        if self._stop_requested.is_set():
            log.debug("%s: publish to %s after stop() dropped", self.client_id, topic)
            return
        self._queue.put(_Publish(topic, data, qos, bool(retain), on_ack))
        self._wake()

    def subscribe(self, topic: str, qos: int = 1) -> None:
        """Subscribe now if connected, and again on every future connect."""
        _check_topic(topic, wildcards=True)
        _check_qos(qos)
        self._queue.put(_Subscribe(topic, qos))
        self._wake()

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self.connected.wait(timeout)

    def wait_subscribed(self, timeout: float | None = None) -> bool:
        """Wait until connected with every subscription acknowledged by the broker."""
        return self.subscribed.wait(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (already woken) or closed (thread gone)
            self._wake_w.send(b"\0")

    # ----------------------------------------------------------------- network thread
    def _make_paho(self) -> paho.Client:
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=self._clean_session,
            protocol=paho.MQTTv311,
        )
        # paho reports every lost connection as an error; this module logs those itself.
        client.on_log = lambda _c, _u, _level, text: paho_log.debug("%s: %s", self.client_id, text)
        if self._username is not None:
            client.username_pw_set(self._username, self._password)
        if self._tls:
            client.tls_set(ca_certs=self._tls_ca_file)
        client.connect_timeout = self._connect_timeout
        client.max_inflight_messages_set(self._max_inflight)
        client.on_connect = self._paho_connect
        client.on_disconnect = self._paho_disconnect
        client.on_message = self._paho_message
        client.on_publish = self._paho_publish
        client.on_subscribe = self._paho_subscribe
        return client

    def _run(self) -> None:
        attempt = 0
        try:
            self._paho = self._make_paho()
            while not self._stop_requested.is_set():
                try:
                    up_since = self._session(attempt)
                except Exception:
                    log.exception("%s: connection attempt failed unexpectedly", self.client_id)
                    up_since = None
                if self._stop_requested.is_set():
                    break
                if up_since is not None and time.monotonic() - up_since >= self._backoff[1]:
                    attempt = 0
                lo, hi = self._backoff
                base = min(hi, lo * 2 ** min(attempt, 30))
                attempt += 1
                self._stop_requested.wait(max(lo, random.uniform(base / 2, base)))
        except Exception:
            log.exception("%s: network thread failed", self.client_id)
        finally:
            self.connected.clear()
            self.subscribed.clear()
            if self._paho is not None:
                sock = self._paho.socket()
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.close()
            self._wake_r.close()
            self._wake_w.close()

    def _session(self, attempt: int) -> float | None:
        """One connection, from connect to loss or stop; returns when it came up (or ``None``)."""
        client = self._paho
        assert client is not None
        self._set_will(client)
        try:
            client.connect(self.host, self.port, self._keepalive)
        except (OSError, ValueError) as exc:
            level = logging.WARNING if attempt == 0 else logging.DEBUG
            log.log(level, "%s: cannot reach broker %s:%s: %s", self.client_id, self.host, self.port, exc)
            self._drain_queue(client)
            return None
        up_since: float | None = None
        while True:
            try:
                more = self._drain_queue(client)
                if self._stop_requested.is_set():
                    while self._drain_queue(client):
                        pass
                    self._close(client)
                    self._dispatch_notes(client)
                    return up_since
                sock = client.socket()
                if sock is None:
                    break
                want = [sock] if client.want_write() else []
                readable, writable = wait_sockets([sock, self._wake_r], want, 0.0 if more else 1.0)
                if self._wake_r.fileno() in readable:
                    with contextlib.suppress(OSError):
                        self._wake_r.recv(4096)
                if sock.fileno() in readable:
                    client.loop_read()
                if client.socket() is not None and (writable or client.want_write()):
                    client.loop_write()
                if client.socket() is not None:
                    client.loop_misc()
                if self._dispatch_notes(client):
                    up_since = time.monotonic()
            except Exception:
                log.exception("%s: unexpected error in the network loop; reconnecting", self.client_id)
                self._abort(client)
                self._dispatch_notes(client)
                break
        self._dispatch_notes(client)
        return up_since

    def _set_will(self, client: paho.Client) -> None:
        if self._will is None:
            return
        try:
            will = self._will() if callable(self._will) else self._will
            topic, payload, qos, retain = will
            client.will_set(topic, to_bytes(payload), qos, retain)
        except Exception:
            log.exception("%s: cannot build the Will; connecting with the previous one", self.client_id)

    def _drain_queue(self, client: paho.Client) -> bool:
        """Hand queued work to paho (when connected) or to the backlog; True if some is left.

        Bounded per call so that a flood of publishes cannot starve reading (PUBACKs, PINGRESP).
        """
        for _ in range(1000):
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return False
            if isinstance(item, _Subscribe):
                self._subscriptions[item.topic] = item.qos
                if self.connected.is_set():
                    self._send_subscribe(client, [(item.topic, item.qos)])
            elif self.connected.is_set() and not self._backlog:
                self._send(client, item)
            elif item.qos == 0:
                log.debug("%s: offline, QoS 0 message to %s dropped", self.client_id, item.topic)
            else:
                if len(self._backlog) >= self._max_backlog:
                    dropped = self._backlog.popleft()
                    log.warning(
                        "%s: backlog full, oldest message to %s dropped", self.client_id, dropped.topic
                    )
                self._backlog.append(item)
        return not self._queue.empty()

    def _send(self, client: paho.Client, item: _Publish) -> None:
        info = client.publish(item.topic, item.payload, item.qos, item.retain)
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
            # the only refusal that leaves the message out of paho's store
            log.error("%s: paho's queue refused a message to %s", self.client_id, item.topic)
            return
        if item.qos > 0:
            # Any other outcome (even a connection lost while writing it) leaves the message in
            # paho's store, which sends it again after the next CONNACK.
            self._inflight[info.mid] = item.on_ack
        elif item.on_ack is not None and info.is_published():
            self._guard("on_ack", item.on_ack)
        elif item.on_ack is not None and info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
            self._inflight[info.mid] = item.on_ack  # QoS 0: acknowledged once written

    def _dispatch_notes(self, client: paho.Client) -> bool:
        """Run the connect/disconnect work paho reported; True when a connection came up."""
        came_up = False
        notes, self._notes = self._notes, []
        for note in notes:
            if note == "up":
                came_up = True
                self._subacks.clear()
                self._send_subscribe(client, list(self._subscriptions.items()))
                while self._backlog and client.socket() is not None:
                    self._send(client, self._backlog.popleft())
                self.connected.set()
                if not self._subacks:
                    self.subscribed.set()
                log.info("%s: connected to %s:%s", self.client_id, self.host, self.port)
                if self._on_connect is not None:
                    self._guard("on_connect", self._on_connect)
            else:
                self.connected.clear()
                self.subscribed.clear()
                log.info("%s: disconnected from %s:%s (%s)", self.client_id, self.host, self.port, note)
                if self._on_disconnect is not None:
                    self._guard("on_disconnect", self._on_disconnect)
        return came_up

    def _send_subscribe(self, client: paho.Client, subs: list[tuple[str, int]]) -> None:
        if not subs:
            return
        self.subscribed.clear()
        rc, mid = client.subscribe(subs)
        if rc == MQTTErrorCode.MQTT_ERR_SUCCESS and mid is not None:
            self._subacks.add(mid)

    def _close(self, client: paho.Client) -> None:
        """End the connection for stop(): gracefully (acks, DISCONNECT) or abruptly."""
        if not self._graceful:
            self._abort(client)
            return
        if self.connected.is_set():
            while self._pending_acks() and time.monotonic() < self._stop_deadline:
                sock = client.socket()
                if sock is None:
                    break
                want = [sock] if client.want_write() else []
                readable, _ = wait_sockets([sock], want, 0.05)
                if readable:
                    client.loop_read()
                if client.socket() is not None:
                    client.loop_write()
        if client.socket() is not None:
            client.disconnect()
            while (sock := client.socket()) is not None and client.want_write():
                if time.monotonic() > self._stop_deadline + 1.0:
                    break
                wait_sockets([], [sock], 0.05)
                client.loop_write()
        self._abort(client)

    def _pending_acks(self) -> bool:
        return bool(self._inflight) or bool(self._backlog)

    def _abort(self, client: paho.Client) -> None:
        """Drop the connection without a DISCONNECT packet (the broker then sends the Will).

        The socket is shut down rather than closed so that paho reads the end of the stream and
        cleans up after itself, reporting the loss like any other.
        """
        sock = client.socket()
        if sock is None:
            return
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # type: ignore[attr-defined]
        for _ in range(10_000):
            if client.socket() is None:
                return
            client.loop_read()
        log.error("%s: paho kept a dead socket; closing it", self.client_id)
        with contextlib.suppress(OSError):
            sock.close()
        client._sock = None
        self._paho_disconnect(client, None, None, "aborted", None)

    # ----------------------------------------------------------------- paho callbacks
    def _paho_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("%s: broker refused the connection: %s", self.client_id, reason)
            return
        self._notes.append("up")

    def _paho_disconnect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        was_up = self.connected.is_set() or "up" in self._notes
        self.connected.clear()
        self.subscribed.clear()
        if was_up:
            self._notes.append(str(reason))

    def _paho_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        try:
            topic = message.topic
        except UnicodeDecodeError:
            log.warning("%s: dropped a message whose topic is not UTF-8", self.client_id)
            return
        # Set before the callback, on the one thread that calls it: lets a caller tell a retained
        # message replayed by the broker (flag set for a new subscription) from a live publish.
        self.last_retained = bool(message.retain)
        self._guard("on_message", self._on_message, topic, bytes(message.payload))

    def _paho_publish(self, client: paho.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        if mid not in self._inflight:
            return
        on_ack = self._inflight.pop(mid)
        if getattr(reason, "is_failure", False):
            log.warning("%s: broker did not accept message %d: %s", self.client_id, mid, reason)
            return
        if on_ack is not None:
            self._guard("on_ack", on_ack)

    def _paho_subscribe(self, client: paho.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        for code in codes or ():
            if getattr(code, "is_failure", False):
                log.warning("%s: the broker refused a subscription: %s", self.client_id, code)
        self._subacks.discard(mid)
        if not self._subacks and self.connected.is_set():
            self.subscribed.set()

    def _guard(self, name: str, func: Callable[..., Any], *args: Any) -> None:
        try:
            func(*args)
        except Exception:
            log.exception("%s: %s callback raised; ignored", self.client_id, name)
