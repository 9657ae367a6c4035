"""The hub against a real broker and a simulated table: assignment, automatic lateness, waivers,
restarts, offline tables."""

from __future__ import annotations

from rulebook.snapshot import snapshot
from tests.hub.support import (
    MIN,
    T0,
    Spy,
    event_id,
    hub_state,
    one_match,
    present,
    sim_table,
    start_hub,
    tick,
)


def penalties(sim) -> dict[str, int]:
    return snapshot(sim.state)["penalties"]


def late_ids(sim) -> list[str]:
    return [c["id"] for c in sim.cmds if c["id"].startswith("late:")]


def test_assignment_reaches_the_table(tmp_path, mosquitto, clock):
    ev = event_id("assign")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7))
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            st = sim.wait_for(lambda s: s.match_id == "r1-t1")
            assert st.match is not None and st.match.length == 7
            assert st.players.a[0] == "Ann" and st.players.b[0] == "Bob"
            assert st.start_wall == T0 and st.round == "1"
            # the hub sees the table's state for its match
            hub.wait_for(lambda h: hub_state(h, "1").get("match_id") == "r1-t1")
            tile = hub.call(hub.hub.tile, "1")
            assert tile["players"] == {"A": "Ann", "B": "Bob"} and tile["length"] == 7
    finally:
        hub.stop()


def _setup_late(tmp_path, mosquitto, clock, name, **config):
    ev = event_id(name)
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7), **config)
    return ev, hub


def test_twelve_minutes_late_gets_exactly_two_points(tmp_path, mosquitto, clock):
    ev, hub = _setup_late(tmp_path, mosquitto, clock, "late12")
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 12 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            # more ticks at the same moment send nothing new; a TD command sent after them
            # arrives after anything they could have sent
            tick(hub)
            tick(hub)
            marker = hub.call(hub.hub.actions.td_command, "1", "td_ack", {}, "test")
            sim.wait_cmd(marker["id"])
            assert late_ids(sim) == ["late:r1-t1:B:1", "late:r1-t1:B:2"]
            assert penalties(sim) == {"A": 0, "B": 2}
            assert snapshot(sim.state)["score"] == {"A": 2, "B": 0}
            # the hub recorded both answers
            hub.wait_for(lambda h: h.store.command("late:r1-t1:B:2")["done_ok"] is True)
    finally:
        hub.stop()


def test_twenty_minutes_late_forfeits(tmp_path, mosquitto, clock):
    ev, hub = _setup_late(tmp_path, mosquitto, clock, "late20")
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 20 * MIN)
            tick(hub)
            st = sim.wait_for(lambda s: s.phase == "finished")
            snap = snapshot(st)
            assert snap["winner"] == "A" and snap["end_reason"] == "lateness"
            assert late_ids(sim) == [
                "late:r1-t1:B:1",
                "late:r1-t1:B:2",
                "late:r1-t1:B:3",
                "late:r1-t1:B:forfeit",
            ]
            # the hub records the result, waiting for verification
            hub.wait_for(lambda h: "r1-t1" in h.results)
            result = hub.call(lambda: hub.hub.results["r1-t1"])
            assert result["winner"] == "A" and result["end_reason"] == "lateness" and not result["verified"]
    finally:
        hub.stop()


def test_waiver_restores_the_score(tmp_path, mosquitto, clock):
    ev, hub = _setup_late(tmp_path, mosquitto, clock, "waive")
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 11 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            cmd = hub.call(hub.hub.actions.td_command, "1", "waive", {"penalty_id": "late:r1-t1:B:2"}, "td")
            assert cmd["id"].startswith("td:")
            done = sim.wait_cmd(cmd["id"])
            assert done["ok"] is True
            snap = snapshot(sim.state)
            assert snap["score"] == {"A": 1, "B": 0} and snap["penalties"] == {"A": 0, "B": 1}
            # the waived penalty is never sent again; the next point still comes when due
            hub.wait_for(lambda h: h.store.command(cmd["id"])["done_ok"] is True)
            clock.set(T0 + 15 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            assert late_ids(sim) == ["late:r1-t1:B:1", "late:r1-t1:B:2", "late:r1-t1:B:3"]
            assert snapshot(sim.state)["score"] == {"A": 2, "B": 0}
            audit = hub.call(hub.hub.store.audit_log, "1")
            assert any(a["action"] == "cmd:waive" and a["actor"] == "td" for a in audit)
    finally:
        hub.stop()


def test_restarted_hub_awards_nothing_twice(tmp_path, mosquitto, clock):
    ev = event_id("restart")
    db = tmp_path / "restart.db"
    spy = Spy(mosquitto.host, mosquitto.port, ev, "table/+/cmd")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7), db=db)
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 7 * MIN)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
            hub.wait_for(lambda h: h.store.command("late:r1-t1:B:1")["done_ok"] is True)
            hub.stop()

            # a new hub object on the same database, later in the same lateness
            clock.set(T0 + 12 * MIN)
            hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, db=db)
            hub.wait_for(lambda h: h.views["1"].online and h.views["1"].state_fresh)  # its current state
            tick(hub)
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            marker = hub.call(hub.hub.actions.td_command, "1", "td_ack", {}, "test")
            sim.wait_cmd(marker["id"])
            spy.wait_for(lambda s: any(p["id"] == marker["id"] for p in s.payloads("/cmd")))
            # a command the table has not answered yet is sent again, under the same id, when the
            # table comes online (the table applies an id once): what must never happen is a new id
            # for a point already given, or a point applied twice
            sent = [p["id"] for p in spy.payloads("/cmd") if p["id"].startswith("late:")]
            assert list(dict.fromkeys(sent)) == ["late:r1-t1:B:1", "late:r1-t1:B:2"]
            assert penalties(sim) == {"A": 0, "B": 2}
            assert snapshot(sim.state)["score"] == {"A": 2, "B": 0}
    finally:
        hub.stop()
        spy.close()


