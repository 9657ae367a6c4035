"""The kiosk on a real broker: it announces itself, takes the hub's assignment and commands through
its journal, publishes every event and its state, and keeps working when the broker goes away."""

from __future__ import annotations

import json
import queue
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pygame
import pytest

from kiosk.app import KioskApp
from kiosk.config import BrokerConfig, Config, PinsConfig
from kiosk.journal import read_journal
from rulebook.vocab import InputType

WAIT_S = 10.0
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}


def run_until(app: KioskApp, pred: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    pacer = pygame.time.Clock()
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        app.step()
        pacer.tick(200)


class Hub:
    """A plain MQTT client in the hub's place: records what the table publishes."""

    def __init__(self, host: str, port: int, base: str):
        self.base = base
        self.messages: queue.Queue[tuple[str, Any, bool]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"hub-{uuid.uuid4().hex[:8]}")
        self.client.on_message = self._on_message
        subscribed = queue.Queue()
        self.client.on_subscribe = lambda *a: subscribed.put(True)
        self.client.connect(host, port)
        self.client.loop_start()
        self.client.subscribe(f"{base}/table/+/#", qos=1)
        subscribed.get(timeout=WAIT_S)

    def _on_message(self, client, userdata, msg) -> None:
        payload = json.loads(msg.payload) if msg.payload else None
        self.messages.put((msg.topic.removeprefix(self.base + "/"), payload, msg.retain))

    def publish(self, topic: str, payload: dict, retain: bool = False) -> None:
        self.client.publish(
            f"{self.base}/{topic}", json.dumps(payload), qos=1, retain=retain
        ).wait_for_publish(WAIT_S)

    def expect(self, app: KioskApp, pred: Callable[[str, Any], bool], what: str) -> Any:
        """Run the kiosk until the hub has received a message that satisfies ``pred``."""
        found: list[Any] = []

        def seen() -> bool:
            while True:
                try:
                    topic, payload, _ = self.messages.get_nowait()
                except queue.Empty:
                    return False
                if pred(topic, payload):
                    found.append(payload)
                    return True

        run_until(app, seen, what)
        return found[0]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def event_id() -> str:
    return f"ev-{uuid.uuid4().hex[:10]}"


def make_app(tmp_path: Path, broker: Any, event: str) -> KioskApp:
    config = Config(
        table_id="21",
        event=event,
        data_dir=str(tmp_path / "data"),
        pins=PinsConfig(enabled=False),
        broker=BrokerConfig(host=broker.host, port=broker.port),
    )
    app = KioskApp(config, headless=True)
    app.start()
    return app


def test_assignment_commands_events_and_state(tmp_path, mosquitto, event_id):
    hub = Hub(mosquitto.host, mosquitto.port, f"bg/v1/{event_id}")
    app = make_app(tmp_path, mosquitto, event_id)
    try:
        status = hub.expect(app, lambda t, p: t == "table/21/status" and p["online"], "status online")
        assert status["boot_id"] == app.boot_id
        hub.expect(app, lambda t, p: t == "table/21/state", "first state")
        run_until(app, lambda: app.local.hub_online, "hub shown online")

        assign = {
            "match_id": "r1-t21",
            "length": 5,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
        }
        hub.publish("table/21/assign", assign, retain=True)
        evt = hub.expect(app, lambda t, p: t == "table/21/evt" and p["type"] == "assign", "assign event")
        assert (evt["seq"], evt["match_id"]) == (1, "r1-t21")
        state = hub.expect(
            app, lambda t, p: t == "table/21/state" and p["match_id"] == "r1-t21", "state after assign"
        )
        assert state["length"] == 5 and state["table"] == "21"

        hub.publish("table/21/cmd", {"id": "cmd-1", "type": "set_length", "length": 7})
        done = hub.expect(app, lambda t, p: t == "table/21/evt" and p["type"] == "cmd_done", "cmd_done")
        assert (done["id"], done["ok"]) == ("cmd-1", True)
        hub.expect(app, lambda t, p: t == "table/21/state" and p["length"] == 7, "state after cmd")

        rows = read_journal(app.config.journal_path)
        assert [r["input"] for r in rows] == ["assign", "cmd"]
        assert rows[1]["id"] == "cmd-1"

        # the same command again (a hub that re-sent it) is applied once
        hub.publish("table/21/cmd", {"id": "cmd-1", "type": "set_length", "length": 7})
        again = hub.expect(app, lambda t, p: t == "table/21/evt" and p["type"] == "cmd_done", "dup cmd_done")
        assert again.get("duplicate") is True
    finally:
        app.close()
        hub.close()


def test_the_table_works_while_the_broker_is_down(tmp_path, own_mosquitto, event_id):
    app = make_app(tmp_path, own_mosquitto, event_id)
    try:
        run_until(app, lambda: app.link.online, "online")
        own_mosquitto.stop()
        run_until(app, lambda: not app.link.online, "offline")
        app.controller.submit(
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "off",
                "length": 3,
                "players": PLAYERS,
                "clock": True,
            }
        )
        app.controller.submit({"input": "checkin", "side": "A"})
        app.step()
        assert not app.local.hub_online
        assert app.controller.snapshot()["present"]["A"]
        own_mosquitto.start()
        hub = Hub(own_mosquitto.host, own_mosquitto.port, f"bg/v1/{event_id}")
        try:
            # the state made offline is announced (retained) on reconnect
            state = hub.expect(
                app, lambda t, p: t == "table/21/state" and p["match_id"] == "off", "state after reconnect"
            )
            assert state["present"]["A"] is True
            # and the events kept in the outbox go out, in order (re-sent here on the hub's request)
            run_until(app, lambda: app.outbox.pending_count() == 0, "outbox drained")
            hub.publish("table/21/resync", {"match_id": "off", "from_seq": 1})
            first = hub.expect(app, lambda t, p: t == "table/21/evt" and p["match_id"] == "off", "evt 1")
            second = hub.expect(app, lambda t, p: t == "table/21/evt" and p["match_id"] == "off", "evt 2")
            assert (first["type"], first["seq"], second["type"], second["seq"]) == ("assign", 1, "checkin", 2)
        finally:
            hub.close()
    finally:
        app.close()


