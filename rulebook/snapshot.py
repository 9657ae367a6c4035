"""The state snapshot of docs/protocol.md §2: what the table publishes and ``bgtable replay`` prints.

Built as the declared :class:`rulebook.messages.Snapshot`, so mypy holds this builder to the
very shape the wire checks (a key missing, misspelt or of the wrong type is an error here). Its
words are the plain strings JSON carries, typed as their enums (``word``).

It carries ``legal`` (``rulebook.legal.legal_actions``): what each side, the table and the TD may
do now, so a screen or a remote dashboard draws only what the rules allow without restating them.
"""

from __future__ import annotations

from typing import cast

from rulebook.legal import breaks_allowed_now, legal_actions
from rulebook.messages import (
    BreakState,
    CorrectionRow,
    CubeState,
    GameKind,
    GameRow,
    PenaltyRow,
    SideAges,
    SideFlags,
    SidePair,
    Snapshot,
    side_pair,
    word,
)
from rulebook.sides import Pair, Side
from rulebook.state import TableState
from rulebook.vocab import CommandType, Phase, plain

SCHEMA = 1


def snapshot(state: TableState, at: int | None = None) -> Snapshot:
    """The snapshot as of ``at`` (default: the last input's ``at``); clock values at that moment."""
    now = state.now if at is None else at
    match = state.match
    clock = state.clock
    length = match.length if match else 0
    score: SidePair = side_pair(match.score) if match else {"A": 0, "B": 0}
    cube: CubeState
    if match is None:
        crawford = post_crawford = False
        cube = {"value": 1, "owner": None, "offered_by": None}
        penalties: SidePair = {"A": 0, "B": 0}
    else:
        crawford = match.is_crawford_game() or (not match.in_game and match.is_crawford_next())
        crawford = crawford and not match.is_over()
        post_crawford = match.is_post_crawford()
        cube = {
            "value": match.cube.value,
            "owner": match.cube.owner,
            "offered_by": match.cube.offered_by,
        }
        penalties = side_pair(match.penalties())
    legal = legal_actions(state)
    cube["usable"] = {"A": legal.a.double, "B": legal.b.double}
    allowed = breaks_allowed_now(state)

    def break_of(s: Side) -> BreakState:
        until = state.break_until.of(s)
        return {
            "used": state.breaks_used.of(s),
            "allowed": allowed,
            "until_wall": state.wall_at(until) if until is not None else None,
            # measured on the table's monotonic clock: the hub anchors it at receipt (PROTOCOL §2)
            "left_ms": until - now if until is not None else None,
            "away": state.away.of(s),
        }

    present_ms: SideAges = {
        "A": _age(state.checked_in_at.a, now),
        "B": _age(state.checked_in_at.b, now),
    }
    games: list[GameRow] = [
        {
            "game": g.game,
            "winner": g.winner,
            "kind": cast(GameKind, plain(g.kind)),
            "cube": g.cube,
            "points": g.points,
            "resigned": g.resigned,
            "wall": g.wall,
        }
        for g in (match.games if match else ())
    ]
    penalty_log: list[PenaltyRow] = [
        {
            "id": p.id,
            "against": p.against,
            "points": p.points,
            "reason": str.__str__(p.reason),
            "waived": p.waived,
        }
        for p in (match.penalty_log if match else ())
    ]
    corrections: list[CorrectionRow] = [
        {
            "kind": c.kind,
            "before": c.before,
            "after": c.after,
            "note": c.note,
            "id": c.cmd_id,
            "age_ms": max(0, now - c.at),
        }
        for c in (match.corrections if match else ())
    ]
    return {
        "schema": SCHEMA,
        "table": state.table,
        "match_id": state.match_id,
        "seq": state.seq,
        "phase": word(state.phase),
        "length": length,
        "score": score,
        "game": match.game if match else 0,
        "crawford": crawford,
        "post_crawford": post_crawford,
        "cube": cube,
        "penalties": penalties,
        "present": _flags(state.present),
        "present_ms": present_ms,
        "assigned_ms": _age(state.assigned_at, now) if state.match_id is not None else None,
        "finished_ms": _age(state.finished_at, now) if state.phase == Phase.FINISHED else None,
        # held as the command's plain string (rulebook.match.Match.decision)
        "decision": cast(CommandType | None, match.decision) if match else None,
        "clock": {
            "enabled": clock.enabled,
            "running": clock.running if clock.is_running() else None,
            "paused": plain(state.paused),
            "paused_by": state.paused_by,
            "reserve_ms": {"A": clock.reserve_at("A", now), "B": clock.reserve_at("B", now)},
            "delay_ms": {"A": clock.delay_at("A", now), "B": clock.delay_at("B", now)},
            "bank2_ms": {"A": clock.bank2_at("A", now), "B": clock.bank2_at("B", now)},
            "flagged": clock.flagged,
            "flagged_at": clock.flagged_at,
            "on": clock.running,
        },
        "breaks": {"A": break_of("A"), "B": break_of("B")},
        "winner": match.winner if match else None,
        "end_reason": word(match.end_reason) if match and match.end_reason else None,
        "games": games,
        "players": {
            "A": {"name": state.players.a[0], "id": state.players.a[1]},
            "B": {"name": state.players.b[0], "id": state.players.b[1]},
        },
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
        "td_calls": _flags(state.td_calls),
        "confirmed": _flags(state.confirmed),
        "can_undo": state.undo is not None and not (state.confirmed.a and state.confirmed.b),
        "pending_length": match.pending_length if match else None,
        "penalty_log": penalty_log,
        "corrections": corrections,
        # legal.py builds it from the very refusals the reducer raises; the wire test holds its
        # shape to the declaration
        "legal": legal.as_json(),
        "at": now,
    }


def _age(since: int | None, now: int) -> int | None:
    """Milliseconds from ``since`` to ``now`` on the table's monotonic clock (never negative)."""
    return None if since is None else max(0, now - since)


def _flags(pair: Pair[bool]) -> SideFlags:
    return {"A": pair.a, "B": pair.b}
