"""A flood while the hub is away loses no other table's events.

While the hub is stopped, the broker queues the room's events for its persistent session, up to
``max_queued_messages``. One table's credential used to flood fills that queue, and the broker
drops every other table's events past it (it still acknowledges them: the tables count them as
sent). Before, the hub learnt of the loss only at each table's next event (a gap; reconnecting
republishes the assignments, and a table answers its assignment with an event), and not at all
for a table with no assignment: here every table's match, the event's last, has ended and the
TD has verified it, and its players confirm the result while the hub is away. Now, when the hub
(re)connects, it asks every table for its events after the last one stored, and every event of
every real table is in the store.

A real Mosquitto with a small queue, a real ``bghub`` process, real simulated tables (reducer,
table link, on-disk outbox) and the flood published by a plain MQTT client on table 9's topic.
"""

from __future__ import annotations

import time
from pathlib import Path

from demo.simtable import SimTable
from tests.faults.support import (
    HubProcess,
    TdClient,
    event_id,
    flood,
    make_table,
    read_db,
    room_schedule,
    small_queue_broker,
    wait_delivered,
    wait_until,
)

QUEUE = 200
TABLES = ["1", "2", "3"]


def test_a_flood_while_the_hub_is_away_loses_no_other_tables_events(tmp_path: Path):
    broker = small_queue_broker(QUEUE)
    ev = event_id("flood-away")
    db = tmp_path / "hub.db"
    start = int(time.time() * 1000) + 3_600_000
    sims: list[SimTable] = []
    hub = HubProcess(tmp_path, broker, ev, db, schedule=room_schedule(TABLES, start, length=1))
    try:
        for t in TABLES:
            sims.append(make_table(ev, t, broker, None, tmp_path / f"outbox-{t}.db").start())
        for sim in sims:  # each table plays its match (the event's last) to the end
            sim.wait_for(lambda s, t=sim.table: s.match_id == f"r1-t{t}", 30)
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(6, 1)
            sim.win("A")
        wait_delivered(db, sims)
        td = TdClient(hub.url)
        wait_until(lambda: len(td.get("/api/results")) == len(TABLES), what="every result")
        for t in TABLES:  # verified: no table has a match to play, so none is assigned anything
            td.post(f"/api/results/r1-t{t}/verify")
        hub.stop()  # its session stays: the broker queues the room's events for it

        flood(broker, ev, QUEUE * 3)  # the queue is full from here on
        for sim in sims:  # the players confirm the result: the tables' last events
            sim.confirm("A")
            sim.confirm("B")
        with read_db(db) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM events WHERE tbl IN ('1', '2', '3')").fetchone()[0]
        assert stored < sum(len(s.events) for s in sims)

        hub = HubProcess(tmp_path, broker, ev, db)
        # no table sends anything more: what the broker dropped comes only because the hub asks
        # (so after what the broker had queued: in the store, not in the order they were made)
        wait_delivered(db, sims, ordered=False)
        with read_db(db) as conn:
            flooded = conn.execute("SELECT COUNT(*) FROM events WHERE tbl = '9'").fetchone()[0]
        assert flooded < QUEUE * 3  # the flood past the queue is gone, and nobody asks table 9 for it
        wait_until(lambda: hub.alive())
    finally:
        for sim in sims:
            sim.stop()
        hub.stop()
        broker.stop()
