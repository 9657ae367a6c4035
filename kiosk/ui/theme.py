"""Colours of the kiosk screen: a dark theme that stays readable across a table in a bright room.

No state is ever shown by colour alone: each colour below goes with a shape, a frame or a word
(running clock: brighter panel plus a frame and an arrow; hub offline: a crossed ring).
"""

from __future__ import annotations

Color = tuple[int, int, int]

BG: Color = (12, 15, 20)
TOPBAR: Color = (22, 27, 35)
PANEL: Color = (26, 32, 41)
PANEL_ACTIVE: Color = (48, 62, 80)
PANEL_ALERT: Color = (70, 24, 24)
OVERLAY: Color = (18, 22, 29)
LINE: Color = (70, 80, 94)

TEXT: Color = (244, 246, 249)
TEXT_DIM: Color = (128, 138, 152)
TEXT_DARK: Color = (16, 18, 22)

PRIMARY: Color = (40, 96, 178)
SECONDARY: Color = (58, 66, 80)
GOOD: Color = (34, 139, 78)
BAD: Color = (178, 44, 44)
AMBER: Color = (240, 176, 40)
#: a control on the amber TD-call bar that cannot be used now (drawn flat, no touch area)
AMBER_MUTED: Color = (196, 146, 44)
AMBER_MUTED_TEXT: Color = (110, 82, 28)
LOW_TIME: Color = (255, 160, 70)
FLAG: Color = (230, 60, 60)
MARKER: Color = (255, 255, 255)

DIE_FACE: Color = (244, 243, 236)
DIE_PIP: Color = (20, 20, 20)
DIE_PICKED: Color = (24, 28, 36)

STYLES: dict[str, tuple[Color, Color]] = {
    "primary": (PRIMARY, TEXT),
    "secondary": (SECONDARY, TEXT),
    "good": (GOOD, TEXT),
    "bad": (BAD, TEXT),
    "amber": (AMBER, TEXT_DARK),
    #: a button on the amber TD-call bar
    "on_amber": (TEXT_DARK, AMBER),
}
