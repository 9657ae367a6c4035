"""Facts written once (docs/ARCHITECTURE.md: a rule lives in one place), checked from the source.

* ``SIDES`` is defined in ``rulebook/sides.py`` only; every other module imports it.
* The first lateness point's minute (``lateness_first_point_min`` and its no-clock variant) is read
  in ``rulebook/policy.py`` only (``first_point_ms``): a second reading is how the hub's "playing
  elsewhere, not late" alert once came 20 minutes early under ffbg-cdf without a clock.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rulebook", "kiosk", "drivers", "hub", "demo")


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _assigned_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_sides_is_defined_once() -> None:
    defined = [
        str(p.relative_to(ROOT)) for p in _modules() if "SIDES" in _assigned_names(ast.parse(p.read_text()))
    ]
    assert defined == ["rulebook/sides.py"]


def test_the_first_lateness_point_is_read_in_the_policy_only() -> None:
    fields = {"lateness_first_point_min", "lateness_first_point_min_no_clock"}
    readers = sorted(
        str(p.relative_to(ROOT))
        for p in _modules()
        if any(
            isinstance(n, ast.Attribute) and n.attr in fields and isinstance(n.ctx, ast.Load)
            for n in ast.walk(ast.parse(p.read_text()))
        )
    )
    assert readers == ["rulebook/policy.py"]
