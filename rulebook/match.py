"""Match scoring: score, games record, penalty points, Crawford, cube, results, match end.

Pure functions over the immutable ``Match``; each returns a new value or raises ``RuleError``
with the reason (the reducer turns that into a rejected event).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rulebook.errors import RuleError
from rulebook.fastreplace import replace
from rulebook.sides import SIDES, Pair, Side, other
from rulebook.vocab import LATENESS_REASONS, EndReason, ResultKind

KIND_MULTIPLIER: dict[str, int] = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}
END_REASONS = tuple(EndReason)


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
    #: the score when the game started (what the Crawford rule looks at, 4.4 iv)
    start_score: Pair[int] = Pair(0, 0)


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
    #: the command that made it (``local:…`` at the table's TD menu, the hub's id otherwise)
    cmd_id: str = ""


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
    end_reason: EndReason | None = None
    #: 4.8: a corrected length waiting for the start of the next game
    pending_length: int | None = None
    corrections: tuple[Correction, ...] = ()
    #: the score when the game in progress (or the last one) started
    game_start_score: Pair[int] = Pair(0, 0)
    #: the TD's command that decided the result, beside how it ended (``end_reason``):
    #: ``correct_score``, ``resolve_flag`` or ``forfeit``; None when play (or lateness) ended it
    decision: str | None = None
    #: HU 7.9: a side the TD has forbidden to double for the rest of the game in progress
    double_forbidden: Pair[bool] = Pair(False, False)
    #: HU 7.5, FFBG 6.5: a double was made in the Crawford game and the leader has not chosen yet
    crawford_double_open: bool = False
    #: the cube the leader chose to keep in the Crawford game (centred at 1 until a choice to keep):
    #: what a later void goes back to
    crawford_kept: Cube = Cube()

    # -- predicates ----------------------------------------------------------------------------

    def is_over(self) -> bool:
        """The match has ended: won (``winner``), or lost by both players (FFBG 10.3)."""
        return self.end_reason is not None

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

    def crawford_leader(self) -> Side | None:
        """The match leader of the Crawford game (the player one point away when it started), or
        None outside it (and when both started it one point away: nobody leads)."""
        if self.crawford_game is None or self.game != self.crawford_game:
            return None
        start = self.game_start_score
        if start.a == start.b:
            return None
        return "A" if start.a > start.b else "B"

    def penalties(self) -> Pair[int]:
        a = sum(p.points for p in self.penalty_log if p.against == "A" and not p.waived)
        b = sum(p.points for p in self.penalty_log if p.against == "B" and not p.waived)
        return Pair(a, b)

    def is_dead_cube_for(self, side: Side) -> bool:
        """4.4 vii: owning the cube at a value that already wins the match."""
        return self.cube.owner == side and self.score.of(side) + self.cube.value >= self.length

    def lateness_points(self, side: Side) -> int:
        """Penalty points ``side`` incurred for lateness and break overruns (2.2 iv), not waived."""
        return sum(
            p.points
            for p in self.penalty_log
            if p.against == side and p.reason in LATENESS_REASONS and not p.waived
        )

    def double_refusal(
        self, side: Side, max_cube: int, dead_cube_rule: bool, crawford_recorded: bool = False
    ) -> RuleError | None:
        """Why ``side`` may not double now (cube rules only; the turn is judged by ``legal``).

        ``crawford_recorded``: the rules record a double made in the Crawford game for the match
        leader to keep or void (HU 7.5, FFBG 6.5) instead of refusing it (WBGF/HBF 4.4 iv)."""
        if not self.in_game:
            return RuleError("double.no_game")
        if self.is_crawford_game() and not (crawford_recorded and self.crawford_leader() is not None):
            return RuleError("double.crawford")
        if self.double_forbidden.of(side):
            return RuleError("double.forbidden", side=side)
        if self.cube.offered_by is not None:
            return RuleError("double.offered")
        if self.cube.owner is not None and self.cube.owner != side:
            return RuleError("double.cube_owned", owner=self.cube.owner)
        if dead_cube_rule and self.is_dead_cube_for(side):
            return RuleError("double.dead_cube")
        if self.cube.value * 2 > max_cube:
            return RuleError("double.max", value=self.cube.value)
        return None


def points_for(kind: ResultKind, cube_value: int) -> int:
    return KIND_MULTIPLIER[kind] * cube_value


def start_game(match: Match) -> Match:
    """A new game begins: decide Crawford, centre the cube (a pending length is applied first
    by the table, which reports it)."""
    number = match.game + 1
    crawford = match.crawford_game
    if match.is_crawford_next():
        crawford = number
    return replace(
        match,
        game=number,
        in_game=True,
        crawford_game=crawford,
        cube=Cube(),
        game_start_score=match.score,
        double_forbidden=Pair(False, False),
        crawford_double_open=False,
        crawford_kept=Cube(),
    )


def offer_double(
    match: Match,
    side: Side,
    max_cube: int,
    dead_cube_rule: bool,
    turned_to: int | None,
    crawford_recorded: bool = False,
) -> tuple[Match, int | None]:
    """Offer a double. Returns the match and the corrected value when the cube was turned wrong."""
    refusal = match.double_refusal(side, max_cube, dead_cube_rule, crawford_recorded)
    if refusal:
        raise refusal
    legal = match.cube.value * 2
    corrected = turned_to if turned_to is not None and turned_to != legal else None
    cube = replace(match.cube, offered_by=side, offered_value=legal)
    if match.is_crawford_game():
        # HU 7.5, FFBG 6.5: recorded; the leader keeps or voids it (the TD enters the choice)
        return replace(match, cube=cube, crawford_double_open=True), corrected
    return replace(match, cube=cube), corrected


def take(match: Match, side: Side) -> Match:
    cube = match.cube
    if cube.offered_by is None:
        raise RuleError("take.no_offer")
    if cube.offered_by == side:
        raise RuleError("take.own")
    assert cube.offered_value is not None
    return replace(match, cube=Cube(value=cube.offered_value, owner=side))


def end_game(
    match: Match,
    winner: Side,
    kind: str,  # a ResultKind, or GAME_PASSED
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
        start_score=match.game_start_score,
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


def finish_if_won(match: Match, reason: EndReason = EndReason.POINTS) -> Match:
    if match.is_over():
        return match
    for side in SIDES:
        if match.score.of(side) >= match.length:
            return replace(match, winner=side, end_reason=reason, in_game=False)
    return match


def add_penalty(match: Match, penalty: Penalty) -> Match:
    """Penalty points go to the offender's opponent and may win the match."""
    if any(p.id == penalty.id for p in match.penalty_log):
        raise RuleError("penalty.applied", id=penalty.id)
    beneficiary = other(penalty.against)
    score = match.score.set(beneficiary, match.score.of(beneficiary) + penalty.points)
    return finish_if_won(replace(match, score=score, penalty_log=(*match.penalty_log, penalty)))


