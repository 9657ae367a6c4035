"""What the table image holds, read without booting it: the partition table, the boot partition
(firmware, kernel, initramfs, device trees, config.txt, cmdline.txt), for every supported board
(tests/image/boards.py) the kernel, initramfs and device tree its config.txt sections name and the
kernel drivers of its card, network, GPIO header, HDMI screen and touch panel,
the read-only root (units enabled, the service user, nothing that belongs to one card), and the
kiosk itself, run under qemu-aarch64 in the image's own tree.

Needs a built image (`make image`; the fixture builds one when there is none): soak.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from tests.image.boards import BOARDS, TOUCH, Board, boot_of, claimed, compatible
from tests.image.built import REPO, SECTOR, extract, image_path, mdir, mtype, need, partitions

pytestmark = pytest.mark.soak

MIB = 1024 * 1024 // SECTOR


@pytest.fixture(scope="module")
def image() -> Path:
    return image_path()


@pytest.fixture(scope="module")
def boot(image: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extract(image, partitions(image)[1][0], tmp_path_factory.mktemp("boot") / "boot.img")


@pytest.fixture(scope="module")
def root_fs(image: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extract(image, partitions(image)[1][1], tmp_path_factory.mktemp("root") / "root.img")


def run(*command: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def tree(root_fs: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The root file system mounted read-only, with /proc, /dev and a /tmp for chroot."""
    top = tmp_path_factory.mktemp("tree")
    assert run("mount", "-o", "ro,loop", str(root_fs), str(top)).returncode == 0
    try:
        run("mount", "-t", "proc", "proc", str(top / "proc"))
        run("mount", "--bind", "/dev", str(top / "dev"))
        run("mount", "-t", "tmpfs", "tmpfs", str(top / "tmp"))
        yield top
    finally:
        for sub in ("tmp", "dev", "proc", ""):
            run("umount", str(top / sub))


