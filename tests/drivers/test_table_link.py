"""TableLink against a real mosquitto, with the real HubLink or a plain client on the other side."""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.hub_link import HubLink, SeqTracker
from drivers.mqtt_client import MqttClient
from drivers.mqtt_topics import Topics
from drivers.outbox import Outbox
from drivers.table_link import TableLink
from tests.support.broker import Mosquitto
from tests.support.patience import patience

WAIT = patience(10.0)
FAST = (0.05, 0.5)
REPO = Path(__file__).resolve().parents[2]
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


def uid(prefix: str = "ev") -> str:
    return f"{prefix}{next(_ids)}x{os.getpid()}"


class Watch:
    """A plain client that records every message on some topics, in arrival order."""

    def __init__(self, broker, *topics: str) -> None:
        self.q: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.client = MqttClient(broker.host, broker.port, uid("watch"), on_message=self._got, backoff=FAST)
        for t in topics:
            self.client.subscribe(t)
        self.client.start()
        assert self.client.wait_subscribed(WAIT)

    def _got(self, topic: str, payload: bytes) -> None:
        self.q.put((topic, payload))

    def next(self, topic: str | None = None) -> Any:
        """The next JSON message (on ``topic`` if given; others are skipped)."""
        while True:
            t, p = self.q.get(timeout=WAIT)
            if topic is None or t == topic:
                return json.loads(p) if p else None

    def until(self, topic: str, pred: Callable[[Any], bool]) -> Any:
        while True:
            msg = self.next(topic)
            if pred(msg):
                return msg

    def stop(self) -> None:
        self.client.stop(2.0)


class Hub:
    """A HubLink whose callbacks feed queues."""

    def __init__(self, broker, event: str, **kw: Any) -> None:
        self.status: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.state: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.events: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.link = HubLink(
            event,
            broker.host,
            broker.port,
            on_status=lambda t, p: self.status.put((t, p)),
            on_state=lambda t, p: self.state.put((t, p)),
            on_event=lambda t, p: self.events.put((t, p)),
            backoff=FAST,
            **kw,
        )
        self.link.start()
        assert self.link.client.wait_subscribed(WAIT)

    def next_events(self, n: int) -> list[dict]:
        return [self.events.get(timeout=WAIT)[1] for _ in range(n)]


class Table:
    """A TableLink with its outbox in a temp dir and callbacks feeding queues."""

    def __init__(self, broker, event: str, table: str = "12", outbox_path: str | None = None, **kw: Any):
        self.assigns: queue.Queue[dict] = queue.Queue()
        self.cmds: queue.Queue[dict] = queue.Queue()
        self.online_changes: queue.Queue[bool] = queue.Queue()
        self.state: dict[str, Any] = {"table": table, "match_id": None, "seq": 0, "n": 0}
        self.provided = itertools.count(1)
        path = outbox_path or os.path.join(_tmpdir(prefix="outbox-"), "outbox.db")
        self.outbox = Outbox(path)
        kw.setdefault("on_assign", self.assigns.put)
        kw.setdefault("on_cmd", self.cmds.put)
        kw.setdefault("state_provider", self.provide)
        self.link = TableLink(
            event,
            table,
            broker.host,
            broker.port,
            outbox=self.outbox,
            on_online=self.online_changes.put,
            backoff=FAST,
            **kw,
        )

    def provide(self) -> dict[str, Any]:
        return {**self.state, "n": next(self.provided)}

    def start(self) -> Table:
        self.link.start()
        assert self.link.client.wait_subscribed(WAIT)
        return self

    def wait_offline(self) -> None:
        while self.online_changes.get(timeout=WAIT):
            pass


@pytest.fixture
def stack() -> Iterator[list[Any]]:
    """Everything a test starts, stopped at the end whatever happens."""
    things: list[Any] = []
    yield things
    for thing in reversed(things):
        link = getattr(thing, "link", None)
        if link is not None:
            link.stop(2.0)
        elif isinstance(thing, Watch):
            thing.stop()


