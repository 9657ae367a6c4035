"""The hardware check's steps at the table: what each waits for, when it ends, and the result.

Pure: the time comes in as an argument (the kiosk's monotonic seconds) and the screen's geometry
is computed here, so the screen (:mod:`kiosk.ui.screens.setup.hwcheck`) draws the very targets
and buttons a tap is tested against, and a test can run the whole check without a display.

One step at a time, in :class:`rulebook.hardware_check.Step`'s order. A step for a part the table
has not got (no clock buttons, no tower) is ``not_fitted`` at once; the automatic readings
(temperature, throttling) are judged by the rulebook's functions from what :class:`Readings`
holds. An interactive step ends with what it waited for, a failure it can see (the other clock
button pressed: wires swapped; an unreadable throw; the organiser's "No"), the organiser's
*Skip*, or :data:`STEP_S` seconds without an answer (``timeout``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rulebook.hardware_check import (
    MAX_DETAIL,
    Display,
    Fitted,
    HardwareCheck,
    Origin,
    Outcome,
    Reason,
    Step,
    StepResult,
    temperature_outcome,
    throttling_outcome,
)

#: seconds an interactive step waits before it fails with ``timeout``
STEP_S = 60.0
#: the summary stays this long (or until a tap)
SUMMARY_S = 60.0
#: which clock button each button step wants
WANTED = {Step.BUTTON_LEFT: "A", Step.BUTTON_RIGHT: "B"}

Rect = tuple[int, int, int, int]
Point = tuple[int, int]


@dataclass(frozen=True)
class Readings:
    """What the check reads from the system once, when it starts (:mod:`kiosk.hwcheck_probe`)."""

    cpu_temp_mc: int | None
    throttled: int | None
    width_px: int
    height_px: int
    refresh_hz: int | None


# -- the screen's geometry -----------------------------------------------------------------------


def target_radius(size: tuple[int, int]) -> int:
    """A corner target's radius: a fingertip's width on the smallest panel, more on larger ones."""
    return max(18, min(size) // 12)


def targets(size: tuple[int, int]) -> list[Point]:
    """The four corner targets' centres: top left, top right, bottom right, bottom left. Near
    the edges, where a badly calibrated or mis-rotated touch panel is found out."""
    w, h = size
    r = target_radius(size)
    m = r + max(4, r // 3)
    return [(m, m), (w - m, m), (w - m, h - m), (m, h - m)]


def skip_rect(size: tuple[int, int]) -> Rect:
    """The *Skip* button: bottom centre, between the lower targets."""
    w, h = size
    bw, bh = w // 4, max(40, h // 9)
    return (w // 2 - bw // 2, h - bh - h // 40, bw, bh)


def answer_rects(size: tuple[int, int]) -> tuple[Rect, Rect]:
    """The display step's *Yes* and *No* buttons, either side of *Skip*."""
    x, y, bw, bh = skip_rect(size)
    gap = size[0] // 40
    return (x - gap - bw, y, bw, bh), (x + bw + gap, y, bw, bh)


def _inside(pos: Point, rect: Rect) -> bool:
    x, y, w, h = rect
    return x <= pos[0] < x + w and y <= pos[1] < y + h


# -- one run ---------------------------------------------------------------------------------------


