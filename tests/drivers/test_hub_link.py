"""HubLink against a real mosquitto: presence, persistent session, validation of what tables send."""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from drivers.hub_link import HubLink
from drivers.mqtt_client import MqttClient
from drivers.mqtt_topics import Topics
from drivers.outbox import Outbox
from drivers.table_link import TableLink
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


def uid(prefix: str = "hv") -> str:
    return f"{prefix}{next(_ids)}x{os.getpid()}"


class Hub:
    def __init__(self, broker, event: str, **kw: Any) -> None:
        self.status: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.state: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.events: queue.Queue[tuple[str, dict]] = queue.Queue()
        kw.setdefault("on_status", lambda t, p: self.status.put((t, p)))
        kw.setdefault("on_state", lambda t, p: self.state.put((t, p)))
        kw.setdefault("on_event", lambda t, p: self.events.put((t, p)))
        self.link = HubLink(event, broker.host, broker.port, backoff=FAST, **kw)

    def start(self) -> Hub:
        self.link.start()
        assert self.link.client.wait_subscribed(WAIT)
        return self


class Client:
    """A plain client: records what it receives; publishes anything (well-formed or not)."""

    def __init__(self, broker, *topics: str) -> None:
        self.q: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.c = MqttClient(broker.host, broker.port, uid("c"), on_message=lambda t, p: self.q.put((t, p)))
        for t in topics:
            self.c.subscribe(t)
        self.c.start()
        assert self.c.wait_subscribed(WAIT)

    def next(self) -> tuple[str, Any]:
        t, p = self.q.get(timeout=WAIT)
        return t, (json.loads(p) if p else None)


@dataclass
class Holder:
    link: TableLink


@pytest.fixture
def stack() -> Iterator[list[Any]]:
    things: list[Any] = []
    yield things
    for thing in reversed(things):
        if isinstance(thing, Client):
            thing.c.stop(2.0)
        else:
            thing.link.stop(2.0)


def make_table(broker, event: str, table: str = "3") -> tuple[TableLink, Outbox]:
    box = Outbox(os.path.join(_tmpdir(prefix="outbox-"), "o.db"))
    link = TableLink(
        event,
        table,
        broker.host,
        broker.port,
        outbox=box,
        state_provider=lambda: {"table": table, "match_id": "m1", "seq": 0},
        on_assign=lambda a: None,
        on_cmd=lambda c: None,
        backoff=FAST,
    )
    return link, box


def ev(seq: int, match_id: str | None = "m1") -> dict:
    return {"seq": seq, "match_id": match_id, "type": "roll", "wall": 1_795_000_000_000, "dice": [3, 5]}


def test_hub_status_online_retained_then_offline_on_stop(mosquitto, stack):
    event = uid()
    t = Topics(event)
    hub = Hub(mosquitto, event).start()
    stack.append(hub)
    late = Client(mosquitto, t.hub_status)
    stack.append(late)
    topic, status = late.next()
    assert topic == t.hub_status and status["online"] is True and isinstance(status["since_wall"], int)
    hub.link.stop(WAIT)
    assert late.next()[1]["online"] is False


