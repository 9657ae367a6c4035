"""Articles the table once decided differently from the federations' texts, each checked in every
table setup where it applies (docs/rules.md, "Table setups"): a scoreboard, a clock, a clock with
a dice tower, a tower without a clock.

Each test names its article; the quotes are from the originals in the shared rules folder.
"""

from __future__ import annotations

from typing import Any

import pytest

from rulebook.custom_profiles import custom_profile
from rulebook.profiles import CUBE_CEILING
from tests.rulebook.helpers import SETUPS, Table, finish_turn, has_tower, setup_table

CLOCK_SETUPS = ("clock", "clock+tower")


def _throw(t: Table, dice: tuple[int, int]) -> Table:
    """A roll as the setup reads it: from the tower, or entered by hand."""
    return t.send("roll", dice=list(dice), source="tower" if has_tower(t) else "manual")


# -- no double after an invalid roll (HU 0.16; WBGF/HBF 4.4 ii) -----------------------------------


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf", "hu"])
@pytest.mark.parametrize("setup", SETUPS)
def test_hu_0_16_wbgf_hbf_4_4_ii_no_double_after_an_invalid_roll_in_every_setup(
    setup: str, profile: str
) -> None:
    """HU 0.16: "Érvénytelen és ezért megismétlendő kockadobás esetén a duplázásra való jog nem tér
    vissza"; WBGF 4.4 ii: the cube "kan derfor ikke brukes i løpet av en tur når et ugyldig kast
    først er gjort" (HBF 4.4 ii alike). The table attributes the throw (an unreadable tower throw
    names no hand) to the player whose roll is due, and that player may not double this turn."""
    t = setup_table(setup, profile=profile).opening(6, 1)  # A moves the opening roll
    finish_turn(t, "A")
    assert t.state.thrower() == "B"
    t.send("invalid_roll", side="B").ok()
    legal = t.snap()["legal"]["B"]
    assert not legal["double"] and not legal["premature_double"]
    assert legal["why"]["double"] == "double.after_roll"
    t.send("double", side="B")
    t.refused(code="double.after_roll")
    if setup != "scoreboard":
        _throw(t, (4, 4)).ok()  # the re-roll
        assert t.event("roll")["side"] == "B"
        t.send("double", side="B")
        t.refused(code="double.after_roll")
        finish_turn(t, "B")
        t.send("double", side="A").ok()  # A's turn (or, without a clock, once B has rolled)
        assert "premature" not in t.event("double")


def test_a_tower_without_a_clock_attributes_an_unreadable_throw_to_the_roll_due() -> None:
    """The reported case: at a tower table without a clock, the next player's invalid roll was
    refused ``roll.not_yours`` and his double then taken as premature. The throw after the mover's
    roll is the opponent's, as a readable one would be (WBGF 4.1 vi a: nothing else marks the turn);
    the mover cannot throw again."""
    t = setup_table("tower").opening(6, 1)
    _throw(t, (5, 2)).ok()  # B's roll: the table follows the dice
    assert t.state.turn == "B" and t.state.thrower() == "A"
    t.send("invalid_roll", side="B")  # B has rolled: this throw can only be A's
    t.refused(code="roll.not_yours")
    t.send("invalid_roll", side="A").ok()
    assert t.state.turn == "A"
    t.send("double", side="A")
    t.refused(code="double.after_roll")
    t.send("double", side="B").ok()  # B doubles during A's turn, before A's re-roll: premature
    assert t.event("double")["premature"] is True


# -- a premature roll (HBF 4.1 v a, FFBG 5.14: it counts; WBGF 4.1 v a, HU 6.11: the opponent chooses)


@pytest.mark.parametrize("profile", ["hbf", "ffbg-cdf"])
@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_hbf_4_1_v_a_ffbg_5_14_a_premature_roll_counts(setup: str, profile: str) -> None:
    """HBF 4.1 v a: "Αν ένας παίκτης ρίξει τα ζάρια του πριν ο αντίπαλός του ολοκληρώσει την κίνησή
    του, η ζαριά μετράει"; FFBG 5.14: "un joueur ayant lancé les dés avant son tour doit
    impérativement utiliser le jet qu'il a lancé ... et il ne peut plus utiliser le videau". Only a
    clock marks where a turn ends, so only there is a roll premature (without one a roll after the
    mover's is the opponent's, every profile alike)."""
    t = setup_table(setup, profile=profile).opening(6, 1)  # A moves the opening roll on A's clock
    _throw(t, (5, 5)).ok()  # B rolls before A pressed
    event = t.event("roll")
    assert event["premature"] is True and event["side"] == "B" and "rejected" not in event
    assert t.state.turn == "A" and t.state.dice == (6, 1)  # A finishes the turn
    t.send("double", side="B")
    t.refused(code="double.after_roll")  # the early roller may no longer double
    _throw(t, (2, 1))
    t.refused(code="roll.premature")  # one early roll, not two
    t.send("press", side="A").ok()
    assert t.state.turn == "B" and t.state.dice == (5, 5) and t.state.rolled
    assert t.snap()["legal"]["table"]["roller"] == "A"  # a roll now would be A's, early in turn
    t.send("double", side="B")
    t.refused(code="double.after_roll")
    t.send("press", side="B").ok()
    t.send("double", side="A").ok()  # A's own turn, before rolling: a proper double
    assert "premature" not in t.event("double")


