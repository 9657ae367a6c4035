"""Lateness, presence and the table's time in the hub, as pure functions: what is due, when, and
what the TD is told (no broker; the MQTT tests are in test_lateness_mqtt.py and tests/faults)."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.logic.conditions import AlertConfig, Context, table_alerts
from hub.logic.lateness import LateConfig, due_commands, next_deadline, next_due, side_lateness, timing
from hub.logic.presence import PlayerIndex, previous_end, scheduled_twice, still_twice
from hub.logic.table_view import TableView
from hub.logic.tabletime import break_end, checked_in, clock_offset_ms, command_expiry
from hub.tournament.schedule import ScheduledMatch, parse_schedule
from rulebook.policy import forfeit_points
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import MIN, T0, schedule_csv

WBGF = get_profile("wbgf-2023")
FFBG = get_profile("ffbg-cdf")
PLAYERS = {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}}


def match(length: int = 7, start: int = T0, profile: str = "wbgf-2023", **extra: Any) -> ScheduledMatch:
    row = dict(
        round=1,
        table=1,
        player_a="Ann",
        player_b="Bob",
        length=length,
        start=start,
        match_id="m1",
        profile=profile,
        **extra,
    )
    (m,) = parse_schedule(schedule_csv([row]))
    return m


def table(
    inputs: list[dict[str, Any]],
    *,
    length: int = 7,
    profile: str = "wbgf-2023",
    clock: bool = True,
    wall: int = T0 - MIN,
) -> Any:
    """A table state after an assignment at ``at`` 0 (its wall clock reading ``wall``), then ``inputs``."""
    state, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": wall,
            "match_id": "m1",
            "length": length,
            "players": PLAYERS,
            "profile": profile,
            "clock": clock,
            "start_wall": T0,
        },
    )
    for inp in inputs:
        state, events = apply(state, inp)
        assert not any(e.get("rejected") for e in events), events
    return state


def waiting(present: tuple[str, ...] = ("A",), **kw: Any) -> dict[str, Any]:
    """A waiting match as published at ``at`` 1000: checked in at ``at`` 0."""
    return snapshot(table([{"input": "checkin", "side": s, "at": 0} for s in present], **kw), 1000)


def due(
    state: dict[str, Any],
    now: int,
    *,
    received: int = T0 - MIN,
    m: ScheduledMatch | None = None,
    profile: Any = WBGF,
    config: LateConfig | None = None,
    **kw: Any,
) -> list[str]:
    t = timing(m or match(), state, received=received, profile=profile, config=config or LateConfig(), **kw)
    return [c.id for c in due_commands(t, now)]


# -- the five-minute marks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("minutes", "expected"),
    [
        (0, []),
        (4.9, []),
        (5, ["late:m1:B:1"]),
        (12, ["late:m1:B:1", "late:m1:B:2"]),
        (15, ["late:m1:B:1", "late:m1:B:2", "late:m1:B:3"]),
        (20, ["late:m1:B:1", "late:m1:B:2", "late:m1:B:3", "late:m1:B:forfeit"]),
        (45, ["late:m1:B:1", "late:m1:B:2", "late:m1:B:3", "late:m1:B:forfeit"]),
    ],
)
def test_points_and_forfeit_at_seven_points(minutes, expected):
    assert due(waiting(), T0 + int(minutes * MIN)) == expected


def test_a_penalty_command_carries_its_fields():
    t = timing(match(), waiting(), received=T0 - MIN, profile=WBGF, config=LateConfig())
    (cmd,) = due_commands(t, T0 + 6 * MIN)
    assert cmd.payload(123) == {
        "id": "late:m1:B:1",
        "type": "penalty",
        "against": "B",
        "points": 1,
        "reason": "late",
        "expires_wall": 123,
    }


def test_the_schedules_length_and_start_count_never_the_tables():
    state = waiting()
    state["length"] = 10**12
    state["start_wall"] = 1  # 1970
    state["score"] = {"A": 0, "B": 0}
    # the schedule says 7 points from T0: four marks to the forfeit, whatever the table claims
    assert due(state, T0 + 4 * MIN) == []
    assert due(state, T0 + 10**9) == ["late:m1:B:1", "late:m1:B:2", "late:m1:B:3", "late:m1:B:forfeit"]


def test_ffbg_with_a_clock_starts_the_late_players_clock_instead():
    state = waiting(profile="ffbg-cdf")
    t = timing(match(profile="ffbg-cdf"), state, received=T0 - MIN, profile=FFBG, config=LateConfig())
    cmds = due_commands(t, T0 + 30 * MIN)
    assert [(c.id, c.type, c.fields) for c in cmds] == [("late:m1:B:clock", "start_clock", {"side": "B"})]


def test_ffbg_without_a_clock_has_a_longer_grace():
    state = waiting(clock=False, profile="ffbg-cdf")
    m = match(profile="ffbg-cdf", clock="no")
    assert due(state, T0 + 24 * MIN, m=m, profile=FFBG) == []
    assert due(state, T0 + 25 * MIN, m=m, profile=FFBG) == ["late:m1:B:1"]


def test_earlier_lateness_counts_towards_the_forfeit_and_a_waived_point_does_not():
    state = waiting()
    state["penalty_log"] = [
        {"id": "break:m0:B:1:1", "against": "B", "points": 2, "reason": "break_overrun", "waived": False}
    ]
    assert due(state, T0 + 10 * MIN) == ["late:m1:B:1", "late:m1:B:forfeit"]
    state["penalty_log"] = [
        {"id": "late:m1:B:1", "against": "B", "points": 1, "reason": "late", "waived": True}
    ]
    # the waived first point keeps its id; the forfeit comes one mark later
    assert due(state, T0 + 20 * MIN) == ["late:m1:B:1", "late:m1:B:2", "late:m1:B:3", "late:m1:B:4"]
    assert due(state, T0 + 25 * MIN)[-1] == "late:m1:B:forfeit"


def test_no_lateness_once_finished_or_flagged():
    state = waiting()
    state["phase"] = "finished"
    assert due(state, T0 + 30 * MIN) == []


# -- when lateness counts from -----------------------------------------------------------------------


def test_a_late_assignment_moves_the_start_to_when_the_table_took_it():
    # the schedule was imported 30 minutes after the start; the table took it then (T0 + 30)
    state = waiting()
    received = T0 + 30 * MIN
    assert due(state, T0 + 34 * MIN, received=received) == []
    assert due(state, T0 + 35 * MIN, received=received) == ["late:m1:B:1"]
    # with a grace of two minutes
    late = LateConfig(assign_grace_ms=2 * MIN)
    assert due(state, T0 + 36 * MIN, received=received, config=late) == []
    assert due(state, T0 + 37 * MIN, received=received, config=late) == ["late:m1:B:1"]


def test_the_assignment_age_is_the_tables_own_measure():
    # published 20 minutes after taking the assignment (at T0 - 15), received at T0 + 5
    state = snapshot(table([{"input": "checkin", "side": "A", "at": 0}]), 20 * MIN)
    assert state["assigned_ms"] == 20 * MIN and state["present_ms"] == {"A": 20 * MIN, "B": None}
    assert due(state, T0 + 6 * MIN, received=T0 + 5 * MIN) == ["late:m1:B:1"]


def test_a_table_that_does_not_say_when_it_took_the_match_counts_from_first_sight():
    state = waiting()
    del state["assigned_ms"]
    assert due(state, T0 + 6 * MIN, received=T0 + 5 * MIN, seen=T0 - 10 * MIN) == ["late:m1:B:1"]
    assert due(state, T0 + 6 * MIN, received=T0 + 5 * MIN) == []  # from receipt: lenient


def test_lateness_counts_from_the_end_of_the_players_previous_match():
    state = waiting()
    previous = {"A": None, "B": (T0 + 20 * MIN, "r0-t3")}
    assert due(state, T0 + 24 * MIN, previous=previous) == []
    assert due(state, T0 + 25 * MIN, previous=previous) == ["late:m1:B:1"]
    grace = LateConfig(next_match_grace_ms=3 * MIN)
    assert due(state, T0 + 27 * MIN, previous=previous, config=grace) == []
    assert due(state, T0 + 28 * MIN, previous=previous, config=grace) == ["late:m1:B:1"]


# -- both players absent -----------------------------------------------------------------------------


def test_both_absent_gives_nothing_and_never_a_forfeit():
    state = waiting(present=())
    for minutes in (5, 20, 60, 10**6):
        assert due(state, T0 + minutes * MIN) == []


def test_marks_both_missed_cancel_out_once_one_arrives():
    # A checked in at T0 + 7 (published at T0 + 8): A's own first mark (T0 + 5) found B absent too,
    # B's first mark likewise; from then B alone is late: points from the mark at T0 + 10
    st = table([{"input": "checkin", "side": "A", "at": 7 * MIN + MIN}], wall=T0 - MIN)
    state = snapshot(st, 9 * MIN)  # assigned at T0 - 1, A in at T0 + 7, published at T0 + 8
    received = T0 + 8 * MIN
    assert checked_in(state, received, "A") == T0 + 7 * MIN
    assert due(state, T0 + 9 * MIN, received=received) == []
    assert due(state, T0 + 10 * MIN, received=received) == ["late:m1:B:2"]
    # forfeit once the points given exceed half the length: marks 2, 3, 4 then the forfeit
    assert due(state, T0 + 25 * MIN, received=received)[-1] == "late:m1:B:forfeit"
    assert len(due(state, T0 + 25 * MIN, received=received)) == 4


def test_a_player_still_playing_elsewhere_is_not_late_and_the_opponent_gets_nothing_meanwhile():
    from hub.logic.presence import Elsewhere

    away = Elsewhere("r1-t3", "3", "1", {"A": 4, "B": 2})
    assert due(waiting(present=("A",)), T0 + 40 * MIN, elsewhere={"A": None, "B": away}) == []
    # B present, A not, but B's other match... B is here: A is late as usual
    assert due(waiting(present=("B",)), T0 + 6 * MIN, elsewhere={"A": None, "B": None}) == ["late:m1:A:1"]
    # A absent and B still elsewhere (not checked in here): nobody waits, no point
    assert due(waiting(present=()), T0 + 30 * MIN, elsewhere={"A": None, "B": away}) == []


# -- breaks, in the hub's time ----------------------------------------------------------------------


def on_break(wall: int) -> Any:
    """B on a five-minute break from ``at`` 10 min (the table's wall clock reading ``wall`` at ``at`` 0)."""
    return table(
        [
            {"input": "checkin", "side": "A", "at": 0},
            {"input": "checkin", "side": "B", "at": 0},
            {"input": "opening_roll", "A": 6, "B": 1, "at": MIN},
            {"input": "win", "side": "A", "kind": "single", "at": 2 * MIN},
            {"input": "break", "side": "B", "at": 10 * MIN},
        ],
        wall=wall,
    )


@pytest.mark.parametrize("skew", [0, -12 * MIN, -24 * 60 * MIN, 12 * MIN])
def test_a_break_ends_by_the_tables_monotonic_clock_whatever_its_wall_clock(skew):
    # the snapshot is published at the break's start and received at T0 + 10 by the hub
    state = snapshot(on_break(T0 + skew), 10 * MIN)
    received = T0 + 10 * MIN
    assert state["breaks"]["B"]["left_ms"] == 5 * MIN
    assert break_end(state, received, "B") == T0 + 15 * MIN
    assert due(state, T0 + 19 * MIN, received=received) == []
    assert due(state, T0 + 26 * MIN, received=received) == ["break:m1:B:1:1", "break:m1:B:1:2"]


def test_no_forfeit_for_an_overrun_while_the_opponent_is_away_too():
    st = table(
        [
            {"input": "checkin", "side": "A", "at": 0},
            {"input": "checkin", "side": "B", "at": 0},
            {"input": "opening_roll", "A": 6, "B": 1, "at": MIN},
            {"input": "win", "side": "A", "kind": "single", "at": 2 * MIN},
            {"input": "break", "side": "B", "at": 10 * MIN},
            {"input": "break", "side": "A", "at": 10 * MIN},
        ]
    )
    state = snapshot(st, 10 * MIN)
    ids = due(state, T0 + 60 * MIN, received=T0 + 10 * MIN)
    assert not any(i.endswith("forfeit") for i in ids)
    assert "break:m1:A:1:3" in ids and "break:m1:B:1:3" in ids


# -- deadlines and what comes next --------------------------------------------------------------------


def test_next_deadline_and_next_due():
    t = timing(match(), waiting(), received=T0 - MIN, profile=WBGF, config=LateConfig())
    assert next_deadline(t, T0) == T0 + 5 * MIN
    assert next_deadline(t, T0 + 5 * MIN) == T0 + 10 * MIN
    assert next_due(t, "B", T0 + 6 * MIN) == (T0 + 10 * MIN, "point")
    assert next_due(t, "B", T0 + 16 * MIN) == (T0 + 20 * MIN, "forfeit")
    assert next_due(t, "B", T0 + 21 * MIN) is None
    both = timing(match(), waiting(present=()), received=T0 - MIN, profile=WBGF, config=LateConfig())
    assert next_deadline(both, T0 + 6 * MIN) is None and next_due(both, "B", T0 + 6 * MIN) is None
    late = side_lateness(both, "B", T0 + 6 * MIN)
    assert late is not None and late.both_absent and late.marks == 1 and late.next_point_at is None


# -- properties ---------------------------------------------------------------------------------------


def _mirror(state: dict[str, Any]) -> dict[str, Any]:
    """The same table with the sides swapped."""
    out = copy.deepcopy(state)
    for key in ("present", "present_ms", "score", "breaks", "penalties"):
        if isinstance(out.get(key), dict):
            out[key] = {"A": out[key]["B"], "B": out[key]["A"]}
    return out


def _swap_ids(ids: list[str]) -> list[str]:
    return sorted(i.replace(":A:", ":X:").replace(":B:", ":A:").replace(":X:", ":B:") for i in ids)


times = st.integers(min_value=-(10**6), max_value=10**13)


@settings(max_examples=300, deadline=None)
@given(
    present=st.sampled_from([(), ("A",), ("B",), ("A", "B")]),
    now=times,
    received=times,
    length=st.integers(min_value=1, max_value=10**15),
    start=times,
    assigned=st.one_of(st.none(), st.integers(min_value=-(10**16), max_value=10**16)),
    table_wall=st.integers(min_value=-(10**15), max_value=10**15),
)
def test_property_bounded_symmetric_and_blind_to_the_tables_wall_clock(
    present, now, received, length, start, assigned, table_wall
):
    state = waiting(present=present)
    state.update(length=length, start_wall=start, wall=table_wall, assigned_ms=assigned)
    m = match()
    ids = due(state, now, received=received, m=m)
    # bounded by the schedule's length, whatever the table says or when it is
    assert len(ids) <= forfeit_points(m.length)
    # never a forfeit (nor a point) while both are absent; never both sides at once
    if not present:
        assert ids == []
    assert len({i.split(":")[2] for i in ids}) <= 1
    # side order decides nothing: the mirrored table gets the mirrored commands
    assert _swap_ids(due(_mirror(state), now, received=received, m=m)) == sorted(ids)
    # the table's wall clock changes nothing
    state["wall"] = table_wall // 2 + 1
    assert due(state, now, received=received, m=m) == ids


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(min_value=0, max_value=10**9),
    b=st.integers(min_value=0, max_value=10**9),
    present=st.sampled_from([(), ("A",), ("B",)]),
)
def test_property_what_is_due_only_grows_with_time(a, b, present):
    state = waiting(present=present)
    early, late = sorted((a, b))
    first = due(state, T0 + early)
    assert set(first) <= set(due(state, T0 + late))