def in_image(
    tree: Path, *command: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A command of the image's own, arm64, run under qemu-aarch64 (binfmt_misc) in its tree."""
    need("qemu-aarch64-static")
    base = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
    return run("chroot", str(tree), *command, env={**base, **(env or {})})


# -- the partition table ----------------------------------------------------------------------


def test_an_mbr_with_the_boot_and_the_root_partition_and_nothing_after(image: Path):
    label, (boot, root, *more) = partitions(image)
    assert label == "dos"  # the Pi 3 B+ boots from MBR only
    assert more == []  # the data partition is the card's own, made on its first boot
    assert (boot.start, boot.type, boot.bootable) == (4 * MIB, "c", True)
    assert boot.size >= 256 * MIB
    assert (root.start, root.type) == (boot.start + boot.size, "83")
    assert image.stat().st_size == (root.start + root.size) * SECTOR


# -- the boot partition -----------------------------------------------------------------------


def test_the_boot_partition_is_fat32_labelled_bgboot(boot: Path):
    blkid = run("blkid", "-p", "-o", "export", str(boot)).stdout
    assert "TYPE=vfat" in blkid and "VERSION=FAT32" in blkid and "LABEL=BGBOOT" in blkid


def test_firmware_kernel_initramfs_and_device_trees_for_every_board(boot: Path):
    files = set(mdir(boot))
    # the GPU firmware of the Pi 3 B+ (bootcode.bin, start.elf) and the Pi 4 (start4.elf); the
    # Pi 5's firmware is in its EEPROM
    assert {"bootcode.bin", "start.elf", "fixup.dat", "start4.elf", "fixup4.dat"} <= files
    # both steppings of the Pi 5's BCM2712 (C1, D0)
    assert {
        "bcm2837-rpi-3-b-plus.dtb",
        "bcm2711-rpi-4-b.dtb",
        "bcm2712-rpi-5-b.dtb",
        "bcm2712-d-rpi-5-b.dtb",
    } <= files
    # Debian 13's backported kernel (trixie's own 6.12 drives neither the Pi 5's card nor RP1)
    assert any(re.fullmatch(r"vmlinuz-7\.\d+\.\d+\+deb13-arm64", f) for f in files), files
    assert any(re.fullmatch(r"initrd\.img-7\.\d+\.\d+\+deb13-arm64", f) for f in files), files
    assert {"config.txt", "cmdline.txt", "room.txt"} <= files


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_each_boards_config_sections_name_files_on_the_card(boot: Path, board: Board, tmp_path: Path):
    """config.txt -> kernel, initramfs and device tree, as that board's firmware reads it; the
    device tree is the one of that board."""
    config = mtype(boot, "config.txt")
    files = mdir(boot)
    loads = boot_of(config, board)
    assert loads.settings["arm_64bit"] == "1" and loads.settings["upstream_kernel"] == "1"
    assert loads.kernel in files
    assert loads.initramfs in files
    assert loads.device_tree in files
    # the kernel and the initramfs are of one version
    assert loads.kernel and loads.initramfs
    assert loads.kernel.removeprefix("vmlinuz-") == loads.initramfs.removeprefix("initrd.img-")
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    dtb = tmp_path / "board.dtb"
    subprocess.run(
        ["mcopy", "-n", "-i", str(boot), f"::/{loads.device_tree}", str(dtb)], check=True, env=env, timeout=60
    )
    assert compatible(dtb.read_bytes())[0] == board.compatible


def modules(tree: Path) -> tuple[set[str], set[str]]:
    """The kernel's loadable modules and its built-in drivers, by module name ('-' as '_')."""
    (top,) = (tree / "usr/lib/modules").iterdir()

    def names(listing: str) -> set[str]:
        found = set()
        for line in listing.splitlines():
            path = line.split(":", 1)[0].strip()
            if path:
                found.add(re.sub(r"\.ko(\.(xz|zst|gz))?$", "", path.rsplit("/", 1)[-1]).replace("-", "_"))
        return found

    return names((top / "modules.dep").read_text()), names((top / "modules.builtin").read_text())


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_each_boards_drivers_are_in_the_kernel(tree: Path, board: Board):
    loadable, builtin = modules(tree)
    for job, wanted in (
        ("storage", board.storage),
        ("network", board.network),
        ("gpio", board.gpio),
        ("hdmi", board.hdmi),
        ("touch", TOUCH),
    ):
        missing = [name for name in wanted if name not in loadable | builtin]
        assert missing == [], (board.name, job, missing)


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_each_boards_device_tree_parts_have_their_driver(
    tree: Path, boot: Path, board: Board, tmp_path: Path
):
    """The card's controller, the network, USB, the GPIO header and the display controller named
    in the board's own device tree are claimed by the kernel's driver for them (its alias)."""
    loads = boot_of(mtype(boot, "config.txt"), board)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    dtb = tmp_path / "board.dtb"
    subprocess.run(
        ["mcopy", "-n", "-i", str(boot), f"::/{loads.device_tree}", str(dtb)], check=True, env=env, timeout=60
    )
    blob = dtb.read_bytes()
    (top,) = (tree / "usr/lib/modules").iterdir()
    aliases = (top / "modules.alias").read_text()
    builtin = (top / "modules.builtin.modinfo").read_bytes()
    assert board.claims
    for name, module in board.claims:
        assert b"\0" + name.encode() + b"\0" in blob or blob.find(name.encode() + b"\0") >= 0, (
            board.name,
            name,
        )
        assert module in claimed(aliases, builtin, name), (board.name, name, module)


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_each_boards_card_driver_is_in_the_initramfs(tree: Path, boot: Path, board: Board):
    """The root is on the card: the initramfs must be able to read it on every board."""
    loadable, _ = modules(tree)
    initrd = next(name for name in mdir(boot) if name.startswith("initrd.img-"))
    target = tree / "tmp" / initrd
    if not target.exists():
        env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
        subprocess.run(
            ["mcopy", "-n", "-i", str(boot), f"::/{initrd}", str(target)], check=True, env=env, timeout=120
        )
    listing = in_image(tree, "lsinitramfs", f"/tmp/{initrd}").stdout.splitlines()
    inside = {
        re.sub(r"\.ko(\.(xz|zst|gz))?$", "", line.rsplit("/", 1)[-1]).replace("-", "_")
        for line in listing
        if re.search(r"\.ko(\.(xz|zst|gz))?$", line)
    }
    for name in board.storage:
        if name in loadable:
            assert name in inside, (board.name, name)


def test_config_txt_boots_the_kernel_and_initramfs_that_are_there(boot: Path):
    config = mtype(boot, "config.txt")
    settings = dict(
        line.split("=", 1)
        for line in config.splitlines()
        if line and not line.startswith("#") and "=" in line
    )
    assert settings["arm_64bit"] == "1"
    assert settings["upstream_kernel"] == "1"
    files = mdir(boot)
    assert settings["kernel"] in files
    initramfs = re.search(r"^initramfs (\S+) followkernel$", config, re.M)
    assert initramfs and initramfs[1] in files


def test_cmdline_mounts_the_root_read_only_by_its_label(boot: Path):
    cmdline = mtype(boot, "cmdline.txt")
    assert cmdline.count("\n") == 1  # the firmware reads one line
    words = cmdline.split()
    assert "root=LABEL=BGROOT" in words and "ro" in words and "rw" not in words
    assert "rootwait" in words


def test_room_txt_is_a_template_that_sets_nothing(boot: Path):
    text = mtype(boot, "room.txt")
    lines = [line for line in text.splitlines() if line.strip()]
    assert all(line.startswith("#") for line in lines)
    assert "#hub = " in text and "#wifi_ssid = " in text
    assert not any(name.lower() == "authorized_keys" for name in mdir(boot))


# -- the root file system ---------------------------------------------------------------------


def test_the_root_is_ext4_labelled_bgroot_without_a_journal(root_fs: Path):
    header = run("dumpe2fs", "-h", str(root_fs)).stdout
    assert re.search(r"^Filesystem volume name:\s+BGROOT$", header, re.M)
    features = re.search(r"^Filesystem features:\s+(.*)$", header, re.M)
    assert features and "has_journal" not in features[1].split()


def test_the_release_keys_directory_is_where_the_tables_look(tree: Path):
    """Updates need a release key's signature; the keys the image trusts are its own."""
    from kiosk.config import FleetConfig

    keys = tree / FleetConfig().release_keys.lstrip("/")
    assert (keys / "README").is_file()
    assert not list(keys.glob("*.key")), "a release key's private half is on the image"


def test_nothing_of_one_card_is_inside(tree: Path):
    assert (tree / "etc/machine-id").read_text() == ""
    assert list((tree / "etc/ssh").glob("ssh_host_*")) == []
    assert not (tree / "etc/bgtable").exists()
    assert list((tree / "var/lib/bgtable").iterdir()) == []
    assert list((tree / "data").iterdir()) == []
    assert list((tree / "var/log/journal").iterdir()) == []
    assert not (tree / "var/lib/systemd/random-seed").exists()
    # the root's own files only (-xdev: not /proc, /dev or /tmp mounted for chroot)
    found = run("find", str(tree), "-xdev", "-name", "table.toml").stdout
    assert found == ""


def test_the_root_is_mounted_read_only_and_the_data_partition_bound_into_place(tree: Path):
    fstab = [
        line.split() for line in (tree / "etc/fstab").read_text().splitlines() if line[:1] not in ("", "#")
    ]
    by_target = {fields[1]: fields for fields in fstab}
    assert by_target["/"][0] == "LABEL=BGROOT" and "ro" in by_target["/"][3].split(",")
    assert by_target["/data"][0] == "LABEL=BGDATA"
    # what is written lives on the data partition: the kiosk's state, the logs, systemd's state
    for source, target in (
        ("/data/bgtable", "/var/lib/bgtable"),
        ("/data/var/log", "/var/log"),
        ("/data/var/lib/systemd", "/var/lib/systemd"),
    ):
        assert by_target[target][:3] == [source, target, "none"]
        assert "bind" in by_target[target][3].split(",")
    # D-Bus's machine-id is the card's own (/etc/machine-id, bound by the initramfs)
    assert os.readlink(tree / "var/lib/dbus/machine-id") == "/etc/machine-id"


def test_the_units_are_enabled(tree: Path):
    for unit in (
        "bgtable.service",
        "bgtable-data-partition.service",
        "bgtable-card-identity.service",
        "bgtable-room.service",
        "bgtable-room.path",
        "ssh.service",
        "chrony.service",
        "systemd-networkd.service",
        "systemd-resolved.service",
    ):
        state = run("systemctl", f"--root={tree}", "is-enabled", unit).stdout.strip()
        assert state == "enabled", (unit, state)
    # nothing waits for the network; nothing tries to change the read-only root
    for unit in (
        "systemd-networkd-wait-online.service",
        "apt-daily.timer",
        "apt-daily-upgrade.timer",
        "dpkg-db-backup.timer",
    ):
        masked = run("systemctl", f"--root={tree}", "is-enabled", unit)
        assert masked.stdout.strip() == "masked", unit
    wifi = (
        tree / "etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service"
    )
    assert wifi.is_symlink()


def test_the_kiosk_runs_from_the_data_partition_as_its_own_user(tree: Path):
    drop_in = (tree / "etc/systemd/system/bgtable.service.d/image.conf").read_text()
    assert "--config /var/lib/bgtable/table.toml" in drop_in
    assert "SDL_FRAMEBUFFER_ACCELERATION=opengles2" in drop_in
    passwd = {line.split(":")[0]: line.split(":") for line in (tree / "etc/passwd").read_text().splitlines()}
    assert passwd["bgtable"][5] == "/var/lib/bgtable" and passwd["bgtable"][6] == "/usr/sbin/nologin"
    groups = {
        line.split(":")[0]: line.split(":")[3].split(",")
        for line in (tree / "etc/group").read_text().splitlines()
    }
    for group in ("video", "render", "input", "gpio", "dialout"):
        assert "bgtable" in groups[group], group


def test_the_units_pass_systemd_analyze_verify(tree: Path):
    units = [
        "bgtable.service",
        "bgtable-data-partition.service",
        "bgtable-card-identity.service",
        "bgtable-room.service",
        "bgtable-room.path",
    ]
    done = in_image(
        tree, "systemd-analyze", "verify", "--man=no", *(f"/etc/systemd/system/{u}" for u in units)
    )
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if "bgtable" in line]
    assert complaints == [], complaints


