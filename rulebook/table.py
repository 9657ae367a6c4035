"""The table reducer: ``apply(state, input) -> (state, events)`` over docs/protocol.md §1's inputs.

This is the only place the rules change a table's state. The kiosk applies each journaled input
here live, on restart it replays the journal through the same function, and ``bgtable replay``
does the same offline. ``apply`` takes the raw JSON object, parses it once into a typed input
(``rulebook.parse``) and hands it to one handler; whether an input is allowed is judged by
``rulebook.legal``, the same functions that publish "what may each side do now". An input the
rules forbid leaves the state unchanged (time still advances, so a flag that fell is still seen)
and yields an event carrying ``rejected`` (the English reason) and ``code`` (what to translate).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from rulebook import legal
from rulebook import match as m
from rulebook.clock import Clock, imposed_reserve_ms, new_clock
from rulebook.errors import RuleError
from rulebook.fastreplace import replace
from rulebook.messages import (
    Body,
    BreakBody,
    CheckinBody,
    CmdDoneBody,
    CorrectScoreBody,
    CrawfordDoubleBody,
    DoubleBody,
    DoubleLossBody,
    Event,
    GameKind,
    MatchOverBody,
    PauseBody,
    RejectedBody,
    RollBody,
    SetLengthBody,
    SideBody,
    WaiveBody,
    side_pair,
)
from rulebook.parse import MAX_LABEL, MAX_LENGTH, MAX_TEXT, clip, parse_body, stamp
from rulebook.policy import break_ms, is_lateness_forfeit
from rulebook.profiles import Profile
from rulebook.sides import SIDES, Side, other
from rulebook.state import NONE_PAIR, NOT_PRESENT, EndPoint, TableState, UndoPoint, new_table
from rulebook.vocab import (
    COMMAND_TYPES,
    GAME_PASSED,
    INPUT_TYPES,
    LATENESS_REASONS,
    Assign,
    Break,
    CallTd,
    Checkin,
    ClockSpec,
    Cmd,
    CommandType,
    Confirm,
    CorrectScoreCmd,
    CrawfordChoice,
    CrawfordDoubleCmd,
    Double,
    DoubleLossCmd,
    EndReason,
    EventType,
    ForbidDoubleCmd,
    ForceDoubleCmd,
    ForfeitCmd,
    ImposeClockCmd,
    InputType,
    InvalidRoll,
    OpeningRoll,
    Pass,
    Pause,
    PauseCmd,
    PauseReason,
    PenaltyCmd,
    Phase,
    PrematurePickup,
    Press,
    Resign,
    ResolveFlagCmd,
    ResultKind,
    Resume,
    ResumeCmd,
    Return,
    Roll,
    SetLengthCmd,
    SetTimeCmd,
    StartClockCmd,
    Take,
    TdAckCmd,
    Tick,
    Undo,
    WaiveCmd,
    Win,
    WithdrawCall,
)

# the words of the hot path, looked up once
_PRESS: Final = EventType.PRESS
_ROLL: Final = EventType.ROLL
#: what ``apply`` returns: the new state and its events, numbered and stamped
Result = tuple[TableState, list[Event]]
#: what a handler returns: the new state and its events' bodies (``_emit`` stamps them)
Made = tuple[TableState, list[Body]]

#: prefix of the reason given when an input hit a fault in the reducer itself (tests look for it)
INTERNAL_ERROR = "internal error"

__all__ = [
    "INTERNAL_ERROR",
    "MAX_LABEL",
    "MAX_LENGTH",
    "MAX_TEXT",
    "TableState",
    "apply",
    "clip",
    "new_table",
]


# -- the reducer --------------------------------------------------------------------------------


def apply(state: TableState, inp: Any) -> Result:
    """Apply one journal input. Never raises: bad input becomes a rejected event."""
    if not isinstance(inp, dict):
        error = RuleError("input.not_object")
        return _emit(state, state, [_rejected(EventType.INVALID, error)], state.now)
    # the common case first, checked inline: this runs for every input of a day's journal
    at = inp.get("at")
    wall = inp.get("wall")
    if type(at) is not int or at < state.now or (wall is not None and (type(wall) is not int or wall <= 0)):
        try:
            at, wall = stamp(inp, state.now)
        except RuleError as exc:
            return _emit(state, state, [_rejection(inp, exc)], state.now)
    original = state
    if wall is not None:
        state = replace(state, wall_anchor=(at, wall))
    # Handlers get the time as ``at``; ``state.now`` becomes ``at`` when the events are stamped.
    clock = state.clock
    if clock.running is not None and clock.paused is None and clock.enabled:
        state, events = _advance(state, at)
    else:
        events = []
    try:
        parsed = parse_body(inp, at, wall)
        state_after, more = _DISPATCH[type(parsed)](state, parsed, at)
    except RuleError as exc:
        events.append(_rejection(inp, exc))
        return _emit(original, state, events, at)
    except Exception as exc:  # a table must never stop on a bad input (docs/protocol.md §1)
        fault = RuleError("internal.error", detail=f"{type(exc).__name__}: {exc}")
        events.append(_rejection(inp, fault))
        return _emit(original, state, events, at)
    if more:
        events.extend(more)
    return _emit(original, state_after, events, at)


def _rejected(label: str, error: RuleError) -> RejectedBody:
    return {"type": label, "rejected": clip(error.message), "code": error.code}


def _rejection(inp: dict[str, Any], error: RuleError) -> Body:
    kind = inp.get("input")
    if kind == InputType.CMD:
        return _cmd_done(inp, ok=False, error=error)
    label = clip(str.__str__(kind), MAX_LABEL) if isinstance(kind, str) else EventType.INVALID
    return _rejected(label, error)


def _emit(original: TableState, state: TableState, events: list[Body], at: int) -> Result:
    """Number the events (per-match ``seq``), stamp them with the match and time; ``now`` = ``at``.

    A state made during this very input (not ``original``) is seen by nobody yet, so its ``seq``
    and ``now`` are stamped in place rather than by one more copy: the reducer's hot path.
    """
    if not events:
        if state.now == at:
            return state, []
        if state is original:
            return replace(state, now=at), []
        _set(state, "now", at)
        return state, []
    seq = state.seq
    anchor = state.wall_anchor
    wall = None if anchor is None else anchor[1] + (at - anchor[0])
    match_id = state.match_id
    for body in events:
        # the one place a body becomes an event: stamped in place (the order of its keys, and so
        # the bytes a table sends, are the body's then the stamp's)
        event = cast(dict[str, object], body)
        seq += 1
        event["seq"] = seq
        event["match_id"] = match_id
        if "at" not in event:
            event["at"] = at
        event["wall"] = wall
    stamped = cast(list[Event], events)
    if state is original:
        return replace(state, seq=seq, now=at), stamped
    _set(state, "seq", seq)
    _set(state, "now", at)
    return state, stamped


_set = object.__setattr__


def _advance(state: TableState, at: int) -> Made:
    """Let time run to ``at``: a reserve that reached zero flags at the exact instant."""
    flag_at = state.clock.flag_time()
    if flag_at is None or flag_at > at:
        return state, []
    clock = state.clock.settle(at)
    if clock.flagged is None:
        return replace(state, clock=clock), []
    side = clock.flagged
    assert clock.flagged_at is not None  # set with ``flagged``
    event: SideBody = {"type": EventType.FLAG, "side": side, "at": clock.flagged_at}
    # a time-out is not a score entry: what came before it can no longer be undone at the table
    if state.profile.gin_exception:
        calls = state.td_calls.set(side, True)
        return replace(state, clock=clock, phase=Phase.FLAG, td_call=side, td_calls=calls, undo=None), [event]
    assert state.match is not None
    match = replace(state.match, winner=other(side), end_reason=EndReason.TIME, in_game=False)
    finished = clock.flagged_at
    return replace(state, clock=clock, match=match, phase=Phase.FINISHED, undo=None, finished_at=finished), [
        event,
        _match_over(match),
    ]


def _match_over(match: m.Match) -> MatchOverBody:
    return {
        "type": EventType.MATCH_OVER,
        "winner": match.winner,
        "end_reason": match.end_reason,
        "score": side_pair(match.score),
    }


def _check(refusal: RuleError | None) -> None:
    if refusal is not None:
        raise refusal


def _match(state: TableState) -> m.Match:
    assert state.match is not None
    return state.match


# -- set-up and arrival -------------------------------------------------------------------------


def _clock_for(profile: Profile, length: int, spec: ClockSpec) -> Clock:
    if not spec.enabled:
        return Clock()
    if spec.minutes_per_point is None or spec.delay_s is None:
        return new_clock(profile.reserve_ms(length), profile.delay_s * 1000)
    bank2 = round(spec.second_bank_minutes * 60_000)
    return new_clock(profile.reserve_ms(length, spec.minutes_per_point), spec.delay_s * 1000, bank2)


def on_assign(state: TableState, inp: Assign, at: int) -> Made:
    clock = _clock_for(inp.profile, inp.length, inp.clock)
    same = inp.match_id == state.match_id
    if same and state.phase != Phase.WAITING:
        return state, [{"type": EventType.ASSIGN, "duplicate": True}]
    unfinished = state.match is not None and not state.match.is_over()
    if unfinished and not same and not inp.force:
        raise RuleError("match.in_progress", match_id=state.match_id)
    fresh = TableState(
        table=state.table,
        match_id=inp.match_id,
        seq=state.seq if same else 0,
        phase=Phase.WAITING,
        profile=inp.profile,
        # the same assignment delivered again (a reconnect, a restarted hub) keeps what the match
        # already has, e.g. lateness points awarded while waiting
        match=replace(state.match, length=inp.length)
        if same and state.match is not None
        else m.Match(length=inp.length),
        players=inp.players,
        round=inp.round,
        final=inp.final,
        start_wall=inp.start_wall,
        clock=clock,
        present=state.present if same else NOT_PRESENT,
        checked_in_at=state.checked_in_at if same else NONE_PAIR,
        assigned_at=state.assigned_at if same and state.assigned_at is not None else at,
        td_calls=state.td_calls if same else NOT_PRESENT,
        td_call=state.td_call if same else None,
        applied_cmds=state.applied_cmds if same else frozenset(),
        now=state.now,
        wall_anchor=state.wall_anchor,
    )
    if same and fresh.present.a and fresh.present.b:
        fresh = replace(fresh, phase=Phase.OPENING)
    return fresh, [{"type": EventType.ASSIGN, "length": inp.length, "profile": inp.profile.name}]


def on_checkin(state: TableState, inp: Checkin, at: int) -> Made:
    side = inp.side
    _check(legal.checkin_refusal(state, side))
    present = state.present.set(side, True)
    phase = state.phase
    if phase == Phase.WAITING and present.a and present.b:
        phase = Phase.OPENING
    late_ms = None
    wall = state.wall_at(at)
    if state.start_wall is not None and wall is not None:
        late_ms = max(0, wall - state.start_wall)
    event: CheckinBody = {"type": EventType.CHECKIN, "side": side, "late_ms": late_ms}
    clock = state.clock
    if (
        state.profile.lateness_clock_starts_at_round
        and clock.is_running()
        and clock.running == side
        and not state.present.of(other(side))
    ):
        # FFBG 9.3: with both players absent the TD started one clock; the first player to
        # arrive takes the other seat, so the clock that runs is the absent player's.
        clock = clock.start(other(side), at)
        event["clock_to"] = other(side)
    checked_in_at = state.checked_in_at.set(side, at)
    return replace(state, present=present, checked_in_at=checked_in_at, phase=phase, clock=clock), [event]


def on_opening_roll(state: TableState, inp: OpeningRoll, at: int) -> Made:
    _check(legal.opening_refusal(state))
    a, b = inp.a, inp.b
    match = _match(state)
    if a == b:
        return state, [{"type": EventType.OPENING_ROLL, "dice": [a, b], "tie": True}]
    events: list[Body] = []
    if match.pending_length is not None:
        pending = match.pending_length
        refusal = m.length_refusal(match, pending, at_once=False)
        if refusal:
            events.append(
                {
                    "type": EventType.LENGTH_REFUSED,
                    "length": pending,
                    "reason": refusal.message,
                    "code": refusal.code,
                }
            )
            match = replace(match, pending_length=None)
        else:
            events.append({"type": EventType.LENGTH_CHANGED, "length": pending})
            match = m.apply_length(match, pending)
    match = m.start_game(match)
    first: Side = "A" if a > b else "B"
    clock = state.clock.stop(at) if state.clock.enabled else state.clock
    new = replace(
        state,
        match=match,
        phase=Phase.PLAYING,
        clock=clock,
        turn=first,
        rolled=True,
        roll_attempted=True,
        dice=(a, b) if first == "A" else (b, a),
        opening_lower=other(first) if clock.enabled else None,
        undo=None,
        confirmed=NOT_PRESENT,
    )
    events.append(
        {
            "type": EventType.OPENING_ROLL,
            "dice": [a, b],
            "first": first,
            "game": match.game,
            "crawford": match.is_crawford_game(),
        }
    )
    return new, events


# -- the clock and the dice ---------------------------------------------------------------------


def on_press(state: TableState, inp: Press, at: int) -> Made:
    side = inp.side
    _check(legal.press_refusal(state, side))
    match = _match(state)
    clock = state.clock.press(side, at) if state.clock.enabled else state.clock
    turn = state.turn
    if not state.is_turn_known():
        turn = side  # the first press a scoreboard sees tells whose turn it was
    # a press ends the presser's turn, unless it is the doubler's press that hands the decision
    # to the opponent (the turn stays the doubler's until the answer)
    if side == turn and match.cube.offered_by != side:
        early = state.early_roll
        new = replace(
            state,
            clock=clock,
            opening_lower=None,
            turn=other(side),
            rolled=early is not None,
            roll_attempted=early is not None,
            dice=early,
            early_roll=None,
            presses_seen=True,
        )
    else:
        new = replace(state, clock=clock, opening_lower=None, presses_seen=True)
    return new, [{"type": _PRESS, "side": side}]


def on_roll(state: TableState, inp: Roll, at: int) -> Made:
    _check(legal.phase_refusal(state, legal.PLAYING))
    turn, premature = legal.roll_judgement(state)
    if premature is not None:
        return state, [
            {
                "type": _ROLL,
                "dice": list(inp.dice),
                "source": inp.source,
                "premature": True,
                "rejected": premature.message,
                "code": premature.code,
            }
        ]
    event: RollBody = {"type": _ROLL, "dice": list(inp.dice), "source": inp.source, "side": turn}
    if state.clock.enabled and (state.rolled or state.clock.running != state.turn):
        # HBF 4.1 v a, FFBG 5.14: a roll before the opponent finished counts
        event["premature"] = True
        if state.rolled:
            # the opponent's roll for the turn that comes next: it is theirs once the turn passes
            return replace(state, early_roll=inp.dice, rolls_seen=True), [event]
    new = replace(state, turn=turn, rolled=True, roll_attempted=True, dice=inp.dice, rolls_seen=True)
    return new, [event]


def on_invalid_roll(state: TableState, inp: InvalidRoll, at: int) -> Made:
    side = inp.side
    _check(legal.invalid_roll_refusal(state, side))
    clock = state.clock.restart_delay(side, at) if state.clock.enabled else state.clock
    # 4.4 ii, HU 0.16: an invalid roll is a roll attempt: no doubling for the rest of this turn. It is
    # the thrower's turn (``legal.invalid_roll_refusal`` judged whose throw it was); without a clock
    # or presses the dice mark the turns from now on, as a roll does.
    new = replace(
        state, clock=clock, turn=side, rolled=False, roll_attempted=True, dice=None, rolls_seen=True
    )
    return new, [{"type": EventType.INVALID_ROLL, "side": side}]


def on_premature_pickup(state: TableState, inp: PrematurePickup, at: int) -> Made:
    """4.1 v b: the offender lets their whole delay run on their next turn."""
    side = inp.side
    _check(legal.pickup_refusal(state, side))
    return replace(state, clock=state.clock.forfeit_next_delay(side)), [
        {"type": EventType.PREMATURE_PICKUP, "side": side}
    ]


def on_pause(state: TableState, inp: Pause, at: int) -> Made:
    side = inp.side
    if side is None:
        _check(legal.table_pause_refusal(state))
        return _pause(state, inp.reason, None, at)
    _check(legal.pause_refusal(state, side, inp.reason))
    if legal.pause_passes(state, side):
        # WBGF 4.4 iii: pausing the clock instead of answering a double is passing it.
        passed, events = on_pass(state, Pass(inp.at, inp.wall, side), at)
        notice: PauseBody = {"type": EventType.PAUSE, "side": side, "reason": inp.reason, "passes": True}
        return passed, [notice, *events]
    if inp.reason == PauseReason.BREAK:
        # 2.2 ii, 4.3 ii b: the clock paused for a player's break uses one of his breaks
        state = replace(state, breaks_used=state.breaks_used.set(side, state.breaks_used.of(side) + 1))
    return _pause(state, inp.reason, side, at)


def _pause(state: TableState, reason: PauseReason, side: Side | None, at: int) -> Made:
    clock = state.clock.pause(reason, at) if state.clock.enabled else state.clock
    new = replace(
        state, clock=clock, paused=reason, paused_by=side, phase=Phase.PAUSED, phase_before_pause=state.phase
    )
    event: PauseBody = {"type": EventType.PAUSE, "reason": reason}
    if side is not None:
        event["side"] = side
    return new, [event]


def on_resume(state: TableState, inp: Resume | ResumeCmd, at: int) -> Made:
    _check(legal.resume_refusal(state))
    clock = state.clock.resume(at)
    phase = state.phase_before_pause or Phase.PLAYING
    new = replace(state, clock=clock, paused=None, paused_by=None, phase=phase, phase_before_pause=None)
    return new, [{"type": EventType.RESUME}]


# -- the cube and results -----------------------------------------------------------------------


def _undo_point(state: TableState) -> UndoPoint:
    return UndoPoint(_match(state), state.phase, state.turn, state.rolled, state.roll_attempted)


def on_double(state: TableState, inp: Double, at: int) -> Made:
    return _double(state, inp.side, inp.value)


def _double(state: TableState, side: Side, value: int | None, *, forced: bool = False) -> Made:
    _check(legal.cube_refusal(state, side))
    timing = legal.double_timing(state, side)
    if isinstance(timing, RuleError):
        raise timing
    profile = state.profile
    crawford = profile.crawford_double != "refused"
    match2, corrected = m.offer_double(
        _match(state), side, profile.cube_limit(), profile.dead_cube, value, crawford
    )
    if timing is False and state.turn != side:
        # a scoreboard, or dice alone, learn the turn from the double: the doubler's, before rolling
        new = replace(
            state,
            match=match2,
            undo=_undo_point(state),
            turn=side,
            rolled=False,
            roll_attempted=False,
            dice=None,
        )
    else:
        new = replace(state, match=match2, undo=_undo_point(state))
    event: DoubleBody = {"type": EventType.DOUBLE, "side": side, "value": match2.cube.offered_value}
    if corrected is not None:
        event["corrected_from"] = corrected
    if match2.crawford_double_open and match2.is_crawford_game():
        # HU 7.5, FFBG 6.5: made in the Crawford game; the leader keeps or voids it
        event["crawford"] = True
    if forced:
        event["forced"] = True
    if timing is True:
        # 4.4 v: a double before the opponent finished stands; the opponent finishes the turn
        # knowing of it (and may still roll), then answers.
        event["premature"] = True
    return new, [event]


def on_take(state: TableState, inp: Take, at: int) -> Made:
    side = inp.side
    _check(legal.take_refusal(state, side))
    match2 = m.take(_match(state), side)
    if match2.crawford_double_open and state.profile.crawford_double == "leader_before_answer":
        # FFBG 6.10: "L'acceptation d'un videau ratifie la validité de celui-ci"
        match2 = replace(match2, crawford_double_open=False, crawford_kept=match2.cube)
    new = replace(state, match=match2, undo=_undo_point(state))
    return new, [{"type": EventType.TAKE, "side": side, "value": match2.cube.value}]


def on_pass(state: TableState, inp: Pass, at: int) -> Made:
    side = inp.side
    _check(legal.pass_refusal(state, side))
    match = _match(state)
    return _end_game(state, other(side), GAME_PASSED, match.cube.value, resigned=False, at=at)


def on_win(state: TableState, inp: Win, at: int) -> Made:
    _check(legal.win_refusal(state, inp.side))
    points = m.points_for(inp.kind, _match(state).cube.value)
    return _end_game(state, inp.side, inp.kind, points, resigned=False, at=at)


def on_resign(state: TableState, inp: Resign, at: int) -> Made:
    _check(legal.result_refusal(state))
    points = m.points_for(inp.kind, _match(state).cube.value)
    return _end_game(state, other(inp.side), inp.kind, points, resigned=True, at=at)


def _end_game(
    state: TableState, winner: Side, kind: ResultKind | str, points: int, *, resigned: bool, at: int
) -> Made:
    undo = _undo_point(state)
    match = m.end_game(_match(state), winner, kind, points, resigned=resigned, at=at, wall=state.wall_at(at))
    if match.crawford_double_open and (
        kind == GAME_PASSED or state.profile.crawford_double != "leader_until_next_game"
    ):
        # FFBG 6.5: the leader's choice comes before the score is marked; HU 7.5: a double the
        # leader took may be voided until the next game starts (a pass stands: nothing was taken)
        match = replace(match, crawford_double_open=False)
    clock = state.clock.stop(at) if state.clock.enabled else state.clock
    over = match.is_over()
    new = replace(
        state,
        match=match,
        clock=clock,
        phase=Phase.FINISHED if over else Phase.BETWEEN_GAMES,
        paused=None,
        paused_by=None,
        phase_before_pause=None,
        turn=None,
        rolled=False,
        roll_attempted=False,
        dice=None,
        early_roll=None,
        opening_lower=None,
        undo=undo,
        finished_at=at if over else None,
    )
    events: list[Body] = [
        {
            "type": EventType.GAME_OVER,
            "game": match.games[-1].game,
            "winner": winner,
            "kind": cast(GameKind, kind),
            "points": points,
            "cube": match.games[-1].cube,
            "resigned": resigned,
            "score": side_pair(match.score),
            "crawford_next": match.is_crawford_next() and not over,
        }
    ]
    if over:
        events.append(_match_over(match))
    return new, events


def on_undo(state: TableState, inp: Undo, at: int) -> Made:
    _check(legal.undo_refusal(state))
    point = state.undo
    assert point is not None
    new = replace(
        state,
        match=point.match,
        phase=point.phase,
        turn=point.turn,
        rolled=point.rolled,
        roll_attempted=point.roll_attempted,
        undo=None,
        confirmed=NOT_PRESENT,
        paused=None,
        paused_by=None,
        phase_before_pause=None,
    )
    if state.phase == Phase.PAUSED:
        # the clock stays paused: the restored phase is where play resumes
        new = replace(
            new,
            phase=Phase.PAUSED,
            paused=state.paused,
            paused_by=state.paused_by,
            phase_before_pause=point.phase,
        )
    return new, [{"type": EventType.UNDO, "score": side_pair(point.match.score)}]


def on_confirm(state: TableState, inp: Confirm, at: int) -> Made:
    """4.6: both players confirm the final score at the table."""
    _check(legal.confirm_refusal(state, inp.side))
    return replace(state, confirmed=state.confirmed.set(inp.side, True)), [
        {"type": EventType.CONFIRM, "side": inp.side}
    ]


# -- breaks, calls ------------------------------------------------------------------------------


def on_break(state: TableState, inp: Break, at: int) -> Made:
    side = inp.side
    _check(legal.break_refusal(state, side))
    used = state.breaks_used.of(side) + 1
    if legal.on_running_clock(state):
        # FFBG 10.1, 10.2, 11.14: never a clock pause for a break; the breaker's own clock runs.
        # A player who leaves while the other is away already leaves at his own risk: the clock
        # keeps charging whoever it charges (10.2).
        clock = state.clock
        someone_away = state.away.a or state.away.b
        if state.phase == Phase.BETWEEN_GAMES and not someone_away:
            clock = clock.start(side, at)
        new = replace(
            state, clock=clock, away=state.away.set(side, True), breaks_used=state.breaks_used.set(side, used)
        )
        return new, [{"type": EventType.BREAK, "side": side, "on_clock": True}]
    # 2.2 ii: a player may combine his own breaks: the allowance grows by one break each time
    start = state.break_until.of(side) if state.away.of(side) else None
    until = (start if start is not None else at) + break_ms(state.profile)
    new = replace(
        state,
        phase=Phase.BREAK if state.phase == Phase.BETWEEN_GAMES else state.phase,
        away=state.away.set(side, True),
        break_until=state.break_until.set(side, until),
        breaks_used=state.breaks_used.set(side, used),
    )
    event: BreakBody = {"type": EventType.BREAK, "side": side, "until_wall": state.wall_at(until)}
    if start is not None:
        event["combined"] = True
    return new, [event]


def on_return(state: TableState, inp: Return, at: int) -> Made:
    side = inp.side
    _check(legal.return_refusal(state, side))
    until = state.break_until.of(side)
    overrun = max(0, at - until) if until is not None else 0
    away = state.away.set(side, False)
    new = replace(state, away=away, break_until=state.break_until.set(side, None))
    if legal.on_running_clock(state) and state.phase == Phase.BETWEEN_GAMES:
        opponent = other(side)
        if away.of(opponent):
            # FFBG 10.2: back from the break, the opponent is not there: his clock runs now
            new = replace(new, clock=state.clock.start(opponent, at))
        else:
            new = replace(new, clock=state.clock.stop(at))
    if state.phase == Phase.BREAK and not (away.a or away.b):
        new = replace(new, phase=Phase.BETWEEN_GAMES)
    if state.phase == Phase.PAUSED and state.phase_before_pause == Phase.BREAK and not (away.a or away.b):
        new = replace(new, phase_before_pause=Phase.BETWEEN_GAMES)
    return new, [{"type": EventType.RETURN, "side": side, "overrun_ms": overrun}]


def on_call_td(state: TableState, inp: CallTd, at: int) -> Made:
    side = inp.side
    _check(legal.call_refusal(state, side))
    return replace(state, td_call=side, td_calls=state.td_calls.set(side, True)), [
        {"type": EventType.CALL_TD, "side": side}
    ]


def on_withdraw_call(state: TableState, inp: WithdrawCall, at: int) -> Made:
    side = inp.side
    _check(legal.withdraw_refusal(state, side))
    calls = state.td_calls.set(side, False)
    last = state.td_call if state.td_call != side else (other(side) if calls.of(other(side)) else None)
    return replace(state, td_call=last, td_calls=calls), [{"type": EventType.WITHDRAW_CALL, "side": side}]


def on_tick(state: TableState, inp: Tick, at: int) -> Made:
    return state, []


# -- hub / TD commands (docs/protocol.md §3.4) ----------------------------------------------------


def _cmd_done(inp: dict[str, Any], *, ok: bool, error: RuleError | None = None) -> CmdDoneBody:
    event: CmdDoneBody = {
        "type": EventType.CMD_DONE,
        "id": _echo(inp.get("id")),
        "cmd": _echo(inp.get("type")),
        "ok": ok,
        "error": clip(error.message) if error is not None else None,
    }
    if error is not None:
        event["code"] = error.code
    return event


def _echo(value: Any) -> Any:
    """A command's field quoted back in its answer, never larger than ``MAX_TEXT``."""
    if value is None or isinstance(value, bool | int):
        return value
    return clip(str.__str__(value) if isinstance(value, str) else repr(value))


