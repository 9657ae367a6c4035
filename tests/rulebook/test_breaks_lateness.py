"""Breaks and lateness (WBGF 2.2; hbf 2.2; hu 1.5-1.6; ffbg-cdf 1.10-1.11, 10.1-10.2)."""

from __future__ import annotations

import pytest

from rulebook import get_profile
from rulebook.policy import (
    break_ms,
    breaks_allowed,
    forfeit_points,
    is_lateness_forfeit,
    lateness,
    lateness_points,
)
from tests.rulebook.helpers import MINUTE, SECOND, Table

WALL0 = 1_795_000_000_000


@pytest.mark.parametrize(
    ("length", "allowed"),
    [
        (1, 0),
        (3, 0),
        (4, 0),
        (5, 0),
        (6, 1),
        (7, 1),
        (9, 1),
        (10, 1),
        (11, 1),
        (12, 2),
        (13, 2),
        (17, 2),
        (18, 3),
        (19, 3),
        (23, 3),
        (24, 4),
        (25, 4),
        (31, 4),
    ],
)
def test_2_2_ii_wbgf_break_allowance_even_lengths_take_the_band_of_n_plus_1(
    length: int, allowed: int
) -> None:
    assert breaks_allowed(get_profile("wbgf-2023"), length) == allowed
    assert breaks_allowed(get_profile("wbgf-2023"), length, clock=True) == allowed


@pytest.mark.parametrize(("length", "allowed"), [(1, 1), (7, 1), (14, 1), (15, 1), (16, 2), (17, 2), (25, 2)])
def test_hbf_2_2_break_allowance(length: int, allowed: int) -> None:
    assert breaks_allowed(get_profile("hbf"), length) == allowed


def test_hu_1_6_one_ten_minute_break_two_in_a_final() -> None:
    hu = get_profile("hu")
    assert [breaks_allowed(hu, n) for n in (1, 7, 25)] == [1, 1, 1]
    assert breaks_allowed(hu, 11, final=True) == 2
    assert break_ms(hu) == 10 * MINUTE


@pytest.mark.parametrize(("length", "allowed"), [(5, 1), (7, 1), (9, 1), (10, 2), (11, 2), (17, 2)])
def test_ffbg_1_11_breaks_without_a_clock(length: int, allowed: int) -> None:
    ffbg = get_profile("ffbg-cdf")
    assert breaks_allowed(ffbg, length) == allowed
    assert breaks_allowed(ffbg, length, double_match_point=True) == allowed + 1  # "A DMP ... en plus"
    assert breaks_allowed(ffbg, length, clock=True) == 0  # 10.1: on one's own running clock


def test_dmp_extra_break_only_in_ffbg() -> None:
    """ffbg-cdf 1.11: the extra break at double match point is FFBG's alone (WBGF 2.2 ii has none)."""
    assert breaks_allowed(get_profile("wbgf-2023"), 7, double_match_point=True) == 1


def test_2_2_ii_breaks_only_between_games_within_the_allowance() -> None:
    t = Table().start(length=7)
    t.send("break", side="A")
    t.refused("not possible in phase opening")
    t.opening()
    t.send("break", side="A")
    t.refused("phase playing")
    t.send("win", side="A", kind="single").ok()
    t.send("break", side="A").ok()
    snap = t.snap()
    assert (
        snap["phase"] == "break" and snap["breaks"]["A"]["used"] == 1 and snap["breaks"]["A"]["allowed"] == 1
    )
    assert snap["breaks"]["A"]["away"] is True
    t.send("opening_roll", A=6, B=1)
    t.refused("phase break")
    t.wait(4 * MINUTE).send("return", side="A").ok()
    assert t.event("return")["overrun_ms"] == 0 and t.snap()["phase"] == "between_games"
    t.game("B")
    t.send("break", side="A")
    t.refused("no breaks left (1 of 1 used)")


