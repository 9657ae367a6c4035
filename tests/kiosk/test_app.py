"""The kiosk's main loop, headless: SDL events, clock buttons on mock GPIO, a dice tower on a pty,
systemd notifications, settings changed at the table, and a clean stop on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from gpiozero.pins.mock import MockFactory

from drivers.dice_sim import DiceTowerSimulator, PtyPort
from kiosk.app import KioskApp
from kiosk.config import Config, DiceConfig, PinsConfig, ScreenConfig, with_settings
from kiosk.controller import TableController
from kiosk.journal import Journal, read_journal
from kiosk.notify import Notifier
from kiosk.ui.events import Expose, Key, Quit, Tap
from kiosk.ui.window import TOUCH_MOUSEID
from tests.support.patience import patience

WAIT_S = 10.0
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}


class Mono:
    """The app's monotonic clock in seconds, advanced by the test (edge times are exact)."""

    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def run_until(app: KioskApp, pred: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    """Run frames (paced like the real loop) until ``pred`` holds; fail after ``timeout``."""
    pacer = pygame.time.Clock()
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        app.step()
        pacer.tick(200)


def journaled(app: KioskApp) -> list[dict[str, Any]]:
    return read_journal(app.config.journal_path)


def inputs(app: KioskApp) -> list[str]:
    return [row["input"] for row in journaled(app)]


def seed_playing_match(data: Path, *, clock_on: bool = True) -> None:
    """A match in its first game (A won the opening roll; with a clock B must start A's clock)."""
    clock = iter(range(1_000, 100_000, 1_000))
    with Journal(data / "journal.sqlite3") as journal:
        ctl = TableController(journal, "5", clock_ms=lambda: next(clock))
        ctl.submit(
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "m1",
                "length": 7,
                "players": PLAYERS,
                "clock": clock_on,
            }
        )
        ctl.submit({"input": "checkin", "side": "A"})
        ctl.submit({"input": "checkin", "side": "B"})
        ctl.submit({"input": "opening_roll", "A": 5, "B": 2})
        assert ctl.state.phase == "playing"


class RecordingView:
    """The real view, with a record of what the loop asked of it."""

    def __init__(self, view: Any):
        self.view = view
        self.hits: list[tuple[int, int]] = []
        self.keys: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.view, name)

    def hit(self, pos: tuple[int, int], snap: dict, local: Any) -> list[dict]:
        self.hits.append(tuple(pos))
        return self.view.hit(pos, snap, local)

    def key(self, key: int, mod: int, snap: dict, local: Any) -> list[dict]:
        self.keys.append(key)
        return self.view.key(key, mod, snap, local)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., KioskApp]]:
    apps: list[KioskApp] = []

    def make(**kw: Any) -> KioskApp:
        config = Config(
            table_id="5",
            data_dir=str(tmp_path / "data"),
            pins=kw.pop("pins", PinsConfig(enabled=False)),
            dice=kw.pop("dice", DiceConfig()),
            screen=kw.pop("screen", ScreenConfig()),
        )
        app = KioskApp(config, headless=True, **kw)
        apps.append(app)
        app.start()
        return app

    yield make
    for app in apps:
        app.close()


# -- the screen ---------------------------------------------------------------------------------


def test_first_frame_sends_ready_then_watchdog_pings(make_app, tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(WAIT_S)
    mono = Mono()
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"}, monotonic=mono)
    app = make_app(notifier=notifier)
    app.step()
    first = sock.recv(4096).decode()
    assert first.startswith("READY=1") and "STATUS=table 5" in first
    assert sock.recv(4096) == b"WATCHDOG=1"  # the same frame pinged the watchdog
    app.step()
    mono.t += 0.5
    app.step()  # less than WATCHDOG_USEC/2 since the last ping: no datagram
    mono.t += 0.6
    app.step()
    assert sock.recv(4096) == b"WATCHDOG=1"
    app.close()
    assert sock.recv(4096) == b"STOPPING=1"
    sock.close()


def test_touch_is_taken_once_in_pixels(make_app):
    app = make_app()
    app.step()
    view = app.view = RecordingView(app.view)
    pygame.event.post(
        pygame.event.Event(pygame.FINGERDOWN, x=0.25, y=0.5, finger_id=0, touch_id=1, dx=0, dy=0)
    )
    # the mouse events SDL makes from that same touch
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(200, 240), button=1, touch=True, which=TOUCH_MOUSEID)
    )
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(200, 240), button=1, touch=True, which=TOUCH_MOUSEID)
    )
    app.step()
    assert view.hits == [(200, 240)]
    assert app.window.ignored_mouse == 1


