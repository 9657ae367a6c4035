"""A device's id and key: made once in its state directory, kept private, kept across starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.device_identity import IdentityError, default_device_id, load_or_create


def test_identity_is_made_once_and_kept(tmp_path: Path):
    first = load_or_create(tmp_path / "s")
    again = load_or_create(tmp_path / "s")
    assert first == again
    for name in ("device-id", "device-key"):
        assert (tmp_path / "s" / name).stat().st_mode & 0o077 == 0


def test_an_explicit_id_replaces_the_stored_one_and_its_key(tmp_path: Path):
    first = load_or_create(tmp_path, "dev-a")
    second = load_or_create(tmp_path, "dev-b")
    assert second.device == "dev-b" and second.private_key != first.private_key


def test_machine_id_is_hashed(tmp_path: Path):
    machine = tmp_path / "machine-id"
    machine.write_text("0123456789abcdef0123456789abcdef\n")
    device = default_device_id(machine)
    assert device.startswith("bgt-") and "0123456789" not in device
    assert device == default_device_id(machine)


def test_damaged_files_are_reported(tmp_path: Path):
    load_or_create(tmp_path)
    (tmp_path / "device-key").write_text("not base64 !!!")
    with pytest.raises(IdentityError, match="device-key"):
        load_or_create(tmp_path)
    with pytest.raises(IdentityError, match="device-id"):
        load_or_create(tmp_path / "x", "bad/id")
