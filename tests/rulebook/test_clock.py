"""The game clock: simple delay, reserves, presses, pauses, banks, flags (WBGF 3.5, 4.1 v, 4.3)."""

from __future__ import annotations

import pytest

from rulebook.clock import Clock, imposed_reserve_ms, new_clock
from tests.rulebook.helpers import MINUTE, PLAYERS, SECOND, Table

# -- the clock value on its own -------------------------------------------------------------------


def test_3_5_v_simple_delay_is_not_charged() -> None:
    c = new_clock(60 * SECOND, 12 * SECOND).start("A", 0)
    assert c.reserve_at("A", 11_999) == 60 * SECOND and c.delay_at("A", 11_999) == 1
    assert c.reserve_at("A", 12_000) == 60 * SECOND and c.delay_at("A", 12_000) == 0
    assert c.reserve_at("A", 12_001) == 60 * SECOND - 1
    c = c.press("A", 20 * SECOND)
    assert c.reserve.of("A") == 52 * SECOND and c.used.of("A") == 8 * SECOND
    assert c.running == "B" and c.delay_at("B", 20 * SECOND) == 12 * SECOND


def test_3_5_v_delay_does_not_accumulate() -> None:
    c = new_clock(60 * SECOND, 12 * SECOND).start("A", 0)
    c = c.press("A", 2 * SECOND).press("B", 3 * SECOND)  # A used 2 s of delay, B 1 s
    c = c.press("A", 3 * SECOND + 30 * SECOND)  # A's next turn: 30 s, only 12 s free
    assert c.reserve.of("A") == 42 * SECOND and c.reserve.of("B") == 60 * SECOND


def test_clock_reading_never_changes_it() -> None:
    """3.5 v: reading the clock (reserve, delay, flag instant) never changes it."""
    c = new_clock(60 * SECOND, 12 * SECOND).start("A", 0)
    before = c
    c.reserve_at("A", 50 * SECOND)
    c.delay_at("A", 50 * SECOND)
    assert c == before and c.flag_time() == 72 * SECOND


def test_3_5_vi_imposed_reserve_formula() -> None:
    assert imposed_reserve_ms(2, 4, 6) == 10 * MINUTE
    assert imposed_reserve_ms(3, 1, 2) == round(4.5 * MINUTE)


def test_disabled_clock_is_inert() -> None:
    """3.5: a match without a clock has nothing running and never flags."""
    c = Clock()
    assert not c.is_running() and c.flag_time() is None and c.settle(10**9) is c


# -- reserves at assignment -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "length", "reserve", "delay"),
    [
        ("wbgf-2023", 7, 14 * MINUTE, 12 * SECOND),
        ("hbf", 11, 22 * MINUTE, 12 * SECOND),
        ("hu", 5, 10 * MINUTE, 12 * SECOND),
        ("ffbg-cdf", 9, (27 + 5) * MINUTE, 15 * SECOND),
        ("ffbg-cdf", 11, (33 + 8) * MINUTE, 15 * SECOND),
        ("ffbg-cdf", 25, (75 + 8) * MINUTE, 15 * SECOND),
    ],
)
def test_3_5_v_reserve_is_minutes_per_point_times_length(
    profile: str, length: int, reserve: int, delay: int
) -> None:
    t = Table().assign(length=length, profile=profile, clock=True)
    snap = t.snap()
    assert snap["clock"]["enabled"] is True
    assert snap["clock"]["reserve_ms"] == {"A": reserve, "B": reserve}
    assert snap["clock"]["delay_ms"] == {"A": delay, "B": delay}


def test_clock_setting_from_the_schedule() -> None:
    """3.5 v: the TD may specify other times; the profile's default otherwise (PROTOCOL §1 assign)."""
    t = Table().assign(length=7, clock={"minutes_per_point": 1.5, "delay_s": 8})
    assert t.snap()["clock"]["reserve_ms"]["A"] == round(1.5 * 7 * MINUTE)
    assert t.snap()["clock"]["delay_ms"]["A"] == 8 * SECOND
    t2 = Table().assign(length=7, profile="ffbg-cdf", clock={"minutes_per_point": 1, "delay_s": 15})
    assert t2.snap()["clock"]["reserve_ms"]["A"] == (7 + 5) * MINUTE  # the bank allowance stays
    assert Table().assign(length=7).snap()["clock"]["enabled"] is False  # clock=False given
    t3 = Table()
    t3.send("assign", match_id="m", length=7, players=PLAYERS, profile="hu", clock=True)
    assert t3.ok().snap()["clock"]["reserve_ms"]["A"] == 14 * MINUTE  # clock=True: the profile's setting
    t3.send("assign", match_id="m2", length=7, players=PLAYERS, profile="hu", force=True)
    t3.refused("clock: required", code="field.missing")  # never the profile's default: the hub says


