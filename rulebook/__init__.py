"""The rulebook: the federations' tournament rules as a pure, deterministic engine.

Nothing here reads a clock, touches a file or starts a thread: time is always passed in (integer
milliseconds on the table's monotonic clock) so that the same reducer runs live at the table, on
restart from the journal, in ``bgtable replay`` and inside the hub.

The parts: ``vocab`` (every word of the protocol as an Enum, every input and command as a frozen
dataclass), ``parse`` (JSON to those, refusing with a code), ``legal`` (what each side, the table
and the TD may do now: the one judge), ``table`` (the reducer), ``snapshot`` (what is published),
``codes`` (every refusal code and its English message), ``errors`` (the one exception hierarchy).
"""

from rulebook.codes import english
from rulebook.errors import CommandError, FieldError, JournalFormatError, ProfileError, RuleError
from rulebook.legal import Legal, check_command, legal_actions
from rulebook.parse import parse_command, parse_input
from rulebook.profiles import PROFILES, Profile, get_profile, load_profile
from rulebook.replay import replay, replay_lines
from rulebook.sides import SIDES, other
from rulebook.snapshot import snapshot
from rulebook.state import TableState, new_table
from rulebook.table import apply

__all__ = [
    "PROFILES",
    "SIDES",
    "CommandError",
    "FieldError",
    "JournalFormatError",
    "Legal",
    "Profile",
    "ProfileError",
    "RuleError",
    "TableState",
    "apply",
    "check_command",
    "english",
    "get_profile",
    "legal_actions",
    "load_profile",
    "new_table",
    "other",
    "parse_command",
    "parse_input",
    "replay",
    "replay_lines",
    "snapshot",
]
