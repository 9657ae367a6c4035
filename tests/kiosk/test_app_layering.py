"""The packages' layering (docs: DESIGN.md, "Shape"), read from the source with ``ast``.

``rulebook`` imports nothing from the others; ``kiosk`` and ``hub`` never import each other; pygame
is imported only under ``kiosk/ui``. Every import counts, also those inside functions and those
by a literal name (``importlib.import_module("...")``, the CLI's ``_lazy("module", "name")``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rulebook", "kiosk", "drivers", "hub")
#: calls whose first argument, a literal, names a module they import
IMPORTERS = ("import_module", "__import__", "_lazy")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if name in IMPORTERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
    return found


def sources(package: str, exclude: str | None = None) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    if exclude is not None:
        files = [f for f in files if not f.is_relative_to(ROOT / exclude)]
    assert files, f"no sources under {package}"
    return files


def offenders(files: list[Path], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """``{file: [modules]}`` for the files that import a module in (or under) ``forbidden``."""
    bad: dict[str, list[str]] = {}
    for path in files:
        hits = sorted(
            m for m in imported_modules(path) if any(m == f or m.startswith(f + ".") for f in forbidden)
        )
        if hits:
            bad[str(path.relative_to(ROOT))] = hits
    return bad


def test_the_scan_sees_imports_where_they_are():
    """The checks below are not vacuous: the scanner finds the imports that do exist."""
    assert "pygame" in imported_modules(ROOT / "kiosk/ui/window.py")
    assert "kiosk.ui.window" in imported_modules(ROOT / "kiosk/app.py")  # a lazy import
    assert "kiosk.app" in imported_modules(ROOT / "kiosk/cli.py")  # _lazy("kiosk.app", "main_run")
    assert offenders(sources("kiosk"), ("pygame",))


@pytest.mark.parametrize("package", PACKAGES)
def test_pygame_is_imported_only_under_kiosk_ui(package):
    assert offenders(sources(package, exclude="kiosk/ui"), ("pygame",)) == {}


def test_the_rulebook_imports_none_of_the_others():
    assert offenders(sources("rulebook"), ("kiosk", "drivers", "hub")) == {}


def test_the_kiosk_does_not_import_the_hub():
    assert offenders(sources("kiosk"), ("hub",)) == {}


def test_the_hub_does_not_import_the_kiosk():
    assert offenders(sources("hub"), ("kiosk",)) == {}


def test_the_kiosk_application_runs_without_loading_pygame():
    """Importing the main loop loads no display library; only opening a screen does."""
    code = "import sys, kiosk.app, kiosk.ui.events; assert 'pygame' not in sys.modules, 'pygame loaded'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
