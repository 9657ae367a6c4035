"""A table's device changes — replaced by a new one, or retired — with real processes: Mosquitto
with dynamic security (``bghub broker-config``), ``bghub``, ``bgtable enroll`` and ``bgtable run``.

Mosquitto's plugin drops a deleted client without publishing its Will, so the hub must say
"offline" itself: the table is offline on the API within a second or two, its retained status no
longer says online, nothing automatic (lateness, forfeits, break overruns) happens there while no
device is connected, and the next device coming online ends it. A table playing a match is
enrolled or retired only when the TD names the match and its score, and the new device takes the
match's last known state (never 0-0 silently: the TD is told, naming the table and the match).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.fleet.scenes import (
    MIN,
    Monitor,
    OfflineWatch,
    auto_commands,
    enroll,
    enroll_pending,
    retained,
    seed_waiting,
    wall_now,
    write_schedule,
)
from tests.fleet.support import WAIT, Hub, Room, Table, cleanup, wait_until

EVENT = "fleet-change"
#: the API must say "offline" within this (the hub says it at once; generous for a busy machine)
OFFLINE_S = 10.0


def hub_with_match(tmp: Path, table: str = "12") -> tuple[Room, Hub]:
    room = Room(tmp, EVENT)
    schedule = write_schedule(tmp, table, start=wall_now() - 20 * MIN)
    hub = Hub(tmp, EVENT, room=room.out, broker_port=room.port, extra=["--schedule", str(schedule)])
    return room, hub


def refused(exc: BaseException) -> tuple[int, dict]:
    body = exc.read()  # type: ignore[attr-defined]
    return exc.code, json.loads(body)  # type: ignore[attr-defined]


def post_error(hub: Hub, path: str, body: dict) -> tuple[int, dict]:
    import urllib.error

    with pytest.raises(urllib.error.HTTPError) as info:
        hub.td.post(path, body)
    return refused(info.value)


@pytest.mark.long
def test_a_replaced_device_leaves_its_table_offline_at_once_until_the_new_one_connects(tmp_path: Path):
    room = Room(tmp_path, EVENT)
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub):
        old = enroll(hub, tmp_path, "dev-old", "12")
        table = Table(tmp_path, old / "table.toml", "old")
        with cleanup(table):
            wait_until(lambda: hub.online("12"), WAIT, "table 12 online")
            assert json.loads(retained(room, EVENT, "12/status") or b"{}").get("online") is True
            pending = enroll_pending(hub, tmp_path, "dev-new")
            code = pending.code()
            watch = OfflineWatch(hub, "12")
            hub.td.post("/api/fleet/dev-new/enroll", {"table": "12", "code": code})
            took = watch.wait(OFFLINE_S)
            print(f"replaced → offline on the API: {took:.2f} s (from the TD's request)")
            assert pending.wait() == 0, pending.err.lines
            detail = hub.table("12")
            assert detail is not None and detail["tile"]["status"] == "offline"
            # at once, not after the offline grace: the alert says why
            offline = [a for a in detail["alerts"] if a["kind"] == "offline"]
            assert offline and "no device" in offline[0]["message"], detail["alerts"]
            # the broker's retained status no longer says online (a restarted hub, a monitor)
            assert json.loads(retained(room, EVENT, "12/status") or b'{"online": false}')["online"] is False
            # the old kiosk stays out (its credential is gone)
            wait_until(lambda: (old / "retired").exists(), WAIT, "the old kiosk told it is retired")
            assert not hub.online("12")

        # a hub restarted meanwhile knows it too
        hub.stop()
        again = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port, port=hub.port)
        with cleanup(again):
            detail = again.table("12")
            assert detail is not None and detail["tile"]["status"] == "offline"
            offline = [a for a in detail["alerts"] if a["kind"] == "offline"]
            assert offline and "no device" in offline[0]["message"], detail["alerts"]

            replacement = Table(tmp_path, tmp_path / "dev-new" / "table.toml", "new")
            with cleanup(replacement):
                wait_until(lambda: again.online("12"), WAIT, "table 12 online with its new device")
                detail = again.table("12")
                assert detail is not None and detail["tile"]["status"] != "offline"
                wait_until(
                    lambda: not [a for a in (again.table("12") or {})["alerts"] if a["kind"] == "offline"],
                    WAIT,
                    "the offline alert resolved",
                )


@pytest.mark.long
def test_nothing_automatic_happens_at_a_table_with_no_device(tmp_path: Path):
    """Jon Dahl's first lateness point falls due while table 12 has no device: the hub gives
    nothing (it would be decided on a state nobody updates); the new device ends it."""
    room, hub = hub_with_match(tmp_path)
    with cleanup(room, hub):
        old = enroll(hub, tmp_path, "dev-old", "12")
        seed_waiting(old, "12", "r1-t12", first_point_in_ms=30_000)
        table = Table(tmp_path, old / "table.toml", "old")
        monitor = Monitor(room, EVENT, "12")
        with cleanup(table, monitor):
            state = wait_until(
                lambda: (s := (hub.table("12") or {}).get("state") or {}).get("present", {}).get("A") and s,
                WAIT,
                "table 12 with Anna Berg checked in, on the hub",
            )
            # when Jon Dahl's first point falls due: five minutes after the table took the match
            due = time.monotonic() + (5 * MIN - state["assigned_ms"]) / 1000
            assert due - time.monotonic() > 5, "the table started too late for this test's point"
            assert hub.online("12") and auto_commands(hub, "12") == []
            watch = OfflineWatch(hub, "12")
            retired = hub.td.post(
                "/api/fleet/dev-old/retire", {"override": {"match_id": "r1-t12", "score": {"A": 0, "B": 0}}}
            )
            assert retired["state"] == "retired"
            gone = time.monotonic()
            # the first point's moment passes while the table has no device (and the hub's next look)
            wait_until(lambda: time.monotonic() > due + 10, 60, "the point's moment")
            assert auto_commands(hub, "12") == [], "the hub decided on the state of a device that is gone"
            assert not [p for t, p, _ in monitor.on("cmd") if t >= gone], "a command went to table 12"
            took = watch.wait(OFFLINE_S)
            print(f"retired → offline on the API: {took:.2f} s")

            new = enroll(
                hub, tmp_path, "dev-new", "12", override={"match_id": "r1-t12", "score": {"A": 0, "B": 0}}
            )
            replacement = Table(tmp_path, new / "table.toml", "new")
            with cleanup(replacement):
                wait_until(lambda: hub.online("12"), WAIT, "table 12 online with its new device")
                detail = wait_until(
                    lambda: (
                        (d := hub.table("12"))
                        and (d["state"] or {}).get("match_id") == "r1-t12"
                        and d["tile"]["status"] != "offline"
                        and d
                    ),
                    WAIT,
                    "the new device holding r1-t12",
                )
                # lateness at the new device counts from when it took the match: nothing due yet
                assert detail["tile"]["online"] is True
                assert auto_commands(hub, "12") == []


@pytest.mark.long
def test_a_device_changed_mid_match_needs_the_match_named_and_the_new_one_takes_its_score(
    tmp_path: Path,
):
    room, hub = hub_with_match(tmp_path)
    with cleanup(room, hub):
        old = enroll(hub, tmp_path, "dev-old", "12")
        seed_waiting(old, "12", "r1-t12", first_point_in_ms=4 * MIN)
        table = Table(tmp_path, old / "table.toml", "old")
        with cleanup(table):
            wait_until(lambda: hub.online("12"), WAIT, "table 12 online")
            hub.td.post("/api/tables/12/commands", {"type": "penalty", "against": "B", "points": 2})
            hub.td.post("/api/tables/12/commands", {"type": "penalty", "against": "A", "points": 1})
            wait_until(
                lambda: (hub.table("12") or {})["tile"]["score"] == {"A": 2, "B": 1}, WAIT, "2-1 at table 12"
            )
            pending = enroll_pending(hub, tmp_path, "dev-new")

            # Retiring the device, or enrolling another one as table 12, is refused until the TD
            # names the match and its score (a typo for another table must not take this one over).
            status, body = post_error(hub, "/api/fleet/dev-old/retire", {})
            assert status == 409 and body["code"] == "match_in_progress", body
            assert body["match_id"] == "r1-t12" and body["score"] == {"A": 2, "B": 1}
            assert "r1-t12" in body["error"] and "2–1" in body["error"] and "Anna Berg" in body["error"]
            path, code = "/api/fleet/dev-new/enroll", pending.code()
            status, body = post_error(hub, path, {"table": "12", "code": code})
            assert (status, body["code"], body["match_id"]) == (409, "match_in_progress", "r1-t12"), body
            wrong = {"match_id": "r1-t12", "score": {"A": 0, "B": 0}}
            status, body = post_error(hub, path, {"table": "12", "code": code, "override": wrong})
            assert (status, body["code"], body["score"]) == (409, "match_in_progress", {"A": 2, "B": 1})
            assert hub.device("dev-old")["state"] == "enrolled"  # type: ignore[index]

            override = {"match_id": "r1-t12", "score": {"A": 2, "B": 1}}
            hub.td.post(path, {"table": "12", "code": code, "override": override})
            assert pending.wait() == 0, pending.err.lines
            wait_until(lambda: not hub.online("12"), OFFLINE_S, "table 12 offline")

            replacement = Table(tmp_path, tmp_path / "dev-new" / "table.toml", "new")
            with cleanup(replacement):
                wait_until(lambda: hub.online("12"), WAIT, "table 12 online with its new device")
                online = time.monotonic()
                # the new device took the match at 0-0: the TD is told, naming the table and the
                # match, and the hub sends it the last known score
                back = wait_until(
                    lambda: [a for a in hub.td.get("/api/alerts") if a["kind"] == "score_backwards"],
                    WAIT,
                    "the TD told that the score went back",
                )
                detail = wait_until(
                    lambda: (
                        (d := hub.table("12")) and (d["state"] or {}).get("score") == {"A": 2, "B": 1} and d
                    ),
                    WAIT,
                    "the new device at 2-1",
                )
                print(
                    f"new device online → the last known score on the hub: {time.monotonic() - online:.2f} s"
                )
                assert detail["state"]["match_id"] == "r1-t12"
                assert detail["state"]["penalty_log"] == []  # the new device's own state, not the old one's
                back = [a for a in hub.td.get("/api/alerts") if a["kind"] == "score_backwards"]
                assert len(back) == 1, back
                assert back[0]["table"] == "12" and back[0]["match_id"] == "r1-t12"
                assert "Table 12" in back[0]["message"] and "r1-t12" in back[0]["message"]
                assert "2–1" in back[0]["message"] and "new device" in back[0]["message"]
