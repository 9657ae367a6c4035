"""hub.live.bridged_rooms without a broker: the rooms list a hub.toml gives, and what a room's bridge
notifications do to its tables (cut off, catching up, back), including payloads that are not one."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.live.bridged_rooms import CATCH_UP_MS, BridgedRooms, RoomsError, load_rooms, parse_rooms

T = 1_900_000_000_000


def rooms() -> BridgedRooms:
    return BridgedRooms.of({"east": ("E1", "E2"), "west": ("W1",)}, T)


def test_a_room_is_cut_off_until_heard_up_then_down_and_catching_up_when_back():
    r = rooms()
    assert r.cut_off("E1", T) and r.cut_off("W1", T)  # not heard of yet: nothing is known
    assert not r.cut_off("1", T)  # on the central broker: the rooms say nothing about it
    link = r.bridge_said("east", b"1", T + 10)
    assert link is not None and link.look(T + 10) == "up"  # first heard: nothing to catch up
    assert not r.cut_off("E1", T + 10) and r.cut_off("W1", T + 10)
    assert r.bridge_said("east", b"1", T + 20) is None  # the same again (a hub reconnecting)
    r.bridge_said("east", b"0", T + 30)
    assert r.cut_off("E2", T + 31) and r.tile_facts("E2", T + 31)["status"] == "room_offline"
    r.bridge_said("east", b"1", T + 40)
    assert r.cut_off("E1", T + 40 + CATCH_UP_MS - 1)
    assert r.tile_facts("E1", T + 41)["status"] == "room_catching_up"
    assert not r.cut_off("E1", T + 40 + CATCH_UP_MS)
    assert r.tile_facts("E1", T + 40 + CATCH_UP_MS) == {"room": "east"}
    assert [x["state"] for x in r.listed(T + 50)] == ["catching_up", "unknown"]


def test_one_alert_per_room_down_or_silent_after_the_grace():
    r = rooms()
    assert r.alert_specs(T + 29_999, 30_000) == []
    specs = r.alert_specs(T + 30_000, 30_000)
    assert [(s.key, s.kind, s.urgency, s.table) for s in specs] == [
        ("room:east", "room_offline", "critical", None),
        ("room:west", "room_offline", "critical", None),
    ]
    assert "has not connected" in specs[0].message and "2 tables" in specs[0].message
    r.bridge_said("east", b"1", T + 1)
    r.bridge_said("west", b"1", T + 1)
    assert r.alert_specs(T + 60_000, 30_000) == []
    r.bridge_said("west", b"0", T + 61_000)
    (spec,) = r.alert_specs(T + 61_000, 30_000)
    assert spec.message.startswith("Room west is cut off from the hub (1 table)")
    assert spec.data == {"room": "west", "tables": ["W1"], "since_wall": T + 61_000}


@given(st.binary(max_size=64), st.sampled_from(["east", "west", "north", ""]))
def test_anything_but_a_notification_of_a_known_room_changes_nothing(payload: bytes, room: str):
    r = rooms()
    r.bridge_said("east", b"1", T)
    before = [(x.up, x.since, x.back_at) for x in r.links.values()]
    changed = r.bridge_said(room, payload, T + 5)
    after = [(x.up, x.since, x.back_at) for x in r.links.values()]
    known = room in ("east", "west") and payload.strip() in (b"0", b"1")
    if not known:
        assert changed is None and before == after


def test_rooms_from_a_hub_toml(tmp_path: Path):
    path = tmp_path / "hub.toml"
    path.write_text('event = "e"\n[broker]\nusername = "hub"\n[rooms.east]\ntables = ["E1", "E2"]\n')
    assert load_rooms(str(path)) == {"east": ("E1", "E2")}
    assert load_rooms(None) == {}
    path.write_text('[broker]\nusername = "hub"\n')
    assert load_rooms(str(path)) == {}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"rooms": []}, "must be a table of rooms"),
        ({"rooms": {"e/st": {"tables": ["1"]}}}, "room name 'e/st'"),
        ({"rooms": {"east": {}}}, "needs tables"),
        ({"rooms": {"east": {"tables": []}}}, "needs tables"),
        ({"rooms": {"east": {"tables": ["1", "a+b"]}}}, "table 'a+b'"),
        ({"rooms": {"east": {"tables": ["1"]}, "west": {"tables": ["1"]}}}, "in rooms east and west"),
    ],
)
def test_refused_rooms_lists(data: dict, says: str):
    with pytest.raises(RoomsError, match=r"^hub\.toml: ") as err:
        parse_rooms(data, "hub.toml")
    assert says in str(err.value)
