"""Alerts about the hub's edges (pure): a table sent something unusable, sent too much, made a
step of the hub fail, or a stored row could not be read.

Each alert names the table and what to look at, in the TD's words; its key names the situation
(table and kind), so a table that keeps sending the same bad message is one alert, updated, not
thousands. All of these are one-shot (``hub.live.alerts.ONE_SHOT``): they last until the TD
acknowledges them, and come back if the situation does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.live.guard import Fault
from hub.logic.conditions import AlertSpec
from rulebook.messages import SidePair, Snapshot
from rulebook.vocab import Phase

#: raised by the fleet (hub.fleet.devices): a device id said hello with another key
FLEET_KINDS = frozenset({"device_conflict"})

#: alert kinds raised here (all one-shot)
KINDS = frozenset(
    {
        "invalid_message", "flood", "event_cap", "event_size", "table_fault", "quarantined",
        "score_backwards",
        "not_assigned",
        "result_kept",
    }
) | FLEET_KINDS  # fmt: skip

_ARTICLE = {"state": "an invalid state", "event": "an invalid event", "status": "an invalid status"}


def invalid_message(table: str, kind: str, error: str) -> AlertSpec:
    """A table's message failed the wire schema and was dropped."""
    what = _ARTICLE.get(kind, f"an invalid {kind}")
    consequence = (
        "; the hub keeps its last good state and applies no automatic penalty until a good one comes"
        if kind == "state"
        else "; it was dropped"
    )
    return AlertSpec(
        f"invalid:{table}:{kind}",
        "invalid_message",
        "high" if kind == "state" else "medium",
        f"Table {table} sent {what}: field {error}{consequence}. Check the table's software version.",
        table,
        None,
    )


def table_fault(fault: Fault) -> AlertSpec:
    """A step of the hub failed for one table (the others went on)."""
    where = f"Table {fault.table}" if fault.table is not None else "Hub"
    return AlertSpec(
        f"fault:{fault.table}:{fault.step}",
        "table_fault",
        "high",
        f"{where}: the hub could not {fault.step} ({fault.error}); the other tables are not affected."
        " Watch this table yourself and report the problem.",
        fault.table,
        None,
    )


def quarantined(table: str | None, what: str, reason: str) -> AlertSpec:
    """A row of the hub's database could not be read at start and was set aside."""
    where = f"Table {table}" if table else "Hub"
    return AlertSpec(
        f"quarantine:{what}:{table}",
        "quarantined",
        "high",
        f"{where}: a stored {what} could not be read ({reason}) and was set aside"
        + (
            "; the table will send its current state again."
            if what in ("table state", "table status")
            else " (kept in the database's quarantine table): check what it held, and set it again."
        ),
        table,
        None,
    )


def score_backwards(table: str, match_id: str, old: Snapshot, new: Snapshot) -> AlertSpec:
    """A table's score for the same match went back, and its events started again lower: the
    table probably lost its journal (an undo or a correction would have come with newer events)."""
    before, after = old["score"], new["score"]
    return AlertSpec(
        f"backwards:{table}:{match_id}:{old['seq']}",
        "score_backwards",
        "high",
        f"Table {table}, match {match_id}: the score went back from {before['A']}–{before['B']} to "
        f"{after['A']}–{after['B']} (its events started again at {new['seq']} after {old['seq']}). "
        "The table may have lost its journal: check the score with the players and correct it.",
        table,
        match_id,
    )


def went_lower(before: Mapping[str, int], after: SidePair) -> bool:
    """Whether either side has fewer points ``after`` than ``before``."""
    return after["A"] < before["A"] or after["B"] < before["B"]


def _score(score: Mapping[str, int] | SidePair) -> str:
    return f"{score['A']}–{score['B']}"


def carried(table: str, match_id: str, last: dict[str, int], seq: Any, state: Snapshot) -> AlertSpec:
    """A table's new device took its match at a lower score than the last known one; the hub
    sent it the last known score (hub.live.round_control's carry). Keyed like :func:`score_backwards`,
    which the same state raises first: one alert, in these words."""
    return AlertSpec(
        f"backwards:{table}:{match_id}:{seq}",
        "score_backwards",
        "high",
        f"Table {table}, match {match_id}: the table's new device started the match at "
        f"{_score(state['score'])}; the last known score was {_score(last)}, and the hub sent it to the "
        "new device (with the match's clocks). Check the score with the players.",
        table,
        match_id,
    )


