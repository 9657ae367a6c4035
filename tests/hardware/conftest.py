"""The hardware tier: tests against a real table's GPIO buttons and dice tower.

Run on a table's Raspberry Pi with ``make hardware`` (or ``pytest -m hardware``). Off a Pi every
test of this tier is skipped with the reason, and ``make test`` deselects the tier altogether.
The table's configuration comes from ``BGTABLE_CONFIG`` (default ``/var/lib/bgtable/table.toml``,
where an enrolled table keeps it), so the tests use the pins and port the table really uses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kiosk.config import Config, load

MODEL = Path("/proc/device-tree/model")
DEFAULT_CONFIG = "/var/lib/bgtable/table.toml"


def raspberry_pi_model() -> str | None:
    """The board's model string on a Raspberry Pi, None elsewhere."""
    try:
        model = MODEL.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    ours = [item for item in items if here in Path(str(item.fspath)).parents]
    for item in ours:
        item.add_marker(pytest.mark.hardware)
    if ours and raspberry_pi_model() is None:
        skip = pytest.mark.skip(reason="hardware tier: runs on a table's Raspberry Pi only")
        for item in ours:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def table_config() -> Config:
    path = os.environ.get("BGTABLE_CONFIG", DEFAULT_CONFIG)
    if not Path(path).exists():
        pytest.fail(f"no table configuration at {path} (set BGTABLE_CONFIG)")
    return load(path)
