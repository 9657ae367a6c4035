"""Every screen and dialog, in every language, at both display sizes: all text fits its box.

Snapshots come from real journals replayed through the rulebook (``kiosk.ui.samples``). Text may
shrink to fit but must never overflow, and must stay readable across a table.
"""

from __future__ import annotations

import re

import pygame
import pytest

from kiosk.ui import named, samples
from kiosk.ui.i18n import LANGUAGES, translator
from kiosk.ui.view import KioskView, LocalState

SIZES = [(800, 480), (1280, 720)]
#: smallest text allowed (px) at each size: about 2.3 mm on the 7" display, 2.5 mm on the 10"
MIN_PX = {(800, 480): 12, (1280, 720): 17}

SNAPS = {name: samples.sample_snapshot(name) for name in samples.SAMPLES}
#: every screen, and every dialog the screen can open (``kiosk.ui.named``)
CASES = [(name, name, {}) for name in samples.SAMPLES] + [
    (f"dialog {name}", d.sample, d.local) for name, d in named.DIALOGS.items()
]


def render(size, lang, sample, local_fields, flip=False):
    snap = SNAPS[sample]
    view = KioskView(size, lang=lang, flip=flip)
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"))
    for key, value in local_fields.items():
        setattr(local, key, value)
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view, local


def inside(rect, box) -> bool:
    x, y, w, h = rect
    bx, by, bw, bh = box
    return x >= bx and y >= by and x + w <= bx + bw and y + h <= by + bh


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_text_fits_its_box(size, lang):
    problems = []
    for case, sample, fields in CASES:
        view, local = render(size, lang, sample, fields)
        assert local.overlay == fields.get("overlay"), f"{case}: the dialog did not stay open"
        assert view.last_layout, case
        for p in view.last_layout:
            if not inside(p.rect, p.box):
                problems.append(f"{case}: {p.text!r} {p.rect} overflows {p.box}")
            if p.size < MIN_PX[size]:
                problems.append(f"{case}: {p.text!r} shrunk to {p.size}px")
            if not inside(p.rect, (0, 0, *size)):
                problems.append(f"{case}: {p.text!r} off screen")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_screens_speak_the_language(lang):
    tr = translator(lang)
    view, _ = render((800, 480), lang, "crawford", {})
    texts = {p.text for p in view.last_layout}
    assert tr("CRAWFORD GAME") in texts
    assert tr("Delay") in texts
    assert tr("Game over") in texts
    view, _ = render((800, 480), lang, "waiting_late", {})
    texts = {p.text for p in view.last_layout}
    assert tr("Penalty points: {points}").format(points=1) in texts  # 7:30 late under wbgf-2023
    assert tr("Next penalty point in {time}").format(time="2:30") in texts


def test_crawford_game_is_unmistakable():
    view, _ = render((800, 480), "en", "crawford", {})
    badge = next(p for p in view.last_layout if p.text == "CRAWFORD GAME")
    assert badge.size >= 20
    assert "Double" not in {p.text for p in view.last_layout}
    view, _ = render((800, 480), "en", "crawford_next", {})
    assert "Next game is the Crawford game" in {p.text for p in view.last_layout}


def test_reserve_in_tenths_under_twenty_seconds_and_delay_apart():
    view, _ = render((800, 480), "en", "low_time", {})
    texts = [p.text for p in view.last_layout]
    tenths = [t for t in texts if re.fullmatch(r"1?\d\.\d", t)]
    assert tenths, texts
    snap = SNAPS["low_time"]
    ms = snap["clock"]["reserve_ms"]["A"]
    assert f"{ms // 1000}.{ms % 1000 // 100}" in tenths
    assert "Delay" in texts


def test_running_side_is_marked_by_shape_not_only_colour():
    from kiosk.ui.scene import Frame, Poly

    view, _ = render((800, 480), "en", "playing", {})
    scene = view.last_scene
    clocks = {r.key: r for r in scene.regions if r.key.endswith(".clock")}
    running = clocks["B.clock"]
    idle = clocks["A.clock"]
    assert any(isinstance(i, Frame) for i in running.items) and any(
        isinstance(i, Poly) for i in running.items
    )
    assert not any(isinstance(i, Frame | Poly) for i in idle.items)


def test_odd_sizes_scale_the_nearest_layout():
    for size in [(1024, 600), (480, 320), (1920, 1080)]:
        view, _ = render(size, "el", "crawford", {})
        for p in view.last_layout:
            assert inside(p.rect, p.box) and inside(p.rect, (0, 0, *size)), (size, p)


def test_flip_mirrors_the_halves():
    plain, _ = render((1280, 720), "en", "playing", {})
    flipped, _ = render((1280, 720), "en", "playing", {}, flip=True)
    a = next(p for p in plain.last_layout if p.text == "Alice Lambert")
    b = next(p for p in flipped.last_layout if p.text == "Alice Lambert")
    assert a.rect[0] < 640 < b.rect[0]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_paused_clock_is_marked_by_a_word_on_its_own_line(lang):
    """Not "14:00II": the mark stands over the time, and nothing drawn beside the digits."""
    from kiosk.ui.scene import Fill, Poly, Text

    for size in SIZES:
        view, _ = render(size, lang, "paused", {})
        snap = SNAPS["paused"]
        side = snap["clock"]["on"]
        region = next(r for r in view.last_scene.regions if r.key == f"{side}.clock")
        texts = [p for p in view.last_layout if p.region == region.key]
        word = next(p for p in texts if p.text == translator(lang)("Paused"))
        digits = next(p for p in texts if re.fullmatch(r"[\d:.]+", p.text))
        assert word.rect[1] + word.rect[3] <= digits.rect[1]
        top, bottom = digits.rect[1], digits.rect[1] + digits.rect[3]
        for item in region.items:
            if isinstance(item, Fill | Poly):
                ys = (
                    [item.rect[1], item.rect[1] + item.rect[3]]
                    if isinstance(item, Fill)
                    else [p[1] for p in item.points]
                )
                assert max(ys) <= top or min(ys) >= bottom, f"{item} beside the digits"
        assert any(isinstance(i, Text) and i.text == translator(lang)("Paused") for i in region.items)


@pytest.mark.parametrize("sample", list(samples.SAMPLES))
def test_scores_are_never_dimmed(sample):
    """Only a clock that is not running dims: both scores keep full contrast on every screen."""
    from kiosk.ui.scene import Text
    from kiosk.ui.theme import TEXT

    view, _ = render((800, 480), "en", sample, {})
    scores = [
        i
        for r in view.last_scene.regions
        if r.key in ("A.head", "B.head")
        for i in r.items
        if isinstance(i, Text) and i.text.isdigit()
    ]
    if SNAPS[sample].get("match_id") and SNAPS[sample]["phase"] not in ("waiting", "opening"):
        assert len(scores) == 2, sample
    assert all(i.color == TEXT for i in scores), sample
