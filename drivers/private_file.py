"""A file only its owner can read, written so that a power cut leaves the old one or the new one.

Keys, credentials and sealed configurations live in such files at the table (its device key, its
configuration, its update slots) and at the hub (its signing key, the broker's passwords). One
writer serves both: a temporary file created 0600 (never readable by others, not even for an
instant), flushed and synced, renamed over the old one, and the folder synced so the rename
survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_private(path: Path, text: str, owner: tuple[int, int] | None = None) -> None:
    """Write ``text`` atomically into ``path`` (mode 0600; ``owner`` as ``(uid, gid)`` if given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)  # whatever the umask made of it
        if owner is not None:
            os.chown(tmp, *owner)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
