"""The Raspberry Pi boards the table image supports, as its contents tests see them: which of
config.txt's sections each board's firmware reads, the device tree it must load, and the kernel
drivers each needs for its card, its network, its GPIO header, its HDMI screen and a touch panel.

The firmware reads config.txt from top to bottom and applies the lines of every section whose
filter matches its board; a later line wins. `[all]` matches every board, `[pi4]` the whole Pi 4
family (4 B, 400, CM4), `[pi400]` and `[cm4]` only those, `[pi3]` the Pi 3 family and `[pi3+]`
the 3 B+ (and 3 A+), `[pi5]` the Pi 5 family.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Board:
    name: str
    filters: tuple[str, ...]  # the config.txt sections this board's firmware reads
    compatible: str  # the board's own compatible string, first in its device tree's root
    # kernel drivers by what they drive (module names as modinfo shows them, '-' as '_')
    storage: tuple[str, ...]
    network: tuple[str, ...]
    gpio: tuple[str, ...]
    hdmi: tuple[str, ...]
    # (compatible string in the board's device tree, the module whose alias claims it): the
    # kernel loads that driver for that part of this board (HDMI: the display controller, whose
    # module binds the HDMI encoders)
    claims: tuple[tuple[str, str], ...] = ()


# a USB HID touch panel (the 7" and 10" "HDMI touch" screens) on every board
TOUCH = ("usbhid", "hid_multitouch")

#: the Pi 4 family (4 B, 400, CM4): one BCM2711, so one set of drivers; they differ in name,
#: sections and compatible string (and the CM4's USB)
PI_4B = Board(
    "Raspberry Pi 4 B",
    ("all", "pi4"),
    "raspberrypi,4-model-b",
    storage=("sdhci_iproc",),  # EMMC2
    network=("genet", "brcmfmac", "pcie_brcmstb", "xhci_pci"),  # USB behind PCIe (VL805)
    gpio=("pinctrl_bcm2835",),
    hdmi=("vc4",),
    claims=(
        ("brcm,bcm2711-emmc2", "sdhci_iproc"),
        ("brcm,bcm2711-pcie", "pcie_brcmstb"),
        ("brcm,bcm2711-genet-v5", "genet"),
        ("brcm,bcm2711-gpio", "pinctrl_bcm2835"),
        ("brcm,bcm2711-vc5", "vc4"),
    ),
)

BOARDS = (
    Board(
        "Raspberry Pi 3 B+",
        ("all", "pi3", "pi3+"),
        "raspberrypi,3-model-b-plus",
        storage=("sdhci_iproc", "bcm2835"),  # the SD card: SDHOST or the Arasan controller
        network=("lan78xx", "dwc2", "brcmfmac"),  # Ethernet on USB; Wi-Fi on SDIO
        gpio=("pinctrl_bcm2835",),
        hdmi=("vc4",),
        claims=(
            ("brcm,bcm2835-sdhost", "bcm2835"),
            ("brcm,bcm2835-sdhci", "sdhci_iproc"),
            ("brcm,bcm2835-usb", "dwc2"),
            ("brcm,bcm2835-gpio", "pinctrl_bcm2835"),
            ("brcm,bcm2835-vc4", "vc4"),
        ),
    ),
    PI_4B,
    replace(PI_4B, name="Raspberry Pi 400", filters=("all", "pi4", "pi400"), compatible="raspberrypi,400"),
    replace(
        PI_4B,
        name="Raspberry Pi CM4 (IO board)",
        filters=("all", "pi4", "cm4"),
        compatible="raspberrypi,4-compute-module",
        network=("genet", "brcmfmac", "pcie_brcmstb"),  # the IO board's USB is not behind a VL805
    ),
    Board(
        "Raspberry Pi 5",
        ("all", "pi5"),
        "raspberrypi,5-model-b",
        storage=("sdhci_brcmstb",),  # the BCM2712's own SD controller
        # RP1 sits behind PCIe: its Ethernet is Cadence's GEM (macb), its USB xHCI behind DWC3
        network=("pcie_brcmstb", "rp1_pci", "macb", "dwc3", "brcmfmac"),
        gpio=("rp1_pci", "pinctrl_rp1"),  # RP1's GPIO header, through the GPIO character device
        hdmi=("vc4",),
        claims=(
            ("brcm,bcm2712-sdhci", "sdhci_brcmstb"),
            ("brcm,bcm2712-pcie", "pcie_brcmstb"),
            ("raspberrypi,rp1-gem", "macb"),
            ("snps,dwc3", "dwc3"),
            ("raspberrypi,rp1-gpio", "pinctrl_rp1"),
            ("brcm,bcm2712-vc6", "vc4"),
        ),
    ),
)


@dataclass(frozen=True)
class Boot:
    """What one board's firmware takes from config.txt."""

    kernel: str | None
    initramfs: str | None
    device_tree: str | None
    settings: dict[str, str]


def sections(config: str) -> list[tuple[str, str]]:
    """config.txt as (section, line) pairs, comments and blank lines left out."""
    section = "all"
    found = []
    for raw in config.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        found.append((section, line))
    return found


def boot_of(config: str, board: Board) -> Boot:
    """The settings the firmware of `board` applies, in config.txt's order, a later line winning."""
    settings: dict[str, str] = {}
    initramfs = None
    for section, line in sections(config):
        if section not in board.filters:
            continue
        if line.startswith("initramfs "):
            words = line.split()
            assert len(words) == 3 and words[2] == "followkernel", line
            initramfs = words[1]
        else:
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip()
    return Boot(settings.get("kernel"), initramfs, settings.get("device_tree"), settings)


def compatible(dtb: bytes) -> list[str]:
    """The root node's `compatible` strings of a flattened device tree (the board it describes)."""
    magic, _size, off_struct, off_strings = struct.unpack_from(">IIII", dtb, 0)
    assert magic == 0xD00DFEED, "not a device tree blob"
    pos = off_struct
    depth = 0
    while True:
        (token,) = struct.unpack_from(">I", dtb, pos)
        pos += 4
        if token == 1:  # FDT_BEGIN_NODE: a name, NUL-terminated, padded to 4 bytes
            end = dtb.index(b"\0", pos)
            pos = (end + 4) & ~3
            depth += 1
        elif token == 3:  # FDT_PROP
            length, name_off = struct.unpack_from(">II", dtb, pos)
            pos += 8
            value = dtb[pos : pos + length]
            pos = (pos + length + 3) & ~3
            name = dtb[off_strings + name_off : dtb.index(b"\0", off_strings + name_off)]
            if depth == 1 and name == b"compatible":
                return [part.decode() for part in value.split(b"\0") if part]
        elif token == 2:  # FDT_END_NODE
            depth -= 1
            if depth == 0:
                return []
        elif token == 4:  # FDT_NOP
            continue
        else:
            return []


def claimed(aliases: str, builtin_modinfo: bytes, compatible: str) -> set[str]:
    """The modules (loadable: modules.alias; built in: modules.builtin.modinfo) whose device-tree
    alias is exactly `compatible`, names with '_'."""
    pattern = f"of:N*T*C{compatible}"
    found = set()
    for line in aliases.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "alias" and words[1] in (pattern, pattern + "C*"):
            found.add(words[2].replace("-", "_"))
    for entry in builtin_modinfo.split(b"\0"):
        module, _, rest = entry.decode(errors="replace").partition(".")
        if rest in (f"alias={pattern}", f"alias={pattern}C*"):
            found.add(module.replace("-", "_"))
    return found
