"""Shared pieces of the fault tests: a broker that keeps sessions across restarts, a room of
simulated tables, a hub in-process or as a ``bghub`` process, and the delivery checks.

A simulated table here is the real thing minus the screen: the rulebook reducer, the real
:class:`~drivers.table_link.TableLink` and a real on-disk :class:`~drivers.outbox.Outbox`
(:class:`demo.simtable.SimTable`). What the fault tests prove is stated against what the tables
themselves produced: every event a table made must be in the hub's store exactly once, in order.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from demo.simtable import ScriptedPlayers, SimTable, Temperament
from hub.app import RunConfig
from hub.live.clock import Clock
from hub.live.config import HubConfig
from hub.service import HubThread
from tests.support.broker import Mosquitto, free_port, wait_for_port
from tests.support.patience import patience, wait_until

MIN = 60_000
#: 2030-03-17 13:20 UTC: fixed, so that the fake-clock tests read the same every run
T0 = 1_900_000_000_000
PASSWORD = "td-password-for-fault-tests"
WAIT = patience(30.0)  # seconds on a quiet machine, scaled for a loaded one
_ids = itertools.count(1)


def event_id(name: str) -> str:
    """A distinct MQTT event id per test run (a test may share the session broker)."""
    return f"f{os.getpid()}-{next(_ids)}-{name}"[:60]


# -- brokers ------------------------------------------------------------------------------------


def persistent_broker() -> Mosquitto:
    """A Mosquitto whose sessions, queued messages and retained messages survive a restart.

    The hub's persistent session (``clean_session=False``) is what keeps the tables' events
    for it while it is away; across a broker restart that needs ``persistence true``. The
    broker drops root for the ``mosquitto`` user, so the store directory is world-writable.
    """
    broker = Mosquitto()
    store = broker.dir / "store"
    store.mkdir(mode=0o777)
    store.chmod(0o777)
    broker.dir.chmod(0o755)
    broker.extra_conf = (
        f"allow_anonymous true\npersistence true\npersistence_location {store}/\nautosave_interval 1\n"
    )
    return broker


def saved_database(broker: Mosquitto) -> tuple[int, int] | None:
    """Which database file a :func:`persistent_broker` has on disk (inode, mtime), or None.

    Mosquitto logs "Saving in-memory database" *before* it writes: it writes ``mosquitto.db.new``,
    then renames it over ``mosquitto.db``. Only the rename makes a save what a restart restores,
    and it gives the file a new inode: a change of this pair is a finished save.
    """
    try:
        st = (broker.dir / "store" / "mosquitto.db").stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def crash_broker(broker: Mosquitto) -> None:
    """SIGKILL the broker (a crash or power cut): no Will is sent, only the last autosave is kept.

    It waits first until the sessions the test set up are on disk, as they would be in a broker
    that ran for more than a second before crashing: until two more autosaves are in place
    (:func:`saved_database`). One is not enough: the save in progress when this is called may
    have begun before them. A save only begun is not enough either: a broker killed while it
    writes restarts from the save before, and from none at all if it was its first — without
    the hub's session, so that what the tables send before the hub is back goes to no one.
    """
    assert broker.proc is not None
    for _ in range(2):
        before = saved_database(broker)
        wait_until(
            lambda b=before: saved_database(broker) not in (None, b), WAIT, "a broker autosave on disk"
        )
    broker.proc.kill()
    broker.proc.wait(WAIT)
    broker.proc = None
    broker.log.close()


# -- schedules ----------------------------------------------------------------------------------


def iso(wall: int) -> str:
    return datetime.fromtimestamp(wall / 1000, tz=UTC).isoformat()


def schedule_csv(rows: list[dict[str, Any]]) -> str:
    columns = ["round", "table", "player_a", "player_b", "length", "start", "clock"]
    lines = [",".join(columns)]
    for r in rows:
        cells = {"round": 1, "clock": "no", **r}
        cells["start"] = iso(cells["start"])
        lines.append(",".join(str(cells[c]) for c in columns))
    return "\n".join(lines) + "\n"


def room_schedule(
    tables: list[str], start: int | dict[str, int], length: int | dict[str, int] = 7, clock: str = "no"
) -> str:
    """Round 1 at every table; ``start``/``length`` may differ per table."""
    rows = []
    for t in tables:
        rows.append(
            {
                "table": t,
                "player_a": f"Ann{t}",
                "player_b": f"Bob{t}",
                "length": length[t] if isinstance(length, dict) else length,
                "start": start[t] if isinstance(start, dict) else start,
                "clock": clock,
            }
        )
    return schedule_csv(rows)


# -- hubs ---------------------------------------------------------------------------------------


def start_hub_thread(
    tmp_path: Path,
    broker: Mosquitto,
    event: str,
    clock: Clock | None,
    *,
    schedule: str | None = None,
    db: Path | None = None,
    **config: Any,
) -> HubThread:
    """The real hub (broker link, store, core, web) on a thread of this process."""
    schedule_path = None
    if schedule is not None:
        schedule_path = tmp_path / f"schedule-{event}.csv"
        schedule_path.write_text(schedule, encoding="utf-8")
    rc = RunConfig(
        hub=HubConfig(event=event, broker_host=broker.host, broker_port=broker.port, **config),
        db=str(db or tmp_path / f"hub-{event}.db"),
        http_host="127.0.0.1",
        http_port=0,
        schedule=str(schedule_path) if schedule_path else None,
    )
    hub = HubThread(rc, clock=clock, password=PASSWORD).start()
    # Publishing before the hub's subscriptions are in place would lose messages: wait for them.
    if not hub.hub.link.client.wait_subscribed(30):
        hub.stop()
        raise TimeoutError("the hub did not subscribe to its topics")
    return hub


class HubProcess:
    """``bghub`` as a separate process (so it can be killed with SIGKILL) on a database file."""

    URL = re.compile(r"dashboard (http://\S+)")

    def __init__(
        self,
        tmp_path: Path,
        broker: Mosquitto,
        event: str,
        db: Path,
        *,
        schedule: str | None = None,
        extra: list[str] | None = None,
        prefix: list[str] | None = None,
    ) -> None:
        """``prefix``: a command the hub runs under (e.g. ``unshare`` for a disk of its own)."""
        self.log_path = tmp_path / f"bghub-{event}.log"
        password = tmp_path / "td-password"
        password.write_text(PASSWORD + "\n", encoding="utf-8")
        args = [
            *(prefix or []),
            sys.executable,
            "-m",
            "hub.cli",
            "--event",
            event,
            "--broker",
            broker.url,
            "--db",
            str(db),
            "--http",
            f"127.0.0.1:{free_port()}",
            "--password-file",
            str(password),
            "--public",
            "--log-level",
            "INFO",
            *(extra or []),
        ]
        if schedule is not None:
            path = tmp_path / f"schedule-{event}.csv"
            path.write_text(schedule, encoding="utf-8")
            args += ["--schedule", str(path)]
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in wait()/kill()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log)
        self.url = self._read_url()
        host, port = self.url.removeprefix("http://").rsplit(":", 1)
        wait_for_port(host, int(port), WAIT)

    def _read_url(self) -> str:
        lines: queue.Queue[str | None] = queue.Queue()

        def reader() -> None:
            assert self.proc.stdout is not None
            for raw in self.proc.stdout:
                lines.put(raw.decode("utf-8", "replace"))
            lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        deadline = time.monotonic() + WAIT
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"bghub exited at start:\n{self.log_path.read_text()}")
            found = self.URL.search(line)
            if found:
                return found.group(1)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> int:
        """SIGKILL: no handler runs, nothing is flushed, the broker publishes the hub's Will."""
        self.proc.kill()
        code = self.proc.wait(WAIT)
        self.log.close()
        return code

    def stop(self) -> int:
        self.proc.terminate()
        try:
            code = self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(WAIT)
        self.log.close()
        return code


