"""The rulebook: the federations' tournament rules as a pure, deterministic engine.

Nothing here reads a clock, touches a file or starts a thread: time is always passed in (integer
milliseconds on the table's monotonic clock) so that the same reducer runs live at the table, on
restart from the journal, in ``bgtable replay`` and inside the hub.
"""

from rulebook.errors import ProfileError, RuleError
from rulebook.profiles import PROFILES, Profile, get_profile, load_profile
from rulebook.replay import replay, replay_lines
from rulebook.sides import SIDES, other
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table

__all__ = [
    "PROFILES",
    "SIDES",
    "Profile",
    "ProfileError",
    "RuleError",
    "TableState",
    "apply",
    "get_profile",
    "load_profile",
    "new_table",
    "other",
    "replay",
    "replay_lines",
    "snapshot",
]