def on_cmd(state: TableState, inp: Cmd, at: int) -> Made:
    raw = {"id": inp.id, "type": inp.type}
    if inp.id in state.applied_cmds:
        done = _cmd_done(raw, ok=True)
        done["duplicate"] = True
        return state, [done]
    wall = state.wall_at(at)
    if inp.expires_wall is not None and wall is not None and wall > inp.expires_wall:
        raise RuleError("cmd.expired")
    _check(legal.command_refusal(state, inp.command, inp.id))
    new, events = _COMMAND_DISPATCH[type(inp.command)](state, inp.command, inp)
    new = replace(new, applied_cmds=new.applied_cmds | {inp.id})
    if inp.type in SCORE_COMMANDS:
        # the table's undo must never take back a TD decision made after the entry it restores
        new = replace(new, undo=None)
    return new, [*events, _cmd_done(raw, ok=True)]


#: commands that change the match record (score, length, result): they end the table's undo
SCORE_COMMANDS = frozenset(
    {
        CommandType.PENALTY,
        CommandType.FORFEIT,
        CommandType.WAIVE,
        CommandType.SET_LENGTH,
        CommandType.CORRECT_SCORE,
        CommandType.RESOLVE_FLAG,
        CommandType.FORCE_DOUBLE,
        CommandType.CRAWFORD_DOUBLE,
        CommandType.DOUBLE_LOSS,
    }
)


