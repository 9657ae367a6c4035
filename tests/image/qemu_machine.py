"""A table image booted in qemu-system-aarch64 (`-M virt`): its own kernel and initramfs, the card as
a virtio disk, a virtio GPU as the screen (the kiosk draws on it through KMS), the serial console
read line by line, and QMP for the screen's picture and the power button.

The machine's network is qemu's user network with ``restrict=on``: the guest reaches nothing but
:data:`HOST_ADDRESS` on the ports given, each carried by ``relay.py`` to the same port on this
machine's loopback (the hub's web server, its broker). No packet of it leaves this machine."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

#: the address at which the guest finds this machine's forwarded ports
HOST_ADDRESS = "10.0.2.100"
RELAY = Path(__file__).with_name("relay.py")


def network(ports: Sequence[int]) -> list[str]:
    """qemu's arguments for a network card that reaches only ``HOST_ADDRESS:port`` for ``ports``."""
    if not ports:
        return ["-nic", "none"]
    forwards = "".join(
        f",guestfwd=tcp:{HOST_ADDRESS}:{port}-cmd:{sys.executable} {RELAY} {port}" for port in ports
    )
    # romfile=: no PXE boot ROM (the kernel is given; Debian's qemu-system-arm ships none for it)
    card = "virtio-net-pci,netdev=room,romfile="
    return ["-netdev", f"user,id=room,restrict=on{forwards}", "-device", card]


class Machine:
    def __init__(
        self, disk: Path, kernel: Path, initrd: Path, workdir: Path, log: Path, ports: Sequence[int] = ()
    ) -> None:
        self.qmp_path = workdir / "qmp.sock"
        self.qmp_path.unlink(missing_ok=True)
        self.log = log.open("a", encoding="utf-8", errors="replace")
        self.lines: list[str] = []
        self.stopped = False
        self._changed = threading.Condition()
        # the image's cmdline.txt, with qemu's serial port as the console showing every unit's
        # status by its name (a description would be cut to the console's 80 columns), and no
        # login prompt there (a getty on the console would end systemd's status lines); the
        # system's log goes to the console too, so the kiosk's own lines ("code 4821") are seen
        cmdline = (
            "console=ttyAMA0 root=LABEL=BGROOT ro rootwait fsck.repair=yes net.ifnames=0 "
            "systemd.show_status=1 systemd.status_unit_format=name systemd.log_color=0 "
            "systemd.mask=serial-getty@ttyAMA0.service systemd.journald.forward_to_console=1"
        )
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [
                "qemu-system-aarch64",
                "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "2048",
                "-kernel", str(kernel), "-initrd", str(initrd), "-append", cmdline,
                "-drive", f"file={disk},if=none,format=raw,id=card,cache=unsafe",
                "-device", "virtio-blk-pci,drive=card",
                "-device", "virtio-gpu-pci,xres=1280,yres=800",
                *network(ports),
                "-display", "none", "-monitor", "none", "-serial", "stdio",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
                "-no-reboot",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            # each line with the seconds since qemu started: how long the boot's steps take
            self.log.write(f"{time.monotonic() - self.started:8.1f} {line}\n")
            self.log.flush()
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.stopped = True
            self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        """The first console line of this boot matching ``pattern`` (a regex), seen already or
        awaited; fails at the timeout or when the machine stops first."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + timeout
        checked = 0
        with self._changed:
            while True:
                for line in self.lines[checked:]:
                    found = wanted.search(line)
                    if found:
                        return found
                checked = len(self.lines)
                assert not self.stopped, f"the machine stopped before a line matching {pattern!r}"
                left = deadline - time.monotonic()
                assert left > 0, f"no console line matching {pattern!r} within {timeout:.0f} s"
                self._changed.wait(left)

    def qmp(self, command: str, **arguments: object) -> object:
        """One QMP command on a fresh connection; its return value."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(60)
            sock.connect(str(self.qmp_path))
            reader = sock.makefile("r", encoding="utf-8")
            json.loads(reader.readline())  # the greeting
            for request in ({"execute": "qmp_capabilities"}, {"execute": command, "arguments": arguments}):
                sock.sendall(json.dumps(request).encode() + b"\n")
                while True:
                    reply = json.loads(reader.readline())
                    if "event" in reply:
                        continue
                    assert "error" not in reply, reply
                    break
            return reply["return"]

    def screenshot(self, path: Path) -> Path:
        self.qmp("screendump", filename=str(path), format="png")
        return path

    def power_off(self, timeout: float) -> None:
        """The power button (systemd shuts down cleanly), then qemu exits (-no-reboot)."""
        self.qmp("system_powerdown")
        self.process.wait(timeout=timeout)
        self.log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        if not self.log.closed:
            self.log.close()