# -- players across the event ----------------------------------------------------------------------------


def _room() -> list[ScheduledMatch]:
    return parse_schedule(
        schedule_csv(
            [
                dict(
                    round=1, table=3, player_a="Pierre Martin", player_b="Kari Nordmann", length=7, start=T0
                ),
                dict(round=1, table=4, player_a="Anna Nagy", player_b="Ola Hansen", length=7, start=T0),
                dict(
                    round=2,
                    table=2,
                    player_a="Anna Nagy",
                    player_b="pierre  martin",
                    length=7,
                    start=T0 + 60 * MIN,
                ),
                dict(
                    round="side",
                    table=9,
                    player_a="ANNA NAGY",
                    player_b="Kari Nordmann",
                    length=3,
                    start=T0 + 60 * MIN,
                ),
            ]
        )
    )


def test_previous_end_and_double_booking_at_import():
    sched = _room()
    index = PlayerIndex(sched)
    r2 = next(m for m in sched if m.match_id == "r2-t2")
    results = {"r1-t3": {"finished_wall": T0 + 75 * MIN}, "r1-t4": {"finished_wall": T0 + 50 * MIN}}
    assert previous_end(index, r2, "B", results) == (T0 + 75 * MIN, "r1-t3")
    assert previous_end(index, r2, "A", results) == (T0 + 50 * MIN, "r1-t4")
    # Anna Nagy (as "ANNA NAGY" in the side event) is at r2-t2 and rside-t9, both at T0 + 60
    (double,) = scheduled_twice(index)
    assert index.registry.players[double.key].name == "Anna Nagy" and double.where == "schedule"
    assert double.matches == (("r2-t2", "2"), ("rside-t9", "9")) or double.matches == (
        ("rside-t9", "9"),
        ("r2-t2", "2"),
    )
    assert double.text().lower().startswith("anna nagy is scheduled at two matches at once: ")


