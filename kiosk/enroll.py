"""Enrollment, the table's side: say hello to the hub, show the code, wait, become a table.

:func:`enroll` is what ``bgtable enroll`` runs and what ``bgtable run`` runs behind the "Table
not set up — code 4821" screen. The protocol is docs/protocol.md §6:

1. ``POST /device/v1/hello`` with the device id and public key → a four-digit code;
2. ``POST /device/v1/poll`` (the hub holds it up to 25 s) until the TD has typed a table number
   for that code on the Tables page; an expired code means a new hello (and a new code);
3. the answer carries the table's configuration sealed to the device's key: opened here,
   checked like any ``table.toml`` (:func:`kiosk.config.from_mapping`), and written to the
   state directory (``table.toml``, 0600; ``broker-ca.pem`` when the broker uses TLS), with
   ``data_dir`` set to the state directory so the journal lives on the data partition.

Every answer is signed with the hub's key and names this device and the request's random nonce
(:mod:`kiosk.trust`). The first answer's key is the one this enrollment trusts (its fingerprint
is on the set-up screen, to compare with the hub's Tables page; a ``hub_key`` line in the boot
partition's settings file pins it in advance); the configuration must carry that same key, and
it is written into ``table.toml`` (``fleet.hub_key``): the table believes nothing else afterwards.

A hub that cannot be reached is tried again (with back-off) until the deadline; what the hub
refuses (HTTP 4xx) is an :class:`EnrollRefused` with the hub's reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.private_file import write_private
from drivers.sealed_box import SealedBoxError, b64decode, b64encode, open_sealed
from drivers.signing import fingerprint
from kiosk.config import ConfigError, from_mapping
from kiosk.device_identity import DeviceIdentity
from kiosk.errors import KioskError
from kiosk.trust import TrustError, check_answer, new_nonce

log = logging.getLogger("kiosk.enroll")

SEAL_CONTEXT = b"bgtable-enroll-v1:"
CONFIG_NAME = "table.toml"
CA_NAME = "broker-ca.pem"
#: a table whose device was retired at the hub: ``bgtable run`` sets it up again
RETIRED_MARK = "retired"
POLL_WAIT_S = 25
BACKOFF = (0.5, 5.0)
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class EnrollError(KioskError):
    """Enrollment did not complete (the message is one line for the organiser)."""


class HubUnreachable(EnrollError):
    """No answer from the hub within the deadline."""


class EnrollRefused(EnrollError):
    """The hub answered with an error (its reason is the message)."""


class EnrollTimeout(EnrollError):
    """The hub was reached, but the TD did not enroll the device within the deadline."""


@dataclass(frozen=True)
class Enrolled:
    table: str
    config_path: Path


class EnrollmentClient:
    """The device's two requests (JSON over HTTP or HTTPS, standard library only)."""

    def __init__(
        self,
        hub_url: str,
        identity: DeviceIdentity,
        *,
        version: str,
        build: str,
        ssl_context: ssl.SSLContext | None = None,
        pinned: bytes | None = None,
        expect_fingerprint: str = "",
    ) -> None:
        self.hub_url = hub_url.rstrip("/")
        self.identity = identity
        self.version = version
        self.build = build
        self.ssl_context = ssl_context
        #: the hub's key: pinned at enrollment, else the first answer's (trust on first use)
        self.pinned = pinned
        #: the fingerprint the boot partition's settings file expects (empty: any)
        self.expect_fingerprint = expect_fingerprint.strip().upper()

    def hello(self, timeout: float = 10.0) -> dict[str, Any]:
        body = {
            "device": self.identity.device,
            "key": self.identity.public_key_b64,
            "version": self.version[:64],
            "build": self.build[:64],
            "hostname": socket.gethostname()[:64],
        }
        return self._signed("hello", body, timeout)

    def poll(self, wait: float) -> dict[str, Any]:
        body = {"device": self.identity.device, "key": self.identity.public_key_b64, "wait": wait}
        return self._signed("poll", body, wait + 10.0)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.pinned) if self.pinned else ""

    def _signed(self, what: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        """A request with a fresh nonce; its answer only if the hub's key signed it for us."""
        nonce = new_nonce()
        answer = self._post(what, {**body, "nonce": nonce}, timeout)
        try:
            key = check_answer(answer, what, device=self.identity.device, nonce=nonce, pinned=self.pinned)
        except TrustError as exc:
            raise EnrollRefused(f"hub {self.hub_url}: {exc}") from None
        if self.expect_fingerprint and fingerprint(key) != self.expect_fingerprint:
            raise EnrollRefused(
                f"hub {self.hub_url} has key {fingerprint(key)}, not {self.expect_fingerprint} "
                "as the settings file says"
            )
        self.pinned = key
        return answer

    def _post(self, what: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        url = f"{self.hub_url}/device/v1/{what}"
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self.ssl_context) as response:
                data = response.read(256 * 1024)
        except urllib.error.HTTPError as exc:
            reason = _error_text(exc)
            if exc.code >= 500 or exc.code == 429:
                raise HubUnreachable(f"hub {self.hub_url}: {reason}") from None
            raise EnrollRefused(f"hub {self.hub_url} refused: {reason}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            why = getattr(exc, "reason", exc)
            raise HubUnreachable(f"hub {self.hub_url} unreachable ({why})") from None
        try:
            answer = json.loads(data)
        except ValueError:
            raise HubUnreachable(f"hub {self.hub_url}: the answer is not JSON (is this the hub?)") from None
        if not isinstance(answer, dict) or not isinstance(answer.get("state"), str):
            raise HubUnreachable(f"hub {self.hub_url}: unexpected answer (is this the hub?)")
        return answer


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(exc.read(4096))["error"])[:300]
    except (ValueError, KeyError, TypeError, OSError):
        return f"HTTP {exc.code}"


def enroll(
    client: EnrollmentClient,
    state_dir: Path,
    config_path: Path,
    *,
    timeout: float | None = None,
    on_code: Callable[[str], None] = lambda code: None,
    on_hub: Callable[[bool], None] = lambda reached: None,
    on_key: Callable[[str], None] = lambda fingerprint: None,
    stop: threading.Event | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> Enrolled:
    """Run enrollment to the end (see module doc); raises :class:`EnrollError` subclasses.

    ``timeout`` bounds the whole wait (None: wait as long as it takes). ``on_code`` is called with
    each new code as soon as the hub has given it, ``on_hub`` when the hub becomes (un)reachable,
    ``on_key`` with the fingerprint of the hub's key once its first signed answer came.
    """
    deadline = math.inf if timeout is None else monotonic() + timeout
    stop = stop or threading.Event()
    reached = False
    shown: str | None = None
    delay = BACKOFF[0]

    def left() -> float:
        return deadline - monotonic()

    while not stop.is_set():
        try:
            answer = client.hello(timeout=max(0.5, min(10.0, left())))
            if not reached:
                reached = True
                on_key(client.fingerprint)
                on_hub(True)
            delay = BACKOFF[0]
            while answer["state"] == "pending":
                code = str(answer.get("code"))
                if code != shown:
                    shown = code
                    on_code(code)
                if left() <= 0 or stop.is_set():
                    break
                answer = client.poll(max(0.0, min(POLL_WAIT_S, left())))
            if answer["state"] == "enrolled":
                if "sealed" not in answer:
                    answer = client.poll(0)
                if isinstance(answer.get("sealed"), str) and client.pinned is not None:
                    return write_configuration(
                        client.identity, state_dir, config_path, answer["sealed"], client.pinned
                    )
        except HubUnreachable as exc:
            if reached:
                reached = False
                on_hub(False)
            if left() <= 0:
                raise HubUnreachable(f"{exc}; gave up after {timeout:g} s") from None
            log.info("%s; trying again", exc)
            stop.wait(min(delay, max(0.0, left())))
            delay = min(delay * 2, BACKOFF[1])
            continue
        if left() <= 0:
            if not reached:
                raise HubUnreachable(f"hub {client.hub_url} unreachable within {timeout:g} s")
            raise EnrollTimeout(f"not enrolled within {timeout:g} s (code {shown})")
    raise EnrollError("stopped")


def write_configuration(
    identity: DeviceIdentity, state_dir: Path, config_path: Path, sealed: str, hub_key: bytes
) -> Enrolled:
    """Open the sealed configuration, check it, and write it (and the broker's CA) to disk.
    ``hub_key`` signed the answer that carried it: the configuration must name the same key,
    which is pinned in ``table.toml``."""
    try:
        payload = json.loads(
            open_sealed(identity.private_key, b64decode(sealed), SEAL_CONTEXT + identity.device.encode())
        )
    except (SealedBoxError, ValueError) as exc:
        raise EnrollRefused(
            f"the hub's configuration cannot be opened with this device's key ({exc})"
        ) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("config"), dict):
        raise EnrollRefused("the hub's configuration is not a table configuration")
    if payload.get("hub_key") != b64encode(hub_key):
        raise EnrollRefused("the hub's configuration names another hub key than the one that signed it")
    mapping = dict(payload["config"])
    mapping["data_dir"] = str(state_dir)
    fleet = dict(mapping.get("fleet") or {})
    fleet["hub_key"] = b64encode(hub_key)
    fleet.pop("release_keys", None)  # the image's release keys, never the hub's to choose
    mapping["fleet"] = fleet
    ca_pem = payload.get("ca_pem")
    if isinstance(ca_pem, str) and ca_pem.strip():
        if "BEGIN CERTIFICATE" not in ca_pem or len(ca_pem) > 64 * 1024:
            raise EnrollRefused("the broker's CA from the hub is not a PEM certificate")
        broker = dict(mapping.get("broker") or {})
        broker.update(tls=True, ca_file=str(state_dir / CA_NAME))
        mapping["broker"] = broker
        write_private(state_dir / CA_NAME, ca_pem)
    try:
        config = from_mapping(mapping)
    except ConfigError as exc:
        raise EnrollRefused(f"the hub's configuration is not valid here: {exc}") from None
    text = (
        f"# Table {config.table_id} at event {config.event}: written at enrollment by the hub.\n"
        "# The hub's Tables page changes it (enroll again); keep it 0600.\n" + to_toml(mapping)
    )
    write_private(config_path, text)
    with contextlib.suppress(FileNotFoundError):
        (state_dir / RETIRED_MARK).unlink()
    return Enrolled(config.table_id, config_path)


def is_retired(state_dir: Path) -> bool:
    return (state_dir / RETIRED_MARK).exists()


def mark_retired(state_dir: Path, why: str) -> None:
    """The hub retired this device: the next ``bgtable run`` sets it up again (the old
    configuration stays on disk, for the record, but is not used)."""
    write_private(state_dir / RETIRED_MARK, why + "\n")


# -- TOML for a kiosk configuration -------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ValueError(f"cannot write {value!r} as TOML")


def _toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else json.dumps(key)


def to_toml(mapping: dict[str, Any]) -> str:
    """Top-level keys, then one ``[section]`` per table (all a kiosk configuration has)."""
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in mapping.items() if not isinstance(v, dict)]
    for name, body in mapping.items():
        if isinstance(body, dict):
            lines += [
                "",
                f"[{_toml_key(name)}]",
                *(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in body.items()),
            ]
    return "\n".join(lines) + "\n"