class TdClient:
    """The TD's browser, reduced to its HTTP calls: a session cookie, the CSRF token, a login."""

    def __init__(self, url: str, password: str = PASSWORD) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = self._call("GET", "/api/session")["csrf"]
        self.csrf = self._call("POST", "/api/login", {"password": password})["csrf"]

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if method != "GET" and getattr(self, "csrf", None):
            request.add_header("X-CSRF-Token", self.csrf)
        with self.opener.open(request, timeout=patience(10)) as response:
            return json.loads(response.read())

    def get(self, path: str) -> Any:
        return self._call("GET", path)

    def text(self, path: str) -> str:
        """The response body as sent (to check it is standard JSON)."""
        with self.opener.open(self.url + path, timeout=patience(10)) as response:
            return response.read().decode("utf-8")

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._call("POST", path, body or {})


@contextlib.contextmanager
def read_db(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only look at a hub database another thread or process is writing (WAL)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    db.row_factory = sqlite3.Row
    try:
        yield db
    finally:
        db.close()


def small_queue_broker(queue: int) -> Mosquitto:
    """A real Mosquitto that queues at most ``queue`` messages for a persistent session that is
    away (``max_queued_messages``): past it, what comes for the session is dropped."""
    broker = Mosquitto()
    conf = broker.dir / "small-queue.conf"
    conf.write_text(
        f"listener {broker.port} {broker.host}\npersistence false\nallow_anonymous true\n"
        f"max_queued_messages {queue}\n"
    )
    broker.conf_path = conf
    return broker.start()


def flood(broker: Mosquitto, event: str, count: int) -> None:
    """``count`` well-formed events on table 9's topic, each acknowledged by the broker."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="flooder")
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        infos = [
            client.publish(
                f"bg/v1/{event}/table/9/evt",
                json.dumps({"seq": i, "match_id": "zz", "type": "press", "side": "A", "wall": 1}),
                qos=1,
            )
            for i in range(1, count + 1)
        ]
        for info in infos:
            info.wait_for_publish(30)
    finally:
        client.disconnect()
        client.loop_stop()


# -- tables -------------------------------------------------------------------------------------


def make_table(event: str, table: str, broker: Mosquitto, clock: Clock | None, outbox: Path) -> SimTable:
    """A simulated table with a real on-disk outbox (durable across a restart of its link)."""
    return SimTable(event, table, broker.host, broker.port, clock=clock, outbox_path=str(outbox))


def restart_table(old: SimTable, event: str, broker: Mosquitto, clock: Clock | None) -> SimTable:
    """The same table back on the network: same state and outbox file, a new connection
    (as after a network cut: the process kept running, its link is new)."""
    new = SimTable(event, old.table, broker.host, broker.port, clock=clock, outbox_path=old.outbox.path)
    old.outbox.close()
    with old._lock:
        new.state, new.events, new.cmds, new.assigns = old.state, old.events, old.cmds, old.assigns
    return new


#: players who arrive on time, never take a break or call the TD, and never run out of time:
#: their inputs are all play (rolls, presses, cube, results), so lateness is what the test sets
STEADY = Temperament(p_late=0.0, p_break=0.0, p_call_td=0.0, p_slowcoach=0.0, arrive_ms=(-60_000, -1))


class Players:
    """Plays tables from the test's thread: each call applies each table's next planned input
    at once (the plan's own delay is ignored; time is whatever the clock says)."""

    def __init__(self, tables: list[SimTable], clock: Clock, seed: int, temperament: Temperament = STEADY):
        rng = random.Random(seed)
        self.clock = clock
        self.players = [ScriptedPlayers(t, random.Random(rng.random()), temperament) for t in tables]

    def step(self) -> int:
        applied = 0
        for p in self.players:
            plan = p.plan(self.clock.now_wall())
            if plan is not None:
                p.sim.apply(plan.inp)
                applied += 1
        return applied


# -- the delivery check -------------------------------------------------------------------------


def stored_events(db: sqlite3.Connection, table: str, *, as_filed: bool = False) -> list[dict[str, Any]]:
    """The hub's stored events of ``table``, in the order the hub stored them. An event filed
    apart (its table lost its journal, or a new device took its match) keeps the body the table
    sent: ``as_filed`` gives it the match id it is filed under."""
    rows = db.execute("SELECT match_id, seq, body FROM events WHERE tbl = ? ORDER BY id", (table,))
    out = []
    for r in rows:
        body = json.loads(r["body"])
        if as_filed:
            body["match_id"] = r["match_id"]
        assert body["seq"] == r["seq"] and body["match_id"] == r["match_id"], dict(r)
        out.append(body)
    return out


def expected_events(sim: SimTable) -> list[dict[str, Any]]:
    """What the hub must have stored for this table: every event it made, as the hub keys it."""
    with sim._lock:
        events = list(sim.events)
    return [{**e, "match_id": e["match_id"] or ""} for e in events]


def delivery_report(
    expected: list[dict[str, Any]], stored: list[dict[str, Any]], *, ordered: bool = True
) -> str | None:
    """Why ``stored`` is not exactly ``expected`` (each once, in order if ``ordered``), or None."""
    keys = [(e["match_id"], e["seq"]) for e in expected]
    got = [(e["match_id"], e["seq"]) for e in stored]
    if len(set(got)) != len(got):
        dup = sorted({k for k in got if got.count(k) > 1})
        return f"duplicates stored: {dup[:10]}"
    missing = [k for k in keys if k not in set(got)]
    extra = [k for k in got if k not in set(keys)]
    if missing or extra:
        return f"missing {missing[:10]} ({len(missing)}), extra {extra[:10]} ({len(extra)})"
    if not ordered:
        by_key = {(e["match_id"], e["seq"]): e for e in stored}
        stored = [by_key[k] for k in keys]
    elif got != keys:
        first = next(i for i, (a, b) in enumerate(zip(got, keys, strict=True)) if a != b)
        stored_here, made_here = got[first : first + 5], keys[first : first + 5]
        return f"order differs from event {first}: stored {stored_here}, made {made_here}"
    for made, kept in zip(expected, stored, strict=True):
        if made != kept:
            return f"event {made['match_id']}#{made['seq']} stored as {kept}, made as {made}"
    return None


def all_delivered(db_path: Path, sims: list[SimTable], *, ordered: bool = True) -> dict[str, str]:
    """table -> what is wrong with its delivery (empty when every table's events are all in)."""
    problems = {}
    with read_db(db_path) as db:
        for sim in sims:
            report = delivery_report(expected_events(sim), stored_events(db, sim.table), ordered=ordered)
            if report:
                problems[sim.table] = report
    return problems


def wait_delivered(
    db_path: Path, sims: list[SimTable], timeout: float = WAIT, *, ordered: bool = True
) -> None:
    """Wait until every event of every table is stored (exactly once, in order unless told
    otherwise), or fail saying what is missing, doubled or out of order."""
    problems: dict[str, str] = {}

    def done() -> bool:
        problems.clear()
        problems.update(all_delivered(db_path, sims, ordered=ordered))
        return not problems

    try:
        wait_until(done, timeout, "delivery")
    except TimeoutError:
        raise AssertionError(f"events not delivered exactly once in order: {problems}") from None


def wait_states_held(hub: HubThread, sims: list[SimTable], timeout: float = WAIT) -> None:
    """Wait until the hub holds each table's latest state, before the test moves the fake clock.

    A state carries durations (``assigned_ms``, ``present_ms``: how long ago, as the table
    measured when it computed it) that the hub anchors at receipt, in its own time. A state the
    table computed before the clock jumped by minutes and the hub received after the jump would
    put the table's assignment and check-ins minutes later than they were, and the lateness
    counted from them with it — a race of the fake clock (real time never jumps while a message
    is on its way), which left a table one point short until its next state, which never came.
    """

    def held(h: Any) -> bool:
        for sim in sims:
            view = h.views.get(sim.table)
            state = view.state if view is not None else None
            if state is None or state.get("seq") != sim.state.seq:
                return False
        return True

    hub.wait_for(held, timeout)
