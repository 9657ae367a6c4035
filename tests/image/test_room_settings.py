"""room_settings: the boot partition's room.txt becomes the table's hub URL, time server and Wi-Fi.

room.txt is typed by an organiser on any computer: every line is an edge. A bad line is reported
and dropped, and nothing in the file can make the script fail.
"""

from __future__ import annotations

import importlib.util
import stat
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

SCRIPT = Path(__file__).resolve().parents[2] / "image/rootfs/usr/lib/bgtable-image/room_settings.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("room_settings", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["room_settings"] = module
    spec.loader.exec_module(module)
    return module


rs = load()


@pytest.mark.parametrize(
    ("line", "url", "host"),
    [
        ("192.168.1.10", "http://192.168.1.10:8080", "192.168.1.10"),
        ("192.168.1.10:9000", "http://192.168.1.10:9000", "192.168.1.10"),
        ("http://10.0.0.2:8080/", "http://10.0.0.2:8080", "10.0.0.2"),
        ("https://Hub.Example.org", "https://hub.example.org:8080", "hub.example.org"),
        ("bghub.local", "http://bghub.local:8080", "bghub.local"),
        ('"bghub:8081"', "http://bghub:8081", "bghub"),
        ("[fd00::1]:8080", "http://[fd00::1]:8080", "fd00::1"),
    ],
)
def test_hub_forms(line: str, url: str, host: str):
    settings, problems = rs.parse(f"hub = {line}\n")
    assert problems == []
    assert (settings.hub.url, settings.hub.host) == (url, host)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "ftp://hub",
        "hub:0",
        "hub:99999",
        "hub:port",
        "http://hub/path",
        "user@hub",
        "-hub-",
        "999.1.1.1",
        "a b",
        "http://",
        "http://hub?x=1",
    ],
)
def test_bad_hubs_are_reported_and_dropped(line: str):
    settings, problems = rs.parse(f"hub = {line}\n")
    assert settings.hub is None
    assert len(problems) == 1 and problems[0].startswith("hub:"), problems


def test_a_whole_file_with_comments_quotes_and_a_byte_order_mark():
    text = (
        "\ufeff# the room\n"
        "\n"
        "HUB = 10.1.2.3\n"
        "wifi_country = gr\n"
        'wifi_ssid = "Salle A"\n'
        "wifi_password = 'correct horse'\n"
    )
    settings, problems = rs.parse(text)
    assert problems == []
    assert settings.hub == rs.Hub("http", "10.1.2.3", 8080)
    assert settings.wifi == rs.Wifi("Salle A", "correct horse", "GR")


def test_unknown_keys_repeats_and_junk_are_reported_and_the_rest_kept():
    text = "hub = 10.0.0.1\nhub = 10.0.0.2\ntable = 12\njust words\nwifi_ssid = Net\nwifi_country = FR\n"
    settings, problems = rs.parse(text)
    assert settings.hub.host == "10.0.0.1"
    assert settings.wifi == rs.Wifi("Net", "", "FR")
    assert problems == [
        "line 2: hub given a second time; the first one is used",
        "line 3: unknown key 'table' (known: hub, language, event, hub_key, wifi_ssid, wifi_password, "
        "wifi_country)",
        "line 4: expected KEY = VALUE, got 'just words'",
    ]


def test_the_language_of_the_not_set_up_screen_is_one_of_the_kiosks():
    # the kiosk reads it from the same file (kiosk/setup_app.py); here it is checked with the rest
    settings, problems = rs.parse("language = fr\nhub = 10.0.0.1\n")
    assert (settings.language, problems) == ("fr", [])
    settings, problems = rs.parse("language = French\nhub = 10.0.0.1\n")
    assert settings.language is None and settings.hub.host == "10.0.0.1"
    assert problems == ["language: expected one of en, el, fr, bg, nb, hu, got 'French'"]


