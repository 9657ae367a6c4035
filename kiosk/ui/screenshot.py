"""``bgtable screenshot``: render the screen for a journal's final state to a PNG, without a display.

Replays the journal through the rulebook, draws the snapshot with SDL's dummy video driver and
saves the image: for documentation, bug reports and checking a translation at both screen sizes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from kiosk.ui.local import LocalState
from rulebook.replay import JournalFormatError, replay_lines
from rulebook.snapshot import snapshot

SIZE_RE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


def _pygame():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    if not pygame.display.get_init():
        pygame.display.init()
    pygame.font.init()
    return pygame


def headless_display(size: tuple[int, int]):
    """A display surface on SDL's dummy driver (for benchmarks: text surfaces get converted as on a
    real screen). ``close_display()`` ends it."""
    pygame = _pygame()
    return pygame.display.set_mode(size)


def close_display() -> None:
    import pygame

    pygame.display.quit()


def render_png(
    snap: dict[str, Any],
    size: tuple[int, int],
    lang: str,
    out: str | Path,
    local: LocalState | None = None,
    flip: bool = False,
    now_wall_ms: int | None = None,
) -> Path:
    """Draw ``snap`` at ``size`` in ``lang`` and save it as a PNG at ``out``."""
    pygame = _pygame()
    from kiosk.ui.view import KioskView

    view = KioskView(size, lang=lang, flip=flip)
    surface = pygame.Surface(size)
    now = now_wall_ms if now_wall_ms is not None else int(snap.get("wall") or time.time() * 1000)
    view.draw(surface, snap, local or LocalState(hub_online=True), now)
    path = Path(out)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surface, str(path))
    return path


def parse_size(text: str) -> tuple[int, int]:
    match = SIZE_RE.match(text or "")
    if match is None:
        raise ValueError(f"--size: expected WIDTHxHEIGHT such as 800x480, got {text!r}")
    w, h = int(match.group(1)), int(match.group(2))
    if not (160 <= w <= 7680 and 120 <= h <= 4320):
        raise ValueError(f"--size: {w}x{h} is out of range")
    return w, h


def main_screenshot(args: argparse.Namespace) -> int:
    """The ``bgtable screenshot`` command. Exit 0 on success, 2 on a bad journal or option."""
    try:
        size = parse_size(args.size)
        with open(args.journal, encoding="utf-8") as fh:
            state = replay_lines(fh.read().splitlines(), getattr(args, "table", "") or "")
    except (OSError, UnicodeDecodeError, ValueError, JournalFormatError) as exc:
        print(f"bgtable screenshot: {exc}", file=sys.stderr)
        return 2
    snap = snapshot(state)
    path = render_png(snap, size, args.lang, args.out, flip=bool(getattr(args, "flip", False)))
    print(path)
    return 0


#: the screens shown in docs/screens.md: file name -> (sample, size, language, local state fields)
GALLERY: dict[str, tuple[str, tuple[int, int], str, dict[str, Any]]] = {
    "play-800x480-en": ("playing", (800, 480), "en", {}),
    "play-1280x720-en": ("playing", (1280, 720), "en", {}),
    "crawford-800x480-en": ("crawford", (800, 480), "en", {}),
    "cube-offer-800x480-en": ("cube_offer", (800, 480), "en", {}),
    "result-entry-800x480-en": ("cube_owned", (800, 480), "en", {"overlay": "result", "result_winner": "B"}),
    "waiting-800x480-en": ("waiting_late", (800, 480), "en", {}),
    "opening-800x480-en": ("opening", (800, 480), "en", {"opening": {"A": 5, "B": None}}),
    "between-games-1280x720-en": ("crawford_next", (1280, 720), "en", {}),
    "break-800x480-en": ("break", (800, 480), "en", {}),
    "paused-power-loss-800x480-en": ("power_loss", (800, 480), "en", {}),
    "flag-800x480-en": ("flag", (800, 480), "en", {}),
    "match-over-800x480-en": ("finished", (800, 480), "en", {}),
    "td-menu-800x480-en": ("td_called", (800, 480), "en", {"overlay": "td"}),
    "play-800x480-el": ("low_time", (800, 480), "el", {}),
    "crawford-1280x720-bg": ("crawford", (1280, 720), "bg", {}),
    "players-languages-800x480": ("playing", (800, 480), "fr", {"langs": {"A": "hu", "B": "nb"}}),
    "idle-800x480-en": ("idle", (800, 480), "en", {}),
}


def render_gallery(out_dir: str | Path) -> list[Path]:
    """Render the documentation screenshots (``GALLERY``) into ``out_dir``."""
    from kiosk.ui.samples import sample_snapshot

    paths = []
    for name, (sample, size, lang, fields) in GALLERY.items():
        snap = sample_snapshot(sample)
        local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"))
        for key, value in fields.items():
            setattr(local, key, value)
        paths.append(render_png(snap, size, lang, Path(out_dir) / f"{name}.png", local=local))
    return paths


if __name__ == "__main__":
    for written in render_gallery(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"):
        print(written)
