"""The table's display: opens SDL's screen, turns its events into plain values, presents frames.

The application's main loop talks to the screen only through :class:`Window`, so pygame stays
inside ``kiosk.ui``:

* On a Pi without X, SDL picks its KMS/DRM video driver by itself; ``headless`` uses SDL's dummy
  driver (tests, benchmarks).
* Touches arrive as FINGERDOWN (normalised coordinates) and become :class:`~kiosk.ui.events.Tap`
  in pixels; the mouse events SDL synthesises from the same touches are ignored (and counted) so
  nothing is pressed twice. Left clicks become taps too, keys :class:`~kiosk.ui.events.Key`.
* A panel mounted turned (``rotation`` 90/180/270) gets an upright picture: the view draws on a
  logical canvas, each changed rectangle is turned onto the panel, and touches are mapped back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

import pygame

from kiosk.rotation import logical_size, pygame_angle, to_logical_point, to_panel_rect
from kiosk.screen_state import ScreenSnapshot
from kiosk.ui.events import Expose, Key, Quit, ScreenError, Tap, UiEvent

#: SDL's ``which`` for mouse events synthesised from touches (SDL_TOUCH_MOUSEID)
TOUCH_MOUSEID = 0xFFFFFFFF


class Window:
    """The screen of one table: ``poll()`` for inputs, ``draw()`` then ``present()`` per frame.

    ``size`` is the panel in pixels — ``(0, 0)`` for the display's own size (a screen whose size
    nobody has configured yet, e.g. a table not set up) — and ``rotation`` how far the picture is
    turned clockwise on it.
    Raises :class:`~kiosk.ui.events.ScreenError` when SDL cannot open a display.
    """

    def __init__(
        self,
        size: tuple[int, int],
        rotation: int = 0,
        *,
        fullscreen: bool = False,
        headless: bool = False,
        title: str = "bgtable",
    ):
        if headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
        self.panel = (int(size[0]), int(size[1]))
        self.rotation = rotation
        #: mouse events SDL made from touches already taken as FINGERDOWN
        self.ignored_mouse = 0
        flags = pygame.FULLSCREEN if fullscreen and not headless else 0
        try:
            pygame.display.init()
            pygame.font.init()
            self.screen: pygame.Surface = pygame.display.set_mode(self.panel, flags)
        except pygame.error as exc:
            raise ScreenError(f"cannot open the screen ({exc}); use --headless where there is none") from exc
        self.panel = self.screen.get_size()  # what SDL gave: the display's own size for (0, 0)
        pygame.display.set_caption(title)
        if fullscreen:
            pygame.mouse.set_visible(False)
        #: what the view draws on: the screen itself, or an upright picture turned onto it
        self.canvas: pygame.Surface = (
            self.screen if rotation == 0 else pygame.Surface(logical_size(self.panel, rotation)).convert()
        )
        self._pacer = pygame.time.Clock()

    @property
    def size(self) -> tuple[int, int]:
        """The size of the upright picture (what the view is laid out for)."""
        return self.canvas.get_size()

    def refresh_hz(self) -> int | None:
        """The display's refresh rate as SDL reports it (the hardware check); None where it cannot
        say (the dummy driver reports 0)."""
        try:
            rates = pygame.display.get_desktop_refresh_rates()
        except (pygame.error, AttributeError):
            return None
        rate = int(rates[0]) if rates else 0
        return rate if 0 < rate <= 1000 else None

    @property
    def driver(self) -> str:
        """SDL's video driver (``kmsdrm``, ``x11``, ``wayland``, ``dummy``, ...)."""
        return pygame.display.get_driver()

    # -- input ------------------------------------------------------------------------------------

    def poll(self) -> list[UiEvent]:
        """The inputs that arrived since the last call, in order; other SDL events are dropped."""
        out: list[UiEvent] = []
        for event in pygame.event.get():
            ui = self._translate(event)
            if ui is not None:
                out.append(ui)
        return out

    def _translate(self, event: Any) -> UiEvent | None:
        if event.type == pygame.QUIT:
            return Quit()
        if event.type == pygame.FINGERDOWN:
            width, height = self.screen.get_size()
            return self._tap((event.x * width, event.y * height), "touch")
        if event.type == pygame.MOUSEBUTTONDOWN:
            if getattr(event, "touch", False) or getattr(event, "which", 0) == TOUCH_MOUSEID:
                self.ignored_mouse += 1  # SDL's copy of a touch already taken as FINGERDOWN
            elif event.button == 1:
                return self._tap(event.pos, "mouse")
            return None
        if event.type == pygame.KEYDOWN:
            return Key(event.key, event.mod)
        if event.type in (pygame.WINDOWEXPOSED, pygame.VIDEOEXPOSE):
            return Expose()  # the picture is intact in the surface: present it again
        return None

    def _tap(self, panel_point: tuple[float, float], source: Literal["touch", "mouse"]) -> Tap:
        x, y = to_logical_point(panel_point, self.size, self.rotation)
        return Tap(x, y, source)

    # -- output -----------------------------------------------------------------------------------

    def draw(self, view: Any, snap: ScreenSnapshot, local: Any, now_wall_ms: int) -> list[Any]:
        """Let ``view`` (a :class:`~kiosk.ui.view.KioskView`) draw the frame; returns its changed rects."""
        rects: list[Any] = view.draw(self.canvas, snap, local, now_wall_ms)
        return rects

    def present(self, rects: Sequence[Any], full: bool = False) -> None:
        """Show what changed: the ``rects`` from :meth:`draw`, or the whole picture when ``full``."""
        if self.rotation:
            rects = self._rotate_onto_screen(rects, full)
        if full:
            pygame.display.flip()
        elif rects:
            pygame.display.update(list(rects))

    def _rotate_onto_screen(self, rects: Sequence[Any], full: bool) -> list[pygame.Rect]:
        logical = self.canvas.get_size()
        bounds = self.canvas.get_rect()
        if full:
            rects = [bounds]
        out = []
        for rect in rects:
            clipped = pygame.Rect(rect).clip(bounds)
            if clipped.width == 0 or clipped.height == 0:
                continue
            turned = pygame.transform.rotate(self.canvas.subsurface(clipped), pygame_angle(self.rotation))
            box = (clipped.x, clipped.y, clipped.width, clipped.height)
            target = pygame.Rect(to_panel_rect(box, logical, self.rotation))
            self.screen.blit(turned, target.topleft)
            out.append(target)
        return out

    # -- pacing and the end -----------------------------------------------------------------------

    def tick(self, fps: int) -> int:
        """Sleep so that frames come at most ``fps`` times a second; returns ms since the last call."""
        return self._pacer.tick(fps)

    def close(self) -> None:
        """Close the display (idempotent)."""
        pygame.display.quit()
