"""The hardware check's automatic readings: the CPU's temperature and the firmware's throttling
flags, from the system (docs/td-guide.md, "Hardware check").

Each reading may be missing — a desktop has no thermal zone, a board other than a Raspberry Pi no
firmware flags — and is then ``None``: "not available" is a result, never a failure or a guess.
The paths and the command are arguments (:class:`Probes`) so that tests read files they wrote.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kiosk.device_health import THERMAL

#: the Raspberry Pi firmware driver's attribute (hexadecimal, as ``%x``)
THROTTLED = Path("/sys/devices/platform/soc/soc:firmware/get_throttled")
#: the firmware's own tool, where the attribute is absent (``throttled=0x50000``)
VCGENCMD = ("vcgencmd", "get_throttled")


@dataclass(frozen=True)
class Probes:
    """Where the readings come from."""

    thermal: Path = THERMAL
    throttled: Path = THROTTLED
    vcgencmd: Sequence[str] = VCGENCMD


def cpu_temp_mc(path: Path) -> int | None:
    """Millidegrees Celsius, as the thermal zone gives them."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _bits(text: str) -> int | None:
    value = text.strip().removeprefix("throttled=")
    try:
        bits = int(value, 16)
    except ValueError:
        return None
    return bits if 0 <= bits < 2**32 else None


def throttled_bits(probes: Probes) -> int | None:
    """The firmware's ``get_throttled`` flags: the sysfs attribute, else ``vcgencmd``."""
    try:
        return _bits(probes.throttled.read_text())
    except OSError:
        pass
    if not probes.vcgencmd:
        return None
    try:
        done = subprocess.run(list(probes.vcgencmd), capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return _bits(done.stdout) if done.returncode == 0 else None