#: Anna Nagy at four tables at once, in four events
_FOUR = parse_schedule(
    schedule_csv(
        [
            dict(round=r, table=t, player_a="Anna Nagy", player_b=f"Opponent {t}", length=3, start=T0)
            for r, t in (("1", 1), ("side", 2), ("ladies", 3), ("last", 4))
        ]
    )
)


@settings(max_examples=60, deadline=None)
@given(
    finished=st.sets(st.sampled_from([m.match_id for m in _FOUR])),
    released=st.sets(st.sampled_from([m.match_id for m in _FOUR])),
)
def test_a_player_is_booked_twice_only_while_two_of_those_matches_stand(
    finished: set[str], released: set[str]
) -> None:
    """A match with a result, or released (abandoned by the TD, a draw's call moved or voided),
    is none of the player's any more: the booking names those that stand, and goes with the
    last but one."""
    (booked,) = scheduled_twice(PlayerIndex(_FOUR))
    results = {mid: {"finished_wall": T0 + MIN} for mid in finished}
    standing = tuple((mid, t) for mid, t in booked.matches if mid not in finished | released)
    kept = still_twice([booked], results, released)
    assert kept == ([] if len(standing) < 2 else [replace(booked, matches=standing)])
    if kept:
        assert all(f"{mid} (table {t})" in kept[0].text() for mid, t in standing)


