"""A small driver for the table reducer, so each test reads as the match it plays."""

from __future__ import annotations

import json
from typing import Any, cast, get_type_hints

from rulebook.match import Match
from rulebook.messages import EVENT_TYPES, Event, Marks, RejectedEvent, Stamp
from rulebook.schema import compile_spec, declared
from rulebook.snapshot import snapshot
from rulebook.state import TableState, new_table
from rulebook.table import apply

PLAYERS = {"A": {"name": "Ann", "id": "p-a"}, "B": {"name": "Bob", "id": "p-b"}}
SECOND = 1000
MINUTE = 60 * SECOND


_STAMP = set(get_type_hints(Stamp)) | set(get_type_hints(Marks))
_STRICT = {kind: compile_spec(declared(td)) for kind, td in EVENT_TYPES.items()}
_REJECTED = compile_spec(declared(RejectedEvent))


def check_declared(made: Event) -> None:
    """The event holds only keys its declaration (``rulebook.messages``) names, every key it
    requires, each value in its range: a field the reducer adds without declaring it (so the hub
    would drop it), or one it declares required but leaves out, fails here. Checked as a table
    sends it (JSON). Every input a rulebook test sends through :class:`Table` is checked so."""
    event = json.loads(json.dumps(made))
    kind = event["type"]
    assert set(Stamp.__required_keys__) <= set(event), event
    if "rejected" in event:
        # a refused input: the envelope, its reason and code, and what its type may carry
        _REJECTED(event)
        known = _STAMP | set(get_type_hints(EVENT_TYPES[kind])) if kind in EVENT_TYPES else _STAMP
        assert set(event) <= known | {"type"}, event
        return
    declared_keys = set(get_type_hints(EVENT_TYPES[kind]))
    assert set(event) <= declared_keys, (kind, set(event) - declared_keys)
    _STRICT[kind](event)


