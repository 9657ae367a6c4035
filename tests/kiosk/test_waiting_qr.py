"""Each player's page on the waiting screen of a match of the draw (kiosk/ui/screens/lobby.py,
kiosk/ui/qr.py): the QR code drawn reads back, module by module from the screen's pixels, as
``qrcode``'s matrix of the address (quiet zone included), at a size a phone reads and inside
the player's half, clear of the Check in button; an address the table may not show is dropped
at its edge (kiosk/ui/pages.py) and the screen shows no code."""

from __future__ import annotations

import pygame
import pytest

from kiosk.ui import pages, qr, samples
from kiosk.ui.layout import Rect
from kiosk.ui.scene import Qr
from kiosk.ui.view import KioskView, LocalState
from rulebook.messages import PlayerPages
from rulebook.vocab import InputType

SIZES = [(800, 480), (1280, 720)]
PAGES: PlayerPages = {"A": "http://192.168.1.10:8080/p/k7m2qxw", "B": "https://bg-open.example.org/p/3hz9fta"}


def draw(
    sample: str, kept: dict[str, PlayerPages], size: tuple[int, int]
) -> tuple[KioskView, pygame.Surface]:
    snap = samples.sample_snapshot(sample)
    view = KioskView(size, lang="en")
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"), pages=kept)
    surface = pygame.Surface(size)
    view.draw(surface, snap, local, snap["wall"])
    return view, surface


def codes(view: KioskView) -> dict[str, Qr]:
    scene = view.last_scene
    assert scene is not None
    return {r.key[0]: item for r in scene.regions for item in r.items if isinstance(item, Qr)}


def read_back(surface: pygame.Surface, item: Qr) -> tuple[tuple[bool, ...], ...]:
    """The module grid as the screen shows it: each module's centre pixel, dark or light."""
    x, y, w, h = item.rect
    n = len(qr.matrix(item.text))
    mod = qr.module_px(item.text, min(w, h))
    x0, y0 = x + (w - mod * n) // 2, y + (h - mod * n) // 2
    return tuple(
        tuple(
            sum(surface.get_at((x0 + i * mod + mod // 2, y0 + j * mod + mod // 2))[:3]) < 384
            for i in range(n)
        )
        for j in range(n)
    )


def overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("sample", ["called", "waiting_late"])
def test_each_players_code_reads_back_as_his_page_on_his_half(size: tuple[int, int], sample: str) -> None:
    match_id = samples.sample_snapshot(sample)["match_id"]
    view, surface = draw(sample, {match_id: PAGES}, size)
    shown = codes(view)
    assert {side: item.text for side, item in shown.items()} == PAGES
    scene = view.last_scene
    assert scene is not None
    buttons = [
        h.shown or h.rect for h in scene.hits if any(i.get("input") == InputType.CHECKIN for i in h.intents)
    ]
    for side, item in shown.items():
        grid = read_back(surface, item)
        assert grid == qr.matrix(PAGES[side])  # type: ignore[literal-required]
        # the quiet zone (4 modules) is light all round
        assert not any(grid[0]) and not any(grid[-1]) and not any(row[0] or row[-1] for row in grid)
        side_px = qr.module_px(item.text, min(item.rect[2:])) * len(grid)
        assert 90 <= side_px <= (160 if size == (800, 480) else 200)
        x = item.rect[0]
        half = (0, size[0] // 2) if x < size[0] // 2 else (size[0] // 2, size[0])
        assert half[0] <= x and x + item.rect[2] <= half[1]
        assert item.rect[1] + item.rect[3] <= size[1]
        assert not any(overlaps(item.rect, b) for b in buttons)
    placed = [p for p in view.last_layout if p.region.endswith(".page")]
    assert len(placed) == 4  # host and path under each code
    for p in placed:
        assert p.size >= 10


@pytest.mark.parametrize("size", SIZES)
def test_no_code_without_pages_or_for_another_match(size: tuple[int, int]) -> None:
    assert codes(draw("called", {}, size)[0]) == {}
    assert codes(draw("called", {"another-match": PAGES}, size)[0]) == {}


@pytest.mark.parametrize(
    "bad",
    [
        "ftp://192.168.1.10/p/k7m2qxw",
        "javascript:alert(1)",
        "http://room hub/p/k7m2qxw",
        "http://h/" + "x" * 300,
        12,
        None,
        {"url": "http://h/p/x"},
    ],
)
def test_an_address_the_table_may_not_show_is_dropped_and_the_other_kept(bad: object) -> None:
    kept = pages.take({}, {"match_id": "r1-t12", "pages": {"A": bad, "B": PAGES["B"]}})
    assert kept == {"r1-t12": {"B": PAGES["B"]}}
    view, _ = draw("called", {samples.sample_snapshot("called")["match_id"]: kept["r1-t12"]}, (800, 480))
    assert set(codes(view)) == {"B"}


def test_the_latest_assignment_of_a_match_decides_and_few_are_kept() -> None:
    kept = pages.take({}, {"match_id": "m1", "pages": PAGES})
    assert pages.take(kept, {"match_id": "m1"}) == {}
    assert pages.take(kept, {"match_id": "m1", "pages": "http://x"}) == {}
    for n in range(2, 6):
        kept = pages.take(kept, {"match_id": f"m{n}", "pages": PAGES})
    assert list(kept) == ["m4", "m5"]
    assert pages.take(kept, {"pages": PAGES}) == kept  # no match id: nothing to keep it for


@pytest.mark.parametrize("size", SIZES)
def test_the_code_and_the_previous_matchs_next_line_share_the_half(size: tuple[int, int]) -> None:
    """A match called at once after the last: the previous players' lines (kiosk/ui/next_carry.py)
    stay beside the new players' codes, both readable."""
    snap = samples.sample_snapshot("called")
    view = KioskView(size, lang="en")
    local = LocalState(
        hub_online=True, synced=True, match_id=snap["match_id"], pages={snap["match_id"]: PAGES}
    )
    local.next_lines, local.carried = samples.carried_lines(snap["match_id"])
    surface = pygame.Surface(size)
    view.draw(surface, snap, local, snap["wall"])
    shown = codes(view)
    assert set(shown) == {"A", "B"}
    for side, item in shown.items():
        assert read_back(surface, item) == qr.matrix(PAGES[side])  # type: ignore[literal-required]
        assert qr.module_px(item.text, min(item.rect[2:])) * len(qr.matrix(item.text)) >= 90
    lines = [p for p in view.last_layout if p.region.endswith(".prev")]
    assert len(lines) == 2 and all(p.size >= (12 if size == (800, 480) else 19) for p in lines)