# -- the table's clock -----------------------------------------------------------------------------------


def test_clock_offset_and_command_expiry():
    state = snapshot(on_break(T0 - 12 * MIN), 10 * MIN)  # 12 minutes behind
    view = TableView("1", status={"online": True}, online=True, state=state, state_wall=T0 + 10 * MIN)
    assert clock_offset_ms(view) is None  # not known to be current yet
    view.state_fresh = True
    assert clock_offset_ms(view) == -12 * MIN
    assert command_expiry(view, T0, 60_000) == T0 + 60_000  # behind: nothing added
    ahead = snapshot(on_break(T0 + 12 * MIN), 10 * MIN)
    view2 = TableView("2", online=True, state=ahead, state_wall=T0 + 10 * MIN, state_fresh=True)
    assert clock_offset_ms(view2) == 12 * MIN
    assert command_expiry(view2, T0, 60_000) == T0 + 60_000 + 12 * MIN


# -- what the TD is told -----------------------------------------------------------------------------------


def alerts_at(state: dict[str, Any], now: int, *, received: int = T0 - MIN, commands=None, **kw: Any):
    m = match()
    view = TableView(
        "1", status={"online": True}, online=True, state=state, state_wall=received, state_fresh=True
    )
    t = timing(m, state, received=received, profile=WBGF, config=LateConfig())
    ctx = Context(timing=t, commands=commands or {}, **kw)
    return {
        a.kind: a for a in table_alerts(view, m, now=now, config=AlertConfig(), profile=WBGF, context=ctx)
    }