def test_the_initramfs_carries_the_machine_id_script(tree: Path, boot: Path, tmp_path: Path):
    initrd = next(name for name in mdir(boot) if name.startswith("initrd.img-"))
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    target = tree / "tmp" / initrd
    subprocess.run(
        ["mcopy", "-n", "-i", str(boot), f"::/{initrd}", str(target)], check=True, env=env, timeout=120
    )
    listing = in_image(tree, "lsinitramfs", f"/tmp/{initrd}").stdout.splitlines()
    assert "scripts/local-bottom/bgtable-machine-id" in listing
    order = [line for line in listing if line.endswith("scripts/local-bottom/ORDER")]
    assert order
    # the modules that find the root on qemu's virt machine (the boards': above)
    for module in ("virtio_blk.ko",):
        assert any(line.endswith(module) or line.endswith(module + ".xz") for line in listing), module


def test_chrony_reads_its_configuration(tree: Path):
    done = in_image(tree, "chronyd", "-p", "-f", "/etc/chrony/chrony.conf")
    assert done.returncode == 0, done.stderr
    assert "sourcedir /run/bgtable-room" in done.stdout


def test_the_software_in_the_image_is_this_trees(tree: Path):
    # the same build id as the hub computes for the software it serves (drivers/build_id.py): a
    # table made from this image does not update itself from a hub running this tree
    from drivers.build_id import PACKAGES, digest, running_build

    site = tree / "opt/bgtable/venv/lib/python3.13/site-packages"
    files = [
        (path.relative_to(site).as_posix(), path.read_bytes())
        for package in PACKAGES
        for path in sorted((site / package).rglob("*"))
        if path.is_file()
    ]
    assert {name.split("/")[0] for name, _ in files} == set(PACKAGES)
    assert digest(files) == running_build(), "the image was built from another tree: make image"


