"""``broker-config`` without a broker: table lists, the $7$ hash, files, modes, re-runs, CLI."""

from __future__ import annotations

import argparse
import base64
import os
import pwd
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hub.broker.mosquitto import (
    BrokerConfigError,
    BrokerSettings,
    add_broker_config_command,
    generate,
    hash_password,
    main,
    parse_tables,
    render_acl,
    toml_string,
    verify_password,
)
from tests.support.patience import patience

REPO = Path(__file__).resolve().parents[2]

#: Written by the real ``mosquitto_passwd -b pw alice secret`` (Mosquitto 2.0.11).
MOSQUITTO_PASSWD_LINE = (
    "alice:$7$101$CmWI7h6sLCu/esMu$H5NhGi+llOrZkYClNaLPteRbsXaJ2rPXJni1qx9Yk0UKn6tg89VZ90Qo0KTyazy7"
    "JrrcbOjPcTgP2cXHHhHRSA=="
)


# ---------------------------------------------------------------------------- table lists


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("1-5", ["1", "2", "3", "4", "5"]),
        ("1,2,5-7,A1", ["1", "2", "5", "6", "7", "A1"]),
        (" 3 , 1 ", ["3", "1"]),
        ("A1-A3", ["A1", "A2", "A3"]),
        ("A8-10", ["A8", "A9", "A10"]),
        ("08-11", ["08", "09", "10", "11"]),
        ("final,semi_1,semi-2", ["final", "semi_1", "semi-2"]),
        ("7-7", ["7"]),
    ],
)
def test_parse_tables_expands_lists_and_ranges(spec: str, expected: list[str]):
    assert parse_tables(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty"),
        ("1,,2", "empty item at position 2"),
        ("1-5,3", "more than once: 3"),
        ("A1,A1", "more than once: A1"),
        ("9-3", "runs backwards"),
        ("1,t/2", "invalid table id 't/2'"),
        ("1,+", "invalid table id '+'"),
        ("#", "invalid table id '#'"),
        ("table 4", "invalid table id 'table 4'"),
        ("hub", "reserved for the hub"),
        ("-1", "invalid table id '-1'"),
        ("_x", "invalid table id '_x'"),
        ("1-100000", "more than 5000"),
        ("x" * 33, "invalid table id"),
    ],
)
def test_parse_tables_refuses_bad_lists_with_a_clear_reason(spec: str, message: str):
    with pytest.raises(BrokerConfigError, match=message.replace("+", r"\+")):
        parse_tables(spec)


# ---------------------------------------------------------------------------- $7$ hashes


def test_hash_matches_mosquitto_passwd_output():
    user, encoded = MOSQUITTO_PASSWD_LINE.split(":", 1)
    assert user == "alice"
    assert verify_password("secret", encoded)
    assert not verify_password("Secret", encoded)
    salt = base64.b64decode(encoded.split("$")[3])
    assert hash_password("secret", salt=salt) == encoded


def test_hash_is_salted_and_in_the_7_format():
    first, second = hash_password("pw"), hash_password("pw")
    assert first != second
    for encoded in (first, second):
        empty, kind, iterations, salt, digest = encoded.split("$")
        assert (empty, kind, iterations) == ("", "7", "101")
        assert len(salt) == 16 and len(digest) == 88
        assert verify_password("pw", encoded)


@pytest.mark.parametrize("garbage", ["", "$6$x$y", "$7$101$!!!$abc", "$7$nan$AAAA$AAAA"])
def test_verify_refuses_malformed_hashes(garbage: str):
    assert not verify_password("pw", garbage)


def test_toml_string_escapes_what_toml_requires():
    value = 'a"b\\c\nd\x7f é'
    assert tomllib.loads(f"k = {toml_string(value)}")["k"] == value


# ---------------------------------------------------------------------------- files


def settings(out: Path, tables: tuple[str, ...] = ("1", "2", "3"), **kwargs) -> BrokerSettings:
    return BrokerSettings(event="ev1", tables=tables, out=out, **kwargs)


def fragment(out: Path, name: str) -> dict:
    path = out / f"{name}.toml" if name in ("hub", "monitor") else out / "tables" / f"{name}.toml"
    return tomllib.loads(path.read_text())


def passwd_entries(out: Path) -> dict[str, str]:
    lines = (out / "passwd").read_text().splitlines()
    return dict(line.split(":", 1) for line in lines)


