"""Run every ``bench/bench_*.py`` module's ``main()`` in name order: ``python -m bench [name ...]``.

A new benchmark needs no registration: add ``bench/bench_<topic>.py`` with a ``main()``. Names given
on the command line (e.g. ``reducer``) select modules.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent


def discover() -> list[str]:
    """The benchmark modules' short names (``bench_reducer`` -> ``reducer``), sorted."""
    return sorted(
        info.name.removeprefix("bench_")
        for info in pkgutil.iter_modules([str(HERE)])
        if info.name.startswith("bench_")
    )


def main(argv: Sequence[str] | None = None) -> int:
    wanted = list(sys.argv[1:] if argv is None else argv)
    names = discover()
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)} (have: {', '.join(names)})", file=sys.stderr)
        return 2
    failures = 0
    for name in wanted or names:
        print(f"== bench_{name}", flush=True)
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.bench_{name}")
            result = module.main()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            print(f"bench_{name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            failures += 1
            continue
        if result:
            failures += 1
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