def persistent_broker() -> Mosquitto:
    """A broker that keeps the hub's session across a restart, as a room's broker should."""
    pdir = _tmpdir(prefix="mosq-persist-")
    os.chmod(pdir, 0o777)  # the broker drops root privileges before writing its database
    return Mosquitto(extra_conf=f"allow_anonymous true\npersistence true\npersistence_location {pdir}/\n")


def ev(seq: int, match_id: str | None = "m1", kind: str = "press") -> dict:
    return {"seq": seq, "match_id": match_id, "type": kind, "wall": 1_795_000_000_000 + seq, "side": "A"}


# --------------------------------------------------------------------------- presence and state
def test_status_and_state_are_retained_on_connect(mosquitto, stack):
    event = uid()
    t = Topics(event)
    table = Table(mosquitto, event, version="9.9", boot_id="boot-1").start()
    stack.append(table)
    # A watcher that arrives later still gets both (retained).
    late = Watch(mosquitto, t.table_status("12"), t.table_state("12"))
    stack.append(late)
    status = late.next(t.table_status("12"))
    assert status["online"] is True and status["boot_id"] == "boot-1" and status["version"] == "9.9"
    assert isinstance(status["wall"], int) and status["wall"] > 1_700_000_000_000
    state = late.next(t.table_state("12"))
    assert state["table"] == "12" and state["n"] >= 1


def test_graceful_stop_publishes_offline(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Watch(mosquitto, t.table_status("7"))
    stack.append(watch)
    table = Table(mosquitto, event, table="7", boot_id="b7").start()
    assert watch.next()["online"] is True
    table.link.stop(WAIT)
    offline = watch.next()
    assert offline["online"] is False and offline["boot_id"] == "b7"
    assert offline["version"] == table.link.version and isinstance(offline["wall"], int)


def test_dropped_connection_publishes_the_will(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Watch(mosquitto, t.table_status("8"))
    stack.append(watch)
    table = Table(mosquitto, event, table="8", boot_id="b8").start()
    assert watch.next()["online"] is True
    table.link.stop(WAIT, graceful=False)  # like a power cut: no DISCONNECT
    offline = watch.next()
    assert offline["online"] is False and offline["boot_id"] == "b8"


_KILLED_TABLE = """
import sys, threading
from drivers.outbox import Outbox
from drivers.table_link import TableLink
host, port, event, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
link = TableLink(event, "9", host, port, outbox=Outbox(path), state_provider=lambda: {"table": "9"},
                 on_assign=print, on_cmd=print, boot_id="doomed")
link.start()
assert link.wait_online(10)
print("online", flush=True)
threading.Event().wait()
"""


def test_killed_table_process_goes_offline_through_its_will(mosquitto, stack, tmp_path):
    event = uid()
    t = Topics(event)
    watch = Watch(mosquitto, t.table_status("9"))
    stack.append(watch)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _KILLED_TABLE,
            mosquitto.host,
            str(mosquitto.port),
            event,
            str(tmp_path / "o.db"),
        ],
        stdout=subprocess.PIPE,
        cwd=REPO,
        text=True,
    )
    try:
        online = watch.next()
        assert online["online"] is True and online["boot_id"] == "doomed"
        proc.kill()  # SIGKILL: the kernel closes the socket, no DISCONNECT is ever sent
        proc.wait(WAIT)
        offline = watch.next()
        assert offline["online"] is False and offline["boot_id"] == "doomed"
    finally:
        proc.kill()
        proc.wait(WAIT)
    # retained: whoever looks now sees the table offline
    late = Watch(mosquitto, t.table_status("9"))
    stack.append(late)
    assert late.next()["online"] is False