def _end_match(state: TableState, match: m.Match, cmd_id: str, at: int) -> TableState:
    """A TD command ends the match: what play was (phase, pause, clock) is kept for a waiver."""
    settled = state.clock.settle(at) if state.clock.enabled else None
    clock = settled.stop(at) if settled is not None else state.clock
    # the phase play goes back to if the decision is taken back (and the pause, kept apart)
    phase = state.phase_before_pause if state.phase == Phase.PAUSED else state.phase
    before = EndPoint(
        phase=phase or Phase.BETWEEN_GAMES,
        in_game=state.match is not None and state.match.in_game,
        clock=settled,
        paused=state.paused,
        paused_by=state.paused_by,
    )
    return replace(
        state,
        match=match,
        clock=clock,
        phase=Phase.FINISHED,
        ended_by=cmd_id,
        before_end=before,
        paused=None,
        paused_by=None,
        finished_at=at,
    )


def _reopen(state: TableState, match: m.Match, at: int) -> TableState:
    """A result taken back by the TD: play continues where the match was ended.

    Ended by a TD's command (a forfeit, the point that made one), the table is as it was the
    moment before (2.2 iii): the same phase, the clock running for the side it ran for with the
    delay that side had left, a pause that stood stands again. The reserves are those the clock
    kept (frozen at the end, or as a TD set them since): the time between the decision and its
    undoing is nobody's."""
    before = state.before_end if state.ended_by is not None else None
    phase = before.phase if before is not None else Phase.BETWEEN_GAMES
    in_game = before.in_game if before is not None else False
    clock, paused, paused_by, phase_before_pause = state.clock, None, None, state.phase_before_pause
    if before is not None and before.clock is not None:
        was = before.clock
        clock = replace(
            state.clock, running=was.running, delay_left=was.delay_left, paused=was.paused, since=at
        )
    if before is not None and before.paused is not None:
        paused, paused_by, phase_before_pause = before.paused, before.paused_by, phase
        phase = Phase.PAUSED
    return replace(
        state,
        match=replace(match, winner=None, end_reason=None, in_game=in_game, decision=None),
        clock=clock,
        phase=phase,
        paused=paused,
        paused_by=paused_by,
        phase_before_pause=phase_before_pause,
        ended_by=None,
        before_end=None,
        finished_at=None,
        confirmed=NOT_PRESENT,
    )


