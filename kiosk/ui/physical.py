"""The physical size of the supported displays, so screens can be checked in millimetres.

Pixels say nothing about what a player can read or touch: the same 1280×720 picture is 155 mm wide
on the 7" Touch Display 2 and would be 110 mm on its 5" sibling. The figures below are the active
areas the makers publish; tests assert the touch targets and the key texts in millimetres on them.

* Raspberry Pi Touch Display (7"), 800×480: 154.08 × 85.92 mm (0.193 × 0.179 mm per pixel).
* Raspberry Pi Touch Display 2 (7"), 1280×720 in landscape: 155 × 88 mm (0.121 × 0.122 mm per
  pixel).

The 5" Touch Display 2 (also 1280×720, about 110 × 62 mm) shows the same picture 30 % smaller:
touch targets would be about 6.5 mm, below the 9 mm the kiosk promises, so it is not supported.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the smallest touch target on any screen or dialog, in millimetres, in both directions
MIN_TARGET_MM = 9.0
#: the smallest gap between a touch target and the edge of the screen (fingers miss at the bezel)
MIN_EDGE_MM = 1.4


@dataclass(frozen=True, slots=True)
class Display:
    name: str
    px: tuple[int, int]
    mm: tuple[float, float]

    @property
    def mm_per_px(self) -> tuple[float, float]:
        return (self.mm[0] / self.px[0], self.mm[1] / self.px[1])

    def width_mm(self, px: float) -> float:
        return px * self.mm_per_px[0]

    def height_mm(self, px: float) -> float:
        return px * self.mm_per_px[1]


TOUCH_DISPLAY = Display('Raspberry Pi Touch Display (7")', (800, 480), (154.08, 85.92))
TOUCH_DISPLAY_2 = Display('Raspberry Pi Touch Display 2 (7")', (1280, 720), (155.0, 88.0))

DISPLAYS: dict[tuple[int, int], Display] = {d.px: d for d in (TOUCH_DISPLAY, TOUCH_DISPLAY_2)}
