"""The hardware check's screens: one instruction at a time, then the summary.

The organiser reads what to do in the table's language ("Press the left clock button"), with the
step's number, the seconds left and a *Skip* button; the touch step draws four targets in the
corners (each turns green with a tick when touched); the display step fills the screen with colour
bars and a grey ramp and asks whether they look right (*Yes* / *No*); the summary lists every step
with ✓, ✗ (and why) or a dash. The geometry (targets, buttons) is :mod:`kiosk.hwcheck`'s, the
very rectangles a touch is tested against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from kiosk.hwcheck import CheckRun, answer_rects, skip_rect, target_radius, targets
from kiosk.ui.i18n import N_, translator
from kiosk.ui.screens.setup.draw import band, text_in
from kiosk.ui.text import TextCache
from kiosk.ui.theme import AMBER, BAD, BG, GOOD, LINE, PANEL, SECONDARY, TEXT, TEXT_DARK, TEXT_DIM
from rulebook.hardware_check import FINE, Outcome, Reason, Step, StepResult

#: what the organiser is asked to do at each interactive step
ASK = {
    Step.BUTTON_LEFT: N_("Press the left clock button"),
    Step.BUTTON_RIGHT: N_("Press the right clock button"),
    Step.DICE: N_("Throw the dice in the tower"),
    Step.TOUCH: N_("Touch the four targets"),
    Step.DISPLAY: N_("Red, green, blue, white bars and a smooth grey ramp: is that what you see?"),
}
#: each step's name in the summary
NAMES = {
    Step.BUTTON_LEFT: N_("Left clock button"),
    Step.BUTTON_RIGHT: N_("Right clock button"),
    Step.DICE: N_("Dice tower"),
    Step.TOUCH: N_("Touch screen"),
    Step.DISPLAY: N_("Display"),
    Step.TEMPERATURE: N_("CPU temperature"),
    Step.THROTTLING: N_("Power and throttling"),
}
OUTCOMES = {
    Outcome.PASS: N_("works"),
    Outcome.FAIL: N_("failed"),
    Outcome.SKIPPED: N_("skipped"),
    Outcome.NOT_FITTED: N_("not fitted"),
    Outcome.NOT_AVAILABLE: N_("not available"),
}
REASONS = {
    Reason.TIMEOUT: N_("nothing within the time"),
    Reason.WRONG_BUTTON: N_("the other button answered"),
    Reason.NOT_AS_SHOWN: N_("not as shown"),
    Reason.UNREADABLE: N_("the tower could not read the dice"),
    Reason.NO_TOWER: N_("no tower connected"),
    Reason.NO_BUTTONS: N_("buttons not connected"),
    Reason.TOO_HOT: N_("too hot"),
    Reason.UNDER_VOLTAGE: N_("power supply too weak"),
    Reason.THROTTLED: N_("CPU slowed down"),
}
assert set(ASK) | {Step.TEMPERATURE, Step.THROTTLING} == set(Step) == set(NAMES)
assert set(OUTCOMES) == set(Outcome) and set(REASONS) == set(Reason)
#: the display step's bars, left to right, then a grey ramp below
BARS = ((220, 30, 30), (30, 190, 60), (40, 80, 230), (255, 255, 255))


@dataclass(frozen=True)
class Shown:
    """What a frame of the check shows (a new frame only when this changes)."""

    step: Step | None
    number: int
    of: int
    seconds_left: int
    touched: frozenset[int]
    size: tuple[int, int]
    results: tuple[tuple[Step, Outcome, Reason | None, str], ...]


def shown(run: CheckRun, now: float) -> Shown:
    n, of = run.number()
    return Shown(
        step=run.current,
        number=n,
        of=of,
        seconds_left=int(run.left(now) + 0.999),
        touched=frozenset(run.touched),
        size=run.size,
        results=tuple(_row(r) for r in run.results),
    )


def _row(r: StepResult) -> tuple[Step, Outcome, Reason | None, str]:
    return r["step"], r["outcome"], r["reason"], r["detail"]


class HardwareCheckView:
    """Draws the check (``draw`` as the match screen's, for the window)."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self.texts = TextCache()
        self._shown: Shown | None = None

    def draw(self, surface: pygame.Surface, snap: Any, local: Any, now_wall_ms: int) -> list[pygame.Rect]:
        if snap == self._shown:
            return []
        self._shown = snap
        surface.fill(BG)
        if snap.step is None:
            self._summary(surface, snap)
        else:
            self._step(surface, snap)
        return [surface.get_rect()]

    def lines(self, snap: Shown) -> list[str]:
        """The texts a frame shows (the tests check each fits in the shipped font)."""
        tr = translator(self.lang, "setup")
        if snap.step is None:
            return [tr("Hardware check"), *(self._summary_line(r) for r in snap.results)]
        return [
            tr("Hardware check: step {n} of {of}").format(n=snap.number, of=snap.of),
            tr(ASK[snap.step]),
            tr("{seconds} s left").format(seconds=snap.seconds_left),
            tr("Skip"),
        ]

    # -- a step ----------------------------------------------------------------------------------

    def _step(self, surface: pygame.Surface, snap: Shown) -> None:
        tr = translator(self.lang, "setup")
        w, h = surface.get_size()
        head, ask, left, skip = self.lines(snap)
        r = target_radius((w, h))
        inner = (3 * r, 0, w - 6 * r, h)  # clear of the corner targets
        if snap.step == Step.DISPLAY:
            self._pattern(surface)
            y, bh = band(h, 0.02, 0.22)
            pygame.draw.rect(surface, BG, (0, 0, w, y + bh))
        else:
            y, bh = band(h, 0.04, 0.16)
        text_in(surface, self.texts, head, (inner[0], y, inner[2], bh * 2 // 5), bh * 2 // 5, TEXT_DIM)
        ask_box = (inner[0], y + bh * 2 // 5, inner[2], bh * 3 // 5) if snap.step == Step.DISPLAY else None
        if ask_box is None:
            ty, th = band(h, 0.3, 0.3)
            ask_box = (inner[0], ty, inner[2], th)
        text_in(surface, self.texts, ask, ask_box, h // 9, TEXT, bold=True, wrap=True)
        if snap.step == Step.TOUCH:
            for i, centre in enumerate(targets((w, h))):
                done = i in snap.touched
                pygame.draw.circle(surface, GOOD if done else AMBER, centre, r)
                pygame.draw.circle(surface, TEXT, centre, r, width=3)
                mark = "✓" if done else "+"
                box = (centre[0] - r, centre[1] - r, 2 * r, 2 * r)
                text_in(surface, self.texts, mark, box, r * 3 // 2, TEXT_DARK, bold=True)
        sx, sy, sw, sh = skip_rect((w, h))
        if snap.step == Step.DISPLAY:
            pygame.draw.rect(surface, BG, (0, sy - h // 40, w, h - sy + h // 40))
            yes, no = answer_rects((w, h))
            self._button(surface, yes, tr("Yes"), GOOD)
            self._button(surface, no, tr("No"), BAD)
        else:
            ly, lh = band(h, 0.66, 0.1)
            text_in(surface, self.texts, left, (inner[0], ly, inner[2], lh), lh * 3 // 4, TEXT_DIM)
        self._button(surface, (sx, sy, sw, sh), skip, SECONDARY)

    def _pattern(self, surface: pygame.Surface) -> None:
        """Colour bars over the middle of the screen and a grey ramp under them: a missing colour,
        a tint, banding or a dead area is seen at once."""
        w, h = surface.get_size()
        top, bottom = int(h * 0.24), int(h * 0.8)
        bars_h = (bottom - top) * 2 // 3
        bar_w = w / len(BARS)
        for i, colour in enumerate(BARS):
            pygame.draw.rect(
                surface, colour, (round(i * bar_w), top, round((i + 1) * bar_w) - round(i * bar_w), bars_h)
            )
        ramp_top = top + bars_h
        for x in range(w):
            g = x * 255 // max(1, w - 1)
            pygame.draw.line(surface, (g, g, g), (x, ramp_top), (x, bottom))
        pygame.draw.rect(surface, LINE, (0, top, w, bottom - top), width=1)

    def _button(
        self, surface: pygame.Surface, rect: tuple[int, int, int, int], label: str, colour: Any
    ) -> None:
        pygame.draw.rect(surface, colour, rect, border_radius=10)
        pygame.draw.rect(surface, LINE, rect, width=2, border_radius=10)
        x, y, w, h = rect
        text_in(surface, self.texts, label, (x + 6, y, w - 12, h), h // 2, TEXT, bold=True)

    # -- the summary -----------------------------------------------------------------------------

    def _summary_line(self, row: tuple[Step, Outcome, Reason | None, str]) -> str:
        tr = translator(self.lang, "setup")
        step, outcome, reason, detail = row
        words = tr(OUTCOMES[outcome])
        if reason is not None:
            words += " — " + tr(REASONS[reason])
        elif detail and outcome == Outcome.PASS and step in (Step.TEMPERATURE, Step.DISPLAY, Step.DICE):
            words += f" ({detail})"
        return f"{tr(NAMES[step])}: {words}"

    def _summary(self, surface: pygame.Surface, snap: Shown) -> None:
        tr = translator(self.lang, "setup")
        w, h = surface.get_size()
        y, bh = band(h, 0.02, 0.12)
        ok = all(o in FINE for _, o, _, _ in snap.results)
        head = tr("Ready: every part works") if ok else tr("Not ready: see what failed")
        text_in(
            surface,
            self.texts,
            head,
            (w // 20, y, w - w // 10, bh),
            bh * 3 // 4,
            GOOD if ok else AMBER,
            bold=True,
        )
        rows = len(snap.results) or 1
        top, area = band(h, 0.16, 0.72)
        row_h = area // rows
        margin = w // 20
        size = min(
            (
                self.texts.fit(
                    self._summary_line(r), False, row_h * 3 // 5, w - 2 * margin - row_h, row_h, False
                )[0]
                for r in snap.results
            ),
            default=row_h // 2,
        )
        for i, row in enumerate(snap.results):
            ry = top + i * row_h
            outcome = row[1]
            colour = GOOD if outcome == Outcome.PASS else BAD if outcome == Outcome.FAIL else PANEL
            mark = {Outcome.PASS: "✓", Outcome.FAIL: "✗"}.get(outcome, "–")
            pygame.draw.rect(surface, colour, (margin, ry + 3, row_h - 6, row_h - 6), border_radius=6)
            text_in(
                surface,
                self.texts,
                mark,
                (margin, ry + 3, row_h - 6, row_h - 6),
                row_h * 2 // 3,
                TEXT,
                bold=True,
            )
            line = self.texts.render(self._summary_line(row), size, False, TEXT)
            surface.blit(line, line.get_rect(midleft=(margin + row_h + 6, ry + row_h // 2)))
        y, bh = band(h, 0.9, 0.08)
        text_in(surface, self.texts, tr("Tap the screen to close"), (0, y, w, bh), bh * 3 // 4, TEXT_DIM)
