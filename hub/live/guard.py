"""One table can never stop the room: each per-table step of the hub runs inside a guard.

Every job of the hub walks tables (ingest a batch, assign, lateness, alerts, tiles). Whatever is
wrong with one table — a message that slipped past the checks, a bug met only by one table's
situation — must cost that table's step only: the exception is logged (with its traceback the
first time), remembered, and the loop goes on with the next table. The hub turns what the guard
remembered into one alert per table and step (:meth:`Guard.take_faults`), so the TD hears of it
once instead of finding the room frozen. A failure of the database itself (a full disk) is no
table's fault: it goes up to the step's owner (:func:`hub.storage.store.is_storage_error`).

Pure bookkeeping (no I/O besides the log): the jobs hold the guard through ``RoomState.guard``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass

from hub.storage.store import is_storage_error

log = logging.getLogger("hub")

#: how many distinct (table, step) faults are remembered before older ones are forgotten
MAX_FAULTS = 1000


@dataclass(frozen=True, slots=True)
class Fault:
    table: str | None
    step: str
    error: str


class Guard:
    def __init__(self) -> None:
        #: (table, step) -> the error, for faults not yet turned into alerts
        self._new: dict[tuple[str | None, str], Fault] = {}
        #: every (table, step) that failed since it last succeeded: logged in full only once
        self._known: set[tuple[str | None, str]] = set()
        self.count = 0

    @contextlib.contextmanager
    def table(self, table: str | None, step: str) -> Iterator[None]:
        """Run one table's ``step``; an exception is logged and remembered, never propagated."""
        try:
            yield
        except Exception as exc:
            if is_storage_error(exc):
                raise  # the database's failure, not this table's: the step's owner handles it
            self.record(table, step, exc)

    def record(self, table: str | None, step: str, exc: BaseException) -> None:
        self.count += 1
        key = (table, step)
        where = f"table {table}" if table is not None else "the hub"
        if key in self._known:
            log.warning("%s: %s failed again: %s: %s", where, step, type(exc).__name__, exc)
        else:
            log.error("%s: %s failed; the other tables go on", where, step, exc_info=exc)
            if len(self._known) >= MAX_FAULTS:
                self._known.clear()
            self._known.add(key)
            self._new[key] = Fault(table, step, f"{type(exc).__name__}: {exc}"[:300])

    def take_faults(self) -> list[Fault]:
        """The faults met for the first time since the last call (each becomes one alert)."""
        faults = list(self._new.values())
        self._new.clear()
        return faults
