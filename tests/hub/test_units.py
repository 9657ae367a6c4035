"""The hub's pure parts: schedule parsing, lateness, watches, rounds, login, the store."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

import pytest

from hub.auth import Auth, hash_password, verify_password
from hub.ingest import is_older
from hub.lateness import due_commands
from hub.room import TableView, tile
from hub.rounds import current_matches, round_ends
from hub.schedule import ScheduleError, parse_schedule, parse_start
from hub.store import Store
from hub.watch import WatchConfig, table_alerts
from rulebook.errors import WireError
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from rulebook.wire import parse_snapshot
from tests.hub.support import MIN, T0, schedule_csv

WBGF = get_profile("wbgf-2023")
FFBG = get_profile("ffbg-cdf")


def waiting_state(length=7, clock=True, profile="wbgf-2023", present=("A",), start=T0) -> dict:
    st, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": start - MIN,
            "match_id": "m1",
            "length": length,
            "players": {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}},
            "profile": profile,
            "clock": clock,
            "start_wall": start,
        },
    )
    for side in present:
        st, _ = apply(st, {"input": "checkin", "at": 1, "side": side})
    return snapshot(st)


# -- schedule -------------------------------------------------------------------------------------


def test_schedule_parses_every_column():
    text = (
        "\ufeffround,table,player_a,player_b,length,start,clock,profile,match_id\n"
        "1,12,Ann,Bob,7,2030-03-17T14:00+01:00,no,hbf,final-1\n"
        "1,13,Cy,Di,11,2030-03-17T14:00Z,,,\n"
    )
    a, b = parse_schedule(text)
    assert a.match_id == "final-1" and a.table == "12" and a.clock is False and a.profile == "hbf"
    assert a.start_wall == parse_start("2030-03-17T13:00Z")
    assert b.match_id == "r1-t13" and b.clock is True and b.profile == "wbgf-2023"
    payload = a.assign_payload()
    assert payload["players"]["A"]["name"] == "Ann" and payload["clock"] is False and payload["round"] == "1"


def test_schedule_local_time_uses_the_given_zone():
    tz = timezone(timedelta(hours=2))
    (m,) = parse_schedule(
        schedule_csv(
            [dict(round=1, table=1, player_a="A", player_b="B", length=5, start="2030-01-01T10:00")]
        ),
        tz=tz,
    )
    assert m.start_wall == parse_start("2030-01-01T08:00+00:00")
    assert parse_start("2030-01-01T08:00", UTC) == m.start_wall


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "line 1: empty file"),
        ("round,table,player_a\n", "line 1: header: missing column(s) player_b, length, start"),
        ("round,table,player_a,player_b,length,start,colour\n", "unknown column(s) colour"),
        ("round,table,player_a,player_b,length,start\n", "no matches"),
        ("round,table,player_a,player_b,length,start\n1,1,A,B,7\n", "line 2: expected 6 fields, found 5"),
        ("round,table,player_a,player_b,length,start\n1,a b,A,B,7,2030-01-01T10:00\n", "line 2: table"),
        ("round,table,player_a,player_b,length,start\n1,1,A,B,0,2030-01-01T10:00\n", "line 2: length"),
        ("round,table,player_a,player_b,length,start\n1,1,A,B,7,2030-01-01\n", "line 2: start"),
        ("round,table,player_a,player_b,length,start,clock\n1,1,A,B,7,2030-01-01T10:00,maybe\n", "clock"),
        (
            "round,table,player_a,player_b,length,start,profile\n1,1,A,B,7,2030-01-01T10:00,fibs\n",
            "unknown profile",
        ),
        (
            "round,table,player_a,player_b,length,start\n1,1,A,B,7,2030-01-01T10:00\n\n1,2,A,C,7,2030-01-01T10:00\n",
            "line 4: A already plays in round 1 (line 2)",
        ),
    ],
)
def test_bad_schedules_name_the_line(text, expected):
    with pytest.raises(ScheduleError) as info:
        parse_schedule(text)
    assert expected in str(info.value)


def test_not_utf8_is_refused():
    with pytest.raises(ScheduleError, match="not UTF-8"):
        parse_schedule(
            "round,table,player_a,player_b,length,start\n1,1,Å,B,7,2030-01-01T10:00\n".encode("latin-1")
        )


# -- lateness -------------------------------------------------------------------------------------


def ids(cmds):
    return [c.id for c in cmds]


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
def test_lateness_points_and_forfeit_at_seven_points(minutes, expected):
    state = waiting_state(7)
    cmds = due_commands(state, start_wall=T0, now=T0 + int(minutes * MIN), profile=WBGF)
    assert ids(cmds) == expected
    if cmds:
        assert cmds[0].payload(123) == {
            "id": "late:m1:B:1",
            "type": "penalty",
            "against": "B",
            "points": 1,
            "reason": "late",
            "expires_wall": 123,
        }


def test_both_players_late_both_get_points():
    state = waiting_state(5, present=())
    assert ids(due_commands(state, start_wall=T0, now=T0 + 6 * MIN, profile=WBGF)) == [
        "late:m1:A:1",
        "late:m1:B:1",
    ]


def test_ffbg_with_a_clock_starts_the_late_players_clock_instead():
    state = waiting_state(7, profile="ffbg-cdf")
    cmds = due_commands(state, start_wall=T0, now=T0 + 30 * MIN, profile=FFBG)
    assert [(c.id, c.type, c.fields) for c in cmds] == [("late:m1:B:clock", "start_clock", {"side": "B"})]


def test_ffbg_without_a_clock_has_a_longer_grace():
    state = waiting_state(7, clock=False, profile="ffbg-cdf")
    assert due_commands(state, start_wall=T0, now=T0 + 24 * MIN, profile=FFBG) == []
    assert ids(due_commands(state, start_wall=T0, now=T0 + 25 * MIN, profile=FFBG)) == ["late:m1:B:1"]


def test_break_overrun_points_have_their_own_ids():
    st, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": T0,
            "match_id": "m1",
            "length": 7,
            "players": {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}},
            "profile": "wbgf-2023",
            "clock": True,
        },
    )
    for inp in (
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 6, "B": 1},
        {"input": "win", "side": "A", "kind": "single"},
        {"input": "break", "side": "B"},
    ):
        st, events = apply(st, {**inp, "at": 1000})
        assert not any(e.get("rejected") for e in events), events
    state = snapshot(st)
    until = state["breaks"]["B"]["until_wall"]
    assert due_commands(state, start_wall=T0, now=until + 4 * MIN, profile=WBGF) == []
    cmds = due_commands(state, start_wall=T0, now=until + 11 * MIN, profile=WBGF)
    assert ids(cmds) == ["break:m1:B:1:1", "break:m1:B:1:2"]
    assert cmds[0].fields["reason"] == "break_overrun"


def test_earlier_lateness_counts_towards_the_forfeit():
    state = waiting_state(7)
    state["penalty_log"] = [
        {"id": "break:m0:B:1:1", "against": "B", "points": 2, "reason": "break_overrun", "waived": False}
    ]
    assert ids(due_commands(state, start_wall=T0, now=T0 + 10 * MIN, profile=WBGF)) == [
        "late:m1:B:1",
        "late:m1:B:forfeit",
    ]


def test_no_lateness_once_finished_or_flagged():
    state = waiting_state(7)
    state["phase"] = "finished"
    assert due_commands(state, start_wall=T0, now=T0 + 30 * MIN, profile=WBGF) == []


# -- watches --------------------------------------------------------------------------------------


def _match():
    (m,) = parse_schedule(
        schedule_csv(
            [dict(round=1, table=1, player_a="Ann", player_b="Bob", length=7, start=T0, match_id="m1")]
        )
    )
    return m


def test_late_player_alert_escalates_when_points_are_due():
    view = TableView("1", status={"online": True}, online=True, state=waiting_state(7))
    cfg = WatchConfig()
    (a,) = [
        x
        for x in table_alerts(view, _match(), now=T0 + 2 * MIN, config=cfg, profile=WBGF)
        if x.kind == "late"
    ]
    assert a.urgency == "medium" and a.key == "late:m1:B" and "Bob (B)" in a.message
    (b,) = [
        x
        for x in table_alerts(view, _match(), now=T0 + 6 * MIN, config=cfg, profile=WBGF)
        if x.kind == "late"
    ]
    assert b.urgency == "high" and b.key == a.key and "1 penalty point" in b.message


def test_flag_is_critical_and_offline_waits_for_the_grace():
    state = waiting_state(7, present=("A", "B"))
    state["phase"] = "flag"
    state["clock"]["flagged"] = "A"
    view = TableView("1", status={"online": False}, online=False, status_since=T0, state=state)
    cfg = WatchConfig(offline_grace_ms=30_000)
    kinds = {a.kind: a for a in table_alerts(view, _match(), now=T0 + 10_000, config=cfg, profile=WBGF)}
    assert kinds["flag"].urgency == "critical" and "offline" not in kinds
    kinds = {a.kind: a for a in table_alerts(view, _match(), now=T0 + 30_000, config=cfg, profile=WBGF)}
    assert kinds["offline"].urgency == "high"


def test_tile_status_never_relies_on_colour_alone():
    view = TableView("1", status={"online": True}, online=True, state=waiting_state(7))
    t = tile(view, _match(), now=T0 + 6 * MIN, grace_ms=30_000)
    assert t["status"] == "late" and t["status_label"] == "Player late" and t["status_icon"]


def test_the_wire_schema_accepts_a_real_snapshot_and_names_what_is_wrong():
    good = waiting_state()
    assert parse_snapshot(good) == good
    with pytest.raises(WireError) as bad:
        parse_snapshot({**good, "phase": "x"})
    assert bad.value.path == "phase" and bad.value.code == "field.choice"
    with pytest.raises(WireError) as bad:
        parse_snapshot({**good, "score": [1, 2]})
    assert bad.value.path == "score" and bad.value.code == "field.type"


# -- rounds ---------------------------------------------------------------------------------------


def _two_rounds():
    return parse_schedule(
        schedule_csv(
            [
                dict(round=1, table=1, player_a="A", player_b="B", length=5, start=T0),
                dict(round=1, table=2, player_a="C", player_b="D", length=5, start=T0),
                dict(round=2, table=1, player_a="A", player_b="C", length=5, start=T0 + 90 * MIN),
            ]
        )
    )


def test_next_round_waits_for_confirmation_verification_hold_or_release():
    sched = _two_rounds()
    done = {"r1-t1": {"finished_wall": T0 + 60 * MIN, "verified": False}}
    kw = dict(released=set(), confirmed=set(), hold_ms=2 * MIN)
    assert current_matches(sched, results={}, now=T0, **kw)["1"].match.match_id == "r1-t1"
    assert current_matches(sched, results=done, now=T0 + 61 * MIN, **kw)["1"].match.match_id == "r1-t1"
    assert current_matches(sched, results=done, now=T0 + 62 * MIN, **kw)["1"].match.match_id == "r2-t1"
    kw["confirmed"] = {"r1-t1"}
    assert current_matches(sched, results=done, now=T0 + 60 * MIN, **kw)["1"].match.match_id == "r2-t1"
    released = current_matches(sched, results={}, now=T0, released={"r1-t1"}, confirmed=set(), hold_ms=0)
    assert released["1"].match.match_id == "r2-t1" and released["1"].force
    assert round_ends(sched) == {"1": T0 + 90 * MIN, "2": None}


# -- login ----------------------------------------------------------------------------------------


def test_password_hash_is_salted_and_verifies():
    a, b = hash_password("secret pass"), hash_password("secret pass")
    assert a != b and a.startswith("scrypt$") and "secret" not in a
    assert verify_password("secret pass", a) and not verify_password("secret pasS", a)
    assert not verify_password("x", "garbage")


def test_login_rotates_the_session_and_throttles_failures():
    auth = Auth(hash_password("right password"), max_failures=3)
    s = auth.new_session()
    for _ in range(3):
        assert auth.login(s, "wrong", "1.2.3.4") is None
    assert auth.throttled("1.2.3.4") and not auth.throttled("5.6.7.8")
    fresh = auth.login(s, "right password", "5.6.7.8")
    assert fresh is not None and fresh.logged_in and fresh.token != s.token
    assert auth.get(s.token) is None and auth.get(fresh.token) is fresh
    assert auth.check_csrf(fresh, fresh.csrf) and not auth.check_csrf(fresh, s.csrf)


# -- store ----------------------------------------------------------------------------------------


def test_store_drops_duplicate_events_and_commands(tmp_path):
    store = Store(tmp_path / "s.db")
    evt = {"seq": 3, "match_id": "m1", "type": "checkin", "wall": T0}
    assert store.add_event("1", evt, T0) is True
    assert store.add_event("1", dict(evt), T0) is False
    assert store.add_event("2", dict(evt), T0) is True
    cmd = {"id": "late:m1:B:1", "type": "penalty"}
    assert store.add_command(cmd, "1", "m1", "auto", "hub", T0) is True
    assert store.add_command(cmd, "1", "m1", "auto", "hub", T0) is False
    store.commit()
    store.close()
    again = Store(tmp_path / "s.db")
    assert again.max_seq("1", "m1") == 3 and "late:m1:B:1" in again.command_ids("1", "m1")
    again.close()


def test_a_slow_match_is_reported_against_the_next_rounds_start():
    st, _ = apply(
        new_table("1"),
        {
            "input": "assign",
            "at": 0,
            "wall": T0,
            "match_id": "m1",
            "length": 7,
            "players": {"A": {"name": "Ann", "id": ""}, "B": {"name": "Bob", "id": ""}},
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
        st, _ = apply(st, {**inp, "at": 1000})
    state = snapshot(st)
    view = TableView("1", status={"online": True}, online=True, state=state)
    cfg = WatchConfig()
    # 2 points in an hour; (5 + 7) / 2 = 6 points to go at 30 min each: about 3 more hours
    now = T0 + 60 * MIN
    slow = [
        a for a in table_alerts(view, _match(), now=now, config=cfg, profile=WBGF, round_end=now + 60 * MIN)
    ]
    assert [a.kind for a in slow] == ["slow"] and "120 min after" in slow[0].message
    assert table_alerts(view, _match(), now=now, config=cfg, profile=WBGF, round_end=now + 200 * MIN) == []
    assert table_alerts(view, _match(), now=now, config=cfg, profile=WBGF, round_end=None) == []


def test_a_snapshot_without_wall_time_is_compared_by_seq_alone():
    """A table that has not learnt the time yet sends ``wall: null`` (found by the schema fuzz)."""
    old = {"match_id": "m1", "seq": 5, "wall": None}
    assert is_older(old, {"match_id": "m1", "seq": 4, "wall": None})
    assert not is_older(old, {"match_id": "m1", "seq": 6, "wall": None})
    assert is_older({**old, "wall": 10}, {"match_id": "m1", "seq": 4, "wall": None})
