"""The table reducer: ``apply(state, input) -> (state, events)`` over PROTOCOL.md §1's inputs.

This is the only place the rules run. The kiosk applies each journaled input here live, on
restart it replays the journal through the same function, and ``bgtable replay`` does the same
offline. An input the rules forbid leaves the state unchanged (time still advances, so a flag
that fell is still seen) and yields an event carrying ``rejected`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulebook import match as m
from rulebook.clock import Clock, imposed_reserve_ms, new_clock
from rulebook.errors import ProfileError, RuleError
from rulebook.fastreplace import replace
from rulebook.inputs import (
    dice_field,
    die,
    int_field,
    number_field,
    side_field,
    side_map,
    str_field,
)
from rulebook.policy import break_ms, breaks_allowed, is_lateness_forfeit
from rulebook.profiles import Profile, get_profile
from rulebook.sides import Pair, Side, other

MAX_LENGTH = 99
#: upper bound of a second time bank (3.5 v), in minutes
MAX_BANK_MIN = 600
NOT_PRESENT = Pair(False, False)
NONE_PAIR: Pair[int | None] = Pair(None, None)


@dataclass(frozen=True, slots=True)
class UndoPoint:
    """What an ``undo`` restores: the state of play before the last score or cube entry."""

    match: m.Match
    phase: str
    turn: Side | None
    rolled: bool
    roll_attempted: bool


@dataclass(frozen=True, slots=True)
class TableState:
    table: str = ""
    match_id: str | None = None
    seq: int = 0
    phase: str = "waiting"
    profile: Profile = get_profile()
    match: m.Match | None = None
    players: Pair[tuple[str, str]] = Pair(("", ""), ("", ""))
    round: str | None = None
    final: bool = False
    start_wall: int | None = None
    clock: Clock = Clock()
    present: Pair[bool] = NOT_PRESENT
    breaks_used: Pair[int] = Pair(0, 0)
    #: while on break: the monotonic instant the break ends
    break_until: Pair[int | None] = NONE_PAIR
    #: player away on a break (also ffbg-cdf breaks on the running clock)
    away: Pair[bool] = NOT_PRESENT
    #: the side to roll / move this turn
    turn: Side | None = None
    rolled: bool = False
    #: a roll was attempted this turn (after which doubling is no longer allowed, 4.4 ii)
    roll_attempted: bool = False
    dice: tuple[int, int] | None = None
    #: with a clock, the lower opening roller who must start the opponent's clock
    opening_lower: Side | None = None
    paused: str | None = None
    phase_before_pause: str | None = None
    #: the command that ended the match (a waiver of it reopens the match)
    ended_by: str | None = None
    phase_before_end: str | None = None
    #: whether a game was in progress when that command ended the match (restored on reopening)
    in_game_before_end: bool = False
    td_call: Side | None = None
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

    def can_double(self, side: Side) -> bool:
        """Whether ``side`` may double now (``cube.usable`` of the snapshot)."""
        return self._double_refusal(side) is None

    def _double_refusal(self, side: Side) -> str | None:
        match = self.match
        if match is None or self.phase != "playing":
            return "no game in progress"
        refusal = match.double_refusal(side, self.profile.max_cube, self.profile.dead_cube)
        if refusal:
            return refusal
        if self.turn is not None:
            if self.turn != side and not self.clock.enabled and self.rolled:
                # Without a clock nothing marks the end of a turn: once the opponent has rolled,
                # the next turn is this player's (a premature double stands, 4.4 v).
                return None
            if self.turn != side:
                return "only the player on turn may double (4.4 ii)"
            if self.roll_attempted:
                return "doubling must come before any roll attempt (4.4 ii)"
            if self.clock.enabled and self.clock.running not in (None, side):
                return "wait for the opponent to finish the turn (press the clock)"
        return None


def new_table(table: str = "") -> TableState:
    return TableState(table=table)


Handler = Callable[[TableState, dict[str, Any], int], tuple[TableState, list[dict[str, Any]]]]


# -- the reducer --------------------------------------------------------------------------------


def apply(state: TableState, inp: Any) -> tuple[TableState, list[dict[str, Any]]]:
    """Apply one journal input. Never raises: bad input becomes a rejected event."""
    if not isinstance(inp, dict):
        return _emit(state, [{"type": "invalid", "rejected": "an input is a JSON object"}], state.now)
    kind = inp.get("input")
    at = inp.get("at")
    label = kind if isinstance(kind, str) else "invalid"
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        reason = clip(f"at: expected ms >= 0, got {at!r}")
        return _emit(state, [{"type": clip(label, MAX_LABEL), "rejected": reason}], state.now)
    if at < state.now:
        reason = f"at: time went backwards ({at} < {state.now})"
        return _emit(state, [{"type": clip(label, MAX_LABEL), "rejected": reason}], state.now)
    wall = inp.get("wall")
    if isinstance(wall, int) and not isinstance(wall, bool) and wall > 0:
        state = replace(state, wall_anchor=(at, wall))
    # Handlers get the time as ``at``; ``state.now`` becomes ``at`` when the events are stamped
    # (one copy of the state per input instead of two: the reducer's hot path).
    state, events = _advance(state, at)
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        events.append({"type": clip(label, MAX_LABEL), "rejected": clip(f"unknown input {kind!r}")})
        return _emit(state, events, at)
    try:
        state_after, more = handler(state, inp, at)
    except RuleError as exc:
        return _emit(state, [*events, _rejection(label, inp, str(exc))], at)
    except Exception as exc:  # a table must never stop on a bad input (PROTOCOL §1)
        reason = f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}"
        return _emit(state, [*events, _rejection(label, inp, reason)], at)
    return _emit(state_after, events + more, at)


#: prefix of the reason given when an input hit a fault in the reducer itself (tests look for it)
INTERNAL_ERROR = "internal error"

#: the longest free text kept in the state or an event (reasons quote inputs; a hostile or broken
#: input must not make every later event or snapshot too big to publish)
MAX_TEXT = 300
#: the longest label kept for a pause or penalty reason
MAX_LABEL = 64


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rejection(label: str, inp: dict[str, Any], reason: str) -> dict[str, Any]:
    if label == "cmd":
        return _cmd_done(inp, ok=False, error=clip(reason))
    return {"type": clip(label, MAX_LABEL), "rejected": clip(reason)}


def _emit(state: TableState, events: list[dict[str, Any]], at: int) -> tuple[TableState, list[dict]]:
    """Number the events (per-match ``seq``), stamp them with the match and time; ``now`` = ``at``."""
    if not events:
        return (state if state.now == at else replace(state, now=at)), events
    seq = state.seq
    wall = state.wall_at(at)
    for event in events:
        seq += 1
        event["seq"] = seq
        event["match_id"] = state.match_id
        event["at"] = event.get("at", at)
        event["wall"] = wall
    return replace(state, seq=seq, now=at), events


def _advance(state: TableState, at: int) -> tuple[TableState, list[dict[str, Any]]]:
    """Let time run to ``at``: a reserve that reached zero flags at the exact instant."""
    flag_at = state.clock.flag_time()
    if flag_at is None or flag_at > at:
        return state, []
    clock = state.clock.settle(at)
    if clock.flagged is None:
        return replace(state, clock=clock), []
    side = clock.flagged
    event = {"type": "flag", "side": side, "at": clock.flagged_at}
    # a time-out is not a score entry: what came before it can no longer be undone at the table
    if state.profile.gin_exception:
        return replace(state, clock=clock, phase="flag", td_call=side, undo=None), [event]
    assert state.match is not None
    match = replace(state.match, winner=other(side), end_reason="time", in_game=False)
    return replace(state, clock=clock, match=match, phase="finished", undo=None), [
        event,
        _match_over(match),
    ]


def _match_over(match: m.Match) -> dict[str, Any]:
    return {
        "type": "match_over",
        "winner": match.winner,
        "end_reason": match.end_reason,
        "score": match.score.as_dict(),
    }


def _require_match(state: TableState) -> m.Match:
    if state.match is None:
        raise RuleError("no match assigned to this table")
    if state.phase == "flag":
        raise RuleError("time expired: waiting for the TD's decision")
    if state.match.is_over():
        raise RuleError("the match is over")
    return state.match


def _require_phase(state: TableState, *phases: str) -> m.Match:
    match = _require_match(state)
    if state.phase not in phases:
        if state.phase == "paused":
            raise RuleError(f"the clock is paused ({state.paused})")
        raise RuleError(f"not possible in phase {state.phase}")
    return match


# -- set-up and arrival -------------------------------------------------------------------------


def _clock_for(profile: Profile, length: int, setting: Any) -> Clock:
    if setting is False or setting is None:
        return Clock()
    if setting is True:
        return new_clock(profile.reserve_ms(length), profile.delay_s * 1000)
    if isinstance(setting, dict):
        mpp = number_field(setting, "minutes_per_point", 0.1, 60)
        delay = int_field(setting, "delay_s", 0, 120)
        bank2 = setting.get("second_bank_minutes", 0)
        if not isinstance(bank2, int | float) or isinstance(bank2, bool) or not 0 <= bank2 <= MAX_BANK_MIN:
            raise RuleError(f"second_bank_minutes: expected minutes from 0 to {MAX_BANK_MIN}, got {bank2!r}")
        return new_clock(profile.reserve_ms(length, mpp), delay * 1000, round(bank2 * 60_000))
    raise RuleError(f"clock: expected false, true or {{minutes_per_point, delay_s}}, got {setting!r}")


def _players(inp: dict[str, Any]) -> Pair[tuple[str, str]]:
    players = inp.get("players")
    if not isinstance(players, dict):
        raise RuleError('players: expected {"A": {name, id}, "B": {name, id}}')
    out = []
    for side in ("A", "B"):
        p = players.get(side)
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            raise RuleError(f"players.{side}: expected {{name, id}}")
        out.append((p["name"], str(p.get("id", ""))))
    return Pair(out[0], out[1])


def on_assign(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    match_id = str_field(inp, "match_id")
    length = int_field(inp, "length", 1, MAX_LENGTH)
    players = _players(inp)
    profile_name = inp.get("profile")
    if profile_name is not None and not isinstance(profile_name, str):
        raise RuleError(f"profile: expected a profile name, got {profile_name!r}")
    try:
        profile = get_profile(profile_name)
    except ProfileError as exc:
        raise RuleError(str(exc)) from None
    clock_setting = inp.get("clock", profile.clock_default)
    clock = _clock_for(profile, length, clock_setting)
    start_wall = inp.get("start_wall")
    if start_wall is not None and (not isinstance(start_wall, int) or isinstance(start_wall, bool)):
        raise RuleError(f"start_wall: expected epoch ms, got {start_wall!r}")
    same = match_id == state.match_id
    if same and state.phase != "waiting":
        return state, [{"type": "assign", "duplicate": True}]
    unfinished = state.match is not None and not state.match.is_over()
    if unfinished and not same and not inp.get("force"):
        raise RuleError(f"match {state.match_id} is still in progress (assign with force to replace)")
    fresh = TableState(
        table=state.table,
        match_id=match_id,
        seq=state.seq if same else 0,
        phase="waiting",
        profile=profile,
        # the same assignment delivered again (a reconnect, a restarted hub) keeps what the match
        # already has, e.g. lateness points awarded while waiting
        match=replace(state.match, length=length)
        if same and state.match is not None
        else m.Match(length=length),
        players=players,
        round=str(inp["round"]) if inp.get("round") is not None else None,
        final=bool(inp.get("final", False)),
        start_wall=start_wall,
        clock=clock,
        present=state.present if same else NOT_PRESENT,
        applied_cmds=state.applied_cmds if same else frozenset(),
        now=state.now,
        wall_anchor=state.wall_anchor,
    )
    if same and fresh.present.a and fresh.present.b:
        fresh = replace(fresh, phase="opening")
    return fresh, [{"type": "assign", "length": length, "profile": profile.name}]


def on_checkin(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    _require_match(state)
    if state.present.of(side):
        raise RuleError(f"{side} has already checked in")
    present = state.present.set(side, True)
    phase = state.phase
    if phase == "waiting" and present.a and present.b:
        phase = "opening"
    late_ms = None
    wall = state.wall_at(at)
    if state.start_wall is not None and wall is not None:
        late_ms = max(0, wall - state.start_wall)
    return replace(state, present=present, phase=phase), [
        {"type": "checkin", "side": side, "late_ms": late_ms}
    ]


def on_opening_roll(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    match = _require_phase(state, "opening", "between_games")
    a, b = die(inp.get("A"), "A"), die(inp.get("B"), "B")
    if not (state.present.a and state.present.b):
        missing = "A" if not state.present.a else "B"
        raise RuleError(f"{missing} has not checked in")
    if a == b:
        return state, [{"type": "opening_roll", "dice": [a, b], "tie": True}]
    events: list[dict[str, Any]] = []
    if match.pending_length is not None:
        refusal = m.length_refusal(match, match.pending_length)
        if refusal:
            events.append({"type": "length_refused", "length": match.pending_length, "reason": refusal})
            match = replace(match, pending_length=None)
        else:
            events.append({"type": "length_changed", "length": match.pending_length})
    match = m.start_game(match)
    first: Side = "A" if a > b else "B"
    clock = state.clock.stop(at) if state.clock.enabled else state.clock
    new = replace(
        state,
        match=match,
        phase="playing",
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
            "type": "opening_roll",
            "dice": [a, b],
            "first": first,
            "game": match.game,
            "crawford": match.is_crawford_game(),
        }
    )
    return new, events


# -- the clock ----------------------------------------------------------------------------------


def on_press(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _require_phase(state, "playing")
    clock = state.clock
    if clock.enabled:
        if clock.running is None:
            if state.opening_lower is not None and side != state.opening_lower:
                raise RuleError(f"{state.opening_lower} (the lower opening roll) starts the clock")
        elif clock.running != side:
            raise RuleError(f"it is {clock.running}'s clock that runs")
        clock = clock.press(side, at)
    elif state.turn is not None and side != state.turn and match.cube.offered_by is None:
        raise RuleError(f"it is {state.turn}'s turn")
    if side == state.turn and match.cube.offered_by is None:
        new = replace(
            state,
            clock=clock,
            opening_lower=None,
            turn=other(side),
            rolled=False,
            roll_attempted=False,
            dice=None,
        )
    else:
        new = replace(state, clock=clock, opening_lower=None)
    return new, [{"type": "press", "side": side}]


def on_roll(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    match = _require_phase(state, "playing")
    dice = dice_field(inp)
    source = inp.get("source", "manual")
    if source not in ("tower", "manual"):
        raise RuleError(f"source: expected tower or manual, got {source!r}")
    turn = state.turn
    premature = None
    if match.cube.offered_by is None and _roll_passes_turn(state):
        turn = other(state.turn)  # type: ignore[arg-type]
        state = replace(state, turn=turn, rolled=False, roll_attempted=False)
    if match.cube.offered_by is not None:
        premature = "a double is waiting for take or pass"
    elif state.rolled and turn is not None:
        premature = f"premature roll: {turn} has not finished the turn (4.1 v a)"
    elif state.clock.enabled and turn is not None and state.clock.running != turn:
        premature = f"premature roll: {turn}'s clock is not running yet"
    if premature:
        return state, [
            {
                "type": "roll",
                "dice": list(dice),
                "source": source,
                "premature": True,
                "rejected": premature,
            }
        ]
    new = replace(state, rolled=True, roll_attempted=True, dice=dice)
    return new, [{"type": "roll", "dice": list(dice), "source": source, "side": turn}]


def _roll_passes_turn(state: TableState) -> bool:
    """Without a clock no press ends a turn: a roll after the mover's roll is the opponent's."""
    return not state.clock.enabled and state.rolled and state.turn is not None


def on_invalid_roll(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    _require_phase(state, "playing")
    if state.turn is not None and side != state.turn:
        raise RuleError(f"it is {state.turn}'s roll")
    clock = state.clock.restart_delay(side, at) if state.clock.enabled else state.clock
    # 4.4 ii: an invalid roll is a roll attempt: no doubling for the rest of this turn.
    new = replace(state, clock=clock, rolled=False, roll_attempted=True, dice=None)
    return new, [{"type": "invalid_roll", "side": side}]


def on_pause(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    reason = inp.get("reason")
    return _pause(state, reason if isinstance(reason, str) else "", at, by_td=False)


def _pause(state: TableState, reason: str, at: int, *, by_td: bool) -> tuple[TableState, list]:
    _require_phase(state, "opening", "playing", "between_games", "break")
    if not by_td and not state.profile.allowed_pause(reason):
        allowed = ", ".join(sorted(state.profile.pause_reasons))
        raise RuleError(f"reason {reason!r} does not allow a pause in {state.profile.name} ({allowed})")
    clock = state.clock.pause(reason, at) if state.clock.enabled else state.clock
    new = replace(state, clock=clock, paused=reason, phase="paused", phase_before_pause=state.phase)
    return new, [{"type": "pause", "reason": reason}]


def on_resume(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    _require_match(state)
    if state.phase != "paused":
        raise RuleError("the clock is not paused")
    clock = state.clock.resume(at)
    phase = state.phase_before_pause or "playing"
    new = replace(state, clock=clock, paused=None, phase=phase, phase_before_pause=None)
    return new, [{"type": "resume"}]


# -- the cube and results -----------------------------------------------------------------------


def _undo_point(state: TableState) -> UndoPoint:
    assert state.match is not None
    return UndoPoint(state.match, state.phase, state.turn, state.rolled, state.roll_attempted)


def on_double(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _require_phase(state, "playing")
    turned_to = inp.get("value")
    if turned_to is not None:
        turned_to = int_field(inp, "value", 2, 4096)
    premature = (
        state.turn is not None and state.turn != side and state.rolled and match.cube.offered_by is None
    )
    if premature:
        # 4.4 v: a double made before the opponent finished stands.
        probe = replace(state, turn=side, rolled=False, roll_attempted=False, clock=Clock())
        refusal = probe._double_refusal(side)
    else:
        refusal = state._double_refusal(side)
    if refusal:
        raise RuleError(refusal)
    match2, corrected = m.offer_double(
        match, side, state.profile.max_cube, state.profile.dead_cube, turned_to
    )
    new = replace(state, match=match2, undo=_undo_point(state))
    if premature:
        new = replace(new, turn=side, rolled=False, roll_attempted=False, dice=None)
    event: dict[str, Any] = {"type": "double", "side": side, "value": match2.cube.offered_value}
    if corrected is not None:
        event["corrected_from"] = corrected
    if premature:
        event["premature"] = True
    return new, [event]


def on_take(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _require_phase(state, "playing")
    match2 = m.take(match, side)
    new = replace(state, match=match2, undo=_undo_point(state))
    return new, [{"type": "take", "side": side, "value": match2.cube.value}]


def on_pass(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _result_phase(state)
    if match.cube.offered_by is None:
        raise RuleError("no double to pass")
    if match.cube.offered_by == side:
        raise RuleError("the doubler cannot pass their own double")
    return _end_game(state, other(side), "pass", match.cube.value, resigned=False, at=at)


def _result_phase(state: TableState) -> m.Match:
    match = _require_match(state)
    in_game_pause = state.phase == "paused" and match.in_game
    if state.phase != "playing" and not in_game_pause:
        raise RuleError(f"no game in progress (phase {state.phase})")
    return match


def on_win(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _result_phase(state)
    kind = inp.get("kind", "single")
    if match.cube.offered_by is not None:
        raise RuleError("a double is waiting: take or pass first")
    points = m.points_for(kind if isinstance(kind, str) else "", match.cube.value)
    return _end_game(state, side, kind, points, resigned=False, at=at)


def on_resign(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    match = _result_phase(state)
    kind = inp.get("kind", "single")
    points = m.points_for(kind if isinstance(kind, str) else "", match.cube.value)
    return _end_game(state, other(side), kind, points, resigned=True, at=at)


def _end_game(
    state: TableState, winner: Side, kind: str, points: int, *, resigned: bool, at: int
) -> tuple[TableState, list]:
    assert state.match is not None
    undo = _undo_point(state)
    match = m.end_game(state.match, winner, kind, points, resigned=resigned, at=at, wall=state.wall_at(at))
    clock = state.clock.stop(at) if state.clock.enabled else state.clock
    over = match.is_over()
    new = replace(
        state,
        match=match,
        clock=clock,
        phase="finished" if over else "between_games",
        paused=None,
        phase_before_pause=None,
        turn=None,
        rolled=False,
        roll_attempted=False,
        dice=None,
        opening_lower=None,
        undo=undo,
    )
    events: list[dict[str, Any]] = [
        {
            "type": "game_over",
            "game": match.games[-1].game,
            "winner": winner,
            "kind": kind,
            "points": points,
            "cube": match.games[-1].cube,
            "resigned": resigned,
            "score": match.score.as_dict(),
            "crawford_next": match.is_crawford_next() and not over,
        }
    ]
    if over:
        events.append(_match_over(match))
    return new, events


def on_undo(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.undo is None:
        raise RuleError("nothing to undo (only the last score or cube entry, before the next game)")
    if state.confirmed.a and state.confirmed.b:
        raise RuleError("both players confirmed the result: the TD corrects it now")
    if state.phase == "flag":
        raise RuleError("time expired: waiting for the TD's decision")
    point = state.undo
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
        phase_before_pause=None,
    )
    if state.phase == "paused":
        # the clock stays paused: the restored phase is where play resumes
        new = replace(new, phase="paused", paused=state.paused, phase_before_pause=point.phase)
    return new, [{"type": "undo", "score": point.match.score.as_dict()}]


def on_confirm(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    """4.6: both players confirm the final score at the table."""
    side = side_field(inp)
    if state.phase != "finished":
        raise RuleError("the match is not over")
    return replace(state, confirmed=state.confirmed.set(side, True)), [{"type": "confirm", "side": side}]


# -- breaks, calls ------------------------------------------------------------------------------


def _breaks_allowed(state: TableState) -> int:
    assert state.match is not None
    return breaks_allowed(
        state.profile,
        state.match.length,
        final=state.final,
        clock=state.clock.enabled,
        double_match_point=state.match.is_double_match_point(),
    )


def _on_running_clock(state: TableState) -> bool:
    return state.clock.enabled and state.profile.breaks_on_running_clock_with_clock


def on_break(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    if state.away.of(side):
        raise RuleError(f"{side} is already on a break")
    if _on_running_clock(state):
        # ffbg-cdf 11.14: never a clock pause for a break; it runs on the player's own clock.
        _require_phase(state, "between_games", "playing")
        clock = state.clock
        if state.phase == "between_games":
            clock = clock.start(side, at)
        elif clock.running != side:
            raise RuleError("take a break on your own running clock")
        new = replace(
            state,
            clock=clock,
            away=state.away.set(side, True),
            breaks_used=state.breaks_used.set(side, state.breaks_used.of(side) + 1),
        )
        return new, [{"type": "break", "side": side, "on_clock": True}]
    _require_phase(state, "between_games", "break")
    used = state.breaks_used.of(side)
    allowed = _breaks_allowed(state)
    if used >= allowed:
        raise RuleError(f"no breaks left ({used} of {allowed} used)")
    until = at + break_ms(state.profile)
    new = replace(
        state,
        phase="break",
        away=state.away.set(side, True),
        break_until=state.break_until.set(side, until),
        breaks_used=state.breaks_used.set(side, used + 1),
    )
    return new, [{"type": "break", "side": side, "until_wall": state.wall_at(until)}]


def on_return(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    _require_match(state)
    if not state.away.of(side):
        raise RuleError(f"{side} is not on a break")
    until = state.break_until.of(side)
    overrun = max(0, at - until) if until is not None else 0
    away = state.away.set(side, False)
    new = replace(state, away=away, break_until=state.break_until.set(side, None))
    if _on_running_clock(state) and state.phase == "between_games":
        new = replace(new, clock=state.clock.stop(at))
    if state.phase == "break" and not (away.a or away.b):
        new = replace(new, phase="between_games")
    if state.phase == "paused" and state.phase_before_pause == "break" and not (away.a or away.b):
        new = replace(new, phase_before_pause="between_games")
    return new, [{"type": "return", "side": side, "overrun_ms": overrun}]


def on_call_td(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    side = side_field(inp)
    return replace(state, td_call=side), [{"type": "call_td", "side": side}]


def on_tick(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    return state, []


def on_premature_pickup(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    """4.1 v b: the offender lets their whole delay run on their next turn."""
    side = side_field(inp)
    _require_match(state)
    if not state.clock.enabled:
        raise RuleError("no clock in this match")
    return replace(state, clock=state.clock.forfeit_next_delay(side)), [
        {"type": "premature_pickup", "side": side}
    ]


# -- hub / TD commands (PROTOCOL.md §3.3) -------------------------------------------------------


def _cmd_done(inp: dict[str, Any], *, ok: bool, error: str | None = None) -> dict[str, Any]:
    return {
        "type": "cmd_done",
        "id": _echo(inp.get("id")),
        "cmd": _echo(inp.get("type")),
        "ok": ok,
        "error": error,
    }


def _echo(value: Any) -> Any:
    """A command's field quoted back in its answer, never larger than ``MAX_TEXT``."""
    if value is None or isinstance(value, bool | int):
        return value
    return clip(value if isinstance(value, str) else repr(value))


