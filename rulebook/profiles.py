"""Rules profiles: every number and choice the federations' rules name, as frozen values.

``wbgf-2023`` is the default (WBGF Tournament Rules, August 2023, NBGF translation). ``hbf``,
``hu`` and ``ffbg-cdf`` differ in breaks, lateness, pauses and the flag rule; see
``docs/rules.md`` for where each number comes from and the interpretations made.

A custom profile is a TOML file naming a ``base`` and overriding some keys; unknown keys and
out-of-range values are refused with a message that names the key.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulebook.errors import ProfileError

#: Every pause reason the protocol knows (PROTOCOL.md §1).
PAUSE_REASONS: frozenset[str] = frozenset(
    {
        "game_over",
        "break",
        "td",
        "dispute",
        "premature_pickup",
        "illegal_move",
        "claim",
        "invalid_roll",
        "equipment",
        "agreement",
        "power_loss",
    }
)

#: Reasons the table or the TD may always use, whatever the profile: the TD's authority and the
#: restore after a power cut are not player pauses.
ALWAYS_ALLOWED_PAUSES: frozenset[str] = frozenset({"td", "power_loss"})

#: WBGF 4.3 ii: pausing is allowed "only in the following seven situations": (a) game over,
#: (b) breaks, (c) a dispute or the TD asks, (d) and (e) dice picked up too early, (f) an illegal
#: move, (g) a player believes the game is over (a claim); and 4.3 v: an invalid roll.
WBGF_PAUSE_REASONS: frozenset[str] = frozenset(
    {"game_over", "break", "td", "dispute", "premature_pickup", "illegal_move", "claim", "invalid_roll"}
)

PREMATURE_ROLL_RULES = frozenset({"opponent_chooses", "reroll"})


@dataclass(frozen=True, slots=True)
class Profile:
    """One federation's rules as data. Durations in minutes or seconds as the rules state them."""

    name: str
    #: whether matches use a clock when the schedule does not say
    clock_default: bool
    minutes_per_point: float
    delay_s: int
    #: ffbg-cdf: minutes added to each reserve for breaks, as ((max_length, minutes), ...)
    bank_break_allowance: tuple[tuple[int, int], ...] = ()
    break_minutes: int = 5
    #: breaks allowed per player: ((max_length, allowed), ...) ascending; the last band is open
    break_allowance: tuple[tuple[int, int], ...] = ((10_000, 1),)
    #: even lengths take the band of length + 1 (WBGF table lists odd lengths only)
    even_length_rounds_up: bool = True
    #: breaks in a final (hu: 2); None = as any match
    final_break_allowance: int | None = None
    #: ffbg-cdf without a clock: one more break at double match point
    double_match_point_extra_break: bool = False
    #: ffbg-cdf with a clock: no clock pause for breaks; breaks run on one's own clock
    breaks_on_running_clock_with_clock: bool = False
    #: lateness: first penalty point at this many minutes late, then one more each interval
    lateness_first_point_min: int = 5
    lateness_interval_min: int = 5
    #: ffbg-cdf without a clock: 20-minute grace, first point after a full block beyond it
    lateness_first_point_min_no_clock: int | None = None
    #: the rules require the points (hbf, hu) rather than allow them (wbgf: "may")
    lateness_points_mandatory: bool = False
    #: ffbg-cdf with a clock: the late player's clock starts at round time; no points
    lateness_clock_starts_at_round: bool = False
    #: WBGF 2.2: after the first interval the TD may start the late player's clock instead
    lateness_clock_alternative: bool = False
    pause_reasons: frozenset[str] = PAUSE_REASONS
    #: 4.3 iii: the flagged player may still win if certain to win (TD decides)
    gin_exception: bool = True
    #: 4.1 v a: what happens to a roll made before the opponent finished
    premature_roll: str = "opponent_chooses"
    #: 4.4 vii: a cube that already wins the match for its owner cannot be redoubled
    dead_cube: bool = True
    max_cube: int = 64

    def allowed_pause(self, reason: str) -> bool:
        return reason in ALWAYS_ALLOWED_PAUSES or reason in self.pause_reasons

    def reserve_ms(self, length: int, minutes_per_point: float | None = None) -> int:
        """Starting reserve: minutes-per-point × length, plus any bank break allowance."""
        mpp = self.minutes_per_point if minutes_per_point is None else minutes_per_point
        return round(mpp * 60_000 * length) + self.bank_break_ms(length)

    def bank_break_ms(self, length: int) -> int:
        for max_length, minutes in self.bank_break_allowance:
            if length <= max_length:
                return minutes * 60_000
        return 0


_WBGF = Profile(
    name="wbgf-2023",
    clock_default=True,
    minutes_per_point=2,
    delay_s=12,
    break_minutes=5,
    break_allowance=((5, 0), (11, 1), (17, 2), (23, 3), (10_000, 4)),
    lateness_clock_alternative=True,
    pause_reasons=WBGF_PAUSE_REASONS,
    gin_exception=True,
)

_HBF = dataclasses.replace(
    _WBGF,
    name="hbf",
    break_allowance=((15, 1), (10_000, 2)),
    even_length_rounds_up=False,
    lateness_points_mandatory=True,
    lateness_clock_alternative=False,
    gin_exception=False,
)

