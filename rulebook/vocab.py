"""The table's vocabulary: every input, command, event, phase and reason as a named value.

Why: the words of the protocol (``"double"``, ``"break_overrun"``, ``"between_games"``…) were
string literals scattered over the rulebook, the kiosk and the hub, so a typo or a renamed word
was found by a user, not by mypy. Here each set of words is a ``StrEnum`` (its members *are* the
strings on the wire: ``json.dumps`` writes them as such and they compare equal to plain strings),
and each input and TD command is a frozen dataclass. ``rulebook.parse`` turns a JSON object into
one of these once, at the edge; everything after that works on checked values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

from rulebook.sides import Pair, Side

if TYPE_CHECKING:
    from rulebook.profiles import Profile


def plain(word: str | None) -> str | None:
    """A vocabulary word as the plain string JSON carries (what a snapshot holds)."""
    return None if word is None else str.__str__(word)


class InputType(StrEnum):
    """The ``input`` field of a journal line (docs/protocol.md §1)."""

    ASSIGN = "assign"
    CHECKIN = "checkin"
    OPENING_ROLL = "opening_roll"
    PRESS = "press"
    ROLL = "roll"
    INVALID_ROLL = "invalid_roll"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    WIN = "win"
    RESIGN = "resign"
    PAUSE = "pause"
    RESUME = "resume"
    BREAK = "break"
    RETURN = "return"
    CALL_TD = "call_td"
    WITHDRAW_CALL = "withdraw_call"
    UNDO = "undo"
    CONFIRM = "confirm"
    PREMATURE_PICKUP = "premature_pickup"
    CMD = "cmd"
    TICK = "tick"


class CommandType(StrEnum):
    """The ``type`` of a TD command (docs/protocol.md §3.4), journaled as a ``cmd`` input."""

    PENALTY = "penalty"
    FORFEIT = "forfeit"
    WAIVE = "waive"
    START_CLOCK = "start_clock"
    PAUSE = "pause"
    RESUME = "resume"
    SET_TIME = "set_time"
    IMPOSE_CLOCK = "impose_clock"
    SET_LENGTH = "set_length"
    CORRECT_SCORE = "correct_score"
    RESOLVE_FLAG = "resolve_flag"
    TD_ACK = "td_ack"
    #: HU 7.9: a player who touched the cube without doubling may not double for the rest of the game
    FORBID_DOUBLE = "forbid_double"
    #: FFBG 6.8: a player who handled the cube without doubling must double: the TD enters it
    FORCE_DOUBLE = "force_double"
    #: HU 7.5, FFBG 6.5: the leader keeps or voids a double made in the Crawford game
    CRAWFORD_DOUBLE = "crawford_double"
    #: FFBG 10.3: a table abandoned on a neutralised clock can cost both players the match
    DOUBLE_LOSS = "double_loss"


class EventType(StrEnum):
    """The ``type`` of an event a table publishes. An input's events carry its own name; the
    table adds the ones below that no input is named after."""

    ASSIGN = "assign"
    CHECKIN = "checkin"
    OPENING_ROLL = "opening_roll"
    PRESS = "press"
    ROLL = "roll"
    INVALID_ROLL = "invalid_roll"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    WIN = "win"
    RESIGN = "resign"
    PAUSE = "pause"
    RESUME = "resume"
    BREAK = "break"
    RETURN = "return"
    CALL_TD = "call_td"
    WITHDRAW_CALL = "withdraw_call"
    UNDO = "undo"
    CONFIRM = "confirm"
    PREMATURE_PICKUP = "premature_pickup"
    TICK = "tick"
    #: a journal line that is not even an object (no input name to echo)
    INVALID = "invalid"
    FLAG = "flag"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"
    CMD_DONE = "cmd_done"
    LENGTH_CHANGED = "length_changed"
    LENGTH_REFUSED = "length_refused"
    PENALTY = "penalty"
    WAIVE = "waive"
    START_CLOCK = "start_clock"
    SET_TIME = "set_time"
    IMPOSE_CLOCK = "impose_clock"
    SET_LENGTH = "set_length"
    CORRECT_SCORE = "correct_score"
    RESOLVE_FLAG = "resolve_flag"
    TD_ACK = "td_ack"
    FORBID_DOUBLE = "forbid_double"
    FORCE_DOUBLE = "force_double"
    CRAWFORD_DOUBLE = "crawford_double"
    DOUBLE_LOSS = "double_loss"


class Phase(StrEnum):
    WAITING = "waiting"
    OPENING = "opening"
    PLAYING = "playing"
    BETWEEN_GAMES = "between_games"
    BREAK = "break"
    PAUSED = "paused"
    FLAG = "flag"
    FINISHED = "finished"


class PauseReason(StrEnum):
    """Why a clock is paused. Profiles name which of these a player may use (docs/rules.md)."""

    GAME_OVER = "game_over"
    BREAK = "break"
    TD = "td"
    DISPUTE = "dispute"
    PREMATURE_PICKUP = "premature_pickup"
    ILLEGAL_MOVE = "illegal_move"
    CLAIM = "claim"
    INVALID_ROLL = "invalid_roll"
    EQUIPMENT = "equipment"
    AGREEMENT = "agreement"
    POWER_LOSS = "power_loss"


#: reasons that belong to the table or the TD, not to a player: they need no ``side``
TABLE_PAUSES: frozenset[PauseReason] = frozenset({PauseReason.TD, PauseReason.POWER_LOSS})


class ResultKind(StrEnum):
    """What a game is won (or conceded) as: 1, 2 or 3 times the cube."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"