def waive_penalty(match: Match, penalty_id: str) -> tuple[Match, Penalty]:
    for i, p in enumerate(match.penalty_log):
        if p.id == penalty_id:
            if p.waived:
                raise RuleError("waive.already", id=penalty_id)
            beneficiary = other(p.against)
            score = match.score.set(beneficiary, match.score.of(beneficiary) - p.points)
            log = (*match.penalty_log[:i], replace(p, waived=True), *match.penalty_log[i + 1 :])
            return replace(match, score=score, penalty_log=log), p
    raise RuleError("waive.none", id=penalty_id)


# -- an impossible score (WBGF/HBF 4.7 with 4.1 and 4.5) -----------------------------------------

#: how a match ends with its winner short of the length: a time-out (4.3 iii, 4.5), a forfeit or
#: lateness (2.2 iv). Every other match is played out to its length (4.5).
SHORT_ENDS = frozenset({EndReason.TIME, EndReason.FORFEIT, EndReason.LATENESS})


def score_refusal(
    length: int, score: Pair[int], winner: Side | None = None, end_reason: str | None = None
) -> RuleError | None:
    """Why a corrected score cannot be the match's score (4.7: a wrong score is corrected).

    Both players at or past the length is no score a match can reach: it ends when the first
    one gets there (4.5), and no rule names a winner by the order of the sides. A match that
    ended short of its length (``winner``, ``end_reason`` in :data:`SHORT_ENDS`) cannot have
    its loser at the length either: the match would have ended by points first.
    """
    if score.a >= length and score.b >= length:
        return RuleError("score.both_reached", length=length, a=score.a, b=score.b)
    if winner is not None and end_reason in SHORT_ENDS:
        loser = other(winner)
        if score.of(loser) >= length:
            return RuleError(
                "score.loser_reached", side=loser, points=score.of(loser), length=length, reason=end_reason
            )
    return None


