"""The event's player registry: every player once, and every seat of the schedule resolved to one
of them (pure; kept in the store by :class:`hub.storage.store.Store`).

A player is a registry key (``p12``) with a federation id (empty when no file gave one), a name
and its folded name (:func:`hub.tournament.names.fold`). Every round's rows are resolved against the registry
when they are imported, whatever each file gives:

- a row with a federation id the registry knows is that player;
- a row with an id the registry does not know is a new player, unless a registered player has its
  name: one without an id is that player (who now has an id);
- a row without an id is the one registered player with its folded name, or a new player when
  nobody has it.

Everything else is a **conflict** the hub does not decide: one id with two names (the registry's
P007 is "Anna Berg", the file's P007 "Mia Lund"), one name with two ids (the registry's
"Anna Berg" is P001, the file's is P099: a namesake, or a typo in an id), a row whose name is
two registered players'. The import preview lists each one with its options, and the import needs
the TD's choice for every one of them (:attr:`Resolution.conflicts`). A choice is recorded with
the seat, and stands while the file says the same thing about that seat: a re-import does not ask
again.

Rows with an id are resolved before rows without one, so that a file (or an event) whose round 1
gives ids and whose round 2 does not still has each player once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hub.tournament.names import fold
from hub.tournament.schedule import ScheduledMatch
from rulebook.sides import SIDES

log = logging.getLogger("hub")

#: the choice "a different player from every registered one"
NEW = "new"
#: conflict kinds
ID_TWO_NAMES = "id_two_names"
NAME_TWO_IDS = "name_two_ids"
NAME_MANY = "name_many"


def norm_id(fed_id: str) -> str:
    """A federation id as compared: spaces and case aside."""
    return " ".join(fed_id.split()).casefold()


@dataclass(frozen=True, slots=True)
class Player:
    key: str
    fed_id: str
    name: str
    folded: str

    def label(self) -> str:
        return f"{self.name} ({self.fed_id or 'no id'})"

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "fed_id": self.fed_id, "name": self.name, "folded": self.folded}


@dataclass(frozen=True, slots=True)
class SeatRef:
    """A seat of the schedule resolved: the player, and what the row said when it was resolved."""

    player: str
    name: str
    fed_id: str
    #: "" (resolved by the rules) or the TD's choice ("new" or the player's key)
    choice: str = ""


@dataclass(frozen=True, slots=True)
class Conflict:
    """A seat the registry cannot resolve by itself."""

    match_id: str
    round: str
    table: str
    side: str
    name: str
    fed_id: str
    kind: str
    candidates: tuple[Player, ...]

    @property
    def id(self) -> str:
        """What the TD's choice is keyed by: the seat."""
        return f"{self.match_id}:{self.side}"

    def message(self) -> str:
        where = f"{self.match_id} (round {self.round}, table {self.table}, player {self.side})"
        row = f"{self.name} ({self.fed_id or 'no id'})"
        if self.kind == ID_TWO_NAMES:
            known = self.candidates[0]
            return f"{where}: id {self.fed_id} is {known.name} in the registry but {self.name} in this file"
        if self.kind == NAME_TWO_IDS:
            others = ", ".join(p.fed_id for p in self.candidates)
            return f"{where}: {row} has the name of a registered player with another id ({others})"
        return f"{where}: {row} has the name of {len(self.candidates)} registered players"

    def options(self) -> list[dict[str, str]]:
        out = [{"value": p.key, "label": f"{p.label()}: the same player"} for p in self.candidates]
        new = f"a different player: {self.name}"
        if self.kind == ID_TWO_NAMES:
            new += f" (id {self.fed_id} is not theirs)"
        out.append({"value": NEW, "label": new})
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "match_id": self.match_id,
            "round": self.round,
            "table": self.table,
            "side": self.side,
            "name": self.name,
            "fed_id": self.fed_id,
            "message": self.message(),
            "candidates": [p.as_dict() for p in self.candidates],
            "options": self.options(),
        }