def carry_failed(table: str, match_id: str, last: dict[str, int], seq: Any, state: Snapshot) -> AlertSpec:
    """A table's new device went on with its match below the last known score before the hub
    could send that score: only the TD can put it right."""
    return AlertSpec(
        f"backwards:{table}:{match_id}:{seq}",
        "score_backwards",
        "high",
        f"Table {table}, match {match_id}: the table's new device went on at {_score(state['score'])} "
        f"before the hub could send it the last known score {_score(last)}. Check the score with the "
        "players and correct it.",
        table,
        match_id,
    )


def device_conflict(source: str, first: str, state: str) -> AlertSpec:
    """Something at ``source`` said hello with the id of a device ``state`` (waiting, or enrolled)
    at ``first``, and another key: refused. Neither the id nor the code is named (every reader
    of the dashboard sees alerts)."""
    what = "a table waiting to be enrolled" if state == "pending" else "an enrolled table"
    return AlertSpec(
        f"device_conflict:{source}",
        "device_conflict",
        "high",
        f"A device at {source} said hello with the id of {what} (at {first}) and another key: refused. "
        "Someone on the network may be trying to take a table's place. Enroll tables only by the code "
        f"on their own screen, and check what is at {source}.",
        None,
        None,
    )


def hello_flood(sources: list[str], per_source: int) -> AlertSpec:
    """Addresses that said hello as more devices than a table ever is (or too often)."""
    first = sources[0]
    others = (
        f" and {len(sources) - 1} other address{'es' if len(sources) > 2 else ''}" if len(sources) > 1 else ""
    )
    return AlertSpec(
        "flood:hello",
        "flood",
        "high",
        f"{first}{others} said hello as more devices than a table ever is (each address keeps at most "
        f"{per_source} waiting, the busiest loses first) or too often: the excess is refused, and "
        "real tables still enroll. Check what is at that address.",
        None,
        None,
    )


def flood(table: str, rate: float, burst: int) -> AlertSpec:
    """A table sends more than a table ever does: the excess was dropped."""
    return AlertSpec(
        f"flood:{table}",
        "flood",
        "high",
        f"Table {table} sends more messages than a table ever does (over {rate:g} a second, or "
        f"{burst} at once): the excess is dropped, and its missing events are asked for again once "
        "it calms down. Check that table (a software fault, or something that is not a table).",
        table,
        None,
    )


def event_too_big(table: str, size: int, limit: int) -> AlertSpec:
    return AlertSpec(
        f"event_size:{table}",
        "event_size",
        "medium",
        f"Table {table} sent an event of {size} bytes (a table's events are under {limit}): "
        "it was not stored. Check the table's software version.",
        table,
        None,
    )


def event_cap(table: str, match_id: str | None, cap: int) -> AlertSpec:
    return AlertSpec(
        f"event_cap:{table}:{match_id}",
        "event_cap",
        "high",
        f"Table {table} sent more than {cap} events for match {match_id or '(none)'}, far more than "
        "a match makes: further ones are not stored. Check the table.",
        table,
        match_id,
    )


def not_assigned(table: str, match_id: str, owner: str | None) -> AlertSpec:
    """A table sent a state of a scheduled match the hub did not assign to it (another table's,
    or its own next one while the current one is still on): dropped, it counts for nothing."""
    whose = (
        f"it is table {owner}'s match"
        if owner is not None and owner != table
        else "the hub has not assigned it to this table yet"
    )
    return AlertSpec(
        f"not_assigned:{table}:{match_id}",
        "not_assigned",
        "high",
        f"Table {table} sent a state of match {match_id}, which the hub did not assign to it ({whose}): "
        "it was dropped, and its score, result and confirmations count for nothing. Check table "
        f"{table}: a wrong table number in its set-up, or someone using its credential.",
        table,
        match_id,
    )


def result_kept(table: str, match_id: str, result: dict[str, Any], state: Snapshot) -> AlertSpec:
    """A table's state disagrees with a result the TD verified or corrected: the TD's stands."""
    score = result["score"]
    if state["phase"] == Phase.FINISHED:
        said = f"{state['score']['A']}–{state['score']['B']} (winner {state.get('winner') or 'none'})"
    else:
        said = f"the match not finished ({state['phase']}, {state['score']['A']}–{state['score']['B']})"
    how = "corrected" if result.get("corrected") else "verified"
    return AlertSpec(
        f"result_kept:{table}:{match_id}",
        "result_kept",
        "high",
        f"Table {table} now reports {said} for match {match_id}, whose result was {how} as "
        f"{score['A']}–{score['B']} (winner {result.get('winner') or 'none'}): the {how} result stands. "
        "If the table is right, correct the result.",
        table,
        match_id,
    )
