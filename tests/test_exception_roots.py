"""One exception family per package (docs/ARCHITECTURE.md, STYLE.md 4), checked by importing every
module: each exception class a package defines derives from that package's root, so a caller can
catch "anything the hub refuses" with one name, and each also stays the stdlib error it means
(``class ScheduleError(HubError, ValueError)``), so every ``except ValueError`` still catches it.

``rulebook.schema``'s ``_Bad`` and ``_Fail`` are left out on purpose: private control flow of the
compiled schema checks (``_Fail`` raised by generated code, ``_Bad`` carrying a path up the
checks), turned into a ``WireError`` before anything leaves the module; ``_Bad`` keeps
``__slots__`` and skips ``RuleError``'s constructor because it is raised on the wire's hot path.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from drivers.errors import DriverError
from hub.errors import HubError
from kiosk.errors import KioskError
from rulebook.errors import RuleError

ROOTS: dict[str, type[Exception]] = {
    "rulebook": RuleError,
    "drivers": DriverError,
    "kiosk": KioskError,
    "hub": HubError,
}
#: private control flow that never leaves its module (see the module docstring)
PRIVATE = frozenset({"rulebook.schema._Bad", "rulebook.schema._Fail"})


def _exceptions(package: str) -> dict[str, type[BaseException]]:
    """Every exception class defined in ``package``'s modules: qualified name -> class."""
    root = importlib.import_module(package)
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


@pytest.mark.parametrize("package", sorted(ROOTS))
def test_every_exception_of_a_package_derives_from_its_root(package: str) -> None:
    found = _exceptions(package)
    assert found, package
    strays = sorted(q for q, cls in found.items() if not issubclass(cls, ROOTS[package]) and q not in PRIVATE)
    assert strays == []


def test_the_private_control_flow_exceptions_are_still_there_and_private() -> None:
    """The list of exceptions left out names only what exists (none kept by mistake)."""
    found = _exceptions("rulebook")
    assert set(found) >= PRIVATE
    assert all(q.rsplit(".", 1)[1].startswith("_") for q in PRIVATE)


def test_one_journal_error() -> None:
    named = [q for pkg in ROOTS for q in _exceptions(pkg) if q.rsplit(".", 1)[1] == "JournalError"]
    assert named == ["kiosk.journal.JournalError"]
