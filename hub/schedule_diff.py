"""What importing a schedule would change, before it is imported (pure).

A TD re-imports the round's CSV to move a match to another table (a broken clock, a quieter
corner). The pairing program then writes the new table and, unless it gives match ids, a new
default id (``r1-t14``): imported as it is, that would be a second match for the same two players
and a ghost at the old table. So a row for two players already paired in the same round keeps
that match's id — the import moves the match instead — and the preview says so, with a warning
for every match in progress that the import touches. A schedule in which a player would play two
matches of one round is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from hub.schedule import ScheduledMatch
from hub.timeline import fold
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
    """Two (name, id) are one player: the same id when both have one, else the same name (accents
    and case aside)."""
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


def keep_match_ids(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    """The incoming rows, each keeping the id of the match its two players already have in that
    round (so that a row with a new table moves the match rather than adding a second one)."""
    by_round: dict[str, list[ScheduledMatch]] = {}
    for m in existing:
        by_round.setdefault(m.round, []).append(m)
    out = []
    for m in incoming:
        old = next((x for x in by_round.get(m.round, []) if _same_pair(x, m)), None)
        out.append(replace(m, match_id=old.match_id) if old is not None and old.match_id != m.match_id else m)
    return out


def imported(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    """The schedule after the import, as the store does it: each row replaces the match with its
    id, and any other match at its table in its round."""
    rows = {m.match_id: m for m in existing}
    for m in incoming:
        for mid, old in list(rows.items()):
            if mid != m.match_id and old.round == m.round and old.table == m.table:
                del rows[mid]
        rows[m.match_id] = m
    return list(rows.values())


def double_bookings(schedule: list[ScheduledMatch]) -> list[str]:
    """Why the schedule cannot be: a player in two matches of one round."""
    seen: dict[str, list[tuple[tuple[str, str], ScheduledMatch]]] = {}
    problems = []
    for m in sorted(schedule, key=lambda m: (m.round, m.table)):
        earlier = seen.setdefault(m.round, [])
        for player in _players(m):
            others = (x for p, x in earlier if x.match_id != m.match_id and _same_player(p, player))
            first = next(others, None)
            if first is not None:
                problems.append(
                    f"{player[0]} would play two matches in round {m.round}: {first.match_id} at table "
                    f"{first.table} and {m.match_id} at table {m.table}"
                )
        earlier.extend((p, m) for p in _players(m))
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
        }


def _item(m: ScheduledMatch, state: dict[str, Any] | None, has_result: bool) -> dict[str, Any]:
    phase = state.get("phase") if state else None
    present = (state or {}).get("present") or {}
    started = phase in IN_PLAY or (phase == "waiting" and any(present.values()))
    return {
        "match_id": m.match_id,
        "round": m.round,
        "table": m.table,
        "player_a": m.player_a,
        "player_b": m.player_b,
        "phase": phase,
        "score": (state or {}).get("score"),
        "in_progress": bool(started) and not has_result,
        "has_result": has_result,
    }


def _label(m: ScheduledMatch) -> str:
    return f"{m.match_id} ({m.player_a} – {m.player_b})"


def preview(
    existing: list[ScheduledMatch],
    incoming: list[ScheduledMatch],
    *,
    states: dict[str, dict[str, Any]],
    results: set[str],
) -> Preview:
    """What importing ``incoming`` (ids already kept by :func:`keep_match_ids`) would change.

    ``states``: match id -> the state its table holds of it; ``results``: matches with a result.
    """
    before = {m.match_id: m for m in existing}
    after = imported(existing, incoming)
    after_ids = {m.match_id for m in after}
    out = Preview(matches=len(incoming), errors=double_bookings(after))
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
