"""Custom profiles end to end in the rulebook: a club's TOML file, read with its lines; the form an
assignment carries; the table that resolves it again and refuses what it cannot verify."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebook.custom_profiles import (
    DIGEST_KEY,
    ProfileBook,
    custom_profile,
    custom_profile_from_toml,
    custom_rules,
    profile_digest,
    verified_profile,
)
from rulebook.errors import ProfileError, ProfileFileError
from rulebook.policy import lateness_points
from rulebook.profiles import PROFILES, get_profile
from rulebook.vocab import PauseReason
from tests.rulebook.helpers import PLAYERS, Table

MIN = 60_000

#: docs/rules.md's worked example: a club's own lateness schedule
CLUB = """\
# Thursday club nights: WBGF rules, a kinder lateness schedule
base = "wbgf-2023"
name = "club-thursday"
lateness_first_point_min = 10
lateness_interval_min = 10
break_allowance = [[7, 0], [10000, 1]]
"""


def _assign(profile: Any) -> dict[str, Any]:
    return {"match_id": "m", "length": 7, "players": PLAYERS, "profile": profile, "clock": False}


def test_the_worked_example_resolves_over_its_base() -> None:
    club = custom_profile_from_toml(CLUB, path="club.toml")
    p = club.profile
    assert p.name == "club-thursday" and club.base == "wbgf-2023"
    assert (p.lateness_first_point_min, p.lateness_interval_min) == (10, 10)
    assert p.break_allowance == ((7, 0), (10_000, 1))
    assert p.delay_s == get_profile("wbgf-2023").delay_s  # what the file leaves is the base's
    # the points follow the club's schedule: none at 9 min, the first at 10, the second at 20
    assert [lateness_points(p, m * MIN, clock=False) for m in (9, 10, 19, 20)] == [0, 1, 1, 2]


def test_the_assignment_carries_base_overrides_and_digest_and_the_table_plays_them() -> None:
    club = custom_profile_from_toml(CLUB, path="club.toml")
    wire = club.wire()
    assert wire["base"] == "wbgf-2023" and wire["lateness_first_point_min"] == 10
    assert wire[DIGEST_KEY] == profile_digest(club.profile)
    t = Table().send("assign", **_assign(json.loads(json.dumps(wire)))).ok()
    assert t.state.profile == club.profile
    assert t.snap()["profile"] == "club-thursday"


@pytest.mark.parametrize(
    ("text", "line", "key", "code"),
    [
        (
            'base = "wbgf-2023"\n\nlateness_first_point_min = 0\n',
            3,
            "lateness_first_point_min",
            "profile.range",
        ),
        ('base = "hbf"\nname = "x"\n  crawford = false\n', 3, "crawford", "profile.key_unknown"),
        ('name = "x"\nbase = "nbgf"\n', 2, "base", "profile.unknown"),
        ('name = "hbf"\n', 1, "name", "profile.name_taken"),
        (
            'base = "hbf"\nbreak_allowance = [\n  [11, 1],\n  [7, 2],\n]\n',
            2,
            "break_allowance",
            "profile.bands",
        ),
        ('base = "hbf"\ndelay_s = = 3\n', 2, "", "profile.not_toml"),
    ],
)
def test_a_bad_file_is_refused_naming_file_line_and_key(text: str, line: int, key: str, code: str) -> None:
    with pytest.raises(ProfileFileError) as info:
        custom_profile_from_toml(text, path="profiles/club.toml")
    err = info.value
    assert (err.code, err.path, err.line) == (code, "profiles/club.toml", line)
    assert str(err).startswith(f"profiles/club.toml:{line}: {key}"), str(err)


def test_a_custom_profiles_rules_reach_the_tables_screens() -> None:
    """The state names the profile; the screens get a custom one's every rule (``rules``, added by
    the kiosk's controller) and read the break and lateness they show from those."""
    from kiosk.ui import facts

    club = custom_profile_from_toml(CLUB, path="club.toml")
    assert custom_rules(get_profile("hbf")) is None
    rules = custom_rules(Table().send("assign", **_assign(club.wire())).ok().state.profile)
    assert rules is not None and rules["lateness_first_point_min"] == 10
    assert facts.profile_of({"profile": "club-thursday", "rules": rules}) == club.profile
    assert facts.profile_of({"profile": "hbf"}) is get_profile("hbf")


def test_a_file_names_its_profile_by_default() -> None:
    club = custom_profile_from_toml(
        'base = "hu"\nbreak_minutes = 15\n', path="d/open.toml", default_name="open"
    )
    assert club.name == "open" and club.wire()["name"] == "open"


def test_the_table_refuses_a_custom_profile_without_its_digest() -> None:
    wire = custom_profile_from_toml(CLUB, path="club.toml").wire()
    del wire[DIGEST_KEY]
    Table().send("assign", **_assign(wire)).refused("club-thursday", code="profile.digest_missing")


