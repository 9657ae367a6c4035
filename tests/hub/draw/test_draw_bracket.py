"""The bracket as a value: byes, results, walkovers, undo and what it changes."""

from __future__ import annotations

import pytest

from hub.draw import BYE, Bracket, DrawError, EntryFlight, Event, FedFlight, Feed, State, diff
from hub.draw.seeding import Draw

EVENT = Event(
    (
        EntryFlight("main", 8, "wbgf-2023", (7, 9)),
        FedFlight("consolation", (Feed("main", 1),), "hbf", (5,)),
    )
)
#: a, b and c; d v e; f v g; h (the bye at position 2 makes a's match a bye)
DRAW = Draw("main", ("a", None, "b", "c", "d", "e", "f", "g"), 1)


def fresh() -> Bracket:
    return Bracket.build(EVENT, [DRAW])


def test_a_bye_passes_its_player_on_and_feeds_the_consolation_a_bye():
    b = fresh()
    m1 = b.match("main-r1-m1")
    assert m1.state is State.BYE and m1.winner == "a" and m1.loser is BYE
    assert b.match("main-r2-m1").seats == ("a", None)
    assert b.match("consolation-r1-m1").seats == (BYE, None)
    assert [m.id for m in b.ready()] == ["main-r1-m2", "main-r1-m3", "main-r1-m4"]


def test_a_result_feeds_the_winner_on_and_the_loser_to_the_consolation():
    b = fresh().with_result("main-r1-m2", "c", at=1_000, points=(7, 3))
    assert b.match("main-r1-m2").state is State.PLAYED
    assert b.match("main-r2-m1").seats == ("a", "c") and b.match("main-r2-m1").is_ready()
    # b meets a bye in the consolation: he goes on to its round 2 without playing
    cons = b.match("consolation-r1-m1")
    assert cons.seats == (BYE, "b") and cons.state is State.BYE and cons.winner == "b"
    assert b.match("consolation-r2-m1").seats == ("b", None)
    assert b.result("main-r1-m2").points == (7, 3)


def test_a_result_needs_both_players_and_one_of_them_as_winner():
    b = fresh()
    with pytest.raises(DrawError) as caught:
        b.with_result("main-r2-m1", "a", at=1)
    assert caught.value.code == "draw.result.not_ready"
    with pytest.raises(DrawError) as caught:
        b.with_result("main-r1-m2", "a", at=1)
    assert caught.value.code == "draw.result.not_a_player"
    with pytest.raises(DrawError) as caught:
        b.with_result("main-r1-m2", "b", at=1).with_result("main-r1-m2", "c", at=2)
    assert caught.value.code == "draw.result.repeated"


def test_results_in_any_order_give_the_same_bracket():
    one = fresh().with_result("main-r1-m2", "b", at=1).with_result("main-r1-m3", "e", at=2)
    two = fresh().with_result("main-r1-m3", "e", at=2).with_result("main-r1-m2", "b", at=1)
    assert one == two and one.matches() == two.matches()


def test_an_undo_gives_the_bracket_built_without_that_result_and_says_what_changed():
    before = fresh().with_result("main-r1-m2", "b", at=1).with_result("main-r1-m3", "e", at=2)
    after = before.undone("main-r1-m2")
    scratch = Bracket.build(EVENT, [DRAW], [before.result("main-r1-m3")])
    assert after == scratch and after.matches() == scratch.matches()
    changed = [b.id for _, b in diff(before, after)]
    assert changed == ["main-r1-m2", "main-r2-m1", "consolation-r1-m1", "consolation-r2-m1"]


def test_an_undo_is_refused_while_a_later_result_depends_on_it():
    b = fresh().with_result("main-r1-m2", "b", at=1).with_result("main-r2-m1", "a", at=2)
    with pytest.raises(DrawError) as caught:
        b.undone("main-r1-m2")
    assert caught.value.code == "draw.result.dependent"
    assert caught.value.params["dependents"] == "main-r2-m1"
    # undone latest first, it goes
    assert b.undone("main-r2-m1").undone("main-r1-m2") == fresh()


def test_a_withdrawn_player_loses_his_next_match_by_walkover_and_feeds_nobody():
    b = fresh().with_withdrawal("d", at=100)
    m3 = b.match("main-r1-m3")
    assert m3.state is State.WALKOVER and m3.winner == "e" and m3.loser is BYE
    assert b.match("consolation-r1-m2").seats == (BYE, None)
    with pytest.raises(DrawError) as caught:
        b.with_result("main-r1-m3", "d", at=1)
    assert caught.value.code == "draw.result.not_ready"
    assert b.without_withdrawal("d") == fresh()


