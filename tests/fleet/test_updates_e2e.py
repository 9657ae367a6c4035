"""Software updates end to end: a table takes the hub's build between matches, never during one,
and goes back to the version it had when the new one does not start.

The "new" builds are wheels of a copy of this source tree with one file changed (so their build
ids differ from the running one), made by the hub's own wheel builder, and served by a real
``bghub --software``. The table is a real ``bgtable run`` process; the test plays systemd's part
(``Restart=always``): when the kiosk exits, it is started again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.build_id import PACKAGES, running_build
from tests.faults.support import schedule_csv
from tests.fleet.support import ENV, WAIT, Enroll, Hub, Room, Table, cleanup, wait_until

ROOT = Path(__file__).resolve().parents[2]
EVENT = "fleet-update"
BUILD_SCRIPT = (
    "import sys; from pathlib import Path; from hub.software import build_wheel; "
    "path, version, build = build_wheel(Path(sys.argv[1])); print(path); print(build)"
)


def make_wheel(tmp: Path, name: str, patch: tuple[str, str, str]) -> tuple[Path, str]:
    """A wheel of this tree with ``patch`` = (file, old text, new text) applied; (path, build)."""
    src = tmp / f"src-{name}"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    path, old, new = patch
    text = (src / path).read_text()
    assert old in text
    (src / path).write_text(text.replace(old, new, 1))
    out = subprocess.run(
        [sys.executable, "-c", BUILD_SCRIPT, str(tmp / f"wheel-{name}")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=src,
        env={**ENV, "PYTHONPATH": str(src)},
        check=True,
    ).stdout.split()
    return Path(out[0]), out[1]


def enrolled_table(tmp: Path, hub: Hub, table: str) -> Path:
    state = tmp / f"state-{table}"
    proc = Enroll(tmp, hub.url, state, f"dev-{table}")
    code = proc.code()
    hub.td.post(f"/api/fleet/dev-{table}/enroll", {"table": table, "code": code})
    assert proc.wait() == 0
    config = state / "table.toml"
    # report and look for updates often, as a test needs
    config.write_text(config.read_text() + "report_s = 5\nupdate_check_s = 5\n")
    return config


def start_hub(tmp: Path, broker: str, wheel: Path) -> tuple[Room | None, Hub]:
    room = Room(tmp, EVENT) if broker == "mosquitto" else None
    hub = Hub(
        tmp,
        EVENT,
        room=room.out if room else None,
        broker_port=room.port if room else None,
        extra=["--software", str(wheel)],
    )
    return room, hub


@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_update_waits_for_the_match_to_end_then_runs_the_new_build(tmp_path: Path, broker: str):
    wheel, build = make_wheel(
        tmp_path, "new", ("kiosk/fleet_agent.py", '"""The device', '"""(updated) The device')
    )
    assert build != running_build()
    room, hub = start_hub(tmp_path, broker, wheel)
    with cleanup(*(x for x in (room, hub) if x)):
        assert hub.td.get("/api/fleet") == []
        config = enrolled_table(tmp_path, hub, "8")
        # a match is assigned to table 8 before the table starts: it must not update during it
        start = int(time.time() * 1000) + 3_600_000
        rows = [{"table": "8", "player_a": "Ann", "player_b": "Bob", "length": 3, "start": start}]
        _import_schedule(hub, schedule_csv(rows))
        table = Table(tmp_path, config, "8", restart=True)
        with cleanup(table):
            row = hub.wait_device(
                "dev-8", lambda r: (r["update"] or {}).get("state") == "waiting", "update ready"
            )
            assert row["in_match"] is True and row["build"] == running_build() and row["slot"] == "factory"
            assert row["update_due"] is True
            # while the match is on, the table stays on its version (watched for 3 report periods)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                current = hub.device("dev-8")
                assert (
                    current is not None
                    and current["build"] == running_build()
                    and current["slot"] == "factory"
                )
                time.sleep(0.5)
            # the match ends (the TD forfeits it): the table updates at once
            hub.td.post("/api/tables/8/commands", {"type": "forfeit", "against": "A"})
            row = hub.wait_device(
                "dev-8", lambda r: r["build"] == build and r["slot"] == "a", "the new build running"
            )
            row = hub.wait_device(
                "dev-8", lambda r: (r["update"] or {}).get("state") == "done", "the update confirmed"
            )
            assert row["update_due"] is False and row["online"] is True
            assert table.exits == [], "the update restarted the kiosk in place, it did not exit"
            assert (
                "(updated) The device"
                in (config.parent / "slots" / "a" / "kiosk" / "fleet_agent.py").read_text()
            )


@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_a_new_build_that_does_not_start_falls_back(tmp_path: Path, broker: str):
    # imports fine (it passes the updater's check) but the kiosk stops at once when it runs
    broken = (
        "kiosk/app.py",
        '    config_path = getattr(args, "config", None)\n',
        '    raise SystemExit(3)\n    config_path = getattr(args, "config", None)\n',
    )
    wheel, build = make_wheel(tmp_path, "broken", broken)
    room, hub = start_hub(tmp_path, broker, wheel)
    with cleanup(*(x for x in (room, hub) if x)):
        config = enrolled_table(tmp_path, hub, "9")
        table = Table(tmp_path, config, "9", restart=True)
        with cleanup(table):
            row = hub.wait_device(
                "dev-9",
                lambda r: (r["update"] or {}).get("state") == "failed" and r["report_wall"],
                "the fall-back",
            )
            assert "did not start" in row["update"]["detail"]
            assert row["build"] == running_build() and row["slot"] == "factory"
            assert table.exits.count(3) == 2, table.exits  # two tries of the new build, then back
            wait_until(lambda: hub.online("9"), WAIT, "table 9 online on its old version")
            # the failed build is not tried again by itself
            state = (config.parent / "slots" / "state.json").read_text()
            assert build in state and '"active": null' in state
            starts = table.starts
            time.sleep(8)  # more than one update check (5 s)
            assert table.starts == starts
            # the TD's Update tries it once more (and it fails again the same way)
            hub.td.post("/api/fleet/dev-9/update", {})
            wait_until(lambda: table.exits.count(3) == 4, WAIT, "two more tries after Update")
            hub.wait_device(
                "dev-9", lambda r: r["slot"] == "factory" and r["online"], "back on the factory version"
            )


def _import_schedule(hub: Hub, csv: str) -> None:
    import urllib.request

    request = urllib.request.Request(hub.url + "/api/schedule", data=csv.encode(), method="POST")
    request.add_header("Content-Type", "text/csv")
    request.add_header("X-CSRF-Token", hub.td.csrf)
    with hub.td.opener.open(request, timeout=10) as response:
        assert response.status == 200
