"""The edge: a JSON object becomes a typed input or TD command, or a ``FieldError`` with a code.

Nothing is defaulted here: a field the protocol requires and the message lacks is refused
(``field.missing``), a value of the wrong type or out of range is refused (``field.type``,
``field.range``, ``field.choice``), so no rule downstream ever has to guess. Optional fields are
the ones docs/protocol.md names optional, and only they may be absent.

This runs for every input the table applies, so the common inputs take the shortest path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from rulebook.custom_profiles import verified_profile
from rulebook.errors import FieldError, ProfileError, RuleError
from rulebook.profiles import CUBE_CEILING, Profile, get_profile
from rulebook.schema import MAX_LABEL, MAX_LENGTH, MAX_TEXT
from rulebook.sides import Pair, Side
from rulebook.vocab import (
    COMMAND_TYPES,
    TABLE_PAUSES,
    Assign,
    Break,
    CallTd,
    Checkin,
    ClockSpec,
    Cmd,
    Command,
    CommandType,
    Confirm,
    CorrectScoreCmd,
    CrawfordChoice,
    CrawfordDoubleCmd,
    Double,
    DoubleLossCmd,
    ForbidDoubleCmd,
    ForceDoubleCmd,
    ForfeitCmd,
    ImposeClockCmd,
    Input,
    InputType,
    InvalidRoll,
    OpeningRoll,
    Pass,
    Pause,
    PauseCmd,
    PauseReason,
    PenaltyCmd,
    PrematurePickup,
    Press,
    Resign,
    ResolveFlagCmd,
    ResultKind,
    Resume,
    ResumeCmd,
    Return,
    Roll,
    RollSource,
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

#: upper bound of a second time bank (3.5 v), in minutes
MAX_BANK_MIN = 600
#: the longest name or id of a player or a match
MAX_NAME = 200
#: a TD time correction sets at most a day of reserve
MAX_RESERVE_MS = 24 * 3600 * 1000

Obj = Mapping[str, Any]


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _got(value: Any) -> str:
    return clip(repr(value), 60)


# -- fields ----------------------------------------------------------------------------------------


def side(obj: Obj, key: str = "side") -> Side:
    value = obj.get(key)
    if value == "A" and isinstance(value, str):
        return "A"
    if value == "B" and isinstance(value, str):
        return "B"
    if value is None and key not in obj:
        raise FieldError("field.missing", field=key)
    raise FieldError("field.choice", field=key, choices="A, B", got=_got(value))


def integer(obj: Obj, key: str, lo: int, hi: int) -> int:
    value = obj.get(key)
    if type(value) is int and lo <= value <= hi:
        return value
    _refuse_number(obj, key, value, lo, hi, whole=True)
    raise AssertionError  # unreachable: _refuse_number raises


def number(obj: Obj, key: str, lo: float, hi: float) -> float:
    value = obj.get(key)
    if (type(value) is int or type(value) is float) and lo <= value <= hi:
        return float(value) if type(value) is float else int(value)
    _refuse_number(obj, key, value, lo, hi, whole=False)
    raise AssertionError


def _refuse_number(obj: Obj, key: str, value: Any, lo: float, hi: float, *, whole: bool) -> None:
    if key not in obj:
        raise FieldError("field.missing", field=key)
    kinds = (int,) if whole else (int, float)
    if type(value) not in kinds:
        raise FieldError(
            "field.type", field=key, expected="a whole number" if whole else "a number", got=_got(value)
        )
    raise FieldError("field.range", field=key, lo=lo, hi=hi, got=_got(value))


def text(obj: Obj, key: str, limit: int = MAX_TEXT, *, empty: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or (not value and not empty):
        if key not in obj:
            raise FieldError("field.missing", field=key)
        raise FieldError("field.type", field=key, expected="a non-empty string", got=_got(value))
    if type(value) is not str:  # a vocabulary word (StrEnum) from our own senders
        value = str.__str__(value)
    if len(value) > limit:
        raise FieldError("field.too_long", field=key, limit=limit)
    return value


def optional_text(obj: Obj, key: str, limit: int = MAX_TEXT) -> str:
    """Free text a person typed (a note): absent is empty, a long one is clipped."""
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldError("field.type", field=key, expected="a string", got=_got(value))
    return clip(str.__str__(value), limit)


def required_note(obj: Obj, key: str = "note", limit: int = MAX_TEXT) -> str:
    """Free text a person must give (why a TD corrects a score: docs/protocol.md §3.3): absent or
    blank is refused with ``field.missing``, a long one is clipped like any note."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise FieldError("field.type", field=key, expected="a string", got=_got(value))
    if value is None or not value.strip():
        raise FieldError("field.missing", field=key)
    return clip(str.__str__(value), limit)


