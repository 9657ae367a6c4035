"""What a TD command would do, asked of the reducer: a dry run of ``apply`` on the table's state.

The TD menu's confirmation page says "New score: 2 – 5" and "This ends the match" from the state
the reducer would reach with the command, never from arithmetic of its own (a penalty's points, a
lateness forfeit, a score correction reaching the length): the preview and what the command then
does cannot disagree. ``apply`` is pure, so the dry run journals nothing and changes nothing.
"""

from __future__ import annotations

from typing import Any

from kiosk.ui.local import LocalState
from rulebook.messages import Snapshot
from rulebook.snapshot import snapshot
from rulebook.state import TableState
from rulebook.table import apply

#: the id a dry run's command carries (it is never journaled nor sent)
PREVIEW_ID = "td-preview"


def outcome(state: TableState, cmd: dict[str, Any]) -> Snapshot | None:
    """The snapshot ``state`` would have after ``cmd`` now; None when the reducer refuses it."""
    line = {**cmd, "at": state.now, "id": cmd.get("id") or PREVIEW_ID}
    line.pop("wall", None)
    after, events = apply(state, line)
    if any(e.get("rejected") or e.get("ok") is False for e in events):
        return None
    return snapshot(after)


def refresh(local: LocalState, state: TableState) -> None:
    """Keep ``local.td_outcome`` the dry run of the command on the confirmation page (if any)."""
    pending = local.td_pending if local.overlay == "td_confirm" else None
    local.td_outcome = outcome(state, pending) if pending else None
