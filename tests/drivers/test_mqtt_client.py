"""MqttClient against a real mosquitto: delivery, acks, guarded callbacks, reconnect, Will, stop."""

from __future__ import annotations

import itertools
import json
import logging
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Iterator

import pytest

from drivers.mqtt_client import MqttClient
from tests.support.broker import Mosquitto
from tests.support.patience import patience

WAIT = patience(10.0)
FAST = (0.05, 0.5)
_ids = itertools.count()
_DIRS: list[str] = []


def _tmpdir(prefix: str) -> str:
    """A temp dir removed after the test (brokers and outboxes of these tests live there)."""
    path = tempfile.mkdtemp(prefix=prefix)
    _DIRS.append(path)
    return path


@pytest.fixture(autouse=True)
def _remove_temp_dirs() -> Iterator[None]:
    yield
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def uid(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}-{threading.get_ident() % 10000}"


class Inbox:
    """A subscriber that puts every (topic, payload) it receives on a queue."""

    def __init__(self) -> None:
        self.q: queue.Queue[tuple[str, bytes]] = queue.Queue()

    def __call__(self, topic: str, payload: bytes) -> None:
        self.q.put((topic, payload))

    def get(self, timeout: float = WAIT) -> tuple[str, bytes]:
        return self.q.get(timeout=timeout)

    def payloads(self, n: int) -> list[bytes]:
        return [self.get()[1] for _ in range(n)]


@pytest.fixture
def clients() -> Iterator[list[MqttClient]]:
    made: list[MqttClient] = []
    yield made
    for c in made:
        c.stop(2.0)


def make(broker, made: list[MqttClient], on_message=None, **kw) -> MqttClient:
    kw.setdefault("backoff", FAST)
    c = MqttClient(
        broker.host, broker.port, kw.pop("client_id", uid("c")), on_message=on_message or Inbox(), **kw
    )
    made.append(c)
    return c


def test_publish_subscribe_roundtrip_with_json_and_ack(mosquitto, clients):
    topic = f"t/{uid('rt')}/x"
    inbox = Inbox()
    sub = make(mosquitto, clients, inbox)
    sub.subscribe(topic, qos=1)
    sub.start()
    assert sub.wait_subscribed(WAIT)
    pub = make(mosquitto, clients)
    pub.start()
    acked = threading.Event()
    pub.publish(topic, {"n": 1, "name": "Zoë"}, qos=1, on_ack=acked.set)
    pub.publish(topic, "text")
    pub.publish(topic, b"\x00\x01")
    assert acked.wait(WAIT)
    got = inbox.payloads(3)
    assert json.loads(got[0]) == {"n": 1, "name": "Zoë"}
    assert got[1:] == [b"text", b"\x00\x01"]


def test_publish_validates_in_the_callers_thread(mosquitto, clients):
    c = make(mosquitto, clients)
    with pytest.raises(ValueError):
        c.publish("a/+/b", b"x")
    with pytest.raises(ValueError):
        c.publish("", b"x")
    with pytest.raises(ValueError):
        c.publish("a/b", b"x", qos=3)
    with pytest.raises(TypeError):
        c.publish("a/b", {"x": object()})
    with pytest.raises(TypeError):
        c.publish("a/b", 12)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        c.subscribe("a/b", qos=-1)


def test_exceptions_in_callbacks_do_not_kill_the_loop(mosquitto, clients, caplog):
    topic = f"t/{uid('boom')}"
    got: queue.Queue[bytes] = queue.Queue()

    def on_message(t: str, payload: bytes) -> None:
        if payload == b"bad":
            raise RuntimeError("handler bug")
        got.put(payload)

    def on_connect() -> None:
        raise RuntimeError("connect handler bug")

    sub = make(mosquitto, clients, on_message, on_connect=on_connect)
    sub.subscribe(topic)
    sub.start()
    assert sub.wait_subscribed(WAIT)
    pub = make(mosquitto, clients)
    pub.start()
    acked = threading.Event()

    def bad_ack() -> None:
        raise RuntimeError("ack handler bug")

    pub.publish(topic, b"bad", on_ack=bad_ack)
    pub.publish(topic, b"good", on_ack=acked.set)
    assert got.get(timeout=WAIT) == b"good"
    assert acked.wait(WAIT)
    assert sub.running and pub.running and sub.connected.is_set()
    messages = [r.getMessage() for r in caplog.records]
    assert any("on_message callback raised" in m for m in messages)
    assert any("on_connect callback raised" in m for m in messages)
    assert any("on_ack callback raised" in m for m in messages)