def on_cmd(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    cmd_id = str_field(inp, "id")
    if len(cmd_id) > MAX_TEXT:
        raise RuleError(f"id: longer than {MAX_TEXT} characters")
    if cmd_id in state.applied_cmds:
        done = _cmd_done(inp, ok=True)
        done["duplicate"] = True
        return state, [done]
    expires = inp.get("expires_wall")
    wall = state.wall_at(at)
    if isinstance(expires, int) and wall is not None and wall > expires:
        raise RuleError("command expired")
    kind = inp.get("type")
    handler = COMMANDS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RuleError(f"unknown command type {kind!r}")
    new, events = handler(state, inp, at)
    new = replace(new, applied_cmds=new.applied_cmds | {cmd_id})
    if kind in SCORE_COMMANDS:
        # the table's undo must never take back a TD decision made after the entry it restores
        new = replace(new, undo=None)
    return new, [*events, _cmd_done(inp, ok=True)]


#: commands that change the match record (score, length, result): they end the table's undo
SCORE_COMMANDS = frozenset({"penalty", "forfeit", "waive", "set_length", "correct_score", "resolve_flag"})


def _end_match(state: TableState, match: m.Match, cmd_id: str, at: int) -> TableState:
    clock = state.clock.stop(at) if state.clock.enabled else state.clock
    # the phase play would go back to if the decision is taken back (a pause is not kept)
    before = state.phase_before_pause if state.phase == "paused" else state.phase
    return replace(
        state,
        match=match,
        clock=clock,
        phase="finished",
        ended_by=cmd_id,
        phase_before_end=before,
        in_game_before_end=state.match is not None and state.match.in_game,
        paused=None,
    )


def _reopen(state: TableState, match: m.Match) -> TableState:
    """A result taken back by the TD: play continues where the match was ended."""
    ended_by_cmd = state.ended_by is not None
    phase = (state.phase_before_end if ended_by_cmd else None) or "between_games"
    in_game = state.in_game_before_end if ended_by_cmd else False
    return replace(
        state,
        match=replace(match, winner=None, end_reason=None, in_game=in_game),
        phase=phase,
        ended_by=None,
        phase_before_end=None,
        in_game_before_end=False,
        confirmed=NOT_PRESENT,
    )


def cmd_penalty(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    match = _require_match(state)
    against = side_field(inp, "against")
    points = int_field(inp, "points", 1, MAX_LENGTH)
    reason = clip(inp["reason"], MAX_LABEL) if isinstance(inp.get("reason"), str) else "conduct"
    penalty = m.Penalty(id=inp["id"], against=against, points=points, reason=reason)
    match2 = m.add_penalty(match, penalty)
    events: list[dict[str, Any]] = [
        {
            "type": "penalty",
            "id": penalty.id,
            "against": against,
            "points": points,
            "reason": reason,
            "score": match2.score.as_dict(),
        }
    ]
    late_points = sum(
        p.points for p in match2.penalty_log if p.against == against and p.reason == "late" and not p.waived
    )
    if not match2.is_over() and reason == "late" and is_lateness_forfeit(match2.length, late_points):
        match2 = replace(match2, winner=other(against), end_reason="lateness", in_game=False)
    if match2.is_over():
        events.append(_match_over(match2))
        return _end_match(state, match2, penalty.id, at), events
    return replace(state, match=match2), events


def cmd_forfeit(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    match = _require_match(state)
    against = side_field(inp, "against")
    reason = "lateness" if inp.get("reason") in ("late", "lateness") else "forfeit"
    match2 = replace(match, winner=other(against), end_reason=reason, in_game=False)
    return _end_match(state, match2, inp["id"], at), [_match_over(match2)]


def cmd_waive(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.match is None:
        raise RuleError("no match assigned to this table")
    penalty_id = str_field(inp, "penalty_id")
    match = state.match
    reopen = state.phase == "finished" and state.ended_by is not None
    if state.phase == "finished" and not reopen:
        raise RuleError("the match is over; correct the score instead")
    events: list[dict[str, Any]] = []
    if any(p.id == penalty_id for p in match.penalty_log):
        match, penalty = m.waive_penalty(match, penalty_id)
        events.append({"type": "waive", "penalty_id": penalty_id, "points": penalty.points})
    elif penalty_id != state.ended_by:
        raise RuleError(f"no penalty with id {penalty_id}")
    else:
        events.append({"type": "waive", "penalty_id": penalty_id, "points": 0})
    if reopen and _waiver_reopens(state, match, penalty_id):
        events[-1]["reopened"] = True
        return _reopen(state, match), events
    return replace(state, match=match), events


def _waiver_reopens(state: TableState, match: m.Match, penalty_id: str) -> bool:
    """2.2 iii: waiving the penalty that ended the match, or one without which it would not have
    ended, reopens it; a forfeit or time decision stands unless it is itself waived."""
    if penalty_id == state.ended_by:
        return True
    if match.end_reason == "points":
        return max(match.score.a, match.score.b) < match.length
    ended_by_penalty = any(p.id == state.ended_by for p in match.penalty_log)
    if match.end_reason == "lateness" and ended_by_penalty and match.winner is not None:
        loser = other(match.winner)
        late = sum(
            p.points for p in match.penalty_log if p.against == loser and p.reason == "late" and not p.waived
        )
        return not is_lateness_forfeit(match.length, late)
    return False


def cmd_start_clock(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    """2.2 (WBGF alternative; ffbg-cdf with a clock): the late player's clock runs."""
    _require_phase(state, "waiting", "opening", "between_games", "break")
    side = side_field(inp)
    if not state.clock.enabled:
        raise RuleError("no clock in this match")
    return replace(state, clock=state.clock.start(side, at)), [{"type": "start_clock", "side": side}]


def cmd_pause(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    reason = clip(inp["reason"], MAX_LABEL) if isinstance(inp.get("reason"), str) else "td"
    return _pause(state, reason, at, by_td=True)


def cmd_resume(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    return on_resume(state, inp, at)


def cmd_set_time(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.match is None:
        raise RuleError("no match assigned to this table")
    if not state.clock.enabled:
        raise RuleError("no clock in this match (impose one first)")
    reserves = side_map(inp, "reserve_ms", 0, 24 * 3600 * 1000)
    clock = state.clock.set_reserve(Pair(reserves["A"], reserves["B"]), at)
    new = replace(state, clock=clock)
    if state.phase == "flag":
        # 4.3 iv: time run by mistake restored; the match goes on once the TD resumes.
        flagged = state.clock.flagged
        clock = replace(clock, running=flagged, paused="td", delay_left=0)
        new = replace(new, clock=clock, phase="paused", paused="td", phase_before_pause="playing")
    return new, [{"type": "set_time", "reserve_ms": reserves}]


def cmd_impose_clock(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    """2.3 / 3.5 vi: a clock for the rest of the match, mpp × (RA + RB) / 2 each."""
    match = _require_match(state)
    mpp = number_field(inp, "minutes_per_point", 0.1, 60)
    delay_s = int_field(inp, "delay_s", 0, 120)
    reserve = imposed_reserve_ms(mpp, match.away("A"), match.away("B"))
    clock = new_clock(reserve, delay_s * 1000)
    paused = clock if state.phase != "paused" else replace(clock, paused=state.paused)
    return replace(state, clock=paused, opening_lower=None), [
        {"type": "impose_clock", "reserve_ms": reserve, "delay_ms": delay_s * 1000}
    ]


def cmd_set_length(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.match is None:
        raise RuleError("no match assigned to this table")
    length = int_field(inp, "length", 1, MAX_LENGTH)
    match = state.match
    refusal = m.length_refusal(match, length)
    if refusal:
        raise RuleError(refusal)
    note = m.Correction("length", str(match.length), str(length), clip(str(inp.get("note", ""))), at)
    corrections = (*match.corrections, note)
    if match.in_game:
        match = replace(match, pending_length=length, corrections=corrections)
        return replace(state, match=match), [{"type": "set_length", "length": length, "pending": True}]
    match = replace(match, length=length, pending_length=None, corrections=corrections)
    return replace(state, match=match), [{"type": "set_length", "length": length, "pending": False}]


def cmd_correct_score(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.match is None:
        raise RuleError("no match assigned to this table")
    score = side_map(inp, "score", 0, 10 * MAX_LENGTH)
    match = state.match
    before = f"{match.score.a}-{match.score.b}"
    note = m.Correction("score", before, f"{score['A']}-{score['B']}", clip(str(inp.get("note", ""))), at)
    match = replace(match, score=Pair(score["A"], score["B"]), corrections=(*match.corrections, note))
    events: list[dict[str, Any]] = [{"type": "correct_score", "score": score, "before": before}]
    leader: Side = "A" if score["A"] >= score["B"] else "B"
    reached = score[leader] >= match.length
    if state.phase == "finished":
        if reached:
            if match.winner != leader:
                match = replace(match, winner=leader, end_reason="td")
                events.append(_match_over(match))
            return replace(state, match=match), events
        if match.end_reason in ("points", "td"):
            # 4.6 / 4.7: a wrong final score is corrected and the match goes on
            events[0]["reopened"] = True
            return _reopen(state, match), events
        # a forfeit, lateness or time decision stands; only the record is corrected
        return replace(state, match=match), events
    if reached:
        match = replace(match, winner=leader, end_reason="td", in_game=False)
        events.append(_match_over(match))
        return _end_match(state, match, inp["id"], at), events
    return replace(state, match=match), events


def cmd_resolve_flag(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    if state.phase != "flag" or state.match is None:
        raise RuleError("no time flag to resolve")
    winner = side_field(inp, "winner")
    match = replace(state.match, winner=winner, end_reason="time", in_game=False)
    new = replace(state, match=match, phase="finished", td_call=None)
    return new, [{"type": "resolve_flag", "winner": winner}, _match_over(match)]


def cmd_td_ack(state: TableState, inp: dict[str, Any], at: int) -> tuple[TableState, list]:
    return replace(state, td_call=None), [{"type": "td_ack"}]


HANDLERS: dict[str, Handler] = {
    "assign": on_assign,
    "checkin": on_checkin,
    "opening_roll": on_opening_roll,
    "press": on_press,
    "roll": on_roll,
    "invalid_roll": on_invalid_roll,
    "double": on_double,
    "take": on_take,
    "pass": on_pass,
    "win": on_win,
    "resign": on_resign,
    "pause": on_pause,
    "resume": on_resume,
    "break": on_break,
    "return": on_return,
    "call_td": on_call_td,
    "undo": on_undo,
    "confirm": on_confirm,
    "premature_pickup": on_premature_pickup,
    "cmd": on_cmd,
    "tick": on_tick,
}

COMMANDS: dict[str, Handler] = {
    "penalty": cmd_penalty,
    "forfeit": cmd_forfeit,
    "waive": cmd_waive,
    "start_clock": cmd_start_clock,
    "pause": cmd_pause,
    "resume": cmd_resume,
    "set_time": cmd_set_time,
    "impose_clock": cmd_impose_clock,
    "set_length": cmd_set_length,
    "correct_score": cmd_correct_score,
    "resolve_flag": cmd_resolve_flag,
    "td_ack": cmd_td_ack,
}
