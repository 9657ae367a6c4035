"""Ed25519 signatures on the JSON the hub sends its tables, and on software releases.

Two keys, two jobs:

- the **hub's key** (:mod:`hub.fleet.hub_key`): made once by the hub and kept beside its database. Its
  public half travels in the table's sealed configuration at enrollment and is pinned there; every
  later answer a table acts on (its configuration, *retired*, a fleet order, the software
  manifest) is signed with it. Whoever merely answers at the hub's address — a relay, a rogue
  hub — cannot make a table move, stop or update;
- the **release key** (``bghub release-key``): kept off the room's network by whoever builds the
  software. The table image carries its public half; a wheel is installed only with a signature
  of that key over its hash, so a hub (even the real one) serves only released software.

An object is signed over ``context | 0 | purpose | 0 | canonical JSON`` (keys sorted, no
spaces), so a signature made for one purpose (a poll answer) can never pass for another (an
order). The signature and the signer's public key travel inside the object as ``sig`` and
``signed_by`` (URL-safe base64), and ``signed_by`` is itself signed.

The short *fingerprint* of a key (``3F2A-91C0-7B44-E1D8``, the first 64 bits of its SHA-256) is
what people compare: on the table's set-up screen and on the hub's Tables page.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from drivers.errors import DriverError
from drivers.sealed_box import SealedBoxError, b64decode, b64encode

#: what the hub signs for its tables
HUB_CONTEXT = b"bghub-answer-v1"
#: what a release key signs
RELEASE_CONTEXT = b"bgtable-release-v1"
KEY_BYTES = 32
SIG_FIELD = "sig"
SIGNER_FIELD = "signed_by"
RAW = serialization.Encoding.Raw


class SignatureError(DriverError, ValueError):
    """A key, or an object's signature, that cannot be trusted (the message says why)."""


def new_signing_key() -> bytes:
    """32 random bytes: an Ed25519 private key (keep it 0600)."""
    return Ed25519PrivateKey.generate().private_bytes(
        RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def public_of(private: bytes) -> bytes:
    """The 32-byte public key of a private key from :func:`new_signing_key`."""
    return _private(private).public_key().public_bytes(RAW, serialization.PublicFormat.Raw)


def fingerprint(public: bytes) -> str:
    """``3F2A-91C0-7B44-E1D8``: what a person compares between two screens."""
    digest = hashlib.sha256(b"bgtable-key-v1:" + public).hexdigest()[:16].upper()
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


def canonical(obj: Any) -> bytes:
    """The bytes a signature covers: JSON with sorted keys and no spaces."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _message(context: bytes, purpose: str, body: dict[str, Any]) -> bytes:
    return context + b"\0" + purpose.encode() + b"\0" + canonical(body)


def _private(raw: bytes) -> Ed25519PrivateKey:
    if len(raw) != KEY_BYTES:
        raise SignatureError(f"a signing key is {KEY_BYTES} bytes, not {len(raw)}")
    return Ed25519PrivateKey.from_private_bytes(raw)


def public_key_from_b64(text: Any) -> bytes:
    """A public key as it travels (base64); :class:`SignatureError` for anything else."""
    try:
        raw = b64decode(text)
    except SealedBoxError as exc:
        raise SignatureError(f"not a public key ({exc})") from None
    if len(raw) != KEY_BYTES:
        raise SignatureError(f"a public key is {KEY_BYTES} bytes, not {len(raw)}")
    return raw


def sign(private: bytes, obj: dict[str, Any], purpose: str, context: bytes = HUB_CONTEXT) -> dict[str, Any]:
    """A copy of ``obj`` with ``signed_by`` (the public key) and ``sig`` added."""
    body = {k: v for k, v in obj.items() if k != SIG_FIELD}
    body[SIGNER_FIELD] = b64encode(public_of(private))
    signature = _private(private).sign(_message(context, purpose, body))
    return {**body, SIG_FIELD: b64encode(signature)}


def verify(obj: Any, purpose: str, trusted: Collection[bytes], context: bytes = HUB_CONTEXT) -> bytes:
    """The trusted key that signed ``obj`` for ``purpose``; :class:`SignatureError` when it is
    unsigned, signed by another key, signed for another purpose, or changed since."""
    if not isinstance(obj, dict):
        raise SignatureError("not a signed object")
    sig, signer = obj.get(SIG_FIELD), obj.get(SIGNER_FIELD)
    if not isinstance(sig, str) or not isinstance(signer, str):
        raise SignatureError("unsigned")
    key = public_key_from_b64(signer)
    if key not in trusted:
        raise SignatureError(f"signed by key {fingerprint(key)}, not a trusted one")
    try:
        signature = b64decode(sig)
    except SealedBoxError:
        raise SignatureError("the signature is not base64") from None
    body = {k: v for k, v in obj.items() if k != SIG_FIELD}
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, _message(context, purpose, body))
    except (InvalidSignature, ValueError):
        raise SignatureError("the signature does not match (changed on the way, or forged)") from None
    return key


# -- keys in files ------------------------------------------------------------------------------

PRIVATE_HEADER = "bgtable-signing-key-v1"
PUBLIC_HEADER = "bgtable-public-key-v1"


def private_key_text(private: bytes, comment: str = "") -> str:
    lines = [f"# {comment}"] if comment else []
    return "\n".join([*lines, f"{PRIVATE_HEADER} {b64encode(private)}"]) + "\n"


def public_key_text(public: bytes, comment: str = "") -> str:
    lines = [f"# {comment}"] if comment else []
    lines.append(f"# fingerprint {fingerprint(public)}")
    return "\n".join([*lines, f"{PUBLIC_HEADER} {b64encode(public)}"]) + "\n"


def _key_line(text: str, header: str) -> bytes:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == header:
            try:
                raw = b64decode(parts[1])
            except SealedBoxError:
                break
            if len(raw) == KEY_BYTES:
                return raw
            break
    raise SignatureError(f"no '{header} KEY' line")


def parse_private_key(text: str) -> bytes:
    return _key_line(text, PRIVATE_HEADER)


def parse_public_key(text: str) -> bytes:
    return _key_line(text, PUBLIC_HEADER)
