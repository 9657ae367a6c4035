"""The launcher's decisions about software slots: trial, confirmation, fall-back, damage.

The whole path with real processes (download, unpack, exec, crash, fall back) is in
test_updates_e2e.py; here each decision on its own, on a real state directory.
"""

from __future__ import annotations

import json
from pathlib import Path

from kiosk import slots


def slot_files(state: Path, name: str) -> None:
    (slots.slot_dir(state, name) / "kiosk").mkdir(parents=True)


def test_no_slots_means_the_factory_version(tmp_path: Path):
    assert slots.choose(tmp_path) == (None, slots.SlotState())


def test_a_staged_slot_is_tried_then_confirmed(tmp_path: Path):
    slot_files(tmp_path, "a")
    slots.stage(tmp_path, "a", "b1")
    for tries in range(1, slots.MAX_TRIES + 1):
        name, state = slots.choose(tmp_path)
        assert (name, state.trial, state.tries) == ("a", True, tries)
    assert slots.confirm(tmp_path)
    name, state = slots.choose(tmp_path)
    assert (name, state.trial, state.tries) == ("a", False, 0)
    assert not slots.confirm(tmp_path)


def test_unconfirmed_starts_fall_back_to_the_previous_slot_and_remember_the_build(tmp_path: Path):
    slot_files(tmp_path, "a")
    slot_files(tmp_path, "b")
    slots.stage(tmp_path, "a", "good")
    slots.choose(tmp_path)
    slots.confirm(tmp_path)
    assert slots.spare(slots.load(tmp_path)) == "b"
    slots.stage(tmp_path, "b", "bad")
    for _ in range(slots.MAX_TRIES):
        assert slots.choose(tmp_path)[0] == "b"
    name, state = slots.choose(tmp_path)
    assert name == "a" and not state.trial
    assert "bad" in state.failed and "did not start" in state.fallback
    assert slots.spare(state) == "b"  # never the one to fall back to


def test_missing_slot_files_fall_back_at_once(tmp_path: Path):
    slots.stage(tmp_path, "a", "b1")  # nothing unpacked there
    name, state = slots.choose(tmp_path)
    assert name is None and "b1" in state.failed


def test_a_damaged_state_file_means_the_factory_version(tmp_path: Path):
    (tmp_path / "slots").mkdir()
    for text in ("{not json", json.dumps({"active": "../../etc"}), json.dumps([1, 2])):
        (tmp_path / "slots" / slots.STATE_FILE).write_text(text)
        assert slots.choose(tmp_path)[0] is None


def test_the_launcher_finds_the_data_dir_of_a_configuration(tmp_path: Path):
    config = tmp_path / "table.toml"
    config.write_text(f'data_dir = "{tmp_path}"\n')
    assert slots.state_dir_of(str(config)) == tmp_path
    assert slots.state_dir_of(str(tmp_path / "missing.toml")) is None
    assert slots.state_dir_of(None) is None
