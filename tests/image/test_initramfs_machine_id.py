"""bgtable-machine-id (initramfs): the card's kept machine-id is bound over /etc/machine-id before
systemd starts, only in the board the card was set up in.

The real script runs with the initramfs's own shell tools only (mount, umount, mkdir, cat: what
klibc-utils gives an initramfs without busybox) against a real ext4 data partition on a loop
device, with a temporary directory as the new root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = (
    Path(__file__).resolve().parents[2]
    / "image/rootfs/etc/initramfs-tools/scripts/local-bottom/bgtable-machine-id"
)
ID = "0123456789abcdef0123456789abcdef"
BOARD = "10000000a1b2c3d4"


def run(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout


class Boot:
    """A data partition on a loop device, a board, and the root the initramfs hands to systemd."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.rootmnt = top / "root"
        (self.rootmnt / "etc").mkdir(parents=True)
        (self.rootmnt / "etc/machine-id").write_text("")
        self.run_dir = top / "run"
        self.run_dir.mkdir()
        self.serial = top / "serial-number"
        self.bin = top / "bin"
        self.bin.mkdir()
        for tool in ("mount", "umount", "mkdir", "cat"):
            found = shutil.which(tool)
            assert found
            (self.bin / tool).symlink_to(found)
        self.device: str | None = None

    def data(self, machine_id: str | None, board: str | None) -> None:
        tree = self.top / "data"
        (tree / "system").mkdir(parents=True)
        if machine_id is not None:
            (tree / "system/machine-id").write_text(machine_id + "\n")
        if board is not None:
            (tree / "system/board").write_text(board + "\n")
        image = self.top / "data.img"
        run("mkfs.ext4", "-q", "-L", "BGDATA", "-d", str(tree), str(image), "16M")
        self.device = run("losetup", "--find", "--show", str(image)).strip()

    def board(self, serial: bytes | None) -> None:
        if serial is None:
            self.serial.unlink(missing_ok=True)
        else:
            self.serial.write_bytes(serial)

    def boot(self) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": str(self.bin),
            "rootmnt": str(self.rootmnt),
            "BGTABLE_ID_DATA": self.device or str(self.top / "no-such-device"),
            "BGTABLE_ID_SERIAL": str(self.serial),
            "BGTABLE_ID_RUN": str(self.run_dir),
            "BGTABLE_ID_KMSG": str(self.top / "kmsg"),
        }
        return subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)

    def bound(self) -> str | None:
        """The machine-id systemd would read, if the script bound one over /etc/machine-id."""
        target = self.rootmnt / "etc/machine-id"
        if subprocess.run(["mountpoint", "-q", str(target)], timeout=30).returncode != 0:
            return None
        return target.read_text().strip()

    def close(self) -> None:
        subprocess.run(["umount", str(self.rootmnt / "etc/machine-id")], capture_output=True, timeout=30)
        subprocess.run(["umount", str(self.run_dir / "bgtable-data-peek")], capture_output=True, timeout=30)
        if self.device:
            subprocess.run(["losetup", "--detach", self.device], capture_output=True, timeout=30)


@pytest.fixture
def boot(tmp_path: Path) -> Iterator[Boot]:
    card = Boot(tmp_path)
    yield card
    card.close()


def test_the_kept_machine_id_is_bound_in_the_board_it_was_set_up_in(boot: Boot):
    boot.data(ID, BOARD)
    boot.board(BOARD.encode() + b"\0")  # as the device tree gives it
    done = boot.boot()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert boot.bound() == ID
    assert "machine-id " + ID in (boot.top / "kmsg").read_text()
    # the data partition was only looked at: not left mounted
    assert subprocess.run(["mountpoint", "-q", str(boot.run_dir / "bgtable-data-peek")]).returncode != 0


def test_in_another_board_systemd_makes_a_new_one(boot: Boot):
    boot.data(ID, BOARD)
    boot.board(b"10000000deadbeef\0")
    assert boot.boot().returncode == 0
    assert boot.bound() is None


def test_a_machine_without_a_serial_number_is_board_none(boot: Boot):
    boot.data(ID, "none")
    boot.board(None)
    assert boot.boot().returncode == 0
    assert boot.bound() == ID


@pytest.mark.parametrize(
    ("machine_id", "board"),
    [
        (None, BOARD),
        (ID, None),
        ("0123", BOARD),
        ("0123456789ABCDEF0123456789ABCDEF", BOARD),
        ("../" * 11, BOARD),
    ],
)
def test_a_missing_or_malformed_identity_is_not_used(boot: Boot, machine_id: str | None, board: str | None):
    boot.data(machine_id, board)
    boot.board(BOARD.encode() + b"\0")
    assert boot.boot().returncode == 0
    assert boot.bound() is None


def test_the_first_boot_has_no_data_partition_yet(boot: Boot):
    boot.board(BOARD.encode())
    done = boot.boot()
    assert done.returncode == 0 and done.stderr == ""
    assert boot.bound() is None
    assert os.listdir(boot.run_dir) == []
