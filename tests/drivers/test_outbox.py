"""Outbox: order, sent flags, resync queries, durability across a killed process."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.outbox import Outbox
from tests.support.patience import patience

WAIT = patience(10.0)
REPO = Path(__file__).resolve().parents[2]


def evt(seq: int, match_id: str | None = "m1", **extra) -> dict:
    return {"seq": seq, "match_id": match_id, "type": "press", "wall": 1_795_000_000_000 + seq, **extra}


def test_pending_in_order_until_marked_sent(tmp_path):
    with Outbox(str(tmp_path / "o.db")) as box:
        ids = [box.put(evt(i)) for i in range(1, 6)]
        assert ids == sorted(ids) and len(set(ids)) == 5
        assert [e["seq"] for _, e in box.pending()] == [1, 2, 3, 4, 5]
        box.mark_sent(ids[0])
        box.mark_sent(ids[2])
        assert [r for r, _ in box.pending()] == [ids[1], ids[3], ids[4]]
        assert [r for r, _ in box.pending(limit=1)] == [ids[1]]
        assert [r for r, _ in box.pending(after=ids[1])] == [ids[3], ids[4]]
        assert box.pending_count() == 3


def test_events_come_back_exactly_as_stored(tmp_path):
    with Outbox(str(tmp_path / "o.db")) as box:
        original = evt(1, players={"A": {"name": "Zoë Ångström", "id": "ä1"}}, dice=[6, 6], ok=True, x=None)
        box.put(original)
        assert box.pending()[0][1] == original


def test_since_answers_a_resync_for_one_match(tmp_path):
    with Outbox(str(tmp_path / "o.db")) as box:
        for i in range(1, 4):
            box.put(evt(i, None))
        rows = [box.put(evt(i, "m1")) for i in range(1, 6)]
        for i in range(1, 3):
            box.put(evt(i, "m2"))
        box.mark_sent(rows[0])
        box.mark_sent(rows[3])
        # sent or not, in send order, only that match
        assert [e["seq"] for e in box.since(3, "m1")] == [3, 4, 5]
        assert [e["seq"] for e in box.since(0, "m2")] == [1, 2]
        assert [e["seq"] for e in box.since(2, None)] == [2, 3]
        assert box.since(1, "unknown") == []


def test_bad_events_are_refused_in_the_caller(tmp_path):
    with Outbox(str(tmp_path / "o.db")) as box:
        with pytest.raises(TypeError):
            box.put(["not", "a", "dict"])  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            box.put({"seq": 1, "x": object()})
        with pytest.raises(ValueError):
            box.put({"seq": 1, "x": float("nan")})
        assert box.pending() == []


def test_prune_forgets_only_old_sent_events(tmp_path):
    with Outbox(str(tmp_path / "o.db")) as box:
        ids = [box.put(evt(i)) for i in range(1, 11)]
        for r in ids[:8]:
            if r != ids[2]:
                box.mark_sent(r)
        assert box.prune(keep=4) == 5  # rows 1,2,4,5,6 (row 3 unsent, rows 7.. newest kept)
        assert [e["seq"] for e in box.since(0, "m1")] == [3, 7, 8, 9, 10]
        assert [e["seq"] for _, e in box.pending()] == [3, 9, 10]


def test_storage_is_wal_with_full_sync(tmp_path):
    path = str(tmp_path / "o.db")
    box = Outbox(path)
    box.put(evt(1))
    assert box._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert box._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    box.close()


def test_reopen_keeps_pending_and_sent_flags(tmp_path):
    path = str(tmp_path / "o.db")
    box = Outbox(path)
    ids = [box.put(evt(i)) for i in range(1, 4)]
    box.mark_sent(ids[0])
    box.close()
    with Outbox(path) as again:
        assert [e["seq"] for _, e in again.pending()] == [2, 3]
        new = again.put(evt(4))
        assert new > ids[-1]


def test_rowids_are_never_reused_after_pruning(tmp_path):
    path = str(tmp_path / "o.db")
    with Outbox(path) as box:
        ids = [box.put(evt(i)) for i in range(1, 4)]
        for r in ids:
            box.mark_sent(r)
        box.prune(keep=0)
    with Outbox(path) as box:
        assert box.put(evt(4)) > ids[-1]


_WRITER = """
import sys
from drivers.outbox import Outbox
box = Outbox(sys.argv[1])
i = 0
while True:
    i += 1
    rowid = box.put({"seq": i, "match_id": "m1", "type": "press", "wall": i})
    if i % 3 == 0:
        box.mark_sent(rowid)
    print(i, rowid, flush=True)
"""


def test_survives_a_killed_process(tmp_path):
    """Everything a killed writer reported as stored is there, in order, with its sent flag."""
    path = str(tmp_path / "o.db")
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, path], stdout=subprocess.PIPE, cwd=REPO, text=True
    )
    reported: list[tuple[int, int]] = []
    try:
        assert proc.stdout is not None
        timer = threading.Timer(WAIT * 3, proc.kill)  # a safety net only; normally killed below
        timer.start()
        for line in proc.stdout:
            seq, rowid = map(int, line.split())
            reported.append((seq, rowid))
            if len(reported) == 200:
                os.kill(proc.pid, signal.SIGKILL)  # mid-stream, no chance to close anything
                break
        timer.cancel()
    finally:
        proc.kill()
        proc.wait(WAIT)
    assert proc.returncode == -signal.SIGKILL
    assert len(reported) == 200
    with Outbox(path) as box:
        pending = box.pending(limit=100_000)
        stored = box.since(0, "m1")
    stored_seqs = [e["seq"] for e in stored]
    # the process may have stored one or two more after its last report, never fewer
    assert stored_seqs[: len(reported)] == [s for s, _ in reported]
    assert stored_seqs == list(range(1, len(stored_seqs) + 1))
    reported_pending = [s for s, _ in reported if s % 3 != 0]
    assert [e["seq"] for _, e in pending][: len(reported_pending)] == reported_pending


def test_two_threads_putting_and_marking(tmp_path):
    """The network thread marks rows sent while the application thread adds new ones."""
    with Outbox(str(tmp_path / "o.db")) as box:
        ids: list[int] = []
        errors: list[BaseException] = []

        def writer() -> None:
            try:
                for i in range(300):
                    ids.append(box.put(evt(i)))
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=writer)
        t.start()
        marked = 0
        while t.is_alive() or marked < 300:
            rows = box.pending(limit=50)
            for rowid, _ in rows:
                box.mark_sent(rowid)
                marked += 1
            if not rows and not t.is_alive():
                break
        t.join(WAIT)
        assert not errors
        assert marked == 300 and box.pending_count() == 0
        assert [e["seq"] for e in box.since(0, "m1")] == list(range(300))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.just("put"), st.integers(min_value=0, max_value=40)), max_size=60))
def test_pending_is_always_the_unsent_rows_in_order(ops):
    box = Outbox(":memory:")
    model: dict[int, bool] = {}  # rowid -> sent
    order: list[int] = []
    n = 0
    for op in ops:
        if op == "put":
            n += 1
            rowid = box.put(evt(n))
            model[rowid] = False
            order.append(rowid)
        elif order:
            rowid = order[op % len(order)]
            box.mark_sent(rowid)
            model[rowid] = True
    assert [r for r, _ in box.pending(limit=1000)] == [r for r in order if not model[r]]
    assert box.pending_count() == sum(1 for r in order if not model[r])
    box.close()


def test_a_file_that_is_not_a_database_is_an_error(tmp_path):
    bad = tmp_path / "junk.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(sqlite3.DatabaseError):
        Outbox(str(bad))