def optional_int(obj: Obj, key: str, lo: int, hi: int) -> int | None:
    if obj.get(key) is None:
        return None
    return integer(obj, key, lo, hi)


def flag(obj: Obj, key: str) -> bool:
    """An optional true/false (absent is false: these fields name an exception when present)."""
    value = obj.get(key, False)
    if type(value) is not bool:
        raise FieldError("field.type", field=key, expected="true or false", got=_got(value))
    return value


def choice(obj: Obj, key: str, words: Mapping[str, Any]) -> Any:
    value = obj.get(key)
    if isinstance(value, str):
        found = words.get(value)
        if found is not None:
            return found
    if value is None and key not in obj:
        raise FieldError("field.missing", field=key)
    raise FieldError("field.choice", field=key, choices=", ".join(words), got=_got(value))


def die(obj: Obj, key: str) -> int:
    return integer(obj, key, 1, 6)


def dice(obj: Obj) -> tuple[int, int]:
    value = obj.get("dice")
    if type(value) is list and len(value) == 2:
        d1, d2 = value
        if type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6:
            return d1, d2
        die({"dice[0]": d1}, "dice[0]")
        die({"dice[1]": d2}, "dice[1]")
    if "dice" not in obj:
        raise FieldError("field.missing", field="dice")
    raise FieldError("field.type", field="dice", expected="two dice [d1, d2]", got=_got(value))


def side_map(obj: Obj, key: str, lo: int, hi: int) -> Pair[int]:
    value = obj.get(key)
    if not isinstance(value, dict):
        if key not in obj:
            raise FieldError("field.missing", field=key)
        raise FieldError("field.type", field=key, expected='{"A": n, "B": n}', got=_got(value))
    try:
        return Pair(integer(value, "A", lo, hi), integer(value, "B", lo, hi))
    except FieldError as exc:
        params = dict(exc.params)
        params["field"] = f"{key}.{params.get('field')}"
        raise FieldError(exc.code, **params) from None


_PAUSE_REASONS = {r.value: r for r in PauseReason}
_RESULT_KINDS = {k.value: k for k in ResultKind}
_ROLL_SOURCES = {s.value: s for s in RollSource}
_INPUT_TYPES = {t.value: t for t in InputType}
_COMMAND_TYPES = {t.value: t for t in CommandType}
_CRAWFORD_CHOICES = {c.value: c for c in CrawfordChoice}


# -- inputs -----------------------------------------------------------------------------------------

Parser = Callable[[Obj, int, "int | None"], Input]


def _players(obj: Obj) -> Pair[tuple[str, str]]:
    players = obj.get("players")
    if not isinstance(players, dict):
        if "players" not in obj:
            raise FieldError("field.missing", field="players")
        raise FieldError(
            "field.type", field="players", expected='{"A": {name, id}, "B": {name, id}}', got=_got(players)
        )
    out: list[tuple[str, str]] = []
    for s in ("A", "B"):
        p = players.get(s)
        if not isinstance(p, dict):
            raise FieldError("field.type", field=f"players.{s}", expected="{name, id}", got=_got(p))
        try:
            out.append((text(p, "name", MAX_NAME, empty=True), text(p, "id", MAX_NAME, empty=True)))
        except FieldError as exc:
            params = dict(exc.params)
            params["field"] = f"players.{s}.{params.get('field')}"
            raise FieldError(exc.code, **params) from None
    return Pair(out[0], out[1])


def _profile(obj: Obj) -> Profile:
    value = obj.get("profile")
    try:
        if isinstance(value, str):
            return get_profile(value)
        if isinstance(value, dict):
            return verified_profile(value)
    except ProfileError as exc:
        raise FieldError(exc.code, **exc.params) from None
    if "profile" not in obj:
        raise FieldError("field.missing", field="profile")
    raise FieldError(
        "field.type", field="profile", expected="a profile name or a custom profile object", got=_got(value)
    )


def _clock(obj: Obj) -> ClockSpec:
    setting = obj.get("clock")
    if setting is False:
        return ClockSpec(False)
    if setting is True:
        return ClockSpec(True)
    if isinstance(setting, dict):
        try:
            mpp = number(setting, "minutes_per_point", 0.1, 60)
            delay = integer(setting, "delay_s", 0, 120)
            bank2: float = 0
            if "second_bank_minutes" in setting:
                bank2 = number(setting, "second_bank_minutes", 0, MAX_BANK_MIN)
        except FieldError as exc:
            params = dict(exc.params)
            params["field"] = f"clock.{params.get('field')}"
            raise FieldError(exc.code, **params) from None
        return ClockSpec(True, mpp, delay, bank2)
    if "clock" not in obj:
        raise FieldError("field.missing", field="clock")
    raise FieldError(
        "field.type",
        field="clock",
        expected="false, true or {minutes_per_point, delay_s}",
        got=_got(setting),
    )


