"""One exception family for the hub (as gpiozero's ``exc.py``).

Every error ``bghub`` raises (a schedule, a TD's action, the broker's or the rooms' configuration,
the database file, the fleet, a release) derives from :class:`HubError`, and each is also the
stdlib error it means (``class ScheduleError(HubError, ValueError)``): a caller catches the whole
family with one name, and every ``except ValueError`` written before still catches what it
caught. A new error hangs here.
"""

from __future__ import annotations


class HubError(Exception):
    """Something the hub refuses or cannot do."""


__all__ = ["HubError"]