def test_the_event_and_the_hub_key_fingerprint_are_checked():
    """Read by the kiosk itself (discovery, the pinned hub key); reported here when wrong."""
    _, problems = rs.parse("event = open-2026\nhub_key = 3f2a-91c0-7b44-e1d8\n")
    assert problems == []
    _, problems = rs.parse("event = open 2026\nhub_key = 3F2A91C0\n")
    assert [p.split(":")[0] for p in problems] == ["event", "hub_key"]


def test_the_languages_are_the_kiosks():
    from kiosk.ui.i18n import LANGUAGES

    assert set(rs.LANGUAGES) == set(LANGUAGES)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("wifi_ssid = Net\n", "wifi_country: missing"),
        ("wifi_ssid = Net\nwifi_country = FR\nwifi_password = short\n", "wifi_password: expected 8 to 63"),
        ("wifi_password = long enough\nwifi_country = FR\n", "wifi_ssid: missing"),
        ("wifi_ssid = Net\nwifi_country = France\n", "wifi_country: expected a two-letter"),
        ("wifi_ssid = " + "x" * 33 + "\nwifi_country = FR\n", "wifi_ssid: expected 1 to 32 bytes"),
    ],
)
def test_an_incomplete_or_wrong_wifi_is_not_used(text: str, problem: str):
    settings, problems = rs.parse(text)
    assert settings.wifi is None
    assert any(p.startswith(problem) for p in problems), problems


def test_the_wpa_key_is_the_standard_psk_and_no_text_is_quoted():
    # IEEE 802.11i-2004, H.4.3: passphrase "password", SSID "IEEE"
    config = rs.wpa_config(rs.Wifi("IEEE", "password", "GR"))
    assert "\tpsk=f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e\n" in config
    assert f"\tssid={b'IEEE'.hex()}\n" in config
    assert config.startswith("country=GR\n")
    assert '"' not in config
    open_net = rs.wpa_config(rs.Wifi('Caf\u00e9 "free"', "", "FR"))
    assert "\tkey_mgmt=NONE\n" in open_net and '"' not in open_net


def write_room(boot: Path, text: str) -> None:
    boot.mkdir(exist_ok=True)
    (boot / "room.txt").write_text(text)


def test_apply_writes_the_hub_the_time_source_and_the_wifi(tmp_path: Path):
    boot, out = tmp_path / "boot", tmp_path / "run"
    write_room(
        boot, "hub = 192.168.5.2:8080\nwifi_ssid = Room\nwifi_country = HU\nwifi_password = tournament\n"
    )
    problems = rs.apply(boot, tmp_path / "missing.toml", out)
    assert problems == []
    assert (out / "hub").read_text() == "http://192.168.5.2:8080\n"
    assert (out / "time.sources").read_text() == "server 192.168.5.2 iburst\n"
    wpa = out / "wpa_supplicant-wlan0.conf"
    assert stat.S_IMODE(wpa.stat().st_mode) == 0o600
    assert "country=HU" in wpa.read_text()


def test_without_a_hub_line_the_time_server_is_the_tables_broker_host(tmp_path: Path):
    boot, out, config = tmp_path / "boot", tmp_path / "run", tmp_path / "table.toml"
    write_room(boot, "# nothing set\n")
    assert rs.apply(boot, config, out) == []
    assert not (out / "time.sources").exists() and not (out / "hub").exists()
    config.write_text('table_id = "12"\n[broker]\nhost = "10.9.8.7"\nport = 1883\n')
    assert rs.apply(boot, config, out) == []
    assert (out / "time.sources").read_text() == "server 10.9.8.7 iburst\n"
    assert not (out / "hub").exists()


def test_a_hub_line_wins_over_the_broker_host(tmp_path: Path):
    boot, out, config = tmp_path / "boot", tmp_path / "run", tmp_path / "table.toml"
    write_room(boot, "hub = 10.0.0.1\n")
    config.write_text('[broker]\nhost = "10.9.8.7"\n')
    rs.apply(boot, config, out)
    assert (out / "time.sources").read_text() == "server 10.0.0.1 iburst\n"


