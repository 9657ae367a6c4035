"""Automation derived from the model, never stale (issue 19, item 2).

The TD's room actions (start a round now, delay it, pause and resume the clocks, suspend and
resume automatic lateness), imports and hub restarts never leave a table's lateness off: each
table's deadlines are worked out again from the hub's schedule at once, and a mark that fell due
while automation was held is decided when it resumes — given, or reported as not given and why.
The property: whatever the TD does to the room, the hub gives the same automatic commands as a
hub that never paused, working from the final schedule (same ids, none twice, none missing).

Pure parts with hand-made timings; the room with a real Hub in process on a fake clock
(tests/hub/room_sim.py); the real-process case is tests/hub/test_round_moves_lateness.py.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from hub.live.actions import ActionError
from hub.live.clock import FakeClock
from hub.logic.conditions import AlertConfig, Context, hhmm, table_alerts
from hub.logic.holds import Hold, hold_reason, not_given, resumed
from hub.logic.lateness import LateConfig, due_commands, timing
from hub.logic.table_view import TableView
from hub.logic.timeline import Filters
from hub.tournament.schedule import ScheduledMatch, parse_schedule
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.room_sim import SimRoom
from tests.hub.support import MIN, T0, schedule_csv

WBGF = get_profile("wbgf-2023")
PLAYERS = {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}}


def match(length: int = 7, start: int = T0) -> ScheduledMatch:
    (m,) = parse_schedule(
        schedule_csv(
            [
                {
                    "round": 1,
                    "table": 1,
                    "player_a": "Ann",
                    "player_b": "Bob",
                    "length": length,
                    "start": start,
                    "match_id": "m1",
                }
            ]
        )
    )
    return m


def state_with(checkins: list[tuple[str, int]], published: int, length: int = 7) -> dict[str, Any]:
    """A table assigned at ``at`` 0 (its wall clock T0 - 1 min), with check-ins at ``at`` ms,
    published at ``published``: received by the hub at T0 - 1 min + ``published``."""
    st_, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": T0 - MIN,
            "match_id": "m1",
            "length": length,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
            "start_wall": T0,
        },
    )
    for side, at in checkins:
        st_, events = apply(st_, {"input": "checkin", "side": side, "at": at})
        assert not any(e.get("rejected") for e in events)
    return snapshot(st_, published)


def at_min(minutes: float) -> int:
    """``at`` on the table's clock of T0 + ``minutes`` (its clock read 0 at T0 - 1 min)."""
    return int((minutes + 1) * MIN)


# -- the marks before a late arrival ---------------------------------------------------------------


def test_marks_that_fell_before_a_late_player_checked_in_are_due_with_when():
    # A there from the start; Bob checks in at 12 minutes: the marks at 5 and 10 were his
    state = state_with([("A", 0), ("B", at_min(12))], at_min(30))
    received = T0 + 30 * MIN
    assert state["phase"] == "opening"
    t = timing(match(), state, received=received, profile=WBGF, config=LateConfig())
    due = due_commands(t, received)
    assert [(c.id, c.due_wall) for c in due] == [
        ("late:m1:B:1", T0 + 5 * MIN),
        ("late:m1:B:2", T0 + 10 * MIN),
    ]
    # nothing for Ann, and nothing more later: Bob is here
    assert due_commands(t, received + 60 * MIN) == due


def test_a_mark_at_the_moment_of_the_check_in_is_not_due():
    state = state_with([("A", 0), ("B", at_min(10))], at_min(11))
    t = timing(match(), state, received=T0 + 11 * MIN, profile=WBGF, config=LateConfig())
    assert [c.id for c in due_commands(t, T0 + 11 * MIN)] == ["late:m1:B:1"]


def test_the_forfeit_that_fell_before_a_late_check_in_is_due_too():
    # a 5-point match: points at 5 and 10, the forfeit at 15; Bob arrived at 16
    state = state_with([("A", 0), ("B", at_min(16))], at_min(20), length=5)
    t = timing(match(5), state, received=T0 + 20 * MIN, profile=WBGF, config=LateConfig())
    assert [c.id for c in due_commands(t, T0 + 20 * MIN)] == [
        "late:m1:B:1",
        "late:m1:B:2",
        "late:m1:B:forfeit",
    ]
    assert due_commands(t, T0 + 20 * MIN)[-1].due_wall == T0 + 15 * MIN


