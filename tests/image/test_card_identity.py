"""card-identity: every card becomes a machine of its own, and a card moved to another board
starts anew.

The real script runs against a temporary directory standing for the data partition, with a
board serial number and a running machine-id of the test's choosing (its two overridable inputs).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "image/rootfs/usr/lib/bgtable-image/card-identity"
KEY_TYPES = ("ed25519", "ecdsa", "rsa")


class Card:
    """A data partition (a directory), the board it is in and the machine-id systemd runs with."""

    def __init__(self, root: Path) -> None:
        self.data = root / "data"
        self.data.mkdir()
        (self.data / "lost+found").mkdir()
        self.serial = root / "serial-number"
        self.machine_id = root / "machine-id"
        self.board("10000000a1b2c3d4")
        self.running("0123456789abcdef0123456789abcdef")

    def board(self, serial: str | None) -> None:
        if serial is None:
            self.serial.unlink(missing_ok=True)
        else:
            # the device tree's property: NUL-terminated
            self.serial.write_bytes(serial.encode() + b"\0")

    def running(self, machine_id: str) -> None:
        self.machine_id.write_text(machine_id + "\n")

    def boot(self) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, CARD_IDENTITY_SERIAL=str(self.serial))
        env["CARD_IDENTITY_MACHINE_ID"] = str(self.machine_id)
        command = [str(SCRIPT), str(self.data)]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    @property
    def system(self) -> Path:
        return self.data / "system"

    def host_keys(self) -> dict[str, bytes]:
        ssh = self.system / "etc/ssh"
        return {kind: (ssh / f"ssh_host_{kind}_key").read_bytes() for kind in KEY_TYPES}


@pytest.fixture
def card(tmp_path: Path) -> Card:
    return Card(tmp_path)


def test_first_boot_keeps_the_machine_id_makes_host_keys_and_records_the_board(card: Card):
    done = card.boot()
    assert done.returncode == 0, done.stderr
    assert (card.system / "machine-id").read_text() == "0123456789abcdef0123456789abcdef\n"
    assert (card.system / "board").read_text() == "10000000a1b2c3d4\n"
    assert stat.S_IMODE(card.system.stat().st_mode) == 0o700
    for kind in KEY_TYPES:
        key = card.system / f"etc/ssh/ssh_host_{kind}_key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert key.with_suffix(".pub").read_text().startswith(("ssh-", "ecdsa-"))
    assert "machine-id 0123456789abcdef0123456789abcdef kept" in done.stdout
    assert "made the card's SSH host keys" in done.stdout


def test_later_boots_in_the_same_board_change_nothing(card: Card):
    assert card.boot().returncode == 0
    keys = card.host_keys()
    (card.data / "bgtable").mkdir()
    (card.data / "bgtable/journal.sqlite3").write_bytes(b"match in progress")
    done = card.boot()
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert card.host_keys() == keys
    assert (card.data / "bgtable/journal.sqlite3").read_bytes() == b"match in progress"


def test_two_cards_flashed_from_one_image_differ(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = Card(tmp_path / "a"), Card(tmp_path / "b")
    second.board("10000000ffff0000")
    second.running("fedcba9876543210fedcba9876543210")
    assert first.boot().returncode == 0
    assert second.boot().returncode == 0
    assert first.host_keys()["ed25519"] != second.host_keys()["ed25519"]
    assert (first.system / "machine-id").read_text() != (second.system / "machine-id").read_text()


def test_a_card_moved_to_another_board_is_erased_and_starts_as_a_new_table(card: Card):
    assert card.boot().returncode == 0
    keys = card.host_keys()
    (card.data / "bgtable").mkdir()
    for name in ("table.toml", "journal.sqlite3", "outbox.sqlite3", "settings.json"):
        (card.data / "bgtable" / name).write_text("the first table's")
    # copied into another Pi: the initramfs did not bind the kept id, systemd made a new one
    card.board("10000000deadbeef")
    card.running("89abcdef0123456789abcdef01234567")
    done = card.boot()
    assert done.returncode == 0, done.stderr
    assert "set up in another board (10000000a1b2c3d4, this one is 10000000deadbeef)" in done.stdout
    assert not (card.data / "bgtable").exists()
    assert (card.data / "lost+found").is_dir()
    assert (card.system / "machine-id").read_text() == "89abcdef0123456789abcdef01234567\n"
    assert (card.system / "board").read_text() == "10000000deadbeef\n"
    new_keys = card.host_keys()
    assert all(new_keys[kind] != keys[kind] for kind in KEY_TYPES)


def test_a_machine_without_a_serial_number_is_board_none(card: Card):
    card.board(None)
    assert card.boot().returncode == 0
    assert (card.system / "board").read_text() == "none\n"
    done = card.boot()
    assert done.returncode == 0 and done.stdout == ""


def test_a_malformed_serial_number_counts_as_none(card: Card):
    card.board("../../etc")
    assert card.boot().returncode == 0
    assert (card.system / "board").read_text() == "none\n"


def test_an_interrupted_first_boot_starts_again_from_nothing(card: Card):
    # the power went before the board was recorded: keys and id of an unfinished first boot
    (card.system / "etc/ssh").mkdir(parents=True)
    (card.system / "etc/ssh/ssh_host_ed25519_key").write_text("half written")
    (card.system / "machine-id").write_text("00000000000000000000000000000000\n")
    done = card.boot()
    assert done.returncode == 0, done.stderr
    assert "no recorded board" in done.stdout
    assert (card.system / "machine-id").read_text() == "0123456789abcdef0123456789abcdef\n"
    assert card.host_keys()["ed25519"].startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")


def test_a_running_system_without_a_machine_id_is_refused(card: Card):
    card.running("")
    done = card.boot()
    assert done.returncode == 1
    assert "holds no machine-id" in done.stderr
    assert not (card.system / "machine-id").exists()
    assert not (card.system / "board").exists()
