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
from dataclasses import dataclass, replace
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

    @property
    def id(self) -> str:
        """Stable: planning twice at the same moment gives the same ids (STYLE.md 5); a match
        called again after its call was withdrawn gets another."""
        return f"call:{self.match}:{self.called_at}"


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
        """The call no longer stands: other players, the match no longer to be played, or a
        match played to be played again (its table may hold another match by now: it is called
        again like any other)."""
        if self.call is None or self.after.state is State.PLAYED:
            return False
        return self.before.seats != self.after.seats or not self.after.is_ready() or self.before.is_decided()

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


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the calls depend on, gathered in one pass over the bracket and the calls."""

    bracket: Bracket
    settings: CallSettings
    called: frozenset[str]
    #: player → the live match he plays
    live: dict[str, str]
    #: player → his matches whose result waits for the TD's verification (when it is needed)
    unverified: dict[str, list[str]]
    #: player → when he came free: his latest result's verification (or confirmation)
    since: dict[str, int]


def _facts(bracket: Bracket, calls: Iterable[Call], settings: CallSettings) -> _Facts:
    listed = tuple(calls)
    unverified: dict[str, list[str]] = {}
    since: dict[str, int] = {}
    for m in bracket.matches():
        r = m.result
        if r is None:
            continue
        done = r.verified_at if settings.needs_verified and r.verified_at is not None else r.at
        for p in m.players:
            since[p] = max(since.get(p, 0), done)
            if settings.needs_verified and not r.is_verified:
                unverified.setdefault(p, []).append(m.id)
    called = frozenset(c.match for c in listed)
    return _Facts(bracket, settings, called, playing(bracket, listed), unverified, since)


def _player_waits(facts: _Facts, player: str) -> tuple[Wait, ...]:
    out: list[Wait] = []
    if player in facts.live:
        out.append(Wait(WaitKind.PLAYING, facts.live[player], player))
    out.extend(Wait(WaitKind.VERIFICATION, m, player) for m in facts.unverified.get(player, ()))
    return tuple(out)


def _match_waits(facts: _Facts, holds: Holds, m: BracketMatch) -> tuple[Wait, ...]:
    if m.is_decided() or m.id in facts.called:
        return ()
    out: list[Wait] = []
    for seat, source in zip(m.seats, m.match.sources, strict=True):
        if seat is None and isinstance(source, WinnerOf | LoserOf):
            # a seat not known yet: its source match is not decided (a decided one gives its seat)
            out.append(Wait(WaitKind.RESULT, source.match))
    for p in m.players:
        out.extend(_player_waits(facts, p))
    if holds.is_held(m.match):
        out.append(Wait(WaitKind.HELD, m.id))
    return tuple(out)


def _queue(facts: _Facts, holds: Holds) -> list[BracketMatch]:
    flights = {f.name: i for i, f in enumerate(facts.bracket.event.flights)}

    def priority(m: BracketMatch) -> tuple[int, int, int, int]:
        since = max(facts.since.get(p, 0) for p in m.players)
        return (since, flights[m.match.flight], m.match.round, m.match.number)

    ready = [
        m for m in facts.bracket.ready() if m.id not in facts.called and not _match_waits(facts, holds, m)
    ]
    return sorted(ready, key=priority)


def player_waits(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, player: str
) -> tuple[Wait, ...]:
    """Why ``player`` is not free (nothing when free)."""
    return _player_waits(_facts(bracket, calls, settings), player)


def is_player_free(bracket: Bracket, calls: Iterable[Call], settings: CallSettings, player: str) -> bool:
    return not player_waits(bracket, calls, settings, player)


def waits(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds, match_id: str
) -> tuple[Wait, ...]:
    """What a match not called yet waits for: results for its unknown seats, its players' other
    matches, the TD's hold. Nothing for a match decided, called, or callable."""
    return _match_waits(_facts(bracket, calls, settings), holds, bracket.match(match_id))


