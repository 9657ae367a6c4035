"""A table's messages, each declared once: the state snapshot (PROTOCOL §2), the status (§3.2)
and every event type (§3.3), as typed dictionaries whose annotations carry their ranges.

Why: the snapshot's shape used to be written three times (the reducer's dict, the wire schema,
a typed view) and the events had no type at all, so a mistyped key or a renamed field was found
at a table, not by mypy. Here a key's static type and its check are one annotation
(``Annotated[int, LENGTH]``); :func:`rulebook.schema.declared` reads each declaration into the
schema :mod:`rulebook.wire` checks with, and refuses at import a spec its type contradicts.
Typed dictionaries rather than dataclasses because they *are* the JSON: the hub stores and
forwards them with no conversion, and the bytes on the wire stay as they were.

A word a reader branches on (``phase``, ``end_reason``, ``decision``) is typed as its vocabulary's
enum (:class:`rulebook.vocab.Phase` …) and holds that member's plain string (:func:`word`), as
JSON carries it: compare with the members; under mypy's strict equality a comparison with a
string literal that is no member's is an error.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, Literal, NotRequired, Required, TypedDict, TypeVar, cast, get_args

from rulebook.schema import (
    AT,
    CUBE,
    DECISIONS,
    DICE,
    DIE,
    DURATION,
    EVENT_SEQ,
    GAME_KINDS,
    GAME_NO,
    ID,
    ID_OR_NULL,
    LABEL,
    LENGTH,
    MAX_BREAKS,
    MAX_CUBE,
    MAX_GAME_POINTS,
    MAX_GAMES,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_LOG,
    MAX_MS,
    MAX_NAME,
    MAX_SEQ,
    MAX_TEXT,
    POINTS,
    SEQ,
    TEXT,
    WALL,
    WALL_OR_NULL,
    Array,
    Both,
    Choice,
    Echo,
    Int,
    Items,
    Map,
    Text,
)
from rulebook.sides import Pair
from rulebook.state import TurnSource
from rulebook.vocab import CommandType, CrawfordChoice, EndReason, EventType, Phase, ResultKind

SideName = Literal["A", "B"]
#: a game's record: how it was won, or a passed double
GameKind = Literal["single", "gammon", "backgammon", "pass"]
if get_args(GameKind) != GAME_KINDS:
    raise TypeError(f"GameKind lists {get_args(GameKind)}, the vocabulary {GAME_KINDS}")

W = TypeVar("W", bound=StrEnum)


def word(member: W) -> W:
    """A vocabulary word as a message holds it: the plain string JSON carries (what the golden
    snapshots pin), typed as its enum. A ``StrEnum`` member and its string are equal and hash
    alike, so a reader compares with the members (``snap["phase"] == Phase.PLAYING``); it never
    reads ``.value`` or ``.name`` off a message's word."""
    return cast(W, str.__str__(member))


# -- pairs: one value per side ----------------------------------------------------------------


class SidePair(TypedDict):
    A: int
    B: int


def side_pair(pair: Pair[int]) -> SidePair:
    """A per-side number as a message holds it."""
    return {"A": pair.a, "B": pair.b}


class SideFlags(TypedDict):
    A: bool
    B: bool


class SideAges(TypedDict):
    A: int | None
    B: int | None


# -- what each side, the table and the TD may do now (PROTOCOL §2.1 ``legal``) -----------------

#: action -> the refusal code the table would answer (``why``)
_WHY = Map(Text(MAX_LABEL, 1), Text(MAX_LABEL, 1), 100)
_KINDS = Array(Choice(tuple(k.value for k in ResultKind)), 3)
_REASONS = Array(LABEL, 20)
Why = Annotated[dict[str, str], _WHY]

#: a side's actions: some are Python keywords (``pass``, ``break``, ``return``), hence this form
SideLegal = TypedDict(
    "SideLegal",
    {
        "checkin": bool,
        "press": bool,
        "invalid_roll": bool,
        "double": bool,
        "premature_double": bool,
        "take": bool,
        "pass": bool,
        "beaver": bool,
        "pause_passes": bool,
        "break": bool,
        "return": bool,
        "call_td": bool,
        "withdraw_call": bool,
        "confirm": bool,
        "premature_pickup": bool,
        # HU 7.5, FFBG 6.5 (an addition: older tables omit it)
        "crawford_double": NotRequired[bool],
        "win": Annotated[list[str], _KINDS],
        "resign": Annotated[list[str], _KINDS],
        "pause": Annotated[list[str], _REASONS],
        "why": Why,
    },
)


