"""The hub's own signing key: made once, kept, and pinned by every table it enrolls.

A table must be able to tell its hub from whoever answers at the hub's address (a relay on the
venue's Wi-Fi, a second hub, a laptop announcing ``_bghub._tcp``). At enrollment the hub's public
key goes into the table's sealed configuration; from then on the table acts only on answers
signed with it (:mod:`drivers.signing`): its configuration, *retired*, the fleet's orders and
the software manifest.

The key lives beside the hub's database (``hub-signing.key``, 0600) unless ``--hub-key`` names
another file, and survives restarts and upgrades: a new key means every table must be enrolled
again. Its fingerprint is on the Tables page and in ``bghub``'s start-up line.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from drivers.private_file import write_private
from drivers.sealed_box import b64encode
from drivers.signing import (
    SignatureError,
    fingerprint,
    new_signing_key,
    parse_private_key,
    private_key_text,
    public_key_from_b64,
    public_of,
    sign,
)
from hub.errors import HubError

log = logging.getLogger("hub.hub_key")

KEY_NAME = "hub-signing.key"


class HubKeyError(HubError, ValueError):
    """The key file exists but cannot be used (the message names it)."""


class HubKey:
    """The hub's key pair; :meth:`sign` for every answer a table acts on."""

    def __init__(self, private: bytes) -> None:
        self._private = private
        self.public = public_of(private)
        self.public_b64 = b64encode(self.public)
        self.fingerprint = fingerprint(self.public)

    def sign(self, purpose: str, obj: dict[str, Any]) -> dict[str, Any]:
        return sign(self._private, obj, purpose)

    @classmethod
    def load_or_create(cls, path: Path) -> HubKey:
        """The key in ``path``; a new one written there (0600) when the file does not exist."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            key = cls(new_signing_key())
            write_private(path, private_key_text(key._private, "the hub's signing key: keep it 0600"))
            log.info("made the hub's signing key %s (fingerprint %s)", path, key.fingerprint)
            return key
        except OSError as exc:
            raise HubKeyError(f"hub key {path}: {exc}") from None
        try:
            return cls(parse_private_key(text))
        except SignatureError as exc:
            raise HubKeyError(f"hub key {path}: {exc}") from None


def default_path(db: str) -> Path | None:
    """``hub-signing.key`` beside the database; None for a database in memory."""
    if not db or db == ":memory:":
        return None
    return Path(db).resolve().parent / KEY_NAME


#: what a device's ``nonce`` may be (it sends 16 random bytes in base64)
NONCE_MAX = 64


def signed_answer(
    fleet: Any, purpose: str, answer: dict[str, Any], request: dict[str, Any]
) -> dict[str, Any]:
    """``answer`` to a device's request, naming the device and echoing its ``nonce``, signed for
    ``purpose`` with the hub's key: a relay can neither change it nor replay an old one (a
    *retired* from before the table's last enrollment) to another request."""
    settings = fleet.settings
    if settings.sign is None:
        return answer
    device, nonce = request.get("device"), request.get("nonce")
    body = dict(answer)
    if isinstance(device, str) and len(device) <= 64:
        body["device"] = device
    if isinstance(nonce, str) and len(nonce) <= NONCE_MAX:
        body["nonce"] = nonce
    body["hub_fingerprint"] = hub_fingerprint(settings.hub_key)
    signed: dict[str, Any] = settings.sign(purpose, body)
    return signed


def hub_fingerprint(public_b64: str) -> str:
    """The fingerprint of a public key as it travels (empty for none)."""
    return fingerprint(public_key_from_b64(public_b64)) if public_b64 else ""
