"""A button never reads like a state: "Check in" (what to touch) and "Checked in" (what is so)
must be different words in every language, or a player cannot tell whether to touch it.

Each screen and dialog is drawn in each language; a text drawn inside a touch area is a button
label, any other text on the screens is a state. No button label may equal a state's text.
"""

from __future__ import annotations

import pygame
import pytest

from kiosk.ui import named, samples
from kiosk.ui.i18n import LANGUAGES, catalog, translator
from kiosk.ui.scene import Scene, Text
from kiosk.ui.screens.messages import PAUSE_CHOICES, PAUSE_REASONS
from kiosk.ui.view import KioskView, LocalState

SNAPS = {name: samples.sample_snapshot(name) for name in samples.SAMPLES}
#: buttons and the states they lead to, checked in the catalogs themselves as well
PAIRS = [
    ("Check in", "Checked in"),
    ("Confirm the score", "Score confirmed"),
    ("Call the TD", "TD called"),
    ("Withdraw the call", "TD called"),
    ("Take a break", "On a break"),
    ("Take a break", "Break"),
    ("Lateness", "Late"),
    ("I am back", "On a break"),
    ("Pause", "Paused"),
    ("Pause", "Clock paused"),
    ("Resume", "Paused"),
    ("Enter the roll", "Roll"),
]


#: the pause dialog's choices and the reason the paused screen then shows
PAIRS += [(PAUSE_CHOICES[r], PAUSE_REASONS[r]) for r in PAUSE_CHOICES]


def _norm(text: str) -> str:
    return text.replace("✓", "").replace("\u00ad", "").strip().casefold()


def _scene(lang: str, sample: str, fields: dict) -> Scene:
    snap = SNAPS[sample]
    view = KioskView((800, 480), lang=lang)
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"))
    for key, value in fields.items():
        setattr(local, key, value)
    view.draw(pygame.Surface((800, 480)), snap, local, snap["wall"])
    assert view.last_scene is not None
    return view.last_scene


def _split(scene: Scene) -> tuple[set[str], set[str]]:
    """(button labels, other texts) of what a screen shows: with a dialog open, the dialog only.

    The table's number in the top bar also opens the TD menu's PIN pad; it is the table's label,
    not a button label, and is left out."""
    shown = [h.shown or h.rect for h in scene.hits if h.intents[0] != {"ui": "open", "overlay": "pin"}]
    dialog = any(r.overlay for r in scene.regions)
    buttons: set[str] = set()
    others: set[str] = set()
    for region in scene.regions:
        if dialog and not region.overlay:
            continue
        for item in region.items:
            if not isinstance(item, Text):
                continue
            x, y, w, h = item.box
            cx, cy = x + w // 2, y + h // 2
            inside = any(sx <= cx < sx + sw and sy <= cy < sy + sh for sx, sy, sw, sh in shown)
            (buttons if inside else others).add(_norm(item.text))
    return buttons, others


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_button_reads_like_a_state_on_any_screen(lang):
    names = {_norm(p["name"]) for p in samples.PLAYERS.values()} | {_norm(n) for n in LANGUAGES.values()}
    buttons: set[str] = set()
    states: set[str] = set()
    for sample in samples.SAMPLES:
        b, o = _split(_scene(lang, sample, {}))
        buttons |= b
        states |= o
    for d in named.DIALOGS.values():
        b, _ = _split(_scene(lang, d.sample, d.local))
        buttons |= b
    clash = {t for t in buttons & states if not t.isdigit() and t not in names}
    assert not clash, f"{lang}: buttons that read like states: {sorted(clash)}"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_buttons_and_their_states_are_different_words_in_the_catalogs(lang):
    tr = translator(lang)
    for button, state in PAIRS:
        if lang != "en":
            assert button in catalog(lang) and state in catalog(lang), (button, state)
        assert _norm(tr(button)) != _norm(tr(state)), f"{lang}: {button!r} and {state!r} read alike"


def test_greek_check_in_and_checked_in_are_distinct_words():
    el = translator("el")
    assert el("Check in") == "Δήλωση παρουσίας"
    assert el("Checked in") == "Παρών"
