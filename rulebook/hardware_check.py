"""A table's hardware check, as the table reports it to the hub: declared once, checked at the hub.

An organiser runs the check at each table before players sit down (docs/td-guide.md): the clock
buttons pressed in turn, a throw read by the dice tower, the screen's corners touched, the display
looked at, the CPU's temperature and the firmware's throttling flags read. The kiosk builds a
:class:`HardwareCheck`, keeps it in its data directory and sends it inside its health report
(``table/{t}/device``, docs/protocol.md §6, field ``hardware_check``); the hub refuses a report
whose check does not fit this declaration (:func:`parse_hardware_check`), so the Tables page and
``GET /api/fleet`` never show a field they would have to doubt.

Declared here, beside the table's other messages (:mod:`rulebook.messages`), because both ends
hold it and neither may import the other: the kiosk writes it, the hub reads it. The wire check is
read from the declaration (:func:`rulebook.schema.declared`), as for the snapshot.

Every outcome is a result the organiser can act on: ``pass``; ``fail`` with a ``reason`` code (the
step's failure, as :data:`REASONS` lists them); ``skipped`` (the organiser went on without it);
``not_fitted`` (the table has no clock or no tower: nothing to check, not a fault);
``not_available`` (the board cannot say, as a desktop has no thermal zone: not a fault either).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, TypedDict, cast

from rulebook.errors import WireError
from rulebook.schema import (
    ID,
    MAX_MS,
    WALL,
    Int,
    Items,
    Text,
    _Bad,
    _wire_error,
    compile_fast,
    declared,
)


class Step(StrEnum):
    """The steps, in the order the screen asks for them."""

    BUTTON_LEFT = "button_left"
    BUTTON_RIGHT = "button_right"
    DICE = "dice"
    TOUCH = "touch"
    DISPLAY = "display"
    TEMPERATURE = "temperature"
    THROTTLING = "throttling"


#: the steps someone at the table does; the others are read from the system
INTERACTIVE: Final = (Step.BUTTON_LEFT, Step.BUTTON_RIGHT, Step.DICE, Step.TOUCH, Step.DISPLAY)
AUTOMATIC: Final = (Step.TEMPERATURE, Step.THROTTLING)


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    NOT_FITTED = "not_fitted"
    NOT_AVAILABLE = "not_available"


#: outcomes that do not stand in the way of play
FINE: Final = frozenset({Outcome.PASS, Outcome.NOT_FITTED, Outcome.NOT_AVAILABLE})


class Reason(StrEnum):
    """Why a step failed (the screen and the Tables page word each one)."""

    #: nothing came within the step's time (a button, the tower, a corner)
    TIMEOUT = "timeout"
    #: the other clock button answered: its wires are swapped (or the sides are)
    WRONG_BUTTON = "wrong_button"
    #: the organiser said the screen did not show what it should
    NOT_AS_SHOWN = "not_as_shown"
    #: the tower answered, but could not read the dice
    UNREADABLE = "unreadable"
    #: the tower's serial device could not be opened or went away
    NO_TOWER = "no_tower"
    #: the buttons' GPIO could not be opened
    NO_BUTTONS = "no_buttons"
    #: the CPU at or above :data:`HOT_MC`
    TOO_HOT = "too_hot"
    #: the firmware says the supply voltage is low now or was since boot
    UNDER_VOLTAGE = "under_voltage"
    #: the firmware is capping the CPU's speed now (heat or power)
    THROTTLED = "throttled"


class Origin(StrEnum):
    """Who started the check."""

    #: the TD menu at the table
    TABLE = "table"
    #: the TD, from the hub's Tables page
    HUB = "hub"
    #: ``bgtable check`` on the table's command line
    COMMAND = "command"
    #: the table's first start after it was enrolled on its own screen
    FIRST_BOOT = "first_boot"


#: a Raspberry Pi's firmware caps the CPU from 80 °C (millidegrees, as the thermal zone reads)
HOT_MC: Final = 80_000
#: the firmware's ``get_throttled`` bits (Raspberry Pi documentation, ``vcgencmd``)
UNDER_VOLTAGE_NOW: Final = 1 << 0
CAPPED_NOW: Final = 1 << 1
THROTTLED_NOW: Final = 1 << 2
SOFT_LIMIT_NOW: Final = 1 << 3
UNDER_VOLTAGE_SINCE_BOOT: Final = 1 << 16
MAX_DETAIL: Final = 120


class StepResult(TypedDict):
    """One step's outcome. ``detail``: what was measured or seen, for the organiser's eyes
    (``A pressed``, ``3-5``, ``52.1 °C``, ``800x480, 60 Hz``); never a rule."""

    step: Step
    outcome: Outcome
    reason: Reason | None
    detail: Annotated[str, Text(MAX_DETAIL)]
    #: how long the step took (monotonic), 0 for the automatic ones
    took_ms: Annotated[int, Int(0, 24 * 3600 * 1000)]


class Fitted(TypedDict):
    """What this table has: the check asks only for what is there."""

    clock: bool
    tower: bool


class Display(TypedDict):
    width_px: Annotated[int, Int(1, 16384)]
    height_px: Annotated[int, Int(1, 16384)]
    #: the refresh rate SDL reports; null where it cannot say (the dummy driver)
    refresh_hz: Annotated[int | None, Int(1, 1000, nullable=True)]


class HardwareCheck(TypedDict):
    """The last hardware check of a table, whole."""

    #: tells one check from the next (the hub notes when it first heard of each)
    id: Annotated[str, ID]
    origin: Origin
    #: the table's wall clock when it finished (the hub shows its own time of receipt)
    finished_wall: Annotated[int, WALL]
    took_ms: Annotated[int, Int(0, MAX_MS)]
    fitted: Fitted
    display: Display
    #: millidegrees, as ``/sys/class/thermal/thermal_zone0/temp`` reads; null: not available
    cpu_temp_mc: Annotated[int | None, Int(-60_000, 200_000, nullable=True)]
    #: the firmware's ``get_throttled`` bits; null where the board does not expose them
    throttled: Annotated[int | None, Int(0, 2**32 - 1, nullable=True)]
    steps: Annotated[list[StepResult], Items(len(Step), 1)]


HARDWARE_CHECK: Final = declared(HardwareCheck)
_check = compile_fast(HARDWARE_CHECK)


def parse_hardware_check(obj: object) -> HardwareCheck:
    """A table's hardware check, every field checked; raises :class:`WireError` naming the first
    bad field (``steps[2].outcome``). A step named twice is refused too: each is reported once."""
    try:
        check = cast(HardwareCheck, _check(obj))
    except _Bad as bad:
        raise _wire_error(bad, "hardware_check") from None
    names = [s["step"] for s in check["steps"]]
    if len(set(names)) != len(names):
        raise WireError(
            "field.choice", path="steps", kind="hardware_check", choices="each step once", got="a repeat"
        )
    for i, s in enumerate(check["steps"]):
        if (s["outcome"] == Outcome.FAIL) != (s["reason"] is not None):
            raise WireError(
                "field.choice",
                path=f"steps[{i}].reason",
                kind="hardware_check",
                choices="a reason exactly when the step failed",
                got=repr(s["reason"]),
            )
    return check


def failed(check: HardwareCheck) -> list[Step]:
    """The steps that failed, in order."""
    return [s["step"] for s in check["steps"] if s["outcome"] == Outcome.FAIL]


def ready(check: HardwareCheck) -> bool:
    """Every step passed, or has nothing to check here (no step failed or was skipped)."""
    return all(s["outcome"] in FINE for s in check["steps"])


def throttling_outcome(bits: int | None) -> tuple[Outcome, Reason | None]:
    """The firmware's flags judged: low voltage now or since boot fails (a weak supply corrupts
    cards and resets the board mid-match), so does a CPU capped now; throttling that happened and
    stopped is only noted. None: the board does not expose the flags."""
    if bits is None:
        return Outcome.NOT_AVAILABLE, None
    if bits & (UNDER_VOLTAGE_NOW | UNDER_VOLTAGE_SINCE_BOOT):
        return Outcome.FAIL, Reason.UNDER_VOLTAGE
    if bits & (CAPPED_NOW | THROTTLED_NOW | SOFT_LIMIT_NOW):
        return Outcome.FAIL, Reason.THROTTLED
    return Outcome.PASS, None


def temperature_outcome(millidegrees: int | None) -> tuple[Outcome, Reason | None]:
    """At or above :data:`HOT_MC` the table fails (its CPU slows down); None: not available."""
    if millidegrees is None:
        return Outcome.NOT_AVAILABLE, None
    if millidegrees >= HOT_MC:
        return Outcome.FAIL, Reason.TOO_HOT
    return Outcome.PASS, None
