"""The table image boots and sets itself up from the hub: in qemu-system-aarch64 (`-M virt`, the
image's own kernel and initramfs, the card as a virtio disk, a virtio GPU as the screen, a network
card that reaches only a real `bghub` on this machine), twice, as a card does in a Pi.

The card is written as an organiser writes it: the image, and `room.txt` on its boot partition
with the hub's address. First boot: the card makes its data partition at the end of the card,
keeps the machine-id systemd made and makes its SSH host keys there; no unit fails; the kiosk's
first frame is "Table not set up — code NNNN" with the code the hub's Tables page lists; the TD
enrolls it as table 7 through the hub's API, and the table starts as table 7 and comes online
with its own credential; the root and boot partitions are never written. Second boot: the same
machine-id and host keys, and the kiosk goes straight to table 7's screen and online.

Emulating arm64 on the build machine is slow (minutes per boot): soak. The card, the console
logs and the screen's pictures stay in build/image/boot-test/ after the run, to look at.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygame
import pytest

from kiosk.ui.screens.setup.unconfigured import SetupModel, SetupView
from tests.faults.support import wait_until
from tests.fleet.support import Hub
from tests.image.built import REPO, SECTOR, Partition, extract, image_path, mdir, need, partitions
from tests.image.qemu_machine import HOST_ADDRESS, Machine
from tests.support.broker import free_port

pytestmark = [pytest.mark.soak, pytest.mark.timeout(3 * 3600)]

BOOT = 1800.0  # seconds: kernel, systemd and Python under TCG on two shared cores
CARD_EXTRA = 1024 * 1024 * 1024  # the card is 1 GiB larger than the image: room for BGDATA
WORK = REPO / "build/image/boot-test"
SCREEN = (1280, 800)  # qemu's virtio GPU, and the screen size of the room's table template
FRAME = 300.0  # seconds for a change of the kiosk's screen to reach qemu's screen under TCG
EVENT = "image-boot"
TABLE = "7"
# what every table of this room shares (the hub's --table-template): the virtual machine has
# no GPIO header, and its screen is qemu's
TEMPLATE = """\
language = "en"

[pins]
enabled = false

[screen]
size = "1280x800"
fullscreen = true
"""


def run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (command, done.stderr)
    return done.stdout


def digest(disk: Path, part: Partition) -> str:
    sha = hashlib.sha256()
    with disk.open("rb") as src:
        src.seek(part.start * SECTOR)
        left = part.size * SECTOR
        while left:
            chunk = src.read(min(left, 16 << 20))
            sha.update(chunk)
            left -= len(chunk)
    return sha.hexdigest()


def debugfs(fs: Path, request: str) -> str:
    done = subprocess.run(["debugfs", "-R", request, str(fs)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def names(fs: Path, directory: str) -> set[str]:
    listing = debugfs(fs, f"ls -p {directory}")
    found = {line.split("/")[5] for line in listing.splitlines() if line.count("/") >= 6}
    return found - {".", ".."}


# -- the screen ----------------------------------------------------------------------------------


def colours(frame: pygame.Surface) -> int:
    width, height = frame.get_size()
    return len({frame.get_at((x, y))[:3] for x in range(0, width, 16) for y in range(0, height, 16)})


def setup_screen(model: SetupModel, size: tuple[int, int]) -> pygame.Surface:
    """The "not set up" screen as this machine's kiosk draws it, at the given size."""
    pygame.init()
    surface = pygame.Surface(size)
    SetupView(size, "en").draw(surface, model, None, 0)
    return surface


def like_setup(frame: pygame.Surface, model: SetupModel) -> float:
    """The share of the frame's pixels (each colour within 8 of 255) equal to the "not set up"
    screen drawn here at the frame's size, above its last line (the device's id and the hub's
    address, which the table writes its own way), every 4 pixels."""
    width, height = frame.get_size()
    drawn = setup_screen(model, (width, height))
    points = [(x, y) for x in range(0, width, 4) for y in range(0, int(height * 0.86), 4)]
    return sum(close(frame.get_at(p), drawn.get_at(p)) for p in points) / len(points)


def close(a: pygame.Color, b: pygame.Color) -> bool:
    return abs(a.r - b.r) <= 8 and abs(a.g - b.g) <= 8 and abs(a.b - b.b) <= 8


def await_screen(machine: Machine, path: Path, wanted: Callable[[pygame.Surface], bool]) -> pygame.Surface:
    """qemu's screen once it shows what is wanted, or the last one seen after FRAME seconds (the
    test that reads it says what was wrong). The screen changes without telling anyone outside
    the machine: it is looked at every 2 s."""
    deadline = time.monotonic() + FRAME
    while True:
        frame = pygame.image.load(str(machine.screenshot(path)))
        if wanted(frame) or time.monotonic() > deadline:
            return frame
        time.sleep(2.0)


def is_not_set_up(frame: pygame.Surface, code: str) -> bool:
    return like_setup(frame, SetupModel(phase="waiting", code=code)) > 0.99


