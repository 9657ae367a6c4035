"""A cuttable network link between a room's broker and the central one, on loopback.

The room's bridge connects to this forwarder's port instead of the central broker's, so a test can
cut the link between the two rooms (every connection closed, nothing accepted) while both brokers
and every table keep running, and mend it again on the same port: what a room sees when the
building's uplink fails and comes back.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading


class CuttableLink:
    """TCP forwarder ``127.0.0.1:port`` -> ``target``; ``cut()`` and ``mend()`` keep the port."""

    def __init__(self, target: tuple[str, int], port: int | None = None) -> None:
        self.target = target
        self._listener: socket.socket | None = self._listen(port or 0)
        self.port = self._listener.getsockname()[1]  # held from now on: no other test takes it
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @staticmethod
    def _listen(port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        return listener

    def mend(self) -> CuttableLink:
        """Start forwarding (again)."""
        listener = self._listener or self._listen(self.port)
        self._listener = listener
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(listener,), daemon=True)
        self._thread.start()
        return self

    def cut(self) -> None:
        """Close every forwarded connection and stop accepting new ones."""
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _run(self, listener: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(listener, selectors.EVENT_READ)
        peers: dict[socket.socket, socket.socket] = {}
        while not self._stop.is_set():
            for key, _ in sel.select(0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is listener:
                    with contextlib.suppress(OSError):
                        client, _addr = listener.accept()
                        upstream = socket.create_connection(self.target, timeout=5)
                        for s in (client, upstream):
                            s.setblocking(False)
                            sel.register(s, selectors.EVENT_READ)
                        peers[client], peers[upstream] = upstream, client
                        with self._lock:
                            self._conns += [client, upstream]
                    continue
                try:
                    data = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                other = peers.get(sock)
                if not data or other is None:
                    for end in (sock, other):
                        if end is not None and end in peers:
                            with contextlib.suppress(KeyError, ValueError):
                                sel.unregister(end)
                            peers.pop(end, None)
                            end.close()
                    continue
                with contextlib.suppress(OSError):
                    other.setblocking(True)
                    other.sendall(data)
                    other.setblocking(False)
        sel.close()
