"""The draw: knockout flights, their brackets, and rolling calls (pure: no clock, file or thread).

The rules of a draw are the organiser's, not the federations', so they live here and not in the
rulebook. One job per module:

- :mod:`~hub.draw.flights`: the event's flights as a value (entry and fed flights, feeds,
  match lengths, profiles) and the matches they make;
- :mod:`~hub.draw.seeding`: a flight drawn from an entry list (seeds, byes, a recorded seed);
- :mod:`~hub.draw.draw_csv`: a drawn bracket read from (and written to) CSV;
- :mod:`~hub.draw.bracket`: the bracket as a value, results and withdrawals in, every match's
  players and state derived;
- :mod:`~hub.draw.calls`: what each match waits for and the calls to make to the free tables;
- :mod:`~hub.draw.next_steps`: where a player goes after a match (the table's "Next:" line);
- :mod:`~hub.draw.export`: the bracket and its results as CSV and JSON;
- :mod:`~hub.draw.errors`: :class:`DrawError`, the one exception family.

docs/draw.md describes the model, the files and the rules of the draw and of calls.
"""

from __future__ import annotations

from hub.draw.bracket import BYE, Bracket, BracketMatch, Result, State, Withdrawal, diff
from hub.draw.calls import (
    Call,
    CallSettings,
    Holds,
    MatchChange,
    TableState,
    Wait,
    WaitKind,
    call_changes,
    is_callable,
    moved_call,
    plan_calls,
    queue,
    swapped_calls,
    waits,
)
from hub.draw.draw_csv import draw_csv, read_draw_csv
from hub.draw.errors import DrawError
from hub.draw.export import bracket_csv, bracket_json
from hub.draw.flights import EntryFlight, Event, FedFlight, Feed, Match
from hub.draw.next_steps import NextStep, next_step
from hub.draw.seeding import Draw, Entry, draw_entries, seeding_order

__all__ = [
    "BYE",
    "Bracket",
    "BracketMatch",
    "Call",
    "CallSettings",
    "Draw",
    "DrawError",
    "Entry",
    "EntryFlight",
    "Event",
    "FedFlight",
    "Feed",
    "Holds",
    "Match",
    "MatchChange",
    "NextStep",
    "Result",
    "State",
    "TableState",
    "Wait",
    "WaitKind",
    "Withdrawal",
    "bracket_csv",
    "bracket_json",
    "call_changes",
    "diff",
    "draw_csv",
    "draw_entries",
    "is_callable",
    "moved_call",
    "next_step",
    "plan_calls",
    "queue",
    "read_draw_csv",
    "seeding_order",
    "swapped_calls",
    "waits",
]
