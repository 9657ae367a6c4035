"""The broker goes away mid-round and comes back: nothing the tables did is lost or doubled.

A room of ten simulated tables (real reducer, real table link, real on-disk outbox) plays against
the real hub through a real Mosquitto that keeps its sessions on disk. Mid-round the broker is
stopped for ``SMART_TABLE_OUTAGE_S`` seconds (default 12; the soak variant stops it for
``SMART_TABLE_SOAK_OUTAGE_S``, default 60). The tables keep playing offline. When the broker is
back:

* every event each table made is in the hub's store exactly once, with the body the table gave
  it, in the order it was made. Stopped or crashed, the broker comes back with the hub's
  persistent session (a crash: as of its last autosave, which :func:`crash_broker` waits for
  to be on disk), so what the tables send before the hub is back is queued for the hub, ahead
  of anything they make later. What a crash does lose is what the broker received after its
  last autosave and had not passed on (the table had its acknowledgement): the hub gets that
  when it asks (its catch-up at reconnect, or the gap the table's next event shows), stored
  after what the table made meanwhile, and lists a table's events by ``seq`` all the same
  (docs/protocol.md §3.3). Here nothing is on its way when the broker dies;
* lateness carries on as the rules say: a player absent before, during and after the outage
  gets exactly the points due for the time elapsed, each penalty id applied once at the table;
  a player who arrived while the hub could not see the table gets none for the time after
  arrival; a table that was itself offline gets no automatic penalty while offline, and the
  points due once it is back.

Two ways to go: the broker is *stopped* (SIGTERM: it saves its sessions and sends every
client's Will as it closes, so the hub sees the tables go offline), or it *crashes* (SIGKILL, as
in a power cut: no Will at all, the sessions as of its last autosave). In the crash the hub
keeps an outdated picture of every table for the whole outage: it must not award lateness from
that picture.

The hub's clock is a fake one (lateness is counted in minutes); the outage itself is real time,
so the reconnect back-off, the tables' outboxes and the broker's persistent session are the
real ones.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from demo.simtable import SimTable
from hub.live.clock import FakeClock
from rulebook.snapshot import snapshot
from tests.faults.support import (
    MIN,
    T0,
    WAIT,
    Players,
    crash_broker,
    event_id,
    make_table,
    persistent_broker,
    read_db,
    restart_table,
    room_schedule,
    start_hub_thread,
    wait_delivered,
    wait_states_held,
)

OUTAGE_S = float(os.environ.get("SMART_TABLE_OUTAGE_S", "12"))
SOAK_OUTAGE_S = float(os.environ.get("SMART_TABLE_SOAK_OUTAGE_S", "60"))

ABSENT = "absent"  # B never comes
ARRIVES = "arrives"  # B arrives during the outage, before the first point is due
OFFLINE = "offline"  # its own network is down from before the outage until after it


def penalty_ids(sim) -> list[str]:
    return [p["id"] for p in snapshot(sim.state)["penalty_log"]]


def run_outage(
    tmp_path: Path, outage_s: float, *, crash: bool = False, n_playing: int = 7, seed: int = 1
) -> dict[str, int]:
    clock = FakeClock(T0 - 2 * MIN)
    broker = persistent_broker().start()
    ev = event_id("outage")
    playing_ids = [str(i) for i in range(1, n_playing + 1)]
    ids = [*playing_ids, ABSENT, ARRIVES, OFFLINE]
    db = tmp_path / "hub.db"
    hub = None
    sims: dict[str, SimTable] = {}
    try:
        hub = start_hub_thread(
            tmp_path, broker, ev, clock, schedule=room_schedule(ids, T0), db=db, tick_interval=1.0
        )
        sims.update({t: make_table(ev, t, broker, clock, tmp_path / f"outbox-{t}.sqlite3") for t in ids})
        for sim in sims.values():
            sim.start(WAIT)
        for sim in sims.values():
            sim.wait_for(lambda s, t=sim.table: s.match_id == f"r1-t{t}", WAIT)
        playing = [sims[t] for t in playing_ids]
        players = Players(playing, clock, seed)
        for t in (ABSENT, ARRIVES, OFFLINE):
            sims[t].checkin("A")
        for _ in range(5):
            players.step()

        # Table OFFLINE loses its network (a cut cable: the broker publishes its Will).
        sims[OFFLINE].stop(graceful=False)
        hub.wait_for(lambda h: h.views[OFFLINE].status is not None and not h.views[OFFLINE].online, WAIT)

        clock.set(T0 + 3 * MIN)
        hub.call(hub.hub.tick)
        for _ in range(5):
            players.step()
        sims[OFFLINE].apply({"input": "press", "side": "A"})  # made offline: refused, still an event
        wait_delivered(db, [sims[t] for t in ids if t != OFFLINE])

        # ---- the outage ----------------------------------------------------------------------
        if crash:
            crash_broker(broker)
        else:
            broker.stop()
        outage_ends = time.monotonic() + outage_s
        hub.wait_for(lambda h: not h.link.online, WAIT)
        made_offline = 0
        for minute in (3.5, 4):  # B arrives at table ARRIVES 4 minutes late: no point yet
            clock.set(T0 + int(minute * MIN))
            made_offline += players.step()
        sims[ARRIVES].checkin("B")
        clock.set(T0 + 6 * MIN)  # the first point is due at 5 minutes
        hub.call(hub.hub.tick)
        # The tables play on for the rest of the outage, an input per table about every 0.2 s;
        # the clock moves half a second of play per round (the playing clocks are off).
        while time.monotonic() < outage_ends:
            clock.advance(500)
            made_offline += players.step()
            time.sleep(0.2)  # the pace of play, not a wait for anything
        assert clock.now_wall() < T0 + 10 * MIN, "the outage must end before the second point"
        broker.start()
        # ---- back -----------------------------------------------------------------------------

        for t in ids:
            if t != OFFLINE:
                assert sims[t].link.wait_online(WAIT), f"table {t} did not reconnect"
        hub.wait_for(lambda h: h.link.online, WAIT)
        for _ in range(3):
            players.step()  # play after the outage flows as usual
        wait_delivered(db, [sims[t] for t in ids if t != OFFLINE])

        # The offline table got no automatic penalty while offline: none even recorded.
        with read_db(db) as rdb:
            sent = [r[0] for r in rdb.execute("SELECT id FROM commands WHERE tbl = ?", (OFFLINE,))]
        assert sent == []
        sims[OFFLINE] = restart_table(sims[OFFLINE], ev, broker, clock).start(WAIT)
        hub.wait_for(lambda h: h.views[OFFLINE].online, WAIT)
        hub.call(hub.hub.tick)
        for t in (ABSENT, OFFLINE):
            sims[t].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1, WAIT)

        # the hub must hold the states the tables computed before the clock moves on
        wait_states_held(hub, [sims[t] for t in (ABSENT, ARRIVES, OFFLINE)])
        clock.set(T0 + 11 * MIN)  # 11 minutes late: two points
        hub.call(hub.hub.tick)
        for t in (ABSENT, OFFLINE):
            sims[t].wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2, WAIT)
        # A TD command sent after every tick so far arrives after anything they sent.
        for t in (ABSENT, ARRIVES, OFFLINE):
            marker = hub.call(hub.hub.actions.td_command, t, "td_ack", {}, "test")
            sims[t].wait_cmd(marker["id"], WAIT)

        for t in (ABSENT, OFFLINE):
            assert penalty_ids(sims[t]) == [f"late:r1-t{t}:B:1", f"late:r1-t{t}:B:2"], t
            assert snapshot(sims[t].state)["score"] == {"A": 2, "B": 0}
        # B sat down at 4 minutes: the point that fell due at 5 was not theirs to get
        assert penalty_ids(sims[ARRIVES]) == []
        assert snapshot(sims[ARRIVES].state)["score"] == {"A": 0, "B": 0}

        wait_delivered(db, list(sims.values()))
        with read_db(db) as rdb:
            failed = rdb.execute("SELECT id, done_error FROM commands WHERE done_ok = 0").fetchall()
            unanswered = rdb.execute("SELECT id FROM commands WHERE done_ok IS NULL").fetchall()
        assert [tuple(r) for r in failed] == [] and [tuple(r) for r in unanswered] == []
        stats = dict(hub.call(lambda: dict(hub.hub.stats)))
        stats["made_offline"] = made_offline
        stats["events_made"] = sum(len(s.events) for s in sims.values())
        assert made_offline > 0
        return stats
    finally:
        for sim in sims.values():
            sim.stop()
        if hub is not None:
            hub.stop()
        broker.stop()


@pytest.mark.long
def test_a_broker_outage_mid_round_loses_and_doubles_nothing(tmp_path):
    stats = run_outage(tmp_path, OUTAGE_S)
    print(stats)


@pytest.mark.long
def test_a_broker_crash_mid_round_loses_and_doubles_nothing(tmp_path):
    stats = run_outage(tmp_path, OUTAGE_S, crash=True, seed=3)
    print(stats)


@pytest.mark.soak
@pytest.mark.parametrize("crash", [False, True], ids=["stopped", "crashed"])
def test_a_sixty_second_broker_outage(tmp_path, crash):
    stats = run_outage(tmp_path, SOAK_OUTAGE_S, crash=crash, n_playing=17, seed=2)
    print(stats)
