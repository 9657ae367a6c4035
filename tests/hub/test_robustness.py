"""Garbage on the hub's topics, a table that reconnects, the embedded broker, a bad schedule."""

from __future__ import annotations

import json
import logging

import pytest

from hub.cli import main as bghub_main
from hub.tournament.schedule import ScheduleError
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import (
    MIN,
    T0,
    Spy,
    event_id,
    hub_state,
    one_match,
    present,
    publish,
    schedule_csv,
    sim_table,
    start_hub,
    tick,
)
from tests.support.broker import free_port


def _valid_state(table: str) -> dict:
    st, _ = apply(
        new_table(table),
        {
            "input": "assign",
            "at": 0,
            "wall": T0,
            "match_id": "m-ok",
            "length": 5,
            "players": {"A": {"name": "Cy", "id": ""}, "B": {"name": "Di", "id": ""}},
            "profile": "wbgf-2023",
            "clock": False,
        },
    )
    return snapshot(st)


def test_malformed_payloads_on_every_hub_topic_are_logged_and_ignored(tmp_path, mosquitto, clock, caplog):
    ev = event_id("garbage")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    base = f"bg/v1/{ev}/table"
    good = _valid_state("9")
    bad_states = [
        b"not json",
        b"\xff\xfe\xfa",
        b"[1, 2, 3]",
        b'"a string"',
        json.dumps({**good, "phase": "dancing"}).encode(),
        json.dumps({**good, "score": {"A": "3", "B": 0}}).encode(),
        json.dumps({**good, "seq": -4}).encode(),
        json.dumps({**good, "present": None}).encode(),
        json.dumps({**good, "clock": {"enabled": "yes"}}).encode(),
        json.dumps({**good, "breaks": {"A": {"used": "x"}, "B": {}}}).encode(),
        json.dumps({**good, "table": "10"}).encode(),
        json.dumps({**good, "players": ["Cy", "Di"]}).encode(),
        b"{" * 5000,
        b" " * (300 * 1024),
    ]
    bad_events = [
        b"garbage",
        b"{}",
        json.dumps({"seq": "1", "match_id": "m-ok", "type": "checkin"}).encode(),
        json.dumps({"seq": 1, "match_id": 7, "type": "checkin"}).encode(),
        json.dumps({"seq": 1, "match_id": "m-ok", "type": 5}).encode(),
        json.dumps({"seq": 0, "match_id": "m-ok", "type": "checkin"}).encode(),
        json.dumps({"seq": 2, "match_id": "m-ok", "type": "cmd_done", "wall": "noon"}).encode(),
        json.dumps({"seq": True, "match_id": "m-ok", "type": "x"}).encode(),
    ]
    bad_status = [
        b"",
        b"null",
        json.dumps({"online": "yes"}).encode(),
        b"{}",
        json.dumps({"online": 1}).encode(),
    ]
    items: list[tuple[str, bytes, bool]] = []
    items += [(f"{base}/9/state", p, False) for p in bad_states]
    items += [(f"{base}/9/evt", p, False) for p in bad_events]
    items += [(f"{base}/9/status", p, False) for p in bad_status]
    items += [
        (f"{base}/bad$id/state", json.dumps(good).encode(), False),
        (f"{base}/9/extra/state", json.dumps(good).encode(), False),
        (f"{base}/9/whatever", b"{}", False),
    ]
    try:
        with caplog.at_level(logging.WARNING):
            publish(mosquitto.host, mosquitto.port, items)
            # then a good state and event: the hub is alive and takes them
            event = {"seq": 1, "match_id": "m-ok", "type": "assign", "wall": T0}
            publish(
                mosquitto.host,
                mosquitto.port,
                [(f"{base}/9/evt", json.dumps(event), False), (f"{base}/9/state", json.dumps(good), False)],
            )
            hub.wait_for(lambda h: hub_state(h, "9").get("match_id") == "m-ok")
            hub.wait_for(lambda h: len(h.store.events("9")) == 1)
        assert hub_state(hub.hub, "9")["phase"] == "waiting"
        assert hub.call(hub.hub.store.events, "9")[0]["type"] == "assign"
        assert hub.hub.views["9"].status is None  # no bad status was taken
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        # every bad message left a log line (some are dropped by the link, others by the hub)
        assert len(warnings) >= len(bad_states) + len(bad_events) + len(bad_status) - 1
        assert any("phase" in r.getMessage() for r in warnings)
        assert hub.hub.stats["dropped"] >= 8
    finally:
        hub.stop()


def test_a_table_that_reconnects_while_waiting_keeps_its_lateness_points(tmp_path, mosquitto, clock):
    ev = event_id("reconnect")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7))
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 7 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
            sim.link.stop(graceful=False)
        # the same table comes back (the broker delivers the retained assignment again)
        sim2 = type(sim)(ev, "1", mosquitto.host, mosquitto.port, clock=clock)
        sim2.state = sim.state
        sim2.start()
        try:
            sim2.wait_for(lambda s: len(sim2.assigns) == 1)
            assert snapshot(sim2.state)["penalties"] == {"A": 0, "B": 1}
            assert snapshot(sim2.state)["score"] == {"A": 1, "B": 0}
        finally:
            sim2.stop()
    finally:
        hub.stop()


def test_embedded_broker_assignment_reaches_the_table(tmp_path, clock):
    ev = event_id("amqtt")
    port = free_port()
    hub = start_hub(tmp_path, "127.0.0.1", port, ev, clock, schedule=one_match("3", 5), embedded=True)
    try:
        with sim_table(ev, "3", "127.0.0.1", port, clock) as sim:
            st = sim.wait_for(lambda s: s.match_id == "r1-t3")
            assert st.match is not None and st.match.length == 5
            hub.wait_for(lambda h: hub_state(h, "3").get("match_id") == "r1-t3")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "3", "A"))
    finally:
        hub.stop()