def test_reconnects_and_resubscribes_after_a_broker_restart(own_mosquitto, clients):
    topic = f"t/{uid('re')}"
    inbox = Inbox()
    ups: queue.Queue[str] = queue.Queue()
    downs: queue.Queue[str] = queue.Queue()
    sub = make(
        own_mosquitto,
        clients,
        inbox,
        on_connect=lambda: ups.put("sub"),
        on_disconnect=lambda: downs.put("sub"),
    )
    sub.subscribe(topic)
    pub = make(
        own_mosquitto, clients, on_connect=lambda: ups.put("pub"), on_disconnect=lambda: downs.put("pub")
    )
    sub.start()
    pub.start()
    assert sorted([ups.get(timeout=WAIT), ups.get(timeout=WAIT)]) == ["pub", "sub"]

    own_mosquitto.stop()  # not persistent: the subscription is gone with it
    assert sorted([downs.get(timeout=WAIT), downs.get(timeout=WAIT)]) == ["pub", "sub"]
    assert not pub.connected.is_set() and not sub.connected.is_set()
    pub.publish(topic, b"qos0-while-offline", qos=0)  # QoS 0 means: dropped when offline
    own_mosquitto.start()
    assert sorted([ups.get(timeout=WAIT), ups.get(timeout=WAIT)]) == ["pub", "sub"]
    assert sub.wait_subscribed(WAIT)  # subscribed again on a broker that had forgotten it
    pub.publish(topic, b"after", qos=1)
    assert inbox.get() == (topic, b"after")
    with pytest.raises(queue.Empty):
        inbox.q.get_nowait()


def persistent_broker() -> Mosquitto:
    """A broker that keeps sessions across a restart (as a room's broker should)."""
    pdir = _tmpdir(prefix="mosq-persist-")
    os.chmod(pdir, 0o777)  # the broker drops root privileges before writing its database
    conf = f"allow_anonymous true\npersistence true\npersistence_location {pdir}/\n"
    return Mosquitto(extra_conf=conf)


def test_messages_queued_while_offline_go_out_in_order_exactly_once(clients):
    broker = persistent_broker().start()
    try:
        topic = f"t/{uid('bl')}"
        inbox = Inbox()
        sub = make(broker, clients, inbox, client_id=uid("persistent"), clean_session=False)
        sub.subscribe(topic)
        sub.start()
        down = threading.Event()
        pub = make(broker, clients, on_disconnect=down.set)
        pub.start()
        assert sub.wait_subscribed(WAIT) and pub.wait_connected(WAIT)
        pub.publish(topic, b"before")
        assert inbox.get()[1] == b"before"

        broker.stop()
        assert down.wait(WAIT)
        acks: queue.Queue[int] = queue.Queue()
        for i in range(50):
            pub.publish(topic, str(i).encode(), on_ack=lambda i=i: acks.put(i))
        broker.start()
        assert [acks.get(timeout=WAIT) for _ in range(50)] == list(range(50))
        pub.publish(topic, b"end")
        received = []
        while not received or received[-1] != b"end":
            received.append(inbox.get()[1])
        assert received[:-1] == [str(i).encode() for i in range(50)]
    finally:
        for c in clients:
            c.stop(2.0)
        broker.stop()


def test_persistent_session_gets_what_was_published_while_away(mosquitto, clients):
    topic = f"t/{uid('away')}"
    inbox = Inbox()
    sub = make(mosquitto, clients, inbox, client_id=uid("persistent"), clean_session=False)
    sub.subscribe(topic)
    sub.start()
    pub = make(mosquitto, clients)
    pub.start()
    assert sub.wait_subscribed(WAIT) and pub.wait_connected(WAIT)
    pub.publish(topic, b"before")
    assert inbox.get()[1] == b"before"

    sub.stop(WAIT)  # the session stays with the broker, which queues for it
    acks: queue.Queue[int] = queue.Queue()
    for i in range(50):
        pub.publish(topic, str(i).encode(), on_ack=lambda i=i: acks.put(i))
    assert [acks.get(timeout=WAIT) for _ in range(50)] == list(range(50))

    sub2 = make(mosquitto, clients, inbox, client_id=sub.client_id, clean_session=False)
    sub2.subscribe(topic)
    sub2.start()
    assert [int(p) for p in inbox.payloads(50)] == list(range(50))


