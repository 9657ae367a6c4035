"""The state snapshot of docs/protocol.md §2: what the table publishes and ``bgtable replay`` prints.

It carries ``legal`` (``rulebook.legal.legal_actions``): what each side, the table and the TD may
do now, so a screen or a remote dashboard draws only what the rules allow without restating them.
"""

from __future__ import annotations

from typing import Any

from rulebook.legal import breaks_allowed_now, legal_actions
from rulebook.sides import SIDES
from rulebook.state import TableState
from rulebook.vocab import Phase, plain

SCHEMA = 1


def snapshot(state: TableState, at: int | None = None) -> dict[str, Any]:
    """The snapshot as of ``at`` (default: the last input's ``at``); clock values at that moment."""
    now = state.now if at is None else at
    match = state.match
    clock = state.clock
    length = match.length if match else 0
    score = match.score.as_dict() if match else {"A": 0, "B": 0}
    if match is None:
        crawford = post_crawford = False
        cube: dict[str, Any] = {"value": 1, "owner": None, "offered_by": None}
        penalties = {"A": 0, "B": 0}
    else:
        crawford = match.is_crawford_game() or (not match.in_game and match.is_crawford_next())
        crawford = crawford and not match.is_over()
        post_crawford = match.is_post_crawford()
        cube = {
            "value": match.cube.value,
            "owner": match.cube.owner,
            "offered_by": match.cube.offered_by,
        }
        penalties = match.penalties().as_dict()
    legal = legal_actions(state)
    cube["usable"] = {"A": legal.a.double, "B": legal.b.double}
    allowed = breaks_allowed_now(state)
    breaks = {}
    for s in SIDES:
        until = state.break_until.of(s)
        breaks[s] = {
            "used": state.breaks_used.of(s),
            "allowed": allowed,
            "until_wall": state.wall_at(until) if until is not None else None,
            # measured on the table's monotonic clock: the hub anchors it at receipt (PROTOCOL §2)
            "left_ms": until - now if until is not None else None,
            "away": state.away.of(s),
        }
    return {
        "schema": SCHEMA,
        "table": state.table,
        "match_id": state.match_id,
        "seq": state.seq,
        "phase": plain(state.phase),
        "length": length,
        "score": score,
        "game": match.game if match else 0,
        "crawford": crawford,
        "post_crawford": post_crawford,
        "cube": cube,
        "penalties": penalties,
        "present": state.present.as_dict(),
        "present_ms": {s: _age(state.checked_in_at.of(s), now) for s in SIDES},
        "assigned_ms": _age(state.assigned_at, now) if state.match_id is not None else None,
        "finished_ms": _age(state.finished_at, now) if state.phase == Phase.FINISHED else None,
        "decision": plain(match.decision) if match else None,
        "clock": {
            "enabled": clock.enabled,
            "running": clock.running if clock.is_running() else None,
            "paused": plain(state.paused),
            "paused_by": state.paused_by,
            "reserve_ms": {s: clock.reserve_at(s, now) for s in SIDES},
            "delay_ms": {s: clock.delay_at(s, now) for s in SIDES},
            "bank2_ms": {s: clock.bank2_at(s, now) for s in SIDES},
            "flagged": clock.flagged,
            "flagged_at": clock.flagged_at,
            "on": clock.running,
        },
        "breaks": breaks,
        "winner": match.winner if match else None,
        "end_reason": plain(match.end_reason) if match else None,
        "games": [
            {
                "game": g.game,
                "winner": g.winner,
                "kind": plain(g.kind),
                "cube": g.cube,
                "points": g.points,
                "resigned": g.resigned,
                "wall": g.wall,
            }
            for g in (match.games if match else ())
        ],
        "players": {s: {"name": state.players.of(s)[0], "id": state.players.of(s)[1]} for s in SIDES},
        "profile": state.profile.name,
        "wall": state.wall_at(now),
        "turn": state.turn,
        "turn_known": state.is_turn_known(),
        "turn_from": state.turn_from(),
        "in_game": match.in_game if match else False,
        "dice": list(state.dice) if state.dice else None,
        "round": state.round,
        "final": state.final,
        "start_wall": state.start_wall,
        "td_call": state.td_call,
        "td_calls": state.td_calls.as_dict(),
        "confirmed": state.confirmed.as_dict(),
        "can_undo": state.undo is not None and not (state.confirmed.a and state.confirmed.b),
        "pending_length": match.pending_length if match else None,
        "penalty_log": [
            {
                "id": p.id,
                "against": p.against,
                "points": p.points,
                "reason": plain(p.reason),
                "waived": p.waived,
            }
            for p in (match.penalty_log if match else ())
        ],
        "corrections": [
            {
                "kind": c.kind,
                "before": c.before,
                "after": c.after,
                "note": c.note,
                "id": c.cmd_id,
                "age_ms": _age(c.at, now),
            }
            for c in (match.corrections if match else ())
        ],
        "legal": legal.as_json(),
        "at": now,
    }


def _age(since: int | None, now: int) -> int | None:
    """Milliseconds from ``since`` to ``now`` on the table's monotonic clock (never negative)."""
    return None if since is None else max(0, now - since)