def test_offline_table_gets_an_alert_never_a_penalty(tmp_path, mosquitto, clock):
    ev, hub = _setup_late(tmp_path, mosquitto, clock, "offline", offline_grace_ms=30_000)
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            sim.stop(graceful=False)  # a power cut: the broker publishes the Will
            hub.wait_for(lambda h: not h.views["1"].online)
            tick(hub)
            # within the grace period: reconnecting, no alert yet
            assert not any(a["kind"] == "offline" for a in hub.call(hub.hub.alert_list))
            clock.set(T0 + 12 * MIN)
            tick(hub)
            alerts = hub.call(hub.hub.alert_list)
            offline = [a for a in alerts if a["kind"] == "offline"]
            assert len(offline) == 1 and offline[0]["urgency"] == "high" and offline[0]["table"] == "1"
            assert "not applied" in offline[0]["message"]
            assert hub.call(hub.hub.store.commands, "1") == []
            assert hub.call(hub.hub.tile, "1")["status"] == "offline"
    finally:
        hub.stop()


def test_break_overrun_points_and_suspended_automation(tmp_path, mosquitto, clock):
    ev, hub = _setup_late(tmp_path, mosquitto, clock, "overrun")
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(6, 1)
            sim.win("A")
            clock.set(T0 + 10 * MIN)
            sim.take_break("B")  # five minutes: until T0 + 15 min
            hub.wait_for(lambda h: hub_state(h, "1").get("phase") == "break")
            tick(hub)
            # a permitted break is counted, not alerted; it ends at T0 + 15 in the hub's time
            kinds = {a["kind"]: a for a in hub.call(hub.hub.alert_list)}
            assert "break" not in kinds and "break_overrun" not in kinds
            on_break = hub.call(hub.hub.room)["counters"]["on_break"]
            assert on_break["count"] == 1 and on_break["items"][0]["side"] == "B"
            assert on_break["items"][0]["ends_wall"] == T0 + 15 * MIN
            # the TD suspends automation: the overrun is reported, nothing is sent
            hub.call(hub.hub.actions.set_automation, "1", True, "td")
            clock.set(T0 + 26 * MIN)  # 11 minutes over: 2 points due
            tick(hub)
            kinds = {a["kind"]: a for a in hub.call(hub.hub.alert_list)}
            assert kinds["break_overrun"]["urgency"] == "high" and "break" not in kinds
            assert hub.call(hub.hub.store.commands, "1") == []
            hub.call(hub.hub.actions.set_automation, "1", False, "td")
            tick(hub)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            ids = [c["id"] for c in sim.cmds]
            assert ids == ["break:r1-t1:B:1:1", "break:r1-t1:B:1:2"]
            assert {p["reason"] for p in snapshot(sim.state)["penalty_log"]} == {"break_overrun"}
            sim.back("B")
            hub.wait_for(lambda h: hub_state(h, "1").get("phase") == "between_games")
            tick(hub)
            assert "break_overrun" not in {a["kind"] for a in hub.call(hub.hub.alert_list)}
    finally:
        hub.stop()


def test_ffbg_with_a_clock_starts_the_late_players_clock(tmp_path, mosquitto, clock):
    ev = event_id("ffbg")
    hub = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, ev, clock, schedule=one_match("1", 7, profile="ffbg-cdf")
    )
    try:
        with sim_table(ev, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            sim.checkin("A")
            hub.wait_for(lambda h: present(h, "1", "A"))
            clock.set(T0 + 1000)
            tick(hub)
            st = sim.wait_for(lambda s: s.clock.running == "B")
            assert [c["id"] for c in sim.cmds] == ["late:r1-t1:B:clock"]
            clock.set(T0 + 30 * MIN)
            tick(hub)
            marker = hub.call(hub.hub.actions.td_command, "1", "td_ack", {}, "test")
            sim.wait_cmd(marker["id"])
            assert snapshot(sim.state)["penalties"] == {"A": 0, "B": 0}
            assert st.profile.name == "ffbg-cdf"
    finally:
        hub.stop()
