"""The table image under test: the one `make image` built last (or $SMART_TABLE_IMAGE), and its
partitions as files, so tests read it without booting it and without changing it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SECTOR = 512


def image_path() -> Path:
    """The image to test; builds one with image/build (about 15 minutes) when there is none."""
    given = os.environ.get("SMART_TABLE_IMAGE")
    if given:
        return Path(given)
    built = sorted((REPO / "build/image").glob("smart-table-*-arm64.img"), key=lambda p: p.stat().st_mtime)
    if not built:
        subprocess.run([str(REPO / "image/build")], check=True, timeout=3 * 3600)
        built = sorted((REPO / "build/image").glob("smart-table-*-arm64.img"))
    assert built, "image/build made no image"
    return built[-1]


@dataclass(frozen=True)
class Partition:
    number: int
    start: int  # sectors
    size: int  # sectors
    type: str
    bootable: bool


def partitions(image: Path) -> tuple[str, list[Partition]]:
    """The partition table's label ("dos" or "gpt") and partitions, as sfdisk reads them."""
    table = json.loads(
        subprocess.run(
            ["sfdisk", "--json", str(image)], capture_output=True, text=True, check=True, timeout=60
        ).stdout
    )["partitiontable"]
    parts = [
        Partition(n, int(p["start"]), int(p["size"]), str(p["type"]), bool(p.get("bootable", False)))
        for n, p in enumerate(table["partitions"], start=1)
    ]
    return str(table["label"]), parts


def extract(image: Path, part: Partition, out: Path) -> Path:
    """A copy of one partition as a file of its own."""
    with image.open("rb") as src, out.open("wb") as dst:
        src.seek(part.start * SECTOR)
        left = part.size * SECTOR
        while left:
            chunk = src.read(min(left, 16 << 20))
            assert chunk, "the image ends inside a partition"
            dst.write(chunk)
            left -= len(chunk)
    return out


def mtype(fat: Path, name: str) -> str:
    """A file of a FAT partition image (mtools: no mount)."""
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    done = subprocess.run(["mtype", "-i", str(fat), f"::/{name}"], capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def mdir(fat: Path) -> list[str]:
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    done = subprocess.run(
        ["mdir", "-b", "-i", str(fat), "::/"], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    return sorted(line.removeprefix("::/").strip() for line in done.stdout.splitlines() if line.strip())


def need(command: str) -> str:
    found = shutil.which(command)
    assert found, f"{command} is needed (tools/system-packages image)"
    return found
