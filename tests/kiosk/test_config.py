"""The table's TOML configuration: sensible defaults, and every bad key refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk import config as cfg
from kiosk.config import Config, ConfigError, load, save_setting, with_settings
from tests.support.patience import patience

EXAMPLE = Path(cfg.__file__).with_name("example-config.toml")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_means_desktop_defaults():
    config = load(None)
    assert config == Config()
    assert config.broker.host == ""  # no network
    assert config.dice.device == ""  # dice entered by hand
    assert config.screen.size == (800, 480) and not config.screen.fullscreen
    assert config.tick_interval_ms == 1000
    assert config.mqtt_username == config.table_id


def test_the_example_file_is_valid():
    config = load(EXAMPLE)
    assert config.table_id == "12"
    assert config.event == "open-2026"
    assert config.broker.host == "hub.local" and config.broker.port == 1883
    assert config.pins.as_dict() == {"A": 17, "B": 27, "pause": 22, "td": 23}
    assert config.dice.device == "/dev/ttyACM0" and config.dice.baud == 115200
    assert config.screen.size == (800, 480) and config.screen.fullscreen
    assert config.journal_path == Path("/var/lib/bgtable/journal.sqlite3")


def test_every_example_key_is_documented():
    doc = (Path(cfg.__file__).parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")
    for key in cfg.TOP:
        assert f"`{key}`" in doc, key
    for section, (_, validators) in cfg.SECTIONS.items():
        for key in validators:
            assert f"`{section}.{key}`" in doc, f"{section}.{key}"


BAD = [
    ('[screen]\nsize = "800"', "screen.size: expected WIDTHxHEIGHT"),
    ("[screen]\nsize = 800", "screen.size: expected WIDTHxHEIGHT"),
    ('[screen]\nsize = "20x20"', "screen.size: 20x20 is out of range"),
    ("[screen]\nrotation = 45", "screen.rotation: expected one of 0, 90, 180, 270"),
    ('[screen]\nflip = "yes"', "screen.flip: expected true or false"),
    ("[screen]\ncolour = 1", "screen.colour: unknown key"),
    ('table_id = "12/3"', "table_id: expected 1-64 letters"),
    ('table_id = "+"', "table_id: expected 1-64 letters"),
    ("table_id = 12", "table_id: expected a string"),
    ('event = ""', "event: expected 1-64 letters"),
    ('language = "English"', "language: expected a language code"),
    ('profile = "fibs"', "profile: expected one of ffbg-cdf, hbf, hu, wbgf-2023"),
    ("td_pin = 1234", "td_pin: expected a string"),
    ('td_pin = "12a4"', "td_pin: expected 4 to 8 digits"),
    ("tick_interval_ms = 50", "tick_interval_ms: expected a whole number from 100 to 10000"),
    ("tick_interval_ms = 1.5", "tick_interval_ms: expected a whole number"),
    ('log_level = "loud"', "log_level: expected one of debug"),
    ("[broker]\nport = 0", "broker.port: expected a whole number from 1 to 65535"),
    ('[broker]\nport = "1883"', "broker.port: expected a whole number"),
    ('[broker]\nhost = "hub local"', "broker.host: expected a host name"),
    ('[broker]\ntls = "on"', "broker.tls: expected true or false"),
    ('[broker]\nca_file = "/etc/ca.pem"', "broker.ca_file: only used with broker.tls = true"),
    ('[broker]\nuser = "x"', "broker.user: unknown key"),
    ("[pins]\nA = 40", "pins.A: expected a whole number from 0 to 27"),
    ("[pins]\nA = true", "pins.A: expected a whole number"),
    ("[pins]\nB = 17", "pins.B: GPIO 17 is already used by pins.A"),
    ("[pins]\nC = 5", "pins.C: unknown key"),
    ("[dice]\nbaud = 9601", "dice.baud: expected one of 1200"),
    ("[dice]\ndevice = 3", "dice.device: expected a string"),
    ("volume = 11", "volume: unknown key"),
    ('screen = "800x480"', "screen: expected a [screen] table"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_values_name_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text))
    assert str(info.value).startswith(message), str(info.value)


def test_not_toml(tmp_path):
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load(write(tmp_path, "table_id = \n"))


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "nope.toml")


def test_bad_config_refuses_to_start(tmp_path):
    """``bgtable run`` stops before opening anything, and says which key."""
    import subprocess
    import sys

    path = write(tmp_path, '[screen]\nsize = "big"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=patience(60),
    )
    assert proc.returncode == 2
    assert "screen.size: expected WIDTHxHEIGHT" in proc.stderr


def test_settings_changed_at_the_table_persist(tmp_path):
    config = load(write(tmp_path, f'table_id = "7"\ndata_dir = "{tmp_path / "data"}"\n'))
    config = save_setting(config, "table_id", "8")
    config = save_setting(config, "language", "fr")
    config = save_setting(config, "flip", True)
    assert (config.table_id, config.language, config.screen.flip) == ("8", "fr", True)
    fresh = with_settings(load(tmp_path / "table.toml"))
    assert (fresh.table_id, fresh.language, fresh.screen.flip) == ("8", "fr", True)


def test_bad_settings_are_refused_and_ignored(tmp_path):
    config = Config(data_dir=str(tmp_path))
    with pytest.raises(ConfigError, match="table_id"):
        save_setting(config, "table_id", "a/b")
    with pytest.raises(ConfigError, match="td_pin: not a setting"):
        save_setting(config, "td_pin", "1234")
    (tmp_path / "settings.json").write_text('{"table_id": "#", "language": "de", "x": 1}')
    fresh = with_settings(config)
    assert fresh.table_id == "1" and fresh.language == "de"
    (tmp_path / "settings.json").write_text("not json")
    assert with_settings(config) == config


def test_describe_hides_secrets():
    config = load(EXAMPLE)
    described = cfg.describe(config)
    assert described["broker"]["password"] == "***"
    assert described["td_pin"] == "***"


def test_manual_dice_entry_is_a_table_option_for_tables_without_a_tower():
    from kiosk.config import ConfigError, from_mapping

    assert from_mapping({}).dice.manual_entry is False
    assert from_mapping({"dice": {"manual_entry": True}}).dice.manual_entry is True
    with pytest.raises(ConfigError, match=r"dice\.manual_entry: only for a table without a dice tower"):
        from_mapping({"dice": {"manual_entry": True, "device": "/dev/ttyACM0"}})
    with pytest.raises(ConfigError, match=r"dice\.manual_entry: expected true or false"):
        from_mapping({"dice": {"manual_entry": "yes"}})