def _assign(o: Obj, at: int, wall: int | None) -> Assign:
    match_id = text(o, "match_id", MAX_NAME)
    length = integer(o, "length", 1, MAX_LENGTH)
    players = _players(o)
    profile = _profile(o)
    clock = _clock(o)
    start_wall = o.get("start_wall")
    if start_wall is not None and (type(start_wall) is not int or start_wall < 0):
        raise FieldError("field.type", field="start_wall", expected="epoch ms", got=_got(start_wall))
    rnd = o.get("round")
    if rnd is not None:
        if type(rnd) is int:
            rnd = str(rnd)
        elif type(rnd) is not str:
            raise FieldError("field.type", field="round", expected="a string", got=_got(rnd))
        rnd = clip(rnd, MAX_LABEL)
    return Assign(
        at,
        wall,
        match_id,
        length,
        players,
        profile,
        clock,
        start_wall,
        rnd,
        flag(o, "final"),
        flag(o, "force"),
    )


def _pause(o: Obj, at: int, wall: int | None) -> Pause:
    reason: PauseReason = choice(o, "reason", _PAUSE_REASONS)
    if reason in TABLE_PAUSES and o.get("side") is None:
        return Pause(at, wall, reason, None)
    return Pause(at, wall, reason, side(o))


def _double(o: Obj, at: int, wall: int | None) -> Double:
    return Double(at, wall, side(o), optional_int(o, "value", 2, 2 * CUBE_CEILING))


def _roll(o: Obj, at: int, wall: int | None) -> Roll:
    return Roll(at, wall, dice(o), choice(o, "source", _ROLL_SOURCES))


def _cmd(o: Obj, at: int, wall: int | None) -> Cmd:
    cmd_id = text(o, "id", MAX_TEXT)
    kind = command_type(o)
    expires = o.get("expires_wall")
    if expires is not None and type(expires) is not int:
        raise FieldError("field.type", field="expires_wall", expected="epoch ms", got=_got(expires))
    return Cmd(at, wall, cmd_id, kind, expires, _COMMANDS[kind](o))


INPUT_PARSERS: dict[str, Parser] = {
    InputType.ASSIGN: _assign,
    InputType.CHECKIN: lambda o, at, wall: Checkin(at, wall, side(o)),
    InputType.OPENING_ROLL: lambda o, at, wall: OpeningRoll(at, wall, die(o, "A"), die(o, "B")),
    InputType.PRESS: lambda o, at, wall: Press(at, wall, side(o)),
    InputType.ROLL: _roll,
    InputType.INVALID_ROLL: lambda o, at, wall: InvalidRoll(at, wall, side(o)),
    InputType.DOUBLE: _double,
    InputType.TAKE: lambda o, at, wall: Take(at, wall, side(o)),
    InputType.PASS: lambda o, at, wall: Pass(at, wall, side(o)),
    InputType.WIN: lambda o, at, wall: Win(at, wall, side(o), choice(o, "kind", _RESULT_KINDS)),
    InputType.RESIGN: lambda o, at, wall: Resign(at, wall, side(o), choice(o, "kind", _RESULT_KINDS)),
    InputType.PAUSE: _pause,
    InputType.RESUME: lambda o, at, wall: Resume(at, wall),
    InputType.BREAK: lambda o, at, wall: Break(at, wall, side(o)),
    InputType.RETURN: lambda o, at, wall: Return(at, wall, side(o)),
    InputType.CALL_TD: lambda o, at, wall: CallTd(at, wall, side(o)),
    InputType.WITHDRAW_CALL: lambda o, at, wall: WithdrawCall(at, wall, side(o)),
    InputType.UNDO: lambda o, at, wall: Undo(at, wall),
    InputType.CONFIRM: lambda o, at, wall: Confirm(at, wall, side(o)),
    InputType.PREMATURE_PICKUP: lambda o, at, wall: PrematurePickup(at, wall, side(o)),
    InputType.CMD: _cmd,
    InputType.TICK: lambda o, at, wall: Tick(at, wall),
}


def stamp(obj: Obj, now: int | None = None) -> tuple[int, int | None]:
    """``at`` and ``wall`` of an input: what the reducer needs before anything else."""
    at = obj.get("at")
    if type(at) is not int or at < 0:
        if "at" not in obj:
            raise FieldError("field.missing", field="at")
        raise FieldError("field.type", field="at", expected="ms >= 0", got=_got(at))
    if now is not None and at < now:
        raise FieldError("input.time_backwards", at=at, now=now)
    wall = obj.get("wall")
    if wall is not None and (type(wall) is not int or wall <= 0):
        raise FieldError("field.type", field="wall", expected="epoch ms", got=_got(wall))
    return at, wall


