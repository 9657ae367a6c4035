"""``bghub broker-config --room NAME --bridge-to HOST:PORT``: the files it writes for the room and
for the central broker, what later runs keep, and what it refuses (the brokers themselves run
them in test_bridge_broker.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hub.broker.mosquitto import main, verify_password


def run(*argv: str) -> int:
    return main(list(argv))


def central(tmp: Path, tables: str = "1-3", *extra: str) -> Path:
    out = tmp / "central"
    assert run("--event", "ev", "--tables", tables, "--out", str(out), *extra) == 0
    return out


def room(tmp: Path, name: str, tables: str, *extra: str, central_dir: Path | None = None) -> Path:
    out = tmp / f"room-{name}"
    argv = ["--event", "ev", "--tables", tables, "--out", str(out), "--room", name]
    argv += ["--bridge-to", "central.lan:1883", *extra]
    if central_dir is not None:
        argv += ["--central", str(central_dir)]
    assert run(*argv) == 0
    return out


def conf_options(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def bridge_password(out: Path) -> str:
    return tomllib.loads((out / "bridge.toml").read_text())["broker"]["password"]


def passwd_hash(out: Path, user: str) -> str:
    lines = (out / "passwd").read_text().splitlines()
    return next(line.split(":", 1)[1] for line in lines if line.startswith(f"{user}:"))


def test_room_broker_bridges_with_its_own_credential_qos1_and_a_persistent_session(tmp_path: Path):
    out = room(tmp_path, "east", "E1-E2")
    options = conf_options(out / "mosquitto.conf")
    bridge = options[options.index("connection room-east") :]
    password = bridge_password(out)
    for option in (
        "address central.lan:1883",
        "remote_username room-east",
        f"remote_password {password}",
        "remote_clientid room-east",
        "cleansession false",
        "local_cleansession false",
        "notifications true",
        "notification_topic bg/v1/ev/room/east/bridge",
        "topic bg/v1/ev/table/+/evt out 1",
        "topic bg/v1/ev/table/+/state out 1",
        "topic bg/v1/ev/table/+/status out 1",
        "topic bg/v1/ev/table/E1/cmd in 1",
        "topic bg/v1/ev/table/E2/assign in 1",
        "topic bg/v1/ev/hub/status in 1",
        "topic bg/v1/ev/hub/time in 1",
    ):
        assert option in bridge, option
    # every topic line is QoS 1; nothing of another room's table comes in
    topics = [line for line in bridge if line.startswith("topic ")]
    assert all(line.endswith(" 1") for line in topics)
    assert not any("/table/E3/" in line for line in topics)
    # the listener comes before the bridge: options after `connection` belong to the bridge
    assert options.index("connection room-east") > max(
        i for i, line in enumerate(options) if line.startswith("listener ")
    )
    assert (out / "bridge.toml").stat().st_mode & 0o777 == 0o600


def test_central_gets_the_bridge_credential_acl_and_the_rooms_tables(tmp_path: Path):
    c = central(tmp_path)
    east = room(tmp_path, "east", "E1-E2", central_dir=c)
    west = room(tmp_path, "west", "W1", central_dir=c)
    assert verify_password(bridge_password(east), passwd_hash(c, "room-east"))
    assert verify_password(bridge_password(west), passwd_hash(c, "room-west"))
    assert verify_password(
        tomllib.loads((c / "hub.toml").read_text())["broker"]["password"], passwd_hash(c, "hub")
    )
    acl = (c / "acl").read_text()
    block = acl[acl.index("user room-east") :].split("\nuser ")[0]
    assert "topic write bg/v1/ev/table/E1/evt" in block
    assert "topic read bg/v1/ev/table/E2/cmd" in block
    assert "topic write bg/v1/ev/room/east/bridge" in block
    assert "topic read bg/v1/ev/hub/time" in block
    assert "W1" not in block and "table/1/" not in block
    hub = tomllib.loads((c / "hub.toml").read_text())
    assert hub["rooms"] == {"east": {"tables": ["E1", "E2"]}, "west": {"tables": ["W1"]}}
    # registering the same room again replaces it (one password line, one ACL block)
    room(tmp_path, "east", "E1-E3", "--force", central_dir=c)
    assert (c / "passwd").read_text().count("room-east:") == 1
    assert (c / "acl").read_text().count("user room-east") == 1
    assert verify_password(bridge_password(east), passwd_hash(c, "room-east"))
    assert tomllib.loads((c / "hub.toml").read_text())["rooms"]["east"]["tables"] == ["E1", "E2", "E3"]


def test_the_central_brokers_own_runs_keep_its_bridges(tmp_path: Path):
    c = central(tmp_path)
    east = room(tmp_path, "east", "E1-E2", central_dir=c)
    for mode in ("--keep", "--force"):
        central(tmp_path, "1-4", mode)
        assert verify_password(bridge_password(east), passwd_hash(c, "room-east")), mode
        assert "user room-east" in (c / "acl").read_text()
        assert "east" in tomllib.loads((c / "hub.toml").read_text())["rooms"]
    # a room run with --keep keeps its bridge's password; --force makes a new one
    before = bridge_password(east)
    room(tmp_path, "east", "E1-E2", "--keep")
    assert bridge_password(east) == before
    room(tmp_path, "east", "E1-E2", "--force")
    assert bridge_password(east) != before


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--room", "east"], "--room and --bridge-to go together"),
        (["--bridge-to", "c:1883"], "--room and --bridge-to go together"),
        (["--room", "east", "--bridge-to", "central.lan"], "expected HOST:PORT"),
        (["--room", "east", "--bridge-to", "c:99999"], "expected HOST:PORT"),
        (["--room", "e/st", "--bridge-to", "c:1883"], "invalid room id"),
        (["--central", "/tmp"], "--central is for a room's broker"),
        (["--room", "east", "--bridge-to", "c:1883", "--central", "/nonexistent"], "no passwd there"),
    ],
)
def test_refused_room_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str):
    out = tmp_path / "room"
    assert run("--event", "ev", "--tables", "1-2", "--out", str(out), *argv) == 2
    assert says in capsys.readouterr().err


def test_a_table_in_two_places_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    c = central(tmp_path)
    room(tmp_path, "east", "E1-E2", central_dir=c)
    out = tmp_path / "room-west"
    argv = ["--event", "ev", "--out", str(out), "--room", "west", "--bridge-to", "c:1", "--central", str(c)]
    assert run(*argv, "--tables", "E2,W1") == 2
    assert "table E2 is already in room east" in capsys.readouterr().err
    assert run(*argv, "--tables", "3,W1", "--force") == 2
    assert "on the central broker" in capsys.readouterr().err
    assert run("--event", "ev", "--tables", "1-3,E1", "--out", str(c), "--keep") == 2
    assert "in room east and on the central broker" in capsys.readouterr().err
    assert run("--event", "other", "--tables", "9", "--out", str(tmp_path / "r2"), "--room", "x",
               "--bridge-to", "c:1", "--central", str(c)) == 2  # fmt: skip
    assert "not 'other'" in capsys.readouterr().err
