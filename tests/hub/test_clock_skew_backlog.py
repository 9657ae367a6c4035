"""A backlog makes every table's clock look behind: the hub must not call the TD for it.

A state that waited (in the hub's inbox while its loop was busy, in the broker's queue while the
hub was away) is handled later than it was computed, so its ``wall`` looks behind the hub's time
by the wait. The ``clock_skew`` alert comes from the hub's estimate (hub.logic.clock_estimate):
the largest offset observed lately, and "behind" only once a state was handled promptly. Here the
hub's loop is held while a table's states wait and the room's time moves on two minutes; no
alert. A table whose clock really is two minutes behind gets one, said once.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from hub.logic import clock_estimate
from hub.logic.clock_estimate import ClockEstimate, observe
from tests.faults.support import wait_until
from tests.faults.test_table_time import TableClock
from tests.hub.support import MIN, T0, event_id, schedule_csv, start_hub, tick

THRESHOLD = 30_000


def skew_alerts(hub: Any) -> list[dict[str, Any]]:
    return [a for a in hub.call(hub.hub.alert_list) if a["kind"] == "clock_skew"]


def checked_in_waiting(hub: Any, table: str) -> bool:
    """A state of ``table`` with A checked in waits in the hub's inbox (as the link read it)."""
    for kind, tbl, raw, *_ in list(hub.hub.ingest._inbox):
        if kind == "state" and tbl == table:
            obj = json.loads(raw.payload) if hasattr(raw, "payload") else raw
            if obj["present"]["A"]:
                return True
    return False


def two_matches() -> str:
    row = {"round": 1, "player_a": "Ann", "player_b": "Bob", "length": 5, "start": T0}
    return schedule_csv([{**row, "table": "1"}, {**row, "table": "2", "player_a": "Cy", "player_b": "Dee"}])


def test_states_that_waited_raise_no_clock_alert_and_a_clock_really_off_does(tmp_path, mosquitto):
    clock = FakeClock(T0 - 10 * MIN)
    ev = event_id("skew-backlog")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=two_matches())
    honest = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=TableClock(clock, 0))
    off = SimTable(ev, "2", mosquitto.host, mosquitto.port, clock=TableClock(clock, -2 * MIN))
    gate = threading.Event()
    try:
        # The hub's loop is busy (held here): table 1 comes online and its states wait in the
        # hub's inbox while the room's time moves on two minutes.
        hub.loop.call_soon_threadsafe(gate.wait, 60)
        honest.start()
        honest.wait_for(lambda s: s.match_id == "r1-t1", 30)
        honest.checkin("A")
        wait_until(lambda: checked_in_waiting(hub, "1"), 30, "table 1's state in the hub's inbox")
        clock.advance(2 * MIN)
        # what the hub makes of those states, before anything else reaches it: the look queued
        # behind the inbox's drain
        seen: list[list[dict[str, Any]]] = []

        def look() -> None:
            hub.hub.tick()
            seen.append([a for a in hub.hub.alert_list() if a["kind"] == "clock_skew"])

        hub.loop.call_soon_threadsafe(look)
        gate.set()
        hub.wait_for(lambda h: bool(seen), 30)
        assert hub.call(lambda: hub.hub.views["1"].state["present"]["A"])
        assert seen == [[]]  # every state of table 1 waited: nothing to tell
        hub.wait_for(lambda h: h.views["1"].state_fresh, 30)
        tick(hub)
        assert skew_alerts(hub) == []
        # behind is not known from late states alone (a prompt state since, answering the hub,
        # says the clock is right)
        shown = hub.call(hub.hub.tile, "1")["clock_offset_ms"]
        assert shown is None or abs(shown) <= 1_000

        # Table 2's clock really is two minutes behind: its states come promptly.
        off.start()
        off.wait_for(lambda s: s.match_id == "r1-t2", 30)
        off.checkin("A")
        hub.wait_for(
            lambda h: "2" in h.views and h.views["2"].state_fresh and h.views["2"].state["present"]["A"], 30
        )
        tick(hub)
        (alert,) = skew_alerts(hub)
        assert alert["table"] == "2" and "off by 2 min (behind the hub)" in alert["message"]
        assert abs(alert["data"]["offset_ms"] + 2 * MIN) <= 1_000

        # Table 1 now sends promptly: its clock is right, still nothing. Table 2's alert is the
        # same one, unchanged, whatever its next states' delays.
        honest.checkin("B")
        off.checkin("B")
        hub.wait_for(lambda h: h.views["1"].state["present"]["B"] and h.views["2"].state["present"]["B"], 30)
        tick(hub)
        (again,) = skew_alerts(hub)
        assert again == alert
        assert abs(hub.call(hub.hub.tile, "1")["clock_offset_ms"]) <= 1_000
    finally:
        gate.set()
        honest.stop()
        off.stop()
        hub.stop()