def test_both_arriving_late_the_marks_both_missed_still_cancel_out():
    # Ann at 7, Bob at 12: Bob's mark at 5 found Ann absent too; his mark at 10 is due
    state = state_with([("A", at_min(7)), ("B", at_min(12))], at_min(20))
    t = timing(match(), state, received=T0 + 20 * MIN, profile=WBGF, config=LateConfig())
    assert [c.id for c in due_commands(t, T0 + 20 * MIN)] == ["late:m1:B:2"]


# -- holds --------------------------------------------------------------------------------------------


def test_why_automation_is_held():
    on = TableView("1", status={"online": True}, online=True, state_fresh=True)
    assert hold_reason(on, suspended=False, cut_off=False) is None
    assert hold_reason(on, suspended=True, cut_off=False) == "suspended"
    assert hold_reason(on, suspended=False, cut_off=True) == "cut_off"
    assert hold_reason(replace(on, state_fresh=False), suspended=False, cut_off=False) == "state"
    assert hold_reason(replace(on, online=False), suspended=False, cut_off=False) == "offline"


def test_a_hold_ending_reports_what_it_gave_late_and_the_marks_the_rules_did_not_give():
    # Ann checked in at 7 minutes; the hub was held from 2 to 13 minutes; Bob still absent
    state = state_with([("A", at_min(7))], at_min(13))
    now = T0 + 13 * MIN
    t = timing(match(), state, received=now, profile=WBGF, config=LateConfig())
    sent = due_commands(t, now)
    assert [c.id for c in sent] == ["late:m1:B:2"]  # the mark at 10; the one at 5 found Ann absent
    report = resumed(t, Hold(T0 + 2 * MIN, "suspended"), now, sent)
    assert [c.id for c in report.given] == ["late:m1:B:2"]
    # at 5 minutes neither was there: one mark, no point for either
    assert [m.as_dict() for m in report.missed] == [
        {"side": "both", "wall": T0 + 5 * MIN, "why": "both_absent"}
    ]
    assert report.detail()["reason"] == "suspended"
    # a hold that began after the mark at 5 reports nothing of it
    assert not_given(t, T0 + 6 * MIN, now) == []
    # nothing fell due during a hold that ended before the first mark: nothing to report
    early = timing(
        match(), state_with([("A", 0)], at_min(3)), received=T0 + 3 * MIN, profile=WBGF, config=LateConfig()
    )
    assert not resumed(early, Hold(T0, "state"), T0 + 3 * MIN, [])


# -- what the TD is told -----------------------------------------------------------------------------


def _late_alert(state: dict[str, Any], now: int, commands: dict, **ctx: Any) -> str:
    m = match()
    view = TableView(
        "1", status={"online": True}, online=True, state=state, state_wall=T0 - MIN, state_fresh=True
    )
    t = timing(m, state, received=T0 - MIN, profile=WBGF, config=LateConfig())
    specs = table_alerts(
        view,
        m,
        now=now,
        config=AlertConfig(),
        profile=WBGF,
        context=Context(timing=t, commands=commands, **ctx),
    )
    (late,) = [s for s in specs if s.kind == "late"]
    return late.message


def test_the_late_alert_never_says_one_point_given_while_a_second_is_due():
    state = state_with([("A", 0)], 1000)
    state["penalty_log"] = [
        {"id": "late:m1:B:1", "against": "B", "points": 1, "reason": "late", "waived": False}
    ]
    commands = {"late:m1:B:1": {"created_wall": T0 + 5 * MIN, "sent_wall": T0 + 5 * MIN, "done_ok": 1}}
    now = T0 + 11 * MIN
    held = _late_alert(state, now, commands, held="waiting for the table's current state")
    assert held.endswith(
        f"1 point given automatically at {hhmm(T0 + 5 * MIN)}; 1 point more due, not given: waiting for the "
        f"table's current state — next point at {hhmm(T0 + 15 * MIN)}"
    )
    assert "1 point more due, being sent" in _late_alert(state, now, commands)
    # the last mark passed (a 7-point match's forfeit came at 20): nothing "to come" is named
    over = _late_alert(state, T0 + 21 * MIN, commands, held="automation suspended")
    assert "next point" not in over and "forfeit at" not in over and not over.endswith("— ")


# -- the room: whatever the TD does, the same commands as a hub that never paused ---------------------

ROUND2 = T0 + 90 * MIN
ACTIONS = (
    "delay1",
    "start1",
    "delay2",
    "start2",
    "pause",
    "resume_clocks",
    "suspend",
    "resume",
    "import",
    "restart",
)