def test_mouse_clicks_and_keys_on_a_desktop(make_app):
    app = make_app()
    app.step()
    view = app.view = RecordingView(app.view)
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(700, 100), button=1, touch=False, which=0)
    )
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(700, 100), button=3, touch=False, which=0)
    )
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_t, mod=0, unicode="t", scancode=0))
    app.step()
    assert view.hits == [(700, 100)]  # the right button does nothing
    assert view.keys == [pygame.K_t]


def test_rotated_panel_turns_picture_and_touches(make_app):
    app = make_app(screen=ScreenConfig(size=(800, 480), rotation=90))
    app.step()
    canvas = app.window.canvas
    assert canvas.get_size() == (480, 800)
    screen = pygame.display.get_surface()
    turned = pygame.transform.rotate(canvas, -90)
    assert pygame.image.tobytes(screen, "RGB") == pygame.image.tobytes(turned, "RGB")
    view = app.view = RecordingView(app.view)
    # top-right corner of the panel is the picture's top-left corner
    pygame.event.post(
        pygame.event.Event(pygame.FINGERDOWN, x=0.99, y=0.01, finger_id=0, touch_id=1, dx=0, dy=0)
    )
    app.step()
    (hit,) = view.hits
    assert hit[0] < 10 and hit[1] < 10


def test_the_window_hands_over_plain_values(make_app):
    """SDL's events become the app's own values: taps in pixels, keys, a repaint, a close."""
    app = make_app()
    app.step()  # whatever SDL queued on opening the window
    for event in (
        pygame.event.Event(pygame.FINGERDOWN, x=0.5, y=0.25, finger_id=0, touch_id=1, dx=0, dy=0),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(400, 120), button=1, touch=True, which=TOUCH_MOUSEID),
        pygame.event.Event(pygame.MOUSEMOTION, pos=(10, 20), rel=(1, 1), buttons=(0, 0, 0), touch=False),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 20), button=1, touch=False, which=0),
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=pygame.KMOD_LSHIFT, unicode="Q", scancode=0),
        pygame.event.Event(pygame.WINDOWEXPOSED),
        pygame.event.Event(pygame.QUIT),
    ):
        pygame.event.post(event)
    assert app.window.poll() == [
        Tap(400, 120, "touch"),
        Tap(10, 20, "mouse"),
        Key(pygame.K_q, pygame.KMOD_LSHIFT),
        Expose(),
        Quit(),
    ]
    assert app.window.ignored_mouse == 1
    assert app.window.poll() == []


def test_window_close_stops_the_loop(make_app):
    app = make_app()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    app.step()
    assert app.stopping.is_set()


# -- drivers ------------------------------------------------------------------------------------


def test_clock_buttons_on_gpio(make_app, tmp_path):
    seed_playing_match(tmp_path / "data")
    factory = MockFactory()
    mono = Mono()
    try:
        app = make_app(pins=PinsConfig(), pin_factory=factory, monotonic=mono)
        assert app.buttons is not None
        assert app.controller.snapshot()["clock"]["paused"] == "power_loss"  # restored

        def push(bcm: int) -> int:
            """Close the contact now; release it 100 ms later. Returns the journal time of the edge."""
            edge = app.clock()
            factory.pin(bcm).drive_low()
            mono.t += 0.1
            factory.pin(bcm).drive_high()
            mono.t += 0.1
            return edge

        n = len(journaled(app))
        push(22)  # pause button: resume after the power cut
        run_until(app, lambda: len(journaled(app)) > n, "resume")
        assert journaled(app)[-1]["input"] == "resume"
        assert app.controller.state.phase == "playing"

        edge = push(27)  # B starts A's clock (lower opening roll)
        mono.t += 0.4  # the frame comes later than the edge
        run_until(app, lambda: inputs(app)[-1] == "press", "press B")
        row = journaled(app)[-1]
        assert (row["side"], row["at"]) == ("B", edge)  # the clock switched at the edge
        assert app.controller.state.clock.running == "A"

        push(17)
        run_until(app, lambda: app.controller.state.clock.running == "B", "press A")
        push(23)
        run_until(app, lambda: inputs(app)[-1] == "call_td", "call TD")
        assert journaled(app)[-1]["side"] == "B"
        push(22)
        run_until(app, lambda: app.controller.state.paused == "td", "pause")
    finally:
        factory.reset()