class TableLegal(TypedDict):
    opening_roll: bool
    roll: bool
    #: whose roll a roll read now would be (an addition: older tables omit it)
    roller: NotRequired[SideName | None]
    undo: bool
    resume: bool
    pause: Annotated[list[str], _REASONS]
    why: Why


class TdLegal(TypedDict):
    """The TD's commands: a flag each, or the sides / penalty ids it applies to."""

    penalty: bool
    forfeit: bool
    pause: bool
    resume: bool
    set_time: bool
    impose_clock: bool
    set_length: bool
    correct_score: bool
    resolve_flag: bool
    td_ack: bool
    waive: Annotated[list[str], Array(Text(MAX_TEXT, 1), MAX_LOG)]
    start_clock: Annotated[list[SideName], Items(2)]
    # the TD's cube decisions (additions: older tables omit them)
    forbid_double: NotRequired[Annotated[list[SideName], Items(2)]]
    force_double: NotRequired[Annotated[list[SideName], Items(2)]]
    crawford_double: NotRequired[bool]
    double_loss: NotRequired[bool]
    length_correction: Annotated[str, LABEL]
    why: Why


class Legal(TypedDict):
    A: SideLegal
    B: SideLegal
    table: TableLegal
    td: TdLegal


# -- the state snapshot (PROTOCOL §2) ---------------------------------------------------------


class CubeState(TypedDict):
    value: Annotated[int, CUBE]
    owner: SideName | None
    offered_by: SideName | None
    usable: NotRequired[SideFlags]


class ClockState(TypedDict):
    enabled: bool
    running: SideName | None
    paused: Annotated[str | None, Text(MAX_LABEL, nullable=True)]
    paused_by: NotRequired[SideName | None]
    reserve_ms: Annotated[SidePair, Both(DURATION)]
    delay_ms: Annotated[SidePair, Both(DURATION)]
    flagged: SideName | None
    bank2_ms: NotRequired[Annotated[SidePair, Both(DURATION)]]
    flagged_at: NotRequired[Annotated[int | None, Int(0, MAX_MS, nullable=True)]]
    on: NotRequired[SideName | None]


class BreakState(TypedDict):
    used: Annotated[int, Int(0, MAX_BREAKS)]
    allowed: Annotated[int, Int(0, MAX_BREAKS)]
    until_wall: Annotated[int | None, WALL_OR_NULL]
    away: NotRequired[bool]
    #: monotonic ms to the break's end, negative once overrun (the hub's anchor)
    left_ms: NotRequired[Annotated[int | None, Int(-MAX_MS, MAX_MS, nullable=True)]]


class Breaks(TypedDict):
    A: BreakState
    B: BreakState


class GameRow(TypedDict):
    game: Annotated[int, Int(1, MAX_GAMES)]
    winner: SideName
    kind: GameKind
    cube: Annotated[int, CUBE]
    points: Annotated[int, Int(0, MAX_GAME_POINTS)]
    resigned: NotRequired[bool]
    wall: NotRequired[Annotated[int | None, WALL_OR_NULL]]


class Player(TypedDict):
    name: Annotated[str, Text(MAX_NAME)]
    id: Annotated[str, Text(MAX_LABEL)]


class Players(TypedDict):
    A: Player
    B: Player


class PenaltyRow(TypedDict):
    id: Annotated[str, Text(MAX_TEXT, 1)]
    against: SideName
    points: Annotated[int, Int(1, MAX_LENGTH)]
    reason: Annotated[str, LABEL]
    waived: bool


class CorrectionRow(TypedDict):
    kind: Annotated[str, LABEL]
    before: Annotated[str, LABEL]
    after: Annotated[str, LABEL]
    note: Annotated[str, TEXT]
    #: the command's id (``local:…``: the table's TD menu) and its age
    id: NotRequired[Annotated[str, Text(MAX_TEXT)]]
    age_ms: NotRequired[Annotated[int, Int(0, MAX_MS)]]