@pytest.mark.parametrize("profile", ["hbf", "ffbg-cdf"])
@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_hbf_ffbg_a_roll_before_the_taker_pressed_back_counts_too(setup: str, profile: str) -> None:
    """The doubler rolls after the take, before the taker pressed back (4.4 iii): early too; it is
    the doubler's own roll, and the taker's press starts his clock."""
    t = setup_table(setup, profile=profile).opening(6, 1)
    t.send("press", side="A").ok()
    t.send("double", side="B").ok()
    t.send("press", side="B").ok()
    t.send("take", side="A").ok()
    _throw(t, (3, 2)).ok()
    assert t.event("roll")["premature"] is True and t.event("roll")["side"] == "B"
    t.send("press", side="A").ok()  # the taker presses back
    assert t.state.turn == "B" and t.state.dice == (3, 2) and t.snap()["clock"]["running"] == "B"


@pytest.mark.parametrize("profile", ["wbgf-2023", "hu"])
@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_4_1_v_a_hu_6_11_the_opponent_chooses_a_premature_roll(setup: str, profile: str) -> None:
    """WBGF 4.1 v a: the opponent says "hvorvidt det for tidlige kastet godtas"; HU 6.11: "a játékos
    dönthet a dobás elfogadása mellett vagy új dobásra kötelezheti": recorded, not applied."""
    t = setup_table(setup, profile=profile).opening(6, 1)
    _throw(t, (5, 5))
    t.refused(code="roll.premature")
    assert t.event("roll")["premature"] is True and t.state.dice == (6, 1)
    t.send("press", side="A").ok()
    assert t.state.turn == "B" and t.state.dice is None


# -- a take while the clock is stopped (WBGF/HBF 4.4 iii) -------------------------------------------


def _doubled(setup: str, profile: str) -> Table:
    """B has doubled on his turn (and, with a clock, pressed): A is to answer."""
    t = setup_table(setup, profile=profile).opening(6, 1)
    finish_turn(t, "A")
    t.send("double", side="B").ok()
    if t.state.clock.enabled:
        t.send("press", side="B").ok()
    return t


@pytest.mark.parametrize("profile", ["wbgf-2023", "hbf"])
@pytest.mark.parametrize("setup", SETUPS)
def test_4_4_iii_a_take_while_the_clock_is_stopped_binds(setup: str, profile: str) -> None:
    """WBGF 4.4 iii: "enten (i) den verbale handlingen eller den fysiske handlingen i seg selv ...
    binde spilleren til slik handling" (HBF 4.4 iv alike): the take counts while the clock is
    stopped, as a pass, a win and a resignation do."""
    t = _doubled(setup, profile)
    t.cmd("pause", reason="td").ok()
    assert t.snap()["legal"]["A"]["take"] is True
    t.send("take", side="A").ok()
    assert t.snap()["cube"]["owner"] == "A" and t.snap()["cube"]["value"] == 2
    assert t.snap()["phase"] == "paused"
    t.cmd("resume").ok()
    if t.state.clock.enabled:
        assert t.snap()["clock"]["running"] == "A"  # the taker presses back, as after any take
        t.send("press", side="A").ok()
        assert t.snap()["clock"]["running"] == "B"


@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_hbf_4_4_iv_the_doubled_player_takes_during_his_own_pause(setup: str) -> None:
    """HBF has no "pausing counts as passing": the doubled player who paused may still take."""
    t = _doubled(setup, "hbf")
    t.send("pause", side="A", reason="dispute").ok()
    t.send("take", side="A").ok()
    assert t.snap()["cube"]["owner"] == "A"


# -- a player's pause for a break (WBGF 2.2 ii) ---------------------------------------------------


