"""The hub's address from a boot-partition file or the command line: checked, never guessed."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.discovery import DiscoveryError, hub_from_files, hub_from_text, normalize_hub


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("192.168.1.10", "http://192.168.1.10:8080"),
        ("192.168.1.10:9000", "http://192.168.1.10:9000"),
        ("http://bghub.local:8080/", "http://bghub.local:8080"),
        ("https://hub.example.org", "https://hub.example.org:8080"),
        ("[fe80::1]:8080", "http://[fe80::1]:8080"),
    ],
)
def test_addresses(text: str, url: str):
    assert normalize_hub(text) == url


@pytest.mark.parametrize("text", ["ftp://x", "http://x/path", "http://", "a b", "http://user@x", "x:99999"])
def test_bad_addresses(text: str):
    with pytest.raises(DiscoveryError):
        normalize_hub(text)


def test_the_hub_line_of_a_settings_file():
    text = '# room\nwifi_ssid = Room\nhub = "10.0.0.2:8080"\n'
    assert hub_from_text(text) == "http://10.0.0.2:8080"
    assert hub_from_text("#hub = 10.0.0.2\n") is None
    assert hub_from_text("hub = not a host\n") is None


def test_the_first_file_with_a_usable_line_wins(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hub = ???\n")
    (tmp_path / "b.txt").write_text("hub = 10.1.1.1\n")
    found = hub_from_files([tmp_path / "missing.txt", tmp_path / "a.txt", tmp_path / "b.txt"])
    assert found == ("http://10.1.1.1:8080", tmp_path / "b.txt")


def test_the_event_and_the_pinned_hub_key_of_a_settings_file(tmp_path: Path):
    from kiosk.discovery import hints_from_files

    room = tmp_path / "room.txt"
    room.write_text('event = "open-2026"\nhub_key = 3f2a-91c0-7b44-e1d8\n#hub = 10.0.0.2\n')
    hints = hints_from_files([tmp_path / "missing.txt", room])
    assert (hints.hub, hints.event, hints.hub_key) == (None, "open-2026", "3F2A-91C0-7B44-E1D8")
    room.write_text("hub_key = not a fingerprint\nhub = 10.0.0.2\n")
    hints = hints_from_files([room])
    assert (hints.hub, hints.source, hints.hub_key) == ("http://10.0.0.2:8080", room, "")


def test_two_hubs_are_named_in_the_refusal():
    from kiosk.discovery import Announced, TwoHubs

    refusal = TwoHubs(
        [Announced("http://10.0.0.2:8080", "e", "AAAA-BBBB-CCCC-DDDD"), Announced("http://10.0.0.9:8080")]
    )
    assert "10.0.0.2:8080 (key AAAA-BBBB-CCCC-DDDD)" in str(refusal) and "10.0.0.9" in str(refusal)
    assert "hub = HOST:PORT" in str(refusal)
