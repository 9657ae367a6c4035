"""Rules profiles: every number and choice the federations' rules name, as frozen values.

``wbgf-2023`` is the default (WBGF Tournament Rules, August 2023, NBGF translation). ``hbf``,
``hu`` and ``ffbg-cdf`` differ in breaks, lateness, pauses, the flag rule and how a wrong match
length is corrected; see ``docs/rules.md`` for where each number comes from and the
interpretations made. Every field is read by some rule (a test keeps it so).

A custom profile is a TOML file (or the same keys as a JSON object in an assignment) naming a
``base`` and overriding some keys; unknown keys, wrong types and out-of-range values are refused
with a ``ProfileError`` whose code and message name the key.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rulebook.errors import ProfileError
from rulebook.vocab import TABLE_PAUSES, PauseReason

#: Every pause reason the protocol knows (docs/protocol.md §1).
PAUSE_REASONS: frozenset[PauseReason] = frozenset(PauseReason)

#: Reasons the table or the TD may always use, whatever the profile: the TD's authority and the
#: restore after a power cut are not player pauses.
ALWAYS_ALLOWED_PAUSES: frozenset[PauseReason] = TABLE_PAUSES

#: WBGF 4.3 ii: pausing is allowed "only in the following seven situations": (a) game over,
#: (b) breaks, (c) a dispute or the TD asks, (d) and (e) dice picked up too early, (f) an illegal
#: move, (g) a player believes the game is over (a claim); and 4.3 v: an invalid roll.
WBGF_PAUSE_REASONS: frozenset[PauseReason] = frozenset(
    {
        PauseReason.GAME_OVER,
        PauseReason.BREAK,
        PauseReason.TD,
        PauseReason.DISPUTE,
        PauseReason.PREMATURE_PICKUP,
        PauseReason.ILLEGAL_MOVE,
        PauseReason.CLAIM,
        PauseReason.INVALID_ROLL,
    }
)

LengthCorrection = Literal["next_game", "at_once"]
LENGTH_CORRECTIONS: tuple[LengthCorrection, ...] = ("next_game", "at_once")

#: a double made in the Crawford game: refused (WBGF 4.4 iv: void; HBF 4.4 iv: voided), or
#: recorded for the match leader to keep or void: before it is answered (FFBG 6.5: before the score
#: is marked; 6.10: a take ratifies the cube), or until the next game starts (HU 7.5: also a double
#: the leader took)
CrawfordDouble = Literal["refused", "leader_before_answer", "leader_until_next_game"]
CRAWFORD_DOUBLES: tuple[CrawfordDouble, ...] = ("refused", "leader_before_answer", "leader_until_next_game")

#: the highest cube the table records, whatever the rules: 2**20 = 1,048,576, twenty doublings in
#: one game. A profile without a limit (FFBG: "aucune limite au nombre de redoubles") stops here;
#: with the dead-cube rule a match of at most 99 points never passes 128 anyway.
CUBE_CEILING = 2**20


@dataclass(frozen=True, slots=True)
class Profile:
    """One federation's rules as data. Durations in minutes or seconds as the rules state them."""

    name: str
    #: whether matches use a clock when the schedule does not say (the hub's schedule import)
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
    #: WBGF/HBF 2.2 ii: a player may combine his own breaks into one longer break
    combine_own_breaks: bool = False
    #: lateness: first penalty point at this many minutes late, then one more each interval
    lateness_first_point_min: int = 5
    lateness_interval_min: int = 5
    #: ffbg-cdf without a clock: 20-minute grace, first point after a full block beyond it
    lateness_first_point_min_no_clock: int | None = None
    #: ffbg-cdf with a clock: the late player's clock starts at round time; no points
    lateness_clock_starts_at_round: bool = False
    #: WBGF 2.2 iv: after the first interval the TD may start the late player's clock instead
    lateness_clock_alternative: bool = False
    pause_reasons: frozenset[PauseReason] = PAUSE_REASONS
    #: WBGF 4.4 iii: a doubled player who pauses the clock instead of answering has passed
    pause_passes_double: bool = False
    #: 4.3 iii: the flagged player may still win if certain to win (TD decides)
    gin_exception: bool = True
    #: wrong match length: WBGF/HBF 4.8 at the next game's start; HU 4.3, FFBG 4.5 at once
    length_correction: LengthCorrection = "next_game"
    #: 4.4 vii: a cube that already wins the match for its owner cannot be redoubled
    dead_cube: bool = True
    #: the highest cube value; None = no limit (FFBG: "aucune limite au nombre de redoubles"),
    #: which the table records up to ``CUBE_CEILING``
    max_cube: int | None = 64
    #: HBF 4.1 v a ("η ζαριά μετράει"), FFBG 5.14 ("doit impérativement utiliser le jet"): a roll
    #: made before the opponent finished counts (WBGF 4.1 v a, HU 6.11: the opponent chooses)
    premature_roll_counts: bool = False
    #: what becomes of a double made in the Crawford game (``CrawfordDouble``)
    crawford_double: CrawfordDouble = "refused"
    #: HU 7.9: the TD may forbid a player who touched the cube to double for the rest of the game
    td_forbids_double: bool = False
    #: FFBG 6.8: handling the cube can oblige a player to double: the TD enters the double
    td_forces_double: bool = False
    #: FFBG 10.3: a table abandoned on a neutralised clock can make both players lose (0 points each)
    double_loss: bool = False

    def cube_limit(self) -> int:
        """The highest cube value the table records in these rules."""
        return CUBE_CEILING if self.max_cube is None else self.max_cube

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

    def allows_start_clock(self) -> bool:
        """Whether the TD starts a late player's clock (WBGF 2.2 iv alternative, FFBG 9.3)."""
        return self.lateness_clock_alternative or self.lateness_clock_starts_at_round


