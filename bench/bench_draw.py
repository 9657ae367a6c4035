"""What the draw costs the hub: a call plan and a result's re-derivation (``hub.draw``).

Why: the hub will plan calls after every confirmed result and re-derive the bracket after every
result, undo or withdrawal; both walk the whole event. Measured: a main flight of N places
(15/16 filled), a consolation fed by its rounds 1 and 2 and a last chance fed by the
consolation's round 1, N/4 tables, half of round 1 played; the time of one ``plan_calls`` and of
one ``with_result`` (minimum and median of 15). Pure: no broker, no store.

    python -m bench draw
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from hub.draw import (
    Bracket,
    CallSettings,
    Entry,
    EntryFlight,
    Event,
    FedFlight,
    Feed,
    Holds,
    TableState,
    draw_entries,
    plan_calls,
)

REPEAT = 15


def timed(step: Callable[[], object]) -> tuple[float, float]:
    runs = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        step()
        runs.append((time.perf_counter() - started) * 1000)
    return min(runs), statistics.median(runs)


def measure(size: int) -> str:
    main_flight = EntryFlight("main", size, "wbgf-2023", (7,))
    event = Event(
        (
            main_flight,
            FedFlight("consolation", (Feed("main", 1), Feed("main", 2)), "wbgf-2023", (5,)),
            FedFlight("last_chance", (Feed("consolation", 1),), "hbf", (3,)),
        )
    )
    entries = [Entry(f"p{i}") for i in range(1, size * 15 // 16 + 1)]
    bracket = Bracket.build(event, [draw_entries(main_flight, entries, random_seed=1)])
    tables = [TableState(str(t)) for t in range(1, size // 4 + 1)]
    rules = CallSettings(needs_verified=False)
    calls = list(plan_calls(bracket, [], tables, rules, Holds(), 0))
    for c in calls[: len(calls) // 2]:
        bracket = bracket.with_result(c.match, bracket.match(c.match).players[0], at=1)
    ready = bracket.ready()[-1]
    plan = timed(lambda: plan_calls(bracket, calls, tables, rules, Holds(), 2))
    result = timed(lambda: bracket.with_result(ready.id, ready.players[0], at=2))
    return (
        f"main {size:4} ({len(event.matches):4} matches, {len(tables):3} tables): "
        f"plan {plan[0]:6.2f} ms min, {plan[1]:6.2f} median; "
        f"result {result[0]:6.2f} ms min, {result[1]:6.2f} median"
    )


def main() -> None:
    for size in (32, 128, 512):
        print(measure(size))


if __name__ == "__main__":
    main()
