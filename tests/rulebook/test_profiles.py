"""Profiles: every number the federations' rules state, and custom TOML profiles (RULES.md §2, §3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulebook import ProfileError, get_profile, load_profile
from rulebook.profiles import (
    PAUSE_REASONS,
    PROFILES,
    WBGF_PAUSE_REASONS,
    Profile,
    profile_as_mapping,
    profile_from_mapping,
)

MIN = 60_000


def test_profiles_known_and_default_is_wbgf() -> None:
    """Profiles: the four rule sets, WBGF 2023 by default."""
    assert set(PROFILES) == {"wbgf-2023", "hbf", "hu", "ffbg-cdf"}
    assert get_profile().name == "wbgf-2023"
    assert get_profile(None) is PROFILES["wbgf-2023"]


def test_unknown_profile_names_the_key() -> None:
    """Profiles: an unknown profile name is refused naming the key."""
    with pytest.raises(ProfileError, match=r"^profile: unknown profile 'nbgf'"):
        get_profile("nbgf")


def test_3_5_v_wbgf_2023_numbers() -> None:
    p = get_profile("wbgf-2023")
    assert (p.clock_default, p.minutes_per_point, p.delay_s) == (True, 2, 12)
    assert p.break_minutes == 5
    assert p.break_allowance == ((5, 0), (11, 1), (17, 2), (23, 3), (10_000, 4))
    assert p.even_length_rounds_up is True
    assert (p.lateness_first_point_min, p.lateness_interval_min) == (5, 5)
    assert p.lateness_first_point_min_no_clock is None
    assert p.lateness_clock_alternative is True  # 2.2 iv: the TD may start the clock instead
    assert p.combine_own_breaks is True  # 2.2 ii: "ved at en spiller kombinerer ... egne pauser"
    assert p.pause_passes_double is True  # 4.4 iii: pausing the clock counts as passing
    assert p.length_correction == "next_game"  # 4.8
    assert p.gin_exception is True  # 4.3 iii
    assert p.dead_cube is True and p.max_cube == 64
    assert p.bank_break_allowance == ()
    assert p.pause_reasons == WBGF_PAUSE_REASONS and WBGF_PAUSE_REASONS < PAUSE_REASONS  # 4.3 ii, v
    assert not p.allowed_pause("equipment") and not p.allowed_pause("agreement")
    assert p.reserve_ms(7) == 14 * MIN


def test_hbf_numbers() -> None:
    """hbf 2.2 (breaks, lateness 'must'), 3.5 v (2 min + 12 s), 4.3 (flag loses)."""
    p = get_profile("hbf")
    assert (p.clock_default, p.minutes_per_point, p.delay_s, p.break_minutes) == (True, 2, 12, 5)
    assert p.break_allowance == ((15, 1), (10_000, 2))
    assert p.even_length_rounds_up is False
    assert p.lateness_clock_alternative is False
    assert p.combine_own_breaks is True  # 2.2: "με τον συνδυασμό διαλειμμάτων από τον ίδιο παίκτη"
    assert p.pause_passes_double is False  # 4.4 iv keeps the acts, not "pausing is passing"
    assert p.length_correction == "next_game"  # 4.8
    assert p.gin_exception is False  # the flagged player loses
    assert p.pause_reasons == WBGF_PAUSE_REASONS  # hbf 4.3: the same seven situations
    assert p.reserve_ms(11) == 22 * MIN


def test_hu_numbers() -> None:
    """hu 1.5 (lateness), 1.6 (10-minute break, two in a final), 8.9-8.10 (pauses), 8.12 (gin)."""
    p = get_profile("hu")
    assert p.clock_default is False  # 8.1: a clock only when asked for or imposed
    assert (p.minutes_per_point, p.delay_s) == (2, 12)  # no settings stated: WBGF's as defaults
    assert p.break_minutes == 10  # 1.6
    assert p.break_allowance == ((10_000, 1),)
    assert p.final_break_allowance == 2  # 1.6: twice in the final
    assert p.gin_exception is True  # 8.12
    assert p.length_correction == "at_once"  # 4.3: corrected and play continues at once
    assert p.combine_own_breaks is False and p.pause_passes_double is False
    assert p.pause_reasons == {"game_over", "agreement", "equipment", "illegal_move", "td", "claim"}


def test_ffbg_cdf_numbers() -> None:
    """ffbg-cdf 1.10-1.11, 9.3, 10.1, 11.14, 12.2."""
    p = get_profile("ffbg-cdf")
    assert (p.clock_default, p.minutes_per_point, p.delay_s) == (True, 3, 15)  # 10.1
    assert p.bank_break_allowance == ((9, 5), (10_000, 8))  # 10.1: 5 min ≤ 9 pts, 8 min for 11
    assert p.break_allowance == ((9, 1), (10_000, 2))  # 1.11
    assert p.double_match_point_extra_break is True  # 1.11 "A DMP ... en plus"
    assert p.breaks_on_running_clock_with_clock is True  # 10.1, 11.14
    assert p.lateness_first_point_min_no_clock == 25  # 1.10: 20 min grace + a 5-min block
    assert p.lateness_clock_starts_at_round is True  # 9.3
    assert p.pause_reasons == {"game_over", "claim", "equipment", "dispute", "td"}  # 11.14
    assert p.gin_exception is True  # 12.2
    assert p.length_correction == "at_once"  # 4.5: "ils doivent rectifier l'erreur"
    # 10.1's own example: 9 points -> 9 x 3 + 5 = 32 minutes
    assert p.reserve_ms(9) == 32 * MIN
    assert p.reserve_ms(11) == (33 + 8) * MIN
    assert p.reserve_ms(5, minutes_per_point=1) == (5 + 5) * MIN


def test_always_allowed_pauses_in_every_profile() -> None:
    """4.3 ii c: the TD may always pause; a power cut restore is not a player pause."""
    for profile in PROFILES.values():
        assert profile.allowed_pause("td") and profile.allowed_pause("power_loss")
    assert not get_profile("ffbg-cdf").allowed_pause("break")  # 11.14: never for a break
    assert not get_profile("hu").allowed_pause("dispute")


def test_custom_toml_profile_overrides_a_base(tmp_path: Path) -> None:
    """3.5 v / 2.2 iii: the TD may set other times and breaks: a custom profile over a base."""
    path = tmp_path / "club.toml"
    path.write_text(
        'base = "hbf"\n'
        "minutes_per_point = 1.5\n"
        "delay_s = 10\n"
        "break_allowance = [[9, 1], [10000, 3]]\n"
        'pause_reasons = ["game_over", "dispute"]\n'
        "gin_exception = true\n",
        encoding="utf-8",
    )
    p = load_profile(path)
    assert p.name == "hbf+custom"
    assert (p.minutes_per_point, p.delay_s) == (1.5, 10)
    assert p.break_allowance == ((9, 1), (10_000, 3))
    assert p.pause_reasons == {"game_over", "dispute"}
    assert p.gin_exception is True
    # everything not overridden comes from the base
    assert p.even_length_rounds_up is False and p.gin_exception is True
    assert p.reserve_ms(7) == round(1.5 * 7 * MIN)


def test_custom_profile_may_name_itself_and_defaults_to_wbgf_base() -> None:
    """A custom profile without base starts from wbgf-2023."""
    p = profile_from_mapping({"name": "club-night", "delay_s": 8})
    assert p.name == "club-night" and p.delay_s == 8 and p.break_allowance == get_profile().break_allowance


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"minutes_per_pt": 2}, "minutes_per_pt"),
        ({"delay_s": 500}, "delay_s"),
        ({"delay_s": -1}, "delay_s"),
        ({"minutes_per_point": 0}, "minutes_per_point"),
        ({"break_minutes": 2.5}, "break_minutes"),
        ({"gin_exception": "yes"}, "gin_exception"),
        ({"break_allowance": [[11, 1], [7, 2]]}, "break_allowance"),
        ({"break_allowance": [[7, -1]]}, "break_allowance"),
        ({"bank_break_allowance": "5"}, "bank_break_allowance"),
        ({"pause_reasons": ["nap"]}, "pause_reasons"),
        ({"premature_roll": "ignore"}, "premature_roll"),  # removed: no rule read it
        ({"lateness_points_mandatory": True}, "lateness_points_mandatory"),  # removed likewise
        ({"length_correction": "never"}, "length_correction"),
        ({"combine_own_breaks": 1}, "combine_own_breaks"),
        ({"final_break_allowance": 2.5}, "final_break_allowance"),
        ({"base": 7}, "base"),
        ({"max_cube": 1}, "max_cube"),
        ({"lateness_interval_min": "5"}, "lateness_interval_min"),
        ({"name": ""}, "name"),
        ({"base": "nbgf"}, "profile"),
    ],
)
def test_custom_profile_refuses_bad_values_naming_the_key(data: dict, key: str) -> None:
    """Custom profiles: unknown keys and out-of-range values are refused naming the key."""
    with pytest.raises(ProfileError) as info:
        profile_from_mapping(data)
    assert str(info.value).startswith(f"{key}:"), str(info.value)


def test_custom_profile_file_errors_name_the_file(tmp_path: Path) -> None:
    """Custom profiles: unreadable or invalid TOML is refused with a clear message."""
    bad = tmp_path / "bad.toml"
    bad.write_text("delay_s = = 3\n", encoding="utf-8")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "missing.toml")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('base = "wbgf-2023"\ncrawford = false\n', encoding="utf-8")
    with pytest.raises(ProfileError, match=r"unknown.toml:2: crawford: unknown profile key"):
        load_profile(unknown)


def test_every_profile_key_can_be_checked_and_round_trips() -> None:
    """Custom profiles are validated field by field: every key of ``Profile`` has its own check,
    and a profile written out as a mapping loads back as the same profile."""
    for profile in PROFILES.values():
        assert profile_from_mapping(profile_as_mapping(profile)) == profile


def test_every_profile_field_is_read_by_a_rule() -> None:
    """A profile field nobody reads is a rule that is silently not applied: each field's name must
    be read as an attribute in the rulebook (or in the hub, for the schedule's clock default)."""
    import dataclasses

    root = Path(__file__).resolve().parents[2]
    sources = "".join(
        path.read_text(encoding="utf-8")
        for folder in ("rulebook", "hub")
        for path in (root / folder).rglob("*.py")
    )
    unread = [f.name for f in dataclasses.fields(Profile) if f.name != "name" and f".{f.name}" not in sources]
    assert unread == []