_WBGF = Profile(
    name="wbgf-2023",
    clock_default=True,
    minutes_per_point=2,
    delay_s=12,
    break_minutes=5,
    break_allowance=((5, 0), (11, 1), (17, 2), (23, 3), (10_000, 4)),
    combine_own_breaks=True,
    lateness_clock_alternative=True,
    pause_reasons=WBGF_PAUSE_REASONS,
    pause_passes_double=True,
    gin_exception=True,
    length_correction="next_game",
)

_HBF = dataclasses.replace(
    _WBGF,
    name="hbf",
    break_allowance=((15, 1), (10_000, 2)),
    even_length_rounds_up=False,
    lateness_clock_alternative=False,
    # HBF 4.4 iv keeps the take/pass acts but not WBGF's "pausing counts as passing"
    pause_passes_double=False,
    gin_exception=False,
    # HBF 4.1 v a: "η ζαριά μετράει" (WBGF 4.1 v a gives the opponent the choice)
    premature_roll_counts=True,
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
    # 8.10 a-e, plus 8.9: a player may stop the clock after the move to claim the game
    pause_reasons=frozenset(
        {
            PauseReason.GAME_OVER,
            PauseReason.AGREEMENT,
            PauseReason.EQUIPMENT,
            PauseReason.ILLEGAL_MOVE,
            PauseReason.TD,
            PauseReason.CLAIM,
        }
    ),
    gin_exception=True,
    length_correction="at_once",
    # 7.5: the leader who took a double in the Crawford game may void it until the next game starts
    crawford_double="leader_until_next_game",
    # 7.9: the referee may forbid a player who touched the cube to double in that game
    td_forbids_double=True,
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
    lateness_clock_starts_at_round=True,
    # 11.14: end of a game, claiming a result, fallen equipment, a dispute (and the TD's own)
    pause_reasons=frozenset(
        {PauseReason.GAME_OVER, PauseReason.CLAIM, PauseReason.EQUIPMENT, PauseReason.DISPUTE, PauseReason.TD}
    ),
    gin_exception=True,
    length_correction="at_once",
    # game rules: "Il n'y a aucune limite au nombre de redoubles dans un jeu"
    max_cube=None,
    # 5.14: "un joueur ayant lancé les dés avant son tour doit impérativement utiliser le jet"
    premature_roll_counts=True,
    # 6.5: the leader may void a double sent in the Crawford game before the score is marked;
    # 6.10: "L'acceptation d'un videau ratifie la validité de celui-ci"
    crawford_double="leader_before_answer",
    # 6.8: handling the cube "peut donc entraîner l'obligation de doubler ou de redoubler"
    td_forces_double=True,
    # 10.3: "auquel cas les deux joueurs marquent 0 point"
    double_loss=True,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (_WBGF, _HBF, _HU, _FFBG)}
DEFAULT_PROFILE = "wbgf-2023"


def get_profile(name: str | None = None) -> Profile:
    """A built-in profile by name (default ``wbgf-2023``)."""
    key = name or DEFAULT_PROFILE
    try:
        return PROFILES[key]
    except KeyError:
        raise ProfileError("profile.unknown", name=repr(key), known=", ".join(sorted(PROFILES))) from None


# -- custom profiles: every key checked by its own rule ---------------------------------------------

_FIELDS = {f.name: f for f in dataclasses.fields(Profile)}


def _bands(key: str, value: Any) -> tuple[tuple[int, int], ...]:
    # no band at all is allowed for the bank allowance only (no minutes added)
    if not isinstance(value, list) or (not value and key != "bank_break_allowance"):
        raise ProfileError("profile.bands", key=key)
    out: list[tuple[int, int]] = []
    last = 0
    for item in value:
        if not isinstance(item, list) or len(item) != 2 or not all(type(x) is int for x in item):
            raise ProfileError("profile.bands", key=key)
        max_length, amount = item
        if max_length <= last or amount < 0:
            raise ProfileError("profile.bands", key=key)
        last = max_length
        out.append((max_length, amount))
    return tuple(out)


def _boolean(key: str, value: Any) -> bool:
    if type(value) is not bool:
        raise ProfileError("profile.type", key=key, expected="true or false")
    return value