def test_the_kiosk_is_installed_and_draws_a_frame_under_qemu(tree: Path, tmp_path: Path):
    done = in_image(
        tree,
        "/opt/bgtable/venv/bin/python",
        "-c",
        "import kiosk.app, drivers.buttons, pygame, gpiozero, lgpio, serial, paho.mqtt, aiohttp; print('ok')",
    )
    assert done.stdout.strip() == "ok", done.stderr
    journal = REPO / "tests/golden/g01-wbgf7-clock-crawford-by-gammon.jsonl"
    (tree / "tmp/match.jsonl").write_bytes(journal.read_bytes())
    env = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    shot = in_image(
        tree,
        "/opt/bgtable/venv/bin/bgtable",
        "screenshot",
        "--journal",
        "/tmp/match.jsonl",
        "--size",
        "800x480",
        "--out",
        "/tmp/frame.png",
        env=env,
    )
    assert shot.returncode == 0, shot.stderr
    frame = pygame.image.load(str(tree / "tmp/frame.png"))
    assert frame.get_size() == (800, 480)
    colours = {frame.get_at((x, y))[:3] for x in range(0, 800, 20) for y in range(0, 480, 20)}
    assert len(colours) > 5  # a drawn scoreboard, not an empty screen
    # the same frame as this machine's kiosk draws from the same journal
    here = tmp_path / "here.png"
    run(
        str(Path(sys.executable).with_name("bgtable")),
        "screenshot",
        "--journal",
        str(journal),
        "--size",
        "800x480",
        "--out",
        str(here),
        env={**os.environ, **env},
        check=True,
    )
    mine = pygame.image.load(str(here))
    same = sum(
        frame.get_at((x, y)) == mine.get_at((x, y)) for x in range(0, 800, 4) for y in range(0, 480, 4)
    )
    assert same / (200 * 120) > 0.99