def test_settings_removed_from_room_txt_are_removed_from_the_outputs(tmp_path: Path):
    boot, out = tmp_path / "boot", tmp_path / "run"
    write_room(boot, "hub = 10.0.0.1\nwifi_ssid = A\nwifi_country = GR\n")
    rs.apply(boot, tmp_path / "none.toml", out)
    write_room(boot, "")
    rs.apply(boot, tmp_path / "none.toml", out)
    assert sorted(p.name for p in out.iterdir()) == []


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("[broker\n", "not readable as TOML"),
        ('[broker]\nhost = "evil host; rm -rf /"\n', "broker.host: expected an IP address or a host name"),
        ("[broker]\nhost = 12\n", "broker.host: expected a host name, got int"),
    ],
)
def test_a_bad_table_configuration_gives_no_time_server_and_says_why(
    tmp_path: Path, config: str, problem: str
):
    (tmp_path / "table.toml").write_text(config)
    problems = rs.apply(tmp_path / "boot", tmp_path / "table.toml", tmp_path / "run")
    assert len(problems) == 1 and problem in problems[0], problems
    assert not (tmp_path / "run/time.sources").exists()


def test_a_room_txt_that_is_not_text_is_reported(tmp_path: Path):
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot/room.txt").write_bytes(b"hub = \xff\xfe\n")
    problems = rs.apply(tmp_path / "boot", tmp_path / "none.toml", tmp_path / "run")
    assert len(problems) == 1 and "not readable as UTF-8" in problems[0]


def test_the_command_reports_problems_on_stderr_and_succeeds(tmp_path: Path):
    write_room(tmp_path / "boot", "hub = ftp://x\nwifi = yes\n")
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--boot",
            str(tmp_path / "boot"),
            "--config",
            str(tmp_path / "t.toml"),
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert "room-settings: " in done.stderr and "hub: the address must start with http" in done.stderr
    assert "unknown key 'wifi'" in done.stderr
    assert done.stdout == "room-settings: hub none; time server none; Wi-Fi no\n"


@given(st.text(max_size=400))
def test_no_text_makes_parse_fail(text: str):
    settings, problems = rs.parse(text)
    assert isinstance(problems, list)
    if settings.hub is not None:
        assert rs.parse_host(settings.hub.host, "hub") == settings.hub.host
        assert 1 <= settings.hub.port <= 65535


labels = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True).filter(
    lambda s: not s.isdigit()
)
hosts = st.one_of(
    st.ip_addresses(v=4).map(str),
    st.lists(labels, min_size=1, max_size=4).map(".".join),
)
ssids = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\x7f"), min_size=1)
ssids = ssids.filter(lambda s: len(s.encode()) <= 32 and s == s.strip() and s[0] not in "\"'#")
passwords = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=63)


@given(
    host=hosts,
    port=st.integers(1, 65535),
    ssid=ssids,
    password=passwords,
    country=st.sampled_from(["GR", "HU"]),
    language=st.sampled_from(rs.LANGUAGES),
)
def test_every_well_formed_file_is_read_back_as_written(
    host: str, port: int, ssid: str, password: str, country: str, language: str
):
    password = password.strip("\"'")
    if len(password) < 8:
        password = "p" * 8
    text = f"hub = {host}:{port}\nwifi_ssid = {ssid}\nwifi_password = {password}\nwifi_country = {country}\n"
    settings, problems = rs.parse(text + f"language = {language}\n")
    assert problems == []
    assert settings.hub == rs.Hub("http", host, port)
    assert settings.wifi == rs.Wifi(ssid, password, country)
    assert settings.language == language


def test_a_line_ends_only_at_a_line_feed():
    """U+0085 and U+2028 are line breaks to str.splitlines(), and may be part of a network's name."""
    text = "wifi_ssid = caf\u00e9\u0085n\u2028et\r\nwifi_password = secret-pass\r\nwifi_country = GR\r\n"
    settings, problems = rs.parse(text)
    assert problems == []
    assert settings.wifi is not None and settings.wifi.ssid == "caf\u00e9\u0085n\u2028et"
