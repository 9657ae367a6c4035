"""``bgtable screenshot``: render the screen for a table's state to a PNG, without a display.

The state comes from a journal (replayed through the rulebook) or from one of the sample journals
(``--sample``); ``--table`` sets the table number shown, and ``--dialog`` opens any dialog of the
screen over it (``kiosk.ui.named``; ``--dialog list`` names them all). SDL's dummy video driver
draws the picture: for documentation, bug reports and checking a translation at both sizes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from kiosk import td_preview
from kiosk.errors import KioskError
from kiosk.screen_state import ScreenSnapshot, on_screen
from kiosk.ui import named
from kiosk.ui.local import LocalState
from rulebook.replay import JournalFormatError, replay_lines
from rulebook.snapshot import snapshot
from rulebook.state import TableState
from rulebook.vocab import CommandType, InputType

SIZE_RE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


class ScreenshotError(KioskError, ValueError):
    """An option of ``bgtable screenshot`` that cannot be honoured (the message says why)."""


def _pygame() -> Any:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    if not pygame.display.get_init():
        pygame.display.init()
    pygame.font.init()
    return pygame


def headless_display(size: tuple[int, int]) -> Any:
    """A display surface on SDL's dummy driver (for benchmarks: text surfaces get converted as on a
    real screen). ``close_display()`` ends it."""
    pygame = _pygame()
    return pygame.display.set_mode(size)


def close_display() -> None:
    import pygame

    pygame.display.quit()


def render_png(
    snap: ScreenSnapshot,
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
    local = local or LocalState(hub_online=True)
    wanted = local.overlay
    view.draw(surface, snap, local, now)
    if local.overlay != wanted:
        raise ScreenshotError(
            f"--dialog: the {wanted} dialog does not apply to this table's state (phase {snap.get('phase')})"
        )
    path = Path(out)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surface, str(path))
    return path


def parse_size(text: str) -> tuple[int, int]:
    match = SIZE_RE.match(text or "")
    if match is None:
        raise ScreenshotError(f"--size: expected WIDTHxHEIGHT such as 800x480, got {text!r}")
    w, h = int(match.group(1)), int(match.group(2))
    if not (160 <= w <= 7680 and 120 <= h <= 4320):
        raise ScreenshotError(f"--size: {w}x{h} is out of range")
    return w, h


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``bgtable screenshot`` (docs/kiosk.md)."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--journal", help="a table's journal (JSON lines, as `bgtable journal` prints)")
    source.add_argument("--sample", help="a sample table instead of a journal (--sample list names them)")
    parser.add_argument(
        "--table", default=None, help="the table number shown (default: none for a journal, 12 for a sample)"
    )
    parser.add_argument(
        "--dialog", default=None, help="open a dialog over the screen (--dialog list names them)"
    )
    parser.add_argument("--size", default="800x480")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--out", help="the PNG to write (required unless listing)")
    parser.add_argument("--flip", action="store_true", help="side A on the right")
    parser.add_argument("--hub-offline", action="store_true", help="show the hub link as down")


def _listing(args: argparse.Namespace) -> str | None:
    """``--dialog list`` / ``--sample list``: the names with what each shows."""
    from kiosk.ui.samples import SAMPLES

    if args.dialog == "list":
        return "\n".join(
            f"{name:20} {d.about} (e.g. --sample {d.sample})" for name, d in named.DIALOGS.items()
        )
    if args.sample == "list":
        return "\n".join(
            f"{name:16} {(fn.__doc__ or '').strip().splitlines()[0] if fn.__doc__ else ''}".rstrip()
            for name, fn in SAMPLES.items()
        )
    return None


def table_state(args: argparse.Namespace) -> TableState:
    """The table's state to draw: the journal's final state, or a sample's, under ``--table``."""
    from kiosk.ui import samples

    if args.journal:
        with open(args.journal, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        return replay_lines(lines, args.table or "")
    if args.sample not in samples.SAMPLES:
        raise ScreenshotError(f"--sample: no sample {args.sample!r} (--sample list names them)")
    return samples.sample_state(args.sample, args.table or samples.TABLE)


def state_snapshot(args: argparse.Namespace) -> ScreenSnapshot:
    """The snapshot to draw (of :func:`table_state`)."""
    return on_screen(snapshot(table_state(args)))


def screen_state(
    args: argparse.Namespace, snap: ScreenSnapshot, state: TableState | None = None
) -> LocalState:
    """The screen's own state: the dialog asked for, opened as the touches leading to it would
    (a TD command's confirmation with the reducer's dry run of it over ``state``)."""
    online = not args.hub_offline
    if args.dialog is None:
        return LocalState(hub_online=online, synced=True, match_id=snap.get("match_id"))
    if args.dialog not in named.DIALOGS:
        raise ScreenshotError(f"--dialog: no dialog {args.dialog!r} (--dialog list names them)")
    return named.local_for(args.dialog, snap, hub_online=online, state=state)


def main_screenshot(args: argparse.Namespace) -> int:
    """The ``bgtable screenshot`` command. Exit 0 on success, 2 on a bad journal or option."""
    listing = _listing(args)
    if listing is not None:
        print(listing)
        return 0
    try:
        if not args.out:
            raise ScreenshotError("--out: the PNG to write is required")
        if args.table is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", args.table):
            raise ScreenshotError(f"--table: expected a table id such as 12, got {args.table!r}")
        size = parse_size(args.size)
        state = table_state(args)
        snap = on_screen(snapshot(state))
        local = screen_state(args, snap, state)
        path = render_png(snap, size, args.lang, args.out, local=local, flip=bool(args.flip))
    except (OSError, UnicodeDecodeError, ScreenshotError, JournalFormatError) as exc:
        print(f"bgtable screenshot: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


# -- the gallery of docs/screens.md ----------------------------------------------------------------

#: every screen shown in docs/screens.md at both sizes in English and Greek: name -> (sample, dialog
#: or None, extra local state fields)
SCREENS: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "play": ("playing", None, {}),
    "crawford": ("crawford", None, {}),
    "doubled": ("doubled", None, {}),
    "cube-offer": ("cube_offer", None, {}),
    "paused": ("paused", None, {}),
    "pause-why": ("playing", "pause", {}),
    "td-call": ("td_called", None, {}),
    "no-clock-dice": ("no_clock", None, {"manual_dice": True}),
    "dice": ("no_clock", "dice-second", {}),
    "result-how": ("cube_owned", "result-kind", {}),
    "result-resign": ("cube_owned", "result-resign", {}),
    "waiting": ("waiting_late", None, {}),
    "td-menu": ("flag", "td-flag", {}),
    "td-penalty": ("playing", "td-penalty-chosen", {}),
    "td-confirm-penalty": ("crawford", "td-confirm-penalty", {}),
    "td-score": ("crawford", "td-score", {}),
    "td-flag-winner": ("flag", "td-flag-winner", {}),
    "td-table-fixed": ("playing", "td-table-fixed", {}),
    "double-early": ("playing", "double-early", {}),
    "double-crawford": ("crawford_hu", "double-crawford", {}),
    "td-crawford": ("crawford_hu_doubled", "td-crawford", {}),
    "td-force": ("ffbg_playing", "td-force", {}),
}
GALLERY_SIZES = ((800, 480), (1280, 720))
GALLERY_LANGS = ("en", "el")

#: single pictures: file name -> (sample, size, language, local state fields)
EXTRAS: dict[str, tuple[str, tuple[int, int], str, dict[str, Any]]] = {
    "opening-800x480-en": ("opening", (800, 480), "en", {"opening": {"A": 5, "B": None}}),
    "between-games-1280x720-en": ("crawford_next", (1280, 720), "en", {}),
    "break-800x480-en": ("break", (800, 480), "en", {}),
    "paused-power-loss-800x480-en": ("power_loss", (800, 480), "en", {}),
    "flag-800x480-en": ("flag", (800, 480), "en", {}),
    "match-over-800x480-en": ("finished", (800, 480), "en", {}),
    "crawford-1280x720-bg": ("crawford", (1280, 720), "bg", {}),
    "players-languages-800x480": ("playing", (800, 480), "fr", {"langs": {"A": "hu", "B": "nb"}}),
    "idle-800x480-en": ("idle", (800, 480), "en", {}),
    # the proper Double (B, on turn) and A's smaller Double early, one touch from its confirmation
    "early-double-button-800x480-en": ("playing", (800, 480), "en", {}),
    "crawford-double-button-800x480-hu": ("crawford_hu", (800, 480), "hu", {}),
    "td-cube-menu-800x480-en": ("crawford_hu_doubled", (800, 480), "en", {"overlay": "td"}),
    "td-confirm-double-loss-800x480-fr": (
        "ffbg_playing",
        (800, 480),
        "fr",
        {
            "overlay": "td_confirm",
            "td_pending": {
                "input": InputType.CMD,
                "type": CommandType.DOUBLE_LOSS,
                "note": "decided at the table",
            },
        },
    ),
    "double-loss-800x480-en": ("double_loss", (800, 480), "en", {}),
    "big-cube-800x480-en": ("big_cube", (800, 480), "en", {}),
    "huge-cube-800x480-en": ("huge_cube", (800, 480), "en", {}),
    # a roll the tower read before B's turn was over: both halves, each in its player's language
    "refusal-800x480-fr-bg": (
        "playing",
        (800, 480),
        "en",
        {
            "langs": {"A": "fr", "B": "bg"},
            "refusal": {"code": "roll.premature", "params": {"side": "B"}, "side": None, "until_wall": 2**53},
        },
    ),
    # the table's clock 12 minutes behind the room's: once the match is under way, and while the
    # players arrive
    "clock-off-800x480-en": ("playing", (800, 480), "en", {"clock_notice": -12 * 60_000}),
    "clock-off-800x480-el": ("playing", (800, 480), "el", {"clock_notice": -12 * 60_000}),
    "clock-off-waiting-800x480-en": ("waiting_late", (800, 480), "en", {"clock_notice": -12 * 60_000}),
    "clock-off-waiting-800x480-el": ("waiting_late", (800, 480), "el", {"clock_notice": -12 * 60_000}),
    # after a match of the draw: where each player goes next (the hub's table/{t}/next)
    "kiosk-next-800x480-en": ("finished_confirmed", (800, 480), "en", {"next_lines": "sample"}),
    "kiosk-next-800x480-el": ("finished_confirmed", (800, 480), "el", {"next_lines": "sample"}),
    "kiosk-next-1280x720-bg": ("finished_confirmed", (1280, 720), "bg", {"next_lines": "sample"}),
    "kiosk-next-800x480-hu-fr": (
        "finished_confirmed",
        (800, 480),
        "en",
        {"next_lines": "sample", "langs": {"A": "hu", "B": "fr"}},
    ),
    # the next match called at once: the previous match's lines stay on its waiting screen until
    # its first check-in or three minutes (each half in the language its player had chosen)
    "kiosk-next-waiting-800x480-en": ("called", (800, 480), "en", {"carried": "sample"}),
    "kiosk-next-waiting-800x480-hu-fr": (
        "called",
        (800, 480),
        "en",
        {"carried": "sample", "carried_langs": {"A": "hu", "B": "fr"}},
    ),
    "kiosk-next-waiting-1280x720-el": ("called", (1280, 720), "el", {"carried": "sample"}),
    # a match of the draw called to the table: each player's page (its QR code and address) on
    # his half, from the assignment's pages (a hub started with --public-url)
    "kiosk-waiting-qr-800x480": ("called", (800, 480), "en", {"pages": "sample"}),
    "kiosk-waiting-qr-1280x720": ("called", (1280, 720), "en", {"pages": "sample"}),
    "kiosk-waiting-qr-late-800x480": ("waiting_late", (800, 480), "en", {"pages": "sample"}),
    "kiosk-waiting-qr-next-800x480": ("called", (800, 480), "en", {"pages": "sample", "carried": "sample"}),
}


def gallery() -> dict[str, tuple[str, tuple[int, int], str, LocalState]]:
    """Every picture of docs/screens.md: file name -> (sample, size, language, screen state)."""
    from kiosk.ui.samples import carried_lines, next_lines, player_pages, sample_snapshot, sample_state

    out: dict[str, tuple[str, tuple[int, int], str, LocalState]] = {}
    for name, (sample, dialog, fields) in SCREENS.items():
        state = sample_state(sample)
        snap = on_screen(snapshot(state))
        for size in GALLERY_SIZES:
            for lang in GALLERY_LANGS:
                local = (
                    named.local_for(dialog, snap, state=state)
                    if dialog
                    else LocalState(hub_online=True, synced=True)
                )
                local.match_id = snap.get("match_id")
                for key, value in fields.items():
                    setattr(local, key, value)
                out[f"{name}-{size[0]}x{size[1]}-{lang}"] = (sample, size, lang, local)
    for name, (sample, size, lang, fields) in EXTRAS.items():
        match_id = sample_snapshot(sample).get("match_id")
        local = LocalState(hub_online=True, synced=True, match_id=match_id)
        for key, value in fields.items():
            if key not in ("carried", "carried_langs", "pages"):
                setattr(local, key, value)
        if fields.get("next_lines") == "sample" and match_id is not None:
            local.next_lines = next_lines(match_id)
        if fields.get("carried") == "sample" and match_id is not None:
            local.next_lines, local.carried = carried_lines(match_id, fields.get("carried_langs"))
        if fields.get("pages") == "sample" and match_id is not None:
            local.pages = player_pages(match_id)
        td_preview.refresh(local, sample_state(sample))
        out[name] = (sample, size, lang, local)
    return out


def render_gallery(out_dir: str | Path) -> list[Path]:
    """Render the documentation screenshots into ``out_dir``."""
    from kiosk.ui.samples import sample_snapshot

    return [
        render_png(sample_snapshot(sample), size, lang, Path(out_dir) / f"{name}.png", local=local)
        for name, (sample, size, lang, local) in gallery().items()
    ]


if __name__ == "__main__":
    for written in render_gallery(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"):
        print(written)
