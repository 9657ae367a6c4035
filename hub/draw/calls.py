"""Rolling calls: which ready matches can be called now, what each one waits for, and the calls
to make to the tables that are free (pure: the hub passes the bracket, the calls it made, the
tables and ``now``; it records and announces what this returns).

A match is **callable** when it is ready (both players known), not called yet, neither its
flight nor the match is held, and both players are free: no live match (a call whose match has no
result yet), and every match they played has its result verified by the TD (or only confirmed by
the table, when :attr:`CallSettings.needs_verified` is off). The queue of callable matches is
first come, first served: by the time its later player became free (the result's verification,
or its confirmation), then by flight, round and number. Each call takes a free table: the table a
player has just played at when the TD keeps players at their table, else the flight's preferred
tables in the TD's order, else any free table (2 before 10). The match starts at the call time
plus the walking grace: lateness counts from there.

So by construction: no player is in two live matches, no table holds two live matches, and a
match is called once (a call the hub withdrew, after an undo, is no longer in ``calls``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from hub.draw.bracket import Bracket, BracketMatch, State, diff
from hub.draw.errors import DrawError
from hub.draw.flights import LoserOf, Match, WinnerOf

#: the longest walking grace (an hour, in ms)
MAX_GRACE_MS = 3_600_000


@dataclass(frozen=True, slots=True)
class Call:
    """A match called to a table at hub time ``called_at`` (ms), to start at ``start``."""

    match: str
    table: str
    called_at: int
    start: int


@dataclass(frozen=True, slots=True)
class TableState:
    """A table as the hub sees it: ``is_free`` when it is in service and holds no match."""

    name: str
    is_free: bool = True


@dataclass(frozen=True, slots=True)
class CallSettings:
    """The TD's settings for calls. ``prefer``: per flight, the tables to use first, in order."""

    grace_ms: int = 300_000
    needs_verified: bool = True
    keep_player_table: bool = False
    prefer: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        if type(self.grace_ms) is not int or not 0 <= self.grace_ms <= MAX_GRACE_MS:
            raise DrawError("draw.call.grace", grace=self.grace_ms, limit=MAX_GRACE_MS)

    def preferred(self, flight: str) -> tuple[str, ...]:
        return next((tables for name, tables in self.prefer if name == flight), ())


@dataclass(frozen=True, slots=True)
class Holds:
    """What the TD holds: whole flights, and single matches (calls)."""

    flights: frozenset[str] = frozenset()
    matches: frozenset[str] = frozenset()

    def is_held(self, match: Match) -> bool:
        return match.flight in self.flights or match.id in self.matches


class WaitKind(Enum):
    #: a seat is not known until ``match`` has a result
    RESULT = "result"
    #: ``player`` is still playing ``match``
    PLAYING = "playing"
    #: ``player``'s result of ``match`` is not verified yet
    VERIFICATION = "verification"
    #: the TD holds the flight or this call
    HELD = "held"


@dataclass(frozen=True, slots=True)
class Wait:
    kind: WaitKind
    match: str | None = None
    player: str | None = None


@dataclass(frozen=True, slots=True)
class MatchChange:
    """A match an undo, a correction or a withdrawal changes, with its call if it had one."""

    before: BracketMatch
    after: BracketMatch
    call: Call | None

    def voids_call(self) -> bool:
        """The call no longer stands: other players, or the match is no longer to be played."""
        if self.call is None or self.after.state is State.PLAYED:
            return False
        return self.before.seats != self.after.seats or not self.after.is_ready()

    def is_reopened(self) -> bool:
        """A decided match to be played again (its result undone)."""
        return self.before.is_decided() and self.after.is_ready()

    def is_newly_ready(self) -> bool:
        return self.after.is_ready() and not self.before.is_ready()


def live_calls(bracket: Bracket, calls: Iterable[Call]) -> tuple[Call, ...]:
    """The calls whose match is still to be played (called, no result, not decided otherwise)."""
    return tuple(c for c in calls if bracket.match(c.match).is_ready())


def playing(bracket: Bracket, calls: Iterable[Call]) -> dict[str, str]:
    """Each player in a live match, and that match."""
    return {p: c.match for c in live_calls(bracket, calls) for p in bracket.match(c.match).players}


def player_waits(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, player: str
) -> tuple[Wait, ...]:
    """Why ``player`` is not free (nothing when free)."""
    live = playing(bracket, calls)
    out: list[Wait] = []
    if player in live:
        out.append(Wait(WaitKind.PLAYING, live[player], player))
    if settings.needs_verified:
        out.extend(
            Wait(WaitKind.VERIFICATION, m.id, player)
            for m in bracket.matches_of(player)
            if m.result is not None and not m.result.is_verified
        )
    return tuple(out)