def test_generate_writes_private_files_whose_passwords_match_the_hashes(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out, port=11883))
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    for directory in (out / "tables", out / "data"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    files = [out / "mosquitto.conf", out / "passwd", out / "acl", out / "hub.toml", out / "monitor.toml"]
    files += sorted((out / "tables").iterdir())
    assert [p.name for p in sorted((out / "tables").iterdir())] == ["1.toml", "2.toml", "3.toml"]
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    hashes = passwd_entries(out)
    assert list(hashes) == ["hub", "monitor", "1", "2", "3"]
    passwords = set()
    for name in ("hub", "monitor", "1", "2", "3"):
        broker = fragment(out, name)["broker"]
        assert broker["username"] == name
        assert fragment(out, name)["event"] == "ev1"
        assert verify_password(broker["password"], hashes[name])
        passwords.add(broker["password"])
    assert len(passwords) == 5
    assert fragment(out, "2")["table_id"] == "2"
    assert fragment(out, "2")["broker"]["host"] == "bghub.local"
    assert fragment(out, "2")["broker"]["port"] == 11883
    assert fragment(out, "hub")["broker"]["host"] == "127.0.0.1"
    assert not [p for p in out.rglob("*.tmp")]


def test_conf_uses_absolute_paths_and_no_default_listener(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out, port=12000, bind="127.0.0.1", persistence_dir=tmp_path / "persist"))
    conf = (out / "mosquitto.conf").read_text().splitlines()
    assert "allow_anonymous false" in conf
    assert f"password_file {out}/passwd" in conf
    assert f"acl_file {out}/acl" in conf
    assert "persistence true" in conf
    assert f"persistence_location {tmp_path}/persist/" in conf
    assert (tmp_path / "persist").is_dir()
    assert f"user {pwd.getpwuid(os.geteuid()).pw_name}" in conf
    first_listener = conf.index("listener 12000 127.0.0.1")
    # Listener options before the first `listener` would open a default listener on 1883.
    assert conf.index("use_username_as_clientid true") > first_listener
    assert not [line for line in conf if line.startswith("listener") and "1883" in line]


def test_acl_grants_each_table_only_its_own_topics():
    acl = render_acl("ev1", ["3", "A1"]).splitlines()
    blocks: dict[str, list[str]] = {}
    current = None
    for line in acl:
        if line.startswith("user "):
            current = line.split()[1]
            blocks[current] = []
        elif line.startswith("topic ") or line.startswith("pattern "):
            assert current is not None, f"{line!r} would apply to anonymous clients"
            blocks[current].append(line)
    # the hub also speaks to the dynamic-security plugin (enrolled tables' credentials)
    assert blocks["hub"] == [
        "topic readwrite bg/v1/ev1/#",
        "topic readwrite $CONTROL/dynamic-security/v1",
        "topic readwrite $CONTROL/dynamic-security/v1/response",
    ]
    assert blocks["3"] == [
        "topic write bg/v1/ev1/table/3/status",
        "topic write bg/v1/ev1/table/3/state",
        "topic write bg/v1/ev1/table/3/evt",
        "topic write bg/v1/ev1/table/3/device",
        "topic read bg/v1/ev1/table/3/assign",
        "topic read bg/v1/ev1/table/3/cmd",
        "topic read bg/v1/ev1/table/3/resync",
        "topic read bg/v1/ev1/table/3/control",
        "topic read bg/v1/ev1/table/3/next",
        "topic read bg/v1/ev1/hub/status",
        "topic read bg/v1/ev1/hub/time",
    ]
    assert all("/table/A1/" in line or "/hub/status" in line or "/hub/time" in line for line in blocks["A1"])


def test_rerun_refuses_to_overwrite_credentials(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(BrokerConfigError, match="already holds broker credentials"):
        generate(settings(out))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_force_replaces_every_password(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out))
    old = {name: fragment(out, name)["broker"]["password"] for name in ("hub", "monitor", "1", "2", "3")}
    result = generate(settings(out), force=True)
    assert sorted(result.new) == ["1", "2", "3", "hub", "monitor"] and result.kept == []
    hashes = passwd_entries(out)
    for name, password in old.items():
        assert fragment(out, name)["broker"]["password"] != password
        assert not verify_password(password, hashes[name])


