"""Match scoring, penalty points and the Crawford rule (RULES.md §1; WBGF 4.4 iv, 4.5, 2.2 iv)."""

from __future__ import annotations

import pytest

from tests.rulebook.helpers import Table


@pytest.mark.parametrize(
    ("kind", "cube", "points"),
    [
        ("single", 1, 1),
        ("gammon", 1, 2),
        ("backgammon", 1, 3),
        ("single", 2, 2),
        ("gammon", 4, 8),
        ("backgammon", 2, 6),
    ],
)
def test_1_game_value_is_kind_times_cube(kind: str, cube: int, points: int) -> None:
    t = Table().start(length=25)
    t.opening(6, 1)
    doubler, taker = "B", "A"
    value = 1
    while value < cube:
        t.double_take(doubler, taker)
        value *= 2
        doubler, taker = taker, doubler
    assert t.match.cube.value == cube
    t.send("win", side="A", kind=kind).ok()
    assert t.score() == (points, 0)
    game = t.snap()["games"][-1]
    assert game == {
        "game": 1,
        "winner": "A",
        "kind": kind,
        "cube": cube,
        "points": points,
        "resigned": False,
        "wall": None,
    }


def test_4_4_viii_no_jacoby_gammon_counts_with_centred_cube() -> None:
    t = Table().start(length=7).game("B", "gammon")
    assert t.score() == (0, 2)


def test_4_4_iii_pass_scores_the_value_before_the_double() -> None:
    t = Table().start(length=11).opening(6, 1)
    t.double_take("B", "A")  # cube 2 on A's side
    t.pass_turn()  # B rolls and moves
    t.send("double", side="A").ok()  # A redoubles to 4 ...
    assert t.snap()["cube"]["value"] == 2 and t.snap()["cube"]["offered_by"] == "A"
    t.send("pass", side="B").ok()  # ... B passes: A scores the 2 the cube showed before
    assert t.score() == (2, 0)
    assert t.snap()["games"][-1]["kind"] == "pass" and t.snap()["games"][-1]["points"] == 2
    assert t.event("game_over")["points"] == 2


def test_4_4_iii_pass_of_initial_double_scores_one() -> None:
    t = Table().start(length=5).opening(1, 6)  # B on roll
    t.send("press", side="B").ok()  # B moved (no clock: the button ends the turn)
    t.send("double", side="A").ok()
    t.send("pass", side="B").ok()
    assert t.score() == (1, 0)


@pytest.mark.parametrize(("kind", "points"), [("single", 2), ("gammon", 4), ("backgammon", 6)])
def test_4_5_resign_concedes_to_the_opponent_at_cube_value(kind: str, points: int) -> None:
    t = Table().start(length=11).opening(6, 1)
    t.double_take("B", "A")
    t.send("resign", side="B", kind=kind).ok()
    assert t.score() == (points, 0)
    assert t.snap()["games"][-1]["resigned"] is True


def test_result_kind_must_be_known() -> None:
    """4.5: a game ends as a single, a gammon or a backgammon."""
    t = Table().start().opening()
    t.send("win", side="A", kind="triple")
    t.refused("kind: expected one of single, gammon, backgammon", code="field.choice")
    t.send("resign", side="A", kind=["single"])
    t.refused("kind", code="field.choice")
    t.send("resign", side="A")
    t.refused("kind: required", code="field.missing")  # never a single by default
    assert t.score() == (0, 0) and t.match.in_game


def test_1_win_entered_while_a_double_waits_is_refused() -> None:
    t = Table().start().opening()
    t.send("double", side="B").ok()
    t.send("win", side="A", kind="single")
    t.refused("take or pass first")


def test_1_match_ends_when_a_player_reaches_the_length() -> None:
    t = Table().start(length=3).game("A", "gammon").game("A")
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("A", "points", "finished")
    assert snap["score"] == {"A": 3, "B": 0}
    t.send("opening_roll", A=6, B=1)
    t.refused("match is over")


# -- penalty points ---------------------------------------------------------------------------


def test_2_2_iv_penalty_points_go_to_the_opponent() -> None:
    t = Table().start(length=7)
    t.cmd("penalty", "pen-1", against="B", points=2, reason="conduct").ok()
    assert t.score() == (2, 0)
    snap = t.snap()
    assert snap["penalties"] == {"A": 0, "B": 2}
    assert snap["penalty_log"] == [
        {"id": "pen-1", "against": "B", "points": 2, "reason": "conduct", "waived": False}
    ]
    assert t.event("penalty")["score"] == {"A": 2, "B": 0}


def test_2_2_iv_penalty_points_can_win_the_match() -> None:
    t = Table().start(length=3).game("A", "gammon")
    t.cmd("penalty", "pen-9", against="B", points=1, reason="conduct").ok()
    snap = t.snap()
    assert (snap["winner"], snap["end_reason"], snap["phase"]) == ("A", "points", "finished")
    assert snap["score"] == {"A": 3, "B": 0}
    assert t.event("match_over")["winner"] == "A"


