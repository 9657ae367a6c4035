"""``bgtable``: the table's command line (kiosk, replay, transcript, screenshot, hardware check,
dice simulator)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from kiosk import transcript_cli
from kiosk.fleet_cli import add_enroll_command, add_setup_arguments
from rulebook.errors import JournalFormatError
from rulebook.replay import replay_checked
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table


def cmd_replay(args: argparse.Namespace) -> int:
    """docs/protocol.md §1: print the final snapshot (or one per line with --each).

    Exit 2, with nothing on standard output, when the file cannot be read, a line is not JSON,
    or a line is not a well-formed input (its line number and code on standard error). With
    ``--lenient`` malformed inputs are applied as the table applied them (each a rejection),
    reported on standard error, and the exit status is 0.
    """
    try:
        if args.file == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.file, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        final, malformed = replay_checked(lines, args.table, strict=not args.lenient)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"bgtable replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except JournalFormatError as exc:
        print(f"bgtable replay: {args.file}: {exc} [{exc.code}]", file=sys.stderr)
        return 2
    for error in malformed:
        print(f"bgtable replay: {args.file}: {error} [{error.code}]", file=sys.stderr)
    out = sys.stdout
    if not args.each:
        out.write(json.dumps(snapshot(final), ensure_ascii=False, indent=2) + "\n")
        return 0
    state = new_table(args.table)
    for line in lines:
        if line.strip():
            state, _ = apply(state, json.loads(line))
            out.write(json.dumps(snapshot(state), ensure_ascii=False) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bgtable", description="Smart table: the table kiosk")
    sub = parser.add_subparsers(dest="command", required=True)

    rp = sub.add_parser("replay", help="replay a journal and print the state snapshot")
    rp.add_argument("file", help="journal file (JSON lines) or - for stdin")
    rp.add_argument("--each", action="store_true", help="print one snapshot per input line")
    rp.add_argument("--table", default="", help="table id to report in the snapshot")
    rp.add_argument(
        "--lenient",
        action="store_true",
        help="apply malformed inputs as the table did (rejected) and report them, instead of refusing",
    )
    rp.set_defaults(func=cmd_replay)

    jr = sub.add_parser("journal", help="print a table's journal as JSON lines (input for replay)")
    jr.add_argument("--config", help="table configuration (TOML); its data directory holds the journal")
    jr.add_argument("--db", help="the journal database itself (instead of --config)")
    jr.set_defaults(func=cmd_journal)

    transcript_cli.add_parser(sub)
    _add_kiosk_commands(sub)
    add_enroll_command(sub)
    return parser


def cmd_journal(args: argparse.Namespace) -> int:
    """Export the durable journal (SQLite) as the JSON lines that ``replay`` reads."""
    from kiosk.config import ConfigError, load
    from kiosk.journal import Journal, JournalError

    try:
        path = args.db or str(load(args.config).journal_path)
    except ConfigError as exc:
        print(f"bgtable journal: {exc}", file=sys.stderr)
        return 2
    if not os.path.isfile(path):
        print(f"bgtable journal: no journal at {path}", file=sys.stderr)
        return 2
    try:
        with Journal(path) as journal:
            for line in journal.lines():
                sys.stdout.write(line + "\n")
    except (JournalError, OSError) as exc:
        print(f"bgtable journal: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    return 0


def _add_kiosk_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The kiosk's own commands; imported lazily so ``replay`` needs no display libraries."""
    run = sub.add_parser("run", help="run the table kiosk")
    run.add_argument("--config", help="table configuration (TOML)")
    run.add_argument("--headless", action="store_true", help="no window (SDL dummy driver)")
    run.add_argument("--fullscreen", action="store_true")
    run.add_argument("--script", help="feed table inputs from a JSON-lines file (demos, tests)")
    add_setup_arguments(run)
    run.set_defaults(func=lambda a: _lazy("kiosk.app", "main_run")(a))

    shot = sub.add_parser(
        "screenshot", help="render the table's screen (a journal's final state, or a sample) to a PNG"
    )
    _lazy("kiosk.ui.screenshot", "add_arguments")(shot)
    shot.set_defaults(func=lambda a: _lazy("kiosk.ui.screenshot", "main_screenshot")(a))

    check = sub.add_parser("check", help="check the table's hardware: buttons, tower, touch, display")
    check.add_argument("--config", help="table configuration (TOML)")
    check.add_argument("--headless", action="store_true", help="no window (SDL dummy driver)")
    check.add_argument("--fullscreen", action="store_true")
    check.add_argument(
        "--step-seconds", type=float, default=60.0, help="time for each step before it fails (default 60)"
    )
    check.set_defaults(func=lambda a: _lazy("kiosk.hwcheck_cli", "main_check")(a))

    sim = sub.add_parser("dice-sim", help="simulate a dice tower on a pseudo-terminal")
    sim.add_argument("--interval", type=float, default=5.0, help="seconds between rolls")
    sim.add_argument("--device-id", default="SIM-0001")
    sim.add_argument("--seed", type=int, default=None)
    sim.set_defaults(func=lambda a: _lazy("drivers.dice_sim", "main_dice_sim")(a))


def _lazy(module: str, name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(module), name)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["run"]:
        from kiosk.slots import launch

        launch(args_list)  # an updated version in a slot on the data partition takes over (exec)
    args = build_parser().parse_args(args_list)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