class Table:
    """Feeds inputs to ``apply`` with an explicit time line and keeps the last events."""

    def __init__(self, table: str = "t1") -> None:
        self.state: TableState = new_table(table)
        self.now = 0
        self.events: list[dict[str, Any]] = []
        self.journal: list[dict[str, Any]] = []
        self._cmd = 0
        #: the table setup (``SETUPS``) when made by :func:`setup_table`
        self.setup = ""

    # -- feeding ---------------------------------------------------------------------------------

    def send(self, name: str, /, **fields: Any) -> Table:
        """Apply input ``name`` at the current time; chain ``.ok()`` or ``.refused(...)``."""
        return self.raw({"at": self.now, "input": name, **fields})

    def raw(self, inp: Any) -> Table:
        self.journal.append(inp)
        self.state, made = apply(self.state, inp)
        for event in made:
            check_declared(event)
        self.events = cast(list[dict[str, Any]], made)
        if isinstance(inp, dict) and isinstance(inp.get("at"), int) and inp["at"] > self.now:
            self.now = inp["at"]
        return self

    def wait(self, ms: int) -> Table:
        self.now += ms
        return self

    def cmd(self, type_: str, cmd_id: str | None = None, /, **fields: Any) -> Table:
        self._cmd += 1
        return self.send("cmd", id=cmd_id or f"c{self._cmd}", type=type_, **fields)

    # -- set-up ----------------------------------------------------------------------------------

    def assign(self, length: int = 7, profile: str = "wbgf-2023", clock: Any = False, **extra: Any) -> Table:
        self.send(
            "assign",
            match_id=extra.pop("match_id", "m1"),
            length=length,
            players=PLAYERS,
            profile=profile,
            clock=clock,
            **extra,
        )
        self.ok()
        return self

    def start(self, length: int = 7, profile: str = "wbgf-2023", clock: Any = False, **extra: Any) -> Table:
        self.assign(length, profile, clock, **extra)
        self.send("checkin", side="A")
        self.send("checkin", side="B")
        self.ok()
        return self

    def opening(self, a: int = 6, b: int = 1) -> Table:
        """Opening roll; with a clock the lower roller presses to start the opponent's clock."""
        self.send("opening_roll", A=a, B=b)
        self.ok()
        if self.state.clock.enabled:
            self.send("press", side="A" if a < b else "B")
            self.ok()
        return self

    def game(self, winner: str, kind: str = "single", first: str = "A") -> Table:
        """A whole game without cube action: opening roll, then the result."""
        self.opening(6, 1) if first == "A" else self.opening(1, 6)
        self.send("win", side=winner, kind=kind)
        self.ok()
        return self

    def move(self, side: str, ms: int = 0, dice: tuple[int, int] = (3, 1)) -> Table:
        """``side`` rolls (unless it already has dice), moves for ``ms`` and presses."""
        if not self.state.rolled:
            self.send("roll", dice=list(dice), source="tower")
            self.ok()
        self.wait(ms)
        self.send("press", side=side)
        self.ok()
        return self

    def pass_turn(self) -> Table:
        """The player on turn rolls (if not yet) and presses: the turn passes (no clock needed)."""
        side = self.state.turn
        assert side is not None
        return self.move(side)

    def double_take(self, doubler: str, taker: str) -> Table:
        """Play on until ``doubler`` is on turn before rolling, then double and take."""
        while self.state.turn != doubler or self.state.rolled:
            self.pass_turn()
        self.send("double", side=doubler)
        self.ok()
        self.send("take", side=taker)
        self.ok()
        return self

    # -- reading ---------------------------------------------------------------------------------

    def snap(self) -> dict[str, Any]:
        return snapshot(self.state)

    @property
    def match(self) -> Match:
        assert self.state.match is not None
        return self.state.match

    def score(self) -> tuple[int, int]:
        return self.match.score.a, self.match.score.b

    def rejection(self) -> str | None:
        """The reason the last input was rejected (or a command refused), else None."""
        for event in self.events:
            if event.get("rejected"):
                return str(event["rejected"])
            if event.get("type") == "cmd_done" and not event.get("ok"):
                return str(event.get("error"))
        return None

    def ok(self) -> Table:
        reason = self.rejection()
        assert reason is None, f"unexpectedly rejected: {reason} ({self.events})"
        return self

    def rejection_code(self) -> str | None:
        """The code of the last input's rejection (or refused command), else None."""
        for event in self.events:
            if event.get("rejected") or (event.get("type") == "cmd_done" and not event.get("ok")):
                return str(event.get("code"))
        return None

    def refused(self, *fragments: str, code: str | None = None) -> str:
        """Assert the last input was rejected (with ``code`` if given); returns the reason."""
        reason = self.rejection()
        assert reason is not None, f"expected a rejection, got {self.events}"
        for fragment in fragments:
            assert fragment in reason, f"{fragment!r} not in {reason!r}"
        if code is not None:
            assert self.rejection_code() == code, (code, self.events)
        return reason

    def event(self, type_: str) -> dict[str, Any]:
        found = [e for e in self.events if e.get("type") == type_]
        assert found, f"no {type_} event in {self.events}"
        return found[-1]


#: the four table setups (docs/rules.md, "Table setups"): what marks the turns at the table
SETUPS = ("scoreboard", "clock", "clock+tower", "tower")


def setup_table(setup: str, length: int = 7, profile: str = "wbgf-2023", **extra: Any) -> Table:
    """A table of ``setup`` with both players checked in: a clock for ``clock`` and ``clock+tower``;
    rolls are read (by a dice tower) for ``tower`` and ``clock+tower`` (see :func:`throw`)."""
    t = Table().start(length=length, profile=profile, clock=setup.startswith("clock"), **extra)
    t.setup = setup
    return t


def has_tower(t: Table) -> bool:
    return "tower" in t.setup


def finish_turn(t: Table, side: str, dice: tuple[int, int] = (3, 1)) -> Table:
    """``side`` finishes the turn it is on as its setup shows it: a tower reads the roll (when the
    side has not rolled yet); a clock is pressed; a scoreboard sees nothing."""
    if has_tower(t) and not t.state.rolled:
        t.send("roll", dice=list(dice), source="tower").ok()
    if t.state.clock.enabled:
        t.send("press", side=side).ok()
    return t