@dataclass
class Resolution:
    """What resolving rows against the registry gives: the registry after them (when nothing is
    left to choose), the conflicts still waiting for a choice, the choices applied, and the
    choices that were not among a conflict's options."""

    registry: Registry
    conflicts: list[Conflict] = field(default_factory=list)
    chosen: list[dict[str, Any]] = field(default_factory=list)
    bad_choices: list[str] = field(default_factory=list)
    #: registered players the rows were resolved to, and players the rows add
    known_players: set[str] = field(default_factory=set)
    new_players: set[str] = field(default_factory=set)


class Registry:
    """The players and the seats resolved to them (see module doc)."""

    def __init__(
        self,
        players: Iterable[Player] = (),
        seats: Mapping[tuple[str, str], SeatRef] | None = None,
    ) -> None:
        self.players: dict[str, Player] = {p.key: p for p in players}
        self.seats: dict[tuple[str, str], SeatRef] = dict(seats or {})
        self._by_id: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = {}
        self._next = 1
        for p in self.players.values():
            self._index(p)

    def _index(self, p: Player) -> None:
        if p.fed_id:
            self._by_id.setdefault(norm_id(p.fed_id), p.key)
        self._by_name.setdefault(p.folded, []).append(p.key)
        tail = p.key[1:]
        if p.key.startswith("p") and tail.isdigit():
            self._next = max(self._next, int(tail) + 1)

    def copy(self) -> Registry:
        return Registry(self.players.values(), self.seats)

    @classmethod
    def of(cls, schedule: Iterable[ScheduledMatch]) -> Registry:
        """A registry of a schedule on its own (no choices: a conflict makes a new player)."""
        return cls().covering(list(schedule))

    # -- lookups ------------------------------------------------------------------------------

    def key_of(self, match_id: str, side: str) -> str | None:
        seat = self.seats.get((match_id, side))
        return seat.player if seat is not None else None

    def player_at(self, match_id: str, side: str) -> Player | None:
        key = self.key_of(match_id, side)
        return self.players.get(key) if key is not None else None

    def fed_id_of(self, match: ScheduledMatch, side: str) -> str:
        """The seat's federation id: its player's (empty when no file gave one, or when the TD
        said the row's id is another player's); the row's for a seat the registry does not hold."""
        player = self.player_at(match.match_id, side)
        if player is not None:
            return player.fed_id
        return match.player_a_id if side == "A" else match.player_b_id

    def by_fed_id(self, fed_id: str) -> Player | None:
        key = self._by_id.get(norm_id(fed_id))
        return self.players.get(key) if key is not None else None

    def named(self, folded: str) -> list[Player]:
        return [self.players[k] for k in self._by_name.get(folded, ())]

    # -- changes ------------------------------------------------------------------------------

    def _add(self, name: str, fed_id: str, key: str) -> Player:
        player = Player(key, " ".join(fed_id.split()), " ".join(name.split()), fold(name))
        self.players[key] = player
        self._index(player)
        return player

    def _give_id(self, player: Player, fed_id: str) -> Player:
        """A registered player without an id gets the one a file gives."""
        given = Player(player.key, " ".join(fed_id.split()), player.name, player.folded)
        self.players[player.key] = given
        self._by_id.setdefault(norm_id(fed_id), player.key)
        return given

    def _match(self, name: str, fed_id: str) -> tuple[Player | None, str | None, tuple[Player, ...]]:
        """(the player, None, ()) when the rules decide — None for a new player — or (None, the
        conflict's kind, its candidates)."""
        folded = fold(name)
        named = self.named(folded)
        if fed_id:
            known = self.by_fed_id(fed_id)
            if known is not None:
                if known.folded == folded:
                    return known, None, ()
                return None, ID_TWO_NAMES, (known, *(p for p in named if p.key != known.key))
            if not named:
                return None, None, ()
            if len(named) == 1:
                if not named[0].fed_id:
                    return named[0], None, ()
                return None, NAME_TWO_IDS, tuple(named)
            return None, NAME_MANY, tuple(named)
        if len(named) == 1:
            return named[0], None, ()
        if not named:
            return None, None, ()
        return None, NAME_MANY, tuple(named)

    def resolve(self, rows: Iterable[ScheduledMatch], choices: Mapping[str, str] | None = None) -> Resolution:
        """Resolve every seat of ``rows`` (module doc); ``choices``: conflict id -> the TD's
        choice (a candidate's key, or :data:`NEW`). The registry here is left as it was."""
        reg = self.copy()
        out = Resolution(reg)
        choices = choices or {}
        seats = [(m, "A", m.player_a, m.player_a_id) for m in rows]
        seats += [(m, "B", m.player_b, m.player_b_id) for m in rows]
        seats.sort(key=lambda s: 0 if s[3].strip() else 1)  # rows with an id first (stable)
        # a player this file adds is keyed by the seat that adds it, so that a key the preview
        # offers as a choice is the same at the import, whatever the other choices
        base = reg._next
        for n, (m, side, name, fed_id) in enumerate(seats):
            new_key = f"p{base + n}"
            at = (m.match_id, side)
            before = self.seats.get(at)
            if (
                before is not None
                and before.player in reg.players
                and fold(before.name) == fold(name)
                and norm_id(before.fed_id) == norm_id(fed_id)
            ):
                reg.seats[at] = before  # the row says what it said: its resolution (or choice) stands
                out.known_players.add(before.player)
                continue
            player, kind, candidates = reg._match(name, fed_id)
            choice = ""
            if kind is not None:
                conflict = Conflict(m.match_id, m.round, m.table, side, name, fed_id, kind, candidates)
                chosen = choices.get(conflict.id)
                if chosen is None:
                    out.conflicts.append(conflict)
                    continue
                if chosen != NEW and chosen not in {p.key for p in candidates}:
                    out.bad_choices.append(f"{conflict.id}: {chosen!r} is not one of its options")
                    out.conflicts.append(conflict)
                    continue
                choice = chosen
                player = None if chosen == NEW else reg.players[chosen]
                out.chosen.append({"conflict": conflict.id, "kind": kind, "choice": chosen, "name": name})
                if player is None:
                    # a different player: an id the registry gives another keeps pointing there
                    player = reg._add(name, "" if kind == ID_TWO_NAMES else fed_id, new_key)
                    out.new_players.add(player.key)
            elif player is None:
                player = reg._add(name, fed_id, new_key)
                out.new_players.add(player.key)
            elif fed_id.strip() and not player.fed_id:
                player = reg._give_id(player, fed_id)
            if player.key not in out.new_players:
                out.known_players.add(player.key)
            reg.seats[at] = SeatRef(player.key, name, fed_id, choice)
        return out

    def covering(self, schedule: list[ScheduledMatch]) -> Registry:
        """This registry, with every seat of ``schedule`` it does not hold resolved by the rules
        (a conflict makes a new player, logged: nobody is there to choose). For a database
        written before the registry existed, and for tests that build a room without an import."""
        missing = [m for m in schedule if any((m.match_id, s) not in self.seats for s in SIDES)]
        if not missing:
            return self
        choices: dict[str, str] = {}
        while True:
            res = self.resolve(missing, choices)
            if not res.conflicts:
                return res.registry
            for c in res.conflicts:
                log.warning("player registry: %s; taken as a different player", c.message())
                choices[c.id] = NEW

    def pruned(self, schedule: Iterable[ScheduledMatch]) -> Registry:
        """Only the seats of ``schedule``, and the players who have one."""
        here: set[tuple[str, str]] = {(m.match_id, s) for m in schedule for s in SIDES}
        seats = {k: v for k, v in self.seats.items() if k in here}
        used = {s.player for s in seats.values()}
        return Registry((p for p in self.players.values() if p.key in used), seats)

    def listed(self, schedule: Iterable[ScheduledMatch]) -> list[dict[str, Any]]:
        """Every player with their seats (the players' list of the API)."""
        seats: dict[str, list[dict[str, Any]]] = {}
        for m in schedule:
            for side in SIDES:
                key = self.key_of(m.match_id, side)
                if key is not None:
                    seats.setdefault(key, []).append(
                        {"match_id": m.match_id, "round": m.round, "table": m.table, "side": side}
                    )
        return [
            {**p.as_dict(), "matches": seats.get(p.key, [])}
            for p in sorted(self.players.values(), key=lambda p: (p.folded, p.key))
        ]
