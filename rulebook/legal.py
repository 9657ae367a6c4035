"""The judge: what each side, the table and the TD may do now, and why not.

Why one place: the reducer (``rulebook.table``) refuses an input for the reason a function here
gives, and :func:`legal_actions` answers "what may A, B or the TD do now?" from the very same
functions, so a button the kiosk draws from the snapshot's ``legal`` field is never one the
rules refuse, and a command the hub checks with :func:`check_command` is never one the table
refuses (a property test drives random matches and compares the two, input by input).

Each ``*_refusal`` function returns ``None`` when the action is allowed, else the ``RuleError``
(with its code) that the reducer raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rulebook import match as m
from rulebook import messages
from rulebook.errors import CommandError, RuleError
from rulebook.policy import breaks_allowed
from rulebook.sides import SIDES, Side, other
from rulebook.state import TableState
from rulebook.vocab import (
    COMMAND_TYPES,
    TABLE_PAUSES,
    Command,
    CommandType,
    CorrectScoreCmd,
    EndReason,
    ForbidDoubleCmd,
    ForceDoubleCmd,
    PauseReason,
    PenaltyCmd,
    Phase,
    ResultKind,
    SetLengthCmd,
    StartClockCmd,
    WaiveCmd,
)

#: phases in which a clock may be paused (by a player, the table or the TD)
PAUSABLE: frozenset[Phase] = frozenset({Phase.OPENING, Phase.PLAYING, Phase.BETWEEN_GAMES, Phase.BREAK})
#: phases in which the TD may start a late player's clock
CLOCK_START_PHASES = (Phase.WAITING, Phase.OPENING, Phase.BETWEEN_GAMES, Phase.BREAK)
RESULT_KINDS: tuple[ResultKind, ...] = tuple(ResultKind)
#: the order pause reasons are listed in (the kiosk's dialog shows them so)
PAUSE_ORDER: tuple[PauseReason, ...] = (
    PauseReason.DISPUTE,
    PauseReason.GAME_OVER,
    PauseReason.CLAIM,
    PauseReason.ILLEGAL_MOVE,
    PauseReason.PREMATURE_PICKUP,
    PauseReason.INVALID_ROLL,
    PauseReason.EQUIPMENT,
    PauseReason.AGREEMENT,
    PauseReason.BREAK,
    PauseReason.TD,
    PauseReason.POWER_LOSS,
)
_FLAG = Phase.FLAG
TABLE_PAUSE_ORDER: tuple[PauseReason, ...] = tuple(r for r in PAUSE_ORDER if r in TABLE_PAUSES)

# -- the match and the phase ------------------------------------------------------------------------


def match_refusal(state: TableState) -> RuleError | None:
    if state.match is None:
        return RuleError("match.none")
    if state.phase == Phase.FLAG:
        return RuleError("flag.waiting")
    if state.match.end_reason is not None:
        return RuleError("match.over")
    return None


def phase_refusal(state: TableState, phases: frozenset[Phase] | tuple[Phase, ...]) -> RuleError | None:
    phase = state.phase
    match = state.match
    if phase in phases and phase != _FLAG and match is not None and match.end_reason is None:
        return None  # the common case, decided without building anything
    refusal = match_refusal(state)
    if refusal is not None:
        return refusal
    if state.phase not in phases:
        if state.phase == Phase.PAUSED:
            return RuleError("phase.paused", reason=state.paused)
        return RuleError("phase.wrong", phase=state.phase)
    return None


PLAYING = (Phase.PLAYING,)


def result_refusal(state: TableState) -> RuleError | None:
    """A game result may be entered while a game is in progress, also during a pause in it."""
    refusal = match_refusal(state)
    if refusal is not None:
        return refusal
    assert state.match is not None
    in_game_pause = state.phase == Phase.PAUSED and state.match.in_game
    if state.phase != Phase.PLAYING and not in_game_pause:
        return RuleError("result.no_game", phase=state.phase)
    return None


# -- arrival, the opening roll, the clock --------------------------------------------------------


def checkin_refusal(state: TableState, side: Side) -> RuleError | None:
    refusal = match_refusal(state)
    if refusal is None and state.present.of(side):
        return RuleError("checkin.already", side=side)
    return refusal


def opening_refusal(state: TableState) -> RuleError | None:
    refusal = phase_refusal(state, (Phase.OPENING, Phase.BETWEEN_GAMES))
    if refusal is None and not (state.present.a and state.present.b):
        return RuleError("checkin.missing", side="A" if not state.present.a else "B")
    return refusal


def press_refusal(state: TableState, side: Side) -> RuleError | None:
    refusal = phase_refusal(state, PLAYING)
    if refusal is not None:
        return refusal
    clock = state.clock
    if clock.enabled:
        if clock.running is None:
            if state.opening_lower is not None and side != state.opening_lower:
                return RuleError("clock.lower_starts", side=state.opening_lower)
        elif clock.running != side:
            return RuleError("clock.not_yours", side=clock.running)
        return None
    assert state.match is not None
    normal_offer = state.match.cube.offered_by is not None and not state.is_offer_premature()
    if state.is_turn_known() and state.turn is not None and side != state.turn and not normal_offer:
        return RuleError("turn.not_yours", side=state.turn)
    return None


def roll_judgement(state: TableState) -> tuple[Side | None, RuleError | None]:
    """Whose roll a roll read now is, or why it is premature.

    Without a clock no press ends a turn: a roll after the mover's roll is the opponent's. With a
    clock, a roll before the opponent finished is premature: recorded, not applied, where the
    opponent chooses (WBGF 4.1 v a, HU 6.11); where it counts (HBF 4.1 v a, FFBG 5.14; profile
    key ``premature_roll_counts``) it is the roll of the player whose turn comes next (``early``).
    No roll while a double waits (HU 7.10, FFBG 6.9: the doubler waits for the answer).
    """
    match = state.match
    assert match is not None
    offer = match.cube.offered_by
    turn = state.turn
    rolled = state.rolled
    clock = state.clock
    if offer is None and rolled and turn is not None and not clock.enabled:
        return other(turn), None
    if offer is not None and (offer == turn or rolled):
        return turn, RuleError("roll.double_waiting")
    if rolled and turn is not None:
        if state.profile.premature_roll_counts and state.early_roll is None:
            return other(turn), None
        return turn, RuleError("roll.premature", side=turn)
    counts = state.profile.premature_roll_counts
    if clock.enabled and turn is not None and clock.running != turn and not counts:
        return turn, RuleError("roll.clock_not_running", side=turn)
    return turn, None


def invalid_roll_side(state: TableState) -> Side | None:
    """Whose throw an unreadable throw read now is (None when no roll is due): with a clock or
    presses, the player on turn; otherwise the player whose roll is due (``roll_judgement``: a
    dice tower cannot tell whose hand dropped the dice)."""
    match = state.match
    if match is None or state.phase != Phase.PLAYING:
        return None
    if state.is_turn_end_known():
        return state.turn
    return roll_judgement(state)[0]


def invalid_roll_refusal(state: TableState, side: Side) -> RuleError | None:
    """An invalid roll (4.3 v) is a roll attempt: the thrower may no longer double this turn (HU
    0.16, WBGF/HBF 4.4 ii). With a clock or presses it is the turn's player's; with dice alone it is
    the throw of the player whose roll is due, like a roll (a tower's throw after the mover's roll
    is the opponent's); a scoreboard, which sees no turn, takes the side it is told."""
    refusal = phase_refusal(state, PLAYING)
    if refusal is not None:
        return refusal
    if state.is_turn_end_known():
        if state.turn is not None and side != state.turn:
            return RuleError("roll.not_yours", side=state.turn)
        return None
    if not state.rolls_seen:
        return None
    due, premature = roll_judgement(state)
    if premature is not None:
        return premature
    if due is not None and side != due:
        return RuleError("roll.not_yours", side=due)
    return None


def pickup_refusal(state: TableState, side: Side) -> RuleError | None:
    refusal = match_refusal(state)
    if refusal is None and not state.clock.enabled:
        return RuleError("clock.none")
    return refusal


# -- the cube (4.4) ---------------------------------------------------------------------------------


def cube_refusal(state: TableState, side: Side) -> RuleError | None:
    """The cube's own rules: a game in progress, not Crawford, the owner, not dead, not at the top."""
    refusal = phase_refusal(state, PLAYING)
    if refusal is not None:
        return refusal
    assert state.match is not None
    profile = state.profile
    return state.match.double_refusal(
        side, profile.cube_limit(), profile.dead_cube, profile.crawford_double != "refused"
    )


def double_timing(state: TableState, side: Side) -> RuleError | bool:
    """When in the turn a double by ``side`` comes: ``False`` = a proper double (4.4 ii),
    ``True`` = a premature one, made during the opponent's turn, which stands (4.4 v; HU 7.8,
    FFBG 6.8 alike), or the reason it is too late in one's own turn.

    What the table knows of the turn depends on its setup (``TableState.turn_from``). A clock or
    presses mark where each turn ends: a double during the opponent's turn is premature. Dice
    alone mark where a turn starts: once the mover has rolled, the next turn is the opponent's,
    who may double as soon as the mover has finished (which the table cannot see). A scoreboard
    sees neither: every double the cube allows is a proper one.
    """
    turn = state.turn
    if turn is None or not state.is_turn_known():
        return False
    if state.early_roll is not None and side != turn:
        # HBF 4.1 v a, FFBG 5.14: the early roller "ne peut plus utiliser le videau"
        return RuleError("double.after_roll")
    if turn == side:
        if state.roll_attempted:
            return RuleError("double.after_roll")
        if state.clock.enabled and state.clock.running not in (None, side):
            return RuleError("double.clock_wait")
        return False
    if state.is_turn_end_known():
        return True
    # dice only: after the mover's roll the turn is ours to start; before it, it is premature
    return not state.rolled


def double_refusal(state: TableState, side: Side) -> RuleError | None:
    """Why ``side`` may not double now, premature doubles included (they stand)."""
    refusal = cube_refusal(state, side)
    if refusal is not None:
        return refusal
    timing = double_timing(state, side)
    return timing if isinstance(timing, RuleError) else None


def _answer_refusal(
    state: TableState, side: Side, base: RuleError | None, no_offer: str, own: str
) -> RuleError | None:
    """A take or a pass answers the opponent's double."""
    if base is not None:
        return base
    assert state.match is not None
    offer = state.match.cube.offered_by
    if offer is None:
        return RuleError(no_offer)
    return RuleError(own) if offer == side else None


def take_refusal(state: TableState, side: Side) -> RuleError | None:
    """A take may also come during a pause in the game: the act alone binds (WBGF/HBF 4.4 iii),
    as a pass, a win and a resignation do."""
    return _answer_refusal(state, side, result_refusal(state), "take.no_offer", "take.own")


def pass_refusal(state: TableState, side: Side) -> RuleError | None:
    """A pass may also come during a pause in the game (it ends the game)."""
    return _answer_refusal(state, side, result_refusal(state), "pass.no_offer", "pass.own")


def win_refusal(state: TableState, side: Side) -> RuleError | None:
    refusal = result_refusal(state)
    if refusal is None and state.match is not None and state.match.cube.offered_by is not None:
        return RuleError("result.double_waiting")
    return refusal


# -- pauses (4.3 ii) --------------------------------------------------------------------------------


def table_pause_refusal(state: TableState) -> RuleError | None:
    """The table's own pauses (the TD's key, a power cut) and the TD's: any pausable phase."""
    return phase_refusal(state, PAUSABLE)


def pause_refusal(state: TableState, side: Side, reason: PauseReason) -> RuleError | None:
    """Whether ``side`` may pause the clock for ``reason`` now (4.3 ii; HU 8.10; FFBG 11.14)."""
    refusal = table_pause_refusal(state)
    if refusal is not None:
        return refusal
    if reason == PauseReason.POWER_LOSS:
        return RuleError("pause.table_reason", reason=reason)
    if not state.clock.enabled:
        return RuleError("pause.no_clock")
    profile = state.profile
    if not profile.allowed_pause(reason):
        allowed = ", ".join(r for r in PAUSE_ORDER if r in profile.pause_reasons and r not in TABLE_PAUSES)
        return RuleError("pause.reason_not_allowed", reason=reason, profile=profile.name, allowed=allowed)
    in_game = state.is_in_game()
    if reason == PauseReason.BREAK:
        return _break_pause_refusal(state, side, in_game)
    if reason == PauseReason.INVALID_ROLL and not in_game:
        return RuleError("pause.not_in_game", reason=reason)
    return None


def _break_pause_refusal(state: TableState, side: Side, in_game: bool) -> RuleError | None:
    """WBGF/HBF 2.2 ii: "Pauser kan bare tas mellom partier", within the player's allowance; a
    clock paused for a break uses one of the player's breaks (4.3 ii b)."""
    if in_game:
        return RuleError("pause.break_in_game")
    assert state.match is not None
    if state.match.game == 0:
        return RuleError("pause.break_before_first_game")
    used, allowed = state.breaks_used.of(side), breaks_allowed_now(state)
    if used >= allowed:
        return RuleError("break.none_left", used=used, allowed=allowed)
    return None


def pause_passes(state: TableState, side: Side) -> bool:
    """WBGF 4.4 iii: the doubled player who pauses the clock instead of answering has passed."""
    match = state.match
    return (
        state.profile.pause_passes_double
        and match is not None
        and match.in_game
        and match.cube.offered_by == other(side)
    )


def resume_refusal(state: TableState) -> RuleError | None:
    if state.match is None:
        return RuleError("match.none")
    if state.phase != Phase.PAUSED:
        return RuleError("clock.not_paused")
    return None


# -- breaks (2.2 ii) and calls --------------------------------------------------------------------


def on_running_clock(state: TableState) -> bool:
    """ffbg-cdf with a clock: breaks are taken on one's own running clock (10.1, 10.2)."""
    return state.clock.enabled and state.profile.breaks_on_running_clock_with_clock


def breaks_allowed_now(state: TableState) -> int:
    match = state.match
    if match is None:
        return 0
    return breaks_allowed(
        state.profile,
        match.length,
        final=state.final,
        clock=state.clock.enabled,
        double_match_point=match.is_double_match_point(),
    )


def break_refusal(state: TableState, side: Side) -> RuleError | None:
    away = state.away.of(side)
    if on_running_clock(state):
        if away:
            return RuleError("break.away", side=side)
        refusal = phase_refusal(state, (Phase.BETWEEN_GAMES, Phase.PLAYING))
        if refusal is not None:
            return refusal
        if state.phase == Phase.PLAYING and state.clock.running != side:
            return RuleError("break.own_clock")
        return None
    if away and not state.profile.combine_own_breaks:
        return RuleError("break.not_combined", side=side, profile=state.profile.name)
    refusal = phase_refusal(state, (Phase.BETWEEN_GAMES, Phase.BREAK))
    if refusal is not None:
        return refusal
    used, allowed = state.breaks_used.of(side), breaks_allowed_now(state)
    if used >= allowed:
        return RuleError("break.none_left", used=used, allowed=allowed)
    return None


def return_refusal(state: TableState, side: Side) -> RuleError | None:
    refusal = match_refusal(state)
    if refusal is None and not state.away.of(side):
        return RuleError("return.not_away", side=side)
    return refusal


def call_refusal(state: TableState, side: Side) -> RuleError | None:
    return RuleError("call.already", side=side) if state.td_calls.of(side) else None


def withdraw_refusal(state: TableState, side: Side) -> RuleError | None:
    """A side takes back its own call. At a time-out the table called the TD for the flagged side;
    that call may be taken back too: the phase ``flag`` keeps the TD told (4.3 iii)."""
    return None if state.td_calls.of(side) else RuleError("call.none", side=side)


def undo_refusal(state: TableState) -> RuleError | None:
    if state.undo is None:
        return RuleError("undo.nothing")
    if state.confirmed.a and state.confirmed.b:
        return RuleError("undo.confirmed")
    if state.phase == Phase.FLAG:
        return RuleError("flag.waiting")
    return None


def confirm_refusal(state: TableState, side: Side) -> RuleError | None:
    if state.phase != Phase.FINISHED:
        return RuleError("match.not_over")
    if state.confirmed.of(side):
        return RuleError("confirm.already", side=side)
    return None


# -- TD commands ------------------------------------------------------------------------------------


def td_refusal(state: TableState, kind: CommandType) -> RuleError | None:
    """Whether the TD may give a command of this type now, whatever its values (one check per
    command type: :data:`_TD_REFUSALS`)."""
    return _TD_REFUSALS[kind](state)


def _waive_refusal(state: TableState) -> RuleError | None:
    if state.match is None:
        return RuleError("match.none")
    if state.phase == Phase.FINISHED and state.ended_by is None:
        return RuleError("waive.finished")
    return None


def _start_clock_refusal(state: TableState) -> RuleError | None:
    refusal = phase_refusal(state, CLOCK_START_PHASES)
    if refusal is not None:
        return refusal
    if not state.clock.enabled:
        return RuleError("clock.none")
    if not state.profile.allows_start_clock():
        return RuleError("clock.not_in_profile", profile=state.profile.name)
    return None


def _set_time_refusal(state: TableState) -> RuleError | None:
    if state.match is None:
        return RuleError("match.none")
    return None if state.clock.enabled else RuleError("clock.none_impose")


def _set_length_refusal(state: TableState) -> RuleError | None:
    if state.match is None:
        return RuleError("match.none")
    return RuleError("length.finished") if state.match.is_over() else None


def _correct_score_refusal(state: TableState) -> RuleError | None:
    return None if state.match is not None else RuleError("match.none")


def _resolve_flag_refusal(state: TableState) -> RuleError | None:
    return None if state.phase == Phase.FLAG and state.match is not None else RuleError("flag.none")


def _forbid_double_refusal(state: TableState) -> RuleError | None:
    if not state.profile.td_forbids_double:
        return _not_in_profile(state, CommandType.FORBID_DOUBLE)
    return _game_refusal(state)


def _force_double_refusal(state: TableState) -> RuleError | None:
    if not state.profile.td_forces_double:
        return _not_in_profile(state, CommandType.FORCE_DOUBLE)
    return phase_refusal(state, PLAYING)


def _double_loss_refusal(state: TableState) -> RuleError | None:
    if not state.profile.double_loss:
        return _not_in_profile(state, CommandType.DOUBLE_LOSS)
    if state.match is None:
        return RuleError("match.none")
    # FFBG 10.3: the five minutes taken from each clock may have made one of them flag
    return RuleError("match.over") if state.match.is_over() else None


#: whether the TD may give each command type now (checked at import: every type has one)
_TD_REFUSALS: dict[CommandType, Callable[[TableState], RuleError | None]] = {
    CommandType.PENALTY: lambda state: match_refusal(state),
    CommandType.FORFEIT: lambda state: match_refusal(state),
    CommandType.IMPOSE_CLOCK: lambda state: match_refusal(state),
    CommandType.WAIVE: _waive_refusal,
    CommandType.START_CLOCK: _start_clock_refusal,
    CommandType.PAUSE: lambda state: table_pause_refusal(state),
    CommandType.RESUME: lambda state: resume_refusal(state),
    CommandType.SET_TIME: _set_time_refusal,
    CommandType.SET_LENGTH: _set_length_refusal,
    CommandType.CORRECT_SCORE: _correct_score_refusal,
    CommandType.RESOLVE_FLAG: _resolve_flag_refusal,
    CommandType.TD_ACK: lambda state: None,
    CommandType.FORBID_DOUBLE: _forbid_double_refusal,
    CommandType.FORCE_DOUBLE: _force_double_refusal,
    CommandType.CRAWFORD_DOUBLE: lambda state: crawford_choice_refusal(state),
    CommandType.DOUBLE_LOSS: _double_loss_refusal,
}
assert set(_TD_REFUSALS) == set(CommandType), "every TD command type has its check"


def _not_in_profile(state: TableState, kind: CommandType) -> RuleError:
    return RuleError("cmd.not_in_profile", profile=state.profile.name, type=kind)


def _game_refusal(state: TableState) -> RuleError | None:
    """A game in progress (also paused): what the TD's cube decisions apply to."""
    refusal = match_refusal(state)
    if refusal is None and state.match is not None and not state.match.in_game:
        return RuleError("double.no_game")
    return refusal


def crawford_choice_refusal(state: TableState) -> RuleError | None:
    """Whether the leader's choice about a double made in the Crawford game may be entered now:
    in the profiles whose rules give it (HU 7.5, FFBG 6.5), while the choice is open: from the
    double to its answer (FFBG 6.5: "avant d'avoir marqué le score"; 6.10: a take ratifies the
    cube), or to the next game's start (HU: "a következő játék megkezdése előtti pillanatig")."""
    if state.profile.crawford_double == "refused":
        return _not_in_profile(state, CommandType.CRAWFORD_DOUBLE)
    match = state.match
    if match is None:
        return RuleError("match.none")
    if state.phase == Phase.FLAG:
        return RuleError("flag.waiting")
    if match.is_over() and match.end_reason != EndReason.POINTS:
        return RuleError("match.over")
    if not match.crawford_double_open:
        return RuleError("crawford.none")
    return None


def side_command_refusal(state: TableState, kind: CommandType, side: Side) -> RuleError | None:
    """The TD's cube decision about one player (HU 7.9, FFBG 6.8), once the command is allowed."""
    assert state.match is not None
    if kind == CommandType.FORBID_DOUBLE:
        return RuleError("double.forbidden", side=side) if state.match.double_forbidden.of(side) else None
    # FFBG 6.8: the TD enters the double the player must make: one the cube and the turn allow now
    return double_refusal(state, side)


def command_refusal(state: TableState, cmd: Command, cmd_id: str | None = None) -> RuleError | None:
    """Whether the table would apply this TD command now (``cmd_id``: the id it would carry)."""
    kind = COMMAND_TYPES[type(cmd)]
    refusal = td_refusal(state, kind)
    if refusal is not None:
        return refusal
    match = state.match
    if isinstance(cmd, PenaltyCmd) and match is not None and cmd_id is not None:
        if any(p.id == cmd_id for p in match.penalty_log):
            return RuleError("penalty.applied", id=cmd_id)
    elif isinstance(cmd, WaiveCmd) and match is not None:
        penalty = next((p for p in match.penalty_log if p.id == cmd.penalty_id), None)
        if penalty is None and cmd.penalty_id != state.ended_by:
            return RuleError("waive.none", id=cmd.penalty_id)
        if penalty is not None and penalty.waived:
            return RuleError("waive.already", id=cmd.penalty_id)
    elif isinstance(cmd, SetLengthCmd) and match is not None:
        return m.length_refusal(match, cmd.length, at_once=state.profile.length_correction == "at_once")
    elif isinstance(cmd, CorrectScoreCmd) and match is not None:
        return m.score_refusal(match.length, cmd.score, match.winner, match.end_reason)
    elif isinstance(cmd, ForbidDoubleCmd | ForceDoubleCmd):
        return side_command_refusal(state, kind, cmd.side)
    return None


# -- the answer: what each side, the table and the TD may do now ---------------------------------


@dataclass(frozen=True, slots=True)
class SideLegal:
    """What one player may do now. ``why`` gives the refusal code of each action not allowed
    (where there is one to give)."""

    checkin: bool
    press: bool
    invalid_roll: bool
    #: a proper double (4.4 ii); ``cube.usable`` of the snapshot
    double: bool
    #: a double now would be made during the opponent's turn: premature, it stands (4.4 v)
    premature_double: bool
    #: a double now would be made in the Crawford game: recorded for the match leader to keep or
    #: void (HU 7.5, FFBG 6.5); elsewhere such a double is refused (``double.crawford``)
    crawford_double: bool
    take: bool
    pass_: bool
    #: no profile allows beavers (WBGF/HBF 4.4 viii, HU 7.1, FFBG 6.2): always false
    beaver: bool
    win: tuple[ResultKind, ...]
    resign: tuple[ResultKind, ...]
    pause: tuple[PauseReason, ...]
    #: WBGF 4.4 iii: this side's pause now counts as passing the double
    pause_passes: bool
    break_: bool
    return_: bool
    call_td: bool
    withdraw_call: bool
    confirm: bool
    premature_pickup: bool
    why: Mapping[str, str] = field(default_factory=dict)

    def as_json(self) -> messages.SideLegal:
        return {
            "checkin": self.checkin,
            "press": self.press,
            "invalid_roll": self.invalid_roll,
            "double": self.double,
            "premature_double": self.premature_double,
            "crawford_double": self.crawford_double,
            "take": self.take,
            "pass": self.pass_,
            "beaver": self.beaver,
            "win": [str.__str__(k) for k in self.win],
            "resign": [str.__str__(k) for k in self.resign],
            "pause": [str.__str__(r) for r in self.pause],
            "pause_passes": self.pause_passes,
            "break": self.break_,
            "return": self.return_,
            "call_td": self.call_td,
            "withdraw_call": self.withdraw_call,
            "confirm": self.confirm,
            "premature_pickup": self.premature_pickup,
            "why": dict(self.why),
        }


@dataclass(frozen=True, slots=True)
class TableLegal:
    """What either player (or the table's equipment) may do: nobody in particular does these."""

    opening_roll: bool
    roll: bool
    undo: bool
    resume: bool
    #: the table's own pause reasons (the TD's key, a power cut restore)
    pause: tuple[PauseReason, ...]
    why: Mapping[str, str] = field(default_factory=dict)
    #: whose roll a roll read now would be (``roll_judgement``), when one is due: a roll names no
    #: side, so a screen that takes rolls by hand asks this where to offer the entry
    roller: Side | None = None

    def as_json(self) -> messages.TableLegal:
        return {
            "opening_roll": self.opening_roll,
            "roll": self.roll,
            "roller": self.roller,
            "undo": self.undo,
            "resume": self.resume,
            "pause": [str.__str__(r) for r in self.pause],
            "why": dict(self.why),
        }


@dataclass(frozen=True, slots=True)
class TdLegal:
    """What the TD may command now. ``waive`` lists the ids that can be waived, ``start_clock``
    the sides whose clock can be started; the other commands are true or false."""

    allowed: Mapping[CommandType, bool]
    waive: tuple[str, ...]
    start_clock: tuple[Side, ...]
    #: how a length correction is applied in these rules (``next_game``: 4.8; ``at_once``)
    length_correction: str
    why: Mapping[str, str] = field(default_factory=dict)
    #: the sides the TD may forbid to double (HU 7.9) / whose double the TD may enter (FFBG 6.8)
    forbid_double: tuple[Side, ...] = ()
    force_double: tuple[Side, ...] = ()

    def as_json(self) -> messages.TdLegal:
        # every command in the vocabulary's order (the snapshot's bytes), the four that apply to
        # penalties or sides as their lists
        allowed = self.allowed
        return {
            "penalty": allowed[CommandType.PENALTY],
            "forfeit": allowed[CommandType.FORFEIT],
            "waive": list(self.waive),
            "start_clock": list(self.start_clock),
            "pause": allowed[CommandType.PAUSE],
            "resume": allowed[CommandType.RESUME],
            "set_time": allowed[CommandType.SET_TIME],
            "impose_clock": allowed[CommandType.IMPOSE_CLOCK],
            "set_length": allowed[CommandType.SET_LENGTH],
            "correct_score": allowed[CommandType.CORRECT_SCORE],
            "resolve_flag": allowed[CommandType.RESOLVE_FLAG],
            "td_ack": allowed[CommandType.TD_ACK],
            "forbid_double": list(self.forbid_double),
            "force_double": list(self.force_double),
            "crawford_double": allowed[CommandType.CRAWFORD_DOUBLE],
            "double_loss": allowed[CommandType.DOUBLE_LOSS],
            "length_correction": self.length_correction,
            "why": dict(self.why),
        }


@dataclass(frozen=True, slots=True)
class Legal:
    a: SideLegal
    b: SideLegal
    table: TableLegal
    td: TdLegal

    def of(self, side: Side) -> SideLegal:
        return self.a if side == "A" else self.b

    def as_json(self) -> messages.Legal:
        return {
            "A": self.a.as_json(),
            "B": self.b.as_json(),
            "table": self.table.as_json(),
            "td": self.td.as_json(),
        }


def _ok(why: dict[str, str], name: str, refusal: RuleError | None) -> bool:
    if refusal is None:
        return True
    why[str.__str__(name)] = refusal.code
    return False


def _side_legal(state: TableState, side: Side) -> SideLegal:
    why: dict[str, str] = {}
    cube = cube_refusal(state, side)
    timing: RuleError | bool = cube if cube is not None else double_timing(state, side)
    if isinstance(timing, RuleError):
        why["double"] = timing.code
    match = state.match
    crawford = not isinstance(timing, RuleError) and match is not None and match.is_crawford_game()
    win_ok = _ok(why, "win", win_refusal(state, side))
    resign_ok = _ok(why, "resign", result_refusal(state))
    pauses = tuple(r for r in PAUSE_ORDER if r not in TABLE_PAUSES and pause_refusal(state, side, r) is None)
    if not pauses:
        refusal = pause_refusal(state, side, PauseReason.DISPUTE)
        if refusal is not None:
            why["pause"] = refusal.code
    return SideLegal(
        checkin=_ok(why, "checkin", checkin_refusal(state, side)),
        press=_ok(why, "press", press_refusal(state, side)),
        invalid_roll=_ok(why, "invalid_roll", invalid_roll_refusal(state, side)),
        double=timing is False and not crawford,
        premature_double=timing is True and not crawford,
        crawford_double=crawford,
        take=_ok(why, "take", take_refusal(state, side)),
        pass_=_ok(why, "pass", pass_refusal(state, side)),
        beaver=False,
        win=RESULT_KINDS if win_ok else (),
        resign=RESULT_KINDS if resign_ok else (),
        pause=pauses,
        pause_passes=bool(pauses) and pause_passes(state, side),
        break_=_ok(why, "break", break_refusal(state, side)),
        return_=_ok(why, "return", return_refusal(state, side)),
        call_td=_ok(why, "call_td", call_refusal(state, side)),
        withdraw_call=_ok(why, "withdraw_call", withdraw_refusal(state, side)),
        confirm=_ok(why, "confirm", confirm_refusal(state, side)),
        premature_pickup=_ok(why, "premature_pickup", pickup_refusal(state, side)),
        why=why,
    )


def legal_actions(state: TableState) -> Legal:
    """Everything each side, the table and the TD may do in ``state`` (docs/protocol.md §2)."""
    why: dict[str, str] = {}
    roll_ok = False
    roller: Side | None = None
    if state.phase == Phase.PLAYING and state.match is not None:
        turn, premature = roll_judgement(state)
        roll_ok = premature is None
        roller = turn if roll_ok else None
    table = TableLegal(
        opening_roll=_ok(why, "opening_roll", opening_refusal(state)),
        roll=roll_ok,
        undo=_ok(why, "undo", undo_refusal(state)),
        resume=_ok(why, "resume", resume_refusal(state)),
        pause=TABLE_PAUSE_ORDER if table_pause_refusal(state) is None else (),
        why=why,
        roller=roller,
    )
    td_why: dict[str, str] = {}
    allowed = {kind: _ok(td_why, kind, td_refusal(state, kind)) for kind in CommandType}
    waive: tuple[str, ...] = ()
    if allowed[CommandType.WAIVE] and state.match is not None:
        ids = [p.id for p in state.match.penalty_log if not p.waived]
        if state.ended_by is not None and state.ended_by not in ids:
            ids.append(state.ended_by)
        waive = tuple(ids)
    sided: dict[CommandType, tuple[Side, ...]] = {}
    for kind in (CommandType.FORBID_DOUBLE, CommandType.FORCE_DOUBLE):
        sides: list[Side] = []
        if allowed[kind]:
            for side in SIDES:
                refusal = side_command_refusal(state, kind, side)
                if refusal is None:
                    sides.append(side)
                else:
                    td_why[f"{kind}.{side}"] = refusal.code
        sided[kind] = tuple(sides)
    td = TdLegal(
        allowed=allowed,
        waive=waive,
        start_clock=SIDES if allowed[CommandType.START_CLOCK] else (),
        length_correction=state.profile.length_correction,
        why=td_why,
        forbid_double=sided[CommandType.FORBID_DOUBLE],
        force_double=sided[CommandType.FORCE_DOUBLE],
    )
    return Legal(_side_legal(state, "A"), _side_legal(state, "B"), table, td)


# -- the hub's question: would the table apply this command? --------------------------------------


def check_command(state_or_snapshot: TableState | Mapping[str, Any], cmd: Command) -> None:
    """Raise ``CommandError`` (code of the refusal) if the table would refuse ``cmd`` now.

    Given the table's state, this is exactly the reducer's judgement. Given a published snapshot
    (what the hub holds), it is the judgement the table published in its ``legal`` field, plus
    the checks that depend on the command's values; a snapshot from a table too old to publish
    ``legal`` is not judged (the table will judge the command when it arrives).
    """
    if isinstance(state_or_snapshot, TableState):
        refusal = command_refusal(state_or_snapshot, cmd)
    else:
        refusal = _snapshot_refusal(state_or_snapshot, cmd)
    if refusal is not None:
        raise CommandError(refusal.code, **refusal.params)


#: TD commands a table publishing ``legal`` may not know yet (its ``legal.td`` lacks them)
NEW_COMMANDS: frozenset[CommandType] = frozenset(
    {
        CommandType.FORBID_DOUBLE,
        CommandType.FORCE_DOUBLE,
        CommandType.CRAWFORD_DOUBLE,
        CommandType.DOUBLE_LOSS,
    }
)


def _snapshot_refusal(snap: Mapping[str, Any], cmd: Command) -> RuleError | None:
    legal = snap.get("legal")
    td = legal.get("td") if isinstance(legal, Mapping) else None
    if not isinstance(td, Mapping):
        return None
    kind = COMMAND_TYPES[type(cmd)]
    if kind not in td and kind in NEW_COMMANDS:
        return RuleError("cmd.unknown", type=kind)  # a table older than the command
    why = td.get("why")
    code = why.get(kind) if isinstance(why, Mapping) else None
    if isinstance(cmd, ForbidDoubleCmd | ForceDoubleCmd):
        listed = td.get(kind)
        if isinstance(listed, list) and cmd.side in listed:
            return None
        side_code = why.get(f"{kind}.{cmd.side}") if isinstance(why, Mapping) else None
        return RuleError(str(code or side_code or "phase.wrong"), phase=snap.get("phase"))
    if isinstance(cmd, WaiveCmd | StartClockCmd):
        listed = td.get(kind)
        value = cmd.penalty_id if isinstance(cmd, WaiveCmd) else cmd.side
        if isinstance(listed, list) and value in listed:
            return None
        if code:
            return RuleError(str(code))
        return RuleError("waive.none", id=value) if isinstance(cmd, WaiveCmd) else RuleError("clock.none")
    if td.get(kind) is False:
        return RuleError(str(code)) if code else RuleError("phase.wrong", phase=snap.get("phase"))
    if isinstance(cmd, SetLengthCmd):
        return _snapshot_length_refusal(snap, cmd.length, td.get("length_correction") == "at_once")
    if isinstance(cmd, CorrectScoreCmd):
        return _snapshot_score_refusal(snap, cmd)
    return None


def _snapshot_score_refusal(snap: Mapping[str, Any], cmd: CorrectScoreCmd) -> RuleError | None:
    """:func:`rulebook.match.score_refusal` from what a snapshot says of the match."""
    length = snap.get("length")
    if not isinstance(length, int) or length < 1:
        return None
    winner = snap.get("winner")
    return m.score_refusal(length, cmd.score, winner if winner in SIDES else None, snap.get("end_reason"))


def _snapshot_length_refusal(snap: Mapping[str, Any], length: int, at_once: bool) -> RuleError | None:
    score = snap.get("score")
    current = snap.get("length")
    if not isinstance(score, Mapping) or not isinstance(current, int):
        return None
    points = [score.get(s) for s in SIDES]
    if not all(isinstance(p, int) for p in points):
        return None
    return m.length_check(current, [int(p) for p in points if p is not None], length, at_once=at_once)


__all__ = [
    "PAUSABLE",
    "PAUSE_ORDER",
    "Legal",
    "SideLegal",
    "TableLegal",
    "TdLegal",
    "check_command",
    "command_refusal",
    "legal_actions",
]