def test_2_2_ii_both_players_may_combine_their_breaks_and_overrun_is_reported() -> None:
    """WBGF 2.2 ii: "ved at begge spillerne kombinere sine pauser"."""
    t = Table().start(length=13).game("A")  # 2 breaks each
    t.send("break", side="A").ok()
    t.send("break", side="B").ok()
    t.wait(7 * MINUTE).send("return", side="B").ok()
    assert t.event("return")["overrun_ms"] == 2 * MINUTE
    assert t.snap()["phase"] == "break"  # A is still away
    t.wait(MINUTE).send("return", side="A").ok()
    assert t.event("return")["overrun_ms"] == 3 * MINUTE and t.snap()["phase"] == "between_games"
    t.send("return", side="A")
    t.refused("not on a break", code="return.not_away")


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf"])
def test_2_2_ii_a_player_combines_his_own_breaks_and_the_overrun_starts_after_them(profile: str) -> None:
    """WBGF/HBF 2.2 ii: "en spiller kombinerer to eller flere av egne pauser": two breaks taken as
    one of 10 minutes; lateness after it counts from the end of the combined allowance."""
    t = Table().start(length=17, profile=profile).game("A")  # wbgf: 2 breaks (13-17); hbf: 2 (> 15)
    t.send("break", side="A").ok()
    first_until = t.state.break_until.a
    assert t.snap()["legal"]["A"]["break"] is True  # a second break joins the first
    t.wait(2 * MINUTE).send("break", side="A").ok()
    assert t.event("break")["combined"] is True
    assert t.state.break_until.a == first_until + 5 * MINUTE  # the allowance grows, not restarts
    assert t.snap()["breaks"]["A"]["used"] == 2
    assert (
        t.snap()["legal"]["A"]["break"] is False
        and t.snap()["legal"]["A"]["why"]["break"] == "break.none_left"
    )
    t.wait(9 * MINUTE).send("return", side="A").ok()  # 11 minutes away in all
    assert t.event("return")["overrun_ms"] == MINUTE


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
def test_profiles_that_do_not_combine_a_players_breaks(profile: str) -> None:
    """HU 1.6 and FFBG 1.11 give each break on its own; combining is not stated."""
    t = Table().start(length=11, profile=profile, final=True).game("A")
    t.send("break", side="A").ok()
    t.send("break", side="A")
    t.refused("does not combine", code="break.not_combined")


def test_break_end_shown_on_the_wall_clock() -> None:
    """2.2 ii: a break lasts 5 minutes; its end is shown on the wall clock."""
    t = Table()
    t.send(
        "assign",
        match_id="m",
        length=7,
        players={"A": {"name": "a", "id": ""}, "B": {"name": "b", "id": ""}},
        profile="wbgf-2023",
        clock=False,
        wall=WALL0,
    )
    t.send("checkin", side="A").send("checkin", side="B").game("A")
    t.wait(SECOND).send("break", side="B").ok()
    until = WALL0 + SECOND + 5 * MINUTE
    assert t.event("break")["until_wall"] == until and t.snap()["breaks"]["B"]["until_wall"] == until


def test_a_td_pause_during_a_break_resumes_between_games_when_everyone_is_back() -> None:
    """4.3 ii c / 2.2 ii: a TD pause during a break, then play resumes between games."""
    t = Table().start(length=7).game("A")
    t.send("break", side="A").ok()
    t.cmd("pause", reason="td").ok()
    t.send("return", side="A").ok()
    t.cmd("resume").ok()
    assert t.snap()["phase"] == "between_games"
    t.opening().send("win", side="B", kind="single").ok()


def test_ffbg_10_2_break_runs_on_the_breakers_own_clock() -> None:
    t = Table().start(length=9, profile="ffbg-cdf", clock=True).game("A")
    assert t.snap()["breaks"]["A"]["allowed"] == 0
    t.send("break", side="B").ok()
    assert t.event("break")["on_clock"] is True
    snap = t.snap()
    assert snap["phase"] == "between_games" and snap["clock"]["running"] == "B"
    t.wait(4 * MINUTE).send("return", side="B").ok()
    snap = t.snap()
    assert snap["clock"]["running"] is None
    assert snap["clock"]["reserve_ms"]["B"] == 32 * MINUTE - (4 * MINUTE - 15 * SECOND)
    assert snap["breaks"]["B"]["used"] == 1


def test_ffbg_breaks_never_pause_the_clock() -> None:
    """ffbg-cdf 11.14, 10.3: the clock is never stopped for a break."""
    t = Table().start(length=9, profile="ffbg-cdf", clock=True).game("A")
    t.send("pause", side="B", reason="break")
    t.refused("does not allow a pause", code="pause.reason_not_allowed")
    assert "break" not in t.snap()["legal"]["B"]["pause"]