def is_a_table_screen(frame: pygame.Surface, code: str) -> bool:
    """Drawn (not a console, not black) and none of the "not set up" screens."""
    setup = [
        SetupModel(phase="searching"),
        SetupModel(phase="waiting", code=code),
        SetupModel(phase="enrolled", table=TABLE),
    ]
    return colours(frame) > 5 and all(like_setup(frame, m) < 0.97 for m in setup)


# -- the room: a hub on this machine, a card written for it ----------------------------------------


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    tmp = tmp_path_factory.mktemp("hub")
    template = tmp / "table-template.toml"
    template.write_text(TEMPLATE)
    # the table reaches this machine at HOST_ADDRESS (qemu's guestfwd): the organiser's addresses
    port, broker_port = free_port(), free_port()
    extra = ["--table-template", str(template), "--public-url", f"http://{HOST_ADDRESS}:{port}"]
    extra += ["--public-broker", f"{HOST_ADDRESS}:{broker_port}"]
    hub = Hub(tmp, EVENT, port=port, broker_port=broker_port, extra=extra)
    try:
        yield hub
    finally:
        hub.stop()


@dataclass
class Card:
    disk: Path
    kernel: Path
    initrd: Path
    work: Path
    ports: tuple[int, int]
    root_digest: str
    boot_digest: str

    def data(self) -> Path:
        """The data partition as a file, checked (and repaired) as the next boot's fsck would."""
        _, parts = partitions(self.disk)
        assert len(parts) == 3, parts
        data = extract(self.disk, parts[2], self.work / "data.img")
        subprocess.run(["e2fsck", "-p", str(data)], capture_output=True, timeout=300)
        return data

    def boot(self, name: str) -> Machine:
        log = self.work / f"console-{name}.log"
        return Machine(self.disk, self.kernel, self.initrd, self.work, log, ports=self.ports)


@pytest.fixture(scope="module")
def card(hub: Hub) -> Card:
    for command in ("qemu-system-aarch64", "debugfs", "mcopy"):
        need(command)
    image = image_path()
    work = WORK
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    disk = work / "card.img"
    run("cp", "--sparse=always", str(image), str(disk))
    os.truncate(disk, image.stat().st_size + CARD_EXTRA)
    _, parts = partitions(image)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    # the room's settings, as the organiser writes them once onto the boot partition (install-pi.md)
    room = work / "room.txt"
    room.write_text(f"# the room of the boot test\nhub = {HOST_ADDRESS}:{hub.port}\n")
    offset = parts[0].start * SECTOR
    subprocess.run(["mcopy", "-o", "-i", f"{disk}@@{offset}", str(room), "::/room.txt"], check=True, env=env)
    boot = extract(disk, parts[0], work / "boot.img")
    files = mdir(boot)
    kernel = next(f for f in files if f.startswith("vmlinuz-"))
    initrd = next(f for f in files if f.startswith("initrd.img-"))
    for name in (kernel, initrd):
        subprocess.run(["mcopy", "-n", "-i", str(boot), f"::/{name}", str(work / name)], check=True, env=env)
    ports = (hub.port, hub.broker_port)
    return Card(
        disk, work / kernel, work / initrd, work, ports, digest(disk, parts[1]), digest(disk, parts[0])
    )


# -- the first boot: a new card, set up from the hub ----------------------------------------------


@dataclass
class FirstBoot:
    console: list[str]
    code: str
    device: dict[str, Any]
    setup_screen: pygame.Surface
    table_screen: pygame.Surface
    online: bool
    machine_id: str
    host_keys: dict[str, str]
    data: Path


@pytest.fixture(scope="module")
def first_boot(card: Card, hub: Hub) -> Iterator[FirstBoot]:
    machine = card.boot("1")
    try:
        machine.wait_for(r"Finished bgtable-data-partition\.service", BOOT)
        machine.wait_for(r"Finished bgtable-card-identity\.service", BOOT)
        # READY=1: the kiosk's first frame, the "not set up" screen, is on the screen
        machine.wait_for(r"Started bgtable\.service", BOOT)
        code = machine.wait_for(r"\bcode (\d{4})\b", BOOT)[1]

        def pending() -> dict[str, Any] | None:
            return next((r for r in hub.fleet() if r["state"] == "pending" and r["code"] == code), None)

        device = wait_until(pending, FRAME, f"a device pending with code {code} on the Tables page")
        shown = await_screen(machine, card.work / "first-frame-setup.png", lambda f: is_not_set_up(f, code))

        entered = time.monotonic()
        hub.td.post(f"/api/fleet/{device['device']}/enroll", {"table": TABLE, "code": code})
        machine.wait_for(rf"\benrolled as table {TABLE}\b", BOOT)
        online = bool(wait_until(lambda: hub.online(TABLE), FRAME, f"table {TABLE} online"))
        # a figure for docs/performance.md, not a check: the console log has the boot's own times
        with (card.work / "timings.txt").open("a") as timings:
            print(f"enroll to online under qemu: {time.monotonic() - entered:.1f} s", file=timings)
        table_screen = await_screen(
            machine, card.work / "first-frame-table.png", lambda f: is_a_table_screen(f, code)
        )
        machine.power_off(timeout=BOOT)
    finally:
        machine.kill()
    console = machine.lines
    data = card.data()
    machine_id = debugfs(data, "cat /system/machine-id").strip()
    keys = {name: debugfs(data, f"cat /system/etc/ssh/{name}") for name in names(data, "/system/etc/ssh")}
    yield FirstBoot(console, code, device, shown, table_screen, online, machine_id, keys, data)