class Snapshot(TypedDict):
    schema: Annotated[int, Int(1, 1000)]
    table: Annotated[str, ID]
    match_id: Annotated[str | None, ID_OR_NULL]
    seq: Annotated[int, SEQ]
    phase: Phase
    length: Annotated[int, LENGTH]
    score: Annotated[SidePair, Both(POINTS)]
    game: Annotated[int, GAME_NO]
    crawford: bool
    post_crawford: bool
    cube: CubeState
    penalties: Annotated[SidePair, Both(POINTS)]
    present: SideFlags
    clock: ClockState
    breaks: Breaks
    winner: SideName | None
    end_reason: EndReason | None
    games: Annotated[list[GameRow], Items(MAX_GAMES)]
    players: Players
    profile: Annotated[str, LABEL]
    wall: Annotated[int | None, WALL_OR_NULL]
    # the additions PROTOCOL §2 lists: optional, checked when present
    turn: NotRequired[SideName | None]
    turn_known: NotRequired[bool]
    turn_from: NotRequired[TurnSource | None]
    in_game: NotRequired[bool]
    td_calls: NotRequired[SideFlags]
    dice: NotRequired[Annotated[list[int] | None, Array(DIE, 2, 2, nullable=True)]]
    round: NotRequired[Annotated[str | None, Text(MAX_LABEL, nullable=True)]]
    final: NotRequired[bool]
    start_wall: NotRequired[Annotated[int | None, WALL_OR_NULL]]
    #: monotonic ages at the snapshot's ``at``: since each check-in, since the assignment
    present_ms: NotRequired[Annotated[SideAges, Both(Int(0, MAX_MS, nullable=True))]]
    assigned_ms: NotRequired[Annotated[int | None, Int(0, MAX_MS, nullable=True)]]
    #: since the match ended (the hub's finish time: received - finished_ms)
    finished_ms: NotRequired[Annotated[int | None, Int(0, MAX_MS, nullable=True)]]
    #: the TD's command that decided the result, beside end_reason
    decision: NotRequired[Annotated[CommandType | None, Choice(DECISIONS, nullable=True)]]
    td_call: NotRequired[SideName | None]
    confirmed: NotRequired[SideFlags]
    can_undo: NotRequired[bool]
    pending_length: NotRequired[Annotated[int | None, Int(1, MAX_LENGTH, nullable=True)]]
    penalty_log: NotRequired[Annotated[list[PenaltyRow], Items(MAX_LOG)]]
    corrections: NotRequired[Annotated[list[CorrectionRow], Items(MAX_LOG)]]
    legal: NotRequired[Legal]
    at: NotRequired[Annotated[int, AT]]


# -- the status (PROTOCOL §3.2), also a table's Will ------------------------------------------


class JournalNotice(TypedDict):
    """A table's journal problem, null while the journal is sound."""

    problem: Literal["damaged", "lost"]
    match_id: Annotated[str | None, ID_OR_NULL]
    after_input: Annotated[int, Int(0, MAX_SEQ)]
    last_seq: Annotated[int | None, Int(0, MAX_SEQ, nullable=True)]
    aside: Annotated[str | None, Text(255, nullable=True)]
    reason: Annotated[str, Text(2000)]
    since_wall: Annotated[int, WALL]


class DiceDevice(TypedDict, total=False):
    """The table's dice tower names itself (docs/dice-fairness.md)."""

    device: Annotated[str, Text(MAX_LABEL, 1)]


class Status(TypedDict):
    online: bool
    boot_id: NotRequired[Annotated[str | None, Text(MAX_LABEL, nullable=True)]]
    version: NotRequired[Annotated[str | None, Text(MAX_LABEL, nullable=True)]]
    wall: NotRequired[Annotated[int | None, WALL_OR_NULL]]
    journal: NotRequired[JournalNotice | None]
    dice: NotRequired[DiceDevice]


# -- the hub's "Next:" lines for a finished match of a draw (PROTOCOL §3.8; hub → table) -------

#: where a player of the finished match goes next: his next match ``called`` to a table, its
#: opponent known but the match not called yet (``ready``), his opponent not known yet
#: (``waiting``: the winner or loser of another match), the flight ``won``, or ``out``
NextKind = Literal["called", "ready", "waiting", "won", "out"]
#: whose result the opponent of a ``waiting`` line comes from
NextSource = Literal["winner", "loser"]
#: the deepest round of a flight (512 places: 9 rounds, a fed flight a few more)
MAX_ROUNDS: Final = 64


