"""The TD hub: schedule, room model, automatic lateness, alerts, store and the live dashboard.

Run it with ``bghub run`` (:mod:`hub.cli`); see ``docs/hub.md`` and ``docs/api.md``.
"""