def test_hub_will_is_published_when_its_connection_drops(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Client(mosquitto, t.hub_status)
    stack.append(watch)
    hub = Hub(mosquitto, event).start()
    stack.append(hub)
    assert watch.next()[1]["online"] is True
    hub.link.stop(WAIT, graceful=False)
    assert watch.next()[1]["online"] is False


def test_hub_receives_status_state_and_events(mosquitto, stack):
    event = uid()
    hub = Hub(mosquitto, event).start()
    stack.append(hub)
    table, _ = make_table(mosquitto, event, "3")
    stack.append(Holder(table))
    table.start()
    name, status = hub.status.get(timeout=WAIT)
    assert name == "3"
    assert status == {
        "online": True,
        "boot_id": table.boot_id,
        "version": table.version,
        "wall": status["wall"],
    }
    assert hub.state.get(timeout=WAIT) == ("3", {"table": "3", "match_id": "m1", "seq": 0})
    table.publish_event(ev(1))
    assert hub.events.get(timeout=WAIT) == ("3", ev(1))


def test_persistent_session_gets_the_events_published_while_the_hub_was_away(mosquitto, stack):
    event = uid()
    first = Hub(mosquitto, event).start()
    first.link.stop(WAIT)  # graceful: the broker keeps the session and queues for it
    table, _ = make_table(mosquitto, event, "4")
    stack.append(Holder(table))
    table.start()
    assert table.wait_online(WAIT)
    for i in range(1, 21):
        table.publish_event(ev(i))
    assert table.wait_drained(WAIT)  # every event acknowledged by the broker, none by the hub

    again = Hub(mosquitto, event).start()
    stack.append(again)
    got = [again.events.get(timeout=WAIT) for _ in range(20)]
    assert got == [("4", ev(i)) for i in range(1, 21)]


def test_outgoing_messages_reach_the_table_topics(mosquitto, stack):
    event = uid()
    t = Topics(event)
    watch = Client(mosquitto, t.table_assign("5"), t.table_cmd("5"), t.table_resync("5"))
    stack.append(watch)
    hub = Hub(mosquitto, event).start()
    stack.append(hub)
    hub.link.send_assign("5", {"match_id": "r1-t5", "length": 5})
    hub.link.send_cmd("5", {"id": "late:r1-t5:A:1", "type": "penalty", "against": "A", "points": 1})
    hub.link.request_resync("5", "r1-t5", 17)
    hub.link.clear_assign("5")
    assert watch.next() == (t.table_assign("5"), {"match_id": "r1-t5", "length": 5})
    assert watch.next() == (
        t.table_cmd("5"),
        {"id": "late:r1-t5:A:1", "type": "penalty", "against": "A", "points": 1},
    )
    assert watch.next() == (t.table_resync("5"), {"match_id": "r1-t5", "from_seq": 17})
    assert watch.next() == (t.table_assign("5"), None)  # the empty payload that clears it


def test_bad_arguments_raise_in_the_caller(mosquitto):
    hub = HubLink(uid(), mosquitto.host, mosquitto.port, on_status=print, on_state=print, on_event=print)
    with pytest.raises(ValueError):
        hub.send_cmd("5", {"type": "pause"})  # no id
    with pytest.raises(ValueError):
        hub.send_cmd("5", {"id": "", "type": "pause"})
    with pytest.raises(TypeError):
        hub.send_assign("5", ["r1"])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        hub.send_assign("5/#", {"match_id": "x"})  # would be another topic
    with pytest.raises(ValueError):
        hub.request_resync("5", "m", -1)
    with pytest.raises(ValueError):
        HubLink("bad/event", mosquitto.host, mosquitto.port, on_status=print, on_state=print, on_event=print)
    hub.stop(1.0)


BAD_PAYLOADS: list[bytes] = [
    b"not json",
    b"[1, 2]",
    b"null",
    b"\xc3\x28 not utf-8",
    b"{" * 50_000 + b"}" * 50_000,
    json.dumps({"pad": "x" * 300_000}).encode(),
]


def test_malformed_messages_from_tables_are_dropped(mosquitto, stack, caplog):
    event = uid()
    t = Topics(event)
    hub = Hub(mosquitto, event).start()
    stack.append(hub)
    bad = Client(mosquitto)
    stack.append(bad)
    wrong: dict[str, list[dict]] = {
        t.table_status("3"): [{"online": "true"}, {"boot_id": "x"}],
        t.table_state("3"): [
            {"table": "4", "seq": 1},
            {"table": "3", "seq": -2},
            {"table": "3", "match_id": 7},
        ],
        t.table_evt("3"): [
            {"seq": "1", "match_id": "m1", "type": "press"},
            {"seq": 1, "type": "press"},
            {"seq": 1, "match_id": "m1", "type": ""},
            {"seq": True, "match_id": "m1", "type": "press"},
            {"seq": 1.5, "match_id": "m1", "type": "press"},
        ],
    }
    count = 0
    for topic, objs in wrong.items():
        for payload in BAD_PAYLOADS:
            bad.c.publish(topic, payload)
            count += 1
        for obj in objs:
            bad.c.publish(topic, obj)
            count += 1
    for table_id in ("bad id", "x" * 65, "-dash-first", "é"):
        bad.c.publish(f"{t.base}/table/{table_id}/evt", ev(1))
        count += 1
    bad.c.publish(t.table_status("3"), {"online": True})
    bad.c.publish(t.table_state("3"), {"table": "3", "seq": 2, "match_id": None})
    bad.c.publish(t.table_evt("3"), ev(9, None))
    assert hub.status.get(timeout=WAIT) == ("3", {"online": True})
    assert hub.state.get(timeout=WAIT) == ("3", {"table": "3", "seq": 2, "match_id": None})
    assert hub.events.get(timeout=WAIT) == ("3", ev(9, None))
    assert hub.status.empty() and hub.state.empty() and hub.events.empty()
    dropped = [r for r in caplog.records if r.getMessage().startswith("dropped ")]
    assert len(dropped) == count
    assert not [r for r in caplog.records if "callback raised" in r.getMessage()]
    # still working: a real table's event arrives
    table, _ = make_table(mosquitto, event, "3")
    stack.append(Holder(table))
    table.start()
    table.publish_event(ev(10))
    assert hub.events.get(timeout=WAIT) == ("3", ev(10))
    assert hub.link.online


def test_a_failing_hub_callback_does_not_stop_delivery(mosquitto, stack, caplog):
    event = uid()
    seen: queue.Queue[int] = queue.Queue()

    def on_event(table: str, evt: dict) -> None:
        seen.put(evt["seq"])
        if evt["seq"] % 2:
            raise RuntimeError("store bug")

    hub = Hub(mosquitto, event, on_event=on_event).start()
    stack.append(hub)
    table, _ = make_table(mosquitto, event, "2")
    stack.append(Holder(table))
    table.start()
    for i in range(1, 7):
        table.publish_event(ev(i))
    assert [seen.get(timeout=WAIT) for _ in range(6)] == [1, 2, 3, 4, 5, 6]
    assert sum("on_event raised" in r.getMessage() for r in caplog.records) == 3
