"""The image's units and files say in which order a card's first boot happens, and systemd accepts them.

Data partition before /data is mounted; the card's identity before the bind mounts, sshd, chrony
and the kiosk; the room's settings before chrony and Wi-Fi; the kiosk's configuration on the data
partition.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.hub.test_broker_config_systemd import one, parse_unit, values

REPO = Path(__file__).resolve().parents[2]
SYSTEMD = REPO / "systemd"
ROOTFS = REPO / "image/rootfs"
SCRIPTS = ROOTFS / "usr/lib/bgtable-image"


def words(unit: dict[str, list[tuple[str, str]]], section: str, key: str) -> set[str]:
    return {word for value in values(unit, section, key) for word in value.split()}


def test_the_data_partition_is_made_before_data_is_mounted():
    unit = parse_unit(SYSTEMD / "bgtable-data-partition.service")
    assert one(unit, "Unit", "DefaultDependencies") == "no"
    assert {"local-fs-pre.target", "data.mount"} <= words(unit, "Unit", "Before")
    assert one(unit, "Service", "ExecStart") == "/usr/lib/bgtable-image/data-partition"
    assert one(unit, "Install", "WantedBy") == "local-fs.target"


def test_the_card_identity_comes_after_data_and_before_what_uses_it():
    unit = parse_unit(SYSTEMD / "bgtable-card-identity.service")
    assert one(unit, "Unit", "RequiresMountsFor") == "/data"
    assert one(unit, "Unit", "ConditionPathIsMountPoint") == "/data"
    before = words(unit, "Unit", "Before")
    assert {"ssh.service", "chrony.service", "bgtable.service"} <= before
    # every bind mount of the data partition (fstab) waits for the directories it makes
    binds = [
        line.split()[1]
        for line in (ROOTFS / "etc/fstab").read_text().splitlines()
        if line.startswith("/data/") and "bind" in line.split()[3].split(",")
    ]
    assert binds == ["/var/lib/bgtable", "/var/log", "/var/lib/systemd"]
    assert {b.strip("/").replace("/", "-") + ".mount" for b in binds} <= before
    commands = values(unit, "Service", "ExecStart")
    assert commands[0] == "/usr/lib/bgtable-image/card-identity /data"
    assert "--prefix=/data" in commands[1] and commands[1].endswith("bgtable-data.conf")
    # the image's own /var/lib/systemd (the journal's catalog) is copied once, never over the card's
    assert commands[2] == "/bin/cp -a --no-clobber /var/lib/systemd/. /data/var/lib/systemd/"


def test_the_room_settings_come_before_chrony_and_wifi_and_follow_the_configuration():
    service = parse_unit(SYSTEMD / "bgtable-room.service")
    assert {"chrony.service", "wpa_supplicant@wlan0.service"} <= words(service, "Unit", "Before")
    assert one(service, "Service", "Type") == "oneshot"
    # it must end after each run, or the path unit could not start it again
    assert values(service, "Service", "RemainAfterExit") in ([], ["no"])
    path = parse_unit(SYSTEMD / "bgtable-room.path")
    assert one(path, "Path", "PathChanged") == "/var/lib/bgtable/table.toml"
    assert one(path, "Path", "Unit") == "bgtable-room.service"


def test_the_kiosk_reads_its_configuration_from_the_data_partition():
    drop_in = parse_unit(ROOTFS / "etc/systemd/system/bgtable.service.d/image.conf")
    assert values(drop_in, "Service", "Environment") == ["SDL_FRAMEBUFFER_ACCELERATION=opengles2"]
    assert values(drop_in, "Service", "ExecStart") == [
        "",
        "/opt/bgtable/venv/bin/bgtable run --fullscreen --config /var/lib/bgtable/table.toml",
    ]
    fstab = [
        line.split() for line in (ROOTFS / "etc/fstab").read_text().splitlines() if line[:1] not in ("", "#")
    ]
    binds = {fields[1]: fields for fields in fstab if "bind" in fields[3].split(",")}
    assert binds["/var/lib/bgtable"][0] == "/data/bgtable"
    assert "x-systemd.requires=bgtable-card-identity.service" in binds["/var/lib/bgtable"][3].split(",")
    root = next(fields for fields in fstab if fields[1] == "/")
    assert "ro" in root[3].split(",")


def test_wifi_starts_only_with_a_network_from_room_txt():
    drop_in = parse_unit(ROOTFS / "etc/systemd/system/wpa_supplicant@wlan0.service.d/room.conf")
    assert one(drop_in, "Unit", "ConditionPathExists") == "/run/bgtable-room/wpa_supplicant-wlan0.conf"


def test_the_tables_follow_the_hub_and_the_hub_serves_the_room():
    table = (ROOTFS / "etc/chrony/chrony.conf").read_text().splitlines()
    directives = [line.split() for line in table if line and not line.startswith("#")]
    assert ["sourcedir", "/run/bgtable-room"] in directives
    assert not any(d[0] in ("server", "pool", "peer") for d in directives)  # the hub only
    assert ["makestep", "1", "-1"] in directives
    hub = [
        line.split()
        for line in (SYSTEMD / "chrony-hub.conf").read_text().splitlines()
        if line[:1] not in ("", "#")
    ]
    assert ["allow", "192.168.0.0/16"] in hub and ["allow", "10.0.0.0/8"] in hub
    assert ["local", "stratum", "10"] in hub


def test_the_new_units_pass_systemd_analyze_verify(tmp_path: Path):
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze (package systemd) is needed to check the units"
    names = [
        "bgtable-data-partition.service",
        "bgtable-card-identity.service",
        "bgtable-room.service",
        "bgtable-room.path",
    ]
    for name in names:
        # the scripts where they are in this tree, instead of where the image installs them
        text = (SYSTEMD / name).read_text().replace("/usr/lib/bgtable-image/", f"{SCRIPTS}/")
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [analyze, "verify", "--man=no", *(f"./{name}" for name in names)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if "bgtable-" in line]
    assert complaints == []
