"""Journal replay: the state of a table is ``replay(journal)``, live or offline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from rulebook.table import TableState, apply, new_table


class JournalFormatError(ValueError):
    """A journal line is not JSON (``bgtable replay`` exits with status 2)."""


def parse_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            yield json.loads(text)
        except json.JSONDecodeError as exc:
            raise JournalFormatError(f"line {number}: not JSON ({exc.msg})") from None


def replay(inputs: Iterable[Any], state: TableState | None = None) -> TableState:
    """Apply every input in order; rejected inputs change nothing, as live."""
    current = state if state is not None else new_table()
    for inp in inputs:
        current, _ = apply(current, inp)
    return current


def replay_lines(lines: Iterable[str], table: str = "") -> TableState:
    return replay(parse_lines(lines), new_table(table))
