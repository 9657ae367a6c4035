"""Sample journals that bring a table to each screen: for screenshots, the bench and the tests.

Every sample is a real journal (PROTOCOL §1 inputs, each with ``at`` and ``wall``) replayed through
the rulebook, so the screens are drawn from snapshots the table can actually be in.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kiosk.screen_state import ScreenSnapshot, on_screen
from kiosk.ui.next_carry import Carried
from rulebook.messages import NextLine, NextMessage, PlayerPages
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.state import TableState
from rulebook.table import new_table
from rulebook.vocab import TABLE_PAUSES, CommandType, InputType

#: wall time of the first sample input (a Sunday afternoon in November 2026, UTC)
WALL0 = 1_795_100_400_000
TABLE = "12"
PLAYERS = {"A": {"name": "Alice Lambert", "id": "p17"}, "B": {"name": "Boris Ivanov", "id": "p42"}}


class Journal:
    """Builds a journal: each input ``dt`` ms after the previous, with its wall time."""

    def __init__(self, at: int = 1_000):
        self.at = at
        self.lines: list[dict[str, Any]] = []

    def add(self, dt: int = 1_000, **inp: Any) -> Journal:
        self.at += dt
        self.lines.append({"at": self.at, "wall": WALL0 + self.at, **inp})
        return self

    def wall(self) -> int:
        return WALL0 + self.at

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)


def assigned(length: int = 7, clock: Any = True, start_in_ms: int = 4 * 60_000, **extra: Any) -> Journal:
    j = Journal()
    j.add(
        0,
        input=InputType.ASSIGN,
        match_id=f"r3-t{TABLE}",
        length=length,
        players=PLAYERS,
        profile=extra.pop("profile", "wbgf-2023"),
        clock=clock,
        start_wall=WALL0 + 1_000 + start_in_ms,
        round="3",
        **extra,
    )
    return j


def checked_in(**kw: Any) -> Journal:
    j = assigned(**kw)
    j.add(20_000, input=InputType.CHECKIN, side="A").add(30_000, input=InputType.CHECKIN, side="B")
    return j


def started(first: str = "A", **kw: Any) -> Journal:
    """The opening roll was made and the lower roller started the clock."""
    j = checked_in(**kw)
    return _start_game(j, first)


def _start_game(j: Journal, first: str) -> Journal:
    roll = {"A": 5, "B": 3} if first == "A" else {"A": 2, "B": 6}
    j.add(5_000, input=InputType.OPENING_ROLL, **roll)
    j.add(2_000, input=InputType.PRESS, side="B" if first == "A" else "A")
    return j


def _game(j: Journal, first: str, winner: str, kind: str, cube: bool = False) -> Journal:
    """Play one game: the opening roll, a few turns, an optional double and take, the result."""
    _start_game(j, first)
    j.add(20_000, input=InputType.PRESS, side=first)
    second = "B" if first == "A" else "A"
    if cube:
        j.add(3_000, input=InputType.DOUBLE, side=second)
        j.add(4_000, input=InputType.TAKE, side=first)
        j.add(1_000, input=InputType.PRESS, side=first)
    j.add(25_000, input=InputType.PRESS, side=second)
    j.add(30_000, input=InputType.WIN, side=winner, kind=kind)
    return j


def playing(**kw: Any) -> Journal:
    """Game 1 under way: B to play, B's delay running."""
    j = started("A", **kw)
    j.add(20_000, input=InputType.PRESS, side="A")
    j.add(4_300, input=InputType.TICK)
    return j


def _a_reserve_set(a_ms: int) -> Journal:
    """A's clock runs after the TD set A's reserve to ``a_ms``, 20 seconds ago."""
    j = started("A")
    reserves = {"A": a_ms, "B": 305_000}
    j.add(1_000, input=InputType.CMD, id="td-1", type=CommandType.SET_TIME, reserve_ms=reserves)
    j.add(20_000, input=InputType.TICK)
    return j


def low_time() -> Journal:
    """A's reserve under 20 seconds: shown in tenths."""
    return _a_reserve_set(26_000)


def crawford() -> Journal:
    """6–1 in a 7-point match: the Crawford game is being played."""
    j = checked_in()
    _game(j, "A", "A", "gammon", cube=True)
    _game(j, "B", "B", "single")
    _game(j, "A", "A", "gammon")
    _start_game(j, "B")
    j.add(9_000, input=InputType.TICK)
    return j


