"""The hub's custom profiles: one TOML file each in the directory ``bghub run --profiles DIR``
names (docs/rules.md, "Writing a profile").

A file's name (without ``.toml``) is its profile's name unless the file gives a ``name``. Every
file is read at start and every key checked by the rulebook, so a mistake stops the hub with the
file, the line and the key, before any table is assigned a match under rules nobody meant.
"""

from __future__ import annotations

from pathlib import Path

from rulebook.custom_profiles import CustomProfile, ProfileBook, custom_profile_from_toml
from rulebook.errors import ProfileError


def load_profiles(directory: str | Path) -> ProfileBook:
    """The built-in profiles and every ``*.toml`` of ``directory``; a ``ProfileError`` (a
    ``ProfileFileError`` for a file's key) names what is wrong."""
    folder = Path(directory)
    if not folder.is_dir():
        raise ProfileError("profile.unreadable", path=str(folder), detail="not a directory")
    custom: list[CustomProfile] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
            raise ProfileError("profile.unreadable", path=str(path), detail=detail) from None
        custom.append(custom_profile_from_toml(text, path=str(path), default_name=path.stem))
    return ProfileBook(custom)