def _lateness_forfeit(match: m.Match, against: Side) -> bool:
    """2.2 iv: lateness and break-overrun points together past half the length forfeit the match."""
    return is_lateness_forfeit(match.length, match.lateness_points(against))


def cmd_penalty(state: TableState, cmd: PenaltyCmd, inp: Cmd) -> Made:
    match = _match(state)
    penalty = m.Penalty(id=inp.id, against=cmd.against, points=cmd.points, reason=cmd.reason)
    match2 = m.add_penalty(match, penalty)
    events: list[Body] = [
        {
            "type": EventType.PENALTY,
            "id": penalty.id,
            "against": cmd.against,
            "points": cmd.points,
            "reason": cmd.reason,
            "score": side_pair(match2.score),
        }
    ]
    if not match2.is_over() and cmd.reason in LATENESS_REASONS and _lateness_forfeit(match2, cmd.against):
        match2 = replace(match2, winner=other(cmd.against), end_reason=EndReason.LATENESS, in_game=False)
    if match2.is_over():
        events.append(_match_over(match2))
        return _end_match(state, match2, penalty.id, inp.at), events
    return replace(state, match=match2), events


def cmd_forfeit(state: TableState, cmd: ForfeitCmd, inp: Cmd) -> Made:
    match = _match(state)
    late = cmd.reason in LATENESS_REASONS or cmd.reason == EndReason.LATENESS
    reason = EndReason.LATENESS if late else EndReason.FORFEIT
    match2 = replace(
        match, winner=other(cmd.against), end_reason=reason, in_game=False, decision=CommandType.FORFEIT
    )
    return _end_match(state, match2, inp.id, inp.at), [_match_over(match2)]