def crawford_next() -> Journal:
    """Between games, the next one is the Crawford game."""
    j = checked_in()
    _game(j, "A", "A", "gammon", cube=True)
    _game(j, "B", "B", "single")
    _game(j, "A", "A", "gammon")
    return j


def cube_offer() -> Journal:
    """B doubled: A takes or passes."""
    j = playing()
    j.add(2_000, input=InputType.DOUBLE, side="B")
    j.add(500, input=InputType.PRESS, side="B")
    j.add(3_000, input=InputType.TICK)
    return j


def doubled() -> Journal:
    """B doubled and has not pressed the clock yet: B is told to press it."""
    j = playing()
    j.add(2_000, input=InputType.DOUBLE, side="B")
    j.add(1_500, input=InputType.TICK)
    return j


def cube_owned() -> Journal:
    j = cube_offer()
    j.add(1_000, input=InputType.TAKE, side="A")
    j.add(500, input=InputType.PRESS, side="A")
    j.add(2_000, input=InputType.TICK)
    return j


def between_games() -> Journal:
    j = checked_in()
    _game(j, "A", "B", "gammon", cube=True)
    return j


def on_break(late: bool = False) -> Journal:
    j = between_games()
    j.add(10_000, input=InputType.BREAK, side="A")
    j.add(6 * 60_000 + 12_000 if late else 80_000, input=InputType.TICK)
    return j


def paused(reason: str = "dispute") -> Journal:
    j = playing()
    by = {} if reason in TABLE_PAUSES else {"side": "A"}  # a player's pause names the player
    j.add(1_500, input=InputType.PAUSE, reason=reason, **by)
    return j


def flag() -> Journal:
    return _a_reserve_set(2_000)


def finished() -> Journal:
    j = checked_in(length=3)
    _game(j, "A", "A", "gammon", cube=True)
    j.add(5_000, input=InputType.CONFIRM, side="A")
    return j


def finished_confirmed() -> Journal:
    """Both players confirmed the result: the screen the "Next:" lines are shown on."""
    j = finished()
    j.add(3_000, input=InputType.CONFIRM, side="B")
    return j


def next_lines(match_id: str) -> NextMessage:
    """The hub's "Next:" lines for ``match_id`` (docs/protocol.md §3.8): the winner's next match
    called, the loser out of the main and into the consolation, his opponent still playing."""
    line: NextLine = {
        "kind": "called",
        "flight": "main",
        "round": 3,
        "table": "14",
        "opponent": "Anna Berg",
        "waits_for": None,
        "from_table": None,
        "left": None,
    }
    fed: NextLine = {
        **line,
        "kind": "waiting",
        "flight": "consolation",
        "round": 1,
        "table": None,
        "opponent": None,
        "waits_for": "loser",
        "from_table": "9",
        "left": "main",
    }
    return {"match_id": match_id, "wall": 1_900_000_000_000, "A": line, "B": fed}


def player_pages(match_id: str) -> dict[str, PlayerPages]:
    """An assignment's players' pages (docs/protocol.md §3.1) as the table keeps them: the draw's
    page of each player of ``match_id``, on a hub whose public address the organiser gave."""
    return {match_id: {"A": "http://192.168.1.10:8080/p/k7m2qxw", "B": "http://192.168.1.10:8080/p/3hz9fta"}}


def carried_lines(match_id: str, langs: dict[str, str | None] | None = None) -> tuple[NextMessage, Carried]:
    """The previous match's lines at this table (:func:`next_lines`), carried onto the waiting
    screen of ``match_id``, called there just now (:mod:`kiosk.ui.next_carry`)."""
    previous = f"r2-t{TABLE}"
    return next_lines(previous), Carried(previous, match_id, langs or {"A": None, "B": None}, 0.0)


def td_called() -> Journal:
    j = playing()
    j.add(1_000, input=InputType.CALL_TD, side="A")
    return j


def called() -> Journal:
    """A match just called to the table: nobody has checked in yet."""
    return assigned()


def waiting() -> Journal:
    j = assigned()
    j.add(20_000, input=InputType.CHECKIN, side="B")
    return j


def waiting_late() -> Journal:
    j = assigned(start_in_ms=-7 * 60_000)
    j.add(20_000, input=InputType.CHECKIN, side="B")
    j.add(10_000, input=InputType.TICK)
    return j


def opening() -> Journal:
    return checked_in()