def room_schedule(lengths: list[int]) -> list[ScheduledMatch]:
    rows = []
    for i, n in enumerate(lengths, 1):
        rows.append(
            {"round": 1, "table": str(i), "player_a": f"A{i}", "player_b": f"B{i}", "length": n, "start": T0}
        )
        rows.append(
            {
                "round": 2,
                "table": str(i),
                "player_a": f"C{i}",
                "player_b": f"D{i}",
                "length": n,
                "start": ROUND2,
            }
        )
    return parse_schedule(schedule_csv(rows))


def csv_of(schedule: list[ScheduledMatch]) -> str:
    return schedule_csv(
        [
            {
                "round": m.round,
                "table": m.table,
                "player_a": m.player_a,
                "player_b": m.player_b,
                "length": m.length,
                "start": m.start_wall,
                "match_id": m.match_id,
            }
            for m in schedule
        ]
    )


#: per table: when A and B check in (minutes after T0; None: never)
arrival = st.one_of(st.none(), st.integers(min_value=-2, max_value=35))
tables_st = st.lists(st.tuples(st.sampled_from([3, 5, 7]), arrival, arrival), min_size=1, max_size=3)
actions_st = st.lists(
    st.tuples(st.integers(min_value=-2, max_value=40), st.sampled_from(ACTIONS), st.integers(1, 12)),
    max_size=8,
)


def _act(room: SimRoom, kind: str, n: int, now: int) -> None:
    """One TD action (or a hub restart). A round's start is moved only before its first mark:
    lateness already given under a start the TD then moves stays given (same ids), which a
    reference built from the final schedule cannot know."""
    hub = room.hub
    assert hub is not None
    rc = hub.round_control
    start1 = hub.room_state.by_id["r1-t1"].start_wall
    movable = now < start1 + 4 * MIN
    try:
        if kind == "delay1" and movable:
            rc.delay("1", n, "td")
        elif kind == "start1" and movable:
            rc.start_now("1", "td")
        elif kind == "delay2":
            rc.delay("2", n, "td")
        elif kind == "start2":
            rc.start_now("2", "td")
        elif kind == "pause":
            rc.pause_all("td")
        elif kind == "resume_clocks":
            rc.resume_all("td")
        elif kind == "suspend":
            rc.set_room_automation(True, "td")
        elif kind == "resume":
            rc.set_room_automation(False, "td")
        elif kind == "import":
            # the same schedule with round 2 a few minutes later: an import moving another round
            moved = [
                replace(m, start_wall=m.start_wall + n * MIN) if m.round == "2" else m for m in hub.schedule
            ]
            hub.round_control.import_schedule(csv_of(moved), "td")
    except ActionError:
        pass  # e.g. nothing left to delay: the TD is told, nothing happens


NEXT = re.compile(r"(?:next point|forfeit|first point) at (\d\d:\d\d)")


def _no_past_times(room: SimRoom, now: int) -> None:
    assert room.hub is not None
    for a in room.hub.alerts.active.values():
        for at in NEXT.findall(a["message"]):
            assert at >= hhmm(now), a["message"]
        data = a.get("data") or {}
        assert data.get("next_due_wall") is None or data["next_due_wall"] > now, a


def play(
    path: Path,
    tables: list[tuple[int, int | None, int | None]],
    actions: list[tuple[int, str, int]],
    schedule: list[ScheduledMatch] | None = None,
) -> tuple[SimRoom, list[ScheduledMatch]]:
    """Play the room from T0 - 2 min to T0 + 60 min, minute by minute: arrivals, the TD's
    actions, ticks. Returns the room and its final schedule."""
    clock = FakeClock(T0 - 2 * MIN)
    names = [str(i) for i in range(1, len(tables) + 1)]
    room = SimRoom(path, schedule or room_schedule([n for n, _, _ in tables]), clock, names)
    room.settle()
    down_until: int | None = None
    for minute in range(-2, 61):
        clock.set(max(clock.now_wall(), T0 + minute * MIN))
        now = clock.now_wall()
        for name, (_, a, b) in zip(names, tables, strict=True):
            sim = room.tables[name]
            if sim.state.match_id == f"r1-t{name}":
                for side, when in (("A", a), ("B", b)):
                    if when is not None and minute >= when:
                        room.checkin(name, side)
            elif sim.state.match_id == f"r2-t{name}":
                room.checkin(name, "A")
                room.checkin(name, "B")
        if down_until is not None and now >= down_until:
            room.start_hub()
            down_until = None
        for when, kind, n in actions:
            if when != minute or not room.alive:
                continue
            if kind == "restart":
                room.stop_hub()
                down_until = now + n * MIN
                break
            _act(room, kind, n, now)
        if room.alive:
            room.settle()
            _no_past_times(room, now)
    if not room.alive:
        room.start_hub()
    assert room.hub is not None
    room.hub.round_control.set_room_automation(False, "td")  # the reference never suspended
    room.settle()
    return room, list(room.hub.schedule)


