"""Sizes in millimetres on the real displays: touch targets, and what must be read from 1.5 m.

Every screen (each sample journal) and every dialog (``kiosk.ui.named``), at 800×480 on the
Touch Display (154.08 × 85.92 mm) and 1280×720 on the Touch Display 2 (155 × 88 mm), in all six
languages: every touch target is at least 9 mm wide and tall and 1.4 mm from the screen's edge.
The cube's value is drawn as large as the score; the match length and the Crawford notice are
large.
"""

from __future__ import annotations

import functools

import pygame
import pytest

from kiosk.ui import named, samples
from kiosk.ui.i18n import LANGUAGES
from kiosk.ui.physical import DISPLAYS, MIN_EDGE_MM, MIN_TARGET_MM
from kiosk.ui.text import TextCache
from kiosk.ui.view import KioskView, LocalState

SIZES = list(DISPLAYS)
SNAPS = {name: samples.sample_snapshot(name) for name in samples.SAMPLES}
CASES = (
    [(name, name, {}) for name in samples.SAMPLES]
    + [(f"dialog {name}", d.sample, d.local) for name, d in named.DIALOGS.items()]
    + [("journal banner", "playing", {"journal_notice": {"problem": "damaged", "after_input": 12}})]
)
#: digits drawn at the score's size are at least this tall (ink of a digit, mm)
MIN_SCORE_MM = 9.5
#: the match length under "Match to"
MIN_LENGTH_MM = 5.5
#: the Crawford notice (cap height)
MIN_CRAWFORD_MM = 3.2


def render(size, lang, sample, fields):
    snap = SNAPS[sample]
    view = KioskView(size, lang=lang)
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"))
    for key, value in fields.items():
        setattr(local, key, value)
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view, local


@functools.cache
def ink_ratio(bold: bool = True) -> float:
    """Height of a digit's ink as a share of the font size (DejaVu Sans Bold: about 0.73)."""
    font = TextCache().font(bold, 100)
    ((_, _, miny, maxy, _),) = font.metrics("0")
    return (maxy - miny) / 100


def ink_mm(size: tuple[int, int], px: int) -> float:
    return DISPLAYS[size].height_mm(px * ink_ratio())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_touch_target_is_at_least_9_mm_and_off_the_edge(size, lang):
    display = DISPLAYS[size]
    w_px, h_px = size
    problems = []
    for case, sample, fields in CASES:
        view, local = render(size, lang, sample, fields)
        assert local.overlay == fields.get("overlay"), f"{case}: the dialog did not open"
        scene = view.last_scene
        assert scene is not None and scene.hits, case
        for hit in scene.hits:
            x, y, w, h = hit.shown or hit.rect
            what = f"{case}: {hit.intents[0]}"
            wide, tall = display.width_mm(w), display.height_mm(h)
            if wide < MIN_TARGET_MM or tall < MIN_TARGET_MM:
                problems.append(f"{what} is {wide:.1f} × {tall:.1f} mm")
            gaps = (
                display.width_mm(x),
                display.height_mm(y),
                display.width_mm(w_px - x - w),
                display.height_mm(h_px - y - h),
            )
            if min(gaps) < MIN_EDGE_MM:
                problems.append(f"{what} is {min(gaps):.1f} mm from the edge")
            hx, hy, hw, hh = hit.rect
            if not (hx <= x and hy <= y and hx + hw >= x + w and hy + hh >= y + h):
                problems.append(f"{what}: the touch area is smaller than the button")
    assert not problems, "\n".join(problems)


def _digits(view, region: str) -> list:
    return [p for p in view.last_layout if p.region == region and p.text.isdigit()]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("sample", ["playing", "cube_offer", "cube_owned", "low_time", "no_clock"])
def test_cube_value_is_as_large_as_the_score(size, sample):
    view, _ = render(size, "en", sample, {})
    (cube,) = _digits(view, "C.cube")
    scores = _digits(view, "A.head") + _digits(view, "B.head")
    assert len(scores) == 2
    assert {s.size for s in scores} == {cube.size}, (cube, scores)
    assert ink_mm(size, cube.size) >= MIN_SCORE_MM


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_match_length_and_crawford_are_large(size, lang):
    view, _ = render(size, lang, "crawford", {})
    length = str(SNAPS["crawford"]["length"])
    (shown,) = [p for p in view.last_layout if p.region == "C.info" and p.text == length]
    assert ink_mm(size, shown.size) >= MIN_LENGTH_MM
    badge = [
        p
        for p in view.last_layout
        if p.region == "C.crawford"
        and p.size == max(q.size for q in view.last_layout if q.region == "C.crawford")
    ]
    assert badge and ink_mm(size, badge[0].size) >= MIN_CRAWFORD_MM, badge
