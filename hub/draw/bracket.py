"""The bracket as a value: the event's flights, their draws, the results and the withdrawals in;
every match's players and state derived from them.

Nothing here is remembered that could be derived: a :class:`Bracket` holds only its inputs, and
every match is worked out from them in the event's order (each match after those it depends on).
So a result undone, a withdrawal taken back or a result corrected gives exactly the bracket built
from scratch with the inputs as they are now, and :func:`diff` says which matches that changes.

A match's state (:class:`State`):

- ``waiting``: a player is not known yet (the result it waits for is not in);
- ``ready``: both players known, no result yet (to be called and played);
- ``played``: its result is in (a winner, confirmed by the table; verified later by the TD);
- ``bye``: decided without play because one side (or both) is a bye; the player, if any, goes on;
- ``walkover``: decided without play because a player withdrew: the other one goes on.

A result stands once it is in: a player who withdraws after a match keeps its result, and loses
every match of his not decided yet by walkover (a bye is decided by the draw: its player goes on,
withdrawn or not, and loses the match after it by walkover). Of two withdrawn players, the one who
withdrew first loses, so a later withdrawal never takes back a walkover others have played on.
The loser of a bye or of a walkover feeds no flight (a bye is nobody; a withdrawn player is out
of the event), so the fed flight has a bye there. An action that would change the players of a
match that already has a result (undoing the result that put one of them there) is refused,
naming those results: they are undone first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from hub.draw.errors import DrawError
from hub.draw.flights import EntryFlight, Event, LoserOf, Match, Slot, WinnerOf
from hub.draw.seeding import Draw, is_player_key


class Bye(Enum):
    BYE = "bye"


#: the seat of a bye: nobody plays there
BYE = Bye.BYE
#: a seat: a player's key, a bye, or ``None`` while it is not known
Seat = str | Bye | None


class State(Enum):
    WAITING = "waiting"
    READY = "ready"
    PLAYED = "played"
    BYE = "bye"
    WALKOVER = "walkover"


@dataclass(frozen=True, slots=True)
class Result:
    """A match's winner, as the table confirmed it at hub time ``at`` (ms); ``verified_at`` once
    the TD verified it. ``points``: the winner's and the loser's, when known."""

    match: str
    winner: str
    at: int
    verified_at: int | None = None
    points: tuple[int, int] | None = None

    @property
    def is_verified(self) -> bool:
        return self.verified_at is not None


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A player out of the event from hub time ``at`` (ms)."""

    player: str
    at: int


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """A match with what the inputs say of it. ``winner`` is the seat that goes on (a player, or
    a bye when nobody does); ``loser`` the seat its loser feeds (a bye after a bye or a
    walkover). Both are ``None`` while the match is not decided."""

    match: Match
    seats: tuple[Seat, Seat]
    state: State
    winner: Seat = None
    loser: Seat = None
    result: Result | None = None

    @property
    def id(self) -> str:
        return self.match.id

    @property
    def players(self) -> tuple[str, ...]:
        """The players known at this match (a bye is none)."""
        return tuple(s for s in self.seats if isinstance(s, str))

    def has_players(self) -> bool:
        """Both seats are players (whether or not the match is decided)."""
        return all(isinstance(s, str) for s in self.seats)

    def is_decided(self) -> bool:
        return self.state in (State.PLAYED, State.BYE, State.WALKOVER)

    def is_ready(self) -> bool:
        return self.state is State.READY