class NextLine(TypedDict):
    """One player's next step. Every key is present (null where the kind has nothing to say), so
    a table reads one shape and a missing key is refused, not guessed."""

    kind: NextKind
    #: the flight of the next match; for ``won`` and ``out``, the flight won or left
    flight: Annotated[str, Text(MAX_LABEL, 1)]
    round: Annotated[int | None, Int(1, MAX_ROUNDS, nullable=True)]
    #: ``called``: the table the next match is called to
    table: Annotated[str | None, ID_OR_NULL]
    #: ``called``, ``ready``: the opponent's name as the tables show it
    opponent: Annotated[str | None, Text(MAX_NAME, nullable=True)]
    #: ``waiting``: the opponent is the winner (or loser) of the match at ``from_table``
    waits_for: NextSource | None
    from_table: Annotated[str | None, ID_OR_NULL]
    #: the flight the player is out of when his next match is in another one (a consolation)
    left: Annotated[str | None, Text(MAX_LABEL, 1, nullable=True)]


class NextMessage(TypedDict):
    """``table/{t}/next``: where each player of the table's finished match ``match_id`` goes next,
    as the hub's bracket says at ``wall`` (the hub's time); seats as in that match."""

    match_id: Annotated[str, ID]
    wall: Annotated[int, WALL]
    A: NextLine
    B: NextLine


#: the longest address of a player's page a table shows (the hub's public address, ``/p/`` and
#: the player's code; docs/draw.md)
MAX_PAGE_URL: Final = 200
#: an http(s) address of printable ASCII without spaces: anything else is not a page to show
PAGE_URL = Text(MAX_PAGE_URL, 1, pattern=r"https?://[!-~]+", what="an http(s) address")


class PlayerPages(TypedDict):
    """An ``assign``'s optional ``pages`` (hub → table, docs/protocol.md §3.1): the address of
    each player's page of the draw, which the table's waiting screen shows with its QR code on
    that player's half. A side without a page is absent; the hub sends none without its public
    address (``--public-url``)."""

    A: NotRequired[Annotated[str, PAGE_URL]]
    B: NotRequired[Annotated[str, PAGE_URL]]


# -- events (PROTOCOL §3.3) -------------------------------------------------------------------
#
# An event is its type's *body* (what the reducer's handler builds: the ``type`` and its fields)
# plus the *stamp* the reducer adds as it numbers it (``rulebook.table._emit``: ``seq``,
# ``match_id``, then ``at`` and ``wall``). A body's fields are required as the reducer emits an
# accepted event of that type; ``NotRequired`` marks the ones only some of its events carry. A
# refused input makes a :class:`RejectedEvent` named after the input (so an event whose type is
# ``checkin`` may carry no ``side``): the wire therefore checks a type's own fields when present
# (``rulebook.wire.EVENT_FIELDS``), and a reader of a received event asks for them with ``get``.


class Stamp(TypedDict):
    """What the reducer adds to every event as it numbers it."""

    seq: Annotated[int, EVENT_SEQ]
    match_id: Annotated[str | None, ID_OR_NULL]


class Marks(TypedDict):
    """What any event may carry beside its type's fields. ``at`` and ``wall`` are stamped on every
    event (an older table may omit them); ``at`` is the flag's own instant on a ``flag``."""

    at: NotRequired[Annotated[int, AT]]
    wall: NotRequired[Annotated[int | None, WALL_OR_NULL]]
    rejected: NotRequired[Annotated[str, TEXT]]
    #: the refusal's code (rulebook.codes) next to its English text
    code: NotRequired[Annotated[str, Text(MAX_LABEL, 1)]]
    duplicate: NotRequired[bool]


class _Typed(Stamp):
    type: Annotated[str, Text(MAX_LABEL, 1)]


class Envelope(_Typed, Marks):
    """An event's envelope: what every event carries, whatever its type, and all the wire
    guarantees of an event it receives (:func:`rulebook.wire.parse_event`)."""


Score = Annotated[SidePair, Both(POINTS)]
Reason = Annotated[str, LABEL]
Note = Annotated[str, TEXT]
Length = Annotated[int, Int(1, MAX_LENGTH)]
LengthOrNull = Annotated[int | None, Int(1, MAX_LENGTH, nullable=True)]
GameNo = Annotated[int, GAME_NO]
Dice = Annotated[list[int], DICE]


class AssignBody(Marks):
    type: Literal[EventType.ASSIGN]
    #: absent from the answer to the same assignment delivered again (``duplicate``)
    length: NotRequired[Length]
    profile: NotRequired[Reason]