def final_winner(length: int, score: Pair[int], winner: Side | None, end_reason: str | None) -> Side:
    """The winner of a final result as corrected (the hub's correction of a finished match), or
    the refusal: the one player at the length wins (4.5); a winner short of it only when the
    match ended by time, forfeit or lateness (``end_reason``), never picked by side order.
    ``winner`` is the one the TD names (None: the one the score and the end reason give)."""
    refusal = score_refusal(length, score, winner, end_reason)
    if refusal is not None:
        raise refusal
    reached = [s for s in SIDES if score.of(s) >= length]
    if winner is None:
        if reached:
            return reached[0]
        raise RuleError("score.no_winner", length=length)
    if reached and reached[0] != winner:
        raise RuleError(
            "score.loser_reached",
            side=reached[0],
            points=score.of(reached[0]),
            length=length,
            reason=end_reason or EndReason.POINTS,
        )
    if not reached and end_reason not in SHORT_ENDS:
        raise RuleError("score.winner_short", side=winner, points=score.of(winner), length=length)
    return winner


# -- a wrong match length (WBGF/HBF 4.8, HU 4.3, FFBG 4.5) ---------------------------------------


def length_refusal(match: Match, new_length: int, *, at_once: bool) -> RuleError | None:
    """Why the length cannot be corrected to ``new_length``.

    A finished match stands (4.8; HU 4.2, FFBG 4.2). Corrected at the next game's start (4.8),
    a shorter length that the score already reaches would end the match: impossible, play
    continues at the wrong length. Corrected at once (HU 4.3, FFBG 4.5), the player who already
    has the points wins; only when both have them does no rule name a winner: the TD decides.
    """
    if match.is_over():
        return RuleError("length.finished")
    return length_check(match.length, [match.score.a, match.score.b], new_length, at_once=at_once)


def length_check(current: int, points: Sequence[int], new_length: int, *, at_once: bool) -> RuleError | None:
    """The same judgement from a match's length and its two scores (a hub has only a snapshot)."""
    if new_length == current:
        return RuleError("length.same", length=new_length)
    reached = sum(1 for p in points if p >= new_length)
    if not reached:
        return None
    if not at_once:
        return RuleError("length.impossible", length=new_length, current=current)
    if reached == 2:
        return RuleError("length.impossible_both", length=new_length)
    return None


def apply_length(match: Match, new_length: int) -> Match:
    """The corrected length in force: Crawford recomputed, the match won if the score reaches it."""
    corrected = recompute_crawford(replace(match, length=new_length, pending_length=None))
    return finish_if_won(corrected)


def recompute_crawford(match: Match) -> Match:
    """4.4 iv under the length now in force: the Crawford game is the first game that started with
    a player exactly one point away. A correction may move it, create it or undo it."""
    starts = [(g.game, g.start_score) for g in match.games]
    if match.in_game:
        starts.append((match.game, match.game_start_score))
    crawford = None
    for number, score in starts:
        if match.length - score.a == 1 or match.length - score.b == 1:
            crawford = number
            break
    if crawford == match.crawford_game:
        return match
    return replace(match, crawford_game=crawford)
