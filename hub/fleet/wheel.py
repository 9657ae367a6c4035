"""A wheel file of the product: which version and build it holds.

Below both the software the hub serves (:mod:`hub.fleet.software`) and the release signature
(:mod:`hub.fleet.release`), which both read a wheel's build and neither needs the other for it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from drivers.build_id import digest
from hub.errors import HubError

DIST = "smart-table"


class SoftwareError(HubError, ValueError):
    """No wheel can be served (the given file is not a wheel of the product)."""


def wheel_build(path: Path) -> tuple[str, str]:
    """(version, build id) of a wheel file of the product; :class:`SoftwareError` otherwise."""
    try:
        with zipfile.ZipFile(path) as zf:
            files = [(n, zf.read(n)) for n in zf.namelist() if not n.endswith("/")]
    except (OSError, zipfile.BadZipFile) as exc:
        raise SoftwareError(f"{path}: not a wheel ({exc})") from exc
    metas = [data for name, data in files if name.endswith(".dist-info/METADATA")]
    if len(metas) != 1:
        raise SoftwareError(f"{path}: no single METADATA in the wheel")
    fields = dict(
        line.split(": ", 1) for line in metas[0].decode("utf-8", "replace").splitlines() if ": " in line
    )
    if fields.get("Name", "").lower().replace("_", "-") != DIST:
        raise SoftwareError(f"{path}: a wheel of {fields.get('Name')!r}, not of {DIST}")
    return fields.get("Version", ""), digest(files)
