"""One exception family for the drivers (as gpiozero's ``exc.py``).

Every error the edges raise (a dice tower's frame, a sealed configuration, a release signature)
derives from :class:`DriverError`, and each is also the stdlib error it means
(``class FrameError(DriverError, ValueError)``): a caller catches the whole family with one name,
and every ``except ValueError`` written before still catches what it caught. A new error hangs here.
"""

from __future__ import annotations


class DriverError(Exception):
    """Something at the hardware or network edge the drivers refuse or cannot do."""


__all__ = ["DriverError"]
