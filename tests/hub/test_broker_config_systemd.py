"""The room's systemd units, sysusers files and udev rule say what the deployment relies on.

The kiosk must restart when its screen freezes (notify + watchdog), never wait for a network
that may not exist, and reach the screen, touch, GPIO and serial devices as an ordinary user.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.patience import patience

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"


def parse_unit(path: Path) -> dict[str, list[tuple[str, str]]]:
    """A unit file as {section: [(key, value), ...]}: repeated keys kept, comments dropped."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    pending = ""
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = pending + raw.strip()
        if line.endswith("\\") and not line.startswith(("#", ";")):
            pending = line[:-1].rstrip() + " "
            continue
        pending = ""
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        assert current is not None, f"{path.name}:{number}: key outside a section"
        assert "=" in line, f"{path.name}:{number}: not KEY=value: {raw!r}"
        key, value = line.split("=", 1)
        current.append((key.strip(), value.strip()))
    return sections


def values(unit: dict[str, list[tuple[str, str]]], section: str, key: str) -> list[str]:
    return [v for k, v in unit.get(section, []) if k == key]


def one(unit: dict[str, list[tuple[str, str]]], section: str, key: str) -> str:
    found = values(unit, section, key)
    assert len(found) == 1, f"[{section}] {key}: expected one value, got {found}"
    return found[0]


@pytest.fixture(scope="module")
def kiosk() -> dict[str, list[tuple[str, str]]]:
    return parse_unit(SYSTEMD / "bgtable.service")


@pytest.fixture(scope="module")
def hub() -> dict[str, list[tuple[str, str]]]:
    return parse_unit(SYSTEMD / "bghub.service")


def test_kiosk_is_a_watched_notify_service_that_always_restarts(kiosk):
    assert one(kiosk, "Service", "Type") == "notify"
    assert one(kiosk, "Service", "NotifyAccess") == "main"
    assert one(kiosk, "Service", "WatchdogSec") == "10"
    assert one(kiosk, "Service", "Restart") == "always"
    assert one(kiosk, "Service", "RestartSec") == "1"
    assert one(kiosk, "Unit", "StartLimitIntervalSec") == "0"
    assert one(kiosk, "Install", "WantedBy") == "multi-user.target"


def test_kiosk_does_not_wait_for_the_network(kiosk):
    ordering = " ".join(
        v
        for key in ("After", "Wants", "Requires", "BindsTo", "Requisite")
        for v in values(kiosk, "Unit", key)
    )
    assert "network" not in ordering
    assert "mosquitto" not in ordering


def test_kiosk_runs_as_its_own_user_with_device_groups(kiosk):
    assert one(kiosk, "Service", "User") == "bgtable"
    groups = set(one(kiosk, "Service", "SupplementaryGroups").split())
    assert groups == {"video", "render", "input", "gpio", "dialout"}
    env = dict(v.split("=", 1) for v in values(kiosk, "Service", "Environment"))
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert one(kiosk, "Service", "ExecStart") == (
        "/opt/bgtable/venv/bin/bgtable run --fullscreen --config /etc/bgtable/table.toml"
    )


def test_kiosk_keeps_its_journal_on_the_data_partition(kiosk):
    assert one(kiosk, "Service", "StateDirectory") == "bgtable"
    assert one(kiosk, "Unit", "RequiresMountsFor") == "/var/lib/bgtable"
    env = dict(v.split("=", 1) for v in values(kiosk, "Service", "Environment"))
    assert env["XDG_DATA_HOME"] + "/bgtable" == "/var/lib/bgtable"


def test_kiosk_hardening_leaves_the_devices_reachable(kiosk):
    service = dict(kiosk["Service"])
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    # Any of these would hide /dev/dri, /dev/input, /dev/gpiochip* or the serial port.
    for key in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert key not in service, key
    assert "AF_UNIX" in service["RestrictAddressFamilies"].split()  # sd_notify
    assert "AF_NETLINK" in service["RestrictAddressFamilies"].split()  # udev hot-plug


def test_hub_waits_for_the_network_and_restarts_on_failure(hub):
    assert "network-online.target" in one(hub, "Unit", "After").split()
    assert "network-online.target" in one(hub, "Unit", "Wants").split()
    assert one(hub, "Service", "Restart") == "on-failure"
    assert one(hub, "Service", "User") == "bghub"
    assert one(hub, "Service", "StateDirectory") == "bghub"
    assert one(hub, "Service", "EnvironmentFile") == "/etc/bgtable/bghub.env"


def expand(command: str, env: dict[str, str]) -> list[str]:
    """systemd's expansion: ``${VAR}`` is one word, ``$VAR`` is split on whitespace."""
    words = []
    for word in shlex.split(command):
        whole = re.fullmatch(r"\$\{(\w+)\}", word)
        split = re.fullmatch(r"\$(\w+)", word)
        if whole:
            words.append(env[whole[1]])
        elif split:
            words.extend(env.get(split[1], "").split())
        else:
            words.append(word)
    return words


