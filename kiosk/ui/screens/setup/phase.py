"""What a table not set up is doing, as its setup screen says it (``SetupModel.phase``).

Apart from the screen's module so that ``kiosk.setup_app``, which sets it, reads the words
without importing pygame; compared with these members, never with a string literal.
"""

from __future__ import annotations

from enum import StrEnum


class SetupPhase(StrEnum):
    SEARCHING = "searching"
    WAITING = "waiting"
    UNREACHABLE = "unreachable"
    REFUSED = "refused"
    ENROLLED = "enrolled"
    #: two hubs answered for the event: the organiser names one
    CHOOSE = "choose"