def test_no_late_alert_at_the_round_start_then_one_minute_before_the_first_point():
    state = waiting()
    assert "late" not in alerts_at(state, T0 + 30_000)
    assert "late" not in alerts_at(state, T0 + 3 * MIN)
    a = alerts_at(state, T0 + 4 * MIN)["late"]
    assert a.urgency == "medium" and a.key == "late:m1:B" and "Bob (B)" in a.message
    assert "first point at" in a.message and a.data["first_point_wall"] == T0 + 5 * MIN


def test_the_late_alert_says_what_was_given_and_what_comes_next():
    state = waiting()
    state["penalty_log"] = [
        {"id": "late:m1:B:1", "against": "B", "points": 1, "reason": "late", "waived": False}
    ]
    commands = {"late:m1:B:1": {"created_wall": T0 + 5 * MIN, "sent_wall": T0 + 5 * MIN, "done_ok": 1}}
    a = alerts_at(state, T0 + 7 * MIN, commands=commands)["late"]
    assert a.urgency == "high"
    assert "1 point given automatically at" in a.message and "next point at" in a.message
    assert "due" not in a.message
    assert a.data["last_penalty_id"] == "late:m1:B:1" and a.data["penalty_ids"] == ["late:m1:B:1"]
    assert a.data["next_due_wall"] == T0 + 10 * MIN and a.data["given_wall"] == T0 + 5 * MIN