def test_the_first_boot_makes_the_data_partition_at_the_end_of_the_card(card: Card, first_boot: FirstBoot):
    _, parts = partitions(card.disk)
    root, data = parts[1], parts[2]
    assert data.start >= root.start + root.size and data.start % 8192 == 0
    assert (data.start + data.size) * SECTOR == card.disk.stat().st_size
    header = run("dumpe2fs", "-h", str(first_boot.data))
    assert re.search(r"^Filesystem volume name:\s+BGDATA$", header, re.M)


def test_the_first_boot_gives_the_card_its_own_identity(first_boot: FirstBoot):
    assert re.fullmatch(r"[0-9a-f]{32}", first_boot.machine_id)
    # the system's log is on the data partition, under the machine-id it ran with
    assert names(first_boot.data, "/var/log/journal") == {first_boot.machine_id}
    assert {"ssh_host_ed25519_key", "ssh_host_ecdsa_key", "ssh_host_rsa_key"} <= set(first_boot.host_keys)
    assert debugfs(first_boot.data, "cat /system/board").strip() == "none"  # qemu's board has no serial
    assert "bgtable" in names(first_boot.data, "/")


def test_no_unit_fails_on_the_first_boot(first_boot: FirstBoot):
    failed = [line for line in first_boot.console if "FAILED" in line or "Failed to start" in line]
    assert failed == []


def test_a_new_card_shows_its_code_and_the_hub_lists_it(first_boot: FirstBoot):
    # the screen shows what the Tables page shows, from the hub found through room.txt
    assert first_boot.device["code"] == first_boot.code
    assert is_not_set_up(first_boot.setup_screen, first_boot.code)


def test_the_enrolled_card_starts_as_its_table_and_comes_online(first_boot: FirstBoot):
    assert first_boot.online
    assert is_a_table_screen(first_boot.table_screen, first_boot.code)
    assert "table.toml" in names(first_boot.data, "/bgtable")
    assert re.search(r"Mode:\s+0600\b", debugfs(first_boot.data, "stat /bgtable/table.toml"))


def test_the_root_and_boot_partitions_are_never_written(card: Card, first_boot: FirstBoot):
    _, parts = partitions(card.disk)
    assert digest(card.disk, parts[1]) == card.root_digest
    assert digest(card.disk, parts[0]) == card.boot_digest


# -- the second boot: the same card, straight to its table ----------------------------------------


@dataclass
class SecondBoot:
    screen: pygame.Surface
    online: bool
    machine_id: str
    host_keys: dict[str, str]
    data: Path


@pytest.fixture(scope="module")
def second_boot(card: Card, hub: Hub, first_boot: FirstBoot) -> Iterator[SecondBoot]:
    wait_until(lambda: not hub.online(TABLE), FRAME, f"table {TABLE} offline after the power off")
    code = first_boot.code
    machine = card.boot("2")
    try:
        # READY=1 follows the kiosk's first frame: the table's own screen
        machine.wait_for(r"Started bgtable\.service", BOOT)
        screen = await_screen(machine, card.work / "second-boot.png", lambda f: is_a_table_screen(f, code))
        online = bool(wait_until(lambda: hub.online(TABLE), FRAME, f"table {TABLE} online again"))
        machine.power_off(timeout=BOOT)
    finally:
        machine.kill()
    data = card.data()
    keys = {name: debugfs(data, f"cat /system/etc/ssh/{name}") for name in names(data, "/system/etc/ssh")}
    yield SecondBoot(screen, online, debugfs(data, "cat /system/machine-id").strip(), keys, data)


def test_the_second_boot_goes_straight_to_the_table(first_boot: FirstBoot, second_boot: SecondBoot):
    assert second_boot.online
    assert second_boot.screen.get_size() == SCREEN  # the configuration's screen size
    assert is_a_table_screen(second_boot.screen, first_boot.code)


def test_the_kiosk_keeps_its_journal_on_the_data_partition(second_boot: SecondBoot):
    kept = names(second_boot.data, "/bgtable")
    assert "table.toml" in kept
    assert kept - {"table.toml"}, kept  # the journal the kiosk opened


def test_the_card_keeps_its_machine_id_and_host_keys(first_boot: FirstBoot, second_boot: SecondBoot):
    assert second_boot.machine_id == first_boot.machine_id
    assert names(second_boot.data, "/var/log/journal") == {first_boot.machine_id}
    assert second_boot.host_keys == first_boot.host_keys


def test_the_root_and_boot_partitions_are_still_unwritten(card: Card, second_boot: SecondBoot):
    _, parts = partitions(card.disk)
    assert digest(card.disk, parts[1]) == card.root_digest
    assert digest(card.disk, parts[0]) == card.boot_digest
