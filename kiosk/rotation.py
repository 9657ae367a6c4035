"""Screen rotation as plain geometry: the picture is drawn upright, then turned onto the panel.

A table's screen may be mounted upside down or in portrait. The interface always draws on a
*logical* surface the size the players see; these functions map a dirty rectangle of that
surface onto the physical panel, and a touch on the panel back onto the logical surface.
``rotation`` is how far the picture is turned clockwise on the panel (0, 90, 180 or 270).
No display library here, so the mapping is tested on its own.
"""

from __future__ import annotations

Rect = tuple[int, int, int, int]


def logical_size(panel: tuple[int, int], rotation: int) -> tuple[int, int]:
    """The size the interface draws at, for a panel of ``panel`` pixels."""
    width, height = panel
    return (height, width) if rotation in (90, 270) else (width, height)


def to_panel_rect(rect: Rect, logical: tuple[int, int], rotation: int) -> Rect:
    """Where the logical ``rect`` (x, y, w, h) lands on the panel."""
    x, y, w, h = rect
    lw, lh = logical
    if rotation == 90:
        return (lh - y - h, x, h, w)
    if rotation == 180:
        return (lw - x - w, lh - y - h, w, h)
    if rotation == 270:
        return (y, lw - x - w, h, w)
    return rect


def to_logical_point(point: tuple[float, float], logical: tuple[int, int], rotation: int) -> tuple[int, int]:
    """The logical pixel under a panel point (a touch or a click)."""
    px, py = point
    lw, lh = logical
    if rotation == 90:
        x, y = py, lh - px
    elif rotation == 180:
        x, y = lw - px, lh - py
    elif rotation == 270:
        x, y = lw - py, px
    else:
        x, y = px, py
    return (min(max(int(x), 0), lw - 1), min(max(int(y), 0), lh - 1))


def pygame_angle(rotation: int) -> int:
    """The angle for ``pygame.transform.rotate`` (counter-clockwise degrees)."""
    return -rotation % 360
