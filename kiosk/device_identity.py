"""Who this device is, before it is any table: a device id and a key pair, kept in its state dir.

Every card is flashed from the same image, so nothing in the image may identify a device. On
its first start the kiosk makes, on the data partition (the state directory):

- ``device-id``: the id the hub lists it under. From ``/etc/machine-id`` when the system has one
  (the image makes a new one on each card's first boot), hashed so the machine id itself never
  leaves the device; else random. ``--device-id`` names it instead (tests, a label on the box).
- ``device-key``: an X25519 private key (0600). The public half goes with the hello; the hub
  seals the table's configuration to it (:mod:`drivers.sealed_box`).

A card moved to another Pi keeps both: it is the same device to the hub (the card carries the
table's journal and configuration too).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from drivers.private_file import write_private
from drivers.sealed_box import b64decode, b64encode, new_private_key, public_key
from kiosk.errors import KioskError

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ID_FILE = "device-id"
KEY_FILE = "device-key"
MACHINE_ID = Path("/etc/machine-id")


class IdentityError(KioskError, ValueError):
    """The state directory holds an unusable identity (the message names the file)."""


@dataclass(frozen=True)
class DeviceIdentity:
    device: str
    private_key: bytes

    @property
    def public_key_b64(self) -> str:
        return b64encode(public_key(self.private_key))


def default_device_id(machine_id: Path = MACHINE_ID) -> str:
    """``bgt-`` and 12 hex digits of the machine id's hash; random without a machine id."""
    try:
        text = machine_id.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if re.fullmatch(r"[0-9a-f]{32}", text):
        return "bgt-" + hashlib.sha256(f"bgtable:{text}".encode()).hexdigest()[:12]
    return "bgt-" + secrets.token_hex(6)


def load_or_create(
    state_dir: Path, device_id: str | None = None, machine_id: Path = MACHINE_ID
) -> DeviceIdentity:
    """The device's identity from ``state_dir``, made there the first time.

    An explicit ``device_id`` that differs from the stored one replaces it (and the key, so a
    sealed configuration for the old id cannot be opened by the new one)."""
    if device_id is not None and not ID_RE.match(device_id):
        raise IdentityError(f"--device-id: expected 1-64 letters, digits, '.', '_' or '-', got {device_id!r}")
    id_path, key_path = state_dir / ID_FILE, state_dir / KEY_FILE
    stored = _read(id_path)
    if stored is not None and not ID_RE.match(stored):
        raise IdentityError(f"{id_path}: not a device id")
    if stored is None or (device_id is not None and device_id != stored):
        stored = device_id or default_device_id(machine_id)
        write_private(key_path, b64encode(new_private_key()) + "\n")
        write_private(id_path, stored + "\n")
    key_text = _read(key_path)
    if key_text is None:
        key_text = b64encode(new_private_key())
        write_private(key_path, key_text + "\n")
    try:
        key = b64decode(key_text)
        public_key(key)
    except ValueError as exc:
        raise IdentityError(f"{key_path}: not a device key ({exc})") from None
    return DeviceIdentity(stored, key)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IdentityError(f"{path}: {exc}") from None