def _message_type(obj: Obj, key: str, words: Mapping[str, Any], unknown: str) -> Any:
    """The word naming what a message is (its ``input``, a command's ``type``)."""
    kind = obj.get(key)
    found = words.get(kind) if isinstance(kind, str) else None
    if found is None:
        if key not in obj:
            raise FieldError("field.missing", field=key)
        raise FieldError(unknown, **{key: _got(kind)})
    return found


def input_type(obj: Obj) -> InputType:
    found: InputType = _message_type(obj, "input", _INPUT_TYPES, "input.unknown")
    return found


def parse_body(obj: Obj, at: int, wall: int | None) -> Input:
    """The input once ``at`` and ``wall`` are known (the reducer checks those first)."""
    kind = obj.get("input")
    parser = INPUT_PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        parser = INPUT_PARSERS[input_type(obj)]  # input_type raises with the right code
    return parser(obj, at, wall)


def parse_input(obj: Any, now: int | None = None) -> Input:
    """A journal line (or an input about to be journaled) as a typed :data:`Input`.

    ``now``: the table's time so far; an ``at`` before it is refused (``input.time_backwards``).
    Raises :class:`FieldError` (a ``RuleError``) naming the field and carrying its code.
    """
    if not isinstance(obj, dict):
        raise FieldError("input.not_object")
    at, wall = stamp(obj, now)
    input_type(obj)
    return parse_body(obj, at, wall)


# -- TD commands ------------------------------------------------------------------------------------


def _reason(o: Obj) -> str:
    return text(o, "reason", MAX_LABEL)


_COMMANDS: dict[CommandType, Callable[[Obj], Command]] = {
    CommandType.PENALTY: lambda o: PenaltyCmd(
        side(o, "against"), integer(o, "points", 1, MAX_LENGTH), _reason(o)
    ),
    CommandType.FORFEIT: lambda o: ForfeitCmd(side(o, "against"), _reason(o)),
    CommandType.WAIVE: lambda o: WaiveCmd(text(o, "penalty_id", MAX_TEXT)),
    CommandType.START_CLOCK: lambda o: StartClockCmd(side(o)),
    CommandType.PAUSE: lambda o: PauseCmd(choice(o, "reason", _PAUSE_REASONS)),
    CommandType.RESUME: lambda o: ResumeCmd(),
    CommandType.SET_TIME: lambda o: SetTimeCmd(side_map(o, "reserve_ms", 0, MAX_RESERVE_MS)),
    CommandType.IMPOSE_CLOCK: lambda o: ImposeClockCmd(
        number(o, "minutes_per_point", 0.1, 60), integer(o, "delay_s", 0, 120)
    ),
    CommandType.SET_LENGTH: lambda o: SetLengthCmd(
        integer(o, "length", 1, MAX_LENGTH), optional_text(o, "note")
    ),
    CommandType.CORRECT_SCORE: lambda o: CorrectScoreCmd(
        side_map(o, "score", 0, 10 * MAX_LENGTH), required_note(o)
    ),
    CommandType.RESOLVE_FLAG: lambda o: ResolveFlagCmd(side(o, "winner")),
    CommandType.TD_ACK: lambda o: TdAckCmd(),
    CommandType.FORBID_DOUBLE: lambda o: ForbidDoubleCmd(side(o)),
    CommandType.FORCE_DOUBLE: lambda o: ForceDoubleCmd(side(o)),
    CommandType.CRAWFORD_DOUBLE: lambda o: CrawfordDoubleCmd(choice(o, "choice", _CRAWFORD_CHOICES)),
    CommandType.DOUBLE_LOSS: lambda o: DoubleLossCmd(optional_text(o, "note")),
}


def command_type(obj: Obj) -> CommandType:
    found: CommandType = _message_type(obj, "type", _COMMAND_TYPES, "cmd.unknown")
    return found


def command_fields(cmd: Command) -> dict[str, Any]:
    """A parsed command's fields as the wire carries them (``type`` included): what a sender puts
    in the message after :func:`parse_command` checked it."""
    out: dict[str, Any] = {"type": COMMAND_TYPES[type(cmd)]}
    for f in dataclasses.fields(cmd):
        value = getattr(cmd, f.name)
        out[f.name] = value.as_dict() if isinstance(value, Pair) else value
    return out


def parse_command(obj: Any) -> Command:
    """A TD command's fields (``{"type": …, …}``; ``id`` and ``expires_wall`` are the sender's).

    What the hub calls before it sends a command, so a malformed one never leaves the desk.
    """
    if not isinstance(obj, dict):
        raise FieldError("input.not_object")
    return _COMMANDS[command_type(obj)](obj)


__all__ = [
    "INPUT_PARSERS",
    "MAX_LABEL",
    "MAX_LENGTH",
    "MAX_TEXT",
    "RuleError",
    "clip",
    "command_fields",
    "command_type",
    "input_type",
    "parse_body",
    "parse_command",
    "parse_input",
    "stamp",
]