def test_bad_clock_settings_are_refused() -> None:
    """3.5 v: clock settings out of range (or a second bank that is not a duration) are refused."""
    t = Table()
    for bad in (
        "yes",
        {"minutes_per_point": 0, "delay_s": 12},
        {"minutes_per_point": 2, "delay_s": 500},
        {"minutes_per_point": 2, "delay_s": 12, "second_bank_minutes": -1},
        {"minutes_per_point": 2, "delay_s": 12, "second_bank_minutes": float("nan")},
    ):
        t.send("assign", match_id="m", length=7, players=PLAYERS, profile="wbgf-2023", clock=bad)
        t.refused("clock")
    assert t.state.match is None


# -- the clock at the table -----------------------------------------------------------------------


def test_hu_8_4_both_clocks_stopped_until_the_lower_opening_roller_presses() -> None:
    t = Table().start(length=7, clock=True)
    t.send("opening_roll", A=2, B=5).ok()  # B moves first; A rolled lower
    snap = t.snap()
    assert snap["clock"]["running"] is None and snap["turn"] == "B"
    t.wait(10 * SECOND)
    t.send("press", side="B")
    t.refused("A (the lower opening roll) starts the clock")
    t.send("press", side="A").ok()
    assert t.snap()["clock"]["running"] == "B"
    t.wait(20 * SECOND).send("tick").ok()
    snap = t.snap()
    # the 10 s before the press were not charged; 20 s with 12 s delay -> 8 s
    assert snap["clock"]["reserve_ms"] == {"A": 14 * MINUTE, "B": 14 * MINUTE - 8 * SECOND}
    assert snap["clock"]["delay_ms"] == {"A": 12 * SECOND, "B": 0}


def test_clock_stops_at_game_end_and_restarts_stopped() -> None:
    """4.3 ii a: at the end of a game the clock stops; the next game starts with both clocks stopped."""
    t = Table().start(length=7, clock=True).opening(6, 1)
    t.wait(30 * SECOND).send("win", side="A", kind="single").ok()
    assert t.snap()["clock"]["running"] is None
    t.wait(5 * MINUTE).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["A"] == 14 * MINUTE - 18 * SECOND
    t.send("opening_roll", A=3, B=4).ok()
    assert t.snap()["clock"]["running"] is None


def test_4_1_vi_b_press_ends_the_turn_and_only_the_running_side_may_press() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)  # A's clock runs
    t.send("press", side="B")
    t.refused("it is A's clock that runs")
    t.wait(5 * SECOND).send("press", side="A").ok()
    assert t.snap()["clock"]["running"] == "B" and t.state.turn == "B" and not t.state.rolled
    t.send("roll", dice=[4, 2], source="tower").ok()
    assert t.event("roll")["side"] == "B"


def test_4_3_ii_pause_and_resume_keep_the_remaining_delay() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)
    t.wait(5 * SECOND).send("pause", side="B", reason="dispute").ok()
    snap = t.snap()
    assert (
        snap["phase"] == "paused"
        and snap["clock"]["paused"] == "dispute"
        and snap["clock"]["paused_by"] == "B"
        and snap["clock"]["running"] is None
    )
    assert snap["clock"]["delay_ms"]["A"] == 7 * SECOND
    t.wait(10 * MINUTE).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["A"] == 14 * MINUTE  # nothing runs while paused
    t.send("press", side="A")
    t.refused("paused", code="phase.paused")
    t.send("resume").ok()
    assert t.snap()["clock"]["running"] == "A" and t.snap()["clock"]["paused_by"] is None
    t.wait(7 * SECOND).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["A"] == 14 * MINUTE and t.snap()["clock"]["delay_ms"]["A"] == 0
    t.wait(3 * SECOND).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["A"] == 14 * MINUTE - 3 * SECOND