def test_a_networked_table_keeps_the_number_of_its_credential(tmp_path, mosquitto, event_id):
    """The broker credential is the table id's: the TD menu cannot renumber a table on the network."""
    hub = Hub(mosquitto.host, mosquitto.port, f"bg/v1/{event_id}")
    app = make_app(tmp_path, mosquitto, event_id)
    try:
        assert app.local.table_number_fixed
        hub.expect(app, lambda t, p: t == "table/21/status" and p["online"], "status online")
        app._intents([{"app": "set_table_id", "table": "7"}])
        assert app.config.table_id == "21" and app.controller.snapshot()["table"] == "21"
        assert not (app.config.data_path / "settings.json").exists()
        hub.expect(app, lambda t, p: t == "table/21/state", "state still from table 21")
    finally:
        app.close()
        hub.close()


def test_the_hubs_next_lines_reach_the_result_screen_and_a_bad_message_is_dropped(
    tmp_path, mosquitto, event_id, caplog
):
    """``table/{t}/next``: checked at the kiosk's edge, shown on the result screen of its match
    (each player's line on his half), never journaled; a bad one is dropped and logged."""
    hub = Hub(mosquitto.host, mosquitto.port, f"bg/v1/{event_id}")
    app = make_app(tmp_path, mosquitto, event_id)
    try:
        hub.expect(app, lambda t, p: t == "table/21/status" and p["online"], "status online")
        assign = {
            "match_id": "main-r1-m1",
            "length": 1,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
        }
        hub.publish("table/21/assign", assign, retain=True)
        hub.expect(app, lambda t, p: t == "table/21/state" and p["match_id"] == "main-r1-m1", "assigned")
        for inp in (
            {"input": InputType.CHECKIN, "side": "A"},
            {"input": InputType.CHECKIN, "side": "B"},
            {"input": InputType.OPENING_ROLL, "A": 6, "B": 2},
            {"input": InputType.WIN, "side": "A", "kind": "single"},
            {"input": InputType.CONFIRM, "side": "A"},
            {"input": InputType.CONFIRM, "side": "B"},
        ):
            app.controller.submit(inp)
        hub.expect(
            app,
            lambda t, p: t == "table/21/state" and p.get("confirmed") == {"A": True, "B": True},
            "confirmed",
        )
        line = {
            "kind": "called",
            "flight": "main",
            "round": 2,
            "table": "14",
            "opponent": "Anna Berg",
            "waits_for": None,
            "from_table": None,
            "left": None,
        }
        good = {"match_id": "main-r1-m1", "wall": 1, "A": line, "B": {**line, "kind": "out"}}
        hub.publish("table/21/next", {**good, "A": {**line, "round": "2"}}, retain=True)  # refused
        hub.publish("table/21/next", good, retain=True)
        run_until(app, lambda: app.local.next_lines == good, "the lines taken")
        run_until(
            app,
            lambda: any(p.text == "Next: table 14 — round 2 vs Anna Berg" for p in app.view.last_layout),
            "the line drawn",
        )
        assert any(p.text == "Out of the main flight — thank you for playing" for p in app.view.last_layout)
        assert any("dropped" in r.getMessage() and "A.round" in r.getMessage() for r in caplog.records)
        assert [r["input"] for r in read_journal(app.config.journal_path)].count("assign") == 1
        assert all(r["input"] != "next" for r in read_journal(app.config.journal_path))
    finally:
        app.close()
        hub.close()