@dataclass(frozen=True)
class Bracket:
    """The inputs (event, draws, results, withdrawals) and every match derived from them.

    Two brackets are equal when their inputs are; results and withdrawals are sets, so the order
    they came in does not matter. Every change returns a new bracket."""

    event: Event
    draws: tuple[Draw, ...]
    results: frozenset[Result] = frozenset()
    withdrawals: frozenset[Withdrawal] = frozenset()
    _view: dict[str, BracketMatch] = field(init=False, compare=False, repr=False)
    _by_result: dict[str, Result] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        draws = _checked_draws(self.event, self.draws)
        object.__setattr__(self, "draws", draws)
        by_result = _checked_results(self.event, self.results)
        players = {p for d in draws for p in d.players}
        for w in self.withdrawals:
            if w.player not in players:
                raise DrawError("draw.player.unknown", player=w.player)
        if len(self.withdrawn) != len(self.withdrawals):
            raise DrawError("draw.player.withdrawn", player=sorted(w.player for w in self.withdrawals))
        view, problems = _derive(self.event, draws, by_result, self.withdrawals)
        if problems:
            raise problems[0]
        object.__setattr__(self, "_view", view)
        object.__setattr__(self, "_by_result", by_result)

    @classmethod
    def build(
        cls,
        event: Event,
        draws: Iterable[Draw],
        results: Iterable[Result] = (),
        withdrawals: Iterable[Withdrawal] = (),
    ) -> Bracket:
        return cls(event, tuple(draws), frozenset(results), frozenset(withdrawals))

    # -- what it says ---------------------------------------------------------------------------

    def match(self, match_id: str) -> BracketMatch:
        self.event.match(match_id)
        return self._view[match_id]

    def matches(self) -> tuple[BracketMatch, ...]:
        """Every match, in the event's order (flight, round, number)."""
        return tuple(self._view[m.id] for m in self.event.matches)

    def flight_matches(self, flight: str) -> tuple[BracketMatch, ...]:
        self.event.flight(flight)
        return tuple(m for m in self.matches() if m.match.flight == flight)

    def ready(self) -> tuple[BracketMatch, ...]:
        """The matches whose two players are known and that wait only to be played."""
        return tuple(m for m in self.matches() if m.is_ready())

    def matches_of(self, player: str) -> tuple[BracketMatch, ...]:
        """Every match where ``player`` has a seat, in the event's order."""
        return tuple(m for m in self.matches() if player in m.seats)

    def next_match(self, player: str) -> BracketMatch | None:
        """The match ``player`` plays next: his first seat in a match not decided yet (its
        opponent may not be known yet); ``None`` when he is out, or has won."""
        return next((m for m in self.matches_of(player) if not m.is_decided()), None)

    def result(self, match_id: str) -> Result | None:
        self.event.match(match_id)
        return self._by_result.get(match_id)

    def players(self) -> tuple[str, ...]:
        return tuple(sorted({p for d in self.draws for p in d.players}))

    @property
    def withdrawn(self) -> frozenset[str]:
        """The players who have withdrawn."""
        return frozenset(w.player for w in self.withdrawals)

    def is_withdrawn(self, player: str) -> bool:
        return player in self.withdrawn

    def is_complete(self) -> bool:
        return all(m.is_decided() for m in self._view.values())

    # -- what changes it ------------------------------------------------------------------------

    def with_result(
        self, match_id: str, winner: str, at: int, *, points: tuple[int, int] | None = None
    ) -> Bracket:
        """The bracket with this match won by ``winner`` (confirmed at hub time ``at``)."""
        m = self.match(match_id)
        if m.state is State.PLAYED:
            raise DrawError("draw.result.repeated", match=match_id)
        if m.state is not State.READY:
            raise DrawError("draw.result.not_ready", match=match_id, state=m.state.value)
        if winner not in m.players:
            raise DrawError("draw.result.not_a_player", match=match_id, winner=winner)
        return self._changed(results=self.results | {Result(match_id, winner, at, points=points)})

    def corrected(
        self, match_id: str, winner: str, at: int, *, points: tuple[int, int] | None = None
    ) -> Bracket:
        """The bracket with this match's result replaced (the TD's correction, at ``at``): the
        same as undoing it and recording the right one, also when a player has withdrawn since
        (refused while a later result depends on who won it)."""
        r = self._result_of(match_id)
        m = self.match(match_id)
        if winner not in m.players:
            raise DrawError("draw.result.not_a_player", match=match_id, winner=winner)
        fixed = Result(match_id, winner, at, points=points)
        return self._changed(results=(self.results - {r}) | {fixed}, cause=match_id)

    def verified(self, match_id: str, at: int) -> Bracket:
        """The bracket with this match's result verified by the TD at ``at`` (once)."""
        r = self._result_of(match_id)
        if r.is_verified:
            return self
        return self._changed(results=(self.results - {r}) | {replace(r, verified_at=at)})

    def undone(self, match_id: str) -> Bracket:
        """The bracket without this match's result: the match is to be played again (refused
        while a later result depends on who won it)."""
        r = self._result_of(match_id)
        return self._changed(results=self.results - {r}, cause=match_id)

    def with_withdrawal(self, player: str, at: int) -> Bracket:
        """``player`` withdraws at hub time ``at``: every match of his not decided yet is a
        walkover."""
        if player not in self.players():
            raise DrawError("draw.player.unknown", player=player)
        if player in self.withdrawn:
            raise DrawError("draw.player.withdrawn", player=player)
        return self._changed(withdrawals=self.withdrawals | {Withdrawal(player, at)})

    def without_withdrawal(self, player: str) -> Bracket:
        """A withdrawal taken back (refused while a later result depends on its walkovers)."""
        taken_back = {w for w in self.withdrawals if w.player == player}
        if not taken_back:
            raise DrawError("draw.player.not_withdrawn", player=player)
        return self._changed(withdrawals=self.withdrawals - taken_back, cause=player)

    def _result_of(self, match_id: str) -> Result:
        self.event.match(match_id)
        r = self._by_result.get(match_id)
        if r is None:
            raise DrawError("draw.result.none", match=match_id)
        return r

    def _changed(
        self,
        *,
        results: frozenset[Result] | None = None,
        withdrawals: frozenset[Withdrawal] | None = None,
        cause: str = "",
    ) -> Bracket:
        results = self.results if results is None else results
        withdrawals = self.withdrawals if withdrawals is None else withdrawals
        _, problems = _derive(self.event, self.draws, {r.match: r for r in results}, withdrawals)
        if problems:
            dependents = [str(p.params["match"]) for p in problems]
            raise DrawError("draw.result.dependent", match=cause, dependents=", ".join(dependents))
        return Bracket(self.event, self.draws, results, withdrawals)


