"""The software the hub runs, as a wheel the tables update themselves from.

A room's tables should run what the hub runs. The hub serves a wheel of its own build at
``/device/v1/software`` (a manifest: version, build id, file name, SHA-256, size) and
``/device/v1/software/<file>``. The wheel is made at start from the installed files themselves —
the product's packages and its distribution metadata — so it is exactly the running build
whatever way the hub was installed (a venv from a wheel, an editable checkout); ``--software``
serves a given wheel instead (e.g. the one ``make image`` built).

The wheel's version carries the build id as a local version label (``0.1.0+b1a2b3c4d5e6f7a8b``):
two builds of the same version are told apart by pip, by the tables and on the Tables page.

Tables install only a released wheel (:mod:`hub.fleet.release`): the manifest carries the release
signature (``release``) of a ``--software`` wheel from its ``.sig`` file, or of the running
build's wheel signed at start with ``--release-key``. Without one, tables keep their version and
say why on the Tables page. The manifest itself is signed with the hub's key per request
(:func:`hub.fleet.hub_key.signed_answer`).
"""

from __future__ import annotations

import base64
import hashlib
import logging
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

from drivers.build_id import package_files, running_build
from hub.fleet.release import ReleaseError, load_signature, read_private, sign_wheel
from hub.fleet.wheel import DIST, SoftwareError, wheel_build

log = logging.getLogger("hub.software")

WHEEL_TAG = "py3-none-any"


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def local_version(version: str, build: str) -> str:
    """``0.1.0`` and build ``1a2b…`` give ``0.1.0+b1a2b…`` (an existing local label is replaced)."""
    return f"{version.split('+', 1)[0]}+b{build}"


def build_wheel(out_dir: Path) -> tuple[Path, str, str]:
    """Write a wheel of the running build into ``out_dir``; returns (path, version, build)."""
    dist = metadata.distribution(DIST)
    build = running_build()
    version = local_version(dist.version, build)
    name = DIST.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = [(rel, path.read_bytes()) for rel, path in package_files()]
    meta = dist.read_text("METADATA") or ""
    meta = "\n".join(
        f"Version: {version}" if line.startswith("Version:") else line for line in meta.split("\n")
    )
    files.append((f"{info}/METADATA", meta.encode()))
    files.append(
        (
            f"{info}/WHEEL",
            f"Wheel-Version: 1.0\nGenerator: bghub\nRoot-Is-Purelib: true\nTag: {WHEEL_TAG}\n".encode(),
        )
    )
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        files.append((f"{info}/entry_points.txt", entry_points.encode()))
    record = "".join(f"{rel},{_record_hash(data)},{len(data)}\n" for rel, data in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{version}-{WHEEL_TAG}.whl"
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for rel, data in files:
            info_ = zipfile.ZipInfo(rel, date_time=(2020, 1, 1, 0, 0, 0))
            info_.external_attr = 0o644 << 16
            info_.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info_, data)
    tmp.replace(path)
    return path, version, build


class Software:
    """The wheel the hub serves and its manifest."""

    def __init__(self, cache_dir: Path, wheel: Path | None = None, *, release_key: str | None = None) -> None:
        self.cache_dir = cache_dir
        self._given = wheel
        self._release_key = release_key
        #: the release signature of the wheel served (None: not released, tables refuse it)
        self.release: dict[str, Any] | None = None
        self._path: Path | None = None
        self.version = ""
        self.build = ""
        self.sha256 = ""
        self.size = 0

    def prepare(self) -> None:
        """Build (or check) the wheel; call off the loop (it reads and zips a few hundred files)."""
        if self._given is not None:
            path = self._given
            self.version, self.build = wheel_build(path)
        else:
            path, self.version, self.build = build_wheel(self.cache_dir)
        data = path.read_bytes()
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.size = len(data)
        self._path = path
        try:
            if self._release_key:
                self.release = sign_wheel(path, read_private(self._release_key))
            elif self._given is not None:
                self.release = load_signature(path)
        except ReleaseError as exc:
            raise SoftwareError(str(exc)) from None
        if self.release is None:
            log.warning("%s has no release signature: tables will not install it", path.name)
        log.info("serving %s (build %s, %d bytes) to the tables", path.name, self.build, self.size)

    def wheel_path(self) -> Path | None:
        return self._path

    def manifest(self) -> dict[str, Any]:
        path = self._path
        return {
            "version": self.version,
            "build": self.build,
            "file": path.name if path else None,
            "url": f"/device/v1/software/{path.name}" if path else None,
            "sha256": self.sha256,
            "size": self.size,
            "release": self.release,
        }
