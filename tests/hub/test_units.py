"""The hub's pure parts: schedule parsing, lateness, watches, rounds, login, the store."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.seq_tracker import SeqTracker
from hub.live.ingest import is_older
from hub.logic.table_view import TableView, tile
from hub.storage.store import Store
from hub.tournament.rounds import current_matches, round_ends
from hub.tournament.schedule import ScheduleError, parse_schedule, parse_start
from hub.web.auth import hash_password, verify_password
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


# -- tiles ----------------------------------------------------------------------------------------


def _match():
    (m,) = parse_schedule(
        schedule_csv(
            [dict(round=1, table=1, player_a="Ann", player_b="Bob", length=7, start=T0, match_id="m1")]
        )
    )
    return m


def test_tile_status_never_relies_on_colour_alone():
    """A late player (as the hub's lateness says) reads as words and an icon, not a colour only."""
    view = TableView("1", status={"online": True}, online=True, state=waiting_state(7))
    t = tile(view, _match(), now=T0 + 6 * MIN, grace_ms=30_000, late=True)
    assert t["status"] == "late" and t["status_label"] == "Player late" and t["status_icon"]


def test_a_tile_has_no_late_rule_of_its_own():
    """Past the start with a player missing, the tile says "late" only when the hub's lateness
    does (a player still playing elsewhere is not late; before the first point can count...)."""
    view = TableView("1", status={"online": True}, online=True, state=waiting_state(7))
    for late in (False, None):
        t = tile(view, _match(), now=T0 + 6 * MIN, grace_ms=30_000, late=late)
        assert t["status"] == "waiting", late


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


def test_a_table_is_forced_only_over_the_released_unfinished_match_it_holds():
    """An earlier round's match given to a table after its later-round match was released (a
    call voided by an undo): the table still holds that later match, so the assignment is forced,
    whatever came before in round order. Over a match still to be played, never."""
    sched = _two_rounds()
    r1 = next(m for m in sched if m.match_id == "r1-t2")
    again = [*sched, replace(r1, match_id="r1-t2-2", table="1", start_wall=T0 + 120 * MIN)]
    done = {"r1-t1": {"finished_wall": T0 + 60 * MIN, "verified": True}}
    kw = dict(results=done, confirmed=set(), now=T0 + 130 * MIN, hold_ms=0)
    voided = current_matches(again, released={"r2-t1"}, held={"1": {"r2-t1"}}, **kw)
    assert voided["1"].match.match_id == "r1-t2-2" and voided["1"].force
    # without knowing what the table holds, the previous match in round order (played) decides
    assert not current_matches(again, released={"r2-t1"}, **kw)["1"].force
    # the table holds a match not released (still to be played, or finished): no force
    assert not current_matches(again, released=set(), held={"1": {"r2-t1"}}, **kw)["1"].force
    assert not current_matches(again, released={"r2-t1"}, held={"1": {"r1-t2-2"}}, **kw)["1"].force
    # its last state shows the played round-1 match, the voided final was sent to it since (its
    # state saying it took it not arrived): forced, harmless over the finished one
    both = current_matches(again, released={"r2-t1"}, held={"1": {"r1-t1", "r2-t1"}}, **kw)
    assert both["1"].force
    # one of them still to be played (unfinished, not released): never forced over
    unplayed = {"1": {"r2-t1", "r1-t2"}}
    assert not current_matches(again, released={"r2-t1"}, held=unplayed, **kw)["1"].force


# -- login ----------------------------------------------------------------------------------------


def test_password_hash_is_salted_and_verifies():
    a, b = hash_password("secret pass"), hash_password("secret pass")
    assert a != b and a.startswith("scrypt$") and "secret" not in a
    assert verify_password("secret pass", a) and not verify_password("secret pasS", a)
    assert not verify_password("x", "garbage")


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


@given(st.permutations(range(1, 9)), st.permutations(range(1, 5)), st.integers(1, 12))
def test_a_tables_events_are_listed_in_the_order_made_whatever_order_they_came_in(first, second, limit):
    """After a broker crash, what the broker had acknowledged and not passed on reaches the hub
    when it asks for it, after what the table made later: the hub stores events in the order
    they come. A table's events are listed as made: by seq within a match, and its matches in
    the order the hub first heard of them (seq starts again at 1 in each)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.db")
        for mid, order in (("r1-t1", first), ("r2-t1", second)):
            for seq in order:
                store.add_event("1", {"seq": seq, "match_id": mid, "type": "roll", "wall": T0}, T0)
        store.add_event("2", {"seq": 1, "match_id": "r1-t2", "type": "roll", "wall": T0}, T0)
        made = [("r1-t1", s) for s in range(1, 9)] + [("r2-t1", s) for s in range(1, 5)]
        latest = store.events("1", limit=limit)
        of_match = store.events("1", "r1-t1")
        transcript = store.match_events("r1-t1", limit=100)
        store.close()
    listed = [(e["match_id"], e["seq"]) for e in latest]
    # the ``limit`` events received last, in the order made (not necessarily the last made)
    received = [("r1-t1", s) for s in first] + [("r2-t1", s) for s in second]
    assert sorted(listed) == sorted(received[-limit:])
    assert listed == [k for k in made if k in set(listed)]
    assert [e["seq"] for e in of_match] == [e["seq"] for e in transcript] == list(range(1, 9))


@given(st.sets(st.integers(1, 60)))
def test_a_rolled_back_batch_leaves_holes_the_tracker_still_asks_for(stored):
    """After a failed write the events stored later may lie above events never stored: what the
    store tells the sequence tracker keeps those holes open, so a resent event fills one as new
    (it was taken for a duplicate when the tracker was restored from the highest seq alone)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.db")
        for seq in sorted(stored):
            store.add_event("1", {"seq": seq, "match_id": "m1", "type": "checkin", "wall": T0}, T0)
        upto, seen = store.seq_knowledge("1", "m1")
        store.close()
    assert set(range(1, upto + 1)) <= stored and upto + 1 not in stored
    assert set(seen) == {q for q in stored if q > upto}
    tracker = SeqTracker()
    tracker.restore("1", "m1", upto, seen)
    for seq in range(1, 61):
        assert (tracker.accept("1", "m1", seq).kind == "duplicate") == (seq in stored)


def test_a_snapshot_without_wall_time_is_compared_by_seq_alone():
    """A table that has not learnt the time yet sends ``wall: null`` (found by the schema fuzz)."""
    old = {"match_id": "m1", "seq": 5, "wall": None}
    assert is_older(old, {"match_id": "m1", "seq": 4, "wall": None})
    assert not is_older(old, {"match_id": "m1", "seq": 6, "wall": None})
    assert is_older({**old, "wall": 10}, {"match_id": "m1", "seq": 4, "wall": None})
