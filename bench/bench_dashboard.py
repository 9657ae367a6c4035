"""The dashboard's room view in Chromium with 60 and 1,000 tables: how long drawing the room takes.

A real Mosquitto and a real hub (``--public``, so no login is needed) with a schedule of N matches;
N raw table connections (``bench.bench_hub.Room``) announce themselves and publish a state of a
match in play (clocks running, about 2 KB each), so every tile is a full one. Headless Chromium
(Debian's, as the tests use) then opens the dashboard at 1440×900, several times:

* **first render**: from the navigation's start to the end of the first frame after the room was
  drawn (what the TD waits for when opening the page);
* **room render**: the room redrawn as a whole (the ``grid-render`` measure: building the DOM of
  every tile; ``grid-frame``: until the next frame, style and layout included) — what a filter, a
  sort or a search costs;
* **list view**: the same in the compact list;
* **live updates**: while the tables publish 0.2 messages/s each (a real room's pace: a few
  events a minute per table, each with its state) and then 2 messages/s (ten times that), the
  frames the page still draws per second, and the longest time between two frames (a freeze
  the TD would feel). The hub, the broker, the tables and Chromium share the machine.

Run: ``python -m bench.bench_dashboard [--tables 60,1000] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from bench.bench_hub import room_process
from hub.app import RunConfig
from hub.live.config import HubConfig
from hub.service import HubThread
from tests.support.broker import Mosquitto

#: note every frame's time until ``__run`` changes (one loop at a time)
FRAMES = """() => {
  window.__run = (window.__run || 0) + 1;
  const run = window.__run;
  window.__frames = [];
  const f = (t) => { if (window.__run !== run) return; window.__frames.push(t); requestAnimationFrame(f); };
  requestAnimationFrame(f);
}"""
CHROMIUM = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def schedule(n: int, start_wall: int) -> str:
    from datetime import UTC, datetime

    start = datetime.fromtimestamp(start_wall / 1000, tz=UTC).isoformat()
    rows = ["round,table,player_a,player_b,length,start,clock"]
    rows += [f"1,{t},Player A{t},Player B{t},11,{start},yes" for t in range(1, n + 1)]
    return "\n".join(rows) + "\n"


def measures(page: Page, name: str) -> list[float]:
    return page.evaluate(f"() => performance.getEntriesByName({json.dumps(name)}).map(e => e.duration)")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def run_size(n: int, repeat: int) -> dict[str, Any]:
    broker = Mosquitto().start()
    tmp = Path(tempfile.mkdtemp())
    event = f"benchdash{n}"
    now = int(time.time() * 1000)
    (tmp / "schedule.csv").write_text(schedule(n, now - 60_000), encoding="utf-8")
    rc = RunConfig(
        hub=HubConfig(event=event, broker_host=broker.host, broker_port=broker.port),
        db=str(tmp / "hub.db"),
        http_host="127.0.0.1",
        http_port=0,
        schedule=str(tmp / "schedule.csv"),
        public=True,
    )
    hub = HubThread(rc, password="bench").start()
    parent, child = multiprocessing.Pipe()
    proc = multiprocessing.Process(target=room_process, args=(child, broker.host, broker.port, event, n))
    proc.start()
    out: dict[str, Any] = {"tables": n}
    try:
        parent.send(("announce",))
        parent.recv()
        hub.wait_for(lambda h: sum(1 for v in h.views.values() if v.state is not None) >= n, timeout=120)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM)
            ctx = browser.new_context(viewport={"width": 1440, "height": 900})
            page = ctx.new_page()
            first, render, frame = [], [], []
            for _ in range(repeat):
                page.goto(hub.url + "/")
                page.wait_for_function(
                    f"() => document.querySelectorAll('#grid .tile').length >= {n}", timeout=120_000
                )
                full = f"performance.getEntriesByName('grid-frame').filter(e => e.detail.tiles >= {n})"
                page.wait_for_function(f"() => {full}.length > 0")
                nav = page.evaluate(f"() => {full}[0].startTime + {full}[0].duration")
                first.append(nav)
                # redraws: a search and its clearing, a sort, and back
                for sort in ("urgency", "time", "table"):
                    page.select_option("#room-sort", sort)
                page.wait_for_function(f"() => {full}.length >= 4")
                render += measures(page, "grid-render")[-3:]
                frame += measures(page, "grid-frame")[-3:]
            page.click('[data-layout="list"]')
            page.wait_for_function(f"() => document.querySelectorAll('#room-list tbody tr').length >= {n}")
            page.evaluate("() => performance.clearMeasures()")
            for sort in ("urgency", "time", "table") * 2:
                page.select_option("#room-sort", sort)
            page.wait_for_function("() => performance.getEntriesByName('grid-frame').length >= 6")
            lrender, lframe = measures(page, "grid-render"), measures(page, "grid-frame")
            page.click('[data-layout="tiles"]')
            # live: the tables play while the room is open; every frame's time is noted
            live = {}
            for per_table in (0.2, 2.0):
                page.evaluate(FRAMES)
                parent.send(("run", 10, per_table * n))
                parent.recv()
                stamps = page.evaluate("() => { window.__run += 1; return window.__frames; }")
                gaps = [b - a for a, b in itertools.pairwise(stamps)]
                live[per_table] = {
                    "fps": len(gaps) / (sum(gaps) / 1000) if gaps else 0.0,
                    "frame_gap_p95_ms": pct(gaps, 95),
                    "longest_gap_ms": max(gaps) if gaps else 0.0,
                }
            browser.close()
        out.update(
            first_render_ms={"p50": statistics.median(first), "max": max(first)},
            room_render_ms={"p50": statistics.median(render), "p95": pct(render, 95)},
            room_frame_ms={"p50": statistics.median(frame), "p95": pct(frame, 95)},
            list_render_ms={"p50": statistics.median(lrender)},
            list_frame_ms={"p50": statistics.median(lframe)},
            live=live,
        )
    finally:
        parent.send(("stop",))
        proc.join(10)
        hub.stop()
        broker.stop()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="60,1000")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    for n in (int(x) for x in args.tables.split(",")):
        r = run_size(n, args.repeat)
        f, rr, fr = r["first_render_ms"], r["room_render_ms"], r["room_frame_ms"]
        lv = ", ".join(
            f"{rate:g} messages/s per table: {x['fps']:.0f} frames/s, "
            f"gap p95 {x['frame_gap_p95_ms']:.0f} ms, longest {x['longest_gap_ms']:.0f} ms"
            for rate, x in r["live"].items()
        )
        lr, lf = r["list_render_ms"]["p50"], r["list_frame_ms"]["p50"]
        print(
            f"{n:>5} tables: first render {f['p50']:.0f} ms (max {f['max']:.0f}); room redraw DOM "
            f"{rr['p50']:.0f} ms (p95 {rr['p95']:.0f}), with layout {fr['p50']:.0f} ms "
            f"(p95 {fr['p95']:.0f}); list redraw {lr:.0f} / {lf:.0f} ms; live: {lv}",
            flush=True,
        )
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