@pytest.mark.parametrize("end", ["checkin", "three_minutes"])
def test_the_previous_matchs_lines_stay_on_the_next_matchs_waiting_screen(tmp_path, mosquitto, event_id, end):
    """The next match called at once (the hub's usual pace): the lines of the match just played
    stay on the new match's waiting screen, each half in the language its player had chosen,
    until the new match's first check-in or three minutes on the kiosk's monotonic clock."""
    hub = Hub(mosquitto.host, mosquitto.port, f"bg/v1/{event_id}")
    ahead = [0.0]
    config = Config(
        table_id="21",
        event=event_id,
        data_dir=str(tmp_path / "data"),
        pins=PinsConfig(enabled=False),
        broker=BrokerConfig(host=mosquitto.host, port=mosquitto.port),
    )
    app = KioskApp(config, headless=True, monotonic=lambda: time.monotonic() + ahead[0])
    app.start()
    try:
        hub.expect(app, lambda t, p: t == "table/21/status" and p["online"], "status online")
        assign = {
            "match_id": "main-r1-m1",
            "length": 1,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
        }
        hub.publish("table/21/assign", assign, retain=True)
        hub.expect(app, lambda t, p: t == "table/21/state" and p["match_id"] == "main-r1-m1", "assigned")
        app._intents([{"ui": "lang", "side": "B", "lang": "fr"}])
        for inp in (
            {"input": InputType.CHECKIN, "side": "A"},
            {"input": InputType.CHECKIN, "side": "B"},
            {"input": InputType.OPENING_ROLL, "A": 6, "B": 2},
            {"input": InputType.WIN, "side": "A", "kind": "single"},
            {"input": InputType.CONFIRM, "side": "A"},
            {"input": InputType.CONFIRM, "side": "B"},
        ):
            app.controller.submit(inp)
        hub.expect(
            app,
            lambda t, p: t == "table/21/state" and p.get("confirmed") == {"A": True, "B": True},
            "confirmed",
        )
        line = {
            "kind": "called",
            "flight": "main",
            "round": 2,
            "table": "14",
            "opponent": "Anna Berg",
            "waits_for": None,
            "from_table": None,
            "left": None,
        }
        lines = {"match_id": "main-r1-m1", "wall": 1, "A": line, "B": {**line, "kind": "out"}}
        hub.publish("table/21/next", lines, retain=True)
        # the table called to its next match within the second: its waiting screen shows them
        hub.publish("table/21/assign", {**assign, "match_id": "consolation-r1-m2"}, retain=True)

        def strip() -> dict[str, str]:
            return {p.region: p.text for p in app.view.last_layout if p.region in ("A.prev", "B.prev")}

        run_until(app, lambda: strip() != {}, "the previous lines on the waiting screen")
        assert app.controller.state.match_id == "consolation-r1-m2"
        assert strip() == {
            "A.prev": "Next: table 14 — round 2 vs Anna Berg",
            "B.prev": "Éliminé du tableau main — merci d'avoir joué",
        }
        if end == "checkin":
            app.controller.submit({"input": InputType.CHECKIN, "side": "B"})
        else:
            ahead[0] = 170.0  # not yet
            for _ in range(20):
                app.step()
            assert strip() != {}
            ahead[0] = 181.0
        run_until(app, lambda: strip() == {}, "the lines gone")
        assert app.local.carried is None
    finally:
        app.close()
        hub.close()


def test_an_assignments_player_pages_reach_the_screen_never_the_journal(tmp_path, mosquitto, event_id):
    """The hub's ``pages`` (docs/protocol.md §3.4): each side checked at the edge, a bad one dropped,
    the good one kept for the waiting screen; the journaled input has no ``pages``."""
    hub = Hub(mosquitto.host, mosquitto.port, f"bg/v1/{event_id}")
    app = make_app(tmp_path, mosquitto, event_id)
    try:
        run_until(app, lambda: app.local.hub_online, "hub shown online")
        good = "http://bghub.local:8080/p/k7m2qxw"
        assign = {
            "match_id": "r1-t21",
            "length": 5,
            "players": PLAYERS,
            "profile": "wbgf-2023",
            "clock": True,
            "pages": {"A": good, "B": "javascript:alert(1)"},
        }
        hub.publish("table/21/assign", assign, retain=True)
        hub.expect(
            app, lambda t, p: t == "table/21/state" and p["match_id"] == "r1-t21", "state after assign"
        )
        run_until(app, lambda: app.local.pages == {"r1-t21": {"A": good}}, "the good page kept")
        rows = read_journal(app.config.journal_path)
        assert [r["input"] for r in rows] == ["assign"]
        assert "pages" not in rows[0]
    finally:
        app.close()
        hub.close()
