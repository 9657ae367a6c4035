"""The fleet's rows in the hub's database: every device that said hello, and what became of it.

One table in the same SQLite file as the rest of the hub (:class:`hub.storage.store.Store`'s connection,
used on the hub's loop; the caller commits). What is kept about an enrolled table's credential is
its username and a PBKDF2 hash (the embedded broker checks passwords against it after a hub
restart) and the configuration sealed to the device's key: the hub cannot read it back, and
neither can anyone who copies the database.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

from hub.storage.store import damaged

#: sets an unreadable row aside (:meth:`hub.storage.store.Store.quarantine`)
Quarantine = Callable[[str, str, Any, Any, Any, str], None]

SCHEMA = """
CREATE TABLE IF NOT EXISTS fleet_devices (
    device TEXT PRIMARY KEY, key TEXT NOT NULL, state TEXT NOT NULL,
    code TEXT, code_expires_wall INTEGER, tbl TEXT, username TEXT, secret_hash TEXT, sealed TEXT,
    hub_url TEXT NOT NULL DEFAULT '', version TEXT NOT NULL DEFAULT '', build TEXT NOT NULL DEFAULT '',
    ip TEXT NOT NULL DEFAULT '', hostname TEXT NOT NULL DEFAULT '',
    first_seen_wall INTEGER NOT NULL, last_seen_wall INTEGER NOT NULL,
    enrolled_wall INTEGER, retired_wall INTEGER, retired_why TEXT NOT NULL DEFAULT '',
    report TEXT, report_wall INTEGER, clock_offset_ms INTEGER);
CREATE INDEX IF NOT EXISTS fleet_by_table ON fleet_devices (tbl, state);
"""


@dataclass
class Device:
    """One device as the hub knows it (``state``: pending, enrolled or retired)."""

    device: str
    key: str
    state: str
    first_seen_wall: int
    last_seen_wall: int
    code: str | None = None
    code_expires_wall: int | None = None
    table: str | None = None
    username: str | None = None
    secret_hash: str | None = None
    sealed: str | None = None
    #: the hub's address as this device reached it (its broker host is the same machine's)
    hub_url: str = ""
    version: str = ""
    build: str = ""
    ip: str = ""
    hostname: str = ""
    enrolled_wall: int | None = None
    retired_wall: int | None = None
    retired_why: str = ""
    #: the device's last health report (checked), and when it came
    report: dict[str, Any] | None = None
    report_wall: int | None = None
    #: the table's wall clock minus the hub's: the largest offset its reports showed lately
    #: (hub.logic.clock_estimate)
    clock_offset_ms: int | None = None


_COLUMNS = {f.name: ("tbl" if f.name == "table" else f.name) for f in fields(Device)}


class FleetStore:
    """Load and save :class:`Device` rows through an open SQLite connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.db.executescript(SCHEMA)

    def load(self, quarantine: Quarantine | None = None) -> dict[str, Device]:
        """Every device; a row that cannot be read (damaged on disk) is set aside with
        ``quarantine(source, key column, key, table, row, reason)``, never a hub that cannot start."""
        cols = ", ".join(_COLUMNS.values())
        out: dict[str, Device] = {}
        for row in self.db.execute(f"SELECT rowid, {cols} FROM fleet_devices").fetchall():
            values = dict(zip(_COLUMNS, tuple(row)[1:], strict=True))
            try:
                problem = damaged(row)
                if problem is not None or not isinstance(values.get("device"), str):
                    raise ValueError(problem or "device: not a text")
                report = values.get("report")
                values["report"] = json.loads(report) if report else None
                device = Device(**values)
            except (TypeError, ValueError) as exc:
                if quarantine is None:
                    raise
                table = values.get("table")
                quarantine("fleet_devices", "rowid", row[0], table, dict(row), str(exc))
                continue
            out[device.device] = device
        return out

    def save(self, device: Device) -> None:
        values = asdict(device)
        values["report"] = (
            json.dumps(device.report, separators=(",", ":"), ensure_ascii=False) if device.report else None
        )
        cols = ", ".join(_COLUMNS.values())
        marks = ", ".join("?" for _ in _COLUMNS)
        self.db.execute(
            f"INSERT OR REPLACE INTO fleet_devices ({cols}) VALUES ({marks})",
            [values[name] for name in _COLUMNS],
        )

    def delete(self, device: str) -> None:
        self.db.execute("DELETE FROM fleet_devices WHERE device = ?", (device,))
