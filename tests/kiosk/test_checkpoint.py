"""Checkpoints never change the restored state: restore from a checkpoint equals a full replay.

The encoding is exact for every state the reducer makes (property test over long mixed
journals); a checkpoint of another rulebook, a damaged one, or one whose classes changed is
passed over for an older one or a full replay; and a checkpoint can name no class outside the
rulebook.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk import checkpoint
from kiosk.controller import TableController
from kiosk.journal import Journal, read_journal
from rulebook.replay import replay
from rulebook.table import TableState, new_table
from tests.faults.test_reducer_long import long_journals

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}


def canonical(value: Any) -> Any:
    """``value`` with every type named, sets in a fixed order: equal only if both are the same
    values of the same types (``==`` alone takes a ``StrEnum`` member for its string)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__qualname__, tuple((f.name, canonical(getattr(value, f.name))) for f in fields))
    if isinstance(value, (frozenset, set)):
        return (type(value).__name__, tuple(sorted((canonical(v) for v in value), key=repr)))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(canonical(v) for v in value))
    if isinstance(value, dict):
        items = ((canonical(k), canonical(v)) for k, v in value.items())
        return ("dict", tuple(sorted(items, key=repr)))
    return (type(value).__qualname__, value)


def journal_through_controller(path: Path, inputs: list[Any], every: int) -> TableController:
    """Submit ``inputs`` as the kiosk would (times as given), with a checkpoint every ``every``."""
    now = [0]
    ctl = TableController(Journal(path), "t", clock_ms=lambda: now[0], checkpoint_every=every)
    for inp in inputs:
        if isinstance(inp, dict) and isinstance(inp.get("at"), int) and not isinstance(inp["at"], bool):
            now[0] = max(now[0], inp["at"])
        ctl.submit(inp)
    return ctl


def restored(path: Path, every: int) -> TableController:
    ctl = TableController(Journal(path), "t", clock_ms=lambda: 0, checkpoint_every=every)
    ctl.restore()
    return ctl


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@pytest.mark.long
@given(journal=long_journals(60, 250), every=st.integers(1, 40))
def test_restore_from_checkpoints_equals_full_replay(journal: list[Any], every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "j.sqlite3"
        live = journal_through_controller(path, journal, every)
        live_state = live.state
        live.journal.close()
        rows = read_journal(path)
        assert replay(rows, new_table("t")) == live_state
        ctl = restored(path, every)
        assert ctl.restored_inputs == len(rows)
        assert ctl.restored_from == (len(rows) // every) * every
        # the restore (and the pause it may add) is exactly the replay of the journal: equal, and
        # of the same types all the way down (an enum member is not its string)
        replayed = replay(read_journal(path), new_table("t"))
        assert ctl.state == replayed
        assert canonical(ctl.state) == canonical(replayed)
        ctl.journal.close()


@given(journal=long_journals(20, 120))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_state_survives_the_encoding(journal: list[Any]) -> None:
    from rulebook.table import apply

    state = new_table("t")
    for inp in journal:
        state, _ = apply(state, inp)
        decoded = checkpoint.decode(checkpoint.encode(state))
        assert decoded == state and canonical(decoded) == canonical(state)


def play(path: Path, every: int = 10, n: int = 35) -> TableController:
    inputs: list[Any] = [
        {
            "at": 0,
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        },
        {"at": 0, "input": "checkin", "side": "A"},
        {"at": 0, "input": "checkin", "side": "B"},
        {"at": 0, "input": "opening_roll", "A": 6, "B": 1},
        {"at": 10, "input": "press", "side": "B"},
    ]
    inputs += [{"at": 1000 * i, "input": "tick"} for i in range(1, n - len(inputs) + 1)]
    ctl = journal_through_controller(path, inputs, every)
    ctl.journal.close()
    return ctl


def test_the_newest_checkpoint_is_used(tmp_path):
    path = tmp_path / "j.sqlite3"
    play(path)
    ctl = restored(path, 10)
    assert ctl.restored_from == 30
    assert ctl.state == replay(read_journal(path), new_table("t"))


def test_only_the_newest_checkpoints_are_kept(tmp_path):
    path = tmp_path / "j.sqlite3"
    play(path, every=5, n=60)
    db = sqlite3.connect(path)
    assert [n for (n,) in db.execute("SELECT n FROM checkpoint ORDER BY n")] == [50, 55, 60]
    db.close()


def _set(path: Path, sql: str, *params: object) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("what", "sql", "params", "used"),
    [
        ("another rulebook", "UPDATE checkpoint SET format = ? WHERE n = 30", ("st1:0123456789abcdef",), 20),
        ("a damaged body", "UPDATE checkpoint SET body = substr(body, 2) WHERE n = 30", (), 20),
        ("every one of another rulebook", "UPDATE checkpoint SET format = ?", ("st0:old",), 0),
    ],
)
def test_an_unusable_checkpoint_falls_back_without_changing_the_state(tmp_path, what, sql, params, used):
    path = tmp_path / "j.sqlite3"
    play(path)
    _set(path, sql, *params)
    ctl = restored(path, 10)
    assert ctl.restored_from == used, what
    assert ctl.state == replay(read_journal(path), new_table("t"))


def test_a_checkpoint_whose_classes_changed_is_passed_over(tmp_path):
    """A body that passes its checksum but names fields the class no longer has (a rulebook of
    the same fingerprint cannot produce it; a hand-made or buggy one can)."""
    path = tmp_path / "j.sqlite3"
    play(path)
    db = sqlite3.connect(path)
    body = db.execute("SELECT body FROM checkpoint WHERE n = 30").fetchone()[0]
    db.close()
    changed = body.replace('"breaks_used":', '"breaks_taken":', 1)
    assert changed != body
    with pytest.raises(checkpoint.CheckpointError, match="fields differ"):
        checkpoint.decode(changed)
    with Journal(path) as journal:
        journal.put_checkpoint(30, checkpoint.current_format(), changed)
    ctl = restored(path, 10)
    assert ctl.restored_from == 20
    assert ctl.state == replay(read_journal(path), new_table("t"))


@pytest.mark.parametrize(
    "body",
    [
        '{"$dc": "os:system", "f": {}}',
        '{"$dc": "subprocess:Popen", "f": {"args": "true"}}',
        '{"$dc": "rulebook.table:apply", "f": {}}',
        '{"$dc": "rulebook.table:TableState"}',
        '{"$en": "enum:Enum", "v": 1}',
        '{"$en": "rulebook.table:TableState", "v": "x"}',
        '{"$en": "rulebook.vocab:Phase", "v": "no such phase"}',
        '{"$x": []}',
        '{"a": 1, "b": 2}',
        "[1, {}]",
        "not json",
    ],
)
def test_a_checkpoint_names_only_rulebook_dataclasses(body):
    with pytest.raises(checkpoint.CheckpointError):
        checkpoint.decode(body)


def test_the_table_label_comes_from_the_configuration_not_the_checkpoint(tmp_path):
    path = tmp_path / "j.sqlite3"
    play(path)
    ctl = TableController(Journal(path), "renamed", clock_ms=lambda: 0, checkpoint_every=10)
    ctl.restore()
    assert ctl.restored_from == 30
    assert isinstance(ctl.state, TableState) and ctl.state.table == "renamed"
    assert ctl.state == replay(read_journal(path), new_table("renamed"))


def test_the_fingerprint_follows_the_rulebook_source():
    fmt = checkpoint.current_format()
    assert fmt.startswith(checkpoint.ENCODING + ":")
    assert len(checkpoint.rulebook_fingerprint()) == 16
