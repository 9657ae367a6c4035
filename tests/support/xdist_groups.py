"""How the tests are shared among pytest-xdist's workers (``make test`` runs them in parallel,
``--dist loadgroup``): which tests must run on the same worker, one after the other.

A test that uses a fixture set up once for several tests (a module's Chromium, a hub with its
room, a generated broker configuration) joins its module's group, so that the set-up runs once,
on one worker, rather than once on every worker that gets one of the module's tests.

What the workers share of the machine needs no group: each broker, hub and table binds a port of
its own (``free_port()``, or port 0) and keeps its files under its test's ``tmp_path``; the
network namespaces and veth pairs are named after the worker's process id
(``tests/fleet/netns.py``, ``tests/hub/test_broker_firewall.py``); a loop device is taken with
``losetup --find --show``, which finds a free one and attaches it in one step.
"""

from __future__ import annotations

import pytest

#: scopes whose fixture is set up once for several tests (a session's is set up once per worker)
SHARED_SCOPES = ("class", "module", "package")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        if any(defs and defs[-1].scope in SHARED_SCOPES for defs in info.name2fixturedefs.values()):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
