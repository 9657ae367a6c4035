"""data-partition: a card's first boot adds its data partition after the read-only root, once.

The real script runs against a real disk: a sparse file laid out like a flashed card (the image's
boot and root partitions, then free space), attached to a loop device, with the root partition
mounted read-only as on the table while the partition table is changed.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "image/rootfs/usr/lib/bgtable-image/data-partition"
MIB = 2048  # sectors of 512 bytes


def run(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=check)


class Disk:
    """A card in a reader: boot (FAT) at 4 MiB, root (ext4) after it, the rest free."""

    def __init__(self, path: Path, size_mib: int, boot_mib: int = 8, root_mib: int = 16) -> None:
        path.write_bytes(b"")
        run("truncate", "-s", f"{size_mib}M", str(path))
        table = (
            "label: dos\n"
            f"start=4MiB, size={boot_mib}MiB, type=c, bootable\n"
            f"start={4 + boot_mib}MiB, size={root_mib}MiB, type=83\n"
        )
        subprocess.run(["sfdisk", "--quiet", str(path)], input=table, text=True, check=True, timeout=60)
        self.device = run("losetup", "--find", "--show", str(path)).stdout.strip()
        self.mount = path.with_suffix(".root")
        try:
            # --update, not --add: a kernel that scans a new loop device itself has already
            # added the partitions, and --add then fails on them.
            run("partx", "--update", self.device)
            run("mkfs.ext4", "-q", "-L", "BGROOT", self.part(2))
            self.mount.mkdir()
            run("mount", "-o", "ro", self.part(2), str(self.mount))
        except BaseException:
            self.close()
            raise

    def part(self, number: int) -> str:
        return f"{self.device}p{number}"

    def partitions(self) -> list[dict[str, object]]:
        table = json.loads(run("sfdisk", "--json", self.device).stdout)["partitiontable"]
        return list(table["partitions"])

    def probe(self, number: int, tag: str) -> str:
        return run("blkid", "-p", "-o", "value", "-s", tag, self.part(number), check=False).stdout.strip()

    def first_boot(self) -> subprocess.CompletedProcess[str]:
        return run(str(SCRIPT), self.device, check=False)

    def close(self) -> None:
        run("umount", str(self.mount), check=False)
        run("partx", "--delete", self.device, check=False)
        run("losetup", "--detach", self.device, check=False)


@pytest.fixture
def card(tmp_path: Path) -> Iterator[Disk]:
    disk = Disk(tmp_path / "card.img", size_mib=160)
    yield disk
    disk.close()


def test_first_boot_adds_bgdata_after_the_root_up_to_the_end_of_the_card(card: Disk):
    done = card.first_boot()
    assert done.returncode == 0, done.stderr
    parts = card.partitions()
    assert len(parts) == 3
    root, data = parts[1], parts[2]
    root_end = int(str(root["start"])) + int(str(root["size"]))
    start = int(str(data["start"]))
    assert start >= root_end and start % (4 * MIB) == 0  # aligned to 4 MiB, after the root
    assert start + int(str(data["size"])) == 160 * MIB  # the rest of the card
    assert data["type"] == "83"
    assert (card.probe(3, "TYPE"), card.probe(3, "LABEL")) == ("ext4", "BGDATA")
    assert "first boot: adding partition 3" in done.stdout
    # the root partition in use was not touched
    assert card.probe(2, "LABEL") == "BGROOT"
    assert run("findmnt", "-n", "-o", "SOURCE", str(card.mount)).stdout.strip() == card.part(2)


def test_later_boots_find_the_partition_and_leave_it_alone(card: Disk):
    assert card.first_boot().returncode == 0
    uuid = card.probe(3, "UUID")
    done = card.first_boot()
    assert done.returncode == 0, done.stderr
    assert "is the data partition" in done.stdout
    assert card.probe(3, "UUID") == uuid


def test_a_first_boot_cut_before_formatting_formats_the_partition_it_made(card: Disk):
    root_end = int(str(card.partitions()[1]["start"])) + int(str(card.partitions()[1]["size"]))
    start = (root_end + 8 * MIB - 1) // (4 * MIB) * (4 * MIB)
    subprocess.run(
        ["sfdisk", "--quiet", "--no-reread", "--append", card.device],
        input=f"start={start}, type=83\n",
        text=True,
        check=True,
        timeout=60,
    )
    run("partx", "--update", "--nr", "3", card.device)
    done = card.first_boot()
    assert done.returncode == 0, done.stderr
    assert "no file system yet" in done.stdout
    assert card.probe(3, "LABEL") == "BGDATA"


def test_a_partition_it_did_not_make_is_never_formatted(card: Disk):
    subprocess.run(
        ["sfdisk", "--quiet", "--no-reread", "--append", card.device],
        input="start=40MiB, type=83\n",
        text=True,
        check=True,
        timeout=60,
    )
    run("partx", "--update", "--nr", "3", card.device)
    run("mkfs.ext4", "-q", "-L", "PHOTOS", card.part(3))
    done = card.first_boot()
    assert done.returncode == 1
    assert "not BGDATA: left alone" in done.stderr
    assert card.probe(3, "LABEL") == "PHOTOS"


def test_a_card_with_no_room_after_the_root_is_an_error(tmp_path: Path):
    disk = Disk(tmp_path / "small.img", size_mib=60)
    try:
        done = disk.first_boot()
        assert done.returncode == 1
        assert "the card is too small" in done.stderr
        assert len(disk.partitions()) == 2
    finally:
        disk.close()