def no_clock() -> Journal:
    j = started("A", clock=False)
    j.add(20_000, input=InputType.PRESS, side="A")
    return j


def idle() -> Journal:
    return Journal().add(0, input=InputType.TICK)


def crawford_hu() -> Journal:
    """HU, the Crawford game at 6-1: B, the trailer, is on turn before rolling. A double now is one
    the rule forbids; HU 7.5 records it for the leader (A) to keep or void."""
    j = checked_in(profile="hu")
    _game(j, "A", "A", "gammon", cube=True)
    _game(j, "B", "B", "single")
    _game(j, "A", "A", "gammon")
    _start_game(j, "B")
    j.add(15_000, input=InputType.PRESS, side="B")
    j.add(20_000, input=InputType.PRESS, side="A")
    j.add(3_000, input=InputType.TICK)
    return j


def crawford_hu_doubled() -> Journal:
    """B doubled in the Crawford game and pressed: the leader's choice is open (HU 7.5)."""
    j = crawford_hu()
    j.add(2_000, input=InputType.DOUBLE, side="B")
    j.add(500, input=InputType.PRESS, side="B")
    return j


def ffbg_playing() -> Journal:
    """FFBG with a clock: B's turn, before B rolls (the TD may enter a forced double, 6.8)."""
    return playing(profile="ffbg-cdf")


def hu_playing() -> Journal:
    """HU with a clock: B's turn (the TD may forbid a player's doubles, 7.9)."""
    return playing(profile="hu")


def _redoubled(j: Journal, doubles: int) -> Journal:
    """A game at a scoreboard in which the players double and take ``doubles`` times."""
    j.add(5_000, input=InputType.OPENING_ROLL, A=5, B=3)
    doubler, taker = "B", "A"
    for _ in range(doubles):
        j.add(10_000, input=InputType.DOUBLE, side=doubler)
        j.add(5_000, input=InputType.TAKE, side=taker)
        doubler, taker = taker, doubler
    return j


def big_cube() -> Journal:
    """FFBG, 99 points: "aucune limite au nombre de redoubles": the cube at 128."""
    return _redoubled(checked_in(length=99, clock=False, profile="ffbg-cdf"), 7)


def huge_cube() -> Journal:
    """A custom profile without the dead-cube rule: the cube at the table's ceiling, 2**20."""
    profile = {"base": "ffbg-cdf", "dead_cube": False}
    return _redoubled(checked_in(length=99, clock=False, profile=profile), 20)


def double_loss() -> Journal:
    """FFBG 10.3: the table was left on a neutralised clock; the TD declared a double loss."""
    j = ffbg_playing()
    j.add(1_000, input=InputType.CMD, id="td-p", type=CommandType.PAUSE, reason="td")
    j.add(10 * 60_000, input=InputType.CMD, id="td-dl", type=CommandType.DOUBLE_LOSS, note="10.3")
    return j


SAMPLES: dict[str, Callable[[], Journal]] = {
    "idle": idle,
    "called": called,
    "waiting": waiting,
    "waiting_late": waiting_late,
    "opening": opening,
    "playing": playing,
    "low_time": low_time,
    "crawford": crawford,
    "doubled": doubled,
    "cube_offer": cube_offer,
    "cube_owned": cube_owned,
    "between_games": between_games,
    "crawford_next": crawford_next,
    "break": on_break,
    "break_late": lambda: on_break(late=True),
    "paused": paused,
    "power_loss": lambda: paused("power_loss"),
    "flag": flag,
    "finished": finished,
    "finished_confirmed": finished_confirmed,
    "td_called": td_called,
    "no_clock": no_clock,
    "crawford_hu": crawford_hu,
    "crawford_hu_doubled": crawford_hu_doubled,
    "ffbg_playing": ffbg_playing,
    "hu_playing": hu_playing,
    "big_cube": big_cube,
    "huge_cube": huge_cube,
    "double_loss": double_loss,
}


def sample_state(name: str, table: str = TABLE) -> TableState:
    """The state at the end of sample ``name`` (through the real reducer) at table ``table``."""
    journal = SAMPLES[name]()
    return replay(journal.lines, new_table(table))


def sample_snapshot(name: str, table: str = TABLE) -> ScreenSnapshot:
    """The snapshot at the end of sample ``name`` (through the real reducer) at table ``table``."""
    return on_screen(snapshot(sample_state(name, table)))
