"""Any text the hub (or a bad schedule) sends can be drawn: player names, the round and the match
id are fuzzed through the real screens at 800×480 (SDL's dummy driver), and every text must be
drawn without an exception and inside its box (cut with an ellipsis when it cannot fit).

Hypothesis draws from all of Unicode but surrogates (JSON from the hub cannot carry a lone
one into the journal), plus the cases that broke SDL_ttf: NUL, text of zero width, very long
names, right-to-left scripts, piles of combining marks, emoji sequences, controls.
"""

from __future__ import annotations

import copy
import operator
from typing import Any

import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.ui import named, samples
from kiosk.ui.text import ELLIPSIS, MAX_CHARS, TextCache, displayable
from kiosk.ui.view import KioskView, LocalState

SIZE = (800, 480)
SPECIAL = [
    "\x00",
    "Ann\x00Lee",
    "\u200b",
    "\u200b\u200c\u200d\u2060",
    "\U000e0041\U000e0042",
    "\ufeff",
    "\u202eevil\u202c",
    "مرحبا بالعالم",
    "שלום עולם",
    "e" + "\u0301" * 60,
    "👨\u200d👩\u200d👧\u200d👦" * 12,
    "\t\n\r\x0b\x0c",
    "\x85\x9f\x7f",
    "W" * 5000,
    "a-b-c-" * 300,
    "\u00ad" * 80,
    "\ud800 lone",
    "",
    " ",
    "\n" * 40,
]
TEXT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=120),
    st.sampled_from(SPECIAL),
    st.builds(
        operator.mul,
        st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6),
        st.integers(40, 900),
    ),
)
SCREENS = [(name, {}) for name in samples.SAMPLES] + [(d.sample, d.local) for d in named.DIALOGS.values()]
SNAPS = {name: samples.sample_snapshot(name) for name in samples.SAMPLES}
VIEW: dict[str, KioskView] = {}


def hostile(sample: str, a: str, b: str, round_: str, match_id: str) -> dict[str, Any]:
    snap = copy.deepcopy(SNAPS[sample])
    players = snap.get("players") or {}
    if players:
        players["A"]["name"], players["B"]["name"] = a, b
    if snap.get("match_id"):
        snap["match_id"] = match_id or "m"
        snap["round"] = round_
    return snap


def inside(rect, box) -> bool:
    x, y, w, h = rect
    bx, by, bw, bh = box
    return x >= bx and y >= by and x + w <= bx + bw and y + h <= by + bh


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    screen=st.sampled_from(SCREENS),
    a=TEXT,
    b=TEXT,
    round_=TEXT,
    match_id=TEXT,
    banner=st.booleans(),
)
def test_any_name_is_drawn_inside_its_box(screen, a, b, round_, match_id, banner):
    sample, fields = screen
    snap = hostile(sample, a, b, round_, match_id)
    view = VIEW.setdefault("view", KioskView(SIZE))  # one view: its caches see every text
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"))
    for key, value in fields.items():
        setattr(local, key, copy.deepcopy(value))
    if banner:
        local.journal_notice = {"problem": "lost", "after_input": 0, "match_id": match_id}
    view.draw(pygame.Surface(SIZE), snap, local, snap["wall"])
    assert view.last_layout
    for p in view.last_layout:
        assert inside(p.rect, p.box), f"{sample}: {p.text[:40]!r} {p.rect} overflows {p.box}"
        assert inside(p.rect, (0, 0, *SIZE)), f"{sample}: {p.text[:40]!r} off screen"


@pytest.mark.parametrize("text", SPECIAL)
def test_the_text_layer_never_fails(text):
    cache = TextCache()
    for wrap in (False, True):
        size, lines = cache.fit(text, True, 40, 200, 60, wrap)
        assert 1 <= size <= 40 and lines
        for line in lines:
            surface = cache.render(line, size, True, (255, 255, 255))
            assert surface.get_width() <= 200


def test_displayable_keeps_ordinary_text_and_drops_what_cannot_be_shown():
    assert displayable("Ζωή Élodie Ødegård Łukasz-Nagy") == "Ζωή Élodie Ødegård Łukasz-Nagy"
    assert displayable("Line one\nline two") == "Line one\nline two"
    assert displayable("Ann\x00 Lee\x07\x1b[31m\x85") == "Ann Lee[31m"
    assert displayable("a\tb") == "a b"
    assert displayable("\ud800x") == "\ufffdx"
    long = displayable("x" * 5000)
    assert len(long) == MAX_CHARS and long.endswith(ELLIPSIS)


def test_a_name_too_long_for_its_box_is_cut_with_an_ellipsis():
    cache = TextCache()
    size, lines = cache.fit("Konstantinopoulos" * 40, True, 30, 300, 40, False)
    assert len(lines) == 1 and lines[0].endswith(ELLIPSIS)
    assert lines[0].startswith("Konstantinopoulos")
    assert cache.render(lines[0], size, True, (0, 0, 0)).get_width() <= 300


@pytest.mark.parametrize("text", ["\ng doubles", "Owner: \ng", "g\ng\ng", "Ångström\nqjy"])
def test_lines_drawn_stay_inside_the_height_they_were_fitted_to(text):
    """A line's glyphs can be taller than the font's height ("g" in DejaVu Sans): the block is
    measured as drawn, so a name with a line break stays inside the cube's caption box."""
    cache = TextCache()
    for h in range(12, 60):
        size, lines = cache.fit(text, False, 20, 196, h, True)
        heights = [cache.render(line, size, False, (255, 255, 255)).get_height() for line in lines]
        drawn = max(i * cache.line_height(False, size) + lh for i, lh in enumerate(heights))
        assert drawn <= h or size <= 6, (h, size, lines, heights)
