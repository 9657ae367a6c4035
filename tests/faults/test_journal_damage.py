"""A damaged or lost journal between two runs of the real kiosk: never a crash loop, never a match
silently started again.

Each case plays part of a match with ``bgtable run --headless`` on a real broker, damages the
journal file while the kiosk is down (a truncated row, garbage text, a non-object JSON value,
garbage bytes written into the file, a header that is no database, a zero-length or deleted
file), then starts the kiosk again — three times, as systemd would — and checks what the table
does and what it tells the hub:

* it comes up every time (first frame), restored up to the last good input, paused for the TD;
* its retained ``status`` carries ``journal`` (``problem``, ``match_id``, ``after_input`` …);
* the damaged file is kept aside, as it was;
* a TD ``resume`` command from the hub clears the notice (``status.journal`` is ``null``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from drivers.mqtt_topics import Topics
from kiosk.journal import read_journal
from rulebook.replay import replay
from rulebook.table import new_table
from tests.support.patience import patience

TABLE = "7"
WAIT = patience(30.0)
RESTORED = re.compile(r"restored (\d+) journal inputs: (\{.*\})\s*$")
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
PLAY = [
    {
        "input": "assign",
        "profile": "wbgf-2023",
        "match_id": "m1",
        "length": 7,
        "players": PLAYERS,
        "clock": True,
    },
    {"input": "checkin", "side": "A"},
    {"input": "checkin", "side": "B"},
    {"input": "opening_roll", "A": 5, "B": 2},
    {"input": "press", "side": "B"},
    {"input": "press", "side": "A"},
    {"input": "roll", "dice": [3, 1], "source": "tower"},
    {"input": "press", "side": "B"},
    {"input": "roll", "dice": [6, 6], "source": "tower"},
    {"input": "press", "side": "A"},
    {"input": "roll", "dice": [2, 1], "source": "tower"},
]


class Kiosk:
    """``bgtable run --headless`` as a process, its log lines read on a thread."""

    def __init__(self, config: Path, script: Path | None = None):
        cmd = [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)]
        if script is not None:
            cmd += ["--script", str(script)]
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_line(self, pattern: re.Pattern[str] | str) -> re.Match[str]:
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + WAIT
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(
                    f"kiosk exited (rc {self.proc.wait()}) before {regex.pattern}:\n{self.text()}"
                )
            found = regex.search(line)
            if found:
                return found

    def text(self) -> str:
        return "".join(self.log)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


class Hub:
    """An MQTT client in the hub's place: the table's retained status and state, assignments and
    TD commands.

    Like the real hub (``hub.live.commands.CommandSender.resend_unanswered``), it sends every command
    the table has not answered again each time the table's status turns online: a table's
    session is clean, so a command published while the kiosk is starting (before it has
    subscribed) reaches nobody, and the table's status online comes only after its subscription.
    """

    def __init__(self, host: str, port: int, event: str):
        self.topics = Topics(event)
        self.statuses: queue.Queue[dict[str, Any]] = queue.Queue()
        self.states: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock = threading.Lock()
        self._unanswered: dict[str, dict[str, Any]] = {}  # command id -> command
        self._table_online = False
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"hub-{uuid.uuid4().hex[:8]}")
        self.client.on_message = self._on_message
        subscribed: queue.Queue[bool] = queue.Queue()
        self.client.on_subscribe = lambda *a: subscribed.put(True)
        self.client.connect(host, port)
        self.client.loop_start()
        self.client.subscribe(
            [
                (self.topics.table_status(TABLE), 1),
                (self.topics.table_state(TABLE), 1),
                (self.topics.table_evt(TABLE), 1),
            ]
        )
        subscribed.get(timeout=WAIT)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        if not msg.payload:
            return
        obj = json.loads(msg.payload)
        if msg.topic == self.topics.table_status(TABLE):
            self._on_status(obj)
            self.statuses.put(obj)
        elif msg.topic == self.topics.table_state(TABLE):
            self.states.put(obj)
        elif obj.get("type") == "cmd_done":
            with self._lock:
                self._unanswered.pop(obj.get("id"), None)

    def _on_status(self, status: dict[str, Any]) -> None:
        with self._lock:
            came_online = bool(status.get("online")) and not self._table_online
            self._table_online = bool(status.get("online"))
            again = list(self._unanswered.values()) if came_online else []
        for cmd in again:
            self.client.publish(self.topics.table_cmd(TABLE), json.dumps(cmd), qos=1)

    def status_where(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            status = self.statuses.get(timeout=max(0.1, deadline - time.monotonic()))
            if status.get("online") and pred(status):
                return status

    def state_of(self, match_id: str) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            state = self.states.get(timeout=max(0.1, deadline - time.monotonic()))
            if state.get("match_id") == match_id:
                return state

    def command(self, cmd: dict[str, Any]) -> None:
        """Send a TD command now, and again whenever the table comes online until it answers."""
        with self._lock:
            self._unanswered[cmd["id"]] = cmd
        self.client.publish(self.topics.table_cmd(TABLE), json.dumps(cmd), qos=1).wait_for_publish(WAIT)

    def assign(self, payload: dict[str, Any]) -> None:
        topic = self.topics.table_assign(TABLE)
        self.client.publish(topic, json.dumps(payload), qos=1, retain=True).wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _sql(sql: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        db = sqlite3.connect(path)
        db.execute(sql)
        db.commit()
        db.close()

    return damage


def _garbage_inside(path: Path) -> None:
    """Bytes of a bad SD card sector over the newest rows: random bytes written at the start of
    the cell content area of the journal table's page (SQLite fills a page from its end)."""
    _checkpoint_wal(path)
    db = sqlite3.connect(path)
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'journal'").fetchone()
    db.close()
    start = (root - 1) * page_size
    with open(path, "r+b") as fh:
        fh.seek(start + 5)
        content = int.from_bytes(fh.read(2), "big")  # b-tree page header: first cell's offset
        fh.seek(start + content)
        fh.write(os.urandom(120))