def test_4_3_ii_pause_reasons_follow_the_profile() -> None:
    t = Table().start(length=9, profile="ffbg-cdf", clock=True).opening()
    t.send("pause", side="A", reason="break")
    t.refused("does not allow a pause in ffbg-cdf", code="pause.reason_not_allowed")
    assert t.snap()["legal"]["A"]["pause"] == ["dispute", "game_over", "claim", "equipment"]
    t.send("pause", side="A", reason="equipment").ok()
    t.send("resume").ok()
    t.send("pause", reason="power_loss").ok()  # the table's own: restore after a power cut
    t.send("resume").ok()
    t.send("pause", side="A", reason="power_loss")
    t.refused(code="pause.table_reason")  # not a player's reason
    t.cmd("pause", reason="dispute").ok()  # the TD may pause for any reason of the vocabulary
    assert t.snap()["clock"]["paused"] == "dispute" and t.snap()["clock"]["paused_by"] is None
    t.cmd("resume").ok()
    t.send("resume")
    t.refused("not paused", code="clock.not_paused")


def test_4_3_ii_no_player_pause_without_a_clock() -> None:
    """4.3 ii is about pausing a game clock: at a table without one a player has nothing to pause
    (the TD's pause and the power-cut restore still stop the match)."""
    t = Table().start(length=7).opening()
    t.send("pause", side="A", reason="dispute")
    t.refused(code="pause.no_clock")
    assert (
        t.snap()["legal"]["A"]["pause"] == [] and t.snap()["legal"]["A"]["why"]["pause"] == "pause.no_clock"
    )
    assert t.snap()["legal"]["table"]["pause"] != []
    t.cmd("pause", reason="td").ok()


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf"])
def test_2_2_ii_no_break_by_pausing_the_clock_in_a_game(profile: str) -> None:
    """2.2 ii: breaks are taken only between games: a pause with reason break in a game in
    progress is refused (a player cannot stop his own clock that way); between games it stands."""
    t = Table().start(length=7, profile=profile, clock=True).opening(6, 1)
    t.send("pause", side="A", reason="break")
    t.refused(code="pause.break_in_game")
    assert "break" not in t.snap()["legal"]["A"]["pause"]
    t.send("win", side="A", kind="single").ok()
    assert "break" in t.snap()["legal"]["A"]["pause"]
    t.send("pause", side="A", reason="break").ok()


def test_4_3_v_invalid_roll_restarts_the_delay() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)
    t.wait(20 * SECOND).move("A")  # A: 8 s charged
    t.wait(10 * SECOND).send("invalid_roll", side="B").ok()
    assert t.snap()["clock"]["delay_ms"]["B"] == 12 * SECOND
    t.wait(12 * SECOND).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["B"] == 14 * MINUTE  # 22 s on the clock, none charged
    t.send("invalid_roll", side="A")
    t.refused("it is B's roll", code="roll.not_yours")


def test_4_1_v_b_premature_pickup_forfeits_the_next_delay() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)
    t.wait(3 * SECOND).send("premature_pickup", side="B").ok()
    assert t.snap()["clock"]["delay_ms"]["B"] == 0  # shown before B's turn starts
    t.wait(2 * SECOND).send("press", side="A").ok()
    t.wait(5 * SECOND).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["B"] == 14 * MINUTE - 5 * SECOND
    t.send("roll", dice=[1, 2], source="tower").ok()
    t.send("press", side="B").ok()
    t.wait(12 * SECOND).move("A")
    assert t.snap()["clock"]["delay_ms"]["B"] == 12 * SECOND  # only one turn is forfeited


def test_premature_pickup_needs_a_clock() -> None:
    """4.1 v b: the delay penalty exists only in matches with a clock."""
    t = Table().start(length=7).opening()
    t.send("premature_pickup", side="B")
    t.refused("no clock", code="clock.none")


def test_2_3_impose_clock_mid_match() -> None:
    t = Table().start(length=7).game("A", "gammon").game("A").game("B")  # 3-1: RA 4, RB 6
    t.cmd("impose_clock", minutes_per_point=2, delay_s=12).ok()
    snap = t.snap()
    assert snap["clock"]["enabled"] is True
    assert snap["clock"]["reserve_ms"] == {"A": 10 * MINUTE, "B": 10 * MINUTE}
    assert t.event("impose_clock")["reserve_ms"] == 10 * MINUTE
    t.opening(1, 6)  # the lower roller starts the clock from now on
    assert t.snap()["clock"]["running"] == "B"


def test_impose_clock_during_a_game_then_first_press_starts_it() -> None:
    """2.3 / 3.5 vi: a clock imposed mid-game runs from the next press."""
    t = Table().start(length=5).opening(6, 1)
    t.cmd("impose_clock", minutes_per_point=1, delay_s=10).ok()
    assert t.snap()["clock"]["reserve_ms"]["A"] == 5 * MINUTE and t.snap()["clock"]["running"] is None
    t.send("press", side="B").ok()  # B starts A's clock
    assert t.snap()["clock"]["running"] == "A"


