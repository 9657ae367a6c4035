"""The screen of a table that is not set up yet: "Table not set up — code 4821" in big type.

The code is what the TD finds on the Tables page and types a table number for; it is drawn as
large as the screen allows so it can be read from across a table. Below, one line says what the
table is doing (looking for the hub, waiting for the TD, cannot reach the hub) and, small, the
device's id and the hub's address for a technician. Once the hub has answered, the fingerprint
of its key: the organiser compares it with the one on the hub's Tables page, so a table is never
set up by another hub. When two hubs answer for the event, both are listed and the table waits
for the organiser to name one (a ``hub =`` line in the card's room.txt).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from kiosk.ui.i18n import translator
from kiosk.ui.screens.setup.draw import band, text_in
from kiosk.ui.screens.setup.phase import SetupPhase
from kiosk.ui.text import TextCache
from kiosk.ui.theme import AMBER, BG, TEXT, TEXT_DIM


@dataclass(frozen=True)
class SetupModel:
    """Everything the screen shows (a value: the screen is redrawn when it changes)."""

    phase: SetupPhase = SetupPhase.SEARCHING
    code: str | None = None
    hub: str = ""
    device: str = ""
    table: str = ""
    detail: str = ""
    #: the fingerprint of the hub's key, once it answered
    hub_key: str = ""
    #: the hubs that answered, when more than one did (phase "choose")
    hubs: tuple[str, ...] = ()


class SetupView:
    """Draws a :class:`SetupModel` (the same ``draw`` as the match screen's, for the window)."""

    def __init__(self, size: tuple[int, int], lang: str = "en") -> None:
        self.size = size
        self.lang = lang
        self.texts = TextCache()
        self._shown: SetupModel | None = None

    def lines(self, model: SetupModel) -> list[str]:
        """The texts of the screen, top to bottom (also what tests and logs read)."""
        tr = translator(self.lang, "setup")
        if model.phase == SetupPhase.ENROLLED:
            head, middle = tr("Set up"), tr("Table {table}").format(table=model.table)
        else:
            head = tr("Table not set up")
            middle = tr("code {code}").format(code=model.code) if model.code else "…"
        status = {
            SetupPhase.SEARCHING: tr("Looking for the hub…"),
            SetupPhase.WAITING: tr("The TD types a table number for this code on the Tables page"),
            SetupPhase.UNREACHABLE: tr("Cannot reach the hub: trying again"),
            SetupPhase.REFUSED: tr("The hub refused: {reason}").format(reason=model.detail),
            SetupPhase.ENROLLED: tr("Starting as table {table}").format(table=model.table),
            SetupPhase.CHOOSE: tr(
                "Two hubs answer: {hubs}. Write the right one as 'hub =' in room.txt"
            ).format(
                hubs=", ".join(h.replace("-", "\u2011") for h in model.hubs)  # a key is not broken
            ),
        }[model.phase]
        small = tr("Device {device}").format(device=model.device)
        if model.hub:
            small += " · " + tr("Hub {hub}").format(hub=model.hub)
        key = tr("Hub key {fingerprint}").format(fingerprint=model.hub_key) if model.hub_key else ""
        return [head, middle, status, small, key]

    def draw(self, surface: pygame.Surface, model: Any, local: Any, now_wall_ms: int) -> list[pygame.Rect]:
        if model == self._shown:
            return []
        self._shown = model
        w, h = surface.get_size()
        surface.fill(BG)
        head, middle, status, small, key = self.lines(model)
        margin = w // 20
        width = w - 2 * margin
        y, bh = band(h, 0.06, 0.18)
        text_in(surface, self.texts, head, (margin, y, width, bh), bh, TEXT, bold=True)
        if model.code and model.phase != SetupPhase.ENROLLED:
            # "code" small above, the digits as large as the screen allows: read across a table
            label = translator(self.lang, "setup")("code {code}").format(code="").strip(" :")
            y, bh = band(h, 0.22, 0.1)
            text_in(surface, self.texts, label, (margin, y, width, bh), bh, TEXT_DIM)
            y, bh = band(h, 0.31, 0.4)
            text_in(surface, self.texts, model.code, (margin, y, width, bh), bh, AMBER, bold=True)
        elif model.phase == SetupPhase.CHOOSE:
            # no guess between two hubs: both, large, for the organiser to pick one in room.txt
            y, bh = band(h, 0.26, 0.56)
            text_in(surface, self.texts, status, (margin, y, width, bh), bh // 6, AMBER, wrap=True)
        else:
            y, bh = band(h, 0.26, 0.42)
            text_in(surface, self.texts, middle, (margin, y, width, bh), bh, AMBER, bold=True)
        if model.phase != SetupPhase.CHOOSE:
            y, bh = band(h, 0.72, 0.14)
            color = TEXT if model.phase in (SetupPhase.WAITING, SetupPhase.ENROLLED) else TEXT_DIM
            text_in(surface, self.texts, status, (margin, y, width, bh), bh // 2, color, wrap=True)
        if key:
            # the fingerprint the organiser compares with the Tables page: larger than the rest
            y, bh = band(h, 0.855, 0.075)
            text_in(surface, self.texts, key, (margin, y, width, bh), bh * 3 // 4, TEXT)
            y, bh = band(h, 0.93, 0.06)
            text_in(surface, self.texts, small, (margin, y, width, bh), bh * 2 // 3, TEXT_DIM)
        else:
            y, bh = band(h, 0.88, 0.09)
            text_in(surface, self.texts, small, (margin, y, width, bh), bh // 2, TEXT_DIM)
        return [surface.get_rect()]

    def invalidate(self) -> None:
        self._shown = None