#: the ``kind`` of a game record: a result kind, or a passed double
GAME_PASSED = "pass"


class EndReason(StrEnum):
    POINTS = "points"
    TIME = "time"
    FORFEIT = "forfeit"
    LATENESS = "lateness"
    TD = "td"
    #: FFBG 10.3: both players lose the match (no winner; each scores 0 match points)
    DOUBLE_LOSS = "double_loss"


class CrawfordChoice(StrEnum):
    """The match leader's choice about a double made in the Crawford game (HU 7.5, FFBG 6.5)."""

    KEEP = "keep"
    VOID = "void"


class RollSource(StrEnum):
    TOWER = "tower"
    MANUAL = "manual"


class PenaltyReason(StrEnum):
    """Penalty reasons the rules give a meaning to. A penalty may carry any other short text
    (``conduct``, ``slow play``…); these two count towards the lateness forfeit (2.2 iv)."""

    LATE = "late"
    BREAK_OVERRUN = "break_overrun"
    CONDUCT = "conduct"


#: penalty reasons whose points, together, forfeit the match past half its length (2.2 iv)
LATENESS_REASONS: frozenset[str] = frozenset({PenaltyReason.LATE, PenaltyReason.BREAK_OVERRUN})


# -- parsed inputs ----------------------------------------------------------------------------------
# Each input carries ``at`` (ms on the table's monotonic clock) and ``wall`` (epoch ms, or None).


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """An assignment's clock: none, the profile's own setting, or explicit numbers."""

    enabled: bool
    #: None = the profile's minutes per point and delay
    minutes_per_point: float | None = None
    delay_s: int | None = None
    second_bank_minutes: float = 0


@dataclass(frozen=True, slots=True)
class Assign:
    at: int
    wall: int | None
    match_id: str
    length: int
    players: Pair[tuple[str, str]]
    profile: Profile
    clock: ClockSpec
    start_wall: int | None
    round: str | None
    final: bool
    force: bool


@dataclass(frozen=True, slots=True)
class Checkin:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    at: int
    wall: int | None
    a: int
    b: int


@dataclass(frozen=True, slots=True)
class Press:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Roll:
    at: int
    wall: int | None
    dice: tuple[int, int]
    source: RollSource


@dataclass(frozen=True, slots=True)
class InvalidRoll:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Double:
    at: int
    wall: int | None
    side: Side
    #: the value the cube was turned to, when the table was told (4.4 vi corrects a wrong one)
    value: int | None


@dataclass(frozen=True, slots=True)
class Take:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Pass:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Win:
    at: int
    wall: int | None
    side: Side
    kind: ResultKind


@dataclass(frozen=True, slots=True)
class Resign:
    at: int
    wall: int | None
    side: Side
    kind: ResultKind


@dataclass(frozen=True, slots=True)
class Pause:
    at: int
    wall: int | None
    reason: PauseReason
    #: the player who paused; None only for the table's own reasons (``TABLE_PAUSES``)
    side: Side | None


@dataclass(frozen=True, slots=True)
class Resume:
    at: int
    wall: int | None


@dataclass(frozen=True, slots=True)
class Break:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Return:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class CallTd:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class WithdrawCall:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Undo:
    at: int
    wall: int | None


@dataclass(frozen=True, slots=True)
class Confirm:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class PrematurePickup:
    at: int
    wall: int | None
    side: Side


@dataclass(frozen=True, slots=True)
class Tick:
    at: int
    wall: int | None


# -- parsed TD commands -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PenaltyCmd:
    against: Side
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class ForfeitCmd:
    against: Side
    reason: str


@dataclass(frozen=True, slots=True)
class WaiveCmd:
    penalty_id: str


@dataclass(frozen=True, slots=True)
class StartClockCmd:
    side: Side


@dataclass(frozen=True, slots=True)
class PauseCmd:
    reason: PauseReason


@dataclass(frozen=True, slots=True)
class ResumeCmd:
    pass


@dataclass(frozen=True, slots=True)
class SetTimeCmd:
    reserve_ms: Pair[int]


@dataclass(frozen=True, slots=True)
class ImposeClockCmd:
    minutes_per_point: float
    delay_s: int


@dataclass(frozen=True, slots=True)
class SetLengthCmd:
    length: int
    note: str


@dataclass(frozen=True, slots=True)
class CorrectScoreCmd:
    score: Pair[int]
    note: str


@dataclass(frozen=True, slots=True)
class ResolveFlagCmd:
    winner: Side


@dataclass(frozen=True, slots=True)
class TdAckCmd:
    pass


