"""Software updates end to end: a table takes the hub's released build between matches, never
runs it during one, and goes back to the version it had when the new one does not start.

The "new" builds are wheels of a copy of this source tree with one file changed (so their build
ids differ from the running one), made by the hub's own wheel builder, signed with a release key
made by ``bghub release-key`` (``bghub sign-release``), and served by a real ``bghub --software``.
The table trusts that key's public half (``fleet.release_keys``, as the image's). The table is a
real ``bgtable run`` process; the test plays systemd's part (``Restart=always``): when the kiosk
exits, it is started again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.build_id import PACKAGES, running_build
from tests.faults.support import schedule_csv
from tests.fleet.support import BIN, ENV, WAIT, Enroll, Hub, Room, Table, cleanup, wait_until
from tests.support.patience import patience

ROOT = Path(__file__).resolve().parents[2]
EVENT = "fleet-update"
BUILD_SCRIPT = (
    "import sys; from pathlib import Path; from hub.fleet.software import build_wheel; "
    "path, version, build = build_wheel(Path(sys.argv[1])); print(path); print(build)"
)


def make_wheel(tmp: Path, name: str, *patches: tuple[str, str, str]) -> tuple[Path, str]:
    """A wheel of this tree with each patch = (file, old text, new text) applied; (path, build)."""
    src = tmp / f"src-{name}"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    for path, old, new in patches:
        text = (src / path).read_text()
        assert old in text
        (src / path).write_text(text.replace(old, new, 1))
    out = subprocess.run(
        [sys.executable, "-c", BUILD_SCRIPT, str(tmp / f"wheel-{name}")],
        capture_output=True,
        text=True,
        timeout=patience(120),
        cwd=src,
        env={**ENV, "PYTHONPATH": str(src)},
        check=True,
    ).stdout.split()
    return Path(out[0]), out[1]


def bghub(*args: str) -> str:
    proc = subprocess.run(
        [str(BIN / "bghub"), *args], capture_output=True, text=True, timeout=patience(60), env=ENV
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def release_key(tmp: Path, name: str = "release") -> tuple[Path, Path]:
    """``bghub release-key``: (private key file, a directory holding only the public half, as
    the image's ``/usr/share/bgtable/release-keys``)."""
    out = tmp / f"keys-{name}"
    assert "fingerprint" in bghub("release-key", "--out", str(out))
    trusted = tmp / f"trusted-{name}"
    trusted.mkdir()
    shutil.copy(out / "release.pub", trusted / "release.pub")
    return out / "release.key", trusted


def sign_release(wheel: Path, key: Path) -> None:
    assert "signed with release key" in bghub("sign-release", str(wheel), "--key", str(key))


def ran_marker(mark: Path) -> tuple[str, str, str]:
    """A patch that makes the new build leave ``mark`` whenever its code runs (its check too)."""
    return (
        "kiosk/fleet_agent.py",
        'log = logging.getLogger("kiosk.fleet")\n',
        f'log = logging.getLogger("kiosk.fleet")\nopen({str(mark)!r}, "a").write("ran\\n")\n',
    )


def enrolled_table(tmp: Path, hub: Hub, table: str, trusted: Path | None = None) -> Path:
    state = tmp / f"state-{table}"
    proc = Enroll(tmp, hub.url, state, f"dev-{table}")
    code = proc.code()
    hub.td.post(f"/api/fleet/dev-{table}/enroll", {"table": table, "code": code})
    assert proc.wait() == 0
    config = state / "table.toml"
    # report and look for updates often, as a test needs; the release keys the table trusts
    text = config.read_text() + "report_s = 5\nupdate_check_s = 5\n"
    if trusted is not None:
        text += f"release_keys = {json.dumps(str(trusted))}\n"
    config.write_text(text)
    return config


def start_hub(tmp: Path, broker: str, wheel: Path, *extra: str) -> tuple[Room | None, Hub]:
    room = Room(tmp, EVENT) if broker == "mosquitto" else None
    hub = Hub(
        tmp,
        EVENT,
        room=room.out if room else None,
        broker_port=room.port if room else None,
        extra=["--software", str(wheel), *extra],
    )
    return room, hub


@pytest.mark.long
@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_update_waits_for_the_match_to_end_then_runs_the_new_build(tmp_path: Path, broker: str):
    mark = tmp_path / "new-code-ran"
    wheel, build = make_wheel(
        tmp_path,
        "new",
        ("kiosk/fleet_agent.py", '"""The device', '"""(updated) The device'),
        ran_marker(mark),
    )
    assert build != running_build()
    key, trusted = release_key(tmp_path)
    sign_release(wheel, key)
    room, hub = start_hub(tmp_path, broker, wheel)
    with cleanup(*(x for x in (room, hub) if x)):
        assert hub.td.get("/api/fleet") == []
        config = enrolled_table(tmp_path, hub, "8", trusted)
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
            # while the match is on, the table stays on its version (watched for 3 report periods),
            # and the new code does not run at all, not even its check
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                current = hub.device("dev-8")
                assert (
                    current is not None
                    and current["build"] == running_build()
                    and current["slot"] == "factory"
                )
                assert not mark.exists(), "the new build's code ran during the match"
                time.sleep(0.5)
            assert (config.parent / "slots" / "a" / "kiosk").is_dir(), "downloaded and unpacked"
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
            assert mark.exists()


@pytest.mark.long
@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_a_new_build_that_does_not_start_falls_back(tmp_path: Path, broker: str):
    # imports fine (it passes the updater's check) but the kiosk stops at once when it runs
    broken = (
        "kiosk/app.py",
        '    config_path = getattr(args, "config", None)\n',
        '    raise SystemExit(3)\n    config_path = getattr(args, "config", None)\n',
    )
    wheel, build = make_wheel(tmp_path, "broken", broken)
    key, trusted = release_key(tmp_path)
    sign_release(wheel, key)
    room, hub = start_hub(tmp_path, broker, wheel)
    with cleanup(*(x for x in (room, hub) if x)):
        config = enrolled_table(tmp_path, hub, "9", trusted)
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
    with hub.td.opener.open(request, timeout=patience(10)) as response:
        assert response.status == 200


@pytest.mark.parametrize("signature", ["none", "another key"])
def test_a_wheel_no_trusted_release_key_signed_is_never_unpacked(tmp_path: Path, signature: str):
    """A hub (a rogue one, or the real one given a tampered wheel) serves a build nobody released:
    the table refuses it before unpacking anything, and none of its code runs."""
    mark = tmp_path / "rogue-code-ran"
    wheel, _ = make_wheel(tmp_path, "rogue", ran_marker(mark))
    _, trusted = release_key(tmp_path)
    if signature == "another key":
        rogue_key, _ = release_key(tmp_path, "rogue")
        sign_release(wheel, rogue_key)
    room, hub = start_hub(tmp_path, "embedded", wheel)
    with cleanup(*(x for x in (room, hub) if x)):
        config = enrolled_table(tmp_path, hub, "3", trusted)
        table = Table(tmp_path, config, "3", restart=True)
        with cleanup(table):
            why = "not a signed release" if signature == "none" else "not a trusted one"
            row = hub.wait_device(
                "dev-3",
                lambda r: (r["update"] or {}).get("state") == "failed" and why in r["update"]["detail"],
                "the update refused",
            )
            assert row["build"] == running_build() and row["slot"] == "factory"
            # the TD's Update does not force it either
            hub.td.post("/api/fleet/dev-3/update", {})
            table.out.wait_for("fleet: update")
            hub.wait_device("dev-3", lambda r: why in (r["update"] or {}).get("detail", ""), "refused again")
            assert (
                not (config.parent / "slots" / "a").exists() and not (config.parent / "slots" / "b").exists()
            )
            assert not mark.exists()
            assert table.exits == []


def test_a_relay_cannot_change_the_manifest(tmp_path: Path):
    """The manifest is signed with the hub's key for each request: a relay at the hub's address
    that points the table at another wheel (or hash) is refused, and nothing is downloaded."""
    from tests.fleet.relay import HttpRelay
    from tests.support.broker import free_port

    wheel, _ = make_wheel(tmp_path, "new", ("kiosk/fleet_agent.py", '"""The device', '"""(x) The device'))
    key, trusted = release_key(tmp_path)
    sign_release(wheel, key)
    hub_port = free_port()
    relay = HttpRelay(f"http://127.0.0.1:{hub_port}").start()
    broker_port = free_port()
    public = ["--public-url", relay.url, "--public-broker", f"127.0.0.1:{broker_port}"]
    hub = Hub(
        tmp_path, EVENT, port=hub_port, broker_port=broker_port, extra=["--software", str(wheel), *public]
    )
    relay.tamper = lambda path, answer: (
        {**answer, "url": "/device/v1/software/other.whl"} if path == "/device/v1/software" else None
    )
    with cleanup(hub, relay):
        config = enrolled_table(tmp_path, hub, "2", trusted)
        table = Table(tmp_path, config, "2", restart=True)
        with cleanup(table):
            row = hub.wait_device(
                "dev-2",
                lambda r: "signature does not match" in ((r["update"] or {}).get("detail") or ""),
                "the changed manifest refused",
            )
            assert row["build"] == running_build()
            assert relay.tampered, "the table did not ask through the relay"
            assert not [p for p, _, _ in relay.seen if p.startswith("/device/v1/software/")]
            assert not (config.parent / "slots" / "a").exists()