def test_a_refused_press_is_explained_in_the_players_language(make_app, tmp_path):
    """B presses while A's clock runs: the table keeps its clock and says why on B's half, in
    B's language, from the rulebook's code (never the reducer's English reason)."""
    seed_playing_match(tmp_path / "data")
    factory = MockFactory()
    mono = Mono()
    try:
        app = make_app(pins=PinsConfig(), pin_factory=factory, monotonic=mono)
        app.local.langs["B"] = "fr"

        def push(bcm: int) -> None:
            factory.pin(bcm).drive_low()
            mono.t += 0.1
            factory.pin(bcm).drive_high()
            mono.t += 0.1

        push(22)  # resume after the restore
        run_until(app, lambda: app.controller.state.phase == "playing", "resume")
        push(27)  # B starts A's clock
        run_until(app, lambda: app.controller.state.clock.running == "A", "A's clock")
        n = len(journaled(app))
        push(27)  # B again: not B's clock
        run_until(app, lambda: len(journaled(app)) > n and app.local.refusal is not None, "refusal")
        assert app.controller.state.clock.running == "A"
        assert app.local.refusal["code"] == "clock.not_yours" and app.local.refusal["side"] == "B"
        run_until(app, lambda: any(p.region == "refusal.B" for p in app.view.last_layout), "drawn")
        (shown,) = [p for p in app.view.last_layout if p.region == "refusal.B"]
        assert shown.text == "c’est la pendule de Ann qui tourne"
        assert shown.rect[0] > app.window.size[0] // 2  # on B's half
        texts = [p.text for p in app.view.last_layout]
        assert "it is A's clock that runs" not in texts and "it is Ann's clock that runs" not in texts
        # a touch on the note takes it away
        x, y, w, h = shown.rect
        size = app.window.size
        pygame.event.post(
            pygame.event.Event(
                pygame.FINGERDOWN,
                x=(x + w / 2) / size[0],
                y=(y + h / 2) / size[1],
                finger_id=0,
                touch_id=1,
                dx=0,
                dy=0,
            )
        )
        run_until(app, lambda: app.local.refusal is None, "dismissed")
        app.step()
        assert not any(p.region == "refusal.B" for p in app.view.last_layout)
        push(17)  # A ends the turn: taken, nothing to explain
        run_until(app, lambda: app.controller.state.clock.running == "B", "B's clock")
        assert app.local.refusal is None
    finally:
        factory.reset()


def test_no_gpio_means_no_buttons_but_a_running_table(tmp_path):
    """On a computer without GPIO the kiosk says so and runs (keyboard and screen still work)."""
    config = tmp_path / "t.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n')
    script = tmp_path / "s.jsonl"
    script.write_text('{"input": "call_td", "side": "A"}\n{"after_ms": 100, "exit": true}\n')
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kiosk.cli",
            "run",
            "--headless",
            "--config",
            str(config),
            "--script",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=patience(60),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "buttons: not available" in proc.stderr and "running without them" in proc.stderr
    assert [r["input"] for r in read_journal(tmp_path / "data" / "journal.sqlite3")] == ["call_td"]


def test_dice_tower_rolls_reach_the_journal(make_app, tmp_path):
    seed_playing_match(tmp_path / "data")
    with PtyPort() as pty:
        app = make_app(dice=DiceConfig(device=pty.slave_path, baud=115200))
        run_until(app, lambda: app.dice_status is not None and app.dice_status.connected, "tower")
        app.controller.submit({"input": "resume"})
        app.controller.submit({"input": "press", "side": "B"})
        app.controller.submit({"input": "press", "side": "A"})  # B's turn, B's clock
        sim = DiceTowerSimulator(pty.master_fd)
        sim.roll(6, 3)
        run_until(app, lambda: inputs(app)[-1] == "roll", "roll")
        row = journaled(app)[-1]
        assert (row["dice"], row["source"]) == ([6, 3], "tower")
        assert app.controller.snapshot()["dice"] == [6, 3]
        sim.unreadable("cocked")
        run_until(app, lambda: inputs(app)[-1] == "invalid_roll", "re-roll")
        assert journaled(app)[-1]["side"] == "B"
        assert app.controller.snapshot()["dice"] is None
        app.close()