class CheckinBody(Marks):
    type: Literal[EventType.CHECKIN]
    side: SideName
    late_ms: Annotated[int | None, Int(0, MAX_MS, nullable=True)]
    #: FFBG 9.3: the clock the TD started moves to the absent player's seat
    clock_to: NotRequired[SideName]


class OpeningRollBody(Marks):
    type: Literal[EventType.OPENING_ROLL]
    dice: Dice
    #: a tie carries the dice and ``tie`` only
    tie: NotRequired[bool]
    first: NotRequired[SideName]
    game: NotRequired[GameNo]
    crawford: NotRequired[bool]


class LengthRefusedBody(Marks):
    type: Literal[EventType.LENGTH_REFUSED]
    length: LengthOrNull
    reason: Note


class LengthChangedBody(Marks):
    type: Literal[EventType.LENGTH_CHANGED]
    length: LengthOrNull


class SideBody(Marks):
    """The events that name a side only. ``flag`` carries its own ``at`` (the instant the reserve
    reached zero); ``pass``, ``win`` and ``resign`` are told by ``game_over`` when accepted, so a
    table sends them refused only."""

    type: Literal[
        EventType.PRESS,
        EventType.INVALID_ROLL,
        EventType.PASS,
        EventType.WIN,
        EventType.RESIGN,
        EventType.CONFIRM,
        EventType.CALL_TD,
        EventType.WITHDRAW_CALL,
        EventType.PREMATURE_PICKUP,
        EventType.FLAG,
        EventType.START_CLOCK,
        EventType.FORBID_DOUBLE,
        EventType.FORCE_DOUBLE,
    ]
    side: SideName


class RollBody(Marks):
    type: Literal[EventType.ROLL]
    dice: Dice
    source: Reason
    #: absent from a premature roll refused (whose turn it would be is not known)
    side: NotRequired[SideName | None]
    premature: NotRequired[bool]


class PauseBody(Marks):
    type: Literal[EventType.PAUSE]
    reason: Reason
    side: NotRequired[SideName | None]
    #: WBGF 4.4 iii: the pause was the answer to a double, so it passed it (``game_over`` follows)
    passes: NotRequired[bool]


class BareBody(Marks):
    """The events that carry their type only."""

    type: Literal[EventType.RESUME, EventType.TD_ACK]


class DoubleBody(Marks):
    type: Literal[EventType.DOUBLE]
    side: SideName
    value: Annotated[int | None, Int(1, 2 * MAX_CUBE, nullable=True)]
    corrected_from: NotRequired[Annotated[int, Int(1, 2 * MAX_CUBE)]]
    premature: NotRequired[bool]
    crawford: NotRequired[bool]
    forced: NotRequired[bool]


class TakeBody(Marks):
    type: Literal[EventType.TAKE]
    side: SideName
    value: Annotated[int, CUBE]


class GameOverBody(Marks):
    type: Literal[EventType.GAME_OVER]
    game: GameNo
    winner: SideName
    kind: GameKind
    points: Annotated[int, Int(0, MAX_GAME_POINTS)]
    cube: Annotated[int, CUBE]
    resigned: bool
    score: Score
    crawford_next: bool


class MatchOverBody(Marks):
    type: Literal[EventType.MATCH_OVER]
    winner: SideName | None
    end_reason: EndReason | None
    score: Score


class UndoBody(Marks):
    type: Literal[EventType.UNDO]
    score: Score


class BreakBody(Marks):
    type: Literal[EventType.BREAK]
    side: SideName
    #: FFBG: a break on a running clock (no end: the breaker's clock runs)
    on_clock: NotRequired[bool]
    until_wall: NotRequired[Annotated[int | None, WALL_OR_NULL]]
    #: 2.2 ii: a break joined to the one the player was on (its end moved on)
    combined: NotRequired[bool]


class ReturnBody(Marks):
    type: Literal[EventType.RETURN]
    side: SideName
    overrun_ms: Annotated[int | None, Int(0, MAX_MS, nullable=True)]


class CmdDoneBody(Marks):
    """A TD command's answer, quoting its id and type whatever they held."""

    type: Literal[EventType.CMD_DONE]
    id: Annotated[object, Echo()]
    cmd: Annotated[object, Echo()]
    ok: bool
    error: Annotated[str | None, Text(MAX_TEXT, nullable=True)]


