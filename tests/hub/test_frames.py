"""The tables batches of messages touch are looked at (alerts, tiles, the push) at once when the
hub keeps up, and once per frame (``HubConfig.frame_s``) under a backlog, with the states current
at the frame's end.

A hub on its own loop with its real link (a real broker); the messages are posted into its inbox
on the loop itself, all before the first batch is drained, so that the backlog is certain:
batches of a thousand statuses of table 2 and one of table 1, whose online flag changes from one
batch to the next (each change alters its tile). The frame is made long (5 s) so that which batch
falls in it does not depend on the machine's speed; the test drains the batches itself, in one
call on the loop, before the frame can end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hub.live.clock import FakeClock
from hub.live.core import Hub
from hub.live.ingest import BATCH
from hub.service import HubThread
from tests.hub.support import MIN, T0, event_id, schedule_csv, start_hub, tick
from tests.support.patience import WAIT

FRAME_S = 5.0


def _hub(tmp_path: Path, mosquitto: Any, name: str) -> HubThread:
    rows = [
        {"round": 1, "table": t, "player_a": f"A{t}", "player_b": f"B{t}", "length": 7, "start": T0}
        for t in ("1", "2")
    ]
    clock = FakeClock(T0 - MIN)
    return start_hub(
        tmp_path,
        mosquitto.host,
        mosquitto.port,
        event_id(name),
        clock,
        schedule=schedule_csv(rows),
        table_burst=100_000,
        frame_s=FRAME_S,
    )


def _watch(hub: HubThread) -> list[dict[str, Any]]:
    """Every tile of table 1 pushed to the dashboards from now on, in order."""
    pushed: list[dict[str, Any]] = []

    def on_push(message: dict[str, Any]) -> None:
        if message["type"] == "tiles":
            pushed.extend(t for t in message["tiles"] if t["table"] == "1")

    hub.call(hub.hub.subscribe, on_push)
    return pushed


def test_without_a_backlog_a_change_is_pushed_with_its_batch(tmp_path: Path, mosquitto: Any) -> None:
    hub = _hub(tmp_path, mosquitto, "frame-idle")
    try:
        tick(hub)
        pushed = _watch(hub)

        def post_and_drain(h: Hub) -> list[bool]:
            h.ingest.post("status", "1", {"online": True})
            h.ingest.drain()  # the batch: its tables are looked at before it returns
            return [t["online"] for t in pushed]

        assert hub.call(post_and_drain, hub.hub) == [True]
    finally:
        hub.stop()


def _post(h: Hub, flags: list[bool]) -> None:
    for online in flags:
        for _ in range(BATCH - 1):
            h.ingest.post("status", "2", {"online": True})
        h.ingest.post("status", "1", {"online": online})


def test_under_a_backlog_each_table_is_looked_at_once_per_frame(tmp_path: Path, mosquitto: Any) -> None:
    hub = _hub(tmp_path, mosquitto, "frame-flood")
    try:
        tick(hub)
        pushed = _watch(hub)

        def flood(h: Hub) -> tuple[list[bool], set[str], bool]:
            _post(h, [False, True, False, False, True])
            for _ in range(4):
                h.ingest.drain()
            return [t["online"] for t in pushed], set(h._frame), h._frame_timer is not None

        # the first batch is looked at at once (the hub had been quiet); the three that follow
        # wait for the frame (its end is set), with more behind them; the last, drained once the
        # call returns, finds no backlog and is looked at at once with what the frame held: each
        # table once, as the last batch left it (table 1's flags of the batches between never shown)
        assert hub.call(flood, hub.hub) == ([False], {"1", "2"}, True)
        hub.wait_for(lambda h: not h._frame and not h.ingest.backlogged(), timeout=WAIT)
        assert hub.call(lambda: [t["online"] for t in pushed]) == [False, True]
        assert hub.call(lambda: hub.hub._frame_timer) is None
        assert hub.call(lambda: hub.hub.stats["messages"]) >= 5 * BATCH
    finally:
        hub.stop()


def test_a_tick_looks_at_the_frames_tables_itself(tmp_path: Path, mosquitto: Any) -> None:
    hub = _hub(tmp_path, mosquitto, "frame-tick")
    try:
        tick(hub)
        pushed = _watch(hub)

        def flood_then_tick(h: Hub) -> tuple[list[bool], set[str], list[bool], set[str]]:
            _post(h, [False, True, True])
            h.ingest.drain()  # looked at at once
            h.ingest.drain()  # within the frame, with more behind it: waits
            waiting = [t["online"] for t in pushed], set(h._frame)
            h.tick()  # drains the rest and looks at the frame's tables with its own
            return *waiting, [t["online"] for t in pushed], set(h._frame)

        assert hub.call(flood_then_tick, hub.hub) == ([False], {"1", "2"}, [False, True], set())
    finally:
        hub.stop()
