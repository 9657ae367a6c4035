"""Signed releases: ``bghub release-key`` and ``bghub sign-release``.

A table installs new software only when a *release key* signed it (docs/image.md, "Releases").
The key is the software's, not the room's: whoever builds the wheels keeps the private half off
the venue's network; the table image carries the public half
(``/usr/share/bgtable/release-keys/*.pub``, copied from ``image/rootfs``). So neither a relay in
front of the hub, nor a rogue hub, nor the real hub with a tampered wheel can make a table run
code nobody released.

- ``bghub release-key --out DIR`` makes a key pair: ``DIR/release.key`` (0600, keep it safe) and
  ``DIR/release.pub`` (for the image, and for tables installed by hand);
- ``bghub sign-release WHEEL --key DIR/release.key`` writes ``WHEEL.sig`` beside the wheel: the
  wheel's name, version, build id, size and SHA-256, signed. ``bghub run --software WHEEL`` serves
  the signature with the wheel (:class:`hub.fleet.software.Software`); ``--release-key FILE`` lets a hub
  sign the wheel of its own running build at start (a lab, a demo).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from drivers.signing import (
    RELEASE_CONTEXT,
    SignatureError,
    fingerprint,
    new_signing_key,
    parse_private_key,
    private_key_text,
    public_key_text,
    public_of,
    sign,
)
from hub.errors import HubError
from hub.fleet.wheel import SoftwareError, wheel_build

SIG_SUFFIX = ".sig"
PURPOSE = "release"


class ReleaseError(HubError, ValueError):
    """A release that cannot be signed or served as asked (the message says why)."""


def statement(wheel: Path, version: str, build: str) -> dict[str, Any]:
    """What a release signature covers."""
    data = wheel.read_bytes()
    return {
        "file": wheel.name,
        "version": version,
        "build": build,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def sign_wheel(wheel: Path, private: bytes) -> dict[str, Any]:
    """The signed statement of ``wheel`` (a wheel of the product)."""
    try:
        version, build = wheel_build(wheel)
    except SoftwareError as exc:
        raise ReleaseError(str(exc)) from None
    return sign(private, statement(wheel, version, build), PURPOSE, RELEASE_CONTEXT)


def load_signature(wheel: Path) -> dict[str, Any] | None:
    """``WHEEL.sig`` beside a wheel, if any (checked by the tables, not here)."""
    path = wheel.with_name(wheel.name + SIG_SUFFIX)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ReleaseError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise ReleaseError(f"{path}: not a release signature")
    return data


def read_private(path: str) -> bytes:
    try:
        return parse_private_key(Path(path).read_text(encoding="utf-8"))
    except (OSError, SignatureError) as exc:
        raise ReleaseError(f"release key {path}: {exc}") from None


def _write(path: Path, text: str, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def main_release_key(args: argparse.Namespace) -> int:
    out = Path(args.out)
    private_path, public_path = out / "release.key", out / "release.pub"
    if private_path.exists() or public_path.exists():
        print(f"bghub release-key: {out} already holds a release key; not replaced", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    private = new_signing_key()
    public = public_of(private)
    _write(private_path, private_key_text(private, "release key: signs the tables' software"), 0o600)
    _write(public_path, public_key_text(public, "release key: the tables install what it signed"), 0o644)
    print(f"wrote {private_path} (keep it off the room's network) and {public_path}")
    print(f"fingerprint {fingerprint(public)}")
    print("copy the .pub into image/rootfs/usr/share/bgtable/release-keys/ before `make image`")
    return 0


def main_sign_release(args: argparse.Namespace) -> int:
    wheel = Path(args.wheel)
    try:
        signed = sign_wheel(wheel, read_private(args.key))
    except (ReleaseError, OSError) as exc:
        print(f"bghub sign-release: {exc}", file=sys.stderr)
        return 2
    path = wheel.with_name(wheel.name + SIG_SUFFIX)
    path.write_text(json.dumps(signed, indent=1) + "\n", encoding="utf-8")
    key = fingerprint(public_of(read_private(args.key)))
    print(f"wrote {path}: {signed['file']} build {signed['build']} signed with release key {key}")
    return 0


def add_release_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("release-key", help="make a release key pair (signs the software tables install)")
    p.add_argument("--out", required=True, metavar="DIR", help="where release.key and release.pub go")
    p.set_defaults(func=main_release_key)
    p = sub.add_parser("sign-release", help="sign a wheel for the tables (writes WHEEL.sig)")
    p.add_argument("wheel", metavar="WHEEL", help="a wheel of the product (make image's, or --software's)")
    p.add_argument("--key", required=True, metavar="FILE", help="the release key (release.key)")
    p.set_defaults(func=main_sign_release)
