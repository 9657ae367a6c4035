"""The hub's custom profiles: files read at start (refused naming file, line and key), offered in
the schedule and its import preview, carried by the assignment so the table verifies them, and
applied by the hub's own lateness — one set of rules for the match, the rulebook's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from hub.live.clock import FakeClock
from hub.live.state import RoomState
from hub.tournament.profile_files import load_profiles
from hub.tournament.schedule import ScheduleError, parse_schedule
from rulebook.custom_profiles import DIGEST_KEY, ProfileBook, custom_profile
from rulebook.errors import ProfileError, ProfileFileError
from rulebook.parse import parse_input
from rulebook.profiles import get_profile
from rulebook.snapshot import snapshot
from tests.hub.support import (
    MIN,
    T0,
    event_id,
    hub_state,
    one_match,
    schedule_csv,
    sim_table,
    start_hub,
    tick,
)
from tests.rulebook.test_custom_profiles import CLUB, _overrides
from tests.support.patience import patience

FAST = 'base = "hbf"\nclock_default = false\nlateness_first_point_min = 2\nlateness_interval_min = 3\n'


@pytest.fixture
def profiles_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "club.toml").write_text(CLUB, encoding="utf-8")  # named club-thursday inside
    (folder / "fast.toml").write_text(FAST, encoding="utf-8")  # named after its file
    (folder / "notes.txt").write_text("not a profile", encoding="utf-8")
    return folder


def test_every_file_of_the_directory_is_a_profile_named_by_its_file_or_its_name(profiles_dir: Path) -> None:
    book = load_profiles(profiles_dir)
    assert sorted(book.custom) == ["club-thursday", "fast"]
    assert book.get("fast").lateness_first_point_min == 2 and book.base_of("fast") == "hbf"
    assert book.get("fast").break_allowance == get_profile("hbf").break_allowance


def test_a_bad_file_stops_the_load_naming_file_line_and_key(profiles_dir: Path) -> None:
    (profiles_dir / "zz.toml").write_text('base = "hu"\n\nbreak_minutes = 0\n', encoding="utf-8")
    with pytest.raises(ProfileFileError, match=r"zz\.toml:3: break_minutes: 0 is out of range"):
        load_profiles(profiles_dir)
    (profiles_dir / "zz.toml").write_text('name = "fast"\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="two custom profiles are named fast"):
        load_profiles(profiles_dir)
    with pytest.raises(ProfileError, match="not a directory"):
        load_profiles(profiles_dir / "missing")


def test_bghub_refuses_to_start_on_a_bad_profile_file(tmp_path: Path, profiles_dir: Path) -> None:
    (profiles_dir / "zz.toml").write_text('base = "hu"\ncrawford = false\n', encoding="utf-8")
    args = ["--event", "e1", "--db", str(tmp_path / "hub.db"), "--profiles", str(profiles_dir)]
    out = subprocess.run(
        [sys.executable, "-m", "hub.cli", "run", *args], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2
    assert "zz.toml:2: crawford: unknown profile key" in out.stderr
    unknown = subprocess.run(
        [sys.executable, "-m", "hub.cli", "run", *args[:-2], "--profile", "club-thursday"],
        capture_output=True,
        text=True,
        timeout=patience(60),
    )
    assert unknown.returncode == 2 and "unknown profile 'club-thursday'" in unknown.stderr


def test_the_schedule_offers_custom_profiles_and_refuses_an_unknown_one_naming_the_row(
    profiles_dir: Path,
) -> None:
    book = load_profiles(profiles_dir)
    rows = [
        {
            "round": 1,
            "table": "1",
            "player_a": "Ann",
            "player_b": "Bob",
            "length": 7,
            "start": T0,
            "profile": "fast",
        },
        {
            "round": 1,
            "table": "2",
            "player_a": "Cy",
            "player_b": "Di",
            "length": 7,
            "start": T0,
            "profile": "hbf",
        },
    ]
    fast, hbf = parse_schedule(schedule_csv(rows), profiles=book)
    assert fast.profile == "fast" and fast.clock is False  # the custom profile's clock_default
    assert hbf.clock is True
    typo = [*rows, {**rows[0], "table": "3", "player_a": "Eve", "player_b": "Flo", "profile": "fats"}]
    with pytest.raises(ScheduleError) as info:
        parse_schedule(schedule_csv(typo), profiles=book)
    (issue,) = info.value.issues
    assert issue.line == 4 and "unknown profile 'fats'" in issue.message and "fast" in issue.message
    with pytest.raises(ScheduleError, match="unknown profile 'fast'"):  # not offered by a hub without it
        parse_schedule(schedule_csv(rows))


def test_the_assign_command_carries_what_the_table_verifies(profiles_dir: Path) -> None:
    """The wire schema of the assign command: its ``profile`` is a built-in name, or the base,
    the overrides and the digest; the table's own parser resolves and verifies it."""
    book = load_profiles(profiles_dir)
    room = RoomState(get_profile(), book)
    (fast,) = parse_schedule(one_match(profile="fast"), profiles=book)
    payload = json.loads(json.dumps(room.assign_payload(fast)))
    assert payload["profile"] == {
        "base": "hbf",
        "name": "fast",
        "clock_default": False,
        "lateness_first_point_min": 2,
        "lateness_interval_min": 3,
        DIGEST_KEY: book.custom["fast"].digest,
    }
    assign = parse_input({**payload, "input": "assign", "at": 0})
    assert assign.profile == book.get("fast")  # type: ignore[attr-defined]
    (plain,) = parse_schedule(one_match(profile="hu"), profiles=book)
    assert room.assign_payload(plain)["profile"] == "hu"


