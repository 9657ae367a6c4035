"""Mosquitto's dynamic-security plugin: enrolled tables' credentials, changed while the broker runs.

``bghub broker-config`` keeps its password file and ACL for the hub and the tables listed on its
command line, and also loads the plugin (Debian's mosquitto ships it), with an empty
``dynamic-security.json``: the two work side by side — the plugin answers for the clients it
knows and leaves the others to the password file and the ACL. The ACL lets the hub's own
credential publish the plugin's commands (``$CONTROL/dynamic-security/v1``).

Enrolling a table then sends, over the hub's own connection (Mosquitto forces the client id to
the username, so a second connection with the hub's credential would throw the first one out):

- ``createRole`` ``bgtable-<table>`` with the table's rights (:func:`hub.broker.provision.table_rights`),
  which is harmless when the role exists already, and ``addRoleACL`` for each of those rights, so
  that a role an older hub made gains the rights added since (the hub's ``time``);
- ``createClient`` with the table's new username and password and that role.

Retiring one sends ``deleteClient``: the plugin drops the client's live connection at once and
refuses it from then on. The plugin writes every change to its JSON file, so enrolled tables
survive a broker restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.hub_link import HubLink
from hub.broker.provision import ProvisionError, table_rights

log = logging.getLogger("hub.dynsec")

CONTROL_TOPIC = "$CONTROL/dynamic-security/v1"
RESPONSE_TOPIC = f"{CONTROL_TOPIC}/response"
CONFIG_NAME = "dynamic-security.json"
PLUGIN_NAME = "mosquitto_dynamic_security.so"
#: where Debian (any architecture) and a source build put the plugin
PLUGIN_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib/arm-linux-gnueabihf",
    "/usr/lib",
    "/usr/local/lib",
)
#: errors that mean "already as asked"
HARMLESS = {
    "createRole": "Role already exists",
    "addRoleACL": "ACL with this topic already exists",
    "deleteClient": "Client not found",
}
#: what a client the plugin knows may do where no role says otherwise: nothing. Receiving too
#: must be granted topic by topic: where no role allows a subscription the plugin leaves the
#: decision to the ACL file, which (in Mosquitto 2.0) lets any subscription through, so without
#: this an enrolled table would read every topic of the room (``#``)
DEFAULT_ACL_ACCESS = {
    "publishClientSend": False,
    "publishClientReceive": False,
    "subscribe": False,
    "unsubscribe": True,
}


DEFAULT_ACLS = [{"acltype": kind, "allow": allow} for kind, allow in DEFAULT_ACL_ACCESS.items()]


def role_name(table: str) -> str:
    return f"bgtable-{table}"


def find_plugin(dirs: tuple[str, ...] = PLUGIN_DIRS) -> Path | None:
    """The plugin's shared object on this machine, or None."""
    for directory in dirs:
        path = Path(directory) / PLUGIN_NAME
        if path.is_file():
            return path
    return None


# --------------------------------------------------------------------------------------------
# bghub broker-config: what it adds to the broker's files


def conf_lines(out: Path, plugin: Path | None) -> list[str]:
    """The lines of mosquitto.conf that load the plugin with ``OUT/dynamic-security.json``."""
    if plugin is None:
        return [
            "",
            f"# No {PLUGIN_NAME} on this machine: tables cannot be enrolled from the dashboard",
            "# (install Debian's mosquitto, which ships it, and run broker-config again).",
        ]
    return [
        "",
        "# Enrolled tables' credentials, given and revoked by the hub while the broker runs",
        "# (the plugin answers for the clients it knows; the password file for the others).",
        f"plugin {plugin}",
        f"plugin_opt_config_file {out / CONFIG_NAME}",
    ]


def hub_acl_lines() -> list[str]:
    """The hub's extra ACL lines: it speaks to the plugin."""
    return [f"topic readwrite {CONTROL_TOPIC}", f"topic readwrite {RESPONSE_TOPIC}"]


def initial_config() -> str:
    """An empty plugin configuration: no clients, no roles; the hub adds them as tables enroll."""
    data = {"clients": [], "groups": [], "roles": [], "defaultACLAccess": DEFAULT_ACL_ACCESS}
    return json.dumps(data, indent=2) + "\n"