def test_ffbg_10_2_both_players_away_the_breaker_is_charged_then_the_absent_one() -> None:
    """FFBG 10.2: the breaker's own clock runs; the opponent may leave "à ses risques et périls":
    while both are away the breaker is still charged; back first, the breaker starts the absent
    opponent's clock."""
    t = Table().start(length=9, profile="ffbg-cdf", clock=True).game("A")
    t.send("break", side="A").ok()
    assert t.snap()["clock"]["running"] == "A"
    t.wait(MINUTE).send("break", side="B").ok()  # B leaves too: A's clock keeps running
    assert t.snap()["clock"]["running"] == "A"
    t.wait(3 * MINUTE).send("return", side="A").ok()
    snap = t.snap()
    assert snap["clock"]["running"] == "B"  # A is back, B is not: B's time runs
    assert snap["clock"]["reserve_ms"]["A"] == 32 * MINUTE - (4 * MINUTE - 15 * SECOND)
    t.wait(2 * MINUTE).send("return", side="B").ok()
    snap = t.snap()
    assert snap["clock"]["running"] is None
    assert snap["clock"]["reserve_ms"]["B"] == 32 * MINUTE - (2 * MINUTE - 15 * SECOND)


def test_ffbg_10_3_no_break_on_a_neutralised_clock() -> None:
    """FFBG 10.3: the players may not take a simultaneous break by pausing the clock; a break is
    refused while the clock is paused (the TD sanctions an abandoned table with set_time)."""
    t = Table().start(length=9, profile="ffbg-cdf", clock=True).opening(6, 1)  # A's clock runs
    t.send("pause", side="A", reason="equipment").ok()
    t.send("break", side="A")
    t.refused(code="phase.paused")
    t.send("break", side="B")
    t.refused(code="phase.paused")


def test_ffbg_9_3_both_absent_the_first_to_arrive_sits_at_the_other_clock() -> None:
    """FFBG 9.3: both players absent at round time, the TD starts one clock; the first player to
    arrive takes the other side, so the clock that runs is the absent player's."""
    t = Table().assign(length=9, profile="ffbg-cdf", clock=True)
    t.cmd("start_clock", side="A").ok()
    t.wait(4 * MINUTE).send("checkin", side="A").ok()
    assert t.event("checkin")["clock_to"] == "B"
    assert t.snap()["clock"]["running"] == "B"
    t.wait(6 * MINUTE).send("checkin", side="B").ok()
    snap = t.snap()
    assert snap["clock"]["reserve_ms"]["A"] == 32 * MINUTE - (4 * MINUTE - 15 * SECOND)
    assert snap["clock"]["reserve_ms"]["B"] == 32 * MINUTE - (6 * MINUTE - 15 * SECOND)


def test_ffbg_1_11_extra_break_at_double_match_point_without_clock() -> None:
    t = Table().start(length=3, profile="ffbg-cdf", clock=False).game("A", "gammon")  # 2-0
    t.send("break", side="B").ok()
    t.send("return", side="B").ok()
    t.game("B")  # Crawford game: 2-1
    t.send("break", side="B")
    t.refused("no breaks left (1 of 1")
    t.game("B")  # 2-2: double match point
    assert t.snap()["breaks"]["B"]["allowed"] == 2
    t.send("break", side="B").ok()


def test_hu_final_allows_two_breaks_at_the_table() -> None:
    """hu 1.6: two 10-minute breaks in a final."""
    t = Table().start(length=7, profile="hu", final=True).game("A")
    assert t.snap()["breaks"]["A"]["allowed"] == 2 and t.snap()["final"] is True
    t.send("break", side="A").ok()
    t.wait(10 * MINUTE).send("return", side="A").ok()
    assert t.event("return")["overrun_ms"] == 0
    t.send("break", side="A").ok()


# -- lateness -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("late", "points"),
    [
        (0, 0),
        (5 * MINUTE - 1, 0),
        (5 * MINUTE, 1),
        (10 * MINUTE - 1, 1),
        (10 * MINUTE, 2),
        (15 * MINUTE, 3),
        (20 * MINUTE, 4),
    ],
)
@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu"])
def test_2_2_iv_lateness_one_point_per_five_minutes(profile: str, late: int, points: int) -> None:
    p = get_profile(profile)
    assert lateness_points(p, late, clock=False) == points
    assert lateness_points(p, late, clock=True) == points


