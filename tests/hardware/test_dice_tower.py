"""Real serial: the table's dice tower answers on its port (docs/dice-reader.md)."""

from __future__ import annotations

import threading

import pytest

from drivers.dice import DiceReader, DiceStatus
from kiosk.config import Config


def test_the_tower_sends_heartbeats_with_its_identity(table_config: Config) -> None:
    if not table_config.dice.device:
        pytest.fail("this table's configuration names no dice tower ([dice] device)")
    alive = threading.Event()
    last: list[DiceStatus] = []

    def on_status(status: DiceStatus) -> None:
        last.append(status)
        if status.heartbeat_ok and status.device_id:
            alive.set()

    reader = DiceReader(
        table_config.dice.device,
        on_roll=lambda roll: None,
        on_status=on_status,
        baudrate=table_config.dice.baud,
    ).start()
    try:
        assert alive.wait(10), f"no heartbeat from {table_config.dice.device}: {last[-1] if last else None}"
        assert last[-1].rejected == 0, f"rejected lines: {dict(last[-1].rejects)}"
    finally:
        reader.stop()