def broker_files(out: Path) -> dict[Path, str]:
    """The plugin's configuration, only when it does not exist yet: the broker keeps the enrolled
    tables in it, and a later ``broker-config --keep`` or ``--force`` must not drop them."""
    path = out / CONFIG_NAME
    return {} if path.exists() else {path: initial_config()}


# --------------------------------------------------------------------------------------------
# The hub's side


class DynsecProvisioner:
    """Grant and revoke enrolled tables' credentials through the plugin (see module doc)."""

    def __init__(self, event: str, link: Callable[[], HubLink | None], timeout: float = 10.0) -> None:
        self.event = event
        self._link = link
        self.timeout = timeout
        self._waiting: dict[str, asyncio.Future[list[dict[str, Any]]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self, link: HubLink, loop: asyncio.AbstractEventLoop) -> None:
        """Listen for the plugin's answers on the hub's link (before it starts)."""
        self._loop = loop
        link.add_handler(RESPONSE_TOPIC, self._on_response)

    async def grant(self, username: str, password: str, table: str) -> None:
        publish, subscribe = table_rights(self.event, table)
        acls = [{"acltype": "publishClientSend", "topic": t, "allow": True} for t in publish]
        acls += [
            {"acltype": kind, "topic": t, "allow": True}
            for t in subscribe
            for kind in ("subscribePattern", "publishClientReceive")
        ]
        # A role made by an older hub lacks the rights added since (``hub/time``): each right is
        # added to the existing role too, which the plugin answers "already exists" when it has it.
        rights = [{"command": "addRoleACL", "rolename": role_name(table), **acl} for acl in acls]
        await self._run(
            [
                # a configuration written by an older hub let its clients receive anything
                {"command": "setDefaultACLAccess", "acls": DEFAULT_ACLS},
                {"command": "createRole", "rolename": role_name(table), "acls": acls},
                *rights,
                {"command": "deleteClient", "username": username},
                {
                    "command": "createClient",
                    "username": username,
                    "password": password,
                    "textname": f"table {table}",
                    "roles": [{"rolename": role_name(table)}],
                },
            ]
        )

    async def revoke(self, username: str) -> None:
        await self._run([{"command": "deleteClient", "username": username}])

    async def _run(self, commands: list[dict[str, Any]]) -> None:
        link = self._link()
        if link is None or not link.online or self._loop is None:
            raise ProvisionError("the hub is not connected to the broker: try again in a moment")
        tag = secrets.token_hex(8)
        for index, command in enumerate(commands):
            command["correlationData"] = f"{tag}-{index}"
        future: asyncio.Future[list[dict[str, Any]]] = self._loop.create_future()
        self._waiting[tag] = future
        try:
            link.publish_raw(CONTROL_TOPIC, json.dumps({"commands": commands}).encode())
            try:
                responses = await asyncio.wait_for(future, self.timeout)
            except TimeoutError:
                raise ProvisionError(
                    "the broker did not answer the dynamic-security command: is the plugin loaded "
                    "(bghub broker-config writes the configuration that loads it)?"
                ) from None
        finally:
            self._waiting.pop(tag, None)
        for command, response in zip(commands, responses, strict=False):
            error = response.get("error")
            if error and HARMLESS.get(command["command"]) != error:
                raise ProvisionError(f"the broker refused {command['command']}: {error}")

    def _on_response(self, payload: bytes) -> None:
        """The plugin's answer (MQTT thread): hand it to the waiting request on the loop."""
        try:
            responses = json.loads(payload)["responses"]
            tag = str(responses[0]["correlationData"]).rsplit("-", 1)[0]
        except (ValueError, KeyError, IndexError, TypeError):
            log.warning("dropped a dynamic-security answer that is not one of ours")
            return
        if self._loop is not None and isinstance(responses, list):
            self._loop.call_soon_threadsafe(self._resolve, tag, responses)

    def _resolve(self, tag: str, responses: list[dict[str, Any]]) -> None:
        future = self._waiting.get(tag)
        if future is not None and not future.done():
            with contextlib.suppress(asyncio.InvalidStateError):
                future.set_result([r if isinstance(r, dict) else {} for r in responses])
