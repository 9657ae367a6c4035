"""The schema language of a table's messages, and their limits: what a field may hold, by type
*and* range (PROTOCOL §2, §3), as data that compiles into fast checks.

The schema is data (:class:`Int`, :class:`Text`, :class:`Obj` …) so that tests can derive
valid and hostile messages from it, compiled once into plain closures so that checking costs
about one function call per field: a busy room sends thousands of snapshots a second
(``bench/bench_wire.py``). The messages themselves are declared once, as typed dictionaries
annotated with these specs (:mod:`rulebook.messages`); :func:`declared` reads a declaration
into its schema, so the shape a reader types against and the shape the wire checks are one.

Pure: no I/O, no clock. The ranges follow the rules engine (``MAX_LENGTH``, the cube up to
``CUBE_CEILING``, ``MAX_TEXT``) with room to spare, never tighter than what a correct table can send.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from types import UnionType
from typing import (
    Annotated,
    Any,
    Final,
    Literal,
    NotRequired,
    Protocol,
    Required,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from rulebook.errors import WireError
from rulebook.profiles import CUBE_CEILING
from rulebook.sides import SIDES
from rulebook.vocab import GAME_PASSED, CommandType, EndReason, Phase, ResultKind

# -- ranges -----------------------------------------------------------------------------------

#: the longest match the table plays (its inputs are parsed against it too: ``rulebook.parse``);
#: 0 in a snapshot of a table without a match
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
#: the longest id or free text kept, and the longest label (a pause or penalty reason): the
#: reducer clips to them what it quotes (``rulebook.parse.clip``), so a hostile input cannot make
#: every later event or snapshot too big to publish
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
    #: what a value of ``pattern`` is, for the refusal's text (default: an id)
    what: str = "an id (letters, digits, _ . -)"

    def describe(self) -> str:
        what = self.what if self.pattern else f"a text of at most {self.max_len} characters"
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


# -- declarations: a typed dictionary read into its schema ------------------------------------


@dataclass(frozen=True, slots=True)
class Items:
    """A list's bounds in a declaration: ``Annotated[list[GameRow], Items(MAX_GAMES)]``."""

    max_items: int
    min_items: int = 0


@dataclass(frozen=True, slots=True)
class Both:
    """One value per side in a declaration: ``Annotated[SidePair, Both(POINTS)]``."""

    spec: Spec


#: what each leaf spec may annotate: the static type must be the one the check lets through
_STATIC: Final[dict[type, tuple[type, ...]]] = {
    Int: (int,),
    Bool: (bool,),
    Text: (str,),
    Choice: (str,),
    Map: (dict,),
    Array: (list,),
}


def declared(td: type, nullable: bool = False) -> Obj:
    """The schema of the typed dictionary ``td``: one field per key, in its order, required as
    declared; each key's spec from its annotation (:func:`_spec_of`). Raises ``TypeError`` at
    import when a static type and its spec disagree, so the two cannot drift apart."""
    hints = get_type_hints(td, include_extras=True)
    # under postponed annotations Python 3.11 counts a ``NotRequired`` key as required: the
    # annotation itself decides
    required: frozenset[str] = td.__required_keys__  # type: ignore[attr-defined]
    return Obj(
        tuple(
            Field(k, _spec_of(h, f"{td.__name__}.{k}"), k in required and get_origin(h) is not NotRequired)
            for k, h in hints.items()
        ),
        nullable=nullable,
    )


def _without_none(hint: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (hint, False)."""
    if get_origin(hint) in (Union, UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1 < len(get_args(hint)):
            return args[0], True
    return hint, False


def _words(hint: Any) -> tuple[str, ...] | None:
    """The words of a ``Literal[...]`` of strings or a ``StrEnum``; None for anything else."""
    if get_origin(hint) is Literal:
        return tuple(get_args(hint))
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return tuple(m.value for m in hint)
    return None


def _spec_of(hint: Any, where: str) -> Spec:
    """A key's spec: the one its ``Annotated`` names (checked against the static type), or the one
    its type implies (``bool``, a ``Literal``, a ``StrEnum``, a nested typed dictionary)."""
    if get_origin(hint) in (Required, NotRequired):
        return _spec_of(get_args(hint)[0], where)
    if get_origin(hint) is Annotated:
        base, mark = get_args(hint)[0], get_args(hint)[1]
        inner, nullable = _without_none(base)
        if isinstance(mark, Items):
            (item,) = get_args(inner)
            return Array(_spec_of(item, where + "[]"), mark.max_items, mark.min_items, nullable)
        if isinstance(mark, Both):
            if not (is_typeddict(inner) and set(get_type_hints(inner)) == {"A", "B"}):
                raise TypeError(f"{where}: Both() annotates a typed pair of sides")
            return pair(mark.spec, nullable)
        if getattr(mark, "nullable", False) != nullable:
            raise TypeError(f"{where}: the spec and the type disagree on null")
        static, words = get_origin(inner) or inner, _words(inner)
        if isinstance(mark, Choice) and words is not None:
            if not set(mark.values) <= set(words):
                raise TypeError(f"{where}: the choice holds words its type does not")
        elif not isinstance(mark, Echo) and not (
            isinstance(static, type) and issubclass(static, _STATIC.get(type(mark), ()))
        ):
            raise TypeError(f"{where}: {type(mark).__name__} does not check a {inner}")
        return cast(Spec, mark)
    inner, nullable = _without_none(hint)
    if inner is bool:
        return Bool(nullable)
    words = _words(inner)
    if words is not None:
        return Choice(words, nullable)
    if is_typeddict(inner):
        return declared(inner, nullable)
    raise TypeError(f"{where}: declare its range (Annotated[{inner}, spec])")