def cmd_waive(state: TableState, cmd: WaiveCmd, inp: Cmd) -> Made:
    match = _match(state)
    reopen = state.phase == Phase.FINISHED and state.ended_by is not None
    points = 0
    if any(p.id == cmd.penalty_id for p in match.penalty_log):
        match, penalty = m.waive_penalty(match, cmd.penalty_id)
        points = penalty.points
    event: WaiveBody = {"type": EventType.WAIVE, "penalty_id": cmd.penalty_id, "points": points}
    if reopen and _waiver_reopens(state, match, cmd.penalty_id):
        event["reopened"] = True
        return _reopen(state, match, inp.at), [event]
    return replace(state, match=match), [event]


def _waiver_reopens(state: TableState, match: m.Match, penalty_id: str) -> bool:
    """2.2 iii: waiving the penalty that ended the match, or one without which it would not have
    ended, reopens it; a forfeit or time decision stands unless it is itself waived."""
    if penalty_id == state.ended_by:
        return True
    if match.end_reason == EndReason.POINTS:
        return max(match.score.a, match.score.b) < match.length
    ended_by_penalty = any(p.id == state.ended_by for p in match.penalty_log)
    if match.end_reason == EndReason.LATENESS and ended_by_penalty and match.winner is not None:
        return not _lateness_forfeit(match, other(match.winner))
    return False


