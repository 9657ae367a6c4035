"""The kiosk screen: draws a snapshot, and turns touches and keys into intents.

``KioskView`` is the whole interface the application uses (see the package docstring). Each call
rebuilds the screen from the snapshot and the :class:`LocalState` as plain values; drawing repaints
only the regions whose content changed, and touches are tested against the very areas drawn.
"""

from __future__ import annotations

import pygame

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui import facts, keys
from kiosk.ui.fmt import TENTHS_BELOW_MS
from kiosk.ui.layout import geometry
from kiosk.ui.local import LocalState
from kiosk.ui.render import Renderer, TextPlacement
from kiosk.ui.scene import Intent, Scene
from kiosk.ui.screens import banner, between, clock_notice, common, dialogs, lobby, play, refusal
from kiosk.ui.screens.base import Ctx
from kiosk.ui.screens.common import DELAY_BAR_STEPS
from kiosk.ui.text import TextCache
from rulebook.vocab import InputType, Phase

__all__ = ["Intent", "KioskView", "LocalState", "TextPlacement"]

SCREENS = {
    "waiting": lobby.waiting,
    "opening": lobby.opening,
    "playing": play.play,
    "between_games": between.between_games,
    "break": between.break_screen,
    "paused": play.paused,
    "flag": play.flag,
    "finished": between.finished,
}


class KioskView:
    """The screen of one table at one size. ``lang`` is the table's language; ``flip`` puts A right."""

    def __init__(self, size: tuple[int, int], lang: str = "en", flip: bool = False):
        self.size = (int(size[0]), int(size[1]))
        self.lang = lang
        self.flip = flip
        self.layout, self.geo = geometry(self.size)
        self._texts = TextCache()
        self._renderer = Renderer(self._texts)
        #: every text drawn on the current screen: (text, rect, box, size, requested, region)
        self.last_layout: list[TextPlacement] = []
        self.last_scene: Scene | None = None
        self._last_now: int | None = None

    # -- drawing ------------------------------------------------------------------------------------

    def build(self, snap: ScreenSnapshot, local: LocalState, now_wall_ms: int) -> Scene:
        """The screen for ``snap`` as values: regions to draw and touch areas."""
        lay = self.layout
        c = Ctx(snap, local, now_wall_ms, lay, self.geo, self.lang, self.flip)
        overlay = local.overlay if dialogs.is_valid(local.overlay, snap, local) else None
        c.modal = overlay is not None
        common.top_bar(c)
        if not facts.has_match(snap):
            lobby.idle(c)
        else:
            SCREENS.get(str(snap.get("phase")), lobby.waiting)(c)
        if local.clock_notice is not None:
            clock_notice.notice(c, local.clock_notice)
        # drawn over the clock notice: a refused input is what the player needs to read now
        if facts.has_match(snap) and local.refusal is not None:
            refusal.draw(c, local.refusal)
        if overlay is not None:
            dialogs.build(c, overlay)
        if local.journal_notice is not None:
            banner.banner(c, local.journal_notice)
        return c.scene

    def draw(
        self, surface: pygame.Surface, snap: ScreenSnapshot, local: LocalState, now_wall_ms: int
    ) -> list[pygame.Rect]:
        """Draw the screen; returns the rectangles that changed (for ``pygame.display.update``).

        Also keeps ``local`` in step with the snapshot: a dialog that no longer applies closes, and
        the players' own languages reset when another match is assigned.
        """
        local.sync(snap, dialogs.is_valid(local.overlay, snap, local))
        self._last_now = now_wall_ms
        scene = self.build(snap, local, now_wall_ms)
        dirty = self._renderer.draw(surface, scene)
        self.last_scene = scene
        self.last_layout = self._renderer.placements()
        return dirty

    def invalidate(self) -> None:
        """Repaint everything on the next draw (e.g. after the display was re-created)."""
        self._renderer.reset()

    def next_frame_ms(self, snap: ScreenSnapshot, now_wall_ms: int | None = None) -> int:
        """Milliseconds until the screen next changes by itself (a clock digit, the delay bar, a
        countdown), between 20 and 1000: the application can sleep that long between frames."""
        waits = [1000]
        clock = snap.get("clock") or {}
        running = clock.get("running")
        if running:
            reserve = int((clock.get("reserve_ms") or {}).get(running, 0))
            delays = clock.get("delay_ms")
            delay = delays[running] if delays else 0
            if delays and delay > 0:
                full = max(delays["A"], delays["B"])
                # the bar shows floor(delay * steps / full): it moves when delay drops below k * full / steps
                k = delay * DELAY_BAR_STEPS // full
                below = -(-k * full // DELAY_BAR_STEPS)
                waits += [(delay - 1) % 1000 + 1, delay - below + 1]
            else:
                unit = 100 if reserve < TENTHS_BELOW_MS else 1000
                waits.append(reserve % unit + 1)
        now = now_wall_ms if now_wall_ms is not None else self._last_now
        if now is not None:
            anchors = [snap.get("start_wall")] if snap.get("phase") == Phase.WAITING else []
            breaks = snap.get("breaks")
            anchors += [breaks["A"]["until_wall"], breaks["B"]["until_wall"]] if breaks else []
            waits += [1000 - (now - a) % 1000 for a in anchors if isinstance(a, int)]
        return max(20, min(waits))

    # -- input -----------------------------------------------------------------------------------------

    def _now_for(self, snap: ScreenSnapshot) -> int:
        if self._last_now is not None:
            return self._last_now
        return int(snap.get("wall") or 0)

    def hit(self, pos: tuple[int, int], snap: ScreenSnapshot, local: LocalState) -> list[Intent]:
        """The intents of a touch at ``pos`` (surface pixels); empty when nothing is there."""
        scene = self.build(snap, local, self._now_for(snap))
        hit = scene.hit_at((int(pos[0]), int(pos[1])))
        return [dict(i) for i in hit.intents] if hit else []

    def key(self, key: int, mod: int, snap: ScreenSnapshot, local: LocalState) -> list[Intent]:
        """The intents of a key press (the desktop key map, see ``kiosk.ui.keys``)."""
        for where, side in (("left", self._left()), ("right", self._right())):
            if key in keys.PRESS[where]:
                return [{"input": InputType.PRESS, "side": side}]
        scene = self.build(snap, local, self._now_for(snap))
        hit = scene.hit_for_key(key)
        if hit is not None:
            return [dict(i) for i in hit.intents]
        if key in keys.BACK and local.overlay is not None:
            return [{"ui": "close"}]
        return []

    def _left(self) -> str:
        return "B" if self.flip else "A"

    def _right(self) -> str:
        return "A" if self.flip else "B"
