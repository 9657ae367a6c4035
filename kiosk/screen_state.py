"""The snapshot a table's screens draw: the published one (:class:`rulebook.messages.Snapshot`)
and, for a custom profile, its rules (``rules``), so that a break's length or a lateness schedule
shows as the table plays it. Never published: the hub knows the profile it sent."""

from __future__ import annotations

from typing import Any, NotRequired

from rulebook.messages import Snapshot


class ScreenSnapshot(Snapshot):
    #: every rule of a custom profile as plain values (rulebook.custom_profiles.custom_rules)
    rules: NotRequired[dict[str, Any]]
