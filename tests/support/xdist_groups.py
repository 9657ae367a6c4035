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

**The longest first.** The workers are handed the tests in the order this hook leaves them
(``make test`` passes ``--no-loadscope-reorder``): a test marked ``long`` (one that takes over
about 20 s on an idle machine: most wait on real time — a lateness minute, a kiosk's 50 restarts,
a wheel built and signed) first, then the groups, largest first, then the rest in file order. A
four-minute test handed out last would leave three workers idle for its whole length at the end of
the run; handed out first, it runs while the others share the short tests.
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
    items[:] = longest_first(items)


def scope_of(item: pytest.Item) -> str:
    """The unit a worker is handed: the item's group if it has one, else the test itself."""
    group = item.get_closest_marker("xdist_group")
    return f"@{group.args[0]}" if group is not None and group.args else item.nodeid


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items in the order the workers should be handed them (the module's docstring).

    A group goes where its first long test, or its first test, would: all its tests stay
    together, in file order.
    """
    scopes: dict[str, list[pytest.Item]] = {}
    for item in items:
        scopes.setdefault(scope_of(item), []).append(item)

    def rank(members: list[pytest.Item]) -> tuple[int, int]:
        long = any(m.get_closest_marker("long") is not None for m in members)
        return (0 if long else 1 if len(members) > 1 else 2, -len(members))

    ordered = sorted(scopes.values(), key=rank)  # stable: file order within a rank
    return [item for members in ordered for item in members]
