"""Match transcripts at the hub: the events it stored for a match, told as the table would.

The builder is the rulebook's (``rulebook.transcript``): the hub has the same events the table
journaled, received over MQTT, so the dashboard's transcript and ``bgtable transcript`` agree.
What the events do not say (players, length, profile) comes from the table's last state for the
match, or else the result and the schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.live.state import RoomState
from hub.storage.store import Store
from rulebook import transcript

#: at most this many events go into one transcript (a 25-point match with a clock and a tower
#: makes a few thousand)
MAX_EVENTS = 20_000


def match_transcript(room: RoomState, store: Store, match_id: str) -> dict[str, Any] | None:
    """The transcript of ``match_id``, or None when the hub knows nothing of that match."""
    events = store.match_events(match_id, limit=MAX_EVENTS)
    scheduled = room.by_id.get(match_id)
    result = room.results.get(match_id)
    if not events and scheduled is None and result is None:
        return None
    return transcript.build(events, _info(room, match_id, events))


def _info(room: RoomState, match_id: str, events: list[dict[str, Any]]) -> Mapping[str, Any]:
    """The match's facts: the live state if a table still holds it, else the schedule/result."""
    for view in room.views.values():
        state = view.state
        if state and state.get("match_id") == match_id:
            return state
    info: dict[str, Any] = {"match_id": match_id}
    scheduled = room.by_id.get(match_id)
    if scheduled is not None:
        info.update(
            table=scheduled.table,
            round=scheduled.round,
            length=scheduled.length,
            profile=scheduled.profile,
            clock={"enabled": scheduled.clock},
            players={
                "A": {"name": scheduled.player_a, "id": scheduled.player_a_id},
                "B": {"name": scheduled.player_b, "id": scheduled.player_b_id},
            },
        )
    result = room.results.get(match_id)
    if result is not None:
        info.update(
            winner=result.get("winner"), end_reason=result.get("end_reason"), score=result.get("score")
        )
        info.setdefault("table", result.get("table"))
    return info
