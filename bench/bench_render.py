"""Frame cost of the kiosk screen: the play screen with a running clock, at both display sizes.

Targets: median ≤ 4 ms and p99 ≤ 8 ms per frame; the kiosk must stay under 5 % CPU with a clock
running. Measures, for 800×480 and 1280×720:

- full frames (everything repainted, as after a screen change),
- incremental frames at 30 fps over 30 s of a running clock (only changed regions repainted),
- the CPU share of drawing at the view's own pace (a frame exactly when ``next_frame_ms`` says the
  screen changes), i.e. the cost of ten seconds of frames divided by ten seconds.

Run: ``python -m bench`` (all benchmarks) or ``python bench/bench_render.py``.
"""

from __future__ import annotations

import os
import statistics
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from kiosk.ui import samples
from kiosk.ui.view import KioskView, LocalState
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import new_table

SIZES = [(800, 480), (1280, 720)]
FULL_FRAMES = 200
INCREMENTAL_SECONDS = 30
FPS = 30


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _stats(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    median, p99 = statistics.median(ms), _percentile(ms, 0.99)
    return f"median {median:6.3f} ms   p99 {p99:6.3f} ms   max {max(ms):6.3f} ms"


def bench_size(size: tuple[int, int]) -> dict[str, float]:
    surface = pygame.display.set_mode(size)
    journal = samples.playing()
    state = replay(journal.lines, new_table(samples.TABLE))
    at0 = journal.at
    view = KioskView(size)
    local = LocalState(hub_online=True)

    # warm the text cache the way a running kiosk is warm
    for i in range(20):
        view.draw(surface, snapshot(state, at0 + i * 100), local, samples.WALL0 + at0 + i * 100)

    full: list[float] = []
    for i in range(FULL_FRAMES):
        at = at0 + 2_000 + i * 100
        snap = snapshot(state, at)
        view.invalidate()
        t = time.perf_counter()
        view.draw(surface, snap, local, samples.WALL0 + at)
        full.append(time.perf_counter() - t)

    incremental: list[float] = []
    snapshots: list[float] = []
    dirty_px: list[int] = []
    step = 1000 // FPS
    view.invalidate()
    view.draw(surface, snapshot(state, at0), local, samples.WALL0 + at0)
    for i in range(INCREMENTAL_SECONDS * FPS):
        at = at0 + i * step
        t = time.perf_counter()
        snap = snapshot(state, at)
        t1 = time.perf_counter()
        rects = view.draw(surface, snap, local, samples.WALL0 + at)
        incremental.append(time.perf_counter() - t1)
        snapshots.append(t1 - t)
        dirty_px.append(sum(r.w * r.h for r in rects))

    # one second of frames at the view's own pace
    paced: list[float] = []
    paced_changed = 0
    at = at0 + 5_000
    end = at + 10_000
    while at < end:
        t = time.perf_counter()
        snap = snapshot(state, at)
        rects = view.draw(surface, snap, local, samples.WALL0 + at)
        paced.append(time.perf_counter() - t)
        paced_changed += bool(rects)
        at += view.next_frame_ms(snap, samples.WALL0 + at)
    cpu_share = sum(paced) / 10.0

    w, h = size
    print(f"{w}x{h}")
    print(f"  full redraw   ({FULL_FRAMES} frames)      {_stats(full)}")
    print(f"  incremental   ({len(incremental)} frames @ {FPS} fps) {_stats(incremental)}")
    print(f"  snapshot()    per frame               {_stats(snapshots)}")
    changed = [p for p in dirty_px if p]
    print(
        f"  repainted: {len(changed)}/{len(dirty_px)} frames, "
        f"mean {statistics.mean(changed) / (w * h) * 100 if changed else 0:.1f} % of the screen when any"
    )
    print(
        f"  paced by next_frame_ms: {len(paced) / 10:.1f} frames/s ({paced_changed} of {len(paced)} changed "
        f"the screen), snapshot + draw use {cpu_share * 100:.2f} % of one core"
    )
    return {
        "full_median_ms": statistics.median(full) * 1000,
        "full_p99_ms": _percentile(full, 0.99) * 1000,
        "inc_median_ms": statistics.median(incremental) * 1000,
        "inc_p99_ms": _percentile(incremental, 0.99) * 1000,
        "cpu_share": cpu_share,
    }


def main() -> dict[str, dict[str, float]]:
    pygame.display.init()
    pygame.font.init()
    print("bench_render: play screen, clock running (targets: median <= 4 ms, p99 <= 8 ms)")
    results = {f"{w}x{h}": bench_size((w, h)) for w, h in SIZES}
    ok = all(
        r["full_median_ms"] <= 4 and r["full_p99_ms"] <= 8 and r["inc_p99_ms"] <= 8 for r in results.values()
    )
    print(f"  targets {'met' if ok else 'NOT met'} on this machine")
    pygame.display.quit()
    return results


if __name__ == "__main__":
    main()