def is_player_free(bracket: Bracket, calls: Iterable[Call], settings: CallSettings, player: str) -> bool:
    return not player_waits(bracket, calls, settings, player)


def waits(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds, match_id: str
) -> tuple[Wait, ...]:
    """What a match not called yet waits for: results for its unknown seats, its players' other
    matches, the TD's hold. Nothing for a match decided, called, or callable."""
    m = bracket.match(match_id)
    listed = tuple(calls)
    if m.is_decided() or any(c.match == match_id for c in listed):
        return ()
    out: list[Wait] = []
    for seat, source in zip(m.seats, m.match.sources, strict=True):
        if seat is None and isinstance(source, WinnerOf | LoserOf):
            # a seat not known yet: its source match is not decided (a decided one gives its seat)
            out.append(Wait(WaitKind.RESULT, source.match))
    for p in m.players:
        out.extend(player_waits(bracket, listed, settings, p))
    if holds.is_held(m.match):
        out.append(Wait(WaitKind.HELD, match_id))
    return tuple(out)


def is_callable(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds, match_id: str
) -> bool:
    listed = tuple(calls)
    m = bracket.match(match_id)
    return (
        m.is_ready()
        and not any(c.match == match_id for c in listed)
        and not waits(bracket, listed, settings, holds, match_id)
    )


def queue(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds
) -> tuple[BracketMatch, ...]:
    """The callable matches, first to be called first (see the module doc)."""
    listed = tuple(calls)
    ready = [m for m in bracket.ready() if is_callable(bracket, listed, settings, holds, m.id)]
    return tuple(sorted(ready, key=lambda m: _priority(bracket, settings, m)))


def plan_calls(
    bracket: Bracket,
    calls: Iterable[Call],
    tables: Iterable[TableState],
    settings: CallSettings,
    holds: Holds,
    now: int,
) -> tuple[Call, ...]:
    """The calls to make now: the queue's matches, in order, to the free tables."""
    listed = tuple(calls)
    live = live_calls(bracket, listed)
    known = list(tables)
    taken = {c.table for c in live} | {t.name for t in known if not t.is_free}
    free = sorted((t.name for t in known if t.name not in taken), key=_natural)
    busy = set(playing(bracket, listed))
    last = _last_tables(bracket, listed) if settings.keep_player_table else {}
    out: list[Call] = []
    for m in queue(bracket, listed, settings, holds):
        if not free:
            break
        if any(p in busy for p in m.players):
            continue
        table = _pick(m, free, settings, last)
        free.remove(table)
        busy.update(m.players)
        out.append(Call(m.id, table, now, now + settings.grace_ms))
    return tuple(out)


def call_changes(old: Bracket, new: Bracket, calls: Iterable[Call]) -> tuple[MatchChange, ...]:
    """What an undo, a correction or a withdrawal changes (``old`` → ``new``), with the calls."""
    by_match = {c.match: c for c in calls}
    return tuple(MatchChange(a, b, by_match.get(a.id)) for a, b in diff(old, new))


def _free_since(bracket: Bracket, settings: CallSettings, player: str) -> int:
    times = [
        (
            m.result.verified_at
            if settings.needs_verified and m.result.verified_at is not None
            else m.result.at
        )
        for m in bracket.matches_of(player)
        if m.result is not None
    ]
    return max(times, default=0)


def _priority(bracket: Bracket, settings: CallSettings, m: BracketMatch) -> tuple[int, int, int, int]:
    since = max(_free_since(bracket, settings, p) for p in m.players)
    return (since, bracket.event.flight_index(m.match.flight), m.match.round, m.match.number)


def _last_tables(bracket: Bracket, calls: tuple[Call, ...]) -> dict[str, str]:
    """The table each player last played at (his latest result's call)."""
    latest: dict[str, tuple[int, str]] = {}
    for c in calls:
        m = bracket.match(c.match)
        if m.state is State.PLAYED and m.result is not None:
            for p in m.players:
                if p not in latest or latest[p][0] <= m.result.at:
                    latest[p] = (m.result.at, c.table)
    return {p: table for p, (_, table) in latest.items()}


def _pick(m: BracketMatch, free: list[str], settings: CallSettings, last: dict[str, str]) -> str:
    for p in m.players:
        if last.get(p) in free:
            return last[p]
    for table in settings.preferred(m.match.flight):
        if table in free:
            return table
    return free[0]


def _natural(table: str) -> tuple[int, str]:
    """Table 2 before table 10, named tables after the numbered ones (as the hub sorts them)."""
    return (int(table), "") if table.isdigit() else (10**9, table)
