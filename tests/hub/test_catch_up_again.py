"""A table whose answer to the hub's catch-up request is lost is asked again, with a growing wait
and a bounded number of times, until the hub holds every event its state numbers.

When the hub (re)connects it asks every table for its events after the last one stored. Under
load the answer was lost as well (the broker, still handing the slow hub the full queue it held
for it, dropped what came past it), and nothing asked again. Here the table is a real simulated
table (reducer, outbox) whose events made while the hub was away never reached it; the test
sends, on the table's topics, the part of the table's answer that gets through (a plain MQTT
client), so that which message is lost is certain. An in-process hub with a fake clock and a real
Mosquitto; the hub's requests are watched on the broker.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.live.ingest import CATCH_UP_ASKS, CATCH_UP_RETRY_MAX_MS, CATCH_UP_RETRY_MS
from hub.service import HubThread
from tests.hub.support import Spy, event_id, hub_state, one_match, publish, start_hub, tick


@dataclass
class Away:
    """The room after the hub came back: table 1 made events it never received."""

    hub: HubThread
    spy: Spy
    sim: SimTable
    broker: Any
    topic: str
    held: int

    def requests(self) -> list[dict[str, Any]]:
        """The hub's requests to table 1, as the broker delivered them."""
        return self.spy.payloads("/table/1/resync")

    def asked(self) -> int:
        """How many requests the hub sent (counted as it sends each: no wait for the broker)."""
        return int(self.hub.call(lambda: self.hub.hub.stats["caught_up"]))

    def answer(self, *, state: bool = True, events: bool = True) -> None:
        """What of the table's answer gets through: its state (retained, as the table sends it)
        and the events after those the hub holds."""
        items: list[tuple[str, bytes | str, bool]] = []
        if state:
            items.append((f"{self.topic}/state", json.dumps(self.sim.snapshot()), True))
        if events:
            items += [(f"{self.topic}/evt", json.dumps(e), False) for e in self.sim.events[self.held :]]
        publish(self.broker.host, self.broker.port, items)

    def stored(self) -> int:
        return len(self.hub.call(self.hub.hub.store.events, "1", "r1-t1"))


@pytest.fixture
def away(tmp_path: Path, mosquitto: Any, clock: FakeClock) -> Iterator[Away]:
    ev = event_id("again")
    db = tmp_path / "hub.db"
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 1), db=db)
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=clock).start()
    spy: Spy | None = None
    try:
        sim.wait_for(lambda s: s.match_id == "r1-t1")
        sim.checkin("A")
        held = len(sim.events)
        hub.wait_for(lambda h: len(h.store.events("1", "r1-t1")) == held)
        hub.wait_for(
            lambda h: (hub_state(h, "1").get("match_id"), hub_state(h, "1").get("seq")) == ("r1-t1", held)
        )
        tick(hub)  # the table's state is saved: the restarted hub knows table 1
        hub.stop()
        sim.stop()  # what it makes now never reaches the hub (as if the broker dropped it)
        sim.checkin("B")
        sim.opening_roll(6, 1)
        assert len(sim.events) > held
        spy = Spy(mosquitto.host, mosquitto.port, ev, "table/+/resync")
        hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, db=db)
        spy.wait_for(lambda s: s.payloads("/table/1/resync"))
        yield Away(hub, spy, sim, mosquitto, f"bg/v1/{ev}/table/1", held)
    finally:
        if spy is not None:
            spy.close()
        hub.stop()
        sim.stop()


def test_a_lost_answer_is_asked_for_again_until_every_event_is_held(away: Away, clock: FakeClock):
    a = away
    first = {"match_id": "r1-t1", "from_seq": a.held + 1}
    assert a.requests() == [first] and a.asked() == 1
    a.answer(events=False)  # the state gets through, its events are dropped
    a.hub.wait_for(lambda h: h.views["1"].state["seq"] == len(a.sim.events))
    tick(a.hub)
    assert a.stored() == a.held and "1" in a.hub.call(a.hub.hub.ingest.catching_up)
    assert a.asked() == 1  # not before the wait is over

    clock.advance(CATCH_UP_RETRY_MS)
    tick(a.hub)
    a.spy.wait_for(lambda s: len(s.payloads("/table/1/resync")) == 2)
    assert a.requests()[1] == first
    a.answer()
    a.hub.wait_for(lambda h: len(h.store.events("1", "r1-t1")) == len(a.sim.events))
    tick(a.hub)
    assert "1" not in a.hub.call(a.hub.hub.ingest.catching_up)

    clock.advance(10 * CATCH_UP_RETRY_MAX_MS)
    tick(a.hub)
    assert a.asked() == 2  # caught up: never asked again


def test_a_table_that_never_answers_is_asked_a_bounded_number_of_times_with_a_growing_wait(
    away: Away, clock: FakeClock
):
    a = away
    wait = CATCH_UP_RETRY_MS
    for asks in range(2, CATCH_UP_ASKS + 1):
        clock.advance(wait - 1)
        tick(a.hub)
        assert a.asked() == asks - 1  # not before the wait is over
        clock.advance(1)
        tick(a.hub)
        a.spy.wait_for(lambda s, n=asks: len(s.payloads("/table/1/resync")) == n)
        wait = min(2 * wait, CATCH_UP_RETRY_MAX_MS)
    clock.advance(wait)
    tick(a.hub)
    assert "1" not in a.hub.call(a.hub.hub.ingest.catching_up)  # given up, and said so in the log
    clock.advance(10 * CATCH_UP_RETRY_MAX_MS)
    tick(a.hub)
    assert a.asked() == CATCH_UP_ASKS
    a.spy.wait_for(lambda s: len(s.payloads("/table/1/resync")) == CATCH_UP_ASKS)
    assert a.requests() == [{"match_id": "r1-t1", "from_seq": a.held + 1}] * CATCH_UP_ASKS
    assert a.stored() == a.held


def test_a_table_whose_state_shows_nothing_missing_is_not_asked_again(away: Away, clock: FakeClock):
    a = away
    a.answer()  # the whole answer gets through
    a.hub.wait_for(lambda h: len(h.store.events("1", "r1-t1")) == len(a.sim.events))
    tick(a.hub)
    assert "1" not in a.hub.call(a.hub.hub.ingest.catching_up)
    clock.advance(10 * CATCH_UP_RETRY_MAX_MS)
    tick(a.hub)
    assert a.asked() == 1
