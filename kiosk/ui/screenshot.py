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
    import pygame

    if not pygame.display.get_init():
        pygame.display.init()
    pygame.font.init()
    return pygame


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
