"""An event of several rooms on loopback: a central broker and room brokers written by
``bghub broker-config`` and run by real Mosquitto processes, each room's bridge going through a
:class:`~tests.rooms.link.CuttableLink` so that a test can cut one room off and bring it back.
"""

from __future__ import annotations

import os
import signal
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hub.broker.mosquitto import main as broker_config_main
from tests.rooms.link import CuttableLink
from tests.support.broker import Mosquitto, free_port


@dataclass
class RoomBroker:
    name: str
    out: Path
    broker: Mosquitto
    link: CuttableLink

    def credential(self, who: str) -> tuple[str, str]:
        path = (
            self.out / "tables" / f"{who}.toml" if who not in ("hub", "monitor") else self.out / f"{who}.toml"
        )
        broker = tomllib.loads(path.read_text())["broker"]
        return broker["username"], broker["password"]

    def kill(self) -> None:
        """SIGKILL the room's broker: its bridge dies with it, nothing is saved."""
        assert self.broker.proc is not None
        self.broker.proc.kill()
        self.broker.proc.wait()
        self.broker.proc = None
        self.broker.log.close()


@dataclass
class Event:
    """The central broker (``central``) and its rooms (started in :func:`start_event`)."""

    event: str
    central_out: Path
    central: Mosquitto
    rooms: dict[str, RoomBroker] = field(default_factory=dict)

    def credential(self, who: str) -> tuple[str, str]:
        path = (
            self.central_out / "tables" / f"{who}.toml"
            if who not in ("hub", "monitor")
            else (self.central_out / f"{who}.toml")
        )
        broker = tomllib.loads(path.read_text())["broker"]
        return broker["username"], broker["password"]

    def reload_central(self) -> None:
        """SIGHUP: Mosquitto reads its password file and ACL again (a bridge registered later)."""
        assert self.central.proc is not None
        os.kill(self.central.proc.pid, signal.SIGHUP)

    def stop(self) -> None:
        for room in self.rooms.values():
            room.link.cut()
            room.broker.stop()
        self.central.stop()


def generate(argv: list[str]) -> None:
    assert broker_config_main(argv) == 0, argv


def central_broker(tmp: Path, event: str, tables: str) -> Event:
    """The central broker's directory and its (not yet started) Mosquitto."""
    port = free_port()
    out = tmp / "central"
    generate(
        ["--event", event, "--tables", tables, "--out", str(out), "--port", str(port), "--bind", "127.0.0.1"]
    )
    return Event(event, out, Mosquitto(port=port, conf_path=out / "mosquitto.conf"))


def add_room(ev: Event, tmp: Path, name: str, tables: str, *extra: str) -> RoomBroker:
    """A room's broker, bridged to the central one through a link of its own (registered in the
    central's directory with ``--central``)."""
    link = CuttableLink(("127.0.0.1", ev.central.port))
    port = free_port()
    out = tmp / f"room-{name}"
    generate(
        [
            "--event", ev.event, "--tables", tables, "--out", str(out), "--port", str(port),
            "--bind", "127.0.0.1", "--host", "127.0.0.1", "--room", name,
            "--bridge-to", f"127.0.0.1:{link.port}",
            "--central", str(ev.central_out), *extra,
        ]
    )  # fmt: skip
    room = RoomBroker(name, out, Mosquitto(port=port, conf_path=out / "mosquitto.conf"), link)
    ev.rooms[name] = room
    return room


def start_event(ev: Event) -> Event:
    ev.central.start()
    for room in ev.rooms.values():
        room.link.mend()
        room.broker.start()
    return ev
