""" "Both players are there but the match has not started" waits for the opening grace after the
second check-in (``HubConfig.opening_grace_ms``, docs/configuration.md), never seconds after it.

The defect: a player who checked in 12 minutes late was at once "not started", although the
players had only just sat down. The check-in instants are the table's ages anchored at receipt
(hub/logic/tabletime.py), so a table's wrong wall clock changes nothing.
"""

from __future__ import annotations

from typing import Any

from hub.logic.conditions import AlertConfig, opening_due, table_alerts
from hub.logic.table_view import TableView
from hub.tournament.schedule import parse_schedule
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import MIN, T0, schedule_csv

SECOND = 1000
PLAYERS = {"A": {"name": "Ann", "id": "p1"}, "B": {"name": "Bob", "id": "p2"}}


def opening_state(a_at: int, b_at: int, published_at: int) -> dict[str, Any]:
    """A table whose players checked in at ``a_at`` and ``b_at`` (its monotonic ms), published at
    ``published_at``. The table's wall clock is an hour off: it must not matter."""
    state = new_table("1")
    wrong_wall = T0 + 60 * MIN
    inputs = [
        {
            "input": "assign",
            "match_id": "r1-t1",
            "length": 5,
            "players": PLAYERS,
            "clock": False,
            "profile": "wbgf-2023",
            "at": 0,
        },
        {"input": "checkin", "side": "A", "at": a_at},
        {"input": "checkin", "side": "B", "at": b_at},
    ]
    for inp in sorted(inputs, key=lambda i: i["at"]):
        state, _ = apply(state, {**inp, "wall": wrong_wall + inp["at"]})
    snap = snapshot(state, published_at)
    assert snap["phase"] == "opening"
    return snap


def alerts(state: dict[str, Any], received: int, now: int, config: AlertConfig) -> set[str]:
    (match,) = parse_schedule(
        schedule_csv(
            [{"round": 1, "table": "1", "player_a": "Ann", "player_b": "Bob", "length": 5, "start": T0}]
        )
    )
    view = TableView(
        "1", status={"online": True}, online=True, state=state, state_wall=received, state_fresh=True
    )
    found = table_alerts(view, match, now=now, config=config, profile=get_profile("wbgf-2023"))
    return {a.kind for a in found}


def test_a_late_second_check_in_is_not_at_once_a_match_not_started() -> None:
    config = AlertConfig(opening_grace_ms=5 * MIN)
    # A at T0 - 1 min, B at T0 + 12 min (table ms 0 = T0 - 1 min); received at B's check-in
    state = opening_state(0, 13 * MIN, 13 * MIN)
    received = T0 + 12 * MIN
    view = TableView("1", online=True, state=state, state_wall=received)
    assert opening_due(view, state, config) == T0 + 17 * MIN
    for now in (received + 5 * SECOND, received + 4 * MIN):
        assert "not_started" not in alerts(state, received, now, config)
    assert "not_started" in alerts(state, received, T0 + 17 * MIN, config)


def test_players_seated_before_the_start_are_reported_from_the_start_grace() -> None:
    """Checked in 10 minutes before the start: the round's own grace (5 min after it) decides."""
    config = AlertConfig(not_started_grace_ms=5 * MIN, opening_grace_ms=5 * MIN)
    state = opening_state(0, 0, 10 * MIN)  # both at T0 - 10 min; published at T0
    assert "not_started" not in alerts(state, T0, T0 + 4 * MIN, config)
    assert "not_started" in alerts(state, T0, T0 + 5 * MIN, config)


def test_the_grace_is_the_configured_one() -> None:
    state = opening_state(0, 13 * MIN, 13 * MIN)
    received = T0 + 12 * MIN
    short = AlertConfig(opening_grace_ms=MIN)
    assert "not_started" not in alerts(state, received, received + 59 * SECOND, short)
    assert "not_started" in alerts(state, received, received + MIN, short)
