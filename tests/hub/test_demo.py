"""``bghub demo``: the whole room on one machine, as a newcomer runs it, checked through the hub's API.

Real parts throughout: the ``bghub`` command in its own process, its embedded amqtt broker, the
hub, the simulated tables' MQTT links, the dashboard's JSON API over HTTP, signals, and for
``--window`` the real kiosk application in its own process (on SDL's dummy driver).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from demo.room import DemoOptions, DemoRoom
from tests.support.broker import free_port
from tests.support.patience import patience

BGHUB = str(Path(sys.executable).with_name("bghub"))
WAIT = patience(60.0)  # seconds on a quiet machine, scaled for a loaded one


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=patience(10)) as response:
        return json.loads(response.read())


def poll(url: str, check: Callable[[Any], Any], what: str, timeout: float = WAIT) -> Any:
    """GET ``url`` every quarter second until ``check(body)`` is truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        with contextlib.suppress(OSError):
            last = get(url)
            result = check(last)
            if result:
                return result
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not seen within {timeout}s; last answer: {json.dumps(last)[:2000]}")
        time.sleep(0.25)  # polling an HTTP API: nothing to wait on


class Demo:
    """``bghub demo`` in a subprocess whose temporary files go to a directory of the test's own."""

    def __init__(self, tmp: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        tmp.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **(env or {}), "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [BGHUB, "demo", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)

    def expect(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{pattern!r} not printed; output so far:\n{''.join(self.output)}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if m := re.search(pattern, line):
                return m

    def stop(self, sig: int = signal.SIGINT) -> int:
        self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=WAIT)
        self._reader.join(10)
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def demo_factory(tmp_path: Path) -> Iterator[Callable[..., Demo]]:
    started: list[Demo] = []

    def make(*args: str, env: dict[str, str] | None = None) -> Demo:
        demo = Demo(tmp_path / f"tmp{len(started)}", *args, env=env)
        started.append(demo)
        return demo

    yield make
    for demo in started:
        demo.kill()


def test_the_demo_room_comes_alive_and_leaves_nothing_behind_on_ctrl_c(demo_factory) -> None:
    http, broker = free_port(), free_port()
    demo = demo_factory(
        "--http", f"127.0.0.1:{http}", "--broker-port", str(broker), "--speed", "10", "--seed", "3",
        "--duration", "300",
    )  # fmt: skip
    url = demo.expect(r"Dashboard:\s+(http://\S+?)/?\s").group(1)
    assert url == f"http://127.0.0.1:{http}"
    assert int(demo.expect(r"MQTT broker: embedded, 127\.0\.0\.1:(\d+)").group(1)) == broker
    files = Path(demo.expect(r"Files:\s+(\S+)").group(1))
    assert files.parent == demo.tmp and files.is_dir()

    def all_assigned(tiles: list[dict[str, Any]]) -> bool:
        rounds = [t for t in tiles if int(t["table"]) <= 8]
        return len(rounds) == 8 and all(
            t["online"] and t["match_id"] == f"r1-t{t['table']}" and t["phase"] is not None for t in rounds
        )

    poll(url + "/api/tables", all_assigned, "8 tables online, each with its round-1 match")
    assert "Knockout:    8 players, a main flight and a consolation on tables 9–12" in "".join(demo.output)
    schedule = [row for row in get(url + "/api/schedule") if row["match_id"].startswith("r1-")]
    assert len(schedule) == 8 and all(row["assigned"] for row in schedule)
    assert {row["length"] for row in schedule} == {5, 7, 9, 11}
    assert {row["profile"] for row in schedule} == {"wbgf-2023", "hbf", "hu", "ffbg-cdf"}

    def late_point(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            c
            for c in commands
            if c["origin"] == "auto" and c["type"] == "penalty" and c["done_ok"] and c["table"] == "8"
        ]

    (penalty,) = poll(url + "/api/commands", late_point, "the automatic lateness point at table 8")
    assert penalty["id"] == "late:r1-t8:B:1"
    assert penalty["body"]["reason"] == "late"
    table8 = poll(
        url + "/api/tables/8",
        lambda d: d if d["state"]["penalties"]["B"] == 1 else None,
        "table 8's state with the point against B",
    )
    assert table8["state"]["score"]["A"] >= 1

    def games_won(tiles: list[dict[str, Any]]) -> list[str]:
        return [
            t["table"]
            for t in tiles
            if sum(t["score"].values()) > sum(t["penalties"].values())  # points won at the board
        ]

    poll(url + "/api/tables", lambda tiles: len(games_won(tiles)) >= 3, "scores moving at 3 tables")
    health = get(url + "/api/health")
    assert health["link_online"] and health["stats"]["events"] > 50
    knockout_calls_and_advances(demo, url)

    assert demo.stop(signal.SIGINT) == 0
    assert not files.exists()
    assert list(demo.tmp.iterdir()) == []
    assert any(line.startswith("demo: stopped after") for line in demo.output)
    with pytest.raises(OSError):
        get(url + "/api/health")


def knockout_calls_and_advances(demo: Demo, url: str) -> None:
    """The demo's rolling knockout (demo/knockout.py): its first round called to tables 9 to 12 at
    once, each later match called as its players come free, until both flights have a winner;
    the Draw page's data (``GET /api/draw``) holds every match played, each at a knockout table."""
    first = [demo.expect(r"knockout: (main-r1-m\d) called to table (\d+)").groups() for _ in range(4)]
    # each to a table of its own: which one depends on the order the simulated tables came online
    assert sorted(m for m, _ in first) == [f"main-r1-m{n}" for n in range(1, 5)]
    assert sorted(t for _, t in first) == ["10", "11", "12", "9"]
    later = demo.expect(r"knockout: ((?:main-r2|consolation-r1)-m\d) called to table (\d+)").groups()
    assert later[1] in {"9", "10", "11", "12"}
    over = demo.expect(r"knockout over: main won by (.+); consolation won by (.+)", timeout=patience(240))
    draw = get(url + "/api/draw")
    matches = [m for f in draw["flights"] for r in f["rounds"] for m in r["matches"]]
    assert len(matches) == 7 + 3 and all(m["state"] == "played" for m in matches)
    assert {m["call"]["table"] for m in matches} <= {"9", "10", "11", "12"}
    by_id = {m["id"]: m for m in matches}
    # a match is called only once the matches it waits for have their results
    for m in matches:
        for seat in m["seats"]:
            source = seat["from"].get("winner_of") or seat["from"].get("loser_of")
            if source is not None:
                assert m["call"]["called_at"] >= by_id[source]["result"]["confirmed_at"]
    names = {p["key"]: p["name"] for p in get(url + "/api/players")}
    assert names.get(by_id["main-r3-m1"]["winner"]) == over.group(1)


def test_taken_ports_are_replaced_by_free_ones_and_sigterm_stops_it(demo_factory) -> None:
    with socket.socket() as busy_http, socket.socket() as busy_broker:
        for sock in (busy_http, busy_broker):
            sock.bind(("127.0.0.1", 0))
            sock.listen()
        taken_http, taken_broker = busy_http.getsockname()[1], busy_broker.getsockname()[1]
        demo = demo_factory(
            "--tables", "2", "--http", f"127.0.0.1:{taken_http}", "--broker-port", str(taken_broker),
            "--speed", "10", "--duration", "300", "--knockout-tables", "0",
        )  # fmt: skip
        broker_port = int(demo.expect(r"MQTT broker: embedded, 127\.0\.0\.1:(\d+)").group(1))
        assert broker_port != taken_broker
        url = next(
            re.search(r"(http://\S+?)/?\s", line).group(1) for line in demo.output if "Dashboard:" in line
        )
        assert url != f"http://127.0.0.1:{taken_http}"
        poll(
            url + "/api/tables",
            lambda tiles: len(tiles) == 2 and all(t["online"] for t in tiles),
            "both tables online",
        )
        assert any("is taken" in line for line in demo.output)
        assert demo.stop(signal.SIGTERM) == 0
    assert list(demo.tmp.iterdir()) == []


def test_duration_ends_the_demo_by_itself(demo_factory) -> None:
    demo = demo_factory(
        "--tables", "1", "--http", "127.0.0.1:0", "--broker-port", str(free_port()), "--duration", "2"
    )
    assert demo.proc.wait(timeout=WAIT) == 0
    demo._reader.join(10)
    assert any(line.startswith("demo: stopped after") for line in demo.output)
    assert list(demo.tmp.iterdir()) == []


def test_bad_options_are_refused(tmp_path: Path) -> None:
    existing = tmp_path / "hub.sqlite3"
    existing.write_text("not empty")
    for args, message in (
        (["--db", str(existing)], "exists"),
        (["--window", "9"], "no table"),
        (["--tables", "0"], "expected a number"),
    ):
        done = subprocess.run([BGHUB, "demo", *args], capture_output=True, text=True, timeout=WAIT)
        assert done.returncode == 2, done
        assert message in done.stderr


# -- what is left behind, and the window --------------------------------------------------------


def _settled_threads(before: set[threading.Thread], timeout: float = WAIT) -> list[threading.Thread]:
    """Threads started since ``before`` that are still alive after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not extra or time.monotonic() > deadline:
            return extra
        extra[0].join(max(0.0, min(0.5, deadline - time.monotonic())))


def test_in_process_the_room_plays_and_stops_without_a_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every thread the room started has ended and its temporary directory is gone after ``stop``."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    before = set(threading.enumerate())
    room = DemoRoom(
        DemoOptions(tables=3, http=("127.0.0.1", 0), speed=10, seed=5, broker_port=free_port()),
        out=io.StringIO(),
    )
    try:
        room.start()
        assert len(list(tmp.iterdir())) == 1
        deadline = time.monotonic() + WAIT
        # table 2 has the slow player (a flag in a quarter of an hour), table 3 the late one
        while not all(t.state.match is not None for t in room.tables) or room.tables[0].state.match.game < 2:
            assert time.monotonic() < deadline, [t.snapshot() for t in room.tables]
            seq = room.tables[0].state.seq
            with contextlib.suppress(TimeoutError):  # paced by the table's changes, at most a second
                room.tables[0].wait_for(lambda s, seq=seq: s.seq != seq, timeout=1.0)
            room.housekeeping()
        for table in room.tables:
            assert table.journal_path.stat().st_size > 0
    finally:
        room.stop()
    assert "Dashboard:" in room.banner()
    assert _settled_threads(before) == []
    assert list(tmp.iterdir()) == []


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not: it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.long
def test_window_makes_one_table_the_real_kiosk_and_ctrl_c_ends_it_too(demo_factory) -> None:
    """``--window 2``: table 2 is ``bgtable run`` (SDL's dummy driver here) on the demo's broker."""
    demo = demo_factory(
        "--tables", "3", "--window", "2", "--http", "127.0.0.1:0", "--broker-port", str(free_port()),
        "--speed", "10", "--duration", "300", "--knockout-tables", "0",
    )  # fmt: skip
    url = demo.expect(r"Dashboard:\s+(http://\S+?)/?\s").group(1)
    files = Path(demo.expect(r"Files:\s+(\S+)").group(1))
    kiosk_pid = int(demo.expect(r"Table 2 is the real kiosk, in its own window \(process (\d+)").group(1))
    assert _alive(kiosk_pid)
    # the kiosk's own durable journal (SQLite), not a simulated table's JSON lines
    assert (files / "table-2" / "journal.sqlite3").exists()
    assert not (files / "table-2" / "journal.jsonl").exists()
    detail = poll(
        url + "/api/tables/2",
        lambda d: d if d["tile"]["online"] and (d["state"] or {}).get("match_id") == "r1-t2" else None,
        "the kiosk online with its assigned match",
    )
    assert detail["state"]["players"]["A"]["name"] == detail["schedule"][0]["player_a"]
    poll(
        url + "/api/tables",
        lambda tiles: all(t["score"]["A"] + t["score"]["B"] > 0 for t in tiles if t["table"] != "2"),
        "the simulated tables playing",
    )
    assert demo.stop(signal.SIGINT) == 0
    deadline = time.monotonic() + WAIT
    while _alive(kiosk_pid):
        assert time.monotonic() < deadline, "the kiosk outlived the demo"
        time.sleep(0.1)  # polling /proc: nothing to wait on for another process's child
    assert list(demo.tmp.iterdir()) == []


def test_window_without_a_display_is_refused_and_leaves_nothing(demo_factory) -> None:
    demo = demo_factory(
        "--tables", "2", "--window", "--http", "127.0.0.1:0", "--broker-port", str(free_port()),
        "--duration", "300",
        env={"SDL_VIDEODRIVER": "x11", "DISPLAY": ""},  # no X server at an empty name
    )  # fmt: skip
    assert demo.proc.wait(timeout=WAIT) == 2
    demo._reader.join(10)
    assert "cannot open the screen" in "".join(demo.output)
    assert list(demo.tmp.iterdir()) == []
