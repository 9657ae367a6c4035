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


def _shot(tmp_path, name: str, *args: str) -> pygame.Surface:
    out = tmp_path / f"{name}.png"
    assert main(["screenshot", *args, "--out", str(out)]) == 0
    return pygame.image.load(str(out))


def _differs(a: pygame.Surface, b: pygame.Surface, box: tuple[int, int, int, int]) -> bool:
    x0, y0, w, h = box
    return any(
        a.get_at((x, y)) != b.get_at((x, y)) for x in range(x0, x0 + w, 2) for y in range(y0, y0 + h, 2)
    )


def test_table_option_sets_the_table_number_shown(tmp_path):
    seven = _shot(tmp_path, "t7", "--sample", "playing", "--table", "7")
    twelve = _shot(tmp_path, "t12", "--sample", "playing", "--table", "12")
    assert _differs(seven, twelve, (300, 0, 200, 68))  # the number in the top bar
    assert not _differs(seven, twelve, (0, 80, 800, 400))  # nothing else
    journal = _journal(tmp_path, samples.playing())
    from_journal = _shot(tmp_path, "j7", "--journal", str(journal), "--table", "7")
    assert not _differs(from_journal, seven, (0, 0, 800, 480))
    from kiosk.cli import build_parser
    from kiosk.ui.screenshot import state_snapshot

    args = build_parser().parse_args(["screenshot", "--sample", "waiting", "--table", "31", "--out", "x.png"])
    assert state_snapshot(args)["table"] == "31"


def test_dialog_option_opens_the_dialog_over_the_screen(tmp_path):
    plain = _shot(tmp_path, "plain", "--sample", "playing")
    paused = _shot(tmp_path, "pause", "--sample", "playing", "--dialog", "pause")
    assert _differs(plain, paused, (0, 80, 800, 400))


def test_every_named_dialog_can_be_rendered_from_the_command_line(tmp_path, capsys):
    from kiosk.ui.named import DIALOGS

    for name, dialog in DIALOGS.items():
        out = tmp_path / f"{name}.png"
        code = main(
            [
                "screenshot",
                "--sample",
                dialog.sample,
                "--dialog",
                name,
                "--size",
                "1280x720",
                "--out",
                str(out),
            ]
        )
        assert code == 0, (name, capsys.readouterr().err)
        assert pygame.image.load(str(out)).get_size() == (1280, 720)


def test_dialog_list_and_refusals(tmp_path, capsys):
    from kiosk.ui.named import DIALOGS

    assert main(["screenshot", "--sample", "playing", "--dialog", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in DIALOGS)
    assert main(["screenshot", "--sample", "list"]) == 0
    assert "no_clock" in capsys.readouterr().out
    out = tmp_path / "x.png"
    # a pass needs a double waiting: refused with the reason, nothing written
    assert main(["screenshot", "--sample", "playing", "--dialog", "pass", "--out", str(out)]) == 2
    assert "does not apply" in capsys.readouterr().err
    assert main(["screenshot", "--sample", "playing", "--dialog", "nosuch", "--out", str(out)]) == 2
    assert main(["screenshot", "--sample", "nosuch", "--out", str(out)]) == 2
    assert main(["screenshot", "--sample", "playing", "--table", "a/b", "--out", str(out)]) == 2
    assert not out.exists()
