"""Keeping a table's software in step with the hub's (docs/install-pi.md, "Updates").

A background thread asks the hub which build it serves (``GET /device/v1/software``) at start,
every ``fleet.update_check_s`` seconds and when the TD presses *Update*. The manifest must be
signed with the hub's key pinned at enrollment (:mod:`kiosk.trust`), and carry a *release*
signature, by a release key the image carries (``fleet.release_keys``, :mod:`hub.fleet.release`), over
the wheel's name, build, size and SHA-256. When the released build differs from the running one
the updater downloads the wheel and checks its size and SHA-256 against the signed release
before unpacking anything into the spare slot (:mod:`kiosk.slots`; paths checked, nothing outside
the slot). Unpacking runs no code.

The new code first runs in the check that the slot imports and *is* that build (a separate
Python process): only while no match is in progress (``idle``), killed if a match starts
meanwhile. Then the kiosk's main loop calls :meth:`Updater.switch_if_ready` and switches only
when no match is assigned or the match is over — never during one. A build that failed to
start before is not tried again by itself (the TD's *Update* tries it once more); the previous
version stays in its slot to fall back to.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from drivers.build_id import running_build
from drivers.signing import RELEASE_CONTEXT, SignatureError, parse_public_key, verify
from kiosk import slots
from kiosk.config import Config
from kiosk.errors import KioskError
from kiosk.trust import TrustError, check_answer, new_nonce, pinned_key

log = logging.getLogger("kiosk.updater")

MAX_WHEEL_BYTES = 64 * 1024 * 1024
#: the first check waits this long after start (the table comes up first)
FIRST_CHECK_S = 3.0
SMOKE = (
    "import kiosk.app, kiosk.cli, drivers.table_link, rulebook.table\n"
    "from drivers.build_id import running_build\n"
    "print(running_build())\n"
)


class UpdateError(KioskError):
    """An update that cannot be done now (the message is shown on the Tables page)."""


#: how often a table with a checked-out build looks whether the match has ended
IDLE_POLL_S = 1.0


def release_keys(directory: str) -> list[bytes]:
    """The release keys a table trusts: every ``*.pub`` in ``directory`` (the image's)."""
    keys: list[bytes] = []
    for path in sorted(Path(directory).glob("*.pub")) if directory else []:
        try:
            keys.append(parse_public_key(path.read_text(encoding="utf-8")))
        except (OSError, SignatureError) as exc:
            log.warning("release key %s: %s", path, exc)
    return keys


class Updater:
    def __init__(self, config: Config, *, on_change: Any = lambda: None, idle: Any = lambda: True) -> None:
        self.hub = config.fleet.hub.rstrip("/")
        self.device = config.fleet.device
        self.pinned = pinned_key(config.fleet.hub_key)
        self.release_dir = config.fleet.release_keys
        self.state_dir = config.data_path
        self.auto = config.fleet.auto_update
        self.interval = float(config.fleet.update_check_s)
        self.on_change = on_change
        #: True while no match is in progress: only then does new code run (its check)
        self.idle = idle
        #: unpacked, not yet checked: (slot, build, version)
        self._unpacked: tuple[str, str, str] | None = None
        self._lock = threading.Lock()
        self._state = "idle"
        self._detail = ""
        self._target = ""
        self._ready: tuple[str, str] | None = None
        self._forced = False
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        fallback = slots.load(self.state_dir).fallback
        if fallback:
            self._set("failed", fallback)

    # -- thread ------------------------------------------------------------------------------------

    def start(self) -> None:
        if not self.hub:
            return
        self._thread = threading.Thread(target=self._loop, name="updater", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)

    def check_now(self, forced: bool = False) -> None:
        with self._lock:
            self._forced = self._forced or forced
        self._wake.set()

    def _loop(self) -> None:
        self._wake.wait(FIRST_CHECK_S)
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                forced, self._forced = self._forced, False
            try:
                self.check(forced)
                self.check_unpacked()
            except UpdateError as exc:
                log.warning("update: %s", exc)
                self._set("failed", str(exc))
            except Exception as exc:
                log.exception("update failed")
                self._set("failed", f"unexpected error: {exc}"[:200])
            with self._lock:
                waiting = self._unpacked is not None
            self._wake.wait(IDLE_POLL_S if waiting else self.interval)

    # -- the work ----------------------------------------------------------------------------------

    def check(self, forced: bool = False) -> None:
        """Compare with the hub's released build; fetch, verify and unpack a different one."""
        with self._lock:
            if self._ready is not None or self._unpacked is not None:
                return
        manifest = self._manifest()
        build = str(manifest.get("build", ""))
        if not build or build == running_build():
            if self._state not in ("failed", "done"):
                self._set("idle", "the hub's software")
            return
        release = self._release(manifest)
        version = release["version"]
        state = slots.load(self.state_dir)
        if build in state.failed and not forced:
            self._set(
                "failed", f"{version} did not start here ({state.failed[build]}); press Update to try again"
            )
            return
        if not self.auto and not forced:
            self._set("idle", f"{version} is available (automatic updates are off)", version)
            return
        self._set("downloading", f"{version}", version)
        wheel = self._download(manifest, release)
        self._set("installing", f"{version}", version)
        slot = slots.spare(state)
        target = slots.slot_dir(self.state_dir, slot)
        try:
            unpack(wheel, target)  # checked against the signed release first; runs nothing
        finally:
            wheel.unlink(missing_ok=True)
        with self._lock:
            self._unpacked = (slot, build, version)
        self._set("waiting", f"{version}: installs between matches", version)

    def check_unpacked(self) -> None:
        """Run the unpacked build's check, only while no match is in progress."""
        with self._lock:
            unpacked = self._unpacked
        if unpacked is None or not self.idle():
            return
        slot, build, version = unpacked
        try:
            if not self._smoke(slots.slot_dir(self.state_dir, slot), build):
                return  # a match started meanwhile: checked again after it
        except UpdateError:
            with self._lock:
                self._unpacked = None
            raise
        with self._lock:
            self._unpacked = None
            self._ready = (slot, build)
        self._set("waiting", f"{version}: installs between matches", version)

    def switch_if_ready(self) -> bool:
        """Main thread, no match in play: make the new slot active (on trial); True to restart."""
        with self._lock:
            ready, self._ready = self._ready, None
        if ready is None:
            return False
        slots.stage(self.state_dir, *ready)
        self._set("restarting", f"{self._target}: restarting", self._target)
        log.info("update: slot %s (build %s) on trial; restarting", *ready)
        return True

    def confirm(self) -> None:
        """The running version works (screen up, broker reached)."""
        if slots.confirm(self.state_dir):
            self._set("done", f"now running build {running_build()}")
            log.info("update: build %s confirmed", running_build())

    def status(self) -> dict[str, str]:
        with self._lock:
            return {"state": self._state, "detail": self._detail[:200], "target": self._target[:64]}

    def _set(self, state: str, detail: str, target: str | None = None) -> None:
        with self._lock:
            changed = (state, detail) != (self._state, self._detail)
            self._state, self._detail = state, detail
            if target is not None:
                self._target = target
        if changed:
            self.on_change()

    def _manifest(self) -> dict[str, Any]:
        """The hub's manifest, signed with the pinned key for this request (a relay's or a rogue
        hub's is refused)."""
        if self.pinned is None:
            raise UpdateError("no hub key pinned at enrollment: enroll this table again to update")
        nonce = new_nonce()
        query = urllib.parse.urlencode({"device": self.device, "nonce": nonce})
        try:
            with urllib.request.urlopen(f"{self.hub}/device/v1/software?{query}", timeout=15) as response:
                data = json.loads(response.read(64 * 1024))
        except (OSError, ValueError, urllib.error.URLError) as exc:
            raise UpdateError(f"cannot ask the hub for its software ({exc})") from None
        try:
            check_answer(data, "software", device=self.device, nonce=nonce, pinned=self.pinned)
        except TrustError as exc:
            raise UpdateError(str(exc)) from None
        return dict(data)

    def _release(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """The release signature of the manifest's wheel, checked with the image's release keys."""
        release = manifest.get("release")
        if release is None:
            raise UpdateError(f"build {manifest.get('build')} is not a signed release: not installed")
        keys = release_keys(self.release_dir)
        if not keys:
            raise UpdateError(f"no release key in {self.release_dir}: this table installs no update")
        try:
            verify(release, "release", keys, RELEASE_CONTEXT)
        except SignatureError as exc:
            raise UpdateError(f"the release signature of build {manifest.get('build')}: {exc}") from None
        fields = ("file", "build", "version", "sha256", "size")
        if any(release.get(k) != manifest.get(k) for k in fields):
            raise UpdateError("the hub's manifest differs from the signed release")
        if not isinstance(release.get("build"), str) or not isinstance(release.get("version"), str):
            raise UpdateError("the signed release names no build")
        return dict(release)

    def _download(self, manifest: dict[str, Any], release: dict[str, Any]) -> Path:
        url, sha, size = manifest.get("url"), release.get("sha256"), release.get("size")
        if not isinstance(url, str) or not url.startswith("/device/v1/software/") or not isinstance(sha, str):
            raise UpdateError("the hub's software manifest has no wheel")
        if not isinstance(size, int) or not 0 < size <= MAX_WHEEL_BYTES:
            raise UpdateError(f"the hub's wheel has an unlikely size ({size})")
        path = slots.slots_dir(self.state_dir) / "incoming.whl"
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        got = 0
        try:
            with urllib.request.urlopen(self.hub + url, timeout=60) as response, open(path, "wb") as out:
                while chunk := response.read(256 * 1024):
                    got += len(chunk)
                    if got > size:
                        raise UpdateError("the hub sent more than its manifest says")
                    digest.update(chunk)
                    out.write(chunk)
        except (OSError, urllib.error.URLError) as exc:
            raise UpdateError(f"download failed ({exc})") from None
        if got != size or digest.hexdigest() != sha:
            path.unlink(missing_ok=True)
            raise UpdateError("the downloaded wheel does not match the hub's manifest")
        return path

    def _smoke(self, target: Path, build: str) -> bool:
        """Import the slot in a separate Python: it must load and be ``build``. False (and the
        process killed) when a match starts meanwhile: the new code does not run during one."""
        env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "SDL_VIDEODRIVER": "dummy"}
        try:
            proc = subprocess.Popen(
                [sys.executable, "-P", "-c", SMOKE],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=target,
            )
        except OSError as exc:
            raise UpdateError(f"the new version could not be checked ({exc})") from None
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    out, err = proc.communicate(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    if not self.idle() or self._stop.is_set():
                        log.info("update: a match started; the new version's check waits for its end")
                        return False
                    if time.monotonic() > deadline:
                        raise UpdateError(
                            "the new version could not be checked (no answer in 120 s)"
                        ) from None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        lines = out.strip().splitlines()
        if proc.returncode != 0 or not lines or lines[-1] != build:
            why = (err.strip().splitlines() or ["no output"])[-1][:150]
            raise UpdateError(f"the new version does not load here: {why}")
        return True


def unpack(wheel: Path, target: Path) -> None:
    """Unpack a pure-Python wheel into ``target`` (emptied first); refuses paths that leave it."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    try:
        with zipfile.ZipFile(wheel) as zf:
            total = 0
            for info in zf.infolist():
                name = PurePosixPath(info.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
                    raise UpdateError(f"the wheel holds a path outside its directory: {info.filename!r}")
                total += info.file_size
                if total > 4 * MAX_WHEEL_BYTES:
                    raise UpdateError("the wheel unpacks to more than expected")
            zf.extractall(target)
    except zipfile.BadZipFile as exc:
        raise UpdateError(f"the download is not a wheel ({exc})") from None
