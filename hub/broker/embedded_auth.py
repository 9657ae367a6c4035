"""The embedded broker's equivalent of Mosquitto's dynamic security: credentials the hub changes live.

amqtt has plugins for a fixed password file and fixed topic lists, read once at start; enrolled
tables need their credentials added and revoked while the broker runs, and a revoked table
thrown out at once. :class:`RoomCredentials` is the list the hub changes (in memory, on the
hub's loop, where the broker runs too); two amqtt plugins ask it:

- :class:`RoomAuthPlugin`: a client that gives a known username must give its password (PBKDF2,
  the same ``$7$`` hash Mosquitto uses, never the password itself); a revoked username is refused;
- :class:`RoomTopicPlugin`: an enrolled table publishes and reads only its own topics
  (:func:`hub.broker.provision.table_rights`, the same rights Mosquitto's ACL gives).

The hub's own connection has a credential made at each start (the broker lives in its process).
A client with no password or an unknown username is let in only when the room is open
(``open_room``, the default: the demo's simulated tables and hand-configured tables connect that
way, as they always have with the embedded broker); ``bghub run --enrolled-only`` closes it, and
then only the hub and enrolled tables get in — the same guarantee as Mosquitto with
``bghub broker-config``. A room that needs that guarantee for many tables should still prefer
Mosquitto (docs/deployment.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from typing import Any

from amqtt.contexts import Action
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from hub.broker.mosquitto import hash_password, verify_password
from hub.broker.provision import table_rights

log = logging.getLogger("hub.embedded_auth")
HUB_USER = "hub"


def _matches(topic: str, pattern: str) -> bool:
    """MQTT topic filter matching (``+`` one level, ``#`` the rest)."""
    parts, wanted = topic.split("/"), pattern.split("/")
    for index, level in enumerate(wanted):
        if level == "#":
            return True
        if index >= len(parts) or (level != "+" and level != parts[index]):
            return False
    return len(parts) == len(wanted)


@dataclass
class TableCredential:
    table: str
    secret_hash: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]


class RoomCredentials:
    """Who may connect to the embedded broker, and as which table (see module doc)."""

    def __init__(self, event: str, *, open_room: bool = True) -> None:
        self.event = event
        self.open_room = open_room
        self.hub_password = secrets.token_urlsafe(24)
        self._tables: dict[str, TableCredential] = {}
        self._revoked: set[str] = set()
        #: the running amqtt broker, to drop a revoked client's connection
        self.broker: Any = None

    # -- what the hub changes ---------------------------------------------------------------

    def add(self, username: str, secret_hash: str, table: str) -> None:
        """Let ``username`` in as ``table`` (``secret_hash`` from :func:`hash_password`)."""
        publish, subscribe = table_rights(self.event, table)
        self._revoked.discard(username)
        self._tables[username] = TableCredential(table, secret_hash, tuple(publish), tuple(subscribe))

    def revoke(self, username: str) -> None:
        """Refuse ``username`` from now on (kept refused even in an open room)."""
        self._tables.pop(username, None)
        self._revoked.add(username)

    async def kick(self, username: str) -> int:
        """Close every live connection of ``username``; returns how many."""
        if self.broker is None:
            return 0
        closed = 0
        for session, handler in list(self.broker.sessions.values()):
            if session.username != username or handler is None or handler.writer is None:
                continue
            with contextlib.suppress(Exception):
                await asyncio.wait_for(handler.writer.close(), 2.0)
            closed += 1
        if closed:
            log.info("dropped %d connection(s) of revoked credential %s", closed, username)
        return closed

    # -- what the broker asks ---------------------------------------------------------------

    def authenticate(self, username: str | None, password: str | bytes | None) -> bool:
        if isinstance(password, bytes):
            password = password.decode("utf-8", "replace")
        if username == HUB_USER:
            return password is not None and hmac.compare_digest(password, self.hub_password)
        credential = self._tables.get(username or "")
        if credential is not None:
            return password is not None and verify_password(password, credential.secret_hash)
        if username in self._revoked:
            return False
        return self.open_room

    def allowed(self, username: str | None, topic: str, action: Action) -> bool:
        credential = self._tables.get(username or "")
        if credential is None:
            # the hub; or an unenrolled client of an open room (a closed room let none in)
            return username not in self._revoked
        if action == Action.PUBLISH:
            return any(_matches(topic, t) for t in credential.publish)
        if action == Action.SUBSCRIBE:
            return topic in credential.subscribe
        return True  # receiving: only what its (checked) subscriptions bring

    @staticmethod
    def hash(password: str) -> str:
        return hash_password(password)


class RoomAuthPlugin(BaseAuthPlugin):  # type: ignore[misc]  # amqtt has no type information
    """amqtt authentication through :class:`RoomCredentials`."""

    @dataclass
    class Config:
        credentials: Any = None

    async def authenticate(self, *, session: Any) -> bool | None:
        credentials: RoomCredentials = self.config.credentials
        ok = credentials.authenticate(session.username, session.password)
        if not ok:
            log.info("refused a connection with username %r", session.username)
        return ok


class RoomTopicPlugin(BaseTopicPlugin):  # type: ignore[misc]  # amqtt has no type information
    """amqtt topic checks through :class:`RoomCredentials`."""

    @dataclass
    class Config:
        credentials: Any = None

    async def topic_filtering(
        self, *, session: Any = None, topic: str | None = None, action: Action | None = None
    ) -> bool | None:
        credentials: RoomCredentials = self.config.credentials
        if topic is None or action is None:
            return False
        return credentials.allowed(session.username if session else None, topic, action)


class EmbeddedProvisioner:
    """:class:`hub.broker.provision.Provisioner` for the embedded broker."""

    def __init__(self, credentials: RoomCredentials) -> None:
        self.credentials = credentials

    async def grant(self, username: str, password: str, table: str) -> None:
        self.credentials.add(username, hash_password(password), table)

    async def revoke(self, username: str) -> None:
        self.credentials.revoke(username)
        await self.credentials.kick(username)
