"""The hub's layering, read from the source with ``ast`` (the scanner of tests/kiosk/test_app_layering).

The demonstration room (``demo``: simulated tables, scripted players, ``bghub demo``) is not part
of the product: no production package imports it, and ``bghub demo`` reaches it only through the
``bghub.commands`` entry point. Inside the hub, the jobs (ingest, automation, alerts, actions,
views) are wired by :mod:`hub.live.core` and never import it, nor the web server above it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.kiosk.test_app_layering import ROOT, imported_modules, module_name, offenders, sources

PRODUCTION = ("rulebook", "kiosk", "drivers", "hub")
#: the hub's folders, from the bottom up: each imports only folders below it (docs/ARCHITECTURE.md)
FOLDERS = ("tournament", "draw", "storage", "logic", "live", "broker", "web", "fleet")
#: the assembly at the top of ``hub/``: nothing in a folder imports it
ASSEMBLY = ("hub.app", "hub.service", "hub.cli")
#: the one loose module under the folders: the hub's exception root (gpiozero's ``exc.py``),
#: which imports nothing of the hub and which every folder may import
ROOT_MODULES = ("hub.errors",)
JOBS = ("state", "ingest", "automation", "alerts", "actions", "round_control", "views", "commands")


def test_the_scan_sees_the_demo_importing_the_hub():
    """Not vacuous: the demo does import the hub, and the scanner sees it."""
    assert "hub.cli" in imported_modules(ROOT / "demo/room.py")
    assert offenders(sources("demo"), ("hub",))


@pytest.mark.parametrize("package", PRODUCTION)
def test_no_production_package_imports_the_demo(package):
    assert offenders(sources(package), ("demo",)) == {}


def test_the_demo_does_not_import_the_kiosk():
    """Its one real kiosk (``--window``) is a ``bgtable`` process of its own (docs/demo.md)."""
    assert offenders(sources("demo"), ("kiosk",)) == {}


def test_the_hub_runs_without_loading_the_demo():
    code = (
        "import sys, hub.app, hub.live.core, hub.service, hub.web.server\n"
        "assert not any(m == 'demo' or m.startswith('demo.') for m in sys.modules), 'demo loaded'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("job", JOBS)
def test_the_hubs_jobs_do_not_import_their_wiring(job):
    path = ROOT / "hub" / "live" / f"{job}.py"
    assert offenders([path], ("hub.live.core", "hub.web.server", "hub.app", "hub.service", "hub.cli")) == {}


def test_every_hub_module_is_in_a_folder_or_the_assembly():
    loose = {p.stem for p in (ROOT / "hub").glob("*.py")} - {"__init__"}
    assert loose == {m.rpartition(".")[2] for m in ASSEMBLY + ROOT_MODULES}
    folders = {p.parent.name for p in (ROOT / "hub").glob("*/__init__.py")}
    assert folders == set(FOLDERS)


def test_the_scan_sees_a_folder_importing_the_one_below():
    """Not vacuous: the live model does import the logic below it."""
    assert offenders(sources("hub/live"), ("hub.logic",))


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_hub_folder_imports_a_folder_above_it(folder):
    above = tuple(f"hub.{f}" for f in FOLDERS[FOLDERS.index(folder) + 1 :]) + ASSEMBLY
    assert offenders(sources(f"hub/{folder}"), above) == {}


def _hub_imports() -> dict[str, set[str]]:
    """Each hub module -> the hub modules it imports (a name imported from a module is that module)."""
    files = {module_name(path): path for path in sources("hub")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        found = set()
        for imported in imported_modules(path):
            while imported and imported not in files:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and files[imported].name != "__init__.py":
                found.add(imported)
        graph[name] = found
    return graph


def test_no_circle_of_imports_in_the_hub():
    """A newcomer can read the hub from the bottom up: no module needs one that needs it back."""
    graph = _hub_imports()
    assert graph["hub.live.core"] >= {"hub.live.ingest", "hub.live.state"}  # not vacuous
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise AssertionError("a circle of imports: " + " -> ".join((*path[path.index(name) :], name)))
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())


def test_bghub_demo_comes_from_the_demo_package_entry_point():
    from importlib.metadata import entry_points

    from hub.cli import COMMANDS_GROUP

    (entry,) = [e for e in entry_points(group=COMMANDS_GROUP) if e.name == "demo"]
    assert entry.value == "demo.room:add_demo_command"
