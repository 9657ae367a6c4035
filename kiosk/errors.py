"""One exception family for the table's application (as gpiozero's ``exc.py``).

Every error ``bgtable`` raises (its configuration, journal, checkpoints, enrollment, updates, the
screen) derives from :class:`KioskError`, and each is also the stdlib error it means
(``class ConfigError(KioskError, ValueError)``): a caller catches the whole family with one name,
and every ``except ValueError`` or ``except RuntimeError`` written before still catches what it
caught. A new error hangs here.
"""

from __future__ import annotations


class KioskError(Exception):
    """Something the table's application refuses or cannot do."""


__all__ = ["KioskError"]
