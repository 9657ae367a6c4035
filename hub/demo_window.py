"""``bghub demo --window``: one simulated table's kiosk screen in a pygame window.

The screen is the kiosk's own :class:`kiosk.ui.view.KioskView`, drawn from the simulated table's
snapshot exactly as a table's touchscreen draws it, so the demo shows both sides of the product:
the room on the dashboard, one table up close. Clicks and keys work as on a kiosk: a press of the
clock or a result entered here is an input to that table, like the scripted players' own.

Only this module imports pygame, and only when ``--window`` is given: the rest of the demo (and
the hub) runs without a display.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

log = logging.getLogger("hub.demo")

FPS = 30
#: while a clock runs the screen is redrawn at least this often (ms)
REDRAW_RUNNING_MS = 100


class WindowError(RuntimeError):
    """SDL cannot open a window here (no display)."""


class TableWindow:
    """``open()``, ``attach(table)``, then ``step()`` once per frame (False: the window was closed)."""

    def __init__(self, size: tuple[int, int] = (800, 480), lang: str = "en") -> None:
        self.size = size
        self.lang = lang
        self.table: Any = None
        self.frames = 0
        self._pg: Any = None
        self._screen: Any = None
        self._pacer: Any = None
        self.view: Any = None
        self.local: Any = None
        self._seq: tuple[Any, int] | None = None
        self._next_draw = 0.0
        self._dirty = True
        self._flipped = False

    def open(self) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        try:
            pygame.display.init()
            pygame.font.init()
            self._screen = pygame.display.set_mode(self.size)
        except pygame.error as exc:
            pygame.display.quit()
            raise WindowError(f"cannot open a window ({exc}); there may be no display here") from exc
        from kiosk.ui.view import KioskView, LocalState

        self._pg = pygame
        self._pacer = pygame.time.Clock()
        self.view = KioskView(self.size, lang=self.lang)
        self.local = LocalState()
        pygame.display.set_caption("Smart table demo")

    def attach(self, table: Any) -> None:
        """Show ``table`` (a :class:`hub.demo_players.DemoTable`)."""
        self.table = table
        self._pg.display.set_caption(f"Smart table demo: table {table.table}")
        self._dirty = True

    def step(self) -> bool:
        """Handle the window's events, redraw what changed, wait for the next frame."""
        pg = self._pg
        for event in pg.event.get():
            if event.type == pg.QUIT:
                return False
            if self.table is None:
                continue
            if event.type == pg.MOUSEBUTTONDOWN and event.button == 1:
                self._intents(self.view.hit(event.pos, self.table.snapshot_now(), self.local))
            elif event.type == pg.KEYDOWN:
                self._intents(self.view.key(event.key, event.mod, self.table.snapshot_now(), self.local))
            elif event.type in (pg.WINDOWEXPOSED, pg.VIDEOEXPOSE):
                self._flipped = False
            self._dirty = True
        if self.table is not None:
            self._draw()
        self._pacer.tick(FPS)
        return True

    def _intents(self, intents: list[dict[str, Any]]) -> None:
        for intent in intents or ():
            if "input" in intent:
                try:
                    self.table.apply(intent)
                except Exception:
                    log.exception("table %s: input from the window failed", self.table.table)
            elif "ui" in intent:
                self.local.apply(intent)

    def _draw(self) -> None:
        online = bool(self.table.link.online)
        if online != self.local.hub_online:
            self.local.hub_online = online  # the kiosk's hub indicator in the top bar
            self._dirty = True
        snap = self.table.snapshot_now()
        seq = (snap.get("match_id"), snap["seq"])
        now = time.monotonic()
        if not (self._dirty or seq != self._seq or now >= self._next_draw or not self._flipped):
            return
        wall = time.time_ns() // 1_000_000
        rects = self.view.draw(self._screen, snap, self.local, wall)
        interval = self.view.next_frame_ms(snap, wall)
        if snap["clock"]["running"] and snap["clock"]["paused"] is None:
            interval = min(interval, REDRAW_RUNNING_MS)
        self._next_draw = now + interval / 1000
        self._seq, self._dirty = seq, False
        if not self._flipped:
            self._pg.display.flip()
            self._flipped = True
        elif rects:
            self._pg.display.update(rects)
        self.frames += 1

    def save(self, path: str) -> None:
        """Write what the window shows to a PNG."""
        self._pg.image.save(self._screen, path)

    def close(self) -> None:
        if self._pg is not None:
            self._pg.display.quit()
            self._pg = None
