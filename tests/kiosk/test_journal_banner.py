"""What the players and the TD see of a damaged or lost journal: a banner over the top bar, in the
table's language, that opens the TD menu and goes away once the TD has resumed the match."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from kiosk.app import KioskApp
from kiosk.config import Config, PinsConfig
from kiosk.controller import TableController
from kiosk.journal import Journal
from kiosk.ui import samples
from kiosk.ui.i18n import LANGUAGES, translator
from kiosk.ui.view import KioskView, LocalState

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
SIZES = [(800, 480), (1280, 720)]
MIN_PX = {(800, 480): 12, (1280, 720): 17}
DAMAGED = {"problem": "damaged", "after_input": 123_456, "match_id": "r1-t12"}
LOST = {"problem": "lost", "after_input": 0, "match_id": "round-11-table-112-final"}


def inside(rect, box) -> bool:
    x, y, w, h = rect
    bx, by, bw, bh = box
    return x >= bx and y >= by and x + w <= bx + bw and y + h <= by + bh


def draw(size, lang, sample, notice) -> KioskView:
    snap = samples.sample_snapshot(sample)
    view = KioskView(size, lang=lang)
    local = LocalState(hub_online=True, journal_notice=notice)
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_banner_says_it_in_the_tables_language_and_fits(size, lang):
    tr = translator(lang)
    for sample, notice, text in [
        ("paused", DAMAGED, tr("Journal damaged after input {n} — call the TD").format(n=123_456)),
        ("waiting", LOST, tr("Journal lost for match {match} — call the TD").format(match=LOST["match_id"])),
        ("idle", LOST, tr("Journal lost for match {match} — call the TD").format(match=LOST["match_id"])),
    ]:
        view = draw(size, lang, sample, notice)
        found = [p for p in view.last_layout if p.text == text]
        assert found, f"{sample}: {text!r} not on the screen"
        (p,) = found
        assert p.rect[1] < size[1] // 8, "the banner is at the top"
        assert inside(p.rect, p.box), f"{text!r} overflows"
        assert p.size >= MIN_PX[size], f"{text!r} shrunk to {p.size}px"
        if lang != "en":
            assert text != f"Journal damaged after input {123_456} — call the TD", "not translated"


def test_no_banner_without_a_notice():
    view = draw((800, 480), "en", "paused", None)
    assert not [p for p in view.last_layout if "Journal" in p.text]


def test_touching_the_banner_opens_the_td_pin_pad():
    snap = samples.sample_snapshot("paused")
    view = KioskView((800, 480))
    local = LocalState(hub_online=True, journal_notice=DAMAGED)
    view.draw(pygame.Surface((800, 480)), snap, local, snap["wall"])
    banner = next(p for p in view.last_layout if p.text.startswith("Journal damaged"))
    x, y, w, h = banner.rect
    assert view.hit((x + w // 2, y + h // 2), snap, local) == [{"ui": "open", "overlay": "pin"}]


# -- the kiosk ----------------------------------------------------------------------------------


@pytest.fixture
def damaged_table(tmp_path: Path) -> Iterator[KioskApp]:
    data = tmp_path / "data"
    data.mkdir()
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
                "clock": True,
            }
        )
        ctl.submit({"input": "checkin", "side": "A"})
        ctl.submit({"input": "checkin", "side": "B"})
        ctl.submit({"input": "opening_roll", "A": 5, "B": 2})
        ctl.submit({"input": "press", "side": "B"})
        ctl.submit({"input": "press", "side": "A"})
    db = sqlite3.connect(data / "journal.sqlite3")
    db.execute("UPDATE journal SET line = '{\"at\": 6' WHERE n = 6")
    db.commit()
    db.close()
    config = Config(table_id="5", data_dir=str(data), td_pin="2468", pins=PinsConfig(enabled=False))
    app = KioskApp(config, headless=True)
    app.start()
    yield app
    app.close()


def texts(app: KioskApp) -> list[str]:
    return [p.text for p in app.view.last_layout]


def tap(app: KioskApp, text: str) -> None:
    found = [p for p in app.view.last_layout if p.text == text]
    assert found, f"{text!r} is not on the screen: {texts(app)}"
    x, y, w, h = found[0].rect
    pos = (x + w // 2, y + h // 2)  # a mouse click, as on a desktop
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=False, which=0))
    app.step()


def test_the_kiosk_shows_the_banner_and_the_td_clears_it_by_resuming(damaged_table):
    app = damaged_table
    app.step()
    assert "Journal damaged after input 5 — call the TD" in texts(app)
    assert app.controller.state.paused == "td"
    assert "Waiting for the TD" in texts(app)
    tap(app, "Journal damaged after input 5 — call the TD")
    for digit in "2468":
        tap(app, digit)
    tap(app, "OK")
    tap(app, "Resume the clock")
    assert app.controller.state.phase == "playing"
    assert app.controller.journal_notice is None
    assert not [t for t in texts(app) if t.startswith("Journal")]
