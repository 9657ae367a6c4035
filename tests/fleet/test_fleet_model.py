"""The fleet's checks of what devices send (hellos, health reports), codes, and the TD's rows."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.sealed_box import b64encode, new_private_key, public_key
from hub.broker.provision import FleetError
from hub.fleet.model import (
    BUTTONS,
    SCREENS,
    ReportError,
    check_hello,
    check_report,
    check_table,
    code_valid,
    new_code,
    public_row,
)
from hub.fleet.store import Device

KEY = b64encode(public_key(new_private_key()))


def report(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "device": "bgt-1",
        "version": "0.1.0",
        "build": "abcdef0123456789",
        "slot": "factory",
        "ip": "10.0.0.7",
        "hostname": "bgtable-1",
        "uptime_s": 100,
        "cpu_temp_c": 51.2,
        "disk_free_mb": 2000,
        "disk_total_mb": 4000,
        "journal": {"ok": True, "detail": "3 inputs"},
        "dice": {"configured": True, "seen": False, "last_wall": None},
        "buttons": {"configured": True, "seen": {"A": 1, "B": None, "pause": None, "td": None}},
        "button_test": {"state": "idle", "pressed": [], "finished_wall": None},
        "update": {"state": "idle", "detail": "", "target": ""},
        "in_match": False,
        "screen": "idle",
        "sent_wall": 1_800_000_000_000,
    }
    base.update(changes)
    return base


def test_a_good_report_passes_whole():
    checked = check_report(report())
    assert checked["journal"] == {"ok": True, "detail": "3 inputs"}
    assert checked["buttons"]["seen"] == {"A": 1, "B": None, "pause": None, "td": None}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"uptime_s": -1}, "uptime_s"),
        ({"cpu_temp_c": float("nan")}, "cpu_temp_c"),
        ({"cpu_temp_c": "hot"}, "cpu_temp_c"),
        ({"ip": "not-an-ip"}, "ip"),
        ({"journal": "ok"}, "journal"),
        ({"button_test": {"state": "idle", "pressed": ["X"], "finished_wall": None}}, "button_test.pressed"),
        (
            {"button_test": {"state": "idle", "pressed": ["A", "A"], "finished_wall": None}},
            "button_test.pressed",
        ),
        ({"update": {"state": "hacked", "detail": "", "target": ""}}, "update.state"),
        ({"screen": "anything"}, "screen"),
        ({"sent_wall": None}, "sent_wall"),
        ({"hostname": "x" * 65}, "hostname"),
        ({"version": "1\n2"}, "version"),
        ({"in_match": 1}, "in_match"),
    ],
)
def test_a_bad_field_refuses_the_report_and_names_it(change: dict[str, Any], field: str):
    with pytest.raises(ReportError, match=field.split(".")[-1]):
        check_report(report(**change))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.sampled_from(sorted(report())), JSON)
def test_any_value_in_any_field_is_checked_or_refused(field: str, value: Any):
    """Whatever a device puts in a field, the report is refused or comes out checked."""
    body = report(**{field: copy.deepcopy(value)})
    try:
        checked = check_report(body)
    except ReportError:
        return
    assert set(checked) == set(report())
    assert checked["screen"] in SCREENS
    assert set(checked["buttons"]["seen"]) == set(BUTTONS)


@given(st.dictionaries(st.text(max_size=10), JSON, max_size=6))
def test_hellos_are_checked_or_refused(body: dict[str, Any]):
    try:
        hello = check_hello(body)
    except FleetError:
        return
    assert hello.device and hello.key


def test_hello_needs_a_device_id_and_an_x25519_key():
    assert check_hello({"device": "bgt-1", "key": KEY, "version": "0.1.0"}).device == "bgt-1"
    with pytest.raises(FleetError, match="device"):
        check_hello({"device": "a/b", "key": KEY, "version": "0"})
    with pytest.raises(FleetError, match="key"):
        check_hello({"device": "d", "key": b64encode(b"short"), "version": "0"})
    with pytest.raises(FleetError, match="version"):
        check_hello({"device": "d", "key": KEY})


@pytest.mark.parametrize("table", ["12", "A1", "  7 ", "t-3"])
def test_table_numbers(table: str):
    assert check_table(table) == table.strip()


def test_a_table_number_may_be_a_json_number():
    assert check_table(12) == "12"


@pytest.mark.parametrize("table", ["", "hub", "1/2", "+", "#", -1, True, 1.5, None, "x" * 33])
def test_bad_table_numbers(table: Any):
    with pytest.raises(FleetError, match="table"):
        check_table(table)


def test_codes_are_four_digits_and_unique_among_pending():
    taken = {str(n) for n in range(1000, 9990)}
    code = new_code(taken)
    assert len(code) == 4 and code not in taken


def test_code_validity_and_rows_carry_no_secret():
    d = Device(
        "bgt-1",
        KEY,
        "pending",
        1,
        1,
        code="4821",
        code_expires_wall=100,
        secret_hash="$7$x",
        sealed="SEALED",
        username="table-3-x",
    )
    assert code_valid(d, 99) and not code_valid(d, 100)
    row = public_row(d, 50, online=False, hub_build="b")
    assert row["code"] == "4821"
    assert public_row(d, 200, online=False, hub_build="b")["code"] is None
    text = str(row)
    for secret in ("SEALED", "$7$x", KEY):
        assert secret not in text