def test_keep_reuses_passwords_adds_new_tables_and_removes_dropped_ones(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out, tables=("1", "2", "3")))
    old = {name: fragment(out, name)["broker"]["password"] for name in ("hub", "monitor", "1", "2", "3")}
    result = generate(settings(out, tables=("1", "3", "4")), keep=True)
    assert sorted(result.kept) == ["1", "3", "hub", "monitor"]
    assert result.new == ["4"]
    assert result.removed == ["2"]
    hashes = passwd_entries(out)
    assert list(hashes) == ["hub", "monitor", "1", "3", "4"]
    for name in ("hub", "monitor", "1", "3"):
        assert fragment(out, name)["broker"]["password"] == old[name]
        assert verify_password(old[name], hashes[name])
    assert verify_password(fragment(out, "4")["broker"]["password"], hashes["4"])
    assert not (out / "tables" / "2.toml").exists()
    assert "table/2/" not in (out / "acl").read_text()


def test_force_and_keep_together_are_refused(tmp_path: Path):
    with pytest.raises(BrokerConfigError, match="choose one"):
        generate(settings(tmp_path / "room"), force=True, keep=True)


def test_keep_refuses_a_broken_fragment(tmp_path: Path):
    out = tmp_path / "room"
    generate(settings(out))
    (out / "tables" / "2.toml").write_text("[broker]\nusername = '2'\n")
    with pytest.raises(BrokerConfigError, match=r"cannot reuse credentials from .*2\.toml"):
        generate(settings(out), keep=True)


def test_unknown_broker_user_is_refused(tmp_path: Path):
    with pytest.raises(BrokerConfigError, match="no such user"):
        generate(settings(tmp_path / "room", broker_user="no-such-user-bg"))
    assert not (tmp_path / "room").exists()


# ---------------------------------------------------------------------------- command line


def run_module(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "hub.broker.mosquitto", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=patience(60),
    )


def test_module_entry_point_writes_a_room(tmp_path: Path):
    out = tmp_path / "room"
    done = run_module("--event", "open", "--tables", "1-3,A1", "--out", str(out), "--port", "2883")
    assert done.returncode == 0, done.stderr
    assert "credentials: 6 new, 0 kept, 0 removed" in done.stdout
    assert sorted(p.stem for p in (out / "tables").iterdir()) == ["1", "2", "3", "A1"]
    again = run_module("--event", "open", "--tables", "1-3", "--out", str(out))
    assert again.returncode == 2
    assert "already holds broker credentials" in again.stderr