def cmd_start_clock(state: TableState, cmd: StartClockCmd, inp: Cmd) -> Made:
    """2.2 iv (WBGF alternative), FFBG 9.3: the late player's clock runs."""
    return replace(state, clock=state.clock.start(cmd.side, inp.at)), [
        {"type": EventType.START_CLOCK, "side": cmd.side}
    ]


def cmd_pause(state: TableState, cmd: PauseCmd, inp: Cmd) -> Made:
    return _pause(state, cmd.reason, None, inp.at)


def cmd_resume(state: TableState, cmd: ResumeCmd, inp: Cmd) -> Made:
    return on_resume(state, cmd, inp.at)


def cmd_set_time(state: TableState, cmd: SetTimeCmd, inp: Cmd) -> Made:
    at = inp.at
    clock = state.clock.set_reserve(cmd.reserve_ms, at)
    new = replace(state, clock=clock)
    if state.phase == Phase.FLAG:
        # 4.3 iv: time run by mistake restored; the match goes on once the TD resumes.
        flagged = state.clock.flagged
        clock = replace(clock, running=flagged, paused=PauseReason.TD, delay_left=0)
        new = replace(
            new,
            clock=clock,
            phase=Phase.PAUSED,
            paused=PauseReason.TD,
            paused_by=None,
            phase_before_pause=Phase.PLAYING,
        )
    return new, [{"type": EventType.SET_TIME, "reserve_ms": side_pair(cmd.reserve_ms)}]


