"""The embedded MQTT broker (amqtt, pure Python) for a room without Mosquitto.

A small club runs ``bghub`` with no ``--broker`` and needs nothing else: the broker runs inside
the hub's process, on its event loop. A room of many tables, or one that needs per-table
credentials and ACLs, should run Mosquitto (``bghub broker-config``).
"""

from __future__ import annotations

import logging
from typing import Any

for _name in ("amqtt", "transitions"):
    logging.getLogger(_name).setLevel(logging.WARNING)


class EmbeddedBroker:
    """An amqtt broker listening on ``host:port``; start and stop it on the hub's loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host = host
        self.port = port
        self._broker: Any = None

    async def start(self) -> None:
        from amqtt.broker import Broker  # imported here: only a hub without --broker needs it

        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        self._broker = Broker(config)
        await self._broker.start()

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            await broker.shutdown()
