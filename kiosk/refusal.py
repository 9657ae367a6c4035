"""Why the table refused an input, with the values its message names, for the screen to show.

The reducer answers a refused input with an event carrying ``code`` (and the English reason); the
screen shows the message of that code in the player's own language (gettext domain ``rules``).
Many messages name a value ("it is {side}'s clock that runs"), which the event does not carry:
the input is judged once more by the rulebook, on the state it was refused in, to learn them.
Nothing here decides anything: the rulebook's parser and its handler for that input do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rulebook.errors import RuleError
from rulebook.legal import roll_judgement
from rulebook.messages import Event
from rulebook.parse import parse_input
from rulebook.sides import SIDES
from rulebook.state import TableState
from rulebook.table import HANDLERS, apply
from rulebook.vocab import INPUT_TYPES, InputType, Roll


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused input: its code, the values its message names, and whose input it was."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    #: the player whose input it was (their half shows it), or None: the table's or the TD's
    side: str | None = None


def refused(events: Sequence[Event]) -> Event | None:
    """The event that says the input was refused (``rejected``, or a command's ``ok: false``)."""
    for event in events:
        if event.get("code") and ("rejected" in event or event.get("ok") is False):
            return event
    return None


def refusal_of(before: TableState, line: Mapping[str, Any], events: Sequence[Event]) -> Refusal | None:
    """The refusal in ``events`` (what applying ``line`` to ``before`` gave), or None."""
    event = refused(events)
    if event is None:
        return None
    code = str(event["code"])
    side = line.get("side")
    error = _judge(before, line)
    params = _plain(error.params) if error is not None and error.code == code else {}
    return Refusal(code, params, side if side in SIDES else None)


def _judge(state: TableState, line: Mapping[str, Any]) -> RuleError | None:
    """The rulebook's refusal of ``line`` on ``state``, with its values (None if it takes it)."""
    try:
        parsed = parse_input(dict(line), state.now)
        at = parsed.at
        # time first, as the reducer does before every input (a flag may have fallen meanwhile)
        ahead, _ = apply(state, {"input": InputType.TICK, "at": at, "wall": parsed.wall})
        HANDLERS[INPUT_TYPES[type(parsed)]](ahead, parsed, at)
        if isinstance(parsed, Roll):  # a roll read too early is recorded, not raised (4.1 v a)
            return roll_judgement(ahead)[1]
    except RuleError as exc:
        return exc
    except Exception:  # the reducer already answered; an explanation is a nicety, never a fault
        return None
    return None


def _plain(params: Mapping[str, Any]) -> dict[str, Any]:
    """The values as plain JSON-like values (vocabulary words as their strings)."""
    return {
        str(key): str.__str__(value) if isinstance(value, str) else value
        for key, value in params.items()
        if isinstance(value, str | int | float | bool) or value is None
    }


__all__ = ["Refusal", "refusal_of", "refused"]
