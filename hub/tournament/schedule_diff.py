"""What importing a schedule would change, before it is imported (pure).

A TD re-imports the round's CSV to move a match to another table (a broken clock, a quieter
corner). The pairing program then writes the new table and, unless it gives match ids, a new
default id (``r1-t14``): imported as it is, that would be a second match for the same two players
and a ghost at the old table. So a row for two players already paired in the same round keeps
that match's id — the import moves the match instead — and the preview says so, with a warning
for every match in progress that the import touches. A schedule in which a player would play two
matches of one round is refused.

Every seat is resolved against the event's player registry (:mod:`hub.tournament.players`); the preview
counts the players the file adds and lists the conflicts that need the TD's choice before the
file can be imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from hub.tournament.names import fold
from hub.tournament.players import Resolution
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Snapshot
from rulebook.vocab import Phase

#: the fields of a match the preview compares (besides its table)
FIELDS = (
    "player_a",
    "player_b",
    "player_a_id",
    "player_b_id",
    "length",
    "start_wall",
    "clock",
    "profile",
    "final",
)

IN_PLAY = frozenset(
    {Phase.OPENING, Phase.PLAYING, Phase.BETWEEN_GAMES, Phase.BREAK, Phase.PAUSED, Phase.FLAG}
)


def _same_player(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two (name, id) are one player: the same id when both have one, else the same name (accents,
    case and alphabet aside: :func:`hub.tournament.names.fold`)."""
    if a[1] and b[1]:
        return a[1] == b[1]
    return fold(a[0]) == fold(b[0])


def _players(m: ScheduledMatch) -> tuple[tuple[str, str], tuple[str, str]]:
    return (m.player_a, m.player_a_id), (m.player_b, m.player_b_id)


def _same_pair(m: ScheduledMatch, n: ScheduledMatch) -> bool:
    (a, b), (c, d) = _players(m), _players(n)
    return m.round == n.round and (
        (_same_player(a, c) and _same_player(b, d)) or (_same_player(a, d) and _same_player(b, c))
    )


Entry = tuple[int, tuple[str, str], ScheduledMatch]


class _PlayerIndex:
    """The players of one round's matches, in the order added, by id and by folded name: finding
    the matches of a player who is :func:`_same_player` as a given one reads that player's
    candidates only, not the whole round (a championship's round has thousands of matches, and a
    scan per row made a 5,000-table import take minutes).

    ``_same_player`` is no equivalence (a name without an id is the player of every id under that
    name), so each player is filed under its id and under its folded name, and a lookup reads both
    lists and keeps exactly the entries ``_same_player`` accepts."""

    def __init__(self) -> None:
        self._by_id: dict[str, list[Entry]] = {}
        self._by_name: dict[str, list[Entry]] = {}
        self._folded: dict[str, str] = {}
        self._added = 0

    def _fold(self, name: str) -> str:
        folded = self._folded.get(name)
        if folded is None:
            folded = self._folded[name] = fold(name)
        return folded

    def add(self, m: ScheduledMatch) -> None:
        for player in _players(m):
            entry = (self._added, player, m)
            self._added += 1
            if player[1]:
                self._by_id.setdefault(player[1], []).append(entry)
            self._by_name.setdefault(self._fold(player[0]), []).append(entry)

    def matches_of(self, player: tuple[str, str]) -> list[ScheduledMatch]:
        """The matches holding ``player`` (by :func:`_same_player`), in the order added."""
        pid = player[1]
        found: dict[int, ScheduledMatch] = {}
        for n, p, m in self._by_name.get(self._fold(player[0]), ()):
            if not (pid and p[1]):  # one of the two has no id: the names decide, and they are equal
                found[n] = m
        if pid:
            for n, _, m in self._by_id.get(pid, ()):
                found[n] = m
        return [found[n] for n in sorted(found)]


