"""``bgtable transcript``: a match's transcript from the table's own journal.

The journal holds every input the table applied; replaying it through the reducer gives the same
events the hub received, so the table can print the same transcript as the dashboard — after a
dispute, with the network down, or from a card taken out of a broken table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from rulebook import transcript
from rulebook.messages import Event
from rulebook.replay import JournalFormatError, parse_lines
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table

FORMATS = ("text", "json", "mat")


def add_parser(sub: Any) -> None:
    tp = sub.add_parser("transcript", help="print a match's transcript from a journal")
    tp.add_argument("file", nargs="?", help="journal as JSON lines (bgtable journal), or - for stdin")
    tp.add_argument("--config", help="table configuration (TOML): read this table's own journal")
    tp.add_argument("--db", help="the journal database itself")
    tp.add_argument("--match", help="match id (default: the journal's last match)")
    tp.add_argument("--format", choices=FORMATS, default="text", help="text (default), json or mat")
    tp.set_defaults(func=cmd_transcript)


def cmd_transcript(args: argparse.Namespace) -> int:
    try:
        lines = _journal_lines(args)
        inputs = list(parse_lines(lines))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"bgtable transcript: {exc}", file=sys.stderr)
        return 2
    except JournalFormatError as exc:
        print(f"bgtable transcript: {exc}", file=sys.stderr)
        return 2
    events_by_match: dict[str, list[Event]] = {}
    last_state: dict[str, TableState] = {}
    state = new_table("")
    for inp in inputs:
        state, events = apply(state, inp)
        if state.match_id is not None:
            events_by_match.setdefault(state.match_id, []).extend(e for e in events if e.get("match_id"))
            last_state[state.match_id] = state
    match_id = args.match or (state.match_id if state.match_id in events_by_match else None)
    if match_id is None or match_id not in events_by_match:
        known = ", ".join(events_by_match) or "none"
        which = f"no match {args.match}" if args.match else "no match"
        print(f"bgtable transcript: {which} in the journal (matches: {known})", file=sys.stderr)
        return 2
    t = transcript.build(events_by_match[match_id], snapshot(last_state[match_id]))
    if args.format == "json":
        sys.stdout.write(json.dumps(t, ensure_ascii=False, indent=2) + "\n")
    elif args.format == "mat":
        sys.stdout.write(transcript.to_mat(t))
    else:
        sys.stdout.write(transcript.to_text(t))
    return 0


def _journal_lines(args: argparse.Namespace) -> list[str]:
    if args.file == "-":
        return sys.stdin.read().splitlines()
    if args.file:
        with open(args.file, encoding="utf-8") as fh:
            return fh.read().splitlines()
    from kiosk.config import ConfigError, load
    from kiosk.journal import Journal, JournalError

    try:
        path = args.db or (str(load(args.config).journal_path) if args.config else None)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    if path is None:
        raise ValueError("give a journal file, - for stdin, --config or --db")
    if not os.path.isfile(path):
        raise ValueError(f"no journal at {path}")
    try:
        with Journal(path) as journal:
            return list(journal.lines())
    except JournalError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