def test_a_result_stands_when_its_player_withdraws_afterwards():
    b = fresh().with_result("main-r1-m2", "b", at=1).with_withdrawal("b", at=100)
    assert b.match("main-r1-m2").state is State.PLAYED
    r2 = b.match("main-r2-m1")
    assert r2.state is State.WALKOVER and r2.winner == "a"


def test_of_two_withdrawn_players_the_first_to_withdraw_loses():
    b = fresh().with_withdrawal("e", at=200).with_withdrawal("d", at=100)
    m3 = b.match("main-r1-m3")
    assert m3.state is State.WALKOVER and m3.winner == "e" and m3.loser is BYE
    b = b.with_result("main-r1-m4", "f", at=300)
    assert b.match("main-r2-m2").state is State.WALKOVER and b.match("main-r2-m2").winner == "f"


def test_a_later_withdrawal_does_not_take_back_a_walkover_played_on():
    b = fresh().with_withdrawal("d", at=100).with_result("main-r1-m4", "f", at=200)
    b = b.with_result("main-r2-m2", "e", at=300).with_withdrawal("e", at=400)
    assert b.match("main-r1-m3").winner == "e" and b.match("main-r2-m2").state is State.PLAYED


def test_taking_a_withdrawal_back_is_refused_once_the_walkover_was_built_on():
    b = (
        fresh()
        .with_withdrawal("d", at=100)
        .with_result("main-r1-m4", "f", at=1)
        .with_result("main-r2-m2", "e", at=2)
    )
    with pytest.raises(DrawError) as caught:
        b.without_withdrawal("d")
    assert caught.value.code == "draw.result.dependent"


def test_verification_is_recorded_once():
    b = fresh().with_result("main-r1-m2", "b", at=1)
    v = b.verified("main-r1-m2", at=9)
    assert v.result("main-r1-m2").verified_at == 9 and v.verified("main-r1-m2", at=12) is v
    with pytest.raises(DrawError) as caught:
        b.verified("main-r1-m3", at=9)
    assert caught.value.code == "draw.result.none"


@pytest.mark.parametrize(
    ("draws", "code"),
    [
        ([], "draw.draw.missing"),
        ([DRAW, DRAW], "draw.flight.repeated"),
        ([Draw("main", ("a", "b"), 1)], "draw.draw.size"),
        ([Draw("main", ("a", "a", None, None, None, None, None, None), 1)], "draw.entries.repeated"),
        ([Draw("consolation", ("a", "b"), 1)], "draw.draw.flight"),
    ],
)
def test_a_bad_draw_is_refused(draws, code):
    with pytest.raises(DrawError) as caught:
        Bracket.build(EVENT, draws)
    assert caught.value.code == code


def test_unknown_players_and_matches_are_refused():
    with pytest.raises(DrawError, match="not in the draw"):
        fresh().with_withdrawal("zz", at=100)
    with pytest.raises(DrawError, match="has withdrawn already"):
        fresh().with_withdrawal("a", at=100).with_withdrawal("a", at=100)
    with pytest.raises(DrawError, match="no match"):
        fresh().with_result("main-r7-m1", "a", at=1)


def test_a_players_next_match_and_path():
    b = fresh()
    assert b.next_match("a").id == "main-r2-m1"  # past his bye, his opponent not known yet
    b = b.with_result("main-r1-m2", "c", at=1)
    assert b.next_match("c").id == "main-r2-m1" and b.next_match("c").seats == ("a", "c")
    # b lost: his bye in the consolation passes him to its round 2
    assert [m.id for m in b.matches_of("b")] == ["main-r1-m2", "consolation-r1-m1", "consolation-r2-m1"]
    assert b.next_match("b").id == "consolation-r2-m1"
    b = (
        b.with_result("main-r2-m1", "a", at=2)
        .with_result("main-r1-m3", "d", at=3)
        .with_result("main-r1-m4", "f", at=4)
    )
    b = b.with_result("main-r2-m2", "d", at=5).with_result("main-r3-m1", "d", at=6)
    assert b.next_match("d") is None and b.match("main-r3-m1").winner == "d"
    assert b.next_match("c") is None  # out: the consolation takes round 1's losers only