def test_the_table_refuses_rules_other_than_the_hubs() -> None:
    """A table whose rulebook resolves the base otherwise (or an assignment altered on its way)
    gives another digest: it refuses, naming the profile, rather than play other rules."""
    wire = custom_profile_from_toml(CLUB, path="club.toml").wire()
    t = Table().send("assign", **_assign({**wire, "lateness_interval_min": 5}))
    t.refused("club-thursday", code="profile.digest")
    assert t.state.match is None
    Table().send("assign", **_assign({**wire, DIGEST_KEY: "zz"})).refused(DIGEST_KEY, code="profile.type")


def test_the_book_offers_built_in_and_custom_names_once() -> None:
    club = custom_profile_from_toml(CLUB, path="club.toml")
    book = ProfileBook([club])
    assert book.names() == [*sorted(PROFILES), "club-thursday"]
    assert book.get("club-thursday") is club.profile and book.get("hbf") is get_profile("hbf")
    assert book.wire("hbf") == "hbf" and book.wire("club-thursday") == club.wire()
    assert book.base_of("club-thursday") == "wbgf-2023" and book.base_of("hbf") is None
    with pytest.raises(ProfileError, match="club-thursday") as info:
        book.get("club-friday")
    assert info.value.code == "profile.unknown"
    with pytest.raises(ProfileError) as repeated:
        ProfileBook([club, club])
    assert repeated.value.code == "profile.name_repeated"


# -- any valid override set round-trips; any corrupted one is refused with its code -----------------

_BANDS = st.lists(st.tuples(st.integers(1, 40), st.integers(0, 6)), min_size=1, max_size=4).map(
    lambda items: [[m, a] for m, a in sorted(dict(items).items())]
)
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "minutes_per_point": st.one_of(st.integers(1, 60), st.floats(0.1, 60, allow_nan=False)),
    "delay_s": st.integers(0, 120),
    "bank_break_allowance": st.one_of(st.just([]), _BANDS),
    "break_minutes": st.integers(1, 120),
    "break_allowance": _BANDS,
    "final_break_allowance": st.one_of(st.just(False), st.integers(0, 20)),
    "lateness_first_point_min": st.integers(1, 240),
    "lateness_interval_min": st.integers(1, 120),
    "lateness_first_point_min_no_clock": st.one_of(st.just(False), st.integers(1, 240)),
    "pause_reasons": st.lists(st.sampled_from([r.value for r in PauseReason]), unique=True),
    "length_correction": st.sampled_from(["next_game", "at_once"]),
    "max_cube": st.integers(2, 4096),
    **{
        key: st.booleans()
        for key in (
            "clock_default",
            "even_length_rounds_up",
            "double_match_point_extra_break",
            "breaks_on_running_clock_with_clock",
            "combine_own_breaks",
            "lateness_clock_starts_at_round",
            "lateness_clock_alternative",
            "pause_passes_double",
            "gin_exception",
            "dead_cube",
        )
    },
}


@st.composite
def _overrides(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True, max_size=8))
    data: dict[str, Any] = {key: draw(_VALUES[key]) for key in keys}
    data["base"] = draw(st.sampled_from(sorted(PROFILES)))
    data["name"] = draw(
        st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True).filter(lambda n: n not in PROFILES)
    )
    return data


@given(_overrides())
def test_any_valid_override_set_round_trips_through_the_assignment(data: dict[str, Any]) -> None:
    club = custom_profile(data)
    wire = json.loads(json.dumps(club.wire()))  # what travels over MQTT
    assert verified_profile(wire) == club.profile
    t = Table().send("assign", **_assign(wire)).ok()
    assert t.state.profile == club.profile


@given(_overrides(), st.data())
def test_any_corrupted_assignment_is_refused_with_its_code(data: dict[str, Any], pick: st.DataObject) -> None:
    club = custom_profile(data)
    wire = json.loads(json.dumps(club.wire()))
    how = pick.draw(st.sampled_from(["value", "digest", "missing"]))
    if how == "value":  # one rule changed on the way (or resolved otherwise by the table)
        wire["delay_s"] = (club.profile.delay_s + pick.draw(st.integers(1, 120))) % 121
        code = "profile.digest"
    elif how == "digest":
        at = pick.draw(st.integers(0, 63))
        digest = wire[DIGEST_KEY]
        wire[DIGEST_KEY] = digest[:at] + ("0" if digest[at] != "0" else "1") + digest[at + 1 :]
        code = "profile.digest"
    else:
        del wire[DIGEST_KEY]
        code = "profile.digest_missing"
    t = Table().send("assign", **_assign(wire))
    t.refused(club.name, code=code)
    assert t.state.match is None
