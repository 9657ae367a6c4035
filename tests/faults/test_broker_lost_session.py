"""A broker that comes back without the hub's session: the events it lost come when the hub asks,
after what the table made later, and the hub still lists them in the order made.

A broker that crashed before its first save was on disk (or that keeps nothing across a
restart) has no session for the hub when it is back: what a table sends before the hub
reconnects goes to no one, though the broker acknowledges it (the table counts it as sent). The
hub gets it when it asks for it: its catch-up at reconnect, or — when that request is lost too,
here because the table is itself cut off at that moment — the gap the table's next event shows.
That next event is then stored before the ones it revealed. Each event is stored once, and the
table's events are listed (dashboard, API) and a match's transcript read by ``seq``.

A real Mosquitto, the real hub on a thread, a simulated table with a real on-disk outbox. The
hub's clock is a fake one that stands still, so the hub does not ask again on its own while the
test looks (its retries wait on that clock).
"""

from __future__ import annotations

from pathlib import Path

from hub.live.clock import FakeClock
from tests.faults.support import (
    MIN,
    T0,
    WAIT,
    event_id,
    make_table,
    read_db,
    restart_table,
    room_schedule,
    start_hub_thread,
    stored_events,
    wait_delivered,
)
from tests.support.broker import Mosquitto


def keys(events: list[dict]) -> list[tuple[str, int]]:
    return [(e["match_id"] or "", e["seq"]) for e in events]


def test_events_a_broker_lost_are_stored_once_and_listed_in_the_order_made(tmp_path: Path):
    clock = FakeClock(T0 - 2 * MIN)
    broker = Mosquitto().start()  # no persistence: a restart keeps no session
    ev = event_id("lost-session")
    db = tmp_path / "hub.db"
    schedule = room_schedule(["1"], T0)
    hub = start_hub_thread(tmp_path, broker, ev, clock, schedule=schedule, db=db, tick_interval=1.0)
    sim = make_table(ev, "1", broker, clock, tmp_path / "outbox-1.sqlite3")
    try:
        sim.start(WAIT)
        sim.wait_for(lambda s: s.match_id == "r1-t1", WAIT)
        sim.checkin("A")
        wait_delivered(db, [sim])

        hub.stop()  # the hub is away; then the broker goes, and with it the hub's session
        broker.stop()
        sim.checkin("B")  # made while the broker is down: in the table's outbox
        sim.opening_roll(6, 1)
        lost = keys(sim.events)[-2:]
        broker.start()
        assert sim.link.wait_online(WAIT) and sim.link.wait_drained(WAIT)  # acknowledged, to no one

        sim.stop(graceful=False)  # the table is cut off while the hub comes back: its catch-up is lost
        hub = start_hub_thread(tmp_path, broker, ev, clock, db=db, tick_interval=1.0)
        hub.wait_for(lambda h: h.ingest.catching_up() == {"1"}, WAIT)
        sim = restart_table(sim, ev, broker, clock).start(WAIT)
        sim.roll(3, 2)  # its next event shows the gap

        wait_delivered(db, [sim], ordered=False)
        made = keys(sim.events)
        with read_db(db) as rdb:
            stored = keys(stored_events(rdb, "1"))
        assert stored.index(lost[0]) > stored.index(made[-1]), "the lost events came when asked"
        assert stored != made
        listed = hub.call(lambda: keys(hub.hub.store.events("1")))
        of_match = hub.call(lambda: keys(hub.hub.store.events("1", "r1-t1")))
        transcript = hub.call(lambda: keys(hub.hub.store.match_events("r1-t1", limit=100)))
        assert listed == of_match == transcript == made
    finally:
        sim.stop()
        hub.stop()
        broker.stop()
