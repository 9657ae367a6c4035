"""Software slots on the data partition: a new version is tried, and the old one comes back if the
new one does not start.

The image's read-only root holds the factory version (``/opt/bgtable/venv``); updates go to two
slots on the data partition, ``slots/a`` and ``slots/b`` (the product's files, unpacked from the
hub's wheel; the libraries stay those of the factory venv). ``slots/state.json`` says which slot
is active and whether it is on trial:

1. the updater unpacks the new build into the slot not in use, checks that it imports and is the
   build it claims to be, and — between matches — marks it active *on trial* (:func:`stage`);
2. every start of ``bgtable run`` goes through the factory's launcher (:func:`choose`): an active
   slot is started with ``exec`` (same process, so systemd's notify and watchdog carry on); a slot
   on trial has its start counted first;
3. the new version confirms itself (:func:`confirm`) once its screen is up and it reached the
   broker; a version that crashes, hangs (systemd's watchdog kills it) or exits before that is
   started again by systemd, and after :data:`MAX_TRIES` unconfirmed starts the launcher goes back
   to the previous slot (or the factory version) and remembers the build as failed, so the same
   build is not tried again by itself.

The same flip-back as the A/B schemes of RAUC or systemd-boot's boot counting, at the level of the
application, where the read-only root cannot be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from drivers.private_file import write_private

SLOTS = ("a", "b")
STATE_FILE = "state.json"
#: unconfirmed starts of a new version before the previous one comes back
MAX_TRIES = 2
SLOT_ENV = "BGTABLE_SLOT"
ARGV_ENV = "BGTABLE_ARGV"
#: how a slot's own code is started: its directory first on the path, then the kiosk's CLI
BOOT = "import sys; from kiosk.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass
class SlotState:
    #: the slot to start (None: the factory version)
    active: str | None = None
    #: what to go back to if the active one fails (None: the factory version)
    previous: str | None = None
    trial: bool = False
    tries: int = 0
    #: slot -> the build id unpacked there
    builds: dict[str, str] = field(default_factory=dict)
    #: build id -> why it was given up
    failed: dict[str, str] = field(default_factory=dict)
    #: the last fall-back, for the Tables page: "build X did not start"
    fallback: str = ""


def slots_dir(state_dir: Path) -> Path:
    return state_dir / "slots"


def slot_dir(state_dir: Path, name: str) -> Path:
    if name not in SLOTS:
        raise ValueError(f"no slot {name!r}")
    return slots_dir(state_dir) / name


def load(state_dir: Path) -> SlotState:
    """The slots' state; a missing or damaged file means the factory version (never a crash)."""
    try:
        data = json.loads((slots_dir(state_dir) / STATE_FILE).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            return SlotState()
        state = SlotState(**{k: v for k, v in data.items() if k in SlotState.__dataclass_fields__})
    except (OSError, ValueError, TypeError):
        return SlotState()
    sane = (
        state.active in (None, *SLOTS)
        and state.previous in (None, *SLOTS)
        and isinstance(state.trial, bool)
        and isinstance(state.tries, int)
        and isinstance(state.builds, dict)
        and isinstance(state.failed, dict)
        and isinstance(state.fallback, str)
    )
    return state if sane else SlotState()


def save(state_dir: Path, state: SlotState) -> None:
    write_private(slots_dir(state_dir) / STATE_FILE, json.dumps(asdict(state), indent=1) + "\n")


def spare(state: SlotState) -> str:
    """The slot a new build goes to: not the active one, and not the one to fall back to."""
    for name in SLOTS:
        if name not in (state.active, state.previous):
            return name
    return next(name for name in SLOTS if name != state.active)


def stage(state_dir: Path, name: str, build: str) -> SlotState:
    """Make slot ``name`` (holding ``build``) the active one, on trial."""
    state = load(state_dir)
    if state.active != name:
        state.previous = state.active
    state.active, state.trial, state.tries = name, True, 0
    state.builds[name] = build
    state.failed.pop(build, None)
    save(state_dir, state)
    return state


def choose(state_dir: Path) -> tuple[str | None, SlotState]:
    """The launcher's decision at a start: which slot to run (None: the factory version)."""
    state = load(state_dir)
    if state.active is None:
        return None, state
    if not (slot_dir(state_dir, state.active) / "kiosk").is_dir():
        state.failed[state.builds.get(state.active, "?")] = "its files are missing"
        state.active, state.trial, state.tries = state.previous, False, 0
        state.previous = None
        save(state_dir, state)
        return state.active, state
    if state.trial:
        if state.tries >= MAX_TRIES:
            build = state.builds.get(state.active, "?")
            state.failed[build] = f"did not start ({state.tries} tries)"
            state.fallback = f"build {build} did not start; back on the previous version"
            state.active, state.previous = state.previous, None
            state.trial, state.tries = False, 0
            save(state_dir, state)
            return state.active, state
        state.tries += 1
        save(state_dir, state)
    return state.active, state


def confirm(state_dir: Path) -> bool:
    """The running slot works: it is no longer on trial. True if it was."""
    state = load(state_dir)
    if not state.trial:
        return False
    state.trial, state.tries, state.fallback = False, 0, ""
    save(state_dir, state)
    return True


def state_dir_of(config_path: str | None) -> Path | None:
    """The data directory of a configuration file (where its slots are), without the kiosk."""
    if not config_path:
        return None
    import tomllib

    try:
        with open(config_path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError):
        return None
    data_dir = data.get("data_dir")
    return Path(data_dir) if isinstance(data_dir, str) and data_dir else None


def launch(argv: list[str], environ: dict[str, str] | None = None) -> None:
    """At the start of ``bgtable run`` in the factory version: ``exec`` the active slot, if any."""
    env = dict(os.environ if environ is None else environ)
    if env.get(SLOT_ENV) or not argv or argv[0] != "run":
        return
    config = _option(argv, "--config")
    state_dir = state_dir_of(config)
    if state_dir is None:
        return
    name, _ = choose(state_dir)
    if name is None:
        return
    env[SLOT_ENV] = name
    env[ARGV_ENV] = json.dumps([sys.executable, *sys.argv])
    env["PYTHONPATH"] = os.pathsep.join(
        [str(slot_dir(state_dir, name)), *filter(None, [env.get("PYTHONPATH")])]
    )
    sys.stdout.flush()
    sys.stderr.flush()
    # -P: no working directory on the path, so the slot's own packages are the ones imported
    os.execve(sys.executable, [sys.executable, "-P", "-c", BOOT, *argv], env)


def relaunch() -> None:
    """Start ``bgtable run`` again through the factory's launcher (restart, update, retire)."""
    env = dict(os.environ)
    argv: Any = None
    with contextlib.suppress(ValueError):
        argv = json.loads(env.get(ARGV_ENV, ""))
    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
        argv = [sys.executable, *sys.argv]
    if env.pop(SLOT_ENV, None) is not None:
        env.pop("PYTHONPATH", None)
    env.pop(ARGV_ENV, None)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(argv[0], argv, env)


def _option(argv: list[str], name: str) -> str | None:
    for index, arg in enumerate(argv):
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None
