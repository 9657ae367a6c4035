"""Every event a table makes is stored to send, once, even across a power cut.

Two ways an event could miss the outbox, both after a power cut: the restore's own ``pause``
(reason ``power_loss``) was made before the link existed, and an input journaled just before the
cut may never have had its events stored. The restarted table stores both, in order, before it
connects: the outbox then holds the journal's events 1..n, each once, as the reducer makes them.
(The end-to-end proof with a real ``bgtable``, Mosquitto and ``bghub`` is
``tests/faults/test_kill_restore_hub.py``.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivers.outbox import Outbox
from kiosk.controller import TableController
from kiosk.journal import Journal, read_journal
from rulebook.table import apply, new_table

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
PLAY: list[dict[str, Any]] = [
    {
        "input": "assign",
        "match_id": "m1",
        "length": 7,
        "players": PLAYERS,
        "profile": "wbgf-2023",
        "clock": True,
    },
    {"input": "checkin", "side": "A"},
    {"input": "checkin", "side": "B"},
    {"input": "opening_roll", "A": 5, "B": 2},
    {"input": "press", "side": "B"},
    {"input": "press", "side": "A"},
]


def made(journal: Path) -> list[dict[str, Any]]:
    state, out = new_table("t1"), []
    for row in read_journal(journal):
        state, events = apply(state, row)
        out += events
    return out


def run(path: Path, box: Outbox, inputs: list[dict[str, Any]], *, stored: bool = True) -> None:
    """A table session: restore, then the inputs, 1 s apart (``stored``: their events reach the
    outbox; False is a cut between the journal's write and the outbox's)."""
    clock = iter(range(10_000, 10**9, 1000))
    ctl = TableController(Journal(path), "t1", clock_ms=lambda: next(clock))
    ctl.listeners.append(lambda events, _c: [box.put(e) for e in events])
    ctl.restore(box.last_seq)
    if not stored:
        ctl.listeners.clear()
    for inp in inputs:
        ctl.submit(inp)
    ctl.journal.close()  # the power goes: no clean stop


def test_the_power_loss_pause_and_events_lost_in_the_cut_are_stored_once_in_order(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    box = Outbox(str(tmp_path / "outbox.sqlite3"))
    run(journal, box, PLAY[:-1])
    # the next session resumes after its own power-loss pause and plays on; the cut falls after
    # the journal took those inputs and before their events were stored
    run(journal, box, [{"input": "resume"}, *PLAY[-1:]], stored=False)
    assert box.last_seq("m1") == len(made(journal)) - 2

    run(journal, box, [])  # the restart: replays, pauses for power_loss
    events = made(journal)
    assert events[-1]["type"] == "pause" and events[-1]["reason"] == "power_loss"
    assert [e for _, e in box.pending(limit=1000)] == events  # each once, in order, as made
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))

    run(journal, box, [])  # restarting again stores nothing twice
    assert [e for _, e in box.pending(limit=1000)] == made(journal)
    box.close()