BAD_CSV = (
    "round,table,player_a,player_b,length,start\n"
    "1,1,Ann,Bob,7,2030-03-17T14:00\n"
    "1,2,Cy,Di,seven,2030-03-17T14:00\n"
    "1,3,Ed,Ed,7,2030-03-17T14:00\n"
    "1,4,Fay,Gus,7,tomorrow\n"
    "1,1,Hal,Ida,7,2030-03-17T14:00\n"
)


def test_bad_schedule_is_refused_with_line_numbers_and_nothing_imported(tmp_path, mosquitto, clock):
    ev = event_id("badcsv")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("7", 7))
    try:
        with pytest.raises(ScheduleError) as info:
            hub.call(hub.hub.round_control.import_schedule, BAD_CSV, "td")
        lines = sorted({i.line for i in info.value.issues})
        assert lines == [3, 4, 5, 6]
        text = str(info.value)
        assert "line 3: length" in text and "line 4: player_a and player_b" in text
        assert "line 5: start" in text and "line 6: table 1 already has a match in round 1" in text
        # nothing of the bad file, and the earlier schedule untouched
        rows = hub.call(hub.hub.store.schedule)
        assert [r.match_id for r in rows] == ["r1-t7"]
    finally:
        hub.stop()


def test_bghub_refuses_a_bad_schedule_at_start(tmp_path, mosquitto, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV, encoding="utf-8")
    code = bghub_main(
        [
            "--event",
            event_id("clibad"),
            "--broker",
            mosquitto.url,
            "--schedule",
            str(bad),
            "--db",
            str(tmp_path / "cli.db"),
            "--http",
            "127.0.0.1:0",
            "--password-file",
            str(_password_file(tmp_path)),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "nothing imported" in err and "line 3: length" in err and "line 6" in err


def _password_file(tmp_path):
    path = tmp_path / "password"
    path.write_text("correct horse battery\n", encoding="utf-8")
    return path


def test_schedule_for_two_rounds_assigns_the_next_after_the_first_is_done(tmp_path, mosquitto, clock):
    ev = event_id("rounds")
    csv = schedule_csv(
        [
            {"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 1, "start": T0},
            {
                "round": 2,
                "table": "1",
                "player_a": "Cy",
                "player_b": "Di",
                "length": 3,
                "start": T0 + 60 * MIN,
            },
        ]
    )
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=csv)
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(5, 2)
            sim.win("A")
            sim.wait_for(lambda s: s.phase == "finished")
            hub.wait_for(lambda h: "r1-t1" in h.results)
            tick(hub)
            assert sim.state.match_id == "r1-t1"  # the result stays on the table for now
            sim.confirm("A")
            sim.confirm("B")
            hub.wait_for(lambda h: hub_state(h, "1").get("confirmed", {}).get("B"))
            tick(hub)
            st = sim.wait_for(lambda s: s.match_id == "r2-t1")
            assert st.players.a[0] == "Cy" and st.match is not None and st.match.length == 3
            # The table now reports r2: its r1 confirmation is no longer in its state, yet the
            # hub must not send r1 again (inside the hold time, the table would refuse it).
            hub.wait_for(lambda h: hub_state(h, "1").get("match_id") == "r2-t1")
            tick(hub)
            assert hub.call(lambda: hub.hub.current["1"].match.match_id) == "r2-t1"
    finally:
        hub.stop()


def test_a_gap_in_event_seqs_asks_the_table_to_resync(tmp_path, mosquitto, clock):
    ev = event_id("gap")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    spy = Spy(mosquitto.host, mosquitto.port, ev, "table/+/resync")
    try:
        base = f"bg/v1/{ev}/table/4/evt"
        events = [{"seq": s, "match_id": "m4", "type": "tick", "wall": T0} for s in (1, 2, 5)]
        publish(mosquitto.host, mosquitto.port, [(base, json.dumps(e), False) for e in events])
        spy.wait_for(lambda s: s.payloads("/resync"))
        assert spy.payloads("/resync") == [{"match_id": "m4", "from_seq": 3}]
        # the missing events arrive (a resync re-sends from 3, including a duplicate of 5)
        more = [{"seq": s, "match_id": "m4", "type": "tick", "wall": T0} for s in (3, 4, 5)]
        publish(mosquitto.host, mosquitto.port, [(base, json.dumps(e), False) for e in more])
        hub.wait_for(lambda h: len(h.store.events("4")) == 5)
        assert [e["seq"] for e in hub.call(hub.hub.store.events, "4", "m4")] == [1, 2, 3, 4, 5]
        assert hub.hub.stats["duplicates"] >= 1 and hub.hub.stats["resyncs"] == 1
    finally:
        spy.close()
        hub.stop()


def test_a_match_moved_to_another_table_is_withdrawn_from_the_first(tmp_path, mosquitto, clock):
    ev = event_id("move")
    spy = Spy(mosquitto.host, mosquitto.port, ev, "table/+/assign")
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7, match_id="final")
    )
    try:
        spy.wait_for(lambda s: s.payloads("/table/1/assign"))
        hub.call(hub.hub.round_control.import_schedule, one_match("2", 7, match_id="final"), "td")
        spy.wait_for(lambda s: s.payloads("/table/2/assign"))
        spy.wait_for(lambda s: any(t.endswith("/table/1/assign") and p == b"" for t, p, _ in s.messages))
        assert spy.payloads("/table/2/assign")[-1]["match_id"] == "final"
        assert hub.call(lambda: dict(hub.hub.assigned)) == {"2": "final"}
    finally:
        spy.close()
        hub.stop()
