"""Broker credentials for enrolled tables, given and taken back while the broker runs.

Enrolling a table must not need SSH or a broker restart, and a replaced table's credential must
stop working at once. Two brokers can do that:

- Mosquitto with its dynamic-security plugin (:mod:`hub.broker.dynsec`): the hub sends the plugin's
  commands over its own MQTT connection;
- the embedded amqtt broker (:mod:`hub.broker.embedded_auth`): an authentication and topic plugin whose
  credential list the hub changes in place.

Both grant the same rights, listed once here (:func:`table_rights`): what the ACL that
``bghub broker-config`` writes gives each table, so an enrolled table and a hand-configured one
can do exactly the same things.
"""

from __future__ import annotations

from typing import Any, Protocol

from drivers.mqtt_topics import PREFIX
from hub.live.actions import ActionError


class FleetError(ActionError):
    """A fleet action that cannot be done; ``status`` is the HTTP status the API answers with,
    ``code`` a stable name for the refusal and ``detail`` its parameters (both in the answer)."""

    def __init__(
        self,
        message: str,
        status: int = 400,
        *,
        code: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code, status=status, detail=detail)


class ProvisionError(FleetError):
    """The broker did not take the change (not reachable, no dynamic security, refused)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 503)


class Provisioner(Protocol):
    """Where enrolled tables' credentials live (the broker, or what the broker asks)."""

    async def grant(self, username: str, password: str, table: str) -> None:
        """Let ``username``/``password`` connect as ``table`` (its own topics only)."""
        ...

    async def revoke(self, username: str) -> None:
        """Refuse ``username`` from now on and drop its connection if it has one."""
        ...


def table_rights(event: str, table: str) -> tuple[list[str], list[str]]:
    """``(publish, subscribe)``: the topics a table's credential may publish and read."""
    base = f"{PREFIX}/{event}/table/{table}"
    publish = [f"{base}/{kind}" for kind in ("status", "state", "evt", "device")]
    subscribe = [f"{base}/{kind}" for kind in ("assign", "cmd", "resync", "control", "next")]
    # the hub's presence, and its time of day (the table shows when its own clock is off)
    subscribe += [f"{PREFIX}/{event}/hub/status", f"{PREFIX}/{event}/hub/time"]
    return publish, subscribe