def test_state_is_republished_when_the_hub_comes_online(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Watch(mosquitto, t.table_state("12"), t.table_status("12"))
    stack.append(watch)
    table = Table(mosquitto, event).start()
    stack.append(table)
    first = watch.next(t.table_state("12"))["n"]
    hub = Hub(mosquitto, event)
    stack.append(hub)
    # the hub's arrival makes the table call state_provider() again and publish the result
    again = watch.until(t.table_state("12"), lambda s: s["n"] > first)
    assert again["table"] == "12"
    table.state["phase"] = "playing"
    table.link.publish_state({**table.state, "n": 1000})
    assert watch.until(t.table_state("12"), lambda s: s["n"] == 1000)["phase"] == "playing"
    # and the hub itself got status and state
    assert hub.status.get(timeout=WAIT)[1]["online"] is True
    assert hub.state.get(timeout=WAIT)[0] == "12"


def test_latest_state_wins(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Watch(mosquitto, t.table_state("12"))
    stack.append(watch)
    table = Table(mosquitto, event).start()
    for i in range(1, 201):
        table.link.publish_state({"table": "12", "n": 10_000 + i})
    seen = [watch.until(t.table_state("12"), lambda s: s["n"] > 10_000)["n"]]
    while seen[-1] != 10_200:
        seen.append(watch.next()["n"])
    assert seen == sorted(seen)  # never an older snapshot after a newer one
    table.link.stop(WAIT)
    late = Watch(mosquitto, t.table_state("12"))
    stack.append(late)
    assert late.next()["n"] == 10_200


# --------------------------------------------------------------------------- hub → table
def test_assign_is_retained_for_a_table_that_connects_later(mosquitto, stack):
    event = uid()
    hub = Hub(mosquitto, event)
    stack.append(hub)
    assign = {
        "match_id": "r1-t5",
        "length": 7,
        "players": {"A": {"name": "Ann", "id": "1"}},
        "profile": "wbgf-2023",
    }
    hub.link.send_assign("5", assign)
    hub.link.stop(WAIT)  # waits for the broker's PUBACK: the assignment is stored
    table = Table(mosquitto, event, table="5").start()
    stack.append(table)
    assert table.assigns.get(timeout=WAIT) == assign


def test_clear_assign_removes_the_retained_assignment(mosquitto, stack):
    event = uid()
    t = Topics(event)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    hub.link.send_assign("6", {"match_id": "r1-t6", "length": 5})
    hub.link.clear_assign("6")
    marker = f"{t.base}/test/marker"
    hub.link.client.publish(marker, b"{}", retain=True)
    hub.link.stop(WAIT)
    # Retained messages come back in the order of the subscriptions: if an assignment were
    # still retained it would arrive before the marker.
    got: queue.Queue[str] = queue.Queue()
    watch = MqttClient(mosquitto.host, mosquitto.port, uid("w"), on_message=lambda tp, p: got.put(tp))
    watch.subscribe(t.table_assign("6"))
    watch.start()
    assert watch.wait_subscribed(WAIT)
    watch.subscribe(marker)
    try:
        assert got.get(timeout=WAIT) == marker
    finally:
        watch.stop(2.0)


def test_commands_are_delivered_and_a_failing_handler_does_not_stop_the_next(mosquitto, stack, caplog):
    event = uid()
    received: queue.Queue[dict] = queue.Queue()

    def on_cmd(cmd: dict) -> None:
        received.put(cmd)
        if cmd["id"] == "c1":
            raise RuntimeError("controller bug")

    table = Table(mosquitto, event, on_cmd=on_cmd).start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    c1 = {"id": "c1", "type": "pause", "reason": "td", "expires_wall": 1_795_000_060_000}
    c2 = {"id": "c2", "type": "penalty", "against": "A", "points": 1, "reason": "late"}
    hub.link.send_cmd("12", c1)
    hub.link.send_cmd("12", c2)
    assert received.get(timeout=WAIT) == c1
    assert received.get(timeout=WAIT) == c2
    assert any("on_cmd raised" in r.getMessage() for r in caplog.records)
    assert table.link.online


def test_a_command_handler_may_answer_from_the_network_thread(mosquitto, stack):
    """The kiosk journals a command and publishes its cmd_done event right inside on_cmd."""
    event = uid()
    box: list[Table] = []

    def on_cmd(cmd: dict) -> None:
        table = box[0]
        table.link.publish_event(
            {"seq": 1, "match_id": "m1", "type": "cmd_done", "id": cmd["id"], "ok": True}
        )
        table.link.publish_state({"table": "12", "n": 500, "last_cmd": cmd["id"]})

    table = Table(mosquitto, event, on_cmd=on_cmd)
    box.append(table)
    table.start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    hub.link.send_cmd("12", {"id": "c9", "type": "td_ack"})
    assert hub.events.get(timeout=WAIT)[1] == {
        "seq": 1,
        "match_id": "m1",
        "type": "cmd_done",
        "id": "c9",
        "ok": True,
    }
    while (state := hub.state.get(timeout=WAIT)[1]).get("n") != 500:
        pass
    assert state["last_cmd"] == "c9"


# --------------------------------------------------------------------------- events
def test_events_are_delivered_in_order(mosquitto, stack):
    event = uid()
    hub = Hub(mosquitto, event)
    stack.append(hub)
    table = Table(mosquitto, event).start()
    stack.append(table)
    for i in range(1, 101):
        table.link.publish_event(ev(i))
    got = hub.next_events(100)
    assert [e["seq"] for e in got] == list(range(1, 101))
    assert got[0] == ev(1)
    assert table.link.wait_drained(WAIT)
    assert table.outbox.pending_count() == 0


def test_events_made_while_the_broker_is_down_arrive_once_in_order_after(stack):
    broker = persistent_broker().start()
    try:
        event = uid()
        hub = Hub(broker, event)
        stack.append(hub)
        table = Table(broker, event).start()
        stack.append(table)
        assert table.online_changes.get(timeout=WAIT) is True

        broker.stop()
        table.wait_offline()
        for i in range(2, 32):
            table.link.publish_event(ev(i))
        assert table.outbox.pending_count() == 30  # stored, not sent
        broker.start()
        assert table.link.wait_drained(WAIT)
        table.link.publish_event(ev(32, kind="marker"))
        got = []
        while not got or got[-1]["type"] != "marker":
            got.append(hub.events.get(timeout=WAIT)[1])
        assert [e["seq"] for e in got] == list(range(2, 33))  # each once, in order
    finally:
        for thing in reversed(stack):
            thing.link.stop(2.0)
        stack.clear()
        broker.stop()


def test_an_outage_in_the_middle_of_a_stream_loses_nothing(stack):
    """Events in flight when the broker goes away (sent, not acknowledged) are sent again; with
    the hub's dedupe (SeqTracker) every event is new exactly once, first seen in order."""
    broker = persistent_broker().start()
    try:
        event = uid()
        hub = Hub(broker, event)
        stack.append(hub)
        table = Table(broker, event).start()
        stack.append(table)
        for i in range(1, 301):
            table.link.publish_event(ev(i))
            if i == 150:
                broker.stop()  # whatever is in flight now is cut off
        table.wait_offline()
        broker.start()
        assert table.link.wait_drained(WAIT)
        table.link.publish_event(ev(301, kind="marker"))
        tracker = SeqTracker()
        first_seen: list[int] = []
        while not first_seen or first_seen[-1] != 301:
            evt = hub.events.get(timeout=WAIT)[1]
            kind, missing = tracker.accept("12", evt["match_id"], evt["seq"])
            assert kind != "gap", missing
            if kind == "new":
                first_seen.append(evt["seq"])
        assert first_seen == list(range(1, 302))
    finally:
        for thing in reversed(stack):
            thing.link.stop(2.0)
        stack.clear()
        broker.stop()


def test_events_left_unacknowledged_by_a_previous_run_are_sent_at_start(mosquitto, stack, tmp_path):
    """A crash between sending and PUBACK: the rows are still pending and go out again."""
    event = uid()
    path = str(tmp_path / "outbox.db")
    with Outbox(path) as previous_run:
        rows = [previous_run.put(ev(i)) for i in range(1, 6)]
        previous_run.mark_sent(rows[0])  # acknowledged before the crash
    hub = Hub(mosquitto, event)
    stack.append(hub)
    table = Table(mosquitto, event, outbox_path=path).start()
    stack.append(table)
    assert [e["seq"] for e in hub.next_events(4)] == [2, 3, 4, 5]
    assert table.link.wait_drained(WAIT)


def test_resync_resends_state_and_the_events_of_the_match(mosquitto, stack):
    event = uid()
    hub = Hub(mosquitto, event)
    stack.append(hub)
    table = Table(mosquitto, event).start()
    stack.append(table)
    for i in range(1, 4):
        table.link.publish_event(ev(i, "other"))
    for i in range(1, 6):
        table.link.publish_event(ev(i))
    assert len(hub.next_events(8)) == 8
    assert table.link.wait_drained(WAIT)
    while not hub.state.empty():
        hub.state.get_nowait()
    hub.link.request_resync("12", "m1", 3)
    assert [(e["match_id"], e["seq"]) for e in hub.next_events(3)] == [("m1", 3), ("m1", 4), ("m1", 5)]
    assert hub.state.get(timeout=WAIT)[1]["table"] == "12"


def test_no_deadlock_with_an_application_lock(mosquitto, stack):
    """The application holds its own lock while publishing, and its state_provider takes the
    same lock; announces (here: resync requests) must not deadlock against it."""
    event = uid()
    app_lock = threading.Lock()

    def provide() -> dict:
        with app_lock:
            return {"table": "12", "n": 0}

    table = Table(mosquitto, event, state_provider=provide).start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    done = threading.Event()

    def application() -> None:
        for i in range(1, 201):
            with app_lock:
                table.link.publish_event(ev(i))
        done.set()

    worker = threading.Thread(target=application, daemon=True)
    worker.start()
    for _ in range(20):
        hub.link.request_resync("12", "m1", 1)
    assert done.wait(WAIT * 3)
    seen = SeqTracker()
    new = 0
    while new < 200:
        evt = hub.events.get(timeout=WAIT)[1]
        new += seen.accept("12", "m1", evt["seq"]).kind != "duplicate"


# --------------------------------------------------------------------------- bad input
BAD_PAYLOADS: list[bytes] = [
    b"not json",
    b"[1, 2, 3]",
    b'"a string"',
    b"\xff\xfe\x00garbage",
    b'{"unterminated": ',
    b"{" * 100_000 + b"}" * 100_000,  # deep nesting
    json.dumps({"pad": "x" * 300_000}).encode(),  # huge
]


def test_malformed_payloads_on_every_table_topic_are_dropped(mosquitto, stack, caplog):
    event = uid()
    t = Topics(event)
    table = Table(mosquitto, event).start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    attacker = MqttClient(mosquitto.host, mosquitto.port, uid("bad"), on_message=lambda *_: None)
    attacker.start()
    assert attacker.wait_connected(WAIT)
    wrong_types = {
        t.table_assign("12"): [{"match_id": 5}, {"match_id": ""}, {"length": 7}],
        t.table_cmd("12"): [{"id": 1, "type": "pause"}, {"id": "x"}, {"id": "y", "type": ["pause"]}],
        t.hub_status: [{"online": "yes"}, {"since_wall": 1}],
        t.table_resync("12"): [
            {"match_id": "m1", "from_seq": -1},
            {"match_id": "m1", "from_seq": "3"},
            {"match_id": 7, "from_seq": 1},
            {"from_seq": 1},
            {"match_id": "m1", "from_seq": True},
        ],
    }
    try:
        count = 0
        for topic, bad in wrong_types.items():
            for payload in BAD_PAYLOADS:
                attacker.publish(topic, payload)
                count += 1
            for obj in bad:
                attacker.publish(topic, obj)
                count += 1
        good_assign = {"match_id": "r2-t12", "length": 3}
        good_cmd = {"id": "ok-1", "type": "resume"}
        attacker.publish(t.table_assign("12"), good_assign)
        attacker.publish(t.table_cmd("12"), good_cmd)
        # messages from one client on the same topic arrive in order: once the good ones are
        # here, every bad one before them has been handled
        assert table.assigns.get(timeout=WAIT) == good_assign
        assert table.cmds.get(timeout=WAIT) == good_cmd
    finally:
        attacker.stop(2.0)
    assert table.assigns.empty() and table.cmds.empty()
    dropped = [r for r in caplog.records if r.getMessage().startswith("dropped ")]
    assert len(dropped) == count  # every one of them logged, once
    assert not [r for r in caplog.records if "callback raised" in r.getMessage()]  # none escaped
    # and the link still works both ways
    table.link.publish_event(ev(1))
    assert hub.next_events(1)[0]["seq"] == 1
    assert table.link.client.running and table.link.online


# --------------------------------------------------------------------------- the hub's time
def test_the_hubs_time_reaches_the_table_and_a_bad_one_is_dropped(mosquitto, stack, caplog):
    event = uid()
    t = Topics(event)
    times: queue.Queue[int] = queue.Queue()
    table = Table(mosquitto, event, on_hub_time=times.put).start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    attacker = MqttClient(mosquitto.host, mosquitto.port, uid("bad"), on_message=lambda *_: None)
    attacker.start()
    assert attacker.wait_connected(WAIT)
    wrong = [{}, {"wall": "1"}, {"wall": True}, {"wall": -1}, {"wall": 2**53}, {"wall": 1.5}]
    bad: list[Any] = [*BAD_PAYLOADS, *wrong]
    try:
        for payload in bad:
            attacker.publish(t.hub_time, payload)
        attacker.publish(t.hub_time, {"wall": 42})  # after every bad one, from the same client
        assert times.get(timeout=WAIT) == 42
    finally:
        attacker.stop(2.0)
    hub.link.send_time(1_900_000_000_000)
    assert times.get(timeout=WAIT) == 1_900_000_000_000
    assert times.empty()
    dropped = [r for r in caplog.records if r.getMessage().startswith(f"dropped {t.hub_time}")]
    assert len(dropped) == len(bad)
    with pytest.raises(ValueError, match="epoch milliseconds"):
        hub.link.send_time(-5)


def _next_message(match_id: str) -> dict[str, Any]:
    line = {
        "kind": "called",
        "flight": "main",
        "round": 2,
        "table": "14",
        "opponent": "Anna Berg",
        "waits_for": None,
        "from_table": None,
        "left": None,
    }
    return {"match_id": match_id, "wall": 1_900_000_000_000, "A": line, "B": {**line, "kind": "out"}}


def test_the_next_lines_reach_the_table_checked_and_a_bad_one_is_dropped_and_logged(mosquitto, stack, caplog):
    """``table/{t}/next``: the hub's lines checked at the table's edge against their declaration;
    a message that fails is dropped with a log line naming the field; an empty one withdraws."""
    event = uid()
    t = Topics(event)
    got: queue.Queue[Any] = queue.Queue()
    table = Table(mosquitto, event, on_next=got.put).start()
    stack.append(table)
    hub = Hub(mosquitto, event)
    stack.append(hub)
    good = _next_message("main-r1-m1")
    wrong: list[Any] = [
        {**good, "A": {**good["A"], "kind": "lost"}},  # not a kind
        {**good, "A": {**good["A"], "round": 0}},
        {**good, "B": {k: v for k, v in good["B"].items() if k != "table"}},  # a key missing
        {**good, "match_id": "a/b"},
        {**good, "A": {**good["A"], "opponent": "x\x00y"}},
    ]
    topic = t.table_next(table.link.table)
    for payload in [*BAD_PAYLOADS, *wrong]:
        hub.link.client.publish(topic, payload, qos=1, retain=False)
    hub.link.send_next(table.link.table, good)
    assert got.get(timeout=WAIT) == good
    hub.link.clear_next(table.link.table)
    assert got.get(timeout=WAIT) is None
    assert got.empty()
    dropped = [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"dropped {topic}")]
    assert len(dropped) == len(BAD_PAYLOADS) + len(wrong)
    assert any("A.kind" in d for d in dropped) and any("B.table" in d for d in dropped)
