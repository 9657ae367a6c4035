"""Seal a message to one device's public key, so that only that device can open it.

Enrollment hands a new table its broker credential over the room's plain HTTP. The credential
must never cross the network readable: the table makes an X25519 key pair the first time it
starts, sends the public half with its hello, and the hub seals the table's configuration to it.
Anyone on the network (or anyone who reads the hub's database later) sees only the sealed bytes.

The construction is the usual "sealed box" (ECIES): a fresh X25519 key pair per message, its
shared secret with the recipient's key through HKDF-SHA256 (salted with both public keys, and
bound to a context string such as ``bgtable-enroll-v1``), and ChaCha20-Poly1305 over the message
(the ephemeral public key is the associated data). Layout::

    version (1 byte = 1) | ephemeral public key (32) | nonce (12) | ciphertext + tag (16)

What it does not do: tell the device that the sealed message comes from the real hub. That is the
hub's signature's job (:mod:`drivers.signing`): the answer carrying the sealed message is signed
with the hub's key, whose fingerprint the organiser compares on the table's screen (or pins in
room.txt), and the sealed configuration names that key, which the table pins. This module keeps
the credential secret, which is what the room's plain network needs.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from drivers.errors import DriverError

VERSION = 1
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = 1 + KEY_BYTES + NONCE_BYTES
RAW = serialization.Encoding.Raw


class SealedBoxError(DriverError, ValueError):
    """A key or a sealed message is malformed, or the message was not sealed to this key."""


def new_private_key() -> bytes:
    """32 random bytes: an X25519 private key (keep it 0600 on the device)."""
    return X25519PrivateKey.generate().private_bytes(
        RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def public_key(private: bytes) -> bytes:
    """The 32-byte public key of a private key from :func:`new_private_key`."""
    return _private(private).public_key().public_bytes(RAW, serialization.PublicFormat.Raw)


def _private(raw: bytes) -> X25519PrivateKey:
    if len(raw) != KEY_BYTES:
        raise SealedBoxError(f"a private key is {KEY_BYTES} bytes, not {len(raw)}")
    return X25519PrivateKey.from_private_bytes(raw)


def _public(raw: bytes) -> X25519PublicKey:
    if len(raw) != KEY_BYTES:
        raise SealedBoxError(f"a public key is {KEY_BYTES} bytes, not {len(raw)}")
    return X25519PublicKey.from_public_bytes(raw)


def _exchange(private: X25519PrivateKey, public: X25519PublicKey) -> bytes:
    try:
        shared = private.exchange(public)
    except ValueError:  # OpenSSL refuses a low-order point (an all-zero shared secret)
        raise SealedBoxError("the public key is a low-order point") from None
    if shared == bytes(len(shared)):
        raise SealedBoxError("the public key is a low-order point")
    return shared


def _key(shared: bytes, ephemeral: bytes, recipient: bytes, context: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral + recipient, info=context).derive(shared)


def seal(recipient_public: bytes, message: bytes, context: bytes) -> bytes:
    """``message`` sealed to ``recipient_public``; ``context`` must be the same when opening."""
    recipient = _public(recipient_public)
    ephemeral = X25519PrivateKey.generate()
    ephemeral_public = ephemeral.public_key().public_bytes(RAW, serialization.PublicFormat.Raw)
    key = _key(_exchange(ephemeral, recipient), ephemeral_public, recipient_public, context)
    nonce = os.urandom(NONCE_BYTES)
    body = ChaCha20Poly1305(key).encrypt(nonce, message, ephemeral_public)
    return bytes([VERSION]) + ephemeral_public + nonce + body


def open_sealed(private: bytes, sealed: bytes, context: bytes) -> bytes:
    """The message inside ``sealed``; :class:`SealedBoxError` if it was not sealed to this key
    with this context, or was changed on the way."""
    if len(sealed) < HEADER_BYTES + TAG_BYTES or sealed[0] != VERSION:
        raise SealedBoxError("not a sealed message of a known version")
    key_pair = _private(private)
    ephemeral_public = sealed[1 : 1 + KEY_BYTES]
    nonce = sealed[1 + KEY_BYTES : HEADER_BYTES]
    own_public = key_pair.public_key().public_bytes(RAW, serialization.PublicFormat.Raw)
    key = _key(_exchange(key_pair, _public(ephemeral_public)), ephemeral_public, own_public, context)
    try:
        return ChaCha20Poly1305(key).decrypt(nonce, sealed[HEADER_BYTES:], ephemeral_public)
    except InvalidTag:
        raise SealedBoxError("the sealed message was not sealed to this key, or was altered") from None


def b64encode(data: bytes) -> str:
    """URL-safe base64 without padding (how keys and sealed messages travel in JSON)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64decode(text: str) -> bytes:
    """The inverse of :func:`b64encode`; :class:`SealedBoxError` for anything else."""
    if not isinstance(text, str) or len(text) > 64 * 1024:
        raise SealedBoxError("expected a base64 string")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise SealedBoxError("not base64") from None
