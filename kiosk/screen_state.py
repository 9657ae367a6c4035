"""The snapshot a table's screens draw: the published one (:class:`rulebook.messages.Snapshot`)
and, for a custom profile, its rules (``rules``), so that a break's length or a lateness schedule
shows as the table plays it. Never published: the hub knows the profile it sent."""

from __future__ import annotations

from typing import Any, NotRequired, cast

from rulebook.messages import Snapshot


class ScreenSnapshot(Snapshot):
    #: every rule of a custom profile as plain values (rulebook.custom_profiles.custom_rules)
    rules: NotRequired[dict[str, Any]]


def on_screen(snap: Snapshot, rules: dict[str, Any] | None = None) -> ScreenSnapshot:
    """``snap`` as the screens draw it, with a custom profile's ``rules`` (added in place: the
    snapshot is the caller's own). A snapshot without ``rules`` already is one: mypy cannot see
    that a missing optional key is allowed, hence the cast."""
    screen = cast(ScreenSnapshot, snap)
    if rules is not None:
        screen["rules"] = rules
    return screen
