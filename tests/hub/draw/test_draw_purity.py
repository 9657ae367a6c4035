"""The draw stays pure (docs/ARCHITECTURE.md, "The draw"): read from the source with ``ast``.

It imports only itself, the rulebook and standard modules that do no I/O of their own, so a draw,
a result or a call plan is the same whenever and wherever it is worked out: no clock read, no
file, no thread, no other hub module (the hub calls it, never the other way round).
"""

from __future__ import annotations

from tests.kiosk.test_app_layering import ROOT, imported_modules

ALLOWED = {
    "__future__",
    "collections.abc",
    "csv",
    "dataclasses",
    "enum",
    "io",
    "json",
    "random",
    "re",
    "typing",
    "rulebook.parse",
    # the hub's one exception root (DrawError hangs under it): a module that imports nothing
    "hub.errors",
}


def is_allowed(module: str) -> bool:
    """``from csv import writer`` reads as ``csv.writer``: a module or a name inside one."""
    return any(module == a or module.startswith(a + ".") for a in (*ALLOWED, "hub.draw"))


def draw_sources() -> list:
    return sorted((ROOT / "hub" / "draw").glob("*.py"))


def test_the_scan_sees_the_draws_modules_and_their_imports():
    names = {p.name for p in draw_sources()}
    assert {"__init__.py", "flights.py", "bracket.py", "calls.py"} <= names
    assert "random.Random" not in imported_modules(ROOT / "hub/draw/calls.py")
    assert "rulebook.parse.MAX_LENGTH" in imported_modules(ROOT / "hub/draw/flights.py")
    assert not is_allowed("time.monotonic") and not is_allowed("hub.state") and not is_allowed("threading")


def test_the_draw_imports_nothing_that_reads_a_clock_a_file_or_the_hub():
    offenders = {p.name: sorted(m for m in imported_modules(p) if not is_allowed(m)) for p in draw_sources()}
    assert {k: v for k, v in offenders.items() if v} == {}