@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_2_2_ii_a_pause_for_a_break_needs_a_break_left_and_a_game_played(setup: str) -> None:
    """WBGF 2.2 ii: "En spiller har rett til et antall 5-minutters pauser i kamper lengre enn til 5
    poeng ... Pauser kan bare tas mellom partier": no break in a 5-point match, none before the
    first game, and a clock paused for a break uses one of the player's breaks."""
    t = setup_table(setup, length=5)
    assert "break" not in t.snap()["legal"]["A"]["pause"]
    t.send("pause", side="A", reason="break")
    t.refused(code="pause.break_before_first_game")
    t.opening(6, 1).send("win", side="A", kind="single").ok()
    t.send("pause", side="A", reason="break")
    t.refused(code="break.none_left")  # a 5-point match gives none
    seven = setup_table(setup, length=7).opening(6, 1)
    seven.send("win", side="A", kind="single").ok()
    assert "break" in seven.snap()["legal"]["B"]["pause"]
    seven.send("pause", side="B", reason="break").ok()
    assert seven.snap()["breaks"]["B"]["used"] == 1
    seven.send("resume").ok()
    seven.send("pause", side="B", reason="break")
    seven.refused(code="break.none_left")
    seven.send("break", side="B")
    seven.refused(code="break.none_left")
    assert "break" in seven.snap()["legal"]["A"]["pause"]  # A's own break is still there


@pytest.mark.parametrize("setup", CLOCK_SETUPS)
def test_hbf_2_2_a_pause_for_a_break_follows_hbfs_allowance(setup: str) -> None:
    """HBF 2.2: one break up to 15 points (so a 5-point match has one, unlike WBGF)."""
    t = setup_table(setup, length=5, profile="hbf").opening(6, 1)
    t.send("win", side="A", kind="single").ok()
    t.send("pause", side="A", reason="break").ok()


# -- no limit to redoubles (FFBG) ---------------------------------------------------------------


def _double_take(t: Table, doubler: str, taker: str) -> Table:
    """``doubler`` doubles on his turn, ``taker`` takes; the doubler's turn then ends."""
    t.send("double", side=doubler).ok()
    if t.state.clock.enabled:
        t.send("press", side=doubler).ok()
    t.send("take", side=taker).ok()
    if t.state.clock.enabled:
        t.send("press", side=taker).ok()
    return finish_turn(t, doubler)


def _redoubles(setup: str, profile: Any, doubles: int, length: int = 99) -> Table:
    t = setup_table(setup, length=length, profile=profile).opening(6, 1)
    finish_turn(t, "A")
    doubler, taker = "B", "A"
    for _ in range(doubles):
        _double_take(t, doubler, taker)
        doubler, taker = taker, doubler
    return t


@pytest.mark.parametrize("setup", SETUPS)
def test_ffbg_no_limit_to_redoubles(setup: str) -> None:
    """FFBG: "Il n'y a aucune limite au nombre de redoubles dans un jeu": the cube passes 64 (the
    WBGF cube's top face); the dead-cube rule, kept for FFBG, still holds."""
    t = _redoubles(setup, "ffbg-cdf", 7)
    assert t.snap()["cube"]["value"] == 128 and t.snap()["cube"]["owner"] == "A"
    t.send("double", side="A")
    t.refused(code="double.dead_cube")  # 0 + 128 >= 99: the owner's cube already wins
    wbgf = _redoubles(setup, "wbgf-2023", 6)
    assert wbgf.snap()["cube"]["value"] == 64
    wbgf.send("double", side="B")
    wbgf.refused(code="double.max")


def test_ffbg_without_a_dead_cube_the_cube_stops_at_the_tables_ceiling() -> None:
    """A custom profile without the dead-cube rule and without a limit: the table records the cube
    up to ``CUBE_CEILING`` (twenty doublings in one game), which the wire schema accepts."""
    profile = custom_profile({"base": "ffbg-cdf", "name": "ffbg-live-cube", "dead_cube": False}).wire()
    t = _redoubles("scoreboard", profile, 20, length=3)
    assert t.snap()["cube"]["value"] == CUBE_CEILING
    t.send("double", side="B" if t.snap()["cube"]["owner"] == "B" else "A")
    t.refused(code="double.max")


# -- articles the table enforces that docs/rules.md listed as not modelled --------------------------


