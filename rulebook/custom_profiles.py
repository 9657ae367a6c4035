"""Custom profiles that travel: a TOML file read with its lines, the form an assignment carries,
the digest a table recomputes, and the book of names a hub offers.

A club writes ``base = "wbgf-2023"`` plus the keys it changes (``rulebook.profiles`` checks each
key). The hub reads the file and sends its base and overrides in the ``assign`` input, with the
SHA-256 of the profile it resolved; the table resolves the same keys with its own rulebook and
plays the match only if its digest is the same. So the table needs no file on its card, and a
table whose built-in base differs from the hub's (another software version), or an assignment
damaged on its way, is refused with a code instead of played under other rules than the hub's
lateness and breaks apply.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rulebook.errors import ProfileError, ProfileFileError
from rulebook.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    Profile,
    get_profile,
    profile_as_mapping,
    profile_from_mapping,
)

#: the key of an assignment's custom profile that holds the resolved profile's digest
DIGEST_KEY = "digest"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def profile_digest(profile: Profile) -> str:
    """SHA-256 (hex) of every field of ``profile``, canonical JSON: the same rules give the same
    digest on the hub and the table, whichever keys a file overrode and however JSON wrote them."""
    data = profile_as_mapping(profile)
    data["minutes_per_point"] = float(data["minutes_per_point"])  # 2 and 2.0 are the same rule
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CustomProfile:
    """A profile a hub offers by name: the file's base and overrides, and what they resolve to."""

    profile: Profile
    base: str
    #: the overridden keys as the file gives them (``name`` included), JSON values
    overrides: Mapping[str, Any]
    digest: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", profile_digest(self.profile))

    @property
    def name(self) -> str:
        return self.profile.name

    def wire(self) -> dict[str, Any]:
        """The ``profile`` field of an assignment (docs/protocol.md §1)."""
        return {"base": self.base, **self.overrides, DIGEST_KEY: self.digest}


def custom_profile(data: Mapping[str, Any], *, default_name: str | None = None) -> CustomProfile:
    """A custom profile from ``{"base": name, key: value, ...}``, every key checked; refused with a
    ``ProfileError`` naming the key. Its name may not be a built-in profile's."""
    values = dict(data)
    if default_name is not None:
        values.setdefault("name", default_name)
    profile = profile_from_mapping(values)
    if profile.name in PROFILES:
        raise ProfileError("profile.name_taken", key="name", name=profile.name)
    base = values.get("base", DEFAULT_PROFILE)
    overrides = {k: v for k, v in values.items() if k != "base"}
    overrides["name"] = profile.name
    return CustomProfile(profile, str(base), overrides)


def _key_line(text: str, key: str) -> int:
    """The line (1-based) where a top-level ``key = …`` stands, or 0 when it cannot be found."""
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return 0


def custom_profile_from_toml(text: str, *, path: str, default_name: str | None = None) -> CustomProfile:
    """A custom profile from a TOML file's text; any refusal is a ``ProfileFileError`` naming the
    file, the line and the key (TOML syntax errors carry tomllib's own line and column)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        line = int(at.group(1)) if at else 0
        raise ProfileFileError("profile.not_toml", path=path, line=line, detail=str(exc)) from None
    try:
        return custom_profile(data, default_name=default_name)
    except ProfileFileError:
        raise
    except ProfileError as exc:
        key = str(exc.params.get("key") or ("base" if exc.code == "profile.unknown" else ""))
        params = {k: v for k, v in exc.params.items() if k not in ("path", "line", "key")}
        if key:
            params["key"] = key
        raise ProfileFileError(
            exc.code, path=path, line=_key_line(text, key) if key else 0, **params
        ) from None


def verified_profile(data: Mapping[str, Any]) -> Profile:
    """The profile an assignment carries as an object, resolved by this rulebook and checked
    against the digest the hub computed: refused ``profile.digest_missing`` without one and
    ``profile.digest`` when this rulebook resolves other rules."""
    values = {k: v for k, v in data.items() if k != DIGEST_KEY}
    custom = custom_profile(values)
    digest = data.get(DIGEST_KEY)
    if digest is None:
        raise ProfileError("profile.digest_missing", key=DIGEST_KEY, name=custom.name)
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise ProfileError("profile.type", key=DIGEST_KEY, expected="a SHA-256 digest (64 hex digits)")
    if digest != custom.digest:
        raise ProfileError("profile.digest", key=DIGEST_KEY, name=custom.name, digest=custom.digest[:12])
    return custom.profile


def custom_rules(profile: Profile) -> dict[str, Any] | None:
    """Every rule of a custom profile as plain values (None for a built-in one, known by name):
    what a screen needs to show the rules a table plays when its name alone says nothing."""
    if PROFILES.get(profile.name) is profile:
        return None
    return profile_as_mapping(profile)


class ProfileBook:
    """The profiles a hub offers by name: the built-in ones and its custom ones."""

    def __init__(self, custom: Iterable[CustomProfile] = ()) -> None:
        self.custom: dict[str, CustomProfile] = {}
        for c in custom:
            if c.name in PROFILES:
                raise ProfileError("profile.name_taken", key="name", name=c.name)
            if c.name in self.custom:
                raise ProfileError("profile.name_repeated", key="name", name=c.name)
            self.custom[c.name] = c

    def names(self) -> list[str]:
        """Every name a schedule may give: the built-in ones first."""
        return sorted(PROFILES) + sorted(self.custom)

    def get(self, name: str | None) -> Profile:
        """The profile of that name; ``profile.unknown`` names every known one."""
        key = name or DEFAULT_PROFILE
        custom = self.custom.get(key)
        if custom is not None:
            return custom.profile
        if key in PROFILES:
            return get_profile(key)
        raise ProfileError("profile.unknown", name=repr(key), known=", ".join(self.names()))

    def wire(self, name: str) -> str | dict[str, Any]:
        """What an assignment carries for that name: a built-in name as it is, a custom profile's
        base, overrides and digest (a name the book does not know as it is: the table refuses it)."""
        custom = self.custom.get(name)
        return custom.wire() if custom is not None else name

    def base_of(self, name: str) -> str | None:
        """The built-in profile a custom one is written over (None for a built-in or unknown name)."""
        custom = self.custom.get(name)
        return custom.base if custom is not None else None


__all__ = [
    "DIGEST_KEY",
    "CustomProfile",
    "ProfileBook",
    "custom_profile",
    "custom_profile_from_toml",
    "custom_rules",
    "profile_digest",
    "verified_profile",
]
