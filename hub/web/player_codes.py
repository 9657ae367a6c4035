"""Each player's short code, the last part of their page's address (``/p/<code>``).

A code is derived from the player's registry key with a secret the hub keeps in its database
(HMAC-SHA256, 7 characters of an alphabet without look-alikes: 31⁷, about 27 billion codes), so
it is the same after a restart, on every draw sheet printed, and cannot be worked out from a
name or a key: a player's page is found from the sheet's QR code or its printed address, not by
trying names. A new database (a new event) has a new secret, so last week's sheets point nowhere.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from typing import Protocol

#: the store's ``meta`` key of the secret (hex)
SECRET_KEY = "player_code_secret"
#: no 0/o, 1/l/i: a code is read off paper and typed on a phone
ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
LENGTH = 7


class Meta(Protocol):
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def commit(self) -> None: ...


def code_of(secret: bytes, key: str) -> str:
    """The code of the player whose registry key is ``key``."""
    n = int.from_bytes(hmac.new(secret, key.encode("utf-8"), hashlib.sha256).digest()[:8], "big")
    out = []
    for _ in range(LENGTH):
        n, digit = divmod(n, len(ALPHABET))
        out.append(ALPHABET[digit])
    return "".join(out)


def is_code(text: str) -> bool:
    return len(text) == LENGTH and all(c in ALPHABET for c in text)


class PlayerCodes:
    """The hub's codes: its secret read from the store, made once and kept there."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    @classmethod
    def load(cls, store: Meta) -> PlayerCodes:
        text = store.get_meta(SECRET_KEY)
        if text:
            return cls(bytes.fromhex(text))
        secret = secrets.token_bytes(32)
        store.set_meta(SECRET_KEY, secret.hex())
        store.commit()
        return cls(secret)

    def code(self, key: str) -> str:
        return code_of(self._secret, key)

    def key_of(self, code: str, keys: Iterable[str]) -> str | None:
        """Whose code this is among ``keys`` (compared in constant time), or None."""
        code = code.strip().lower()
        if not is_code(code):
            return None
        found = None
        for key in keys:
            if hmac.compare_digest(self.code(key), code):
                found = key
        return found
