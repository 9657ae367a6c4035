"""The fleet's pure rules for what an address, a role and a TD's request may do: waiting rows and
request rates per source address, what each role sees of the rows, the code required to enroll,
and the override a table playing a match needs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.broker.provision import FleetError
from hub.fleet.device_change import check_override, in_progress
from hub.fleet.limits import SourceLimits, Waiting, Window, to_evict
from hub.fleet.model import CONTROL, READ, SETUP, audience, check_code, shown_message, shown_to
from hub.live.state import RoomState
from rulebook.profiles import get_profile


def w(device: str, source: str, seen: int) -> Waiting:
    return Waiting(device, source, seen)


def test_an_address_at_its_share_replaces_its_own_longest_silent_row():
    rows = [w(f"x{i}", "10.0.0.9", 100 + i) for i in range(3)] + [w("real", "10.0.0.5", 1)]
    assert to_evict(rows, "10.0.0.9", per_source=3, total=1000) == rows[0]
    assert to_evict(rows, "10.0.0.6", per_source=3, total=1000) is None


def test_a_full_list_makes_room_at_the_busiest_address_first():
    rows = [w("real", "10.0.0.5", 1)] + [w(f"x{i}", "10.0.0.9", 100 + i) for i in range(2)]
    assert to_evict(rows, "10.0.0.6", per_source=16, total=3).device == "x0"


@given(st.lists(st.tuples(st.integers(0, 39), st.integers(0, 10**6)), max_size=400))
def test_a_flood_from_other_addresses_never_drops_a_real_table(flood):
    """Each of 40 addresses says hello as many devices; the real table, alone at its address,
    keeps its row whatever the order."""
    rows = {"real": w("real", "10.0.1.1", 0)}
    for n, (source, seen) in enumerate(flood):
        ip = f"10.0.0.{source}"
        victim = to_evict(rows.values(), ip, per_source=4, total=100)
        if victim is not None:
            del rows[victim.device]
        rows[f"f{n}"] = w(f"f{n}", ip, seen)
    assert "real" in rows
    assert max(sum(1 for r in rows.values() if r.source == s) for s in {r.source for r in rows.values()}) <= 4


def test_a_window_counts_requests_per_address_for_a_minute():
    window = Window(2)
    assert window.allow("a", 0) and window.allow("a", 10) and not window.allow("a", 20)
    assert window.allow("b", 20)  # another address is not affected
    assert window.allow("a", 60_000)  # the first one left the window


def test_long_polls_held_open_per_address():
    limits = SourceLimits(poll_waits=2)
    assert limits.hold("a") and limits.hold("a") and not limits.hold("a") and limits.hold("b")
    limits.release("a")
    assert limits.hold("a")


ROW = {
    "key": "k1",
    "device": "bgt-1",
    "code": "4821",
    "code_expires_wall": 5,
    "state": "pending",
    "retired_why": "",
}


@pytest.mark.parametrize(
    ("role", "who"),
    [("chief", SETUP), ("td", CONTROL), ("scorer", READ), ("viewer", READ), (None, READ)],
)
def test_codes_and_ids_go_only_to_the_roles_that_enroll(role, who):
    assert audience(role) == who
    pending = shown_to(ROW, who)
    enrolled = shown_to({**ROW, "state": "enrolled", "code": None, "code_expires_wall": None}, who)
    retired = shown_to(
        {**ROW, "state": "retired", "code": None, "retired_why": "replaced by device bgt-2"}, who
    )
    if who == SETUP:
        assert pending["code"] == "4821" and pending["device"] == "bgt-1"
        return
    assert pending["code"] is None and pending["device"] is None and pending["key"] == "k1"
    assert (enrolled["device"] == "bgt-1") is (who == CONTROL)  # a TD identifies and restarts it
    if who == READ:
        assert retired["retired_why"] == "replaced by another device"
    message = shown_message({"type": "fleet", "rows": [ROW], "now_wall": 1}, role)
    assert "4821" not in str(message) and "bgt-1" not in str(message)


@pytest.mark.parametrize("value", [None, "", "12", "12345", "abcd", True, " 48 21"])
def test_enrolling_needs_the_four_digit_code(value):
    with pytest.raises(FleetError) as info:
        check_code(value)
    assert info.value.code == "code_required" and info.value.status == 400


def test_a_code_typed_with_spaces_or_as_a_number_is_the_code():
    assert check_code(" 4821 ") == "4821" and check_code(4821) == "4821"


def room_playing(phase: str = "playing", present: tuple[bool, bool] = (True, True)) -> RoomState:
    room = RoomState(get_profile("wbgf-2023"))
    room.view("12").state = {
        "match_id": "r1-t12",
        "phase": phase,
        "score": {"A": 3, "B": 2},
        "present": {"A": present[0], "B": present[1]},
        "players": {"A": {"name": "Anna Berg"}, "B": {"name": "Jon Dahl"}},
    }
    return room


def test_a_match_is_in_progress_from_the_first_check_in_until_its_result():
    assert in_progress(room_playing("waiting", (False, False)), "12") is None
    progress = in_progress(room_playing("waiting", (True, False)), "12")
    assert progress is not None and progress.text() == "r1-t12 (Anna Berg – Jon Dahl, 3–2)"
    assert in_progress(room_playing("finished"), "12") is None
    finished = room_playing()
    finished.results["r1-t12"] = {"match_id": "r1-t12"}
    assert in_progress(finished, "12") is None
    assert in_progress(room_playing(), "13") is None


def test_the_override_must_name_the_match_and_its_score_as_they_are():
    progress = in_progress(room_playing(), "12")
    check_override(None, None, "enrolling")  # nothing played: nothing to name
    check_override(progress, {"match_id": "r1-t12", "score": {"A": 3, "B": 2}}, "enrolling")
    for override in (None, {}, {"match_id": "r1-t12"}, {"match_id": "r1-t12", "score": {"A": 2, "B": 2}}):
        with pytest.raises(FleetError) as info:
            check_override(progress, override, "enrolling device bgt-2 there takes the match over")
        refused = info.value
        assert (refused.status, refused.code) == (409, "match_in_progress")
        assert refused.detail["match_id"] == "r1-t12" and refused.detail["score"] == {"A": 3, "B": 2}
        assert "r1-t12 (Anna Berg – Jon Dahl, 3–2)" in str(refused)
