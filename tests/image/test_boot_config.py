"""config.txt of the image (image/boot/config.txt, before the build fills in the kernel's
version): every supported board's firmware reads the same kernel and initramfs, and the device
tree of its own board. The built image's copy is checked against the files on the card in
test_image_boards.py."""

from __future__ import annotations

import pytest

from tests.image.boards import BOARDS, Board, boot_of, sections
from tests.image.built import REPO

CONFIG = (REPO / "image/boot/config.txt").read_text()

DEVICE_TREES = {
    "Raspberry Pi 3 B+": "bcm2837-rpi-3-b-plus.dtb",
    "Raspberry Pi 4 B": "bcm2711-rpi-4-b.dtb",
    "Raspberry Pi 400": "bcm2711-rpi-400.dtb",
    "Raspberry Pi CM4 (IO board)": "bcm2711-rpi-cm4-io.dtb",
    "Raspberry Pi 5": "bcm2712-rpi-5-b.dtb",
}


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_each_board_boots_the_one_kernel_with_its_own_device_tree(board: Board):
    boot = boot_of(CONFIG, board)
    assert boot.kernel == "@KERNEL@"
    assert boot.initramfs == "@INITRD@"
    assert boot.device_tree == DEVICE_TREES[board.name]
    assert boot.settings["arm_64bit"] == "1"
    assert boot.settings["upstream_kernel"] == "1"


def test_every_section_is_one_the_firmware_knows():
    # a misspelt filter would be a section no board reads
    known = {"all", "pi3", "pi3+", "pi4", "pi400", "cm4", "pi5", "pi500", "cm5"}
    assert {section for section, _ in sections(CONFIG)} <= known


def test_the_settings_of_all_boards_come_last_as_all():
    # the file ends in [all], so a line an organiser appends applies to every board
    last = [line for line in CONFIG.splitlines() if line.startswith("[")][-1]
    assert last == "[all]"