def cmd_impose_clock(state: TableState, cmd: ImposeClockCmd, inp: Cmd) -> Made:
    """2.3 / 3.5 vi: a clock for the rest of the match, mpp × (RA + RB) / 2 each."""
    match = _match(state)
    reserve = imposed_reserve_ms(cmd.minutes_per_point, match.away("A"), match.away("B"))
    clock = new_clock(reserve, cmd.delay_s * 1000)
    paused = clock if state.phase != Phase.PAUSED else replace(clock, paused=state.paused)
    return replace(state, clock=paused, opening_lower=None), [
        {"type": EventType.IMPOSE_CLOCK, "reserve_ms": reserve, "delay_ms": cmd.delay_s * 1000}
    ]


def cmd_set_length(state: TableState, cmd: SetLengthCmd, inp: Cmd) -> Made:
    """A wrong match length: at the next game's start (WBGF/HBF 4.8) or at once (HU 4.3, FFBG 4.5)."""
    match = _match(state)
    note = m.Correction("length", str(match.length), str(cmd.length), cmd.note, inp.at, inp.id)
    match = replace(match, corrections=(*match.corrections, note))
    at_once = state.profile.length_correction == "at_once"
    if match.in_game and not at_once:
        match = replace(match, pending_length=cmd.length)
        return replace(state, match=match), [
            {"type": EventType.SET_LENGTH, "length": cmd.length, "pending": True}
        ]
    was_crawford = match.crawford_game
    match = m.apply_length(match, cmd.length)
    event: SetLengthBody = {"type": EventType.SET_LENGTH, "length": cmd.length, "pending": False}
    if match.crawford_game != was_crawford:
        event["crawford_game"] = match.crawford_game
        if match.is_crawford_game():
            # the game in progress became the Crawford game: a cube turned before stays (only a
            # double made from now on is one the leader may void)
            match = replace(match, crawford_kept=replace(match.cube, offered_by=None, offered_value=None))
    if match.is_over():
        # HU 4.3, FFBG 4.5: the length in force is reached: the match is won
        return _end_match(state, match, inp.id, inp.at), [event, _match_over(match)]
    return replace(state, match=match), [event]


def cmd_correct_score(state: TableState, cmd: CorrectScoreCmd, inp: Cmd) -> Made:
    """4.7: a wrong score is corrected (an impossible one is refused first: ``legal``).

    How the match ended stays in ``end_reason`` (a score that reaches the length ends it by
    points); that the TD decided is recorded beside it, in ``decision``."""
    match = _match(state)
    score = cmd.score
    before = f"{match.score.a}-{match.score.b}"
    note = m.Correction("score", before, f"{score.a}-{score.b}", cmd.note, inp.at, inp.id)
    match = replace(match, score=score, corrections=(*match.corrections, note))
    corrected: CorrectScoreBody = {
        "type": EventType.CORRECT_SCORE,
        "score": side_pair(score),
        "before": before,
        "note": cmd.note,
    }
    events: list[Body] = [corrected]
    # at most one side: both at the length is refused (score.both_reached)
    reached = next((s for s in SIDES if score.of(s) >= match.length), None)
    decided = CommandType.CORRECT_SCORE
    if state.phase == Phase.FINISHED:
        if reached is not None:
            if match.winner != reached:
                match = replace(match, winner=reached, end_reason=EndReason.POINTS, decision=decided)
                events.append(_match_over(match))
            else:
                match = replace(match, decision=decided)
            return replace(state, match=match), events
        if match.end_reason in (EndReason.POINTS, EndReason.TD):
            # 4.6 / 4.7: a wrong final score is corrected and the match goes on
            corrected["reopened"] = True
            return _reopen(state, match, inp.at), events
        # a forfeit, lateness or time decision stands; only the record is corrected
        return replace(state, match=replace(match, decision=decided)), events
    if reached is not None:
        match = replace(match, winner=reached, end_reason=EndReason.POINTS, in_game=False, decision=decided)
        events.append(_match_over(match))
        return _end_match(state, match, inp.id, inp.at), events
    return replace(state, match=match), events


def cmd_resolve_flag(state: TableState, cmd: ResolveFlagCmd, inp: Cmd) -> Made:
    match = replace(
        _match(state),
        winner=cmd.winner,
        end_reason=EndReason.TIME,
        in_game=False,
        decision=CommandType.RESOLVE_FLAG,
    )
    new = replace(
        state, match=match, phase=Phase.FINISHED, td_call=None, td_calls=NOT_PRESENT, finished_at=inp.at
    )
    return new, [{"type": EventType.RESOLVE_FLAG, "winner": cmd.winner}, _match_over(match)]


def cmd_td_ack(state: TableState, cmd: TdAckCmd, inp: Cmd) -> Made:
    return replace(state, td_call=None, td_calls=NOT_PRESENT), [{"type": EventType.TD_ACK}]