def test_4_3_iv_set_time() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)
    t.wait(40 * SECOND).cmd("set_time", reserve_ms={"A": 5 * MINUTE, "B": 6 * MINUTE}).ok()
    assert t.snap()["clock"]["reserve_ms"] == {"A": 5 * MINUTE, "B": 6 * MINUTE}
    assert t.snap()["clock"]["running"] == "A"
    t.wait(10 * SECOND).send("tick")
    assert t.snap()["clock"]["reserve_ms"]["A"] == 5 * MINUTE - 10 * SECOND  # no new delay
    t.cmd("set_time", reserve_ms={"A": -1, "B": 0})
    t.refused("reserve_ms")
    no_clock = Table().start(length=7)
    no_clock.cmd("set_time", reserve_ms={"A": 1, "B": 1})
    no_clock.refused("no clock")


def test_3_5_v_two_time_banks() -> None:
    clock = {"minutes_per_point": 1, "delay_s": 10, "second_bank_minutes": 2}
    t = Table().start(length=3, clock=clock).opening(6, 1)
    snap = t.snap()
    assert snap["clock"]["reserve_ms"]["A"] == 3 * MINUTE and snap["clock"]["bank2_ms"]["A"] == 2 * MINUTE
    t.wait(10 * SECOND + 3 * MINUTE + 30 * SECOND).send("tick").ok()  # first bank gone 30 s ago
    snap = t.snap()
    assert snap["phase"] == "playing" and snap["clock"]["flagged"] is None
    assert snap["clock"]["reserve_ms"]["A"] == 90 * SECOND and snap["clock"]["bank2_ms"]["A"] == 0
    t.send("press", side="A").ok()
    assert t.state.clock.reserve.of("A") == 90 * SECOND and t.state.clock.used.of("A") == 210 * SECOND
    t.wait(12 * SECOND).move("B")
    t.wait(10 * SECOND + 90 * SECOND).send("tick")
    snap = t.snap()
    assert snap["phase"] == "flag" and snap["clock"]["flagged"] == "A"


def test_3_5_v_reserve_reading_between_banks_before_any_input() -> None:
    c = new_clock(60 * SECOND, 0, 30 * SECOND).start("A", 0)
    assert c.reserve_at("A", 70 * SECOND) == 20 * SECOND and c.bank2_at("A", 70 * SECOND) == 0
    assert c.settle(70 * SECOND).reserve.of("A") == 20 * SECOND
    assert c.reserve_at("A", 59 * SECOND) == SECOND and c.bank2_at("A", 59 * SECOND) == 30 * SECOND


# -- time expiry ----------------------------------------------------------------------------------


def test_4_3_iii_flag_at_the_exact_ms_with_gin_exception_waits_for_the_td() -> None:
    t = Table().start(length=1, clock={"minutes_per_point": 1, "delay_s": 12}).opening(6, 1)
    t.wait(5 * SECOND).move("A")  # t = 5 s: B's clock from now; flag due at 5 + 12 + 60 = 77 s
    t.now = 100 * SECOND
    t.send("press", side="B")  # too late: B flagged at 77 s
    t.refused("time expired")
    flag = t.event("flag")
    assert flag["side"] == "B" and flag["at"] == 77 * SECOND
    snap = t.snap()
    assert snap["phase"] == "flag" and snap["clock"]["flagged"] == "B"
    assert snap["clock"]["flagged_at"] == 77 * SECOND and snap["td_call"] == "B"
    assert snap["clock"]["reserve_ms"]["B"] == 0 and snap["winner"] is None
    t.send("win", side="B", kind="single")
    t.refused("time expired")
    t.cmd("resolve_flag", winner="B", note="gin: B was certain to win").ok()
    snap = t.snap()
    assert (snap["phase"], snap["winner"], snap["end_reason"]) == ("finished", "B", "time")