# -- the estimate, for any delays --------------------------------------------------------------------

#: a backlog's delays (well within the estimate's window)
delays = st.lists(st.integers(0, 5 * MIN), min_size=1, max_size=30)


def run(true: int, ds: list[int], prompt: list[bool] | None = None) -> ClockEstimate:
    """Feed states one second apart (hub time), each ``d`` late, into a fresh estimate."""
    est: ClockEstimate | None = None
    at = 1_000_000
    for i, d in enumerate(ds):
        received = T0 + i * 1_000 + d
        wall = T0 + i * 1_000 + true  # computed at hub time T0 + i s, on a clock ``true`` off
        est = observe(est, wall, at + i * 1_000, received, prompt=bool(prompt and prompt[i]))
    assert est is not None
    return est


@settings(max_examples=300, deadline=None)
@given(true=st.integers(-2 * 60 * MIN, 2 * 60 * MIN), ds=delays, data=st.data())
def test_the_estimate_never_exceeds_the_true_offset_and_reaches_it(true, ds, data):
    prompt = data.draw(st.lists(st.booleans(), min_size=len(ds), max_size=len(ds)))
    est = run(true, ds, prompt)
    assert est.best <= true
    assert est.best == true - min(ds)  # the smallest delay seen
    shown = clock_estimate.offset(est)
    if shown is not None:
        assert shown <= true
        if shown < 0:  # behind only from a prompt state: within its delay
            prompt_delays = [d for d, p in zip(ds, prompt, strict=True) if p]
            assert prompt_delays and shown >= true - min(prompt_delays)


@settings(max_examples=300, deadline=None)
@given(true=st.integers(-THRESHOLD + clock_estimate.PROMPT_MS, THRESHOLD), ds=delays, data=st.data())
def test_no_alert_for_a_clock_within_the_threshold_whatever_the_delays(true, ds, data):
    """Late states never make a right clock look off: a state counted as prompt waited at most
    PROMPT_MS, the others may have waited any time."""
    prompt = [data.draw(st.booleans()) and d <= clock_estimate.PROMPT_MS for d in ds]
    shown = clock_estimate.offset(run(true, ds, prompt))
    assert shown is None or abs(shown) <= THRESHOLD


def test_a_step_of_the_tables_clock_starts_the_estimate_again():
    ahead = observe(None, T0 + 5 * MIN, 1_000, T0, prompt=True)
    assert clock_estimate.offset(ahead) == 5 * MIN
    # NTP sets the clock right: wall - at moves by five minutes; the old maximum no longer holds
    right = observe(ahead, T0 + 1_000, 2_000, T0 + 1_000, prompt=True)
    assert clock_estimate.offset(right) == 0
    # without ``at``, the largest value holds WINDOW_MS, then the next state starts afresh
    a = observe(None, T0 + 5 * MIN, None, T0, prompt=True)
    b = observe(a, T0 + 1_000, None, T0 + 1_000, prompt=True)
    assert b.best == 5 * MIN
    later = T0 + clock_estimate.WINDOW_MS + 2_000
    # a state that waited does not start it again: it would make the clock look behind
    assert observe(b, later - 3 * MIN, None, later, prompt=False) == b
    c = observe(b, later, None, later, prompt=True)
    assert clock_estimate.offset(c) == 0


def test_what_the_broker_queued_while_the_hub_was_away_raises_no_clock_alert(tmp_path, mosquitto):
    """A hub restart: the table played on while it was away, the broker queued its events and
    states, and the hub takes them two minutes later. None of them says the clock is off."""
    clock = FakeClock(T0 - 10 * MIN)
    ev = event_id("skew-restart")
    db = tmp_path / "hub.db"
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=two_matches(), db=db)
    sim = SimTable(ev, "1", mosquitto.host, mosquitto.port, clock=TableClock(clock, 0)).start()
    try:
        sim.wait_for(lambda s: s.match_id == "r1-t1", 30)
        hub.wait_for(lambda h: "1" in h.views and h.views["1"].state_fresh, 30)
        tick(hub)  # the table's state is saved: the restarted hub knows table 1
        hub.stop()
        # while the hub is away: both players check in (events and states queued for the hub)
        sim.checkin("A")
        sim.checkin("B")
        assert sim.link.wait_drained(30)
        sim.stop()  # it says nothing more: the queue is all the hub will hear
        clock.advance(2 * MIN)
        hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, db=db)
        hub.wait_for(lambda h: h.views["1"].state is not None and h.views["1"].state["present"]["B"], 30)
        tick(hub)
        assert skew_alerts(hub) == []
        assert hub.call(hub.hub.tile, "1")["clock_offset_ms"] is None  # not known from late states
    finally:
        sim.stop()
        hub.stop()