def cmd_forbid_double(state: TableState, cmd: ForbidDoubleCmd, inp: Cmd) -> Made:
    """HU 7.9: the player who touched the cube without doubling may not double for the rest of
    the game (``double.forbidden``); the next game frees him."""
    match = _match(state)
    match = replace(match, double_forbidden=match.double_forbidden.set(cmd.side, True))
    return replace(state, match=match), [{"type": EventType.FORBID_DOUBLE, "side": cmd.side}]


def cmd_force_double(state: TableState, cmd: ForceDoubleCmd, inp: Cmd) -> Made:
    """FFBG 6.8: handling the cube obliges the player to double: the TD enters that double, which
    the opponent then answers as any other (the event ``double`` carries ``forced``)."""
    new, events = _double(state, cmd.side, None, forced=True)
    return new, [{"type": EventType.FORCE_DOUBLE, "side": cmd.side}, *events]


def cmd_crawford_double(state: TableState, cmd: CrawfordDoubleCmd, inp: Cmd) -> Made:
    """HU 7.5, FFBG 6.5: the match leader keeps or voids the double(s) made in the Crawford game.

    Voided during the game, the cube goes back to what the leader kept (the Crawford game starts
    with a centred cube, and every double in it is one the rule forbids: so at 1 unless the leader
    kept one before) and any offer is withdrawn; the doubler's turn goes on. Voided after the game
    (HU: until the next game starts), the game is scored again at that cube, and a match that this
    ended is reopened."""
    match = _match(state)
    event: CrawfordDoubleBody = {"type": EventType.CRAWFORD_DOUBLE, "choice": cmd.choice}
    cube = match.cube
    if cmd.choice == CrawfordChoice.KEEP:
        kept = cube
        if cube.offered_by is not None:
            # the double stands; the opponent still answers it (a pass ends the game at once)
            kept = m.Cube(value=cube.offered_value or cube.value * 2, owner=other(cube.offered_by))
        elif not match.in_game and match.games:
            kept = m.Cube(value=match.games[-1].cube)
        match = replace(match, crawford_double_open=False, crawford_kept=replace(kept, offered_by=None))
        return replace(state, match=match), [event]
    kept = match.crawford_kept
    if match.in_game:
        match = replace(match, cube=kept, crawford_double_open=False)
        event["value"] = kept.value
        return replace(state, match=match), [event]
    last = match.games[-1]
    points = m.points_for(ResultKind(last.kind), kept.value)
    score = match.score.set(last.winner, match.score.of(last.winner) - (last.points - points))
    record = replace(last, cube=kept.value, points=points)
    match = replace(match, games=(*match.games[:-1], record), score=score, crawford_double_open=False)
    event["game"] = last.game
    event["value"] = kept.value
    event["points"] = points
    event["score"] = side_pair(score)
    if state.phase == Phase.FINISHED and max(score.a, score.b) < match.length:
        event["reopened"] = True
        return _reopen(state, match, inp.at), [event]
    return replace(state, match=match), [event]


def cmd_double_loss(state: TableState, cmd: DoubleLossCmd, inp: Cmd) -> Made:
    """FFBG 10.3: a table abandoned by both players on a neutralised clock: the sanction can make
    both players lose the match, "auquel cas les deux joueurs marquent 0 point": the match ends
    with no winner (``end_reason`` ``double_loss``); the score stays as played."""
    match = replace(_match(state), winner=None, end_reason=EndReason.DOUBLE_LOSS, in_game=False)
    event: DoubleLossBody = {"type": EventType.DOUBLE_LOSS, "note": cmd.note}
    new = _end_match(state, match, inp.id, inp.at)
    if state.phase == Phase.FLAG:
        new = replace(new, td_call=None, td_calls=NOT_PRESENT)
    return new, [event, _match_over(match)]


Handler = Callable[[TableState, Any, int], Made]
CommandHandler = Callable[[TableState, Any, Cmd], Made]

#: one handler per input class (the parser has turned the JSON into one of them)
_DISPATCH: dict[type, Handler] = {
    Assign: on_assign,
    Checkin: on_checkin,
    OpeningRoll: on_opening_roll,
    Press: on_press,
    Roll: on_roll,
    InvalidRoll: on_invalid_roll,
    Double: on_double,
    Take: on_take,
    Pass: on_pass,
    Win: on_win,
    Resign: on_resign,
    Pause: on_pause,
    Resume: on_resume,
    Break: on_break,
    Return: on_return,
    CallTd: on_call_td,
    WithdrawCall: on_withdraw_call,
    Undo: on_undo,
    Confirm: on_confirm,
    PrematurePickup: on_premature_pickup,
    Cmd: on_cmd,
    Tick: on_tick,
}

_COMMAND_DISPATCH: dict[type, CommandHandler] = {
    PenaltyCmd: cmd_penalty,
    ForfeitCmd: cmd_forfeit,
    WaiveCmd: cmd_waive,
    StartClockCmd: cmd_start_clock,
    PauseCmd: cmd_pause,
    ResumeCmd: cmd_resume,
    SetTimeCmd: cmd_set_time,
    ImposeClockCmd: cmd_impose_clock,
    SetLengthCmd: cmd_set_length,
    CorrectScoreCmd: cmd_correct_score,
    ResolveFlagCmd: cmd_resolve_flag,
    TdAckCmd: cmd_td_ack,
    ForbidDoubleCmd: cmd_forbid_double,
    ForceDoubleCmd: cmd_force_double,
    CrawfordDoubleCmd: cmd_crawford_double,
    DoubleLossCmd: cmd_double_loss,
}

#: the handler of each input and command by its name (what a reader asks: "does this table take
#: a ``withdraw_call``?")
HANDLERS: dict[str, Handler] = {INPUT_TYPES[cls]: h for cls, h in _DISPATCH.items()}
COMMANDS: dict[str, CommandHandler] = {COMMAND_TYPES[cls]: h for cls, h in _COMMAND_DISPATCH.items()}

# every input and command of the vocabulary has its handler (checked at import, cheaply)
assert set(HANDLERS) == set(InputType) and set(COMMANDS) == set(CommandType)