def test_a_tower_without_a_clock_gives_an_unreadable_throw_to_the_player_whose_roll_is_due(
    make_app, tmp_path
):
    """HU 0.16, WBGF 4.4 ii at a tower table without a clock: A moves the opening roll, B's throw is
    unreadable. The throw is B's (the roll due), so B may not double this turn; it was once sent
    as A's (the last roller) and refused ``roll.not_yours``, leaving B's double open."""
    seed_playing_match(tmp_path / "data", clock_on=False)
    with PtyPort() as pty:
        app = make_app(dice=DiceConfig(device=pty.slave_path, baud=115200))
        run_until(app, lambda: app.dice_status is not None and app.dice_status.connected, "tower")
        app.controller.submit({"input": "resume"})
        sim = DiceTowerSimulator(pty.master_fd)
        sim.unreadable("cocked")
        run_until(app, lambda: inputs(app)[-1] == "invalid_roll", "re-roll")
        assert journaled(app)[-1]["side"] == "B"
        legal = app.controller.snapshot()["legal"]["B"]
        assert not legal["double"] and legal["why"]["double"] == "double.after_roll"
        app.close()


def test_hub_inputs_from_other_threads_are_journaled(make_app):
    app = make_app()
    app.inbox.put(("assign", {"match_id": "h1", "length": 5, "players": PLAYERS, "clock": False}))
    app.inbox.put(("cmd", {"id": "c-1", "type": "set_length", "length": 7}))
    app.inbox.put(("roll", object()))  # garbage from a driver: logged, the loop goes on
    app.inbox.put(("input", {"input": "checkin", "side": "A"}))
    run_until(app, lambda: len(journaled(app)) == 3, "hub inputs")
    assert inputs(app) == ["assign", "cmd", "checkin"]
    snap = app.controller.snapshot()
    assert snap["match_id"] == "h1" and snap["length"] == 7 and snap["present"]["A"]


# -- settings changed at the table --------------------------------------------------------------


def test_settings_from_the_screen_are_kept(make_app):
    app = make_app()
    app.step()
    app._intents([{"app": "set_table_id", "table": "17"}])
    assert app.controller.snapshot()["table"] == "17"
    app._intents([{"app": "set_language", "lang": "fr"}, {"app": "flip"}])
    assert (app.view.lang, app.view.flip) == ("fr", True)
    app._intents([{"app": "set_table_id", "table_id": "no/slash"}])  # refused, logged
    app.step()
    saved = with_settings(app.config.__class__(data_dir=app.config.data_dir))
    assert (saved.table_id, saved.language, saved.screen.flip) == ("17", "fr", True)


# -- the process --------------------------------------------------------------------------------


def test_sigterm_stops_cleanly_after_ready(tmp_path):
    path = str(tmp_path / "n.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    config = tmp_path / "t.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[pins]\nenabled = false\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"},
    )
    try:
        assert sock.recv(4096).startswith(b"READY=1")
        assert sock.recv(4096) == b"WATCHDOG=1"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=patience(30))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    messages = []
    sock.setblocking(False)  # the process has exited: whatever it sent is queued here
    while True:
        try:
            messages.append(sock.recv(4096))
        except BlockingIOError:
            break
    assert b"STOPPING=1" in messages
    assert "first frame" in err and "stopped" in err
    sock.close()


# -- with the real screen: touches and keys become journaled table inputs ----------------------


def touch_intent(app: KioskApp, wanted: dict[str, Any], rotation: int = 0) -> None:
    """Touch the centre of the button that yields ``wanted`` on the screen last drawn."""
    scene = app.view.last_scene
    rects = [h.rect for h in scene.hits if any(wanted.items() <= i.items() for i in h.intents)]
    assert rects, f"no button for {wanted} on screen"
    x, y, w, h = rects[-1]
    width, height = app.window.size
    cx, cy = (x + w / 2) / width, (y + h / 2) / height
    if rotation == 180:
        cx, cy = 1 - cx, 1 - cy
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=cx, y=cy, finger_id=0, touch_id=1, dx=0, dy=0))