@dataclass(frozen=True, slots=True)
class ForbidDoubleCmd:
    side: Side


@dataclass(frozen=True, slots=True)
class ForceDoubleCmd:
    side: Side


@dataclass(frozen=True, slots=True)
class CrawfordDoubleCmd:
    choice: CrawfordChoice


@dataclass(frozen=True, slots=True)
class DoubleLossCmd:
    note: str


Command: TypeAlias = (
    PenaltyCmd
    | ForfeitCmd
    | WaiveCmd
    | StartClockCmd
    | PauseCmd
    | ResumeCmd
    | SetTimeCmd
    | ImposeClockCmd
    | SetLengthCmd
    | CorrectScoreCmd
    | ResolveFlagCmd
    | TdAckCmd
    | ForbidDoubleCmd
    | ForceDoubleCmd
    | CrawfordDoubleCmd
    | DoubleLossCmd
)

#: the command type of each command class (the inverse of the parser's table)
COMMAND_TYPES: dict[type, CommandType] = {
    PenaltyCmd: CommandType.PENALTY,
    ForfeitCmd: CommandType.FORFEIT,
    WaiveCmd: CommandType.WAIVE,
    StartClockCmd: CommandType.START_CLOCK,
    PauseCmd: CommandType.PAUSE,
    ResumeCmd: CommandType.RESUME,
    SetTimeCmd: CommandType.SET_TIME,
    ImposeClockCmd: CommandType.IMPOSE_CLOCK,
    SetLengthCmd: CommandType.SET_LENGTH,
    CorrectScoreCmd: CommandType.CORRECT_SCORE,
    ResolveFlagCmd: CommandType.RESOLVE_FLAG,
    TdAckCmd: CommandType.TD_ACK,
    ForbidDoubleCmd: CommandType.FORBID_DOUBLE,
    ForceDoubleCmd: CommandType.FORCE_DOUBLE,
    CrawfordDoubleCmd: CommandType.CRAWFORD_DOUBLE,
    DoubleLossCmd: CommandType.DOUBLE_LOSS,
}


@dataclass(frozen=True, slots=True)
class Cmd:
    """A TD command as journaled: applied at most once per ``id``."""

    at: int
    wall: int | None
    id: str
    type: CommandType
    expires_wall: int | None
    command: Command


Input: TypeAlias = (
    Assign
    | Checkin
    | OpeningRoll
    | Press
    | Roll
    | InvalidRoll
    | Double
    | Take
    | Pass
    | Win
    | Resign
    | Pause
    | Resume
    | Break
    | Return
    | CallTd
    | WithdrawCall
    | Undo
    | Confirm
    | PrematurePickup
    | Tick
    | Cmd
)

#: the input type of each input class (the inverse of the parser's table)
INPUT_TYPES: dict[type, InputType] = {
    Assign: InputType.ASSIGN,
    Checkin: InputType.CHECKIN,
    OpeningRoll: InputType.OPENING_ROLL,
    Press: InputType.PRESS,
    Roll: InputType.ROLL,
    InvalidRoll: InputType.INVALID_ROLL,
    Double: InputType.DOUBLE,
    Take: InputType.TAKE,
    Pass: InputType.PASS,
    Win: InputType.WIN,
    Resign: InputType.RESIGN,
    Pause: InputType.PAUSE,
    Resume: InputType.RESUME,
    Break: InputType.BREAK,
    Return: InputType.RETURN,
    CallTd: InputType.CALL_TD,
    WithdrawCall: InputType.WITHDRAW_CALL,
    Undo: InputType.UNDO,
    Confirm: InputType.CONFIRM,
    PrematurePickup: InputType.PREMATURE_PICKUP,
    Cmd: InputType.CMD,
    Tick: InputType.TICK,
}

__all__ = [
    "COMMAND_TYPES",
    "GAME_PASSED",
    "INPUT_TYPES",
    "LATENESS_REASONS",
    "TABLE_PAUSES",
    "Assign",
    "Break",
    "CallTd",
    "Checkin",
    "ClockSpec",
    "Cmd",
    "Command",
    "CommandType",
    "Confirm",
    "CorrectScoreCmd",
    "CrawfordChoice",
    "CrawfordDoubleCmd",
    "Double",
    "DoubleLossCmd",
    "EndReason",
    "EventType",
    "ForbidDoubleCmd",
    "ForceDoubleCmd",
    "ForfeitCmd",
    "ImposeClockCmd",
    "Input",
    "InputType",
    "InvalidRoll",
    "OpeningRoll",
    "Pass",
    "Pause",
    "PauseCmd",
    "PauseReason",
    "PenaltyCmd",
    "PenaltyReason",
    "Phase",
    "PrematurePickup",
    "Press",
    "Resign",
    "ResolveFlagCmd",
    "Resume",
    "ResumeCmd",
    "Return",
    "Roll",
    "RollSource",
    "SetLengthCmd",
    "SetTimeCmd",
    "StartClockCmd",
    "Take",
    "TdAckCmd",
    "Tick",
    "Undo",
    "WaiveCmd",
    "Win",
    "WithdrawCall",
    "plain",
]
