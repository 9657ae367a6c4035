"""What a table reports about its own health to the hub's Tables page (docs/protocol.md §6).

Read from the system each time (``/proc/uptime``, the SoC's thermal zone, the data partition's
free space, the journal file) — each reading is optional: a desktop has no thermal zone, and a
reading that fails is reported as unknown (``null``), never guessed.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import sqlite3
from pathlib import Path
from typing import Any

THERMAL = Path("/sys/class/thermal/thermal_zone0/temp")
UPTIME = Path("/proc/uptime")


def uptime_s(path: Path = UPTIME) -> int | None:
    """Seconds since the system booted."""
    try:
        return int(float(path.read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return None


def cpu_temp_c(path: Path = THERMAL) -> float | None:
    """The SoC's temperature (a Pi throttles from 80 °C)."""
    try:
        return round(int(path.read_text().strip()) / 1000, 1)
    except (OSError, ValueError):
        return None


def disk_mb(path: Path) -> tuple[int | None, int | None]:
    """(free, total) megabytes of the file system holding ``path``."""
    try:
        usage = shutil.disk_usage(path)
    except OSError:
        return None, None
    return usage.free // 1_000_000, usage.total // 1_000_000


def local_ip(peer_host: str, peer_port: int) -> str:
    """The address this device uses to reach ``peer_host`` (no packet is sent)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect((peer_host, peer_port or 1))
        return str(sock.getsockname()[0])
    return ""


def journal_health(path: Path) -> dict[str, Any]:
    """SQLite's own quick check of the journal (read-only connection) and its number of inputs."""
    if not path.exists():
        return {"ok": False, "detail": "no journal file"}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
        try:
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            count = db.execute("SELECT count(*) FROM journal").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return {"ok": False, "detail": f"cannot read: {exc}"[:200]}
    size_kb = path.stat().st_size // 1024
    if check != "ok":
        return {"ok": False, "detail": f"integrity: {check}"[:200]}
    return {"ok": True, "detail": f"{count} inputs, {size_kb} kB"}