@pytest.mark.parametrize("rotation", [0, 180])
def test_touching_a_button_journals_its_input(make_app, rotation):
    app = make_app(screen=ScreenConfig(size=(800, 480), rotation=rotation))
    app.controller.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 7,
            "players": PLAYERS,
            "clock": True,
        }
    )
    app.step()
    touch_intent(app, {"input": "checkin", "side": "A"}, rotation)
    run_until(app, lambda: inputs(app)[-1:] == ["checkin"], "check-in by touch")
    assert journaled(app)[-1]["side"] == "A"
    assert app.controller.snapshot()["present"] == {"A": True, "B": False}


def test_restored_match_is_resumed_and_played_from_the_keyboard(make_app, tmp_path):
    seed_playing_match(tmp_path / "data")
    app = make_app()
    app.step()
    assert app.controller.snapshot()["clock"]["paused"] == "power_loss"

    def key(k: int) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))

    key(pygame.K_SPACE)  # resume
    run_until(app, lambda: inputs(app)[-1] == "resume", "resume")
    key(pygame.K_m)  # right-hand clock key: B starts A's clock
    run_until(app, lambda: app.controller.state.clock.running == "A", "A's clock")
    key(pygame.K_z)  # left-hand clock key: A ends the turn
    run_until(app, lambda: app.controller.state.clock.running == "B", "B's clock")
    assert [(r["input"], r.get("side")) for r in journaled(app)[-3:]] == [
        ("resume", None),
        ("press", "B"),
        ("press", "A"),
    ]


def test_unusable_data_dir_refuses_to_start(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    config = tmp_path / "t.toml"
    config.write_text(f'data_dir = "{tmp_path / "file" / "data"}"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "kiosk.cli", "run", "--headless", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=patience(60),
    )
    assert proc.returncode == 2
    assert "bgtable run: journal:" in proc.stderr and "file" in proc.stderr


def test_rolls_entered_on_the_screen_are_journaled_as_manual(make_app, tmp_path):
    """``dice.manual_entry``: at a table without a tower the player on roll enters the dice."""
    seed_playing_match(tmp_path / "data")
    app = make_app(dice=DiceConfig(manual_entry=True))
    assert app.local.manual_dice

    def key(k: int) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))

    app.step()
    key(pygame.K_SPACE)  # resume after the restore
    run_until(app, lambda: inputs(app)[-1] == "resume", "resume")
    key(pygame.K_m)  # B starts A's clock; A plays the opening roll
    key(pygame.K_z)  # A ends the turn: B's clock, B to roll
    run_until(app, lambda: app.controller.state.clock.running == "B", "B's clock")
    key(pygame.K_k)  # the right-hand player's roll entry
    run_until(app, lambda: app.local.overlay == "dice", "the roll dialog")
    key(pygame.K_4)
    key(pygame.K_2)
    run_until(app, lambda: inputs(app)[-1] == "roll", "the roll")
    assert journaled(app)[-1]["dice"] == [4, 2] and journaled(app)[-1]["source"] == "manual"
    assert app.controller.snapshot()["dice"] == [4, 2]


def test_td_penalty_at_the_table_is_journaled_like_the_hubs_command(make_app, tmp_path):
    """TD menu (PIN), Penalty, the left player, Continue, Confirm: one ``cmd`` in the journal."""
    seed_playing_match(tmp_path / "data")
    app = make_app()

    def key(k: int) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))

    app.step()
    key(pygame.K_t)
    for _ in "0000":  # the default PIN
        key(pygame.K_0)
    key(pygame.K_RETURN)
    run_until(app, lambda: app.local.overlay == "td", "the TD menu")
    scene = app.view.last_scene
    (penalty,) = [h for h in scene.hits if h.intents[0] == {"ui": "td", "page": "td_penalty"}]
    key(penalty.keys[0])
    run_until(app, lambda: app.local.overlay == "td_penalty", "the penalty page")
    key(pygame.K_q)  # the left player: A
    key(pygame.K_RETURN)  # Continue
    run_until(app, lambda: app.local.overlay == "td_confirm", "the confirmation")
    key(pygame.K_RETURN)  # Confirm
    run_until(app, lambda: inputs(app)[-1] == "cmd", "the command")
    row = journaled(app)[-1]
    assert (row["type"], row["against"], row["points"], row["reason"]) == ("penalty", "A", 1, "conduct")
    assert row["id"].startswith("local:")
    assert app.controller.snapshot()["score"] == {"A": 0, "B": 1}
