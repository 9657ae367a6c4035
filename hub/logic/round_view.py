"""The rounds at a glance (pure): per round, how many matches have not started, are being played,
are finished or verified; each match's projected finish; the match holding the round up; when the
round should end; and whether one match will end far after all the others.

The projection is the slow-match condition's (:func:`hub.logic.conditions.projected_finish`): the pace of the
points played so far, capped by the clocks' reserves. A match without a point played yet has no
projection; the round's end is then unknown rather than guessed.
"""

from __future__ import annotations

from typing import Any

from hub.logic.conditions import projected_finish
from hub.logic.table_view import TableView
from hub.tournament.schedule import ScheduledMatch, round_order
from rulebook.messages import Snapshot
from rulebook.vocab import Phase

IN_PLAY = frozenset(
    {Phase.OPENING, Phase.PLAYING, Phase.BETWEEN_GAMES, Phase.BREAK, Phase.PAUSED, Phase.FLAG}
)
#: a match projected to end this long after every other match of its round is called out
STRAGGLER_MS = 15 * 60_000


def match_status(m: ScheduledMatch, state: Snapshot | None, result: dict[str, Any] | None) -> str:
    if result is not None:
        return "verified" if result.get("verified") else "finished"
    if state is None:
        return "not_started"
    if state["phase"] in IN_PLAY or (state["phase"] == Phase.WAITING and any(state["present"].values())):
        return "playing"
    if state["phase"] == Phase.FINISHED:
        return "finished"
    return "not_started"


def round_overview(
    schedule: list[ScheduledMatch],
    *,
    views: dict[str, TableView],
    results: dict[str, dict[str, Any]],
    round_end: dict[str, int | None],
    now: int,
) -> list[dict[str, Any]]:
    """Every round in playing order (see the module doc)."""
    out = []
    for rnd in round_order(schedule):
        matches = sorted((m for m in schedule if m.round == rnd), key=lambda m: _natural(m.table))
        rows: list[dict[str, Any]] = []
        counts = {"not_started": 0, "playing": 0, "finished": 0, "verified": 0}
        for m in matches:
            view = views.get(m.table)
            state = view.state_for(m.match_id) if view is not None else None
            result = results.get(m.match_id)
            status = match_status(m, state, result)
            counts[status] += 1
            finish = None
            if status == "playing" and state is not None:
                finish = projected_finish(state, now, m.start_wall)
            elif result is not None:
                finish = result.get("finished_wall")
            score = (result or {}).get("score") or (state["score"] if state else {"A": 0, "B": 0})
            rows.append(
                {
                    "match_id": m.match_id,
                    "table": m.table,
                    "player_a": m.player_a,
                    "player_b": m.player_b,
                    "length": (state["length"] if state else 0) or m.length,
                    "score": score,
                    "status": status,
                    "start_wall": m.start_wall,
                    "finish_wall": finish,
                    "projected": status == "playing" and finish is not None,
                }
            )
        open_ = [r for r in rows if r["status"] in ("not_started", "playing")]
        projected = sorted((r for r in rows if r["projected"]), key=lambda r: r["finish_wall"])
        unknown = any(
            r["status"] == "not_started" or (r["status"] == "playing" and not r["projected"]) for r in rows
        )
        holding = projected[-1] if projected else None
        straggler: dict[str, Any] | None = None
        if holding is not None:
            others = [r["finish_wall"] for r in rows if r is not holding and r["finish_wall"] is not None]
            if others and not unknown and holding["finish_wall"] - max(others) >= STRAGGLER_MS:
                straggler = {
                    "match_id": holding["match_id"],
                    "table": holding["table"],
                    "minutes_after_rest": (holding["finish_wall"] - max(others)) // 60_000,
                }
        out.append(
            {
                "round": rnd,
                "start_wall": min(m.start_wall for m in matches),
                "next_start_wall": round_end.get(rnd),
                "counts": counts,
                "matches": rows,
                "done": not open_,
                "holding": holding["match_id"] if holding is not None else None,
                "projected_end_wall": _end(rows, unknown, holding),
                "straggler": straggler,
                # what "Verify confirmed results" of this round would verify
                "to_verify": sum(
                    1
                    for m in matches
                    if (r := results.get(m.match_id)) is not None
                    and not r.get("verified")
                    and both_confirmed(r)
                ),
            }
        )
    return out


def both_confirmed(result: dict[str, Any]) -> bool | None:
    """Whether both players confirmed the result at their table (the table's ``confirmed``, kept
    with the result); None for a result stored without it (the table's events then say)."""
    confirmed = result.get("confirmed")
    if not isinstance(confirmed, dict):
        return None
    return confirmed.get("A") is True and confirmed.get("B") is True


def _end(rows: list[dict[str, Any]], unknown: bool, holding: dict[str, Any] | None) -> int | None:
    """When the round ends (ended): the latest finish, once every match has one."""
    if unknown:
        return None
    finishes = [r["finish_wall"] for r in rows if r["finish_wall"] is not None]
    return max(finishes) if finishes else None


def _natural(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (10**9, table)
