"""Match scoring: score, games record, penalty points, Crawford, cube, results, match end.

Pure functions over the immutable ``Match``; each returns a new value or raises ``RuleError``
with the reason (the reducer turns that into a rejected event).
"""

from __future__ import annotations

from dataclasses import dataclass

from rulebook.errors import RuleError
from rulebook.fastreplace import replace
from rulebook.sides import Pair, Side, other

KIND_MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}
END_REASONS = ("points", "time", "forfeit", "lateness", "td")


@dataclass(frozen=True, slots=True)
class Cube:
    value: int = 1
    owner: Side | None = None
    offered_by: Side | None = None
    #: the value the cube goes to if the offer is taken (corrected per 4.4 vi)
    offered_value: int | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    game: int
    winner: Side
    kind: str  # single | gammon | backgammon | pass
    cube: int
    points: int
    resigned: bool = False
    at: int = 0
    wall: int | None = None


@dataclass(frozen=True, slots=True)
class Penalty:
    id: str
    against: Side
    points: int
    reason: str
    waived: bool = False


@dataclass(frozen=True, slots=True)
class Correction:
    """A TD correction of score or length, kept for disputes (4.7)."""

    kind: str
    before: str
    after: str
    note: str
    at: int


@dataclass(frozen=True, slots=True)
class Match:
    length: int
    score: Pair[int] = Pair(0, 0)
    penalty_log: tuple[Penalty, ...] = ()
    games: tuple[GameRecord, ...] = ()
    cube: Cube = Cube()
    #: number of the game in progress, or of the last one played (0 before the first)
    game: int = 0
    in_game: bool = False
    crawford_game: int | None = None
    winner: Side | None = None
    end_reason: str | None = None
    #: 4.8: a corrected length waiting for the start of the next game
    pending_length: int | None = None
    corrections: tuple[Correction, ...] = ()

    # -- predicates ----------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.winner is not None

    def away(self, side: Side) -> int:
        return max(0, self.length - self.score.of(side))

    def is_crawford_next(self) -> bool:
        """4.4 iv: the next game is the Crawford game (first game with someone one away)."""
        return self.crawford_game is None and (self.away("A") == 1 or self.away("B") == 1)

    def is_crawford_game(self) -> bool:
        return self.in_game and self.game == self.crawford_game

    def is_post_crawford(self) -> bool:
        if self.crawford_game is None:
            return False
        return self.game > self.crawford_game or (not self.in_game and self.game >= self.crawford_game)

    def is_double_match_point(self) -> bool:
        return self.away("A") == 1 and self.away("B") == 1

    def penalties(self) -> Pair[int]:
        a = sum(p.points for p in self.penalty_log if p.against == "A" and not p.waived)
        b = sum(p.points for p in self.penalty_log if p.against == "B" and not p.waived)
        return Pair(a, b)

    def is_dead_cube_for(self, side: Side) -> bool:
        """4.4 vii: owning the cube at a value that already wins the match."""
        return self.cube.owner == side and self.score.of(side) + self.cube.value >= self.length

    def double_refusal(self, side: Side, max_cube: int, dead_cube_rule: bool) -> str | None:
        """Why ``side`` may not double now (cube rules only; turn is checked by the table)."""
        if not self.in_game:
            return "no game in progress"
        if self.is_crawford_game():
            return "Crawford game: no doubling (4.4 iv)"
        if self.cube.offered_by is not None:
            return "a double is already offered"
        if self.cube.owner is not None and self.cube.owner != side:
            return f"the cube is owned by {self.cube.owner}"
        if dead_cube_rule and self.is_dead_cube_for(side):
            return "dead cube: it already wins the match (4.4 vii)"
        if self.cube.value * 2 > max_cube:
            return f"the cube is at its highest value ({self.cube.value})"
        return None


def points_for(kind: str, cube_value: int) -> int:
    try:
        return KIND_MULTIPLIER[kind] * cube_value
    except KeyError:
        raise RuleError(f"unknown result kind {kind!r} (single, gammon or backgammon)") from None


