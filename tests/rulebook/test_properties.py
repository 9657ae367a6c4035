"""Properties of the rulebook that must hold for every input sequence (hypothesis).

- time is conserved and the delay is never charged (an independent model of the simple-delay clock
  that counts each turn's running time, checked against the reducer);
- no reserve ever goes negative;
- replaying any prefix of a journal gives the state live application gave;
- scores only go down through a TD correction, a waiver, an undo or a new assignment;
- the Crawford game happens at most once per match;
- ``apply`` never raises and never hits an internal fault, whatever JSON it is given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulebook.clock import new_clock
from rulebook.errors import CommandError
from rulebook.legal import check_command, legal_actions
from rulebook.parse import parse_command
from rulebook.replay import replay, replay_lines
from rulebook.sides import other
from rulebook.snapshot import snapshot
from rulebook.table import INTERNAL_ERROR, TableState, apply, new_table
from rulebook.vocab import Command, CommandType, InputType, PauseReason
from tests.rulebook.helpers import PLAYERS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIDES = st.sampled_from(["A", "B"])
GAPS = st.sampled_from([0, 1, 999, 3_000, 11_999, 12_000, 12_001, 30_000, 95_000, 400_000])


# -- an independent model of the clock -------------------------------------------------------------


@dataclass
class ClockModel:
    """Charges each turn max(0, running time of the turn - its delay); knows nothing of ``Clock``.

    A turn's running time is the sum of its unpaused spans; an invalid roll starts a new delay
    window for the same player (4.3 v); a premature pick-up makes the next window's delay 0.
    """

    budget: int  # starting reserve plus second bank, per side
    delay: int
    charged_before: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    running: str | None = None
    paused: bool = False
    window_ms: int = 0  # running time in the current delay window
    window_delay: int = 0
    no_delay: dict[str, bool] = field(default_factory=lambda: {"A": False, "B": False})
    flagged: str | None = None
    flagged_at: int | None = None
    now: int = 0

    def charged(self, side: str) -> int:
        extra = max(0, self.window_ms - self.window_delay) if side == self.running else 0
        return min(self.budget, self.charged_before[side] + extra)

    def advance(self, to: int) -> None:
        gap, self.now = to - self.now, to
        if self.running is None or self.paused or self.flagged:
            return
        left = self.budget - self.charged_before[self.running]
        flag_after = self.window_delay + left - self.window_ms  # ms until the budget is gone
        if flag_after <= gap:
            self.window_ms += flag_after
            self.flagged, self.flagged_at = self.running, to - gap + flag_after
            self._commit()
            self.running = None
        else:
            self.window_ms += gap

    def _commit(self) -> None:
        if self.running is not None:
            self.charged_before[self.running] = self.charged(self.running)
        self.window_ms = 0

    def start(self, side: str) -> None:
        self._commit()
        self.running, self.paused = side, False
        self.window_delay = 0 if self.no_delay[side] else self.delay
        self.no_delay[side] = False

    def stop(self) -> None:
        self._commit()
        self.running, self.paused = None, False

    def restart_delay(self, side: str) -> None:
        if self.running == side:
            self._commit()
            self.window_delay = self.delay


def _check_clock_against_model(state: TableState, model: ClockModel, start_budget: int) -> None:
    clock = state.clock
    settled = clock.settle(state.now)
    for side in ("A", "B"):
        reserve = clock.reserve_at(side, state.now)  # type: ignore[arg-type]
        bank2 = clock.bank2_at(side, state.now)  # type: ignore[arg-type]
        assert reserve >= 0 and bank2 >= 0
        # conservation: what is left plus what was charged is what the player started with
        assert settled.reserve.of(side) + settled.bank2.of(side) + settled.used.of(side) == start_budget  # type: ignore[arg-type]
        assert reserve + bank2 == settled.reserve.of(side) + settled.bank2.of(side)  # type: ignore[arg-type]
        # the delay is never charged: the reducer charged exactly what the turn model charges
        assert settled.used.of(side) == model.charged(side), (side, settled, model)  # type: ignore[arg-type]
    assert clock.flagged == model.flagged and clock.flagged_at == model.flagged_at


CLOCK_OPS = st.lists(
    st.tuples(
        st.sampled_from(
            ["press", "press", "press", "pause", "resume", "tick", "invalid_roll", "pickup", "win_and_reopen"]
        ),
        SIDES,
        GAPS,
    ),
    max_size=40,
)


@SETTINGS
@given(
    ops=CLOCK_OPS,
    minutes=st.sampled_from([0.5, 1, 2]),
    delay_s=st.sampled_from([0, 5, 12]),
    bank2=st.sampled_from([0, 1]),
)
def test_time_is_conserved_and_the_delay_never_charged(
    ops: list[tuple[str, str, int]], minutes: float, delay_s: int, bank2: int
) -> None:
    length = 3
    clock = {"minutes_per_point": minutes, "delay_s": delay_s, "second_bank_minutes": bank2}
    state = new_table("p")
    at = 0
    for inp in (
        {
            "input": "assign",
            "match_id": "m",
            "length": length,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": clock,
        },
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 6, "B": 1},
    ):
        state, _ = apply(state, {"at": at, **inp})
    budget = round(minutes * 60_000 * length) + bank2 * 60_000
    model = ClockModel(budget=budget, delay=delay_s * 1000)
    for op, side, gap in ops:
        at += gap
        if op == "press":
            inp: dict[str, Any] = {"input": "press", "side": side}
        elif op == "pause":
            inp = {"input": "pause", "side": side, "reason": "dispute"}
        elif op == "resume":
            inp = {"input": "resume"}
        elif op == "tick":
            inp = {"input": "tick"}
        elif op == "invalid_roll":
            inp = {"input": "invalid_roll", "side": side}
        elif op == "pickup":
            inp = {"input": "premature_pickup", "side": side}
        elif state.phase == "between_games":
            inp = (
                {"input": "opening_roll", "A": 2, "B": 5}
                if side == "A"
                else {"input": "opening_roll", "A": 5, "B": 2}
            )
        else:
            inp = {"input": "win", "side": side, "kind": "single"}
        state, events = apply(state, {"at": at, **inp})
        model.advance(at)
        for event in events:
            if event.get("rejected") or event["type"] == "flag":
                continue
            kind = event["type"]
            if kind == "press":
                model.start(other(event["side"]))
            elif kind == "pause":
                model.paused = True
            elif kind == "resume":
                model.paused = False
            elif kind == "invalid_roll":
                model.restart_delay(event["side"])
            elif kind == "premature_pickup":
                model.no_delay[event["side"]] = True
            elif kind in ("game_over", "opening_roll") and not event.get("tie"):
                model.stop()
        _check_clock_against_model(state, model, budget)


@SETTINGS
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["press", "pause", "resume", "restart", "pickup", "tick"]), SIDES, GAPS),
        max_size=40,
    )
)
def test_clock_value_matches_the_turn_model(steps: list[tuple[str, str, int]]) -> None:
    """The same check on ``Clock`` alone, including presses while paused (which resume it)."""
    clock = new_clock(90_000, 12_000, 30_000)
    model = ClockModel(budget=120_000, delay=12_000)
    now = 0
    for op, side, gap in steps:
        now += gap
        clock = clock.settle(now)
        model.advance(now)
        if clock.flagged:
            break
        if op == "press" and clock.running in (None, side):
            clock = clock.press(side, now)  # type: ignore[arg-type]
            model.start(other(side))
        elif op == "pause" and clock.paused is None:
            clock = clock.pause("td", now)
            model.paused = True
        elif op == "resume" and clock.paused is not None:
            clock = clock.resume(now)
            model.paused = False
        elif op == "restart":
            clock = clock.restart_delay(side, now)  # type: ignore[arg-type]
            model.restart_delay(side)
        elif op == "pickup" and clock.running != side:
            clock = clock.forfeit_next_delay(side)  # type: ignore[arg-type]
            model.no_delay[side] = True
        settled = clock.settle(now)
        for s in ("A", "B"):
            assert settled.reserve.of(s) + settled.bank2.of(s) + settled.used.of(s) == 120_000  # type: ignore[arg-type]
            assert settled.used.of(s) == model.charged(s)  # type: ignore[arg-type]
            assert clock.reserve_at(s, now) >= 0  # type: ignore[arg-type]


# -- random journals ------------------------------------------------------------------------------

CMD_IDS = st.sampled_from(["c1", "c2", "c3", "late:m:A:1", "late:m:B:1", "late:m:B:2"])


def _cmd(type_: str, **fields: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"input": st.just("cmd"), "id": CMD_IDS, "type": st.just(type_), **fields})


#: inputs of play: drawn most of the time so that games start, run and finish
PLAY: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.fixed_dictionaries({"input": st.just("opening_roll"), "A": st.integers(1, 6), "B": st.integers(1, 6)}),
    st.fixed_dictionaries({"input": st.just("press"), "side": SIDES}),
    st.fixed_dictionaries(
        {
            "input": st.just("roll"),
            "dice": st.lists(st.integers(1, 6), min_size=2, max_size=2),
            "source": st.just("tower"),
        }
    ),
    st.fixed_dictionaries({"input": st.sampled_from(["double", "take", "pass"]), "side": SIDES}),
    st.fixed_dictionaries(
        {"input": st.just("double"), "side": SIDES, "value": st.sampled_from([2, 4, 8, 3])}
    ),
    st.fixed_dictionaries(
        {
            "input": st.sampled_from(["win", "resign"]),
            "side": SIDES,
            "kind": st.sampled_from(["single", "gammon", "backgammon"]),
        }
    ),
)
#: everything else: pauses, breaks, undo, TD commands
OTHER: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.fixed_dictionaries({"input": st.just("invalid_roll"), "side": SIDES}),
    st.fixed_dictionaries(
        {
            "input": st.just("pause"),
            "side": SIDES,
            "reason": st.sampled_from(["dispute", "td", "break", "equipment"]),
        }
    ),
    st.fixed_dictionaries({"input": st.just("pause"), "reason": st.sampled_from(["td", "power_loss"])}),
    st.fixed_dictionaries({"input": st.just("resume")}),
    st.fixed_dictionaries(
        {
            "input": st.sampled_from(
                ["break", "return", "call_td", "withdraw_call", "confirm", "premature_pickup", "checkin"]
            ),
            "side": SIDES,
        }
    ),
    st.fixed_dictionaries({"input": st.sampled_from(["undo", "tick"])}),
    _cmd("penalty", against=SIDES, points=st.integers(1, 2), reason=st.sampled_from(["late", "conduct"])),
    _cmd("forfeit", against=SIDES, reason=st.sampled_from(["late", "conduct"])),
    _cmd("waive", penalty_id=CMD_IDS),
    _cmd(
        "correct_score",
        score=st.fixed_dictionaries({"A": st.integers(0, 7), "B": st.integers(0, 7)}),
        note=st.just("sheet"),
    ),
    _cmd("set_length", length=st.integers(1, 13)),
    _cmd("impose_clock", minutes_per_point=st.sampled_from([0.5, 2]), delay_s=st.sampled_from([0, 12])),
    _cmd(
        "set_time", reserve_ms=st.fixed_dictionaries({"A": st.integers(0, 10**6), "B": st.integers(0, 10**6)})
    ),
    _cmd("resolve_flag", winner=SIDES),
    _cmd("start_clock", side=SIDES),
    _cmd("pause", reason=st.just("td")),
    _cmd("resume"),
    _cmd("forbid_double", side=SIDES),
    _cmd("force_double", side=SIDES),
    _cmd("crawford_double", choice=st.sampled_from(["keep", "void"])),
    _cmd("double_loss"),
)


@st.composite
def journals(draw: st.DrawFn, max_steps: int = 60) -> list[dict[str, Any]]:
    profile = draw(st.sampled_from(["wbgf-2023", "hbf", "hu", "ffbg-cdf"]))
    length = draw(st.sampled_from([1, 3, 5, 7, 9]))
    clock = draw(
        st.sampled_from([False, True, {"minutes_per_point": 0.5, "delay_s": 5, "second_bank_minutes": 1}])
    )
    at = draw(st.integers(0, 1000))
    journal: list[dict[str, Any]] = [
        {
            "at": at,
            "input": "assign",
            "match_id": "m",
            "length": length,
            "players": PLAYERS,
            "profile": profile,
            "clock": clock,
            "wall": 1_795_000_000_000,
        },
        {"at": at, "input": "checkin", "side": "A"},
        {"at": at, "input": "checkin", "side": "B"},
    ]
    for _ in range(draw(st.integers(0, max_steps))):
        at += draw(GAPS)
        if draw(st.integers(0, 40)) == 0:
            journal.append(
                {
                    "at": at,
                    "input": "assign",
                    "match_id": draw(st.sampled_from(["m", "m2"])),
                    "length": length,
                    "players": PLAYERS,
                    "profile": profile,
                    "clock": clock,
                    "force": draw(st.booleans()),
                }
            )
        else:
            journal.append({"at": at, **draw(PLAY if draw(st.integers(0, 9)) < 8 else OTHER)})
    return journal


def _live(journal: list[dict[str, Any]]) -> tuple[list[TableState], list[list[dict[str, Any]]]]:
    state = new_table("t9")
    states, events = [state], []
    for inp in journal:
        state, evs = apply(state, inp)
        states.append(state)
        events.append(evs)
    return states, events


@SETTINGS
@given(journal=journals(), data=st.data())
def test_replay_of_any_prefix_equals_live_application(
    journal: list[dict[str, Any]], data: st.DataObject
) -> None:
    states, _ = _live(journal)
    k = data.draw(st.integers(0, len(journal)), label="prefix")
    assert replay(journal[:k], new_table("t9")) == states[k]
    lines = [json.dumps(inp) for inp in journal[:k]]
    replayed = replay_lines(lines, table="t9")
    assert replayed == states[k]
    assert snapshot(replayed) == snapshot(states[k])


SCORE_LOWERING = {
    ("cmd", "correct_score"),
    ("cmd", "waive"),
    ("undo", None),
    ("assign", None),
    # HU 7.5: a Crawford double the leader voids after the game: the game is scored again
    ("cmd", "crawford_double"),
}


@SETTINGS
@given(journal=journals(max_steps=80))
def test_scores_only_grow_except_by_correction_waiver_or_undo(journal: list[dict[str, Any]]) -> None:
    states, events = _live(journal)
    for i, inp in enumerate(journal):
        before, after = states[i], states[i + 1]
        if before.match is None or after.match is None:
            continue
        lowered = after.match.score.a < before.match.score.a or after.match.score.b < before.match.score.b
        if lowered:
            key = (inp["input"], inp.get("type") if inp["input"] == "cmd" else None)
            assert key in SCORE_LOWERING, (inp, events[i])


@SETTINGS
@given(journal=journals(max_steps=80))
def test_the_crawford_game_happens_at_most_once_per_match(journal: list[dict[str, Any]]) -> None:
    states, events = _live(journal)
    crawford_games: dict[str, set[int]] = {}
    for i, evs in enumerate(events):
        state = states[i + 1]
        for event in evs:
            if event["type"] == "assign" and not event.get("rejected") and not event.get("duplicate"):
                crawford_games[str(state.match_id)] = set()
            if event["type"] == "opening_roll" and event.get("crawford") and not event.get("rejected"):
                crawford_games.setdefault(str(state.match_id), set()).add(event["game"])
        for games in crawford_games.values():
            assert len(games) <= 1
        # once decided, the Crawford game's number changes within a match only when the length is
        # corrected (4.4 iv is then judged under the right length)
        prev = states[i].match
        same_match = prev is not None and state.match is not None and states[i].match_id == state.match_id
        length_changed = same_match and state.match.length != prev.length  # type: ignore[union-attr]
        if (
            same_match
            and prev.crawford_game is not None
            and journal[i]["input"] != "assign"
            and not length_changed
        ):
            assert state.match.crawford_game == prev.crawford_game  # type: ignore[union-attr]


@SETTINGS
@given(journal=journals(max_steps=80))
def test_no_internal_faults_and_no_negative_reserve_on_plausible_journals(
    journal: list[dict[str, Any]],
) -> None:
    states, events = _live(journal)
    for state, evs in zip(states[1:], events, strict=True):
        for event in evs:
            assert INTERNAL_ERROR not in str(event.get("rejected", "")) + str(event.get("error", ""))
        for side in ("A", "B"):
            assert state.clock.reserve_at(side, state.now) >= 0  # type: ignore[arg-type]
            assert state.clock.delay_at(side, state.now) >= 0  # type: ignore[arg-type]
        json.dumps(snapshot(state))  # the snapshot is always JSON


# -- arbitrary JSON -------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = [
    "side",
    "dice",
    "A",
    "B",
    "kind",
    "reason",
    "id",
    "type",
    "value",
    "match_id",
    "length",
    "players",
    "clock",
    "profile",
    "score",
    "reserve_ms",
    "penalty_id",
    "against",
    "points",
    "winner",
    "minutes_per_point",
    "delay_s",
    "expires_wall",
    "wall",
    "start_wall",
    "source",
    "note",
    "final",
    "round",
    "force",
    "second_bank_minutes",
]
FIELD_VALUES = st.one_of(
    JSON,
    SIDES,
    st.sampled_from(["single", "gammon", "late", "td", "tower", "m", "hbf"]),
    st.integers(0, 12),
    st.just(PLAYERS),
    st.lists(st.integers(0, 7), min_size=2, max_size=2),
)
FUZZ_INPUTS = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"at": st.integers(0, 10**8), "input": st.sampled_from(sorted(InputType))},
        optional={
            **{k: FIELD_VALUES for k in FIELDS},
            "type": st.one_of(st.sampled_from(sorted(CommandType)), JSON),
        },
    ),
    st.dictionaries(st.sampled_from(["at", "input", *FIELDS]), FIELD_VALUES, max_size=6),
    # valid cores with arbitrary extras, so the fuzz reaches deep into assign and the commands
    st.fixed_dictionaries(
        {
            "at": st.integers(0, 10**8),
            "input": st.just("assign"),
            "match_id": st.sampled_from(["m", "m2"]),
            "length": st.integers(1, 9),
            "players": st.just(PLAYERS),
        },
        optional={
            "profile": FIELD_VALUES,
            "clock": st.one_of(
                FIELD_VALUES,
                st.fixed_dictionaries(
                    {"minutes_per_point": st.one_of(FIELD_VALUES, st.floats()), "delay_s": FIELD_VALUES},
                    optional={"second_bank_minutes": st.one_of(FIELD_VALUES, st.floats())},
                ),
            ),
            **{k: FIELD_VALUES for k in ("start_wall", "round", "final", "force", "wall")},
        },
    ),
    st.fixed_dictionaries(
        {
            "at": st.integers(0, 10**8),
            "input": st.just("cmd"),
            "id": st.text(min_size=1, max_size=3),
            "type": st.sampled_from(sorted(CommandType)),
        },
        optional={k: FIELD_VALUES for k in FIELDS if k not in ("id", "type")},
    ),
)


def _playing_table() -> TableState:
    state = new_table("f")
    for inp in (
        {
            "at": 0,
            "input": "assign",
            "match_id": "m",
            "length": 5,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
        },
        {"at": 0, "input": "checkin", "side": "A"},
        {"at": 0, "input": "checkin", "side": "B"},
        {"at": 0, "input": "opening_roll", "A": 3, "B": 1},
    ):
        state, _ = apply(state, inp)
    return state


PLAYING = _playing_table()


@pytest.mark.long
@settings(max_examples=400, deadline=None)
@given(inputs=st.lists(FUZZ_INPUTS, max_size=12), fresh=st.booleans())
def test_apply_never_raises_for_arbitrary_json(inputs: list[Any], fresh: bool) -> None:
    state = new_table("f") if fresh else PLAYING
    for inp in inputs:
        state, events = apply(state, inp)
        is_tick = isinstance(inp, dict) and inp.get("input") == "tick"
        assert events or is_tick, "every input but a tick yields at least one event"
        for event in events:
            assert INTERNAL_ERROR not in str(event.get("rejected", "")) + str(event.get("error", "")), event
        snapshot(state)


# -- the judge and the reducer agree --------------------------------------------------------------


def _accepted(state: TableState, inp: dict[str, Any]) -> bool:
    _, events = apply(state, {"at": state.now, **inp})
    return not any(e.get("rejected") or (e["type"] == "cmd_done" and not e["ok"]) for e in events)


def _probe_commands(state: TableState) -> list[tuple[dict[str, Any], Command]]:
    fields: list[dict[str, Any]] = [
        {"type": "penalty", "against": "B", "points": 1, "reason": "conduct"},
        {"type": "forfeit", "against": "A", "reason": "conduct"},
        {"type": "waive", "penalty_id": "c1"},
        {"type": "waive", "penalty_id": "late:m:B:1"},
        {"type": "start_clock", "side": "A"},
        {"type": "pause", "reason": "td"},
        {"type": "resume"},
        {"type": "set_time", "reserve_ms": {"A": 60_000, "B": 60_000}},
        {"type": "impose_clock", "minutes_per_point": 1, "delay_s": 10},
        {"type": "correct_score", "score": {"A": 1, "B": 2}, "note": "sheet"},
        # impossible finals (4.7 with 4.5): both at the length, or a loser at it
        *(
            {"type": "correct_score", "score": score, "note": "sheet"}
            for score in ({"A": 13, "B": 13}, {"A": 13, "B": 0}, {"A": 0, "B": 13})
        ),
        {"type": "resolve_flag", "winner": "B"},
        {"type": "td_ack"},
        *({"type": "set_length", "length": n} for n in (1, 3, 5, 9)),
        *({"type": kind, "side": s} for kind in ("forbid_double", "force_double") for s in ("A", "B")),
        {"type": "crawford_double", "choice": "keep"},
        {"type": "crawford_double", "choice": "void"},
        {"type": "double_loss"},
    ]
    return [(f, parse_command(f)) for f in fields]


@SETTINGS
@given(journal=journals(max_steps=60), data=st.data())
def test_legal_actions_are_exactly_what_the_reducer_accepts(
    journal: list[dict[str, Any]], data: st.DataObject
) -> None:
    """``legal_actions`` (published as the snapshot's ``legal``) and ``check_command`` (what the
    hub asks) say yes exactly when the reducer applies the input: probed in random states."""
    states, _ = _live(journal)
    for index in sorted(set(data.draw(st.lists(st.integers(0, len(journal)), min_size=1, max_size=4)))):
        state = states[index]
        legal = legal_actions(state)
        snap = snapshot(state)
        assert snap["legal"] == legal.as_json()
        for side in ("A", "B"):
            mine = legal.of(side)  # type: ignore[arg-type]
            probes: list[tuple[dict[str, Any], bool]] = [
                ({"input": "checkin", "side": side}, mine.checkin),
                ({"input": "press", "side": side}, mine.press),
                ({"input": "invalid_roll", "side": side}, mine.invalid_roll),
                (
                    {"input": "double", "side": side},
                    mine.double or mine.premature_double or mine.crawford_double,
                ),
                ({"input": "take", "side": side}, mine.take),
                ({"input": "pass", "side": side}, mine.pass_),
                ({"input": "break", "side": side}, mine.break_),
                ({"input": "return", "side": side}, mine.return_),
                ({"input": "call_td", "side": side}, mine.call_td),
                ({"input": "withdraw_call", "side": side}, mine.withdraw_call),
                ({"input": "confirm", "side": side}, mine.confirm),
                ({"input": "premature_pickup", "side": side}, mine.premature_pickup),
            ]
            probes += [
                ({"input": kind, "side": side, "kind": k}, k in allowed)
                for kind, allowed in (("win", mine.win), ("resign", mine.resign))
                for k in ("single", "gammon", "backgammon")
            ]
            probes += [
                ({"input": "pause", "side": side, "reason": r}, r in mine.pause)
                for r in PauseReason
                if r not in ("td", "power_loss")
            ]
            for inp, allowed in probes:
                assert _accepted(state, inp) == allowed, (inp, allowed, snap["legal"][side])
            assert snap["cube"]["usable"][side] == mine.double
            assert not mine.beaver
        table = legal.table
        for inp, allowed in (
            ({"input": "opening_roll", "A": 6, "B": 2}, table.opening_roll),
            ({"input": "roll", "dice": [3, 4], "source": "tower"}, table.roll),
            ({"input": "undo"}, table.undo),
            ({"input": "resume"}, table.resume),
            ({"input": "pause", "reason": "td"}, "td" in table.pause),
        ):
            assert _accepted(state, inp) == allowed, (inp, allowed, snap["legal"]["table"])
        for fields, cmd in _probe_commands(state):
            applied = _accepted(state, {"input": "cmd", "id": "probe-id", **fields})
            for judged in (state, snap):
                try:
                    check_command(judged, cmd)
                    said = True
                except CommandError:
                    said = False
                assert said == applied, (fields, applied, type(judged).__name__, snap["legal"]["td"])
