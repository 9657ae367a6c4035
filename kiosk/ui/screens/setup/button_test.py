"""The button test: press each button once, the screen ticks it off.

Started from the Tables page (never during a match). Each of the table's buttons — the two clock
buttons, pause and TD call, those its configuration has — is a box that turns green with a tick
when pressed; when all have been pressed the screen says so, and the result goes to the hub's
Tables page. A tap on the screen, or :data:`TEST_S` seconds, ends the test.
"""

from __future__ import annotations

from typing import Any

import pygame

from kiosk.ui.i18n import N_, translator
from kiosk.ui.screens.setup.draw import band, text_in
from kiosk.ui.text import TextCache
from kiosk.ui.theme import BG, GOOD, LINE, PANEL, TEXT, TEXT_DIM

TEST_S = 120.0
NAMES = {
    "A": N_("Left clock button"),
    "B": N_("Right clock button"),
    "pause": N_("Pause button"),
    "td": N_("TD button"),
}


class ButtonTestView:
    """Draws the test: ``snap`` is ``(buttons, pressed, seconds_left)``."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self.texts = TextCache()
        self._shown: Any = None

    def lines(self, buttons: tuple[str, ...], pressed: frozenset[str]) -> list[str]:
        tr = translator(self.lang, "setup")
        head = tr("All buttons work") if pressed >= set(buttons) else tr("Press each button once")
        return [head, *(tr(NAMES[b]) for b in buttons)]

    def draw(self, surface: pygame.Surface, snap: Any, local: Any, now_wall_ms: int) -> list[pygame.Rect]:
        buttons, pressed, left = snap
        shown = (buttons, pressed, int(left))
        if shown == self._shown:
            return []
        self._shown = shown
        tr = translator(self.lang, "setup")
        surface.fill(BG)
        w, h = surface.get_size()
        head, *names = self.lines(buttons, pressed)
        margin = w // 20
        y, bh = band(h, 0.03, 0.15)
        text_in(
            surface, self.texts, tr("Button test"), (margin, y, w - 2 * margin, bh // 2), bh // 2, TEXT_DIM
        )
        text_in(surface, self.texts, head, (margin, y + bh // 2, w - 2 * margin, bh), bh, TEXT, bold=True)
        count = max(1, len(buttons))
        gap = w // 40
        box_w = (w - gap * (count + 1)) // count
        top, box_h = band(h, 0.25, 0.55)
        # one size for every label, the largest at which the longest fits
        label_size = min(
            (self.texts.fit(label, False, box_h // 7, box_w - 12, box_h // 3, True)[0] for label in names),
            default=box_h // 7,
        )
        for index, (name, label) in enumerate(zip(buttons, names, strict=True)):
            x = gap + index * (box_w + gap)
            done = name in pressed
            pygame.draw.rect(surface, GOOD if done else PANEL, (x, top, box_w, box_h), border_radius=12)
            pygame.draw.rect(surface, LINE, (x, top, box_w, box_h), width=2, border_radius=12)
            mark = "✓" if done else "?"
            text_in(surface, self.texts, mark, (x, top, box_w, box_h * 2 // 3), box_h // 2, TEXT, bold=True)
            text_in(
                surface,
                self.texts,
                label,
                (x + 6, top + box_h * 2 // 3, box_w - 12, box_h // 3),
                label_size,
                TEXT,
                wrap=True,
            )
        y, bh = band(h, 0.85, 0.1)
        text_in(
            surface,
            self.texts,
            tr("Tap the screen to stop ({seconds} s left)").format(seconds=int(left)),
            (0, y, w, bh),
            bh // 2,
            TEXT_DIM,
        )
        return [surface.get_rect()]
