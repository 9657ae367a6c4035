"""Every field of every message kind, fed hostile values, into a running hub with healthy tables.

Hypothesis draws the messages from the wire schema itself (``tests.support.wire_strategies``):
a valid state, event or status with one value broken at any depth (a list item, a nested
object's field, a required field taken away), published over a real Mosquitto on the topics of
three hostile tables. Between messages the fake clock moves on and the hub ticks. Two healthy
simulated tables, each with a late player, must keep getting exactly the lateness points the
rules make due, and their tiles; the hub must never hold or store what it dropped.
"""

from __future__ import annotations

import json
import threading

import paho.mqtt.client as mqtt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.live.clock import FakeClock
from rulebook.policy import forfeit_points, lateness
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.wire import (
    EVENT_FIELDS,
    SNAPSHOT,
    STATUS,
    parse_event,
    parse_snapshot,
    parse_status,
)
from tests.hub.support import MIN, T0, event_id, present, schedule_csv, sim_table, start_hub, tick
from tests.support.patience import patience
from tests.support.wire_strategies import hostile, typed_event, valid

HOSTILE = ["h1", "h2", "h3"]
HEALTHY = ["1", "2"]
LENGTH = 25  # the forfeit is far away: points keep coming for the whole run
STEP_MS = 10_000


def _messages() -> st.SearchStrategy[tuple[str, str, object, bool]]:
    """(table, topic kind, payload, retain): mostly one hostile value, sometimes a good message."""
    table = st.sampled_from(HOSTILE)
    # a state names its table: keep it the topic's (else the link drops it before the hub's
    # schema sees it), unless the broken field is the table itself
    state = st.one_of(hostile(SNAPSHOT), valid(SNAPSHOT).map(lambda m: (m, None))).map(
        lambda c: {**c[0], "table": "TOPIC"} if isinstance(c[0], dict) and c[1] != "table" else c[0]
    )
    event = st.sampled_from(sorted(EVENT_FIELDS)).flatmap(
        lambda k: st.one_of(hostile(typed_event(k)).map(lambda c: c[0]), valid(typed_event(k)))
    )
    status = st.one_of(hostile(STATUS).map(lambda c: c[0]), valid(STATUS))
    return st.one_of(
        st.tuples(table, st.just("state"), state, st.booleans()),
        st.tuples(table, st.just("evt"), event, st.just(False)),
        st.tuples(table, st.just("status"), status, st.booleans()),
    )


class Publisher:
    """One raw MQTT client for the whole run; returns once the broker has each message."""

    def __init__(self, host: str, port: int) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"fuzz-{id(self)}")
        self.client.connect(host, port)
        self.client.loop_start()

    def send(self, topic: str, payload: bytes, retain: bool) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_hostile_values_in_every_field_never_stop_the_healthy_tables(tmp_path, mosquitto):
    clock = FakeClock(T0 - MIN)
    ev = event_id("fuzzschema")
    rows = [
        {"round": 1, "table": t, "player_a": f"A{t}", "player_b": f"B{t}", "length": LENGTH, "start": T0}
        for t in HEALTHY
    ]
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=schedule_csv(rows))
    tiles: dict[str, list[dict]] = {t: [] for t in HEALTHY}
    lock = threading.Lock()

    def on_push(message: dict) -> None:
        if message["type"] == "tiles":
            with lock:
                for t in message["tiles"]:
                    if t["table"] in tiles:
                        tiles[t["table"]].append(t)

    publisher = Publisher(mosquitto.host, mosquitto.port)
    sent = {"n": 0}
    try:
        hub.call(hub.hub.subscribe, on_push)
        with (
            sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as one,
            sim_table(ev, "2", mosquitto.host, mosquitto.port, clock) as two,
        ):
            sims = {"1": one, "2": two}
            for t, sim in sims.items():
                sim.wait_for(lambda s, t=t: s.match_id == f"r1-t{t}")
                sim.checkin("A")
                hub.wait_for(lambda h, t=t: present(h, t, "A"))
            clock.set(T0)

            @settings(
                max_examples=300,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                database=None,
            )
            @given(_messages())
            def feed(case: tuple[str, str, object, bool]) -> None:
                table, kind, payload, retain = case
                if kind == "state" and isinstance(payload, dict) and payload.get("table") == "TOPIC":
                    payload = {**payload, "table": table}
                base = f"bg/v1/{ev}/table"
                publisher.send(f"{base}/{table}/{kind}", json.dumps(payload).encode(), retain)
                # a marker after it: once the hub holds the marker, it has met the message
                sent["n"] += 1
                marker = {"online": True, "wall": sent["n"]}
                publisher.send(f"{base}/marker/status", json.dumps(marker).encode(), False)
                hub.wait_for(lambda h: _marker(h) == sent["n"])
                clock.advance(STEP_MS)
                tick(hub)

            feed()
            # The healthy tables got every point due by now, and the dashboards saw it.
            tick(hub)
            due = lateness(get_profile("wbgf-2023"), LENGTH, clock.now_wall() - T0, clock=True).points
            assert due >= 3, "the run must be long enough to award several points"
            assert due < forfeit_points(LENGTH) - 1, "and short enough not to end in a forfeit"
            for t, sim in sims.items():
                sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == due, timeout=patience(30))
                hub.wait_for(lambda h, t=t: (h.views[t].state or {}).get("penalties", {}).get("B") == due)
            tick(hub)
            with lock:
                for t in HEALTHY:
                    assert tiles[t] and tiles[t][-1]["penalties"]["B"] == due, tiles[t][-1:]

        # Nothing the hub holds or stored for the hostile tables fails the schema.
        def held(h):
            out = []
            for t in HOSTILE:
                view = h.views.get(t)
                if view is not None:
                    out.append((view.state, view.status))
            return out

        for state, status in hub.call(held, hub.hub):
            if state is not None:
                assert parse_snapshot(state) == state
            if status is not None:
                assert parse_status(status) == status
        for t in HOSTILE:
            for evt in hub.call(hub.hub.store.events, t, None, 5000):
                body = {k: v for k, v in evt.items() if k != "received_wall"}
                body["match_id"] = body["match_id"] or None
                assert parse_event(body) == body
        assert hub.call(lambda: hub.hub.stats["invalid"]) > 0
        # and nothing that passed the schema made any step of the hub fail (the guard would
        # have kept the room going, but it would be a fault all the same)
        assert hub.call(lambda: hub.hub.room_state.guard.count) == 0
    finally:
        publisher.close()
        hub.stop()


def _marker(hub) -> int | None:
    view = hub.views.get("marker")
    return None if view is None or view.status is None else view.status.get("wall")
