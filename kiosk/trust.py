"""Which hub this table believes: the key pinned at enrollment, checked on every answer.

At enrollment the hub's public key comes with the table's sealed configuration and is written
into ``table.toml`` (``fleet.hub_key``); its fingerprint is on the set-up screen and on the hub's
Tables page, for the organiser to compare. From then on the table acts only on what that key
signed (:mod:`drivers.signing`):

- an answer to its own request (a poll: *retired*, its configuration; the software manifest)
  must name this device and echo the random ``nonce`` the request carried, so an old answer
  cannot be replayed;
- a fleet order on MQTT (identify, restart, button test, update, retire) must name this device
  and not have been seen before.

Anything else — unsigned, signed by another key, changed on the way — is logged and ignored: a
relay in front of the hub, or a rogue hub, can neither move the table elsewhere, nor stop it,
nor update it.
"""

from __future__ import annotations

import collections
import logging
import secrets
from typing import Any

from drivers.sealed_box import b64encode
from drivers.signing import SignatureError, fingerprint, public_key_from_b64, verify
from kiosk.errors import KioskError

log = logging.getLogger("kiosk.trust")

#: how many fleet order ids a table remembers (orders are rare: a few per event)
SEEN_IDS = 256


class TrustError(KioskError, SignatureError):
    """An answer or an order this table must not act on (the message says why)."""


def new_nonce() -> str:
    return b64encode(secrets.token_bytes(16))


def pinned_key(text: str) -> bytes | None:
    """The pinned key from ``fleet.hub_key`` (None when the table has none)."""
    if not text:
        return None
    try:
        return public_key_from_b64(text)
    except SignatureError:
        return None


def check_answer(answer: Any, purpose: str, *, device: str, nonce: str, pinned: bytes | None) -> bytes:
    """The key that signed ``answer`` to this device's request with ``nonce``.

    ``pinned`` None: any key (the first contact of a table being set up, trust on first use;
    the organiser compares the fingerprint). Raises :class:`TrustError`.
    """
    try:
        key = verify(answer, purpose, [pinned] if pinned is not None else [_signer(answer)])
    except SignatureError as exc:
        raise TrustError(f"the hub's {purpose} answer: {exc}") from None
    if answer.get("device") != device or answer.get("nonce") != nonce:
        raise TrustError(f"the hub's {purpose} answer is not for this request (replayed?)")
    return key


def _signer(answer: Any) -> bytes:
    try:
        return public_key_from_b64(answer.get("signed_by") if isinstance(answer, dict) else None)
    except SignatureError:
        return b""


class OrderCheck:
    """Checks fleet orders from MQTT against the pinned key; remembers the ids it took."""

    def __init__(self, device: str, hub_key: str) -> None:
        self.device = device
        self.pinned = pinned_key(hub_key)
        self._seen: collections.deque[str] = collections.deque(maxlen=SEEN_IDS)

    def check(self, order: Any) -> None:
        """Raises :class:`TrustError` for an order this table must ignore."""
        if self.pinned is None:
            raise TrustError("no hub key pinned at enrollment: enroll this table again")
        try:
            verify(order, "control", [self.pinned])
        except SignatureError as exc:
            raise TrustError(f"fleet order refused: {exc}") from None
        if order.get("device") != self.device:
            raise TrustError("fleet order for another device")
        ident = order.get("id")
        if not isinstance(ident, str) or ident in self._seen:
            raise TrustError("fleet order seen before (replayed)")
        self._seen.append(ident)


def short(key: bytes | None) -> str:
    return fingerprint(key) if key else ""