class PenaltyBody(Marks):
    type: Literal[EventType.PENALTY]
    id: Annotated[str, Text(MAX_TEXT, 1)]
    against: SideName
    points: Length
    reason: Reason
    score: Score


class ForfeitBody(Marks, total=False):
    """Declared for the wire only (no word of ``EventType``, in neither union below): the reducer
    tells a forfeit by ``match_over``."""

    type: Required[Literal["forfeit"]]
    against: SideName
    reason: Reason


class WaiveBody(Marks):
    type: Literal[EventType.WAIVE]
    penalty_id: Annotated[str, Text(MAX_TEXT, 1)]
    points: Annotated[int, Int(0, MAX_LENGTH)]
    reopened: NotRequired[bool]


class SetTimeBody(Marks):
    type: Literal[EventType.SET_TIME]
    reserve_ms: Annotated[SidePair, Both(DURATION)]


class ImposeClockBody(Marks):
    type: Literal[EventType.IMPOSE_CLOCK]
    reserve_ms: Annotated[int, DURATION]
    delay_ms: Annotated[int, DURATION]


class SetLengthBody(Marks):
    type: Literal[EventType.SET_LENGTH]
    length: Length
    pending: bool
    crawford_game: NotRequired[Annotated[int | None, Int(1, MAX_GAMES, nullable=True)]]


class CorrectScoreBody(Marks):
    type: Literal[EventType.CORRECT_SCORE]
    score: Score
    before: Reason
    reopened: NotRequired[bool]
    note: Note


class ResolveFlagBody(Marks):
    type: Literal[EventType.RESOLVE_FLAG]
    winner: SideName


class CrawfordDoubleBody(Marks):
    type: Literal[EventType.CRAWFORD_DOUBLE]
    choice: CrawfordChoice
    #: the cube the game goes on or is scored at once a double is voided
    value: NotRequired[Annotated[int, CUBE]]
    #: a game scored again at the kept cube
    game: NotRequired[Annotated[int, Int(1, MAX_GAMES)]]
    points: NotRequired[Annotated[int, Int(0, MAX_GAME_POINTS)]]
    score: NotRequired[Score]
    reopened: NotRequired[bool]


class DoubleLossBody(Marks):
    type: Literal[EventType.DOUBLE_LOSS]
    note: Note


class RejectedBody(Marks):
    """A refused input: named after the input (its ``input`` word as sent, clipped; ``invalid``
    for a line that is not an object), with ``rejected`` and ``code`` (both always set)."""

    type: Annotated[str, Text(MAX_LABEL, 1)]


# -- each body stamped: the events as the reducer returns them and a table sends them ---------


class AssignEvent(AssignBody, Stamp):
    pass


class CheckinEvent(CheckinBody, Stamp):
    pass


class OpeningRollEvent(OpeningRollBody, Stamp):
    pass


class LengthRefusedEvent(LengthRefusedBody, Stamp):
    pass


class LengthChangedEvent(LengthChangedBody, Stamp):
    pass


class SideEvent(SideBody, Stamp):
    pass


class RollEvent(RollBody, Stamp):
    pass


class PauseEvent(PauseBody, Stamp):
    pass


class BareEvent(BareBody, Stamp):
    pass


class DoubleEvent(DoubleBody, Stamp):
    pass


class TakeEvent(TakeBody, Stamp):
    pass


class GameOverEvent(GameOverBody, Stamp):
    pass


class MatchOverEvent(MatchOverBody, Stamp):
    pass


class UndoEvent(UndoBody, Stamp):
    pass


class BreakEvent(BreakBody, Stamp):
    pass


class ReturnEvent(ReturnBody, Stamp):
    pass


class CmdDoneEvent(CmdDoneBody, Stamp):
    pass


class PenaltyEvent(PenaltyBody, Stamp):
    pass


class ForfeitEvent(ForfeitBody, Stamp):
    pass


class WaiveEvent(WaiveBody, Stamp):
    pass


class SetTimeEvent(SetTimeBody, Stamp):
    pass


class ImposeClockEvent(ImposeClockBody, Stamp):
    pass


class SetLengthEvent(SetLengthBody, Stamp):
    pass


class CorrectScoreEvent(CorrectScoreBody, Stamp):
    pass


class ResolveFlagEvent(ResolveFlagBody, Stamp):
    pass