@dataclass
class CheckRun:
    """One hardware check, from its start to its summary. See the module doc."""

    id: str
    origin: Origin
    fitted: Fitted
    #: the clock buttons' GPIO opened (with a clock fitted, a table whose GPIO failed fails both)
    buttons_ready: bool
    readings: Readings
    started: float
    step_s: float = STEP_S
    results: list[StepResult] = field(default_factory=list)
    #: the corner targets touched so far (indices into :func:`targets`)
    touched: set[int] = field(default_factory=set)
    #: when the current step began; when the run ended (None while a step is open)
    step_started: float = 0.0
    finished_at: float | None = None
    #: whether the tower's port was ever open during the dice step (no: ``no_tower``)
    tower_seen: bool = False

    def __post_init__(self) -> None:
        self.step_started = self.started
        self._advance(self.started)

    @property
    def size(self) -> tuple[int, int]:
        return self.readings.width_px, self.readings.height_px

    @property
    def current(self) -> Step | None:
        """The step waiting for the organiser, or None once every step has a result."""
        done = len(self.results)
        return list(Step)[done] if done < len(Step) else None

    def number(self) -> tuple[int, int]:
        """``(n, of)``: the current step's place among the interactive steps this table has."""
        asking = [s for s in Step if self._asks(s)]
        current = self.current
        return (asking.index(current) + 1 if current in asking else len(asking)), len(asking)

    def left(self, now: float) -> float:
        """Seconds before the current step times out."""
        return max(0.0, self.step_s - (now - self.step_started))

    # -- what happens at the table ---------------------------------------------------------------

    def press(self, name: str, now: float) -> bool:
        """A clock button pressed; True when the check took it (it never reaches a match)."""
        step = self.current
        if step not in WANTED:
            return self.finished_at is None  # during the check no button plays
        if name == WANTED[step]:
            self._end(step, Outcome.PASS, None, f"{name} pressed", now)
        elif name in WANTED.values():
            self._end(step, Outcome.FAIL, Reason.WRONG_BUTTON, f"{name} pressed", now)
        return True

    def roll(self, dice: tuple[int, int] | None, now: float, why: str = "") -> bool:
        """A throw read by the tower (None: unreadable, ``why`` says how)."""
        if self.current != Step.DICE:
            return self.finished_at is None
        if dice is None:
            self._end(Step.DICE, Outcome.FAIL, Reason.UNREADABLE, why[:60], now)
        else:
            self._end(Step.DICE, Outcome.PASS, None, f"{dice[0]}-{dice[1]}", now)
        return True

    def tap(self, pos: Point, now: float) -> bool:
        """A touch on the screen; True when the check took it."""
        step = self.current
        if step is None:
            return self.finished_at is not None
        if _inside(pos, skip_rect(self.size)):
            self._end(step, Outcome.SKIPPED, None, "", now)
        elif step == Step.TOUCH:
            self._touch(pos, now)
        elif step == Step.DISPLAY:
            yes, no = answer_rects(self.size)
            r = self.readings
            seen = f"{r.width_px}x{r.height_px}" + (f", {r.refresh_hz} Hz" if r.refresh_hz else "")
            if _inside(pos, yes):
                self._end(step, Outcome.PASS, None, seen, now)
            elif _inside(pos, no):
                self._end(step, Outcome.FAIL, Reason.NOT_AS_SHOWN, seen, now)
        return True

    def _touch(self, pos: Point, now: float) -> None:
        r = target_radius(self.size)
        for i, (x, y) in enumerate(targets(self.size)):
            if (pos[0] - x) ** 2 + (pos[1] - y) ** 2 <= (r * 3 // 2) ** 2:
                self.touched.add(i)
        if len(self.touched) == 4:
            self._end(Step.TOUCH, Outcome.PASS, None, "4 of 4 corners", now)

    def tick(self, now: float, tower_connected: bool = False) -> None:
        """Time passes: the current step fails when its time is up."""
        self.tower_seen = self.tower_seen or tower_connected
        step = self.current
        if step is None or now - self.step_started < self.step_s:
            return
        detail = ""
        reason = Reason.TIMEOUT
        if step == Step.TOUCH:
            detail = f"{len(self.touched)} of 4 corners"
        elif step == Step.DICE and not self.tower_seen:
            reason = Reason.NO_TOWER
        self._end(step, Outcome.FAIL, reason, detail, now)

    def stop(self, now: float) -> None:
        """End the run now: every step still asking is ``skipped`` (a match arrived)."""
        while (step := self.current) is not None:
            self._end(step, Outcome.SKIPPED, None, "", now)

    # -- moving on ---------------------------------------------------------------------------------

    def _asks(self, step: Step) -> bool:
        if step in WANTED:
            return self.fitted["clock"]
        if step == Step.DICE:
            return self.fitted["tower"]
        return step in (Step.TOUCH, Step.DISPLAY)

    def _end(self, step: Step, outcome: Outcome, reason: Reason | None, detail: str, now: float) -> None:
        took = int(max(0.0, now - self.step_started) * 1000)
        # what a driver said (a tower's reason) goes to the hub: printable, and within the limit
        detail = "".join(ch for ch in detail if ch.isprintable())[:MAX_DETAIL]
        self.results.append(
            {"step": step, "outcome": outcome, "reason": reason, "detail": detail, "took_ms": took}
        )
        self.step_started = now
        self._advance(now)

    def _advance(self, now: float) -> None:
        """Record every step that needs nobody (not fitted, the automatic readings) up to the next
        one that asks the organiser; the end of the run when none is left."""
        while (step := self.current) is not None:
            if step in WANTED and self.fitted["clock"] and not self.buttons_ready:
                self._record(step, Outcome.FAIL, Reason.NO_BUTTONS, "GPIO not available")
            elif step in (*WANTED, Step.DICE) and not self._asks(step):
                self._record(step, Outcome.NOT_FITTED, None, "")
            elif step == Step.TEMPERATURE:
                mc = self.readings.cpu_temp_mc
                outcome, reason = temperature_outcome(mc)
                self._record(step, outcome, reason, "" if mc is None else f"{mc / 1000:.1f} °C")
            elif step == Step.THROTTLING:
                bits = self.readings.throttled
                outcome, reason = throttling_outcome(bits)
                self._record(step, outcome, reason, f"0x{bits:x}" if bits else "")
            else:
                return
        if self.finished_at is None:
            self.finished_at = now

    def _record(self, step: Step, outcome: Outcome, reason: Reason | None, detail: str) -> None:
        self.results.append(
            {"step": step, "outcome": outcome, "reason": reason, "detail": detail, "took_ms": 0}
        )

    # -- the result --------------------------------------------------------------------------------

    def result(self, finished_wall: int) -> HardwareCheck:
        """The check as the table keeps and reports it (once :attr:`current` is None)."""
        r = self.readings
        display: Display = {"width_px": r.width_px, "height_px": r.height_px, "refresh_hz": r.refresh_hz}
        end = self.finished_at if self.finished_at is not None else self.step_started
        return {
            "id": self.id,
            "origin": self.origin,
            "finished_wall": finished_wall,
            "took_ms": int(max(0.0, end - self.started) * 1000),
            "fitted": {"clock": self.fitted["clock"], "tower": self.fitted["tower"]},
            "display": display,
            "cpu_temp_mc": r.cpu_temp_mc,
            "throttled": r.throttled,
            "steps": list(self.results),
        }
