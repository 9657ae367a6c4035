"""The fleet tests' fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fleet.netns import Lan


@pytest.fixture
def lan() -> Iterator[Lan]:
    """The hub's namespace and two tables' (``t1``, ``t2``), made for the test and removed after."""
    net = Lan()
    try:
        net.up()
        yield net
    finally:
        net.down()
