"""The state of one table: an immutable value the reducer replaces, never changes.

Kept apart from the reducer (``rulebook.table``) so that the judge of what is legal
(``rulebook.legal``) and the snapshot read the same value without importing the reducer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rulebook import match as m
from rulebook.clock import Clock
from rulebook.profiles import Profile, get_profile
from rulebook.sides import Pair, Side
from rulebook.vocab import PauseReason, Phase

#: what tells the table whose turn it is (:meth:`TableState.turn_from`)
TurnSource = Literal["clock", "presses", "dice"]

NOT_PRESENT = Pair(False, False)
NONE_PAIR: Pair[int | None] = Pair(None, None)


@dataclass(frozen=True, slots=True)
class UndoPoint:
    """What an ``undo`` restores: the state of play before the last score or cube entry."""

    match: m.Match
    phase: Phase
    turn: Side | None
    rolled: bool
    roll_attempted: bool


@dataclass(frozen=True, slots=True)
class EndPoint:
    """Play as it stood when a TD's command ended the match: a waiver of that command reopens it
    so (2.2 iii). One field of the state, not five: the reducer copies the state on every input."""

    #: the phase play goes back to (the one under a pause)
    phase: Phase
    #: a game was in progress
    in_game: bool
    #: the clock settled at that instant (None without a clock): its running side, delay and pause
    clock: Clock | None
    #: the pause standing then (reason, who)
    paused: PauseReason | None
    paused_by: Side | None


@dataclass(frozen=True, slots=True)
class TableState:
    table: str = ""
    match_id: str | None = None
    seq: int = 0
    phase: Phase = Phase.WAITING
    profile: Profile = get_profile()
    match: m.Match | None = None
    players: Pair[tuple[str, str]] = Pair(("", ""), ("", ""))
    round: str | None = None
    final: bool = False
    start_wall: int | None = None
    clock: Clock = Clock()
    present: Pair[bool] = NOT_PRESENT
    #: the instant (``at``) each side checked in: the snapshot's ``present_ms`` ages
    checked_in_at: Pair[int | None] = NONE_PAIR
    #: the instant (``at``) this match's assignment was taken: the snapshot's ``assigned_ms``
    assigned_at: int | None = None
    breaks_used: Pair[int] = Pair(0, 0)
    #: while on break: the monotonic instant the break ends
    break_until: Pair[int | None] = NONE_PAIR
    #: player away on a break (also ffbg-cdf breaks on the running clock)
    away: Pair[bool] = NOT_PRESENT
    #: the side to roll / move this turn, as far as the table knows (see ``turn_known``)
    turn: Side | None = None
    rolled: bool = False
    #: a roll was attempted this turn (after which doubling is no longer allowed, 4.4 ii)
    roll_attempted: bool = False
    dice: tuple[int, int] | None = None
    #: HBF 4.1 v a, FFBG 5.14: the opponent's roll made before the player on turn finished, which
    #: counts: it becomes the opponent's roll when the turn passes (with a clock: at the press)
    early_roll: tuple[int, int] | None = None
    #: a press was seen in this match: without a clock, presses mark where turns end
    presses_seen: bool = False
    #: a roll was seen in this match: without a clock or presses, the dice mark where turns start
    rolls_seen: bool = False
    #: with a clock, the lower opening roller who must start the opponent's clock
    opening_lower: Side | None = None
    paused: PauseReason | None = None
    #: the player who paused (None: the table or the TD)
    paused_by: Side | None = None
    phase_before_pause: Phase | None = None
    #: the command that ended the match (a waiver of it reopens the match)
    ended_by: str | None = None
    #: play as it stood when that command ended the match (what a waiver of it restores)
    before_end: EndPoint | None = None
    #: the instant (``at``) the match ended: the snapshot's ``finished_ms``
    finished_at: int | None = None
    #: the side whose TD call came last and is still open (kept for older readers)
    td_call: Side | None = None
    #: each side's open TD call (a flag calls the TD for the flagged side)
    td_calls: Pair[bool] = NOT_PRESENT
    confirmed: Pair[bool] = NOT_PRESENT
    applied_cmds: frozenset[str] = frozenset()
    undo: UndoPoint | None = None
    #: last input's ``at`` (ms, table monotonic clock)
    now: int = 0
    #: (at, wall) of the last input that carried wall time
    wall_anchor: tuple[int, int] | None = None

    def wall_at(self, at: int) -> int | None:
        if self.wall_anchor is None:
            return None
        return self.wall_anchor[1] + (at - self.wall_anchor[0])

    def is_in_game(self) -> bool:
        return self.match is not None and self.match.in_game

    def turn_from(self) -> TurnSource | None:
        """What tells the table whose turn it is (docs/rules.md, "Table setups"): ``clock`` (its
        presses start and end each turn), ``presses`` (clock buttons without a clock), ``dice``
        (a tower or typed rolls: a roll starts a turn, nothing marks its end), or None: a
        scoreboard sees nothing between the opening roll and the result."""
        if self.clock.enabled:
            return "clock"
        if self.presses_seen:
            return "presses"
        if self.rolls_seen:
            return "dice"
        return None

    def is_turn_known(self) -> bool:
        return self.clock.enabled or self.presses_seen or self.rolls_seen

    def is_turn_end_known(self) -> bool:
        """A clock or presses mark where a turn ends (dice alone mark only where one starts)."""
        return self.clock.enabled or self.presses_seen

    def can_double(self, side: Side) -> bool:
        """Whether ``side`` may make a proper double now (``cube.usable``; see ``rulebook.legal``)."""
        from rulebook.legal import cube_refusal, double_timing  # legal reads this module

        return cube_refusal(self, side) is None and double_timing(self, side) is False

    def thrower(self) -> Side | None:
        """Whose throw a throw of the dice read now is: the side whose roll is due (as
        ``rulebook.legal.roll_judgement`` says), the side on turn with a clock or presses. What the
        table attributes an unreadable tower throw (``invalid_roll``) to."""
        from rulebook.legal import invalid_roll_side  # legal reads this module

        return invalid_roll_side(self)

    def is_offer_premature(self) -> bool:
        """A double waits that was made during the opponent's turn (4.4 v): the opponent is still
        finishing that turn (may still roll, and presses to end it)."""
        match = self.match
        return match is not None and match.cube.offered_by is not None and match.cube.offered_by != self.turn


def new_table(table: str = "") -> TableState:
    return TableState(table=table)


__all__ = ["NONE_PAIR", "NOT_PRESENT", "EndPoint", "TableState", "UndoPoint", "new_table"]
