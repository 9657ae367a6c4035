"""The table's messages at the JSON boundary: what a state snapshot, an event and a status may
hold, field by field, by type *and* range (PROTOCOL §2, §3).

Whatever arrives from a table is untrusted: a kiosk with a bug, a tampered one, a half-written
retained message. ``parse_snapshot`` / ``parse_event`` / ``parse_status`` take the decoded JSON
and either return a value of the typed shape below (a new dict holding exactly the fields this
schema knows, each checked; unknown fields are left out, as PROTOCOL §2 lets a reader ignore
them) or raise :class:`rulebook.errors.WireError` with a stable ``code`` and the ``path`` of the
first bad field (``games[2].points``). Nothing downstream then has to doubt a field it reads.

The schema is data (:class:`Int`, :class:`Text`, :class:`Obj` …) so that tests can derive
valid and hostile messages from it, compiled once into plain closures so that checking costs
about one function call per field: a busy room sends thousands of snapshots a second
(``bench/bench_wire.py``). The returned values are ``TypedDict`` s rather than dataclasses
because the hub stores and forwards them as JSON: no conversion on the way in or out.

Pure: no I/O, no clock. The ranges follow the rules engine (``MAX_LENGTH``, the cube up to
``CUBE_CEILING``, ``MAX_TEXT``) with room to spare, never tighter than what a correct table can send.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, NotRequired, Protocol, TypedDict, cast

from rulebook.errors import WireError
from rulebook.profiles import CUBE_CEILING
from rulebook.sides import SIDES
from rulebook.vocab import GAME_PASSED, CommandType, CrawfordChoice, EndReason, Phase, ResultKind

# -- ranges -----------------------------------------------------------------------------------

#: match length (rulebook.table.MAX_LENGTH); 0 in a snapshot of a table without a match
MAX_LENGTH: Final = 99
#: largest cube: the rulebook's ceiling (a profile without a limit, FFBG's, records up to it)
MAX_CUBE: Final = CUBE_CEILING
#: one game is worth at most a backgammon on the largest cube
MAX_GAME_POINTS: Final = 3 * MAX_CUBE
#: scores and penalty totals: a score is below the length (at most 99, or a TD's correction up to
#: 990) before a match's last game, which adds at most a backgammon on the largest cube
MAX_POINTS: Final = 4 * MAX_CUBE
#: event numbers per match; games and penalties per match
MAX_SEQ: Final = 2**31 - 1
MAX_GAMES: Final = 1000
MAX_LOG: Final = 1000
#: Unix epoch ms (and monotonic ms): non-negative and exact in a browser's numbers. A table whose
#: clock is wrong (a Pi without RTC boots in 1970) still sends a valid wall time.
MAX_MS: Final = 2**53 - 1
#: durations: clock reserves, delays, breaks, lateness (an imposed clock reaches ~4 days)
MAX_DURATION_MS: Final = 7 * 24 * 3600 * 1000
MAX_BREAKS: Final = 100
#: free text the reducer clips (rulebook.table.MAX_TEXT, MAX_LABEL)
MAX_TEXT: Final = 300
MAX_LABEL: Final = 64
MAX_NAME: Final = 200
#: the largest event the hub stores, as JSON in UTF-8. A table's events are a few hundred bytes
#: (the golden matches: 205 at most); the reducer's largest, a cmd_done quoting a hostile
#: command's 300-character id and type in four-byte characters, is about 2.6 KB
#: (tests/rulebook/test_wire.py keeps every event the reducer makes under this limit)
MAX_EVENT_BYTES: Final = 4096

# the words come from the rulebook's vocabulary (rulebook.vocab): one place for each
PHASES: Final = tuple(p.value for p in Phase)
END_REASONS: Final = tuple(r.value for r in EndReason)
#: the TD's commands that can decide a result (the snapshot's ``decision``)
DECISIONS: Final = (
    CommandType.CORRECT_SCORE.value,
    CommandType.RESOLVE_FLAG.value,
    CommandType.FORFEIT.value,
)
GAME_KINDS: Final = (*(k.value for k in ResultKind), GAME_PASSED)

#: what a table may not put in any text: C0/C1 control characters (NUL included), lone
#: surrogates (not encodable as UTF-8) and the line/paragraph separators
_BAD_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")
#: a table, match or event id (drivers.mqtt_topics.is_valid_id: safe inside a topic)
ID_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"

# -- refusals: the rulebook's ``field.*`` codes (rulebook.codes) -------------------------------

Code = Literal["field.missing", "field.type", "field.range", "field.choice", "field.too_long"]
CODES: Final = ("field.missing", "field.type", "field.range", "field.choice", "field.too_long")


def _got(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


class _Bad(Exception):
    """Raised inside the compiled checks; turned into a WireError with the full path at the top."""

    __slots__ = ("code", "params", "path")

    def __init__(self, code: Code, **params: Any) -> None:
        self.code = code
        self.params = params
        self.path: list[str | int] = []

    def under(self, key: str | int) -> _Bad:
        self.path.append(key)
        return self


def _path(parts: list[str | int]) -> str:
    out = ""
    for part in reversed(parts):
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _wire_error(bad: _Bad, kind: str) -> WireError:
    return WireError(bad.code, path=_path(bad.path), kind=kind, **bad.params)


def _wrong_type(expected: str, v: object) -> _Bad:
    return _Bad("field.type", expected=expected, got=_got(v))


Check = Callable[[Any], Any]

# -- the schema language ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Int:
    lo: int
    hi: int
    nullable: bool = False

    def describe(self) -> str:
        return f"an integer from {self.lo} to {self.hi}" + (" or null" if self.nullable else "")


@dataclass(frozen=True, slots=True)
class Bool:
    nullable: bool = False

    def describe(self) -> str:
        return "true or false" + (" or null" if self.nullable else "")


@dataclass(frozen=True, slots=True)
class Text:
    max_len: int
    min_len: int = 0
    nullable: bool = False
    #: a full-match regular expression (ids)
    pattern: str | None = None

    def describe(self) -> str:
        if self.pattern:
            what = "an id (letters, digits, _ . -)"
        else:
            what = f"a text of at most {self.max_len} characters"
        return what + (" or null" if self.nullable else "")


@dataclass(frozen=True, slots=True)
class Choice:
    values: tuple[str, ...]
    nullable: bool = False

    def describe(self) -> str:
        return "one of " + ", ".join(self.values) + (" or null" if self.nullable else "")


@dataclass(frozen=True, slots=True)
class Echo:
    """A command's field quoted back by the table (``cmd_done``): null, a boolean, an integer or a
    text, whatever the command held (rulebook.table._echo)."""

    max_len: int = MAX_TEXT

    def describe(self) -> str:
        return f"null, true, false, an integer or a text of at most {self.max_len} characters"


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    spec: Spec
    required: bool = True


@dataclass(frozen=True, slots=True)
class Obj:
    fields: tuple[Field, ...]
    nullable: bool = False

    def describe(self) -> str:
        return "an object" + (" or null" if self.nullable else "")

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


@dataclass(frozen=True, slots=True)
class Array:
    item: Spec
    max_items: int
    min_items: int = 0
    nullable: bool = False

    def describe(self) -> str:
        if self.min_items == self.max_items:
            return f"a list of {self.max_items}" + (" or null" if self.nullable else "")
        return f"a list of at most {self.max_items}" + (" or null" if self.nullable else "")


@dataclass(frozen=True, slots=True)
class Map:
    """An object whose keys are names rather than fixed fields (``legal.A.why``: action -> code)."""

    key: Text
    value: Spec
    max_items: int

    def describe(self) -> str:
        return f"an object of at most {self.max_items} entries"


Spec = Int | Bool | Text | Choice | Echo | Obj | Array | Map


def pair(spec: Spec, nullable: bool = False) -> Obj:
    """``{"A": …, "B": …}``: one value per side, both required."""
    return Obj((Field("A", spec), Field("B", spec)), nullable=nullable)


# -- compiling a spec into a check ------------------------------------------------------------


def compile_spec(spec: Spec) -> Check:
    """A function that returns the checked value (objects rebuilt with their known fields only)
    or raises ``_Bad``. Written for the happy path: one type test and one range test per leaf."""
    if isinstance(spec, Int):
        return _int_check(spec)
    if isinstance(spec, Bool):
        return _bool_check(spec)
    if isinstance(spec, Text):
        return _text_check(spec)
    if isinstance(spec, Choice):
        return _choice_check(spec)
    if isinstance(spec, Echo):
        return _echo_check(spec)
    if isinstance(spec, Obj):
        return _obj_check(spec)
    if isinstance(spec, Map):
        return _map_check(spec)
    return _array_check(spec)


def _int_check(spec: Int) -> Check:
    lo, hi, nullable, expected = spec.lo, spec.hi, spec.nullable, spec.describe()

    def check(v: Any) -> Any:
        if type(v) is int:  # exact: JSON's true is not a number
            if lo <= v <= hi:
                return v
            raise _Bad("field.range", lo=lo, hi=hi, got=_got(v))
        if v is None and nullable:
            return v
        raise _wrong_type(expected, v)

    return check


def _bool_check(spec: Bool) -> Check:
    nullable, expected = spec.nullable, spec.describe()

    def check(v: Any) -> Any:
        if v is True or v is False or (v is None and nullable):
            return v
        raise _wrong_type(expected, v)

    return check


def _text_check(spec: Text) -> Check:
    lo, hi, nullable, expected = spec.min_len, spec.max_len, spec.nullable, spec.describe()
    full = re.compile(spec.pattern).fullmatch if spec.pattern else None
    bad = _BAD_CHARS.search

    def check(v: Any) -> Any:
        if type(v) is str:
            if len(v) > hi:
                raise _Bad("field.too_long", limit=hi)
            if len(v) < lo:
                raise _wrong_type("a non-empty text", v)
            if full is not None:
                if full(v) is None:
                    raise _wrong_type(expected, v)
            elif bad(v) is not None:
                raise _wrong_type("a text without control characters", v)
            return v
        if v is None and nullable:
            return v
        raise _wrong_type(expected, v)

    return check


def _choice_check(spec: Choice) -> Check:
    values, nullable, expected = frozenset(spec.values), spec.nullable, spec.describe()
    choices = ", ".join(spec.values) + (" or null" if nullable else "")

    def check(v: Any) -> Any:
        if type(v) is str:
            if v in values:
                return v
            raise _Bad("field.choice", choices=choices, got=_got(v))
        if v is None and nullable:
            return v
        raise _wrong_type(expected, v)

    return check


def _echo_check(spec: Echo) -> Check:
    text = _text_check(Text(spec.max_len))
    expected = spec.describe()

    def check(v: Any) -> Any:
        if v is None or v is True or v is False:
            return v
        if type(v) is int:
            if -MAX_MS <= v <= MAX_MS:
                return v
            raise _Bad("field.range", lo=-MAX_MS, hi=MAX_MS, got=_got(v))
        if type(v) is str:
            return text(v)
        raise _wrong_type(expected, v)

    return check


def _obj_check(spec: Obj) -> Check:
    required = tuple((f.name, compile_spec(f.spec)) for f in spec.fields if f.required)
    optional = tuple((f.name, compile_spec(f.spec)) for f in spec.fields if not f.required)
    nullable, expected = spec.nullable, spec.describe()

    def check(v: Any) -> Any:
        if type(v) is not dict:
            if v is None and nullable:
                return v
            raise _wrong_type(expected, v)
        out = {}
        name = ""
        try:
            for name, c in required:
                out[name] = c(v[name])
            for name, c in optional:
                if name in v:
                    out[name] = c(v[name])
        except KeyError:
            raise _Bad("field.missing").under(name) from None
        except _Bad as bad:
            raise bad.under(name) from None
        return out

    return check


def _map_check(spec: Map) -> Check:
    key, value, hi, expected = (
        _text_check(spec.key),
        compile_spec(spec.value),
        spec.max_items,
        spec.describe(),
    )

    def check(v: Any) -> Any:
        if type(v) is not dict:
            raise _wrong_type(expected, v)
        if len(v) > hi:
            raise _Bad("field.range", lo=0, hi=hi, got=f"{len(v)} entries")
        out = {}
        name = ""
        try:
            for name, x in v.items():
                out[key(name)] = value(x)
        except _Bad as bad:
            raise bad.under(str(name)) from None
        return out

    return check


def _array_check(spec: Array) -> Check:
    item = compile_spec(spec.item)
    lo, hi, nullable, expected = spec.min_items, spec.max_items, spec.nullable, spec.describe()

    def check(v: Any) -> Any:
        if type(v) is not list:
            if v is None and nullable:
                return v
            raise _wrong_type(expected, v)
        if not lo <= len(v) <= hi:
            raise _Bad("field.range", lo=lo, hi=hi, got=f"{len(v)} items")
        i = 0
        try:
            out = []
            for i, x in enumerate(v):  # noqa: B007 - i names the bad item
                out.append(item(x))
        except _Bad as bad:
            raise bad.under(i) from None
        return out

    return check


# -- the fast path: each schema as straight-line Python ---------------------------------------


class _Fail(Exception):
    """Raised by generated code; the compiled closures then find out which field and why."""


class _Gen:
    """Writes one function per schema: inline type and range tests, no call per field, no copy.

    The generated function only answers "this message is exactly of the schema" (no unknown
    field at any depth: each object's size is counted) and returns the message itself. Anything
    else — a bad value, a missing field, an unknown field — goes to the closures of
    :func:`compile_spec`, which name the first bad field or rebuild the message without the
    unknown fields. ``skip`` names top-level fields the caller already knows to be valid.
    """

    def __init__(self, skippable: tuple[str, ...] = ()) -> None:
        self.lines: list[str] = []
        self.env: dict[str, Any] = {"_Fail": _Fail}
        self.n = 0
        self.skippable = skippable

    def var(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def const(self, value: Any) -> str:
        name = self.var("k")
        self.env[name] = value
        return name

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def fail_if(self, indent: int, condition: str) -> None:
        self.emit(indent, f"if {condition}:")
        self.emit(indent + 1, "raise _Fail")

    def check(self, spec: Spec, src: str, indent: int, top: bool = False) -> None:
        """Emit the checks of the value named ``src`` against ``spec``."""
        null = f"{src} is not None and " if getattr(spec, "nullable", False) else ""
        if isinstance(spec, Int):
            self.fail_if(indent, f"{null}(type({src}) is not int or not {spec.lo} <= {src} <= {spec.hi})")
        elif isinstance(spec, Bool):
            self.fail_if(indent, f"{null}{src} is not True and {src} is not False")
        elif isinstance(spec, Text):
            if spec.pattern:
                test = f"{self.const(re.compile(spec.pattern).fullmatch)}({src}) is None"
            else:
                # isprintable() is a fast yes for almost every text; the regex decides the rest
                test = f"not ({src}.isprintable() or {self.const(_BAD_CHARS.search)}({src}) is None)"
            self.fail_if(
                indent,
                f"{null}(type({src}) is not str or not {spec.min_len} <= len({src}) <= {spec.max_len}"
                f" or {test})",
            )
        elif isinstance(spec, Choice):
            values = self.const(frozenset(spec.values))
            self.fail_if(indent, f"{null}(type({src}) is not str or {src} not in {values})")
        elif isinstance(spec, Echo):
            self.emit(indent, f"{self.const(_echo_check(spec))}({src})")
        elif isinstance(spec, Obj):
            inner = indent
            if spec.nullable:
                self.emit(indent, f"if {src} is not None:")
                inner = indent + 1
            self.fail_if(inner, f"type({src}) is not dict")
            required = sum(f.required for f in spec.fields)
            count = self.var("n")
            optional = [f for f in spec.fields if not f.required]
            if optional:
                self.emit(inner, f"{count} = {required}")
            for f in spec.fields:
                depth = inner
                if top and f.name in self.skippable:
                    self.emit(depth, f"if {f.name!r} not in skip:")
                    depth += 1
                x = self.var("x")
                if f.required:
                    self.emit(depth, f"{x} = {src}[{f.name!r}]")
                    self.check(f.spec, x, depth)
                else:
                    self.emit(depth, f"if {f.name!r} in {src}:")
                    self.emit(depth + 1, f"{x} = {src}[{f.name!r}]")
                    self.check(f.spec, x, depth + 1)
                if not f.required:
                    # counted whether checked here or skipped (known valid)
                    self.emit(inner, f"if {f.name!r} in {src}:")
                    self.emit(inner + 1, f"{count} += 1")
            self.fail_if(inner, f"len({src}) != {count if optional else required}")  # unknown fields
        elif isinstance(spec, Map):
            self.fail_if(indent, f"type({src}) is not dict or len({src}) > {spec.max_items}")
            name, item = self.var("m"), self.var("i")
            self.emit(indent, f"for {name}, {item} in {src}.items():")
            self.check(spec.key, name, indent + 1)
            self.check(spec.value, item, indent + 1)
        else:
            inner = indent
            if spec.nullable:
                self.emit(indent, f"if {src} is not None:")
                inner = indent + 1
            self.fail_if(
                inner, f"type({src}) is not list or not {spec.min_items} <= len({src}) <= {spec.max_items}"
            )
            item = self.var("i")
            self.emit(inner, f"for {item} in {src}:")
            before = len(self.lines)
            self.check(spec.item, item, inner + 1)
            if len(self.lines) == before:
                self.emit(inner + 1, "pass")

    def build(self, spec: Spec) -> Callable[[Any, frozenset[str]], Any]:
        self.emit(0, "def fast(v, skip):")
        self.check(spec, "v", 1, top=isinstance(spec, Obj))
        self.emit(1, "return v")
        exec("\n".join(self.lines), self.env)  # generated from the schema above, never from input
        return cast(Callable[[Any, frozenset[str]], Any], self.env["fast"])


_NO_SKIP: frozenset[str] = frozenset()


class Parse(Protocol):
    def __call__(self, v: Any, skip: frozenset[str] = ...) -> Any: ...


def compile_fast(spec: Spec, skippable: tuple[str, ...] = ()) -> Parse:
    """The schema's check: generated straight-line code for a message exactly of the schema, the
    closures for the rest (to rebuild it without unknown fields, or to say why it is refused).
    ``skippable``: top-level fields a caller may declare already valid."""
    fast = _Gen(skippable).build(spec)
    slow = compile_spec(spec)

    def check(v: Any, skip: frozenset[str] = _NO_SKIP) -> Any:
        try:
            return fast(v, skip)
        except Exception:  # _Fail, a missing key, an unhashable value: let the closures say why
            return slow(v)

    return check


# -- the vocabulary ---------------------------------------------------------------------------

SIDE = Choice(SIDES)
SIDE_OR_NULL = Choice(SIDES, nullable=True)
ID = Text(64, 1, pattern=ID_PATTERN)
ID_OR_NULL = Text(64, 1, nullable=True, pattern=ID_PATTERN)
LABEL = Text(MAX_LABEL)
TEXT = Text(MAX_TEXT)
WALL = Int(0, MAX_MS)
WALL_OR_NULL = Int(0, MAX_MS, nullable=True)
AT = Int(0, MAX_MS)
DURATION = Int(0, MAX_DURATION_MS)
DURATION_OR_NULL = Int(0, MAX_DURATION_MS, nullable=True)
LENGTH = Int(0, MAX_LENGTH)
POINTS = Int(0, MAX_POINTS)
CUBE = Int(1, MAX_CUBE)
GAME_NO = Int(0, MAX_GAMES)
SEQ = Int(0, MAX_SEQ)
EVENT_SEQ = Int(1, MAX_SEQ)
DIE = Int(1, 6)
DICE = Array(DIE, 2, 2)

# -- what each side, the table and the TD may do now (PROTOCOL §2.1 ``legal``) -----------------

#: action -> the refusal code the table would answer (``why``)
_WHY = Map(Text(MAX_LABEL, 1), Text(MAX_LABEL, 1), 100)
_KINDS = Array(Choice(tuple(k.value for k in ResultKind)), 3)
_REASONS = Array(LABEL, 20)
_SIDE_ACTIONS = (
    "checkin", "press", "invalid_roll", "double", "premature_double", "take", "pass", "beaver",
    "pause_passes", "break", "return", "call_td", "withdraw_call", "confirm", "premature_pickup",
)  # fmt: skip
#: the TD's commands ``legal.td`` lists by side or id, and those newer tables add
_TD_LATER: Final = frozenset(
    {"waive", "start_clock", "forbid_double", "force_double", "crawford_double", "double_loss"}
)
_SIDE_LEGAL = Obj(
    (
        *(Field(name, Bool()) for name in _SIDE_ACTIONS),
        # HU 7.5, FFBG 6.5 (an addition: older tables omit it)
        Field("crawford_double", Bool(), required=False),
        Field("win", _KINDS),
        Field("resign", _KINDS),
        Field("pause", _REASONS),
        Field("why", _WHY),
    )
)
LEGAL: Final = Obj(
    (
        Field("A", _SIDE_LEGAL),
        Field("B", _SIDE_LEGAL),
        Field(
            "table",
            Obj(
                (
                    Field("opening_roll", Bool()),
                    Field("roll", Bool()),
                    # whose roll a roll read now would be (an addition: older tables omit it)
                    Field("roller", SIDE_OR_NULL, required=False),
                    Field("undo", Bool()),
                    Field("resume", Bool()),
                    Field("pause", _REASONS),
                    Field("why", _WHY),
                )
            ),
        ),
        Field(
            "td",
            Obj(
                (
                    *(Field(c.value, Bool()) for c in CommandType if c not in _TD_LATER),
                    Field("waive", Array(Text(MAX_TEXT, 1), MAX_LOG)),
                    Field("start_clock", Array(SIDE, 2)),
                    # the TD's cube decisions (additions: older tables omit them)
                    Field("forbid_double", Array(SIDE, 2), required=False),
                    Field("force_double", Array(SIDE, 2), required=False),
                    Field("crawford_double", Bool(), required=False),
                    Field("double_loss", Bool(), required=False),
                    Field("length_correction", LABEL),
                    Field("why", _WHY),
                )
            ),
        ),
    )
)

# -- the state snapshot (PROTOCOL §2) ---------------------------------------------------------

SNAPSHOT: Final = Obj(
    (
        Field("schema", Int(1, 1000)),
        Field("table", ID),
        Field("match_id", ID_OR_NULL),
        Field("seq", SEQ),
        Field("phase", Choice(PHASES)),
        Field("length", LENGTH),
        Field("score", pair(POINTS)),
        Field("game", GAME_NO),
        Field("crawford", Bool()),
        Field("post_crawford", Bool()),
        Field(
            "cube",
            Obj(
                (
                    Field("value", CUBE),
                    Field("owner", SIDE_OR_NULL),
                    Field("offered_by", SIDE_OR_NULL),
                    Field("usable", pair(Bool()), required=False),
                )
            ),
        ),
        Field("penalties", pair(POINTS)),
        Field("present", pair(Bool())),
        Field(
            "clock",
            Obj(
                (
                    Field("enabled", Bool()),
                    Field("running", SIDE_OR_NULL),
                    Field("paused", Text(MAX_LABEL, nullable=True)),
                    Field("paused_by", SIDE_OR_NULL, required=False),
                    Field("reserve_ms", pair(DURATION)),
                    Field("delay_ms", pair(DURATION)),
                    Field("flagged", SIDE_OR_NULL),
                    Field("bank2_ms", pair(DURATION), required=False),
                    Field("flagged_at", Int(0, MAX_MS, nullable=True), required=False),
                    Field("on", SIDE_OR_NULL, required=False),
                )
            ),
        ),
        Field(
            "breaks",
            pair(
                Obj(
                    (
                        Field("used", Int(0, MAX_BREAKS)),
                        Field("allowed", Int(0, MAX_BREAKS)),
                        Field("until_wall", WALL_OR_NULL),
                        Field("away", Bool(), required=False),
                        # monotonic ms to the break's end, negative once overrun (the hub's anchor)
                        Field("left_ms", Int(-MAX_MS, MAX_MS, nullable=True), required=False),
                    )
                )
            ),
        ),
        Field("winner", SIDE_OR_NULL),
        Field("end_reason", Choice(END_REASONS, nullable=True)),
        Field(
            "games",
            Array(
                Obj(
                    (
                        Field("game", Int(1, MAX_GAMES)),
                        Field("winner", SIDE),
                        Field("kind", Choice(GAME_KINDS)),
                        Field("cube", CUBE),
                        Field("points", Int(0, MAX_GAME_POINTS)),
                        Field("resigned", Bool(), required=False),
                        Field("wall", WALL_OR_NULL, required=False),
                    )
                ),
                MAX_GAMES,
            ),
        ),
        Field("players", pair(Obj((Field("name", Text(MAX_NAME)), Field("id", Text(MAX_LABEL)))))),
        Field("profile", LABEL),
        Field("wall", WALL_OR_NULL),
        # the additions PROTOCOL §2 lists: optional, checked when present
        Field("turn", SIDE_OR_NULL, required=False),
        Field("turn_known", Bool(), required=False),
        Field("turn_from", Choice(("clock", "presses", "dice"), nullable=True), required=False),
        Field("in_game", Bool(), required=False),
        Field("td_calls", pair(Bool()), required=False),
        Field("dice", Array(DIE, 2, 2, nullable=True), required=False),
        Field("round", Text(MAX_LABEL, nullable=True), required=False),
        Field("final", Bool(), required=False),
        Field("start_wall", WALL_OR_NULL, required=False),
        # monotonic ages at the snapshot's ``at``: since each check-in, since the assignment
        Field("present_ms", pair(Int(0, MAX_MS, nullable=True)), required=False),
        Field("assigned_ms", Int(0, MAX_MS, nullable=True), required=False),
        # since the match ended (the hub's finish time: received - finished_ms)
        Field("finished_ms", Int(0, MAX_MS, nullable=True), required=False),
        # the TD's command that decided the result, beside end_reason
        Field("decision", Choice(DECISIONS, nullable=True), required=False),
        Field("td_call", SIDE_OR_NULL, required=False),
        Field("confirmed", pair(Bool()), required=False),
        Field("can_undo", Bool(), required=False),
        Field("pending_length", Int(1, MAX_LENGTH, nullable=True), required=False),
        Field(
            "penalty_log",
            Array(
                Obj(
                    (
                        Field("id", Text(MAX_TEXT, 1)),
                        Field("against", SIDE),
                        Field("points", Int(1, MAX_LENGTH)),
                        Field("reason", LABEL),
                        Field("waived", Bool()),
                    )
                ),
                MAX_LOG,
            ),
            required=False,
        ),
        Field(
            "corrections",
            Array(
                Obj(
                    (
                        Field("kind", LABEL),
                        Field("before", LABEL),
                        Field("after", LABEL),
                        Field("note", TEXT),
                        # the command's id (``local:…``: the table's TD menu) and its age
                        Field("id", Text(MAX_TEXT), required=False),
                        Field("age_ms", Int(0, MAX_MS), required=False),
                    )
                ),
                MAX_LOG,
            ),
            required=False,
        ),
        Field("legal", LEGAL, required=False),
        Field("at", AT, required=False),
    )
)

# -- events (PROTOCOL §3.3): an envelope, and the fields each known type may carry ------------

EVENT_ENVELOPE: Final = (
    Field("seq", EVENT_SEQ),
    Field("match_id", ID_OR_NULL),
    Field("type", Text(MAX_LABEL, 1)),
    Field("at", AT, required=False),
    Field("wall", WALL_OR_NULL, required=False),
    Field("rejected", TEXT, required=False),
    # the refusal's code (rulebook.codes) next to its English text
    Field("code", Text(MAX_LABEL, 1), required=False),
    Field("duplicate", Bool(), required=False),
)

_SCORE = pair(POINTS)
_F = Field

#: per event type, the fields beyond the envelope (all optional: a rejected event carries only
#: the envelope and its reason); an unknown type keeps the envelope only
EVENT_FIELDS: Final[Mapping[str, tuple[Field, ...]]] = {
    "assign": (_F("length", Int(1, MAX_LENGTH), False), _F("profile", LABEL, False)),
    "checkin": (
        _F("side", SIDE, False),
        _F("late_ms", Int(0, MAX_MS, nullable=True), False),
        _F("clock_to", SIDE, False),
    ),
    "opening_roll": (
        _F("dice", DICE, False),
        _F("tie", Bool(), False),
        _F("first", SIDE, False),
        _F("game", GAME_NO, False),
        _F("crawford", Bool(), False),
    ),
    "length_refused": (_F("length", Int(1, MAX_LENGTH, nullable=True), False), _F("reason", TEXT, False)),
    "length_changed": (_F("length", Int(1, MAX_LENGTH, nullable=True), False),),
    "press": (_F("side", SIDE, False),),
    "roll": (
        _F("dice", DICE, False),
        _F("source", LABEL, False),
        _F("side", SIDE_OR_NULL, False),
        _F("premature", Bool(), False),
    ),
    "invalid_roll": (_F("side", SIDE, False),),
    "pause": (_F("reason", LABEL, False), _F("side", SIDE_OR_NULL, False)),
    "resume": (),
    "double": (
        _F("side", SIDE, False),
        _F("value", Int(1, 2 * MAX_CUBE, nullable=True), False),
        _F("corrected_from", Int(1, 2 * MAX_CUBE), False),
        _F("premature", Bool(), False),
        _F("crawford", Bool(), False),
        _F("forced", Bool(), False),
    ),
    "take": (_F("side", SIDE, False), _F("value", CUBE, False)),
    "pass": (_F("side", SIDE, False),),
    "win": (_F("side", SIDE, False),),
    "resign": (_F("side", SIDE, False),),
    "game_over": (
        _F("game", GAME_NO, False),
        _F("winner", SIDE, False),
        _F("kind", Choice(GAME_KINDS), False),
        _F("points", Int(0, MAX_GAME_POINTS), False),
        _F("cube", CUBE, False),
        _F("resigned", Bool(), False),
        _F("score", _SCORE, False),
        _F("crawford_next", Bool(), False),
    ),
    "match_over": (
        _F("winner", SIDE_OR_NULL, False),
        _F("end_reason", Choice(END_REASONS, nullable=True), False),
        _F("score", _SCORE, False),
    ),
    "undo": (_F("score", _SCORE, False),),
    "confirm": (_F("side", SIDE, False),),
    "break": (
        _F("side", SIDE, False),
        _F("on_clock", Bool(), False),
        _F("until_wall", WALL_OR_NULL, False),
    ),
    "return": (_F("side", SIDE, False), _F("overrun_ms", Int(0, MAX_MS, nullable=True), False)),
    "call_td": (_F("side", SIDE, False),),
    "withdraw_call": (_F("side", SIDE, False),),
    "premature_pickup": (_F("side", SIDE, False),),
    "flag": (_F("side", SIDE, False),),
    "cmd_done": (
        _F("id", Echo(), False),
        _F("cmd", Echo(), False),
        _F("ok", Bool(), False),
        _F("error", Text(MAX_TEXT, nullable=True), False),
    ),
    "penalty": (
        _F("id", Text(MAX_TEXT, 1), False),
        _F("against", SIDE, False),
        _F("points", Int(1, MAX_LENGTH), False),
        _F("reason", LABEL, False),
        _F("score", _SCORE, False),
    ),
    "forfeit": (_F("against", SIDE, False), _F("reason", LABEL, False)),
    "waive": (
        _F("penalty_id", Text(MAX_TEXT, 1), False),
        _F("points", Int(0, MAX_LENGTH), False),
        _F("reopened", Bool(), False),
    ),
    "start_clock": (_F("side", SIDE, False),),
    "set_time": (_F("reserve_ms", pair(DURATION), False),),
    "impose_clock": (_F("reserve_ms", DURATION, False), _F("delay_ms", DURATION, False)),
    "set_length": (
        _F("length", Int(1, MAX_LENGTH), False),
        _F("pending", Bool(), False),
        _F("crawford_game", Int(1, MAX_GAMES, nullable=True), False),
    ),
    "correct_score": (
        _F("score", _SCORE, False),
        _F("before", LABEL, False),
        _F("reopened", Bool(), False),
        _F("note", TEXT, False),
    ),
    "resolve_flag": (_F("winner", SIDE, False),),
    "td_ack": (),
    "forbid_double": (_F("side", SIDE, False),),
    "force_double": (_F("side", SIDE, False),),
    "crawford_double": (
        _F("choice", Choice(tuple(c.value for c in CrawfordChoice)), False),
        _F("value", CUBE, False),
        _F("game", Int(1, MAX_GAMES), False),
        _F("points", Int(0, MAX_GAME_POINTS), False),
        _F("score", _SCORE, False),
        _F("reopened", Bool(), False),
    ),
    "double_loss": (_F("note", TEXT, False),),
}

#: a table's journal problem (PROTOCOL §3.2 ``journal``), null while the journal is sound
JOURNAL_NOTICE: Final = Obj(
    (
        Field("problem", Choice(("damaged", "lost"))),
        Field("match_id", ID_OR_NULL),
        Field("after_input", Int(0, MAX_SEQ)),
        Field("last_seq", Int(0, MAX_SEQ, nullable=True)),
        Field("aside", Text(255, nullable=True)),
        Field("reason", Text(2000)),
        Field("since_wall", WALL),
    ),
    nullable=True,
)

STATUS: Final = Obj(
    (
        Field("online", Bool()),
        Field("boot_id", Text(MAX_LABEL, nullable=True), required=False),
        Field("version", Text(MAX_LABEL, nullable=True), required=False),
        Field("wall", WALL_OR_NULL, required=False),
        Field("journal", JOURNAL_NOTICE, required=False),
        # the table's dice tower names itself (docs/dice-fairness.md)
        Field("dice", Obj((Field("device", Text(MAX_LABEL, 1), required=False),)), required=False),
    )
)


def event_spec(kind: str) -> Obj:
    """The full schema of an event of type ``kind`` (envelope plus the type's own fields)."""
    return Obj(EVENT_ENVELOPE + tuple(EVENT_FIELDS.get(kind, ())))


# -- typed values -----------------------------------------------------------------------------

SideName = Literal["A", "B"]


class SidePair(TypedDict):
    A: int
    B: int


class SideFlags(TypedDict):
    A: bool
    B: bool


class CubeState(TypedDict):
    value: int
    owner: SideName | None
    offered_by: SideName | None
    usable: NotRequired[SideFlags]


class ClockState(TypedDict):
    enabled: bool
    running: SideName | None
    paused: str | None
    reserve_ms: SidePair
    delay_ms: SidePair
    flagged: SideName | None
    bank2_ms: NotRequired[SidePair]
    flagged_at: NotRequired[int | None]
    on: NotRequired[SideName | None]


class BreakState(TypedDict):
    used: int
    allowed: int
    until_wall: int | None
    away: NotRequired[bool]


class Breaks(TypedDict):
    A: BreakState
    B: BreakState


class GameRow(TypedDict):
    game: int
    winner: SideName
    kind: str
    cube: int
    points: int
    resigned: NotRequired[bool]
    wall: NotRequired[int | None]


class Player(TypedDict):
    name: str
    id: str


class Players(TypedDict):
    A: Player
    B: Player


class PenaltyRow(TypedDict):
    id: str
    against: SideName
    points: int
    reason: str
    waived: bool


class CorrectionRow(TypedDict):
    kind: str
    before: str
    after: str
    note: str


class Snapshot(TypedDict):
    schema: int
    table: str
    match_id: str | None
    seq: int
    phase: str
    length: int
    score: SidePair
    game: int
    crawford: bool
    post_crawford: bool
    cube: CubeState
    penalties: SidePair
    present: SideFlags
    clock: ClockState
    breaks: Breaks
    winner: SideName | None
    end_reason: str | None
    games: list[GameRow]
    players: Players
    profile: str
    wall: int | None
    turn: NotRequired[SideName | None]
    dice: NotRequired[list[int] | None]
    round: NotRequired[str | None]
    final: NotRequired[bool]
    start_wall: NotRequired[int | None]
    td_call: NotRequired[SideName | None]
    confirmed: NotRequired[SideFlags]
    can_undo: NotRequired[bool]
    pending_length: NotRequired[int | None]
    penalty_log: NotRequired[list[PenaltyRow]]
    corrections: NotRequired[list[CorrectionRow]]
    at: NotRequired[int]


class Event(TypedDict):
    """An event's envelope; its type's own fields (``EVENT_FIELDS``) are read with ``.get``."""

    seq: int
    match_id: str | None
    type: str
    at: NotRequired[int]
    wall: NotRequired[int | None]
    rejected: NotRequired[str]
    duplicate: NotRequired[bool]


class JournalNotice(TypedDict):
    problem: Literal["damaged", "lost"]
    match_id: str | None
    after_input: int
    last_seq: int | None
    aside: str | None
    reason: str
    since_wall: int


class DiceDevice(TypedDict):
    device: NotRequired[str]


class Status(TypedDict):
    online: bool
    boot_id: NotRequired[str | None]
    version: NotRequired[str | None]
    wall: NotRequired[int | None]
    journal: NotRequired[JournalNotice | None]
    dice: NotRequired[DiceDevice]


# -- the entry points -------------------------------------------------------------------------

#: the long lists of a snapshot: the same from one snapshot of a table to the next for most of a
#: match, so when they equal the previous (valid) snapshot's, that one's lists are kept
_REUSABLE = ("games", "penalty_log", "corrections", "legal")
_snapshot = compile_fast(SNAPSHOT, _REUSABLE)
_status = compile_fast(STATUS)
_envelope = compile_fast(Obj(EVENT_ENVELOPE))
_seq_key = compile_spec(Obj(EVENT_ENVELOPE[:2]))
_events = {kind: compile_fast(event_spec(kind)) for kind in EVENT_FIELDS}


def parse_snapshot(obj: object, previous: Snapshot | None = None) -> Snapshot:
    """A table's state snapshot, every field checked; raises :class:`WireError`.

    ``previous``, a snapshot this function returned before for the same table, makes a long
    match cheap: a list equal to the previous one's is not checked again, and the previous one's
    objects are kept (equal is not identical: ``1 == 1.0 == True``; the kept ones are checked).
    """
    skip = _NO_SKIP
    if previous is not None and type(obj) is dict:
        same = [k for k in _REUSABLE if k in obj and k in previous and obj[k] == previous[k]]  # type: ignore[literal-required]
        if same:
            obj = {**obj, **{k: previous[k] for k in same}}  # type: ignore[literal-required]
            skip = frozenset(same)
    try:
        return cast(Snapshot, _snapshot(obj, skip))
    except _Bad as bad:
        raise _wire_error(bad, "state") from None


def parse_event(obj: object) -> Event:
    """A table's event: the envelope and its type's known fields, checked; raises :class:`WireError`."""
    try:
        kind = obj.get("type") if type(obj) is dict else None
        check = _events.get(kind, _envelope) if type(kind) is str else _envelope
        return cast(Event, check(obj))
    except _Bad as bad:
        raise _wire_error(bad, "event") from None


def parse_seq_key(obj: object) -> tuple[int, str | None]:
    """Only an event's ``seq`` and ``match_id``: enough to count an event whose other fields are
    bad as received (so the hub does not ask the table for it again and again)."""
    try:
        key = _seq_key(obj)
        return key["seq"], key["match_id"]
    except _Bad as bad:
        raise _wire_error(bad, "event") from None


def parse_status(obj: object) -> Status:
    """A table's status (also its Will); raises :class:`WireError`."""
    try:
        return cast(Status, _status(obj))
    except _Bad as bad:
        raise _wire_error(bad, "status") from None