@pytest.mark.parametrize(
    ("options", "extra", "message"),
    [
        ({"--tables": "1,1"}, [], "tables listed more than once: 1"),
        ({"--tables": "1-3,a/b"}, [], "invalid table id 'a/b'"),
        ({"--event": "my event"}, [], "invalid event id 'my event'"),
        ({}, ["--tls", "--cert", "/etc/hostname"], "--tls needs both --cert and --key"),
        ({}, ["--tls", "--cafile", "/etc/hostname"], "--cafile goes with --cert and --key"),
        (
            {},
            ["--tls", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem"],
            "--cert .*no such file",
        ),
        ({}, ["--cert", "/etc/hostname"], "are for --tls"),
        ({}, ["--port", "70000"], "not between 1 and 65535"),
        ({}, ["--force", "--keep"], "not allowed with argument"),
    ],
)
def test_module_entry_point_explains_bad_options(
    tmp_path: Path, options: dict[str, str], extra: list[str], message: str
):
    argv = {"--event": "ev", "--tables": "1-2", "--out": str(tmp_path / "room"), **options}
    done = run_module(*[part for item in argv.items() for part in item], *extra)
    assert done.returncode == 2
    assert re.search(message, done.stderr), done.stderr
    assert not (tmp_path / "room" / "passwd").exists()


def test_subcommand_registers_on_a_parent_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    parser = argparse.ArgumentParser(prog="bghub")
    sub = parser.add_subparsers(dest="command", required=True)
    add_broker_config_command(sub)
    out = tmp_path / "room"
    args = parser.parse_args(["broker-config", "--event", "ev", "--tables", "1-2", "--out", str(out)])
    assert args.func(args) == 0
    assert (out / "passwd").is_file()
    assert "credentials: 4 new" in capsys.readouterr().out


def test_main_relative_out_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--event", "ev", "--tables", "1", "--out", "rel"]) == 0
    conf = (tmp_path / "rel" / "mosquitto.conf").read_text()
    assert f"password_file {tmp_path}/rel/passwd" in conf


def test_table_fragment_is_a_valid_kiosk_configuration(tmp_path: Path):
    from kiosk.config import load

    out = tmp_path / "room"
    generate(settings(out, tables=("7", "A1"), host="hub.example", port=1884))
    config = load(out / "tables" / "A1.toml")
    assert (config.table_id, config.event) == ("A1", "ev1")
    assert (config.broker.host, config.broker.port) == ("hub.example", 1884)
    assert config.mqtt_username == "A1"
    assert verify_password(config.broker.password, passwd_entries(out)["A1"])


TEMPLATE = """
language = "fr"
td_pin = "4321"
data_dir = "/var/lib/bgtable"
tick_interval_ms = 500

[pins]
enabled = true
A = 5
B = 6

[dice]
device = "/dev/dice"
baud = 115200

[screen]
size = "1280x720"
rotation = 180
fullscreen = true
"""


def test_table_template_makes_each_fragment_a_whole_kiosk_configuration(tmp_path: Path):
    from kiosk.config import load

    template = tmp_path / "room.toml"
    template.write_text(TEMPLATE)
    out = tmp_path / "room"
    assert (
        main(["--event", "ev", "--tables", "1-2", "--out", str(out), "--table-template", str(template)]) == 0
    )
    config = load(out / "tables" / "2.toml")
    assert (config.table_id, config.event, config.language, config.td_pin) == ("2", "ev", "fr", "4321")
    assert config.tick_interval_ms == 500
    assert (config.pins.A, config.pins.B) == (5, 6)
    assert config.dice.device == "/dev/dice"
    assert (config.screen.size, config.screen.rotation) == ((1280, 720), 180)
    assert verify_password(config.broker.password, passwd_entries(out)["2"])
    # --keep reads the password back from a whole-configuration fragment too
    assert main(["--event", "ev", "--tables", "1-3", "--out", str(out), "--keep"]) == 0
    again = load(out / "tables" / "2.toml")
    assert again == config, "the stored template and the password were reused"
    assert load(out / "tables" / "3.toml").screen.size == (1280, 720)
    assert stat.S_IMODE((out / "table-template.toml").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('table_id = "9"\n', "remove 'table_id'"),
        ('event = "x"\n', "remove 'event'"),
        ('[broker]\nhost = "x"\n', "remove 'broker'"),
        ("[screen.inner]\nx = 1\n", "screen.inner: only strings"),
        ("when = 2026-11-22T10:00:00\n", "when: only strings"),
        ("language = \n", "--table-template"),
    ],
)
def test_table_template_refuses_what_it_cannot_copy(tmp_path: Path, text: str, message: str):
    template = tmp_path / "room.toml"
    template.write_text(text)
    done = run_module(
        "--event", "ev", "--tables", "1", "--out", str(tmp_path / "room"), "--table-template", str(template)
    )
    assert done.returncode == 2
    assert message in done.stderr, done.stderr
    assert not (tmp_path / "room").exists()


def test_tls_without_a_certificate_makes_the_rooms_ca_and_keeps_it(tmp_path: Path):
    """``--tls`` alone: the room's CA and a broker certificate for --host, named in hub.toml's
    [tables] for the hub to hand to the tables it enrolls; a --keep run keeps the CA."""
    from cryptography import x509

    out = tmp_path / "room"
    argv = ["--event", "ev", "--tables", "1-2", "--out", str(out), "--host", "10.0.0.5", "--tls"]
    assert run_module(*argv).returncode == 0
    ca = (out / "tls" / "ca.pem").read_bytes()
    server = x509.load_pem_x509_certificate((out / "tls" / "server.pem").read_bytes())
    names = server.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["10.0.0.5"]
    assert server.issuer == x509.load_pem_x509_certificate(ca).subject
    assert (out / "tls" / "server.key").stat().st_mode & 0o077 == 0
    assert (out / "tls" / "ca.key").stat().st_mode & 0o077 == 0
    conf = (out / "mosquitto.conf").read_text()
    assert f"certfile {out / 'tls' / 'server.pem'}" in conf and "listener 8883" in conf
    tables = tomllib.loads((out / "hub.toml").read_text())["tables"]
    assert tables == {"broker": "10.0.0.5:8883", "tls_ca": str(out / "tls" / "ca.pem")}
    assert run_module(*argv, "--keep").returncode == 0
    assert (out / "tls" / "ca.pem").read_bytes() == ca
    assert run_module(*argv[:-3], "--host", "10.0.0.6", "--tls", "--keep").returncode == 0
    assert (out / "tls" / "ca.pem").read_bytes() == ca, "a new address is a new certificate, same CA"
    renewed = x509.load_pem_x509_certificate((out / "tls" / "server.pem").read_bytes())
    names = renewed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["10.0.0.6"]