def test_4_3_iii_a_time_flag_calls_the_td_for_the_flagged_player() -> None:
    """4.3 iii: when time has expired the TD must be told: the table calls for the flagged player
    (the phase flag stays until the TD decides, whatever happens to that call)."""
    t = Table().start(length=1, clock={"minutes_per_point": 1, "delay_s": 0}).opening(6, 1)
    t.wait(2 * 60 * SECOND).send("tick")
    snap = t.snap()
    assert snap["phase"] == "flag" and snap["td_calls"] == {"A": True, "B": False}
    assert snap["legal"]["td"]["resolve_flag"] is True
    t.send("call_td", side="B").ok()
    t.send("withdraw_call", side="A").ok()
    assert t.snap()["phase"] == "flag"
    t.cmd("resolve_flag", winner="B").ok()
    assert t.snap()["td_calls"] == {"A": False, "B": False}


def test_4_3_iii_flag_boundary_ms() -> None:
    t = Table().start(length=1, clock={"minutes_per_point": 1, "delay_s": 12}).opening(6, 1)
    t.now = 72 * SECOND - 1
    t.send("tick").ok()
    assert t.snap()["phase"] == "playing" and t.snap()["clock"]["reserve_ms"]["A"] == 1
    t.now = 72 * SECOND
    t.send("tick")
    assert t.snap()["phase"] == "flag" and t.snap()["clock"]["flagged_at"] == 72 * SECOND


def test_hbf_4_3_flagged_player_loses_at_once() -> None:
    t = Table().start(length=5, profile="hbf", clock={"minutes_per_point": 1, "delay_s": 12}).opening(6, 1)
    t.now = 10 * MINUTE
    t.send("tick")
    flag, over = t.events[0], t.events[1]
    assert flag["type"] == "flag" and flag["side"] == "A" and flag["at"] == 5 * MINUTE + 12 * SECOND
    assert over["type"] == "match_over" and over["winner"] == "B" and over["end_reason"] == "time"
    snap = t.snap()
    assert (snap["phase"], snap["winner"], snap["end_reason"]) == ("finished", "B", "time")
    t.cmd("resolve_flag", winner="A")
    t.refused("no time flag")


def test_4_3_iv_td_restores_time_after_a_flag() -> None:
    t = Table().start(length=1, clock={"minutes_per_point": 1, "delay_s": 12}).opening(6, 1)
    t.now = 80 * SECOND
    t.send("tick")
    assert t.snap()["phase"] == "flag"
    t.cmd("set_time", reserve_ms={"A": 30 * SECOND, "B": 60 * SECOND}, note="clock ran by mistake").ok()
    snap = t.snap()
    assert snap["phase"] == "paused" and snap["clock"]["flagged"] is None
    t.cmd("resume").ok()
    t.wait(10 * SECOND).send("tick")
    assert t.snap()["clock"]["running"] == "A" and t.snap()["clock"]["reserve_ms"]["A"] == 20 * SECOND


# -- rolls and turns ------------------------------------------------------------------------------


def test_4_1_v_a_premature_roll_is_recorded_not_applied_with_a_clock() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)  # A moves the opening roll on A's clock
    t.send("roll", dice=[5, 5], source="tower")
    t.refused("premature roll", "4.1 v a")
    event = t.event("roll")
    assert event["premature"] is True and event["dice"] == [5, 5]
    assert t.state.dice == (6, 1) and t.state.turn == "A"
    t.send("press", side="A").ok()
    t.send("roll", dice=[5, 5], source="tower").ok()  # now B's roll: the player on turn rolled
    assert t.event("roll")["side"] == "B" and t.state.dice == (5, 5)


def test_4_1_v_a_roll_before_the_rollers_clock_runs_is_premature() -> None:
    t = Table().start(length=7, clock=True).opening(6, 1)  # A moving on A's clock
    t.send("double", side="B").ok()  # premature double (4.4 v): A finishes the turn first
    t.send("roll", dice=[2, 3], source="tower")
    t.refused("a double is waiting", code="roll.double_waiting")
    t.send("take", side="A").ok()  # A takes but has not pressed: A's clock still runs
    t.send("roll", dice=[2, 3], source="tower")
    t.refused("premature roll: A has not finished the turn", code="roll.premature")
    t.send("press", side="A").ok()
    t.send("roll", dice=[2, 3], source="tower").ok()
    assert t.event("roll")["side"] == "B"


def test_4_1_vi_a_without_a_clock_the_next_roll_is_the_opponents() -> None:
    t = Table().start(length=7).opening(6, 1)  # A moves the opening roll; no clock, no press
    t.send("roll", dice=[2, 2], source="tower").ok()
    assert t.event("roll")["side"] == "B" and t.state.turn == "B" and t.state.dice == (2, 2)
    t.send("roll", dice=[4, 1], source="manual").ok()
    assert t.event("roll")["side"] == "A"