def test_will_is_sent_on_abrupt_close_not_on_graceful_stop(mosquitto, clients):
    will_topic = f"t/{uid('will')}/status"
    inbox = Inbox()
    watch = make(mosquitto, clients, inbox)
    watch.subscribe(will_topic)
    watch.start()
    assert watch.wait_subscribed(WAIT)

    calls = itertools.count(1)

    def will() -> tuple[str, bytes, int, bool]:
        return (will_topic, json.dumps({"online": False, "n": next(calls)}).encode(), 1, False)

    polite = make(mosquitto, clients, will=will)
    polite.start()
    assert polite.wait_connected(WAIT)
    polite.stop(WAIT)  # DISCONNECT: the broker discards the Will
    rude = make(mosquitto, clients, will=will)
    rude.start()
    assert rude.wait_connected(WAIT)
    rude.stop(WAIT, graceful=False)  # socket closed without DISCONNECT
    topic, payload = inbox.get()
    assert topic == will_topic
    # The first Will (n=1) belonged to the polite client and was never sent.
    assert json.loads(payload) == {"online": False, "n": 2}
    with pytest.raises(queue.Empty):
        inbox.q.get_nowait()


def test_graceful_stop_waits_for_acks(mosquitto, clients):
    topic = f"t/{uid('drain')}"
    inbox = Inbox()
    sub = make(mosquitto, clients, inbox)
    sub.subscribe(topic)
    sub.start()
    assert sub.wait_subscribed(WAIT)
    pub = make(mosquitto, clients)
    pub.start()
    assert pub.wait_connected(WAIT)
    acks: list[int] = []
    for i in range(200):
        pub.publish(topic, str(i).encode(), on_ack=lambda i=i: acks.append(i))
    pub.stop(WAIT)
    assert acks == list(range(200))
    assert [int(p) for p in inbox.payloads(200)] == list(range(200))


def test_refused_connection_keeps_retrying_without_crashing(clients, caplog):
    broker = Mosquitto(extra_conf="allow_anonymous false\n").start()
    try:
        refused = threading.Event()

        class Spot(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if "refused" in record.getMessage():
                    refused.set()

        handler = Spot()
        logging.getLogger("drivers.mqtt").addHandler(handler)
        try:
            c = make(broker, clients)
            c.start()
            assert refused.wait(WAIT)
            refused.clear()
            assert refused.wait(WAIT)  # tried again after the back-off
            assert c.running and not c.connected.is_set()
        finally:
            logging.getLogger("drivers.mqtt").removeHandler(handler)
    finally:
        broker.stop()


def test_connects_later_when_the_broker_appears(clients):
    broker = Mosquitto()  # not started yet: the client starts against a closed port
    c = make(broker, clients)
    topic = f"t/{uid('late')}"
    inbox = Inbox()
    c2 = make(broker, clients, inbox)
    c2.subscribe(topic)
    c.start()
    c2.start()
    try:
        broker.start()
        assert c.wait_connected(WAIT) and c2.wait_subscribed(WAIT)
        c.publish(topic, b"hello")
        assert inbox.get() == (topic, b"hello")
    finally:
        c.stop(2.0)
        c2.stop(2.0)
        broker.stop()


def test_works_with_file_numbers_above_select_limit(mosquitto, clients):
    """A process holding over a thousand files (a hub on its embedded broker, hundreds of tables
    in one process) gets connections numbered above 1,023, which ``select`` cannot watch."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1_400
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    fillers: list[int] = []
    try:
        while True:
            fd = os.open(os.devnull, os.O_RDONLY)
            fillers.append(fd)
            if fd > 1_100:
                break
        topic = f"t/{uid('high')}"
        inbox = Inbox()
        sub = make(mosquitto, clients, inbox)
        sub.subscribe(topic, qos=1)
        sub.start()
        pub = make(mosquitto, clients)
        pub.start()
        assert sub.wait_subscribed(WAIT) and pub.wait_connected(WAIT)
        acked = threading.Event()
        pub.publish(topic, b"high", qos=1, on_ack=acked.set)
        assert acked.wait(WAIT)
        assert inbox.get() == (topic, b"high")
        assert pub._wake_r.fileno() > 1_023  # the test did what it says
        pub.stop(2.0)
        assert not pub.running
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