def test_hub_command_line_is_accepted_by_bghub(hub):
    from hub.cli import build_parser

    env_lines = (SYSTEMD / "bghub.env").read_text().splitlines()
    env = dict(line.split("=", 1) for line in env_lines if line and not line.startswith("#"))
    argv = expand(one(hub, "Service", "ExecStart"), env)
    assert argv[0] == "/opt/bgtable/venv/bin/bghub"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run"
    assert args.event == env["BGHUB_EVENT"]
    assert args.broker == ("127.0.0.1", 1883)
    assert args.broker_credentials == "/etc/bgtable/hub.toml"
    assert args.db.startswith("/var/lib/bghub/")
    assert args.http == ("0.0.0.0", 8080)


def test_kiosk_command_line_is_accepted_by_bgtable(kiosk):
    from kiosk.cli import build_parser

    argv = shlex.split(one(kiosk, "Service", "ExecStart"))
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.fullscreen, args.config) == ("run", True, "/etc/bgtable/table.toml")


def test_mosquitto_drop_in_points_at_the_generated_config():
    drop_in = parse_unit(SYSTEMD / "mosquitto.service.d" / "bgtable.conf")
    assert values(drop_in, "Service", "ExecStart") == [
        "",
        "/usr/sbin/mosquitto -c /etc/bgtable/broker/mosquitto.conf",
    ]


def test_sysusers_create_the_service_users_with_their_groups():
    kiosk = (SYSTEMD / "bgtable.sysusers").read_text().splitlines()
    rules = [line.split() for line in kiosk if line and not line.startswith("#")]
    assert rules[0][:2] == ["u", "bgtable"]
    assert {r[2] for r in rules if r[0] == "m" and r[1] == "bgtable"} == {
        "video",
        "render",
        "input",
        "gpio",
        "dialout",
    }
    hub = [line for line in (SYSTEMD / "bghub.sysusers").read_text().splitlines() if line[:1] == "u"]
    assert hub and hub[0].split()[:2] == ["u", "bghub"]


UDEV_PAIR = re.compile(r'(?P<key>[A-Z_]+(?:\{[^}]+\})?)\s*(?P<op>==|!=|\+=|:=|=)\s*"(?P<value>[^"]*)"')


def udev_rules(text: str) -> list[list[tuple[str, str, str]]]:
    rules = []
    for line in text.splitlines():
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        pairs = [m.groups() for m in UDEV_PAIR.finditer(body)]
        leftover = UDEV_PAIR.sub("", body).replace(",", "").strip()
        assert not leftover, f"unparsed udev text {leftover!r} in {line!r}"
        rules.append(pairs)
    return rules


def test_udev_rule_names_the_tower_dev_dice_for_dialout():
    text = (SYSTEMD / "99-dice-tower.rules").read_text()
    active = udev_rules(text)
    assert len(active) == 1, "exactly one active rule"
    rule = {(k, op): v for k, op, v in active[0]}
    assert rule[("SUBSYSTEM", "==")] == "tty"
    assert re.fullmatch(r"[0-9a-f]{4}", rule[("ATTRS{idVendor}", "==")])
    assert re.fullmatch(r"[0-9a-f]{4}", rule[("ATTRS{idProduct}", "==")])
    assert rule[("SYMLINK", "+=")] == "dice"
    assert rule[("GROUP", "=")] == "dialout"
    assert rule[("MODE", "=")] == "0660"
    # The commented alternatives are valid rules too once uncommented.
    alternatives = [line[1:] for line in text.splitlines() if line.startswith("#SUBSYSTEM")]
    assert len(alternatives) >= 3
    for rule_pairs in udev_rules("\n".join(alternatives)):
        assert ("SYMLINK", "+=", "dice") in rule_pairs
    assert "udevadm info" in text


def test_units_pass_systemd_analyze_verify(tmp_path: Path):
    """systemd's own checker: unknown keys or bad values in the units show up as messages."""
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze (package systemd) is needed to check the units"
    bindir = Path(sys.executable).parent
    for name in ("bgtable.service", "bghub.service"):
        text = (SYSTEMD / name).read_text().replace("/opt/bgtable/venv/bin/", f"{bindir}/")
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [analyze, "verify", "--man=no", "./bgtable.service", "./bghub.service"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=patience(120),
    )
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if ".service" in line]
    assert complaints == []


def test_the_services_may_open_a_file_per_connection_of_a_championship_room():
    """Mosquitto holds one file per connection and the hub (with the embedded broker) too:
    systemd's default soft limit of 1,024 would stop a room of a thousand tables connecting."""
    from hub.broker.mosquitto import room_limits

    needed = room_limits(5_000).max_connections + 64  # the listeners, the files, the logs
    drop_in = parse_unit(SYSTEMD / "mosquitto.service.d" / "bgtable.conf")
    hub = parse_unit(SYSTEMD / "bghub.service")
    for unit in (drop_in, hub):
        assert int(one(unit, "Service", "LimitNOFILE")) >= needed
