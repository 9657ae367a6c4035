"""One exception hierarchy for the rulebook (as gpiozero's ``exc.py``).

Every refusal carries a stable dotted ``code`` (``double.crawford``, ``field.missing``…) and the
values its message names (``params``). The code is what the kiosk and the hub translate (the
``rules`` gettext domain; ``rulebook.codes.english`` for the English text); the English message
is what a log or a journal reader sees. Codes never change meaning once published.
"""

from __future__ import annotations

from typing import Any

from rulebook.codes import english


class RuleError(Exception):
    """An input the rules forbid. The reducer turns it into a rejected event, never a crash."""

    code: str
    params: dict[str, Any]

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @property
    def message(self) -> str:
        """The English message (formatted only when read: refusals are often just tested)."""
        return english(self.code, self.params)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.params!r})"


class FieldError(RuleError):
    """A message field is missing, of the wrong type, out of range or not one of its words."""


class CommandError(RuleError):
    """A TD command the rules refuse in the table's present state (what the hub checks first)."""


class ProfileError(RuleError, ValueError):
    """A rules profile (built-in or loaded from TOML) is unknown or invalid; names the key."""


class ProfileFileError(ProfileError):
    """A custom profile file refused: the code and values of the key's refusal, and where it
    stands (``path``, ``line``: 0 when the key cannot be found on a line of its own)."""

    def __init__(self, code: str, /, *, path: str, line: int, **params: Any) -> None:
        super().__init__(code, path=path, line=line, **params)
        self.path = path
        self.line = line

    @property
    def message(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = english(self.code, self.params)
        key = self.params.get("key")
        if key and not text.startswith(f"{key}:"):
            text = f"{key}: {text}"
        return f"{where}: {text}"


class WireError(FieldError, ValueError):
    """A table's message does not fit the wire schema (``rulebook.wire``).

    ``code`` is one of the ``field.*`` codes, ``path`` names the first bad field
    (``games[2].points``; empty when the message itself is not an object) and ``kind`` the message
    (``state``, ``event``, ``status``), so the hub can tell the TD exactly what a table sent wrong.
    """

    def __init__(self, code: str, /, *, path: str, kind: str = "message", **params: Any) -> None:
        super().__init__(code, field=path or kind, **params)
        self.path = path
        self.kind = kind


class JournalFormatError(RuleError, ValueError):
    """A journal line that is not JSON, or not an input (``bgtable replay`` exits with 2).

    Not the kiosk's ``JournalError`` (the journal file cannot be opened or written): this one is
    about what a journal says, whoever reads it."""

    def __init__(self, code: str, /, *, line: int, **params: Any) -> None:
        super().__init__(code, line=line, **params)
        self.line = line


__all__ = [
    "CommandError",
    "FieldError",
    "JournalFormatError",
    "ProfileError",
    "ProfileFileError",
    "RuleError",
    "WireError",
]
