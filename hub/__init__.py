"""The TD hub: schedule, room model, automatic lateness, watches, store and the live dashboard.

Run it with ``bghub run`` (:mod:`hub.cli`); see ``docs/hub.md`` and ``docs/api.md``.

:class:`HubError` is the root of the hub's one exception family (as gpiozero's ``exc.py``): every
error ``bghub`` raises (a schedule, a TD's action, the broker's or the rooms' configuration, the
database file, the fleet, a release, a draw) derives from it, and each is also the stdlib error it
means (``class ScheduleError(HubError, ValueError)``): a caller catches the whole family with one
name, and every ``except ValueError`` written before still catches what it caught. It lives here,
above every folder and importing nothing, so that any folder (even the pure draw) may hang its
errors under it. A new error hangs here.
"""

from __future__ import annotations


class HubError(Exception):
    """Something the hub refuses or cannot do."""


__all__ = ["HubError"]