@pytest.mark.parametrize("profile", ["hu", "ffbg-cdf"])
@pytest.mark.parametrize("setup", ["clock", "clock+tower", "tower"])
def test_hu_7_10_ffbg_6_9_the_doubler_does_not_roll_before_the_answer(setup: str, profile: str) -> None:
    """HU 7.10: "A duplázó játékos mindaddig nem dobhat, amíg ellenfele el nem fogadja a kockát";
    FFBG 6.9: "il doit attendre l'acceptation ... pour lancer les dés". Wherever the table reads
    rolls (a scoreboard reads none), a roll while the double waits is refused; after the take it is
    the doubler's."""
    t = setup_table(setup, profile=profile).opening(6, 1)
    finish_turn(t, "A")
    t.send("double", side="B").ok()
    _throw(t, (4, 3))
    t.refused(code="roll.double_waiting")
    assert t.event("roll")["dice"] == [4, 3] and t.snap()["cube"]["offered_by"] == "B"
    if t.state.clock.enabled:
        t.send("press", side="B").ok()
    t.send("take", side="A").ok()
    if t.state.clock.enabled:
        t.send("press", side="A").ok()
    _throw(t, (4, 3)).ok()
    assert t.event("roll")["side"] == "B"


@pytest.mark.parametrize("setup", SETUPS)
def test_ffbg_6_12_a_cube_decision_stands_at_the_cubes_real_value(setup: str) -> None:
    """FFBG 6.12: "Un joueur ne peut revenir sur une décision de videau sous prétexte que le videau a
    une valeur initiale différente de celle qu'il croyait": a double turned to a wrong value is
    still a double at the right one (4.4 vi: ``corrected_from``), and the take stands; nothing at
    the table turns it into a pass."""
    t = setup_table(setup, profile="ffbg-cdf").opening(6, 1)
    finish_turn(t, "A")
    t.send("double", side="B", value=8).ok()
    assert t.event("double")["corrected_from"] == 8 and t.event("double")["value"] == 2
    t.send("take", side="A").ok()
    assert t.event("take")["value"] == 2
    t.send("pass", side="A")
    t.refused(code="pass.no_offer")
    assert t.snap()["cube"]["value"] == 2 and t.snap()["cube"]["owner"] == "A"


@pytest.mark.parametrize("setup", SETUPS)
def test_hu_4_5_a_conceded_match_the_organiser_accepted_stands(setup: str) -> None:
    """HU 4.5: "Amennyiben egy játékos tévedésből elismeri a vereségét ... a vereség semmilyen esetben
    nem módosítható, ha korábban a versenyszervező által elfogadásra került": the concession the
    organiser accepts is the TD's forfeit; nothing at the table takes it back (the table's undo
    ends with a TD command), only the organiser's own waiver."""
    t = setup_table(setup, profile="hu").opening(6, 1)
    t.send("win", side="B", kind="single").ok()
    t.cmd("forfeit", "td-concede", against="A", reason="conceded").ok()
    assert t.snap()["winner"] == "B" and t.snap()["end_reason"] == "forfeit"
    t.send("undo")
    t.refused(code="undo.nothing")
    assert t.snap()["phase"] == "finished"


def test_hu_5_10_a_penalty_point_after_three_illegal_moves() -> None:
    """HU 5.10: "Három szabálytalan lépés után, ha a versenyszervező értesült róla, a vétkes játékos
    egy pontos büntetést kaphat": each illegal move stops the clock (8.10 d, pause ``illegal_move``);
    the point is the organiser's ``penalty`` and goes to the opponent."""
    t = setup_table("clock", profile="hu").opening(6, 1)
    for _ in range(3):
        t.send("pause", side="B", reason="illegal_move").ok()
        t.send("resume").ok()
    t.cmd("penalty", "td-5-10", against="A", points=1, reason="illegal moves").ok()
    assert t.score() == (0, 1) and t.snap()["penalties"] == {"A": 1, "B": 0}


@pytest.mark.parametrize("setup", SETUPS)
def test_2_2_v_an_emergency_without_breaks_left_goes_through_the_td(setup: str) -> None:
    """WBGF 2.2 v: "kan en spiller uten flere pauser tilgjengelig likevel påberope seg nødsfall uten
    sanksjoner ... Turneringsledelsen bør informeres": the table records no break (so no overrun
    can be counted against the player), the player calls the TD in any phase, and the TD stops the
    match (also a game in progress) until the player is back."""
    t = setup_table(setup, length=5).opening(6, 1)  # a 5-point WBGF match: no break at all
    t.send("win", side="A", kind="single").ok()
    t.send("break", side="B")
    t.refused(code="break.none_left")
    t.send("call_td", side="B").ok()
    t.cmd("pause", reason="td").ok()
    assert t.snap()["phase"] == "paused" and not t.snap()["breaks"]["B"]["away"]
    t.cmd("resume").ok()
    t.opening(6, 1)
    t.send("call_td", side="A").ok()  # during a game too
    t.cmd("pause", reason="td").ok()
    assert t.snap()["phase"] == "paused" and t.snap()["breaks"]["A"]["used"] == 0
