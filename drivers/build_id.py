"""Which build of the software is this: one id that the hub and every table compute the same way.

Every build has the same version number until someone bumps it, so tables cannot tell from
``0.1.0`` whether they run what the hub runs. The build id is a digest of the product's own files
(the packages below, without compiled caches), taken from wherever they are installed — an
editable checkout, a venv, an update slot, or the files inside a wheel: the same files give the
same id, any changed file another one.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path

PACKAGES = ("rulebook", "kiosk", "drivers", "hub", "demo")
#: the id is this many hex digits of the digest (64 bits: no two builds of a room collide)
ID_DIGITS = 16


def counts(relpath: str) -> bool:
    """Whether a file (``package/sub/name``, POSIX) is part of the build."""
    parts = relpath.split("/")
    return parts[0] in PACKAGES and "__pycache__" not in parts and not relpath.endswith((".pyc", ".pyo"))


def digest(files: Iterable[tuple[str, bytes]]) -> str:
    """The build id of ``(relpath, content)`` pairs (order does not matter; others are ignored)."""
    entries = sorted((path, hashlib.sha256(data).hexdigest()) for path, data in files if counts(path))
    h = hashlib.sha256()
    for path, content in entries:
        h.update(f"{path}\0{content}\n".encode())
    return h.hexdigest()[:ID_DIGITS]


def package_files() -> list[tuple[str, Path]]:
    """``(relpath, path)`` of every file of the installed packages that counts."""
    out: list[tuple[str, Path]] = []
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(root.rglob("*")):
            if path.is_file():
                rel = f"{package}/{path.relative_to(root).as_posix()}"
                if counts(rel):
                    out.append((rel, path))
    return out


@functools.cache
def running_build() -> str:
    """The build id of the code this process runs (computed once)."""
    return digest((rel, path.read_bytes()) for rel, path in package_files())
