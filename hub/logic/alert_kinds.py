"""What each alert asks of the TD: the one table that classifies every alert kind the hub raises.

At 60 tables the feed is read by what the TD must do, not by how bad it sounds:

- ``act``: the TD must do something only the TD can do (a player's call, a time flag, a dispute,
  a decision the hub leaves to the TD: both players absent, a player booked twice, a damaged
  journal, a refused command, a message the hub could not use, the hub's own storage). Rings, is
  counted on every page, is listed oldest first, and is never below a routine item.
- ``watch``: the room drifting from the schedule (a late player, a slow match, an offline table,
  a match not started, a table's clock): visible and quiet, grouped per round in the feed.
- ``done``: something the hub did by itself (an automatic point or forfeit): a log line with its
  *Waive* or *Undo*, no sound, nothing to acknowledge.

Checked at import, as the rulebook's dispatch table is: a kind the hub raises but this table does
not know is a test failure (``tests/hub/test_alert_kinds.py`` reads every ``AlertSpec`` the hub's
modules build). At run time an unknown kind is treated as ``act``: an alert nobody classified is
heard rather than lost.
"""

from __future__ import annotations

import logging
from typing import Final, Literal

log = logging.getLogger("hub")

Ask = Literal["act", "watch", "done"]
ACT: Final = "act"
WATCH: Final = "watch"
DONE: Final = "done"
#: the feed's order of the three: what the TD must do first, what the hub did last
ASK_RANK: Final = {ACT: 0, WATCH: 1, DONE: 2}

#: alert kind -> what it asks of the TD (one entry per kind the hub can raise)
ASKS: Final[dict[str, Ask]] = {
    # a player or the clock waits for the TD
    "td_call": ACT,
    "flag": ACT,
    # decisions the hub leaves to the TD
    "both_absent": ACT,
    "double_booked": ACT,
    "late_elsewhere": ACT,
    "journal": ACT,
    "score_backwards": ACT,
    "not_assigned": ACT,
    "result_kept": ACT,
    "device_conflict": ACT,
    "cmd_failed": ACT,
    "assign_refused": ACT,
    "dice": ACT,
    # the hub's edges: a table sent something unusable, a step failed, a row was set aside
    "invalid_message": ACT,
    "flood": ACT,
    "event_cap": ACT,
    "event_size": ACT,
    "table_fault": ACT,
    "quarantined": ACT,
    # the hub itself and its links
    "storage": ACT,
    "disk_space": ACT,
    "room_offline": ACT,
    # the room drifting from the schedule
    "late": WATCH,
    "break_overrun": WATCH,
    "absent": WATCH,
    "slow": WATCH,
    "offline": WATCH,
    "not_started": WATCH,
    "clock_skew": WATCH,
    "verify": WATCH,
    # what the hub did by itself
    "auto_point": DONE,
    "auto_forfeit": DONE,
}

assert all(v in ASK_RANK for v in ASKS.values()), "an alert kind with an unknown ask"

_unknown_logged: set[str] = set()


def asks(kind: str) -> Ask:
    """What an alert of this kind asks of the TD (``act`` for a kind nobody classified)."""
    found = ASKS.get(kind)
    if found is not None:
        return found
    if kind not in _unknown_logged:
        _unknown_logged.add(kind)
        log.warning("alert kind %r is not classified in hub/logic/alert_kinds.py: treated as act", kind)
    return ACT
