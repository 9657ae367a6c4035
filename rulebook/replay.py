"""Journal replay: the state of a table is ``replay(journal)``, live or offline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from rulebook.errors import JournalFormatError, RuleError
from rulebook.parse import parse_input
from rulebook.state import TableState, new_table
from rulebook.table import apply


def parse_lines(lines: Iterable[str]) -> Iterator[Any]:
    """The JSON value of each non-empty line; a line that is not JSON raises ``JournalFormatError``."""
    for _number, _line, value in numbered(lines):
        yield value


def numbered(lines: Iterable[str]) -> Iterator[tuple[int, str, Any]]:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            yield number, text, json.loads(text)
        except json.JSONDecodeError as exc:
            raise JournalFormatError("journal.not_json", line=number, detail=exc.msg) from None


def replay(inputs: Iterable[Any], state: TableState | None = None) -> TableState:
    """Apply every input in order; rejected inputs change nothing, as live."""
    current = state if state is not None else new_table()
    for inp in inputs:
        current, _ = apply(current, inp)
    return current


def replay_lines(lines: Iterable[str], table: str = "") -> TableState:
    return replay(parse_lines(lines), new_table(table))


def replay_checked(
    lines: Iterable[str], table: str = "", *, strict: bool = True
) -> tuple[TableState, list[JournalFormatError]]:
    """Replay journal text, finding every line that is not a well-formed input.

    A well-formed input the rules refuse is part of any real match and is applied (as a
    rejection) like live. A line that is not an input at all (not an object, an unknown input, a
    missing or mistyped field, time going backwards) is malformed: ``strict`` stops at the first
    one by raising it; otherwise it is applied as the table applied it, and reported.
    """
    state = new_table(table)
    found: list[JournalFormatError] = []
    for number, _text, value in numbered(lines):
        try:
            parse_input(value, state.now)
        except RuleError as exc:
            error = JournalFormatError(
                "journal.bad_input", line=number, input_code=exc.code, detail=exc.message
            )
            if strict:
                raise error from None
            found.append(error)
        state, _ = apply(state, value)
    return state, found


__all__ = ["JournalFormatError", "parse_lines", "replay", "replay_checked", "replay_lines"]
