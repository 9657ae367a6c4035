"""The clock notice: the table's time of day against the room's (kiosk/room_clock.py), and what
each player's half of the screen says about it (kiosk/ui/screens/clock_notice.py)."""

from __future__ import annotations

import pygame
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiosk.room_clock import HYSTERESIS_MS, RoomClock
from kiosk.ui import samples
from kiosk.ui.i18n import LANGUAGES, translator
from kiosk.ui.screens import clock_notice
from kiosk.ui.view import KioskView, LocalState
from tests.kiosk.test_ui_layout import inside

MIN = 60_000
HOUR = 60 * MIN
DAY = 24 * HOUR
SIZES = [(800, 480), (1280, 720)]
#: the smallest text the notice may shrink to (the journal banner's floor), in pixels
MIN_PX = {(800, 480): 12, (1280, 720): 19}
EN_BEHIND_12 = "This table's clock is 12 min behind the room's — call the TD"

# -- the room's time -----------------------------------------------------------------------------


def test_nothing_is_known_before_the_hubs_first_message():
    room = RoomClock()
    assert room.room_wall(5_000) is None
    assert room.offset_ms(1_900_000_000_000, 5_000) is None
    assert room.notice(0, 5_000) is None  # even a table in 1970: nothing to compare with yet


@given(
    hub_wall=st.integers(0, 2**53 - 1 - 10 * DAY),
    received=st.integers(0, 10 * DAY),
    elapsed=st.integers(0, 10 * DAY),
    skew=st.integers(-30 * 365 * DAY, 30 * 365 * DAY),
)
def test_the_offset_holds_between_two_messages(hub_wall, received, elapsed, skew):
    """The room's time moves on with the monotonic clock: the table's wall clock, ``skew`` off the
    room's, reads as ``skew`` off at any later moment."""
    room = RoomClock()
    room.heard(hub_wall, received)
    now_mono = received + elapsed
    assert room.room_wall(now_mono) == hub_wall + elapsed
    assert room.offset_ms(hub_wall + elapsed + skew, now_mono) == skew


@given(
    threshold_s=st.integers(5, 86_400),
    skew=st.integers(-3 * DAY, 3 * DAY),
)
def test_the_notice_shows_beyond_the_threshold_in_whole_seconds(threshold_s, skew):
    room = RoomClock(threshold_s * 1000)
    room.heard(1_900_000_000_000, 0)
    shown = room.notice(1_900_000_000_000 + skew, 0)
    if abs(skew) > threshold_s * 1000:
        assert shown is not None and shown % 1000 == 0
        assert abs(shown - skew) <= 500 and (shown > 0) == (skew > 0)
    else:
        assert shown is None


def test_a_step_of_the_tables_clock_clears_the_notice_at_once_and_it_does_not_blink():
    room = RoomClock(30_000)
    hub = 1_900_000_000_000
    room.heard(hub, 1_000)
    assert room.notice(hub - 12 * MIN + 2_000, 3_000) == -12 * MIN  # two seconds on, still 12 min behind
    assert room.notice(hub - 12 * MIN + 2_030, 3_000) == -12 * MIN  # 11:59.97 (the network's delay)
    # chrony steps the clock: right at the next frame, no new message needed
    assert room.notice(hub + 4_000, 4_000) is None
    # right at the threshold: shown once beyond it, kept until clearly back under it
    assert room.notice(hub + 30_000, 1_000) is None
    assert room.notice(hub + 30_001, 1_000) == 30_000
    assert room.notice(hub + 30_000 - HYSTERESIS_MS + 1, 1_000) is not None
    assert room.notice(hub + 30_000 - HYSTERESIS_MS, 1_000) is None
    assert room.notice(hub + 30_000, 1_000) is None


def test_a_newer_message_replaces_the_anchor():
    room = RoomClock()
    room.heard(1_000_000, 0)
    room.heard(5_000_000, 10)  # the hub's own clock was stepped meanwhile
    assert room.room_wall(20) == 5_000_010


# -- the words -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offset", "unit", "n"),
    [
        (-30_001, "s", 30),
        (119_999, "s", 119),
        (-120_000, "min", 2),
        (-12 * MIN - 59_999, "min", 12),
        (2 * HOUR - 1, "min", 119),
        (2 * HOUR, "h", 2),
        (-(2 * DAY - 1), "h", 47),
        (-2 * DAY, "days", 2),
        (-20_000 * DAY, "days", 20_000),  # a Pi that booted in 1970
    ],
)
def test_the_amount_is_counted_as_the_hubs_alert_counts_it(offset, unit, n):
    assert clock_notice.amount(offset) == (unit, n)


def test_the_message_says_which_way_in_every_language():
    en = translator("en")
    assert clock_notice.message(en, -12 * MIN) == EN_BEHIND_12
    assert clock_notice.message(en, 3 * HOUR).startswith("This table's clock is 3 h ahead of the room's")
    for lang in LANGUAGES:
        tr = translator(lang)
        texts = {clock_notice.message(tr, sign * amount) for sign in (1, -1) for amount in (40_000, 5 * MIN)}
        assert len(texts) == 4, f"{lang}: ahead and behind, seconds and minutes read the same"
        if lang != "en":
            assert clock_notice.message(tr, -12 * MIN) != EN_BEHIND_12, f"{lang}: not translated"
            assert "12" in clock_notice.message(tr, -12 * MIN)


# -- on the screen -------------------------------------------------------------------------------


def draw(sample: str, size=(800, 480), lang="en", offset: int | None = -12 * MIN, langs=None) -> KioskView:
    snap = samples.sample_snapshot(sample)
    view = KioskView(size, lang=lang)
    local = LocalState(hub_online=True, clock_notice=offset, synced=True, match_id=snap.get("match_id"))
    if langs:
        local.langs = dict(langs)
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view