class CrawfordDoubleEvent(CrawfordDoubleBody, Stamp):
    pass


class DoubleLossEvent(DoubleLossBody, Stamp):
    pass


class RejectedEvent(RejectedBody, Stamp):
    pass


#: what a handler of the reducer builds, before ``_emit`` stamps it
Body = (
    AssignBody
    | CheckinBody
    | OpeningRollBody
    | LengthRefusedBody
    | LengthChangedBody
    | SideBody
    | RollBody
    | PauseBody
    | BareBody
    | DoubleBody
    | TakeBody
    | GameOverBody
    | MatchOverBody
    | UndoBody
    | BreakBody
    | ReturnBody
    | CmdDoneBody
    | PenaltyBody
    | WaiveBody
    | SetTimeBody
    | ImposeClockBody
    | SetLengthBody
    | CorrectScoreBody
    | ResolveFlagBody
    | CrawfordDoubleBody
    | DoubleLossBody
    | RejectedBody
)

#: an event as the reducer returns it (``rulebook.table.apply``) and the kiosk stores and sends it:
#: one of these, told apart by ``type`` (a ``RejectedEvent`` may bear any type's name)
Event = (
    AssignEvent
    | CheckinEvent
    | OpeningRollEvent
    | LengthRefusedEvent
    | LengthChangedEvent
    | SideEvent
    | RollEvent
    | PauseEvent
    | BareEvent
    | DoubleEvent
    | TakeEvent
    | GameOverEvent
    | MatchOverEvent
    | UndoEvent
    | BreakEvent
    | ReturnEvent
    | CmdDoneEvent
    | PenaltyEvent
    | WaiveEvent
    | SetTimeEvent
    | ImposeClockEvent
    | SetLengthEvent
    | CorrectScoreEvent
    | ResolveFlagEvent
    | CrawfordDoubleEvent
    | DoubleLossEvent
    | RejectedEvent
)

_DECLARED: Final[dict[str, type]] = {
    EventType.ASSIGN: AssignEvent,
    EventType.CHECKIN: CheckinEvent,
    EventType.OPENING_ROLL: OpeningRollEvent,
    EventType.LENGTH_REFUSED: LengthRefusedEvent,
    EventType.LENGTH_CHANGED: LengthChangedEvent,
    EventType.PRESS: SideEvent,
    EventType.ROLL: RollEvent,
    EventType.INVALID_ROLL: SideEvent,
    EventType.PAUSE: PauseEvent,
    EventType.RESUME: BareEvent,
    EventType.DOUBLE: DoubleEvent,
    EventType.TAKE: TakeEvent,
    EventType.PASS: SideEvent,
    EventType.WIN: SideEvent,
    EventType.RESIGN: SideEvent,
    EventType.GAME_OVER: GameOverEvent,
    EventType.MATCH_OVER: MatchOverEvent,
    EventType.UNDO: UndoEvent,
    EventType.CONFIRM: SideEvent,
    EventType.BREAK: BreakEvent,
    EventType.RETURN: ReturnEvent,
    EventType.CALL_TD: SideEvent,
    EventType.WITHDRAW_CALL: SideEvent,
    EventType.PREMATURE_PICKUP: SideEvent,
    EventType.FLAG: SideEvent,
    EventType.CMD_DONE: CmdDoneEvent,
    EventType.PENALTY: PenaltyEvent,
    "forfeit": ForfeitEvent,
    EventType.WAIVE: WaiveEvent,
    EventType.START_CLOCK: SideEvent,
    EventType.SET_TIME: SetTimeEvent,
    EventType.IMPOSE_CLOCK: ImposeClockEvent,
    EventType.SET_LENGTH: SetLengthEvent,
    EventType.CORRECT_SCORE: CorrectScoreEvent,
    EventType.RESOLVE_FLAG: ResolveFlagEvent,
    EventType.TD_ACK: BareEvent,
    EventType.FORBID_DOUBLE: SideEvent,
    EventType.FORCE_DOUBLE: SideEvent,
    EventType.CRAWFORD_DOUBLE: CrawfordDoubleEvent,
    EventType.DOUBLE_LOSS: DoubleLossEvent,
}

#: each event type's declaration by its plain word, as JSON carries it (a refused input's event
#: has no type of its own)
EVENT_TYPES: Final[dict[str, type]] = {str.__str__(word): td for word, td in _DECLARED.items()}