_HU = Profile(
    name="hu",
    clock_default=False,
    # 'hu' names a chess clock without settings: the TD sets them; WBGF's values as a default.
    minutes_per_point=2,
    delay_s=12,
    break_minutes=10,
    break_allowance=((10_000, 1),),
    final_break_allowance=2,
    lateness_points_mandatory=True,
    # 8.10 a-e, plus 8.9: a player may stop the clock after the move to claim the game
    pause_reasons=frozenset({"game_over", "agreement", "equipment", "illegal_move", "td", "claim"}),
    gin_exception=True,
)

_FFBG = Profile(
    name="ffbg-cdf",
    clock_default=True,
    minutes_per_point=3,
    delay_s=15,
    bank_break_allowance=((9, 5), (10_000, 8)),
    break_minutes=5,
    break_allowance=((9, 1), (10_000, 2)),
    double_match_point_extra_break=True,
    breaks_on_running_clock_with_clock=True,
    lateness_first_point_min_no_clock=25,
    lateness_points_mandatory=True,
    lateness_clock_starts_at_round=True,
    pause_reasons=frozenset({"game_over", "claim", "equipment", "dispute", "td"}),
    gin_exception=True,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (_WBGF, _HBF, _HU, _FFBG)}
DEFAULT_PROFILE = "wbgf-2023"


def get_profile(name: str | None = None) -> Profile:
    """A built-in profile by name (default ``wbgf-2023``)."""
    key = name or DEFAULT_PROFILE
    try:
        return PROFILES[key]
    except KeyError:
        raise ProfileError(
            f"profile: unknown profile {key!r} (known: {', '.join(sorted(PROFILES))})"
        ) from None


_FIELDS = {f.name: f for f in dataclasses.fields(Profile)}


def _check_bands(key: str, value: Any) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not value:
        raise ProfileError(f"{key}: expected a non-empty list of [max_length, value] pairs")
    out: list[tuple[int, int]] = []
    last = 0
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in item)
        ):
            raise ProfileError(f"{key}: each entry must be [max_length, value] integers")
        max_length, amount = item
        if max_length <= last or amount < 0:
            raise ProfileError(f"{key}: bands must ascend by max_length with values >= 0")
        last = max_length
        out.append((max_length, amount))
    return tuple(out)


_RANGES: dict[str, tuple[float, float]] = {
    "minutes_per_point": (0.1, 60),
    "delay_s": (0, 120),
    "break_minutes": (1, 120),
    "lateness_first_point_min": (1, 240),
    "lateness_interval_min": (1, 120),
    "lateness_first_point_min_no_clock": (1, 240),
    "final_break_allowance": (0, 20),
    "max_cube": (2, 4096),
}


def _coerce(key: str, value: Any) -> Any:
    """Validate one overridden value against the field's type and range."""
    if key in ("break_allowance", "bank_break_allowance"):
        return _check_bands(key, value)
    if key == "pause_reasons":
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ProfileError(f"{key}: expected a list of reason names")
        unknown = sorted(set(value) - PAUSE_REASONS)
        if unknown:
            raise ProfileError(f"{key}: unknown pause reason(s) {', '.join(unknown)}")
        return frozenset(value)
    if key == "premature_roll":
        if value not in PREMATURE_ROLL_RULES:
            raise ProfileError(f"{key}: must be one of {', '.join(sorted(PREMATURE_ROLL_RULES))}")
        return value
    default = getattr(PROFILES[DEFAULT_PROFILE], key)
    if isinstance(default, bool) or key in (
        "clock_default",
        "even_length_rounds_up",
        "double_match_point_extra_break",
        "breaks_on_running_clock_with_clock",
        "lateness_points_mandatory",
        "lateness_clock_starts_at_round",
        "lateness_clock_alternative",
        "gin_exception",
        "dead_cube",
    ):
        if not isinstance(value, bool):
            raise ProfileError(f"{key}: expected true or false")
        return value
    if key == "name":
        if not isinstance(value, str) or not value.strip():
            raise ProfileError(f"{key}: expected a non-empty string")
        return value
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ProfileError(f"{key}: expected a number")
    lo, hi = _RANGES.get(key, (0, 10_000))
    if not lo <= value <= hi:
        raise ProfileError(f"{key}: {value} is out of range ({lo}..{hi})")
    if key != "minutes_per_point" and not float(value).is_integer():
        raise ProfileError(f"{key}: expected a whole number")
    return value if key == "minutes_per_point" else int(value)


def profile_from_mapping(data: dict[str, Any]) -> Profile:
    """Build a profile from ``{"base": name, key: value, ...}`` (the TOML file's content)."""
    base = get_profile(data.get("base", DEFAULT_PROFILE))
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "base":
            continue
        if key not in _FIELDS:
            raise ProfileError(f"{key}: unknown profile key")
        changes[key] = _coerce(key, value)
    changes.setdefault("name", f"{base.name}+custom")
    return dataclasses.replace(base, **changes)


def load_profile(path: str | Path) -> Profile:
    """Load a custom profile from TOML (``base = "hbf"`` plus overrides)."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ProfileError(f"profile: cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profile: {path} is not valid TOML: {exc}") from None
    return profile_from_mapping(data)


__all__ = [
    "DEFAULT_PROFILE",
    "PAUSE_REASONS",
    "PROFILES",
    "Profile",
    "get_profile",
    "load_profile",
    "profile_from_mapping",
]