def start_game(match: Match) -> Match:
    """A new game begins: apply a pending length (4.8), decide Crawford, centre the cube."""
    if match.pending_length is not None:
        match = apply_length(match, match.pending_length, at_game_start=True)
    number = match.game + 1
    crawford = match.crawford_game
    if match.is_crawford_next():
        crawford = number
    return replace(match, game=number, in_game=True, crawford_game=crawford, cube=Cube())


def offer_double(
    match: Match, side: Side, max_cube: int, dead_cube_rule: bool, turned_to: int | None
) -> tuple[Match, int | None]:
    """Offer a double. Returns the match and the corrected value when the cube was turned wrong."""
    reason = match.double_refusal(side, max_cube, dead_cube_rule)
    if reason:
        raise RuleError(reason)
    legal = match.cube.value * 2
    corrected = turned_to if turned_to is not None and turned_to != legal else None
    cube = replace(match.cube, offered_by=side, offered_value=legal)
    return replace(match, cube=cube), corrected


def take(match: Match, side: Side) -> Match:
    cube = match.cube
    if cube.offered_by is None:
        raise RuleError("no double to take")
    if cube.offered_by == side:
        raise RuleError("the doubler cannot take their own double")
    assert cube.offered_value is not None
    return replace(match, cube=Cube(value=cube.offered_value, owner=side))


def end_game(
    match: Match,
    winner: Side,
    kind: str,
    points: int,
    *,
    resigned: bool,
    at: int,
    wall: int | None,
) -> Match:
    """Record a finished game and add its points; ends the match when the winner reaches N."""
    record = GameRecord(
        game=match.game,
        winner=winner,
        kind=kind,
        cube=match.cube.value,
        points=points,
        resigned=resigned,
        at=at,
        wall=wall,
    )
    score = match.score.set(winner, match.score.of(winner) + points)
    ended = replace(
        match,
        score=score,
        games=(*match.games, record),
        in_game=False,
        cube=Cube(),
    )
    return finish_if_won(ended)


def finish_if_won(match: Match, reason: str = "points") -> Match:
    if match.winner is not None:
        return match
    for side in ("A", "B"):
        if match.score.of(side) >= match.length:
            return replace(match, winner=side, end_reason=reason, in_game=False)
    return match


def add_penalty(match: Match, penalty: Penalty) -> Match:
    """Penalty points go to the offender's opponent and may win the match."""
    if penalty.points < 1:
        raise RuleError("penalty points must be at least 1")
    if any(p.id == penalty.id for p in match.penalty_log):
        raise RuleError(f"penalty {penalty.id} already applied")
    beneficiary = other(penalty.against)
    score = match.score.set(beneficiary, match.score.of(beneficiary) + penalty.points)
    return finish_if_won(replace(match, score=score, penalty_log=(*match.penalty_log, penalty)))


def waive_penalty(match: Match, penalty_id: str) -> tuple[Match, Penalty]:
    for i, p in enumerate(match.penalty_log):
        if p.id == penalty_id:
            if p.waived:
                raise RuleError(f"penalty {penalty_id} is already waived")
            beneficiary = other(p.against)
            score = match.score.set(beneficiary, match.score.of(beneficiary) - p.points)
            log = (*match.penalty_log[:i], replace(p, waived=True), *match.penalty_log[i + 1 :])
            return replace(match, score=score, penalty_log=log), p
    raise RuleError(f"no penalty with id {penalty_id}")


def length_refusal(match: Match, new_length: int) -> str | None:
    """4.8: a finished match stands; a shorter length that would end the match is impossible."""
    if match.is_over():
        return "a finished match stands (4.8)"
    if new_length < 1:
        return "length must be at least 1"
    if new_length < match.length and max(match.score.a, match.score.b) >= new_length:
        return f"impossible (4.8): length {new_length} would end the match; play continues at {match.length}"
    return None


def apply_length(match: Match, new_length: int, *, at_game_start: bool = False) -> Match:
    reason = length_refusal(match, new_length)
    if reason:
        if at_game_start:
            # the score moved on since the correction was asked for: it has become impossible
            return replace(match, pending_length=None)
        raise RuleError(reason)
    return replace(match, length=new_length, pending_length=None)
