"""A touch harness for the table's screen: tap the label you see, as a player would.

It plays the application's part: ``ui`` intents go to ``LocalState.apply``, table inputs get
``at``/``wall`` and go through the real reducer, the TD preview is the reducer's dry run, and the
next frame is drawn from the new snapshot.
"""

from __future__ import annotations

import pygame

from kiosk import td_preview
from kiosk.ui import samples
from kiosk.ui.view import KioskView, LocalState
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table

SMALL = (800, 480)


class Kiosk:
    """The screen over a real table state, as the application runs it."""

    def __init__(self, journal: samples.Journal, size=SMALL, lang="en", flip=False, pin="4321"):
        self.state = replay(journal.lines, new_table(samples.TABLE))
        self.at = journal.at
        self.view = KioskView(size, lang=lang, flip=flip)
        self.surface = pygame.Surface(size)
        self.local = LocalState(hub_online=True, td_pin=pin)
        self.sent: list[dict] = []
        self.app: list[dict] = []
        self.rejected: list[dict] = []
        self.draw()

    @property
    def snap(self) -> dict:
        """The snapshot a frame is drawn over; as the application does, the TD preview's dry run
        is brought up to date first (``kiosk.td_preview.refresh``)."""
        td_preview.refresh(self.local, self.state)
        return snapshot(self.state)

    def draw(self) -> list[pygame.Rect]:
        snap = self.snap
        return self.view.draw(self.surface, snap, self.local, snap["wall"])

    def texts(self) -> list[str]:
        return [p.text for p in self.view.last_layout]

    def placement(self, text: str):
        found = [p for p in self.view.last_layout if p.text == text]
        assert found, f"{text!r} is not on the screen: {self.texts()}"
        return found[0]

    def handle(self, intents: list[dict], dt: int = 500) -> None:
        for intent in intents:
            if self.local.apply(intent):
                continue
            if "app" in intent:
                self.app.append(intent)
                continue
            self.at += dt
            inp = dict(intent, at=self.at, wall=samples.WALL0 + self.at)
            if inp.get("input") == "cmd":
                inp["id"] = f"kiosk-{self.at}"
            self.sent.append(intent)
            self.state, events = apply(self.state, inp)
            self.rejected += [e for e in events if e.get("rejected") or e.get("ok") is False]
        self.draw()

    def tap(self, text: str, nth: int = 0) -> list[dict]:
        """Touch the centre of the ``nth`` drawn ``text`` (left to right); returns the intents."""
        found = sorted((p for p in self.view.last_layout if p.text == text), key=lambda p: p.rect[0])
        assert len(found) > nth, f"{text!r} is not on the screen: {self.texts()}"
        x, y, w, h = found[nth].rect
        intents = self.view.hit((x + w // 2, y + h // 2), self.snap, self.local)
        assert intents, f"touching {text!r} does nothing"
        self.handle(intents)
        return intents

    def tap_at(self, pos: tuple[int, int]) -> list[dict]:
        intents = self.view.hit(pos, self.snap, self.local)
        self.handle(intents)
        return intents

    def key(self, key: int) -> list[dict]:
        intents = self.view.key(key, 0, self.snap, self.local)
        self.handle(intents)
        return intents

    def tick(self, dt: int) -> None:
        self.handle([{"input": "tick"}], dt)


def die_center(k: Kiosk, side_is_left: bool, value: int) -> tuple[int, int]:
    """The centre of a die face: the touch areas of the dice are those of the drawn faces."""
    scene = k.view.last_scene
    assert scene is not None
    for hit in scene.hits:
        intent = hit.intents[0]
        if intent.get("ui") == "die" and intent["value"] == value:
            x, y, w, h = hit.rect
            if (x < k.view.size[0] // 2) == side_is_left:
                return x + w // 2, y + h // 2
    raise AssertionError(f"no die {value}")