def _garbage_header(path: Path) -> None:
    _checkpoint_wal(path)
    with open(path, "r+b") as fh:
        fh.write(b"\xde\xad\xbe\xef" * 32)


def _zero_length(path: Path) -> None:
    _checkpoint_wal(path)
    path.write_bytes(b"")


def _deleted(path: Path) -> None:
    _checkpoint_wal(path)
    path.unlink()


def _checkpoint_wal(path: Path) -> None:
    """Fold the WAL into the file, then drop it: the damage is in the one file that is left."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


DAMAGED = {
    "truncated row": _sql("UPDATE journal SET line = substr(line, 1, 9) WHERE n = 8"),
    "garbage text": _sql("UPDATE journal SET line = '}{ not json' WHERE n = 8"),
    "non-object JSON": _sql("UPDATE journal SET line = '[8, 8]' WHERE n = 8"),
    "garbage bytes": _garbage_inside,
    "not a database": _garbage_header,
}
LOST = {"zero length": _zero_length, "deleted": _deleted}


@pytest.fixture
def room(tmp_path, mosquitto):
    event = f"jd{os.getpid()}-{uuid.uuid4().hex[:6]}"
    data = tmp_path / "data"
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "{TABLE}"\nevent = "{event}"\ndata_dir = "{data}"\ntick_interval_ms = 100\n'
        f'[pins]\nenabled = false\n[broker]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n',
        encoding="utf-8",
    )
    hub = Hub(mosquitto.host, mosquitto.port, event)
    yield config, data, hub
    hub.close()


def play_part_of_a_match(config: Path, data: Path) -> list[dict[str, Any]]:
    script = config.parent / "play.jsonl"
    steps = [{**s, "after_ms": 20} for s in PLAY] + [{"after_ms": 300, "exit": True}]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    kiosk = Kiosk(config, script)
    assert kiosk.proc.wait(timeout=WAIT) == 0, kiosk.text()
    rows = read_journal(data / "journal.sqlite3")
    assert len(rows) >= len(PLAY)
    return rows


def start(config: Path) -> tuple[Kiosk, int, dict[str, Any]]:
    """Start the kiosk; returns it once it drew its first frame, with what it restored."""
    kiosk = Kiosk(config)
    found = kiosk.wait_line(RESTORED)
    kiosk.wait_line("first frame")
    return kiosk, int(found.group(1)), json.loads(found.group(2))


@pytest.mark.parametrize("kind", list(DAMAGED))
def test_damaged_journal_restores_the_good_inputs_paused_and_tells_the_hub(room, kind):
    config, data, hub = room
    rows = play_part_of_a_match(config, data)
    path = data / "journal.sqlite3"
    DAMAGED[kind](path)

    kiosk, restored, snap = start(config)
    try:
        status = hub.status_where(lambda s: s.get("journal") is not None)
        journal = status["journal"]
        assert journal["problem"] == "damaged"
        assert journal["after_input"] == restored < len(rows)
        if kind in ("truncated row", "garbage text", "non-object JSON"):
            assert restored == 7  # row 8 was damaged
        # restored exactly the good inputs, and paused for the TD when a match was under way
        good = read_journal(path)
        assert good[:restored] == rows[:restored]
        expected = replay(rows[:restored], new_table(TABLE))
        assert snap["match_id"] == expected.match_id
        if expected.phase in ("opening", "playing", "between_games", "break"):
            assert (snap["phase"], snap["clock"]["paused"]) == ("paused", "td")
        assert journal["match_id"] == expected.match_id
        aside = data / journal["aside"]
        assert aside.exists() and aside.name.startswith("journal.damaged-")
        assert kiosk.proc.poll() is None
    finally:
        assert kiosk.stop() == 0, kiosk.text()

    # no crash loop: it starts again (and again), still showing the notice
    for _ in range(2):
        kiosk, again, _ = start(config)
        try:
            assert again >= restored
            assert hub.status_where(lambda s: s.get("journal") is not None)["journal"] == journal
        finally:
            assert kiosk.stop() == 0, kiosk.text()

    # the TD comes and resumes the clock from the hub: the notice is cleared, for good
    kiosk, _, snap = start(config)
    try:
        hub.command({"id": f"td-{uuid.uuid4().hex[:6]}", "type": "resume" if snap["match_id"] else "td_ack"})
        if snap["match_id"]:
            assert hub.status_where(lambda s: s.get("journal") is None)["journal"] is None
    finally:
        assert kiosk.stop() == 0, kiosk.text()


@pytest.mark.parametrize("kind", list(LOST))
def test_lost_journal_is_reported_for_its_match(room, kind):
    config, data, hub = room
    play_part_of_a_match(config, data)
    marker = json.loads((data / "journal-health.json").read_text())["marker"]
    DAMAGED.get(kind, LOST[kind])(data / "journal.sqlite3")

    for _ in range(2):
        kiosk, restored, snap = start(config)
        try:
            assert restored == 0 and snap["match_id"] is None
            journal = hub.status_where(lambda s: s.get("journal") is not None)["journal"]
            assert journal["problem"] == "lost"
            assert journal["match_id"] == "m1"
            assert journal["last_seq"] == marker["seq"] > 0
        finally:
            assert kiosk.stop() == 0, kiosk.text()