def keep_match_ids(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    """The incoming rows, each keeping the id of the match its two players already have in that
    round (so that a row with a new table moves the match rather than adding a second one)."""
    by_round: dict[str, _PlayerIndex] = {}
    for m in existing:
        by_round.setdefault(m.round, _PlayerIndex()).add(m)
    out = []
    for m in incoming:
        index = by_round.get(m.round)
        # a match of the same pair holds player A: the first such match in ``existing``'s order
        candidates = index.matches_of(_players(m)[0]) if index is not None else []
        old = next((x for x in candidates if _same_pair(x, m)), None)
        out.append(replace(m, match_id=old.match_id) if old is not None and old.match_id != m.match_id else m)
    return out


def imported(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    """The schedule after the import, as the store does it: each row replaces the match with its
    id, and any other match at its table in its round."""
    rows = {m.match_id: m for m in existing}
    slots: dict[tuple[str, str], set[str]] = {}  # (round, table) -> the ids in ``rows`` there
    for mid, m in rows.items():
        slots.setdefault((m.round, m.table), set()).add(mid)
    for m in incoming:
        slot = slots.setdefault((m.round, m.table), set())
        for mid in [x for x in slot if x != m.match_id]:
            del rows[mid]
            slot.discard(mid)
        old = rows.get(m.match_id)
        if old is not None:
            slots[(old.round, old.table)].discard(m.match_id)
        rows[m.match_id] = m
        slot.add(m.match_id)
    return list(rows.values())


def double_bookings(schedule: list[ScheduledMatch]) -> list[str]:
    """Why the schedule cannot be: a player in two matches of one round."""
    seen: dict[str, _PlayerIndex] = {}
    problems = []
    for m in sorted(schedule, key=lambda m: (m.round, m.table)):
        earlier = seen.setdefault(m.round, _PlayerIndex())
        for player in _players(m):
            first = next((x for x in earlier.matches_of(player) if x.match_id != m.match_id), None)
            if first is not None:
                problems.append(
                    f"{player[0]} would play two matches in round {m.round}: {first.match_id} at table "
                    f"{first.table} and {m.match_id} at table {m.table}"
                )
        earlier.add(m)
    return problems


@dataclass
class Preview:
    matches: int
    added: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)
    moved: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: the registry's view of the file: players known, new, and the choices applied
    players: dict[str, Any] = field(default_factory=dict)
    #: seats the TD must identify before the import (hub.tournament.players.Conflict.as_dict)
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "added": self.added,
            "updated": self.updated,
            "moved": self.moved,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "warnings": self.warnings,
            "errors": self.errors,
            "players": self.players,
            "conflicts": self.conflicts,
        }


def _item(m: ScheduledMatch, state: Snapshot | None, has_result: bool) -> dict[str, Any]:
    phase = state["phase"] if state else None
    present = state["present"] if state else {"A": False, "B": False}
    started = phase in IN_PLAY or (phase == Phase.WAITING and (present["A"] or present["B"]))
    return {
        "match_id": m.match_id,
        "round": m.round,
        "table": m.table,
        "player_a": m.player_a,
        "player_b": m.player_b,
        "phase": phase,
        "score": state["score"] if state else None,
        "in_progress": bool(started) and not has_result,
        "has_result": has_result,
    }


def _label(m: ScheduledMatch) -> str:
    return f"{m.match_id} ({m.player_a} – {m.player_b})"


def preview(
    existing: list[ScheduledMatch],
    incoming: list[ScheduledMatch],
    *,
    states: dict[str, Snapshot],
    results: set[str],
    players: Resolution | None = None,
) -> Preview:
    """What importing ``incoming`` (ids already kept by :func:`keep_match_ids`) would change.

    ``states``: match id -> the state its table holds of it; ``results``: matches with a result;
    ``players``: the file's seats resolved against the registry.
    """
    before = {m.match_id: m for m in existing}
    after = imported(existing, incoming)
    after_ids = {m.match_id for m in after}
    out = Preview(matches=len(incoming), errors=double_bookings(after))
    if players is not None:
        out.errors += players.bad_choices
        out.conflicts = [c.as_dict() for c in players.conflicts]
        out.players = {
            "known": len(players.known_players),
            "new": len(players.new_players),
            "to_identify": len(players.conflicts),
            "chosen": players.chosen,
        }
    for m in incoming:
        old = before.get(m.match_id)
        item = _item(m, states.get(m.match_id), m.match_id in results)
        if old is None:
            out.added.append(item)
            continue
        changes = {f: [getattr(old, f), getattr(m, f)] for f in FIELDS if getattr(old, f) != getattr(m, f)}
        if old.table != m.table:
            item.update(from_table=old.table, changes=changes)
            out.moved.append(item)
            if item["in_progress"]:
                score = item["score"] or {}
                out.warnings.append(
                    f"{_label(m)} is being played at table {old.table} ({score.get('A')}–{score.get('B')}): "
                    f"it moves to table {m.table} with its score and clocks, and the players check in there"
                )
            elif item["has_result"]:
                out.warnings.append(
                    f"{_label(m)} is finished at table {old.table}: its result stays as it is"
                )
        elif changes:
            item.update(changes=changes)
            out.updated.append(item)
            if item["in_progress"] and set(changes) - {"start_wall", "player_a_id", "player_b_id"}:
                out.warnings.append(
                    f"{_label(m)} is in progress at table {m.table}: its table keeps the match as it is "
                    f"({', '.join(sorted(changes))} changed here only); correct it at the table if needed"
                )
        else:
            out.unchanged += 1
    for mid, old in before.items():
        if mid in after_ids:
            continue
        item = _item(old, states.get(mid), mid in results)
        out.removed.append(item)
        if item["in_progress"]:
            out.warnings.append(
                f"{_label(old)} is in progress at table {old.table} and leaves the schedule: "
                "the table plays on, but the hub no longer follows it"
            )
        elif item["has_result"]:
            out.warnings.append(f"{_label(old)} leaves the schedule; its result is kept")
    return out
