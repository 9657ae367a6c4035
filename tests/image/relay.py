"""One guest connection of a booted image carried to a port on this machine's loopback.

qemu's user network (``-netdev user,restrict=on``) lets the guest reach nothing but the addresses
its ``guestfwd`` rules name; a ``cmd:`` rule starts this script for each connection the guest
opens, with that connection as standard input and output. It relays both ways to
``127.0.0.1:PORT`` (the hub's web server or its broker), so the table in the virtual machine
talks to real processes here and no packet of it leaves this machine.

    python relay.py PORT
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

CHUNK = 65536


def relay(port: int) -> None:
    upstream = socket.create_connection(("127.0.0.1", port), timeout=30)
    upstream.settimeout(None)

    def guest_to_host() -> None:
        with contextlib.suppress(OSError):
            while data := os.read(0, CHUNK):
                upstream.sendall(data)
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_WR)

    threading.Thread(target=guest_to_host, daemon=True).start()
    with contextlib.suppress(OSError):
        while data := upstream.recv(CHUNK):
            os.write(1, data)


if __name__ == "__main__":
    relay(int(sys.argv[1]))
