"""What the table's window reports to the application, as plain values (no pygame here).

:class:`kiosk.ui.window.Window` turns SDL's events into these, so the application's main loop
handles touches, clicks, keys and a window close without importing the display library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kiosk.errors import KioskError


class ScreenError(KioskError, RuntimeError):
    """SDL cannot open a display (no screen, no permission on /dev/dri, ...)."""


@dataclass(frozen=True)
class Tap:
    """A touch or a left click at ``(x, y)``: pixels of the upright picture (rotation undone)."""

    x: int
    y: int
    source: Literal["touch", "mouse"] = "touch"

    @property
    def pos(self) -> tuple[int, int]:
        return (self.x, self.y)


@dataclass(frozen=True)
class Key:
    """A key pressed: SDL's key code and modifiers (the desktop key map is ``kiosk.ui.keys``)."""

    key: int
    mod: int = 0


@dataclass(frozen=True)
class Quit:
    """The window was closed: the application stops."""


@dataclass(frozen=True)
class Expose:
    """The display lost its picture (the window was uncovered): present the whole screen again."""


UiEvent = Tap | Key | Quit | Expose