def test_no_automatic_decision_under_a_profile_the_hub_no_longer_knows(profiles_dir: Path) -> None:
    """A hub started again without the file of a profile its schedule names applies no lateness
    by guessed rules (the table refuses that assignment too, an alert the TD sees)."""
    book = load_profiles(profiles_dir)
    (fast,) = parse_schedule(one_match(profile="fast"), profiles=book)
    assert RoomState(get_profile(), book).known_rules(fast) == book.get("fast")
    assert RoomState(get_profile(), ProfileBook()).known_rules(fast) is None
    assert RoomState(get_profile(), ProfileBook()).assign_payload(fast)["profile"] == "fast"


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(_overrides())
def test_any_custom_profile_of_the_hub_is_taken_by_the_table(data: dict[str, Any]) -> None:
    book = ProfileBook([custom_profile(data)])
    name = data["name"]
    room = RoomState(get_profile(), book)
    (match,) = parse_schedule(one_match(profile=name), profiles=book)
    payload = json.loads(json.dumps(room.assign_payload(match)))
    assert parse_input({**payload, "input": "assign", "at": 0}).profile == book.get(name)  # type: ignore[attr-defined]


def test_the_hub_assigns_the_custom_profile_and_gives_its_lateness_point_at_its_minute(
    tmp_path: Path, mosquitto: Any, profiles_dir: Path
) -> None:
    """The table plays the custom profile the hub sent, and the hub's lateness follows the same
    rules: the first point at two minutes (hbf's own would come at five)."""
    clock = FakeClock(T0 - MIN)
    event = event_id("custom-profile")
    hub = start_hub(
        tmp_path,
        mosquitto.host,
        mosquitto.port,
        event,
        clock,
        schedule=one_match(profile="fast"),
        profiles=load_profiles(profiles_dir),
    )
    try:
        with sim_table(event, "1", mosquitto.host, mosquitto.port, clock) as sim:
            sim.wait_for(lambda s: s.match_id == "r1-t1")
            assert sim.state.profile == hub.hub.config.profiles.get("fast")
            sim.checkin("A")  # Bob is late

            def at(wall: int) -> None:
                hub.wait_for(lambda h: hub_state(h, "1").get("seq") == sim.state.seq)
                clock.set(wall)
                tick(hub)

            at(T0 + 2 * MIN - 1000)
            assert snapshot(sim.state)["penalties"] == {"A": 0, "B": 0}
            at(T0 + 2 * MIN + 1000)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 1)
            at(T0 + 5 * MIN - 1000)  # the next at 2 + 3 minutes
            assert snapshot(sim.state)["penalties"]["B"] == 1
            at(T0 + 5 * MIN + 1000)
            sim.wait_for(lambda s: snapshot(s)["penalties"]["B"] == 2)
            assert hub_state(hub.hub, "1")["profile"] == "fast"
        # the import's preview offers the hub's profiles and refuses an unknown one naming its row
        rc = hub.hub.round_control
        with pytest.raises(ScheduleError, match=r"line 2: profile: unknown profile 'fats' \(known: .*fast"):
            hub.call(rc.preview, one_match(profile="fats"))
        preview = hub.call(rc.preview, one_match(profile="club-thursday"))
        (changed,) = preview["updated"]
        assert changed["match_id"] == "r1-t1" and "profile" in changed["changes"]
    finally:
        hub.stop()