def test_2_2_iv_seven_point_match_forfeited_at_twenty_minutes() -> None:
    wbgf = get_profile("wbgf-2023")
    assert forfeit_points(7) == 4 and not is_lateness_forfeit(7, 3) and is_lateness_forfeit(7, 4)
    assert lateness(wbgf, 7, 5 * MINUTE, clock=True) == lateness(wbgf, 7, 5 * MINUTE, clock=False)
    at_15 = lateness(wbgf, 7, 15 * MINUTE, clock=False)
    assert (at_15.points, at_15.forfeit, at_15.next_due_ms) == (3, False, 5 * MINUTE)
    at_20 = lateness(wbgf, 7, 20 * MINUTE, clock=False)
    assert (at_20.points, at_20.forfeit, at_20.next_due_ms) == (4, True, None)
    early = lateness(wbgf, 7, MINUTE, clock=False)
    assert (early.points, early.forfeit, early.next_due_ms) == (0, False, 4 * MINUTE)
    assert lateness(wbgf, 7, 12 * MINUTE, clock=False).next_due_ms == 3 * MINUTE
    assert lateness(wbgf, 7, 90 * MINUTE, clock=False).points == 4  # capped at the forfeit


def test_ffbg_1_10_lateness_without_clock_first_point_at_25_minutes() -> None:
    ffbg = get_profile("ffbg-cdf")
    assert lateness_points(ffbg, 20 * MINUTE, clock=False) == 0
    assert lateness_points(ffbg, 25 * MINUTE - 1, clock=False) == 0
    assert lateness_points(ffbg, 25 * MINUTE, clock=False) == 1
    assert lateness_points(ffbg, 30 * MINUTE, clock=False) == 2
    assert lateness_points(ffbg, 40 * MINUTE, clock=False) == 4  # 4/0 in 7 points: 1.10's example
    assert lateness(ffbg, 7, 40 * MINUTE, clock=False).forfeit is True
    assert lateness(ffbg, 7, 10 * MINUTE, clock=False).next_due_ms == 15 * MINUTE


def test_ffbg_9_3_with_a_clock_no_lateness_points() -> None:
    ffbg = get_profile("ffbg-cdf")
    assert lateness_points(ffbg, 3 * 60 * MINUTE, clock=True) == 0
    result = lateness(ffbg, 7, 3 * 60 * MINUTE, clock=True)
    assert (result.points, result.forfeit, result.next_due_ms) == (0, False, None)


def test_lateness_negative_is_not_late() -> None:
    """2.2 iv: arriving before the start time is not lateness."""
    assert lateness_points(get_profile(), -5 * MINUTE, clock=False) == 0


def test_checkin_reports_how_late_the_player_was() -> None:
    """2.2 iv: the table reports arrival against the start time (the hub awards the points)."""
    t = Table()
    t.send(
        "assign",
        match_id="m",
        length=7,
        players={"A": {"name": "a", "id": ""}, "B": {"name": "b", "id": ""}},
        profile="wbgf-2023",
        clock=False,
        start_wall=WALL0,
        wall=WALL0 - MINUTE,
    )
    t.wait(30 * SECOND).send("checkin", side="A").ok()
    assert t.event("checkin")["late_ms"] == 0
    t.wait(7 * MINUTE).send("checkin", side="B").ok()
    assert t.event("checkin")["late_ms"] == 7 * MINUTE - 30 * SECOND
    assert t.snap()["start_wall"] == WALL0 and t.snap()["phase"] == "opening"
    t.send("checkin", side="B")
    t.refused("already checked in")


def test_2_2_iv_only_where_the_rules_say_does_the_td_start_a_late_players_clock() -> None:
    """WBGF 2.2 iv's alternative and FFBG 9.3 start a late player's clock; HBF and HU do not."""
    for profile in ("hbf", "hu"):
        t = Table().assign(length=7, profile=profile, clock=True)
        t.cmd("start_clock", side="B")
        t.refused(code="clock.not_in_profile")
        assert t.snap()["legal"]["td"]["start_clock"] == []


def test_2_2_iv_wbgf_alternative_td_starts_the_late_players_clock() -> None:
    t = Table().assign(length=7, clock=True)
    t.send("checkin", side="A").ok()
    t.wait(5 * MINUTE).cmd("start_clock", side="B").ok()
    t.wait(3 * MINUTE).send("checkin", side="B").ok()
    assert t.snap()["clock"]["reserve_ms"]["B"] == 14 * MINUTE - 3 * MINUTE + 12 * SECOND
    t.opening()  # the opening roll stops it; the lower roller starts the first turn
    assert t.snap()["clock"]["reserve_ms"]["B"] == 14 * MINUTE - 3 * MINUTE + 12 * SECOND