def is_callable(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds, match_id: str
) -> bool:
    facts = _facts(bracket, calls, settings)
    m = bracket.match(match_id)
    return m.is_ready() and m.id not in facts.called and not _match_waits(facts, holds, m)


def queue(
    bracket: Bracket, calls: Iterable[Call], settings: CallSettings, holds: Holds
) -> tuple[BracketMatch, ...]:
    """The callable matches, first to be called first (see the module doc)."""
    return tuple(_queue(_facts(bracket, calls, settings), holds))


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
    facts = _facts(bracket, listed, settings)
    busy = set(facts.live)
    last = _last_tables(bracket, listed) if settings.keep_player_table else {}
    # the matches called now: the queue's first, as many as there are free tables, each player once
    chosen: list[BracketMatch] = []
    for m in _queue(facts, holds):
        if len(chosen) == len(free):
            break
        if not any(p in busy for p in m.players):
            chosen.append(m)
            busy.update(m.players)
    # a player kept at his table: that table is his match's, unless an earlier match has it
    homes: dict[str, str] = {}
    for m in chosen:
        home = next(
            (last[p] for p in m.players if last.get(p) in free and last[p] not in homes.values()), None
        )
        if home is not None:
            homes[m.id] = home
    out: list[Call] = []
    for m in chosen:
        table = _pick(m, free, settings, homes)
        free.remove(table)
        out.append(Call(m.id, table, now, now + settings.grace_ms))
    return tuple(out)


def moved_call(
    bracket: Bracket, calls: Iterable[Call], tables: Iterable[TableState], match_id: str, table: str
) -> tuple[Call, ...]:
    """The calls with a live call moved to another table (the TD's choice), which must be in
    service and hold no live match; its call and start times stay."""
    listed = tuple(calls)
    call = _live_call(bracket, listed, match_id)
    known = {t.name: t for t in tables}
    if table not in known:
        raise DrawError("draw.call.table_unknown", table=table)
    if table == call.table:
        return listed
    holder = next((c.match for c in live_calls(bracket, listed) if c.table == table), None)
    if holder is not None or not known[table].is_free:
        raise DrawError("draw.call.table_busy", table=table, match=holder or "out of service")
    return tuple(replace(c, table=table) if c == call else c for c in listed)


def swapped_calls(bracket: Bracket, calls: Iterable[Call], match_a: str, match_b: str) -> tuple[Call, ...]:
    """The calls with two live calls' tables swapped (the TD's choice)."""
    listed = tuple(calls)
    a = _live_call(bracket, listed, match_a)
    b = _live_call(bracket, listed, match_b)
    swap = {a: replace(a, table=b.table), b: replace(b, table=a.table)}
    return tuple(swap.get(c, c) for c in listed)


def _live_call(bracket: Bracket, calls: tuple[Call, ...], match_id: str) -> Call:
    bracket.match(match_id)
    call = next((c for c in live_calls(bracket, calls) if c.match == match_id), None)
    if call is None:
        raise DrawError("draw.call.none", match=match_id)
    return call


def call_changes(old: Bracket, new: Bracket, calls: Iterable[Call]) -> tuple[MatchChange, ...]:
    """What an undo, a correction or a withdrawal changes (``old`` → ``new``), with the calls."""
    by_match = {c.match: c for c in calls}
    return tuple(MatchChange(a, b, by_match.get(a.id)) for a, b in diff(old, new))


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


def _pick(m: BracketMatch, free: list[str], settings: CallSettings, homes: dict[str, str]) -> str:
    """The match's own table (a player kept at his table), else the flight's preferred tables,
    else any free table; the tables kept for later matches' players last."""
    home = homes.get(m.id)
    if home in free:
        return home
    kept = set(homes.values())
    for table in settings.preferred(m.match.flight):
        if table in free and table not in kept:
            return table
    return next((t for t in free if t not in kept), free[0])


def _natural(table: str) -> tuple[int, str]:
    """Table 2 before table 10, named tables after the numbered ones (as the hub sorts them)."""
    return (int(table), "") if table.isdigit() else (10**9, table)
