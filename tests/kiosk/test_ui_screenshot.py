"""``bgtable screenshot`` and ``render_png``: a journal in, a PNG of the screen out."""

from __future__ import annotations

import pygame

from kiosk.cli import main
from kiosk.ui import samples
from kiosk.ui.screenshot import render_png
from kiosk.ui.theme import PANEL_ACTIVE


def _journal(tmp_path, journal: samples.Journal):
    path = tmp_path / "journal.jsonl"
    path.write_text(journal.text(), encoding="utf-8")
    return path


def test_cli_renders_the_journal_final_state(tmp_path, capsys):
    journal = _journal(tmp_path, samples.playing())
    out = tmp_path / "shots" / "play.png"
    code = main(
        ["screenshot", "--journal", str(journal), "--size", "800x480", "--lang", "el", "--out", str(out)]
    )
    assert code == 0
    assert str(out) in capsys.readouterr().out
    image = pygame.image.load(str(out))
    assert image.get_size() == (800, 480)
    # B's clock runs: B's half (right) has the brighter panel, A's half does not
    assert image.get_at((790, 150))[:3] == PANEL_ACTIVE
    assert image.get_at((10, 150))[:3] != PANEL_ACTIVE


def test_cli_flip_puts_b_on_the_left(tmp_path):
    journal = _journal(tmp_path, samples.playing())
    out = tmp_path / "flip.png"
    code = main(["screenshot", "--journal", str(journal), "--size", "1280x720", "--out", str(out), "--flip"])
    assert code == 0
    image = pygame.image.load(str(out))
    assert image.get_size() == (1280, 720)
    assert image.get_at((10, 200))[:3] == PANEL_ACTIVE


def test_cli_refuses_a_bad_journal_or_size(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    out = tmp_path / "x.png"
    assert main(["screenshot", "--journal", str(bad), "--out", str(out)]) == 2
    good = _journal(tmp_path, samples.playing())
    assert main(["screenshot", "--journal", str(good), "--size", "huge", "--out", str(out)]) == 2
    assert main(["screenshot", "--journal", str(tmp_path / "missing.jsonl"), "--out", str(out)]) == 2
    assert not out.exists()
    assert "bgtable screenshot" in capsys.readouterr().err


def test_render_png_from_a_snapshot(tmp_path):
    snap = samples.sample_snapshot("crawford")
    path = render_png(snap, (1280, 720), "bg", tmp_path / "crawford.png")
    assert pygame.image.load(str(path)).get_size() == (1280, 720)