def diff(old: Bracket, new: Bracket) -> tuple[tuple[BracketMatch, BracketMatch], ...]:
    """The matches whose seats, state or result differ between two brackets of one event, as
    (before, after), in the event's order."""
    return tuple((a, b) for a, b in zip(old.matches(), new.matches(), strict=True) if a != b)


def _checked_draws(event: Event, draws: Iterable[Draw]) -> tuple[Draw, ...]:
    by_flight: dict[str, Draw] = {}
    for d in draws:
        flight = event.flight(d.flight)
        if not isinstance(flight, EntryFlight):
            raise DrawError("draw.draw.flight", flight=d.flight)
        if d.flight in by_flight:
            raise DrawError("draw.flight.repeated", flight=d.flight)
        if len(d.positions) != flight.size:
            raise DrawError("draw.draw.size", flight=d.flight, got=len(d.positions), size=flight.size)
        seen: set[str] = set()
        for p in d.players:
            if not is_player_key(p):
                raise DrawError("draw.entries.player", player=p)
            if p in seen:
                raise DrawError("draw.entries.repeated", flight=d.flight, player=p)
            seen.add(p)
        by_flight[d.flight] = d
    for f in event.flights:
        if isinstance(f, EntryFlight) and f.name not in by_flight:
            raise DrawError("draw.draw.missing", flight=f.name)
    return tuple(by_flight[f.name] for f in event.flights if f.name in by_flight)


def _checked_results(event: Event, results: Iterable[Result]) -> dict[str, Result]:
    by_match: dict[str, Result] = {}
    for r in results:
        event.match(r.match)
        if r.match in by_match:
            raise DrawError("draw.result.repeated", match=r.match)
        if r.points is not None and (
            len(r.points) != 2 or any(type(p) is not int or p < 0 for p in r.points)
        ):
            raise DrawError("draw.result.points", match=r.match, points=r.points)
        by_match[r.match] = r
    return by_match


def _derive(
    event: Event, draws: tuple[Draw, ...], results: Mapping[str, Result], withdrawals: frozenset[Withdrawal]
) -> tuple[dict[str, BracketMatch], list[DrawError]]:
    """Every match from the inputs, in the event's order; the results that do not fit the match
    they name (its players not known, or the winner not one of them) are left out and listed."""
    positions = {d.flight: d.positions for d in draws}
    withdrawn = {w.player: (w.at, w.player) for w in withdrawals}
    view: dict[str, BracketMatch] = {}
    problems: list[DrawError] = []
    for m in event.matches:
        seats = (_seat(m, 0, positions, view), _seat(m, 1, positions, view))
        result = results.get(m.id)
        if result is not None:
            if not all(isinstance(s, str) for s in seats):
                problems.append(
                    DrawError("draw.result.not_ready", match=m.id, state="not both players known")
                )
            elif result.winner not in seats:
                problems.append(DrawError("draw.result.not_a_player", match=m.id, winner=result.winner))
            else:
                loser = seats[1] if seats[0] == result.winner else seats[0]
                view[m.id] = BracketMatch(m, seats, State.PLAYED, result.winner, loser, result)
                continue
        view[m.id] = _unplayed(m, seats, withdrawn)
    return view, problems


def _seat(
    m: Match, side: int, positions: Mapping[str, tuple[str | None, ...]], view: Mapping[str, BracketMatch]
) -> Seat:
    source = m.sources[side]
    if isinstance(source, Slot):
        player = positions[m.flight][source.position - 1]
        return BYE if player is None else player
    above = view[source.match]
    if isinstance(source, WinnerOf):
        return above.winner
    assert isinstance(source, LoserOf)
    return above.loser


def _unplayed(m: Match, seats: tuple[Seat, Seat], withdrawn: Mapping[str, tuple[int, str]]) -> BracketMatch:
    if seats[0] is None or seats[1] is None:
        return BracketMatch(m, seats, State.WAITING)
    # a bye is decided by the draw itself, whoever withdraws later: its player goes on
    if seats[0] is BYE or seats[1] is BYE:
        goes_on = seats[1] if seats[0] is BYE else seats[0]
        return BracketMatch(m, seats, State.BYE, goes_on, BYE)
    a, b = seats
    assert isinstance(a, str) and isinstance(b, str)
    if a in withdrawn and b in withdrawn:
        # the one who withdrew first lost this walkover when he withdrew: a later withdrawal
        # does not take back what was built on it
        goes_on = b if withdrawn[a] < withdrawn[b] else a
        return BracketMatch(m, seats, State.WALKOVER, goes_on, BYE)
    out = [a in withdrawn, b in withdrawn]
    if out[0] or out[1]:
        return BracketMatch(m, seats, State.WALKOVER, seats[1] if out[0] else seats[0], BYE)
    return BracketMatch(m, seats, State.READY)