def test_penalty_needs_at_least_one_point_and_a_side() -> None:
    """2.2 iv / 4.2: penalty points are whole points against one side."""
    t = Table().start()
    t.cmd("penalty", against="B", points=0)
    t.refused("points")
    t.cmd("penalty", against="C", points=1)
    t.refused("against")
    assert t.score() == (0, 0)


# -- Crawford -------------------------------------------------------------------------------------


def test_4_4_iv_crawford_game_is_the_first_with_a_player_one_away() -> None:
    t = Table().start(length=5).game("A", "gammon").game("A")  # 3-0: A two away
    assert t.snap()["crawford"] is False and t.event("game_over")["crawford_next"] is False
    t.game("A")  # 4-0: A one away
    assert t.event("game_over")["crawford_next"] is True
    t.opening(1, 6)
    assert t.state.match is not None and t.match.crawford_game == 4
    t.send("double", side="B")
    t.refused("Crawford")
    t.send("win", side="B", kind="single").ok()  # 4-1
    t.game("B")  # 4-2: B is not one away; no second Crawford game anyway
    assert t.match.crawford_game == 4 and t.snap()["post_crawford"] is True


def test_4_4_iv_crawford_reached_via_a_gammon() -> None:
    t = Table().start(length=7).game("A", "gammon")  # 2-0
    t.opening(6, 1)
    t.double_take("B", "A")
    t.send("win", side="A", kind="gammon").ok()  # 2 + 2 x 2 = 6: one away
    assert t.score() == (6, 0)
    assert t.event("game_over")["crawford_next"] is True
    snap = t.snap()
    assert snap["crawford"] is True and snap["post_crawford"] is False  # announced before it starts
    t.opening(1, 6)
    assert t.event("opening_roll")["crawford"] is True
    snap = t.snap()
    assert snap["crawford"] is True and snap["cube"]["usable"] == {"A": False, "B": False}
    t.send("press", side="B").ok()
    t.send("double", side="A")  # even the leader may not double: the cube is out of play
    t.refused("Crawford game: no doubling (4.4 iv)")
    t.send("win", side="B", kind="single").ok()  # 6-1: the Crawford game is over
    snap = t.snap()
    assert snap["crawford"] is False and snap["post_crawford"] is True
    t.opening(6, 1)
    assert t.event("opening_roll")["crawford"] is False
    t.pass_turn()  # A moves; B on turn
    assert t.snap()["cube"]["usable"] == {"A": False, "B": True}
    t.send("double", side="B").ok()  # post-Crawford: the trailer doubles
    t.send("take", side="A").ok()
    t.send("win", side="B", kind="gammon").ok()
    assert t.score() == (6, 5)
    t.game("A")
    assert t.snap()["winner"] == "A" and t.match.crawford_game == 3


def test_4_4_iv_crawford_reached_via_penalty_points() -> None:
    t = Table().start(length=5).game("A", "gammon").game("A")  # 3-0
    t.cmd("penalty", "pen-1", against="B", points=1, reason="conduct").ok()  # 4-0 between games
    assert t.snap()["crawford"] is True
    t.opening()
    assert t.event("opening_roll")["crawford"] is True


def test_4_4_iv_penalty_during_a_game_makes_the_next_game_crawford() -> None:
    t = Table().start(length=5).game("A", "gammon").game("A")  # 3-0
    t.opening()
    t.cmd("penalty", "pen-1", against="B", points=1, reason="conduct").ok()  # 4-0 mid-game
    assert t.snap()["crawford"] is False  # the game in progress started before: cube still live
    t.send("double", side="B").ok()
    t.send("take", side="A").ok()
    t.send("win", side="B", kind="single").ok()  # 4-2
    t.opening()
    assert t.event("opening_roll")["crawford"] is True and t.match.crawford_game == 4


def test_4_4_iv_the_crawford_game_happens_at_most_once() -> None:
    t = Table().start(length=5).game("A", "gammon").game("A").game("A")  # 4-0
    t.game("B")  # Crawford game, 4-1
    t.cmd("correct_score", score={"A": 3, "B": 1}, note="entered a single twice").ok()
    t.game("A")  # back to 4-1 -> one away again, but the Crawford game was played
    t.opening()
    assert t.event("opening_roll")["crawford"] is False
    assert t.snap()["crawford"] is False and t.snap()["post_crawford"] is True
    t.send("double", side="B").ok()


def test_4_4_iv_both_one_away_is_crawford_once_then_double_match_point() -> None:
    t = Table().start(length=3).game("A", "gammon")  # 2-0 -> Crawford next
    t.game("B", "gammon")  # Crawford game: 2-2, both one away
    assert t.snap()["crawford"] is False and t.snap()["post_crawford"] is True
    t.game("B")
    assert t.snap()["winner"] == "B"


def test_4_4_iv_jumping_past_one_away_makes_no_crawford_game() -> None:
    t = Table().start(length=3).game("A", "backgammon")
    assert t.snap()["winner"] == "A" and t.match.crawford_game is None