def _name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise ProfileError("profile.type", key=key, expected="a name of 1 to 64 characters")
    return value


def _reasons(key: str, value: Any) -> frozenset[PauseReason]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ProfileError("profile.type", key=key, expected="a list of pause reason names")
    known = {r.value: r for r in PauseReason}
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise ProfileError("profile.reasons", key=key, reasons=", ".join(unknown))
    return frozenset(known[x] for x in value)


def _length_correction(key: str, value: Any) -> LengthCorrection:
    if value == "next_game" and isinstance(value, str):
        return "next_game"
    if value == "at_once" and isinstance(value, str):
        return "at_once"
    raise ProfileError("profile.type", key=key, expected=" or ".join(LENGTH_CORRECTIONS))


def _crawford_double(key: str, value: Any) -> CrawfordDouble:
    for word in CRAWFORD_DOUBLES:
        if value == word and isinstance(value, str):
            return word
    raise ProfileError("profile.type", key=key, expected=" or ".join(CRAWFORD_DOUBLES))


def _ranged(lo: float, hi: float, *, whole: bool = True, optional: bool = False) -> Any:
    def check(key: str, value: Any) -> Any:
        if optional and value is False:  # TOML has no null: false switches an optional number off
            return None
        if type(value) not in ((int,) if whole else (int, float)):
            raise ProfileError("profile.type", key=key, expected="a whole number" if whole else "a number")
        if not lo <= value <= hi:
            raise ProfileError("profile.range", key=key, value=value, lo=lo, hi=hi)
        return value

    return check


#: one check per key of ``Profile``: a key without a check cannot be overridden by mistake
_CHECKS: dict[str, Any] = {
    "name": _name,
    "clock_default": _boolean,
    "minutes_per_point": _ranged(0.1, 60, whole=False),
    "delay_s": _ranged(0, 120),
    "bank_break_allowance": _bands,
    "break_minutes": _ranged(1, 120),
    "break_allowance": _bands,
    "even_length_rounds_up": _boolean,
    "final_break_allowance": _ranged(0, 20, optional=True),
    "double_match_point_extra_break": _boolean,
    "breaks_on_running_clock_with_clock": _boolean,
    "combine_own_breaks": _boolean,
    "lateness_first_point_min": _ranged(1, 240),
    "lateness_interval_min": _ranged(1, 120),
    "lateness_first_point_min_no_clock": _ranged(1, 240, optional=True),
    "lateness_clock_starts_at_round": _boolean,
    "lateness_clock_alternative": _boolean,
    "pause_reasons": _reasons,
    "pause_passes_double": _boolean,
    "gin_exception": _boolean,
    "length_correction": _length_correction,
    "dead_cube": _boolean,
    "max_cube": _ranged(2, CUBE_CEILING, optional=True),
    "premature_roll_counts": _boolean,
    "crawford_double": _crawford_double,
    "td_forbids_double": _boolean,
    "td_forces_double": _boolean,
    "double_loss": _boolean,
}
assert set(_CHECKS) == set(_FIELDS), "every profile key needs its check"


def profile_from_mapping(data: dict[str, Any]) -> Profile:
    """Build a profile from ``{"base": name, key: value, ...}`` (a TOML file's or an assignment's)."""
    base_name = data.get("base", DEFAULT_PROFILE)
    if not isinstance(base_name, str):
        raise ProfileError("profile.type", key="base", expected="the name of a built-in profile")
    base = get_profile(base_name)
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "base":
            continue
        check = _CHECKS.get(key)
        if check is None:
            raise ProfileError("profile.key_unknown", key=key)
        changes[key] = check(key, value)
    changes.setdefault("name", f"{base.name}+custom")
    return dataclasses.replace(base, **changes)


def profile_as_mapping(profile: Profile) -> dict[str, Any]:
    """The custom-profile object that rebuilds ``profile`` (what an assignment may carry)."""
    out: dict[str, Any] = {}
    for key in _FIELDS:
        value = getattr(profile, key)
        if isinstance(value, frozenset):
            value = sorted(str(x) for x in value)  # plain names, as JSON and TOML write them
        elif isinstance(value, tuple):
            value = [list(band) for band in value]
        elif value is None:
            value = False
        out[key] = value
    return out


def load_profile(path: str | Path) -> Profile:
    """Load a custom profile from TOML (``base = "hbf"`` plus overrides); a refusal is a
    ``ProfileFileError`` naming the file, the line and the key (``rulebook.custom_profiles``)."""
    from rulebook.custom_profiles import custom_profile_from_toml  # it builds on this module

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise ProfileError("profile.unreadable", path=str(path), detail=detail) from None
    return custom_profile_from_toml(text, path=str(path)).profile


__all__ = [
    "CRAWFORD_DOUBLES",
    "CUBE_CEILING",
    "DEFAULT_PROFILE",
    "PAUSE_REASONS",
    "PROFILES",
    "Profile",
    "get_profile",
    "load_profile",
    "profile_as_mapping",
    "profile_from_mapping",
]