@settings(
    max_examples=12,
    database=None,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(tables=tables_st, actions=actions_st)
# round 2 started before round 1's start, so the table's round-1 states counted as a later match's
# (refused) while its players checked in; once an import put round 1 first again, a point was
# given on the state held from before they came
@example(tables=[(3, 0, 2)], actions=[(0, "restart", 1), (-1, "start2", 1), (5, "import", 1)])
def test_property_the_td_moving_pausing_or_restarting_the_room_changes_no_automatic_command(
    tmp_path_factory: Any,
    tables: list[tuple[int, int | None, int | None]],
    actions: list[tuple[int, str, int]],
) -> None:
    tmp = tmp_path_factory.mktemp("room")
    room, final = play(tmp / "actual.db", tables, actions)
    actual = room.automatic()
    reference_room, _ = play(tmp / "reference.db", tables, [], schedule=final)
    reference = reference_room.automatic()
    assert {t: sorted(ids) for t, ids in actual.items()} == {t: sorted(ids) for t, ids in reference.items()}
    for name, sim in room.tables.items():
        assert len(sim.applied) == len(set(sim.applied)), sim.applied  # none twice
        auto = [i for i in sim.applied if i.startswith(("late:", "break:"))]
        assert sorted(auto) == sorted(actual.get(name, [])), (name, auto)  # each one applied


def test_points_missed_while_suspended_are_given_on_resuming_with_the_reason(tmp_path: Path) -> None:
    # table 1: B checks in at 12 minutes; the room is suspended from 3 to 20 minutes
    room, _ = play(tmp_path / "hub.db", [(7, -1, 12)], [(3, "suspend", 1), (20, "resume", 1)])
    assert room.automatic() == {"1": ["late:r1-t1:B:1", "late:r1-t1:B:2"]}
    hub = room.hub
    assert hub is not None
    rows = {r["action"]: r for r in hub.store.audit_log("1") if r["actor"] == "hub"}
    given = [r for r in hub.store.audit_log("1") if r["action"] == "cmd:penalty"]
    assert {r["detail"]["due_wall"] for r in given} == {T0 + 5 * MIN, T0 + 10 * MIN}
    assert all(r["wall"] == T0 + 20 * MIN and r["detail"]["held"] == "suspended" for r in given)
    report = rows["automation_resumed"]["detail"]
    assert report["reason"] == "suspended" and report["since"] == T0 + 3 * MIN
    assert [g["id"] for g in report["given"]] == ["late:r1-t1:B:1", "late:r1-t1:B:2"]
    texts = [i["text"] for i in hub.display.timeline(Filters(table="1"))]
    assert any(
        t.startswith("1 point against B1 (lateness) to A1 — due at ")
        and "given late: automatic lateness was suspended" in t
        for t in texts
    ), texts
    assert any(
        t.startswith("Automatic lateness back at table 1 after automatic lateness was suspended")
        for t in texts
    )


def test_marks_both_players_missed_during_a_restart_are_reported_not_given(tmp_path: Path) -> None:
    # A at 7 and B never: the hub is down from 2 to 12 minutes; the mark at 5 found A absent
    room, _ = play(tmp_path / "hub.db", [(7, 7, None)], [(2, "restart", 10)])
    assert room.automatic()["1"][:2] == ["late:r1-t1:B:2", "late:r1-t1:B:3"]
    hub = room.hub
    assert hub is not None
    (report,) = [r for r in hub.store.audit_log("1") if r["action"] == "automation_resumed"]
    assert report["detail"]["reason"] == "restart"
    assert report["detail"]["not_given"] == [{"side": "both", "wall": T0 + 5 * MIN, "why": "both_absent"}]
    texts = [i["text"] for i in hub.display.timeline(Filters(table="1"))]
    assert any(f"not given: {hhmm(T0 + 5 * MIN)} — both players were absent" in t for t in texts), texts
