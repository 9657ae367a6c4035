"""The embedded MQTT broker (amqtt, pure Python) for a room without Mosquitto.

A small club runs ``bghub`` with no ``--broker`` and needs nothing else: the broker runs inside
the hub's process, on its event loop. A room of many tables, or one that needs per-table
credentials and ACLs, should run Mosquitto (``bghub broker-config``).

With a :class:`hub.broker.embedded_auth.RoomCredentials` the broker checks credentials and topics
through it (enrolled tables: their own topics only, revoked ones refused); without one it lets
every client in, as a throwaway broker for tests.
"""

from __future__ import annotations

import logging
from typing import Any

for _name in ("amqtt", "transitions"):
    logging.getLogger(_name).setLevel(logging.WARNING)


class EmbeddedBroker:
    """An amqtt broker listening on ``host:port``; start and stop it on the hub's loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883, credentials: Any = None) -> None:
        self.host = host
        self.port = port
        self.credentials = credentials
        self._broker: Any = None

    async def start(self) -> None:
        from amqtt.broker import Broker  # imported here: only a hub without --broker needs it

        anonymous = "amqtt.plugins.authentication.AnonymousAuthPlugin"
        plugins: dict[str, Any] = {anonymous: {"allow_anonymous": True}}
        if self.credentials is not None:
            plugins = {
                "hub.broker.embedded_auth.RoomAuthPlugin": {"credentials": self.credentials},
                "hub.broker.embedded_auth.RoomTopicPlugin": {"credentials": self.credentials},
            }
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": plugins,
        }
        self._broker = Broker(config)
        await self._broker.start()
        if self.credentials is not None:
            self.credentials.broker = self._broker

    async def stop(self) -> None:
        if self._broker is not None:
            broker, self._broker = self._broker, None
            await broker.shutdown()
