"""How long a new table takes from power-on of the software to playing, with real processes.

A ``bghub`` with the embedded broker, then N new tables one after the other as the image starts
them (``bgtable run --headless --config STATE/table.toml`` with no configuration yet, the hub's
address given as a boot-partition file would): for each, the machine's share of the work, split
where the organiser's hands come in:

* **to code**: from starting ``bgtable run`` until its code is on the screen (stdout says it);
* **enroll → online**: from the TD's enroll request until the hub shows the table online;
* **enroll → report**: until the table's first health report is on the Tables page.

The organiser's own time (plugging in, reading the code, typing the number) is not measured
here; docs/performance.md puts the two together. Run: ``python -m bench enroll``;
``BENCH_ENROLL_TABLES`` sets N (default 5).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.fleet.support import Hub, Table, cleanup, wait_until

    count = int(os.environ.get("BENCH_ENROLL_TABLES", "5"))
    to_code: list[float] = []
    to_online: list[float] = []
    to_report: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-enroll-") as tmp_name:
        tmp = Path(tmp_name)
        hub = Hub(tmp, "bench-enroll")
        tables: list[Table] = []
        with cleanup(hub):
            for n in range(1, count + 1):
                state = tmp / f"t{n}"
                started = time.perf_counter()
                table = Table(tmp, state / "table.toml", f"t{n}", "--hub", hub.url, "--device-id", f"dev-{n}")
                tables.append(table)
                code = table.out.wait_for(r"^code (\d{4})$", timeout=60).group(1)
                to_code.append(time.perf_counter() - started)
                asked = time.perf_counter()
                hub.td.post(f"/api/fleet/dev-{n}/enroll", {"table": str(n), "code": code})
                wait_until(lambda n=n: hub.online(str(n)), 60, f"table {n} online")
                to_online.append(time.perf_counter() - asked)
                wait_until(lambda n=n: (hub.device(f"dev-{n}") or {}).get("report_wall"), 60, "a report")
                to_report.append(time.perf_counter() - asked)
            for table in tables:
                table.stop()

    def line(name: str, values: list[float]) -> str:
        median, worst = statistics.median(values), max(values)
        return f"{name:<18} median {median:5.2f} s   max {worst:5.2f} s   (n={len(values)})"

    print(line("to code", to_code))
    print(line("enroll -> online", to_online))
    print(line("enroll -> report", to_report))


if __name__ == "__main__":
    main()