def test_both_absent_is_one_high_alert():
    kinds = alerts_at(waiting(present=()), T0 + 6 * MIN)
    assert "late" not in kinds
    a = kinds["both_absent"]
    assert a.urgency == "high" and "no automatic point or forfeit" in a.message and a.data["both_absent"]


def test_playing_elsewhere_under_ffbg_without_a_clock_is_said_when_its_first_point_would_fall():
    """ffbg-cdf without a clock gives its first point at 25 minutes, not 5: the "playing
    elsewhere, not late" alert comes a minute before that, as the late alert would, never 20
    minutes before lateness could count."""
    from hub.logic.presence import Elsewhere

    state = waiting(present=("A",), profile="ffbg-cdf", clock=False)
    m = match(profile="ffbg-cdf")
    away = Elsewhere("r1-t3", "3", "1", {"A": 4, "B": 2})
    t = timing(
        m, state, received=T0 - MIN, profile=FFBG, config=LateConfig(), elsewhere={"A": None, "B": away}
    )
    view = TableView(
        "1", status={"online": True}, online=True, state=state, state_wall=T0 - MIN, state_fresh=True
    )

    def kinds(now: int) -> dict[str, Any]:
        found = table_alerts(view, m, now=now, config=AlertConfig(), profile=FFBG, context=Context(timing=t))
        return {a.kind: a for a in found}

    assert not t.clock
    for now in (T0 + 4 * MIN, T0 + 10 * MIN, T0 + 23 * MIN):
        assert "late" not in kinds(now), now
    late = kinds(T0 + 24 * MIN)["late"]
    assert "not late; lateness counts from the end of that match" in late.message


def test_a_skewed_clock_is_reported():
    state = waiting()
    state["wall"] = T0 - MIN - 12 * MIN - 1000
    a = alerts_at(state, T0, received=T0 - MIN)["clock_skew"]
    assert "off by 12 min (behind the hub)" in a.message and a.data == {"offset_ms": -12 * MIN - 1000}


def test_a_slow_match_speaks_of_the_round_it_holds_up_and_never_goes_stale():
    from hub.logic.conditions import Waiting

    st_, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": T0,
            "match_id": "m1",
            "length": 7,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": False,
            "start_wall": T0,
        },
    )
    for inp in (
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 6, "B": 1},
        {"input": "win", "side": "A", "kind": "gammon"},
    ):
        st_, _ = apply(st_, {**inp, "at": 1000})
    state = snapshot(st_)
    now = T0 + 60 * MIN
    holds = (Waiting("Ann", "r2-t2", "2"),)
    # 2 points in an hour; (5 + 7) / 2 = 6 points to go at 30 min each: about 3 more hours
    slow = alerts_at(state, now, round_end=now + 60 * MIN, next_round="2", holds_up=holds)["slow"]
    assert "120 min after round 2 starts" in slow.message and "Ann is due at table 2 (r2-t2)" in slow.message
    assert "slow" not in alerts_at(state, now, round_end=now + 200 * MIN, next_round="2")
    # round 2 has started: the alert says so, never "ends after the next round starts"
    later = alerts_at(state, now + 70 * MIN, round_end=now + 60 * MIN, next_round="2", holds_up=holds)["slow"]
    assert "still playing 10 min after round 2 started" in later.message and "starts" not in later.message


# -- assignments ---------------------------------------------------------------------------------------


def test_a_table_that_reports_its_next_match_has_left_the_earlier_one():
    from hub.live.automation import confirmed_matches

    view = TableView("3", online=True, state={**waiting(), "match_id": "r2-t3"})
    results = {"r1-t3": {"match_id": "r1-t3", "table": "3"}, "r1-t4": {"match_id": "r1-t4", "table": "4"}}
    # the result as the store returns it names its table under "table"
    assert confirmed_matches({"3": view}, results) == {"r1-t3"}
