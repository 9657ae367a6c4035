"""Which scheduled match each table should be playing now (pure).

A table plays one match per round, in round order. The next round's match is assigned when the
previous one is done: finished and confirmed by both players at the table, verified by the TD,
or finished for ``hold_ms`` (the players had time to read the result); or when the TD releases
the previous match (an abandoned or moved match).

A table refuses a new match while the one it holds is unfinished unless the assignment says
``force`` (rulebook ``match.in_progress``). The hub forces only over a match the TD released (an
abandoned match, a call moved, swapped or voided by an undo or a withdrawal): never over one still
to be played. What the table holds is the match last assigned to it (``held``), not the previous
match in round order: a match of an earlier round called again after an undo sorts before the
later-round match the table was given, and which it still holds. The hub may not know which of
two matches the table holds (the one its last state reports, or the one sent to it since, whose
state has not arrived): it forces when one of them was released unfinished and neither is a
match still to be played.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from hub.tournament.schedule import ScheduledMatch, round_order


@dataclass(frozen=True, slots=True)
class Current:
    match: ScheduledMatch
    #: the previous match at this table was released unfinished: the table must replace it
    force: bool


def current_matches(
    schedule: list[ScheduledMatch],
    *,
    results: dict[str, dict[str, Any]],
    released: set[str],
    confirmed: set[str],
    now: int,
    hold_ms: int,
    order: dict[str, int] | None = None,
    held: Mapping[str, Collection[str]] | None = None,
) -> dict[str, Current]:
    """table -> the match it should have now (tables whose schedule is all done are absent).
    ``order``: round -> its place in the event, when ``schedule`` is only some tables' matches.
    ``held``: table -> the matches it may hold (a table absent: the previous match in round order
    is taken as the one it holds)."""
    if order is None:
        order = {r: i for i, r in enumerate(round_order(schedule))}
    by_table: dict[str, list[ScheduledMatch]] = defaultdict(list)
    for m in schedule:
        by_table[m.table].append(m)
    out: dict[str, Current] = {}
    for table, matches in by_table.items():
        matches.sort(key=lambda m: (order[m.round], m.start_wall))
        previous: ScheduledMatch | None = None
        for m in matches:
            if not _done(m, results, released, confirmed, now, hold_ms):
                holds = (held or {}).get(table) or ((previous.match_id,) if previous else ())
                out[table] = Current(m, _force(m.match_id, holds, released, results))
                break
            previous = m
    return out


def to_be_played(match_id: str, results: Mapping[str, Any], released: Collection[str]) -> bool:
    """Whether a scheduled match still stands: it has no result, and it was not released — by the
    TD (an abandoned match) or by the hub (a draw's call moved, swapped, or voided by an undo or a
    withdrawal: the match made again under another id is the one that stands)."""
    return match_id not in released and match_id not in results


def _force(
    match_id: str, holds: Collection[str], released: set[str], results: dict[str, dict[str, Any]]
) -> bool:
    """Whether ``match_id`` must replace what the table holds: one match it may hold was released
    unfinished, and none is still to be played (unfinished and not released: never replaced)."""
    others = [h for h in holds if h != match_id]
    return any(h in released and h not in results for h in others) and not any(
        to_be_played(h, results, released) for h in others
    )


def _done(
    m: ScheduledMatch,
    results: dict[str, dict[str, Any]],
    released: set[str],
    confirmed: set[str],
    now: int,
    hold_ms: int,
) -> bool:
    if m.match_id in released:
        return True
    result = results.get(m.match_id)
    if result is None:
        return False
    finished = result.get("finished_wall") or 0
    return bool(result.get("verified")) or m.match_id in confirmed or now - finished >= hold_ms


def round_ends(schedule: list[ScheduledMatch]) -> dict[str, int | None]:
    """round -> when the next round starts (its earliest start), None for the last round."""
    rounds = round_order(schedule)
    first: dict[str, int] = {}
    for m in schedule:
        first[m.round] = min(first.get(m.round, m.start_wall), m.start_wall)
    return {r: (first[rounds[i + 1]] if i + 1 < len(rounds) else None) for i, r in enumerate(rounds)}