def notices(view: KioskView):
    return [p for p in view.last_layout if p.region.endswith("clock_notice")]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("sample", ["waiting_late", "opening", "playing", "break", "finished", "idle"])
def test_the_notice_fits_in_every_language_at_both_sizes(size, lang, sample):
    # a Pi that booted in 1970 is some 20,000 days behind; none is that far ahead; and the
    # largest offset a valid hub/time can make (its wall is at most 2**53 - 1)
    for offset in (-12 * MIN, 45_000, -3 * HOUR, -20_000 * DAY, 400 * DAY, -(2**53 - 1)):
        view = draw(sample, size, lang, offset)
        found = notices(view)
        assert len(found) == (1 if sample == "idle" else 2)
        for p in found:
            assert p.text == clock_notice.message(translator(lang), offset)
            assert inside(p.rect, p.box), f"{p.text!r} overflows"
            assert p.size >= MIN_PX[size], f"{p.text!r} shrunk to {p.size}px"


def test_each_half_speaks_its_players_language():
    view = draw("playing", langs={"A": "el", "B": "hu"})
    by_region = {p.region: p.text for p in notices(view)}
    assert by_region == {
        "A.clock_notice": clock_notice.message(translator("el"), -12 * MIN),
        "B.clock_notice": clock_notice.message(translator("hu"), -12 * MIN),
    }
    left = next(p for p in notices(view) if p.region == "A.clock_notice")
    right = next(p for p in notices(view) if p.region == "B.clock_notice")
    assert left.rect[0] + left.rect[2] <= 800 // 2 < right.rect[0]


def render(sample: str, offset: int | None) -> tuple[KioskView, pygame.Surface]:
    snap = samples.sample_snapshot(sample)
    view = KioskView((800, 480))
    local = LocalState(hub_online=True, clock_notice=offset, synced=True, match_id=snap.get("match_id"))
    surface = pygame.Surface((800, 480))
    view.draw(surface, snap, local, snap["wall"])
    return view, surface


def blank_out(surface: pygame.Surface, rects) -> bytes:
    copy = surface.copy()
    for rect in rects:
        copy.fill((255, 0, 255), rect)
    return pygame.image.tobytes(copy, "RGB")


def one_colour(surface: pygame.Surface, rect: pygame.Rect) -> bool:
    data = pygame.image.tobytes(surface.subsurface(rect), "RGB")
    return len({data[i : i + 3] for i in range(0, len(data), 3)}) <= 1


@pytest.mark.parametrize("sample", ["playing", "waiting_late", "waiting", "opening", "break", "finished"])
def test_the_notice_changes_nothing_else_and_covers_no_score_clock_button_or_arriving_name(sample):
    """Over the names once the match is under way; on the waiting screen over the panel's foot,
    under the names; never over the ink of a score or a clock, nor over anything to touch."""
    plain_view, plain = render(sample, None)
    view, noticed = render(sample, -12 * MIN)
    assert view.last_scene is not None and plain_view.last_scene is not None
    bands = [pygame.Rect(r.rect) for r in view.last_scene.regions if r.key.endswith("clock_notice")]
    assert len(bands) == 2
    # every pixel outside the two bands is as it was
    assert blank_out(noticed, bands) == blank_out(plain, bands)
    # the same touch areas, none of them under a band
    assert [h.rect for h in view.last_scene.hits] == [h.rect for h in plain_view.last_scene.hits]
    for hit in view.last_scene.hits:
        assert all(band.clip(pygame.Rect(hit.shown or hit.rect)).height == 0 for band in bands), hit
    # no ink of a score or a clock under a band (the text's box may reach into it, its digits not)
    for p in plain_view.last_layout:
        if p.text.replace(":", "").replace(".", "").isdigit():
            for band in bands:
                covered = band.clip(pygame.Rect(p.rect))
                assert covered.height == 0 or one_colour(plain, covered), f"{p.text!r} is covered"
    if sample.startswith("waiting"):
        names = [p for p in plain_view.last_layout if p.text in ("Alice Lambert", "Boris Ivanov")]
        assert len(names) == 2
        assert all(band.clip(pygame.Rect(p.rect)).height == 0 for p in names for band in bands)


def test_no_notice_while_the_clock_is_right():
    assert notices(draw("playing", offset=None)) == []
    assert EN_BEHIND_12 not in [p.text for p in draw("idle", offset=None).last_layout]


def test_a_dialog_covers_the_notice():
    """The notice is drawn before the dialogs: a player's dialog on their half is on top."""
    snap = samples.sample_snapshot("playing")
    view = KioskView((800, 480))
    local = LocalState(hub_online=True, clock_notice=-12 * MIN, synced=True, match_id=snap.get("match_id"))
    local.apply({"ui": "open", "overlay": "lang", "side": "A"})
    scene = view.build(snap, local, snap["wall"])
    keys = [r.key for r in scene.regions]
    dialog = max(i for i, key in enumerate(keys) if key.startswith("dlg"))
    assert keys.index("A.clock_notice") < dialog


def test_a_refused_input_is_drawn_over_the_notice():
    """A refusal (a clock pressed out of turn) is what the player must read now: on top."""
    snap = samples.sample_snapshot("playing")
    view = KioskView((800, 480))
    local = LocalState(hub_online=True, clock_notice=-12 * MIN, synced=True, match_id=snap.get("match_id"))
    local.refusal = {"code": "roll.premature", "params": {"side": "B"}, "side": "B", "until_wall": 2**53}
    keys = [r.key for r in view.build(snap, local, snap["wall"]).regions]
    assert keys.index("B.clock_notice") < keys.index("refusal.B")
