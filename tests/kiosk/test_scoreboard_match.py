"""A whole match entered by touch at a scoreboard table: no clock, no dice tower.

Whose turn it is cannot be known at such a table, so the rulebook lets the cube's owner (either
player while the cube is in the middle) double whenever the cube rules allow — in particular the
owner's redouble, which the table once refused. The match goes through a double, a take, a
redouble and a take, a resignation, the Crawford game (no doubling), a post-Crawford double that
is passed, and both players' confirmation, touching only what the screen shows.

Each step's frame is saved as a PNG: into ``tmp_path``, or into ``$KIOSK_WALKTHROUGH_DIR`` when it
is set (docs/screens.md shows those frames; they are made with
``KIOSK_WALKTHROUGH_DIR=docs/screenshots make test PYTEST_ARGS=tests/kiosk/test_scoreboard_match.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from kiosk.ui import samples
from tests.kiosk.touch import SMALL, Kiosk, die_center


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("KIOSK_WALKTHROUGH_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _save(k: Kiosk, out: Path, name: str) -> None:
    path = out / f"scoreboard-{name}-800x480-en.png"
    pygame.image.save(k.surface, str(path))
    assert path.stat().st_size > 0


def _left(k: Kiosk, text: str) -> bool:
    """Whether ``text`` is drawn on side A's half (A sits on the left)."""
    return k.placement(text).rect[0] < SMALL[0] // 2


def _win(k: Kiosk, winner: str, how: str, kind: str) -> None:
    """The result wizard: who won, then the kind under "Played to the end" or "… resigned"."""
    k.tap("Game over")
    k.tap(winner)
    nth = 0 if how == "played" else 1
    k.tap(kind, nth)
    k.tap("Confirm")


def test_a_whole_match_with_redoubles_at_a_scoreboard_table(shots: Path) -> None:
    k = Kiosk(samples.assigned(length=5, clock=False))
    assert k.snap["clock"]["enabled"] is False
    _save(k, shots, "1-waiting")
    k.tap("Check in", 0)
    k.tap("Check in")
    assert k.snap["phase"] == "opening"
    _save(k, shots, "2-opening")

    # game 1: with the cube in the middle either player may double (turn unknown)
    k.tap_at(die_center(k, True, 5))
    k.tap_at(die_center(k, False, 3))
    assert k.snap["phase"] == "playing"
    assert k.texts().count("Double") == 2 and "Pause" not in k.texts()
    _save(k, shots, "3-playing")
    assert k.tap("Double", 0) == [{"input": "double", "side": "A"}]
    assert "Alice Lambert doubles" in k.texts() and not _left(k, "Take")
    _save(k, shots, "4-doubled")
    k.tap("Take")
    assert k.snap["cube"] == {"value": 2, "owner": "B", "offered_by": None, "usable": {"A": False, "B": True}}
    assert k.texts().count("Double") == 1 and not _left(k, "Double")
    _save(k, shots, "5-owner-may-redouble")
    # the redouble: the cube's owner, whenever the cube rules allow (no turn at this table)
    assert k.tap("Double") == [{"input": "double", "side": "B"}]
    assert "Boris Ivanov doubles" in k.texts() and _left(k, "Take")
    _save(k, shots, "6-redoubled")
    k.tap("Take")
    assert k.snap["cube"]["value"] == 4 and k.snap["cube"]["owner"] == "A"
    assert "Owner: Alice Lambert" in k.texts()
    k.tap("Game over")
    k.tap("Boris Ivanov")
    assert "Points: 4" in k.texts() and "Alice Lambert resigned" in k.texts()
    _save(k, shots, "7-result")
    k.tap("Single game", 0)
    assert "New score: 0 – 4" in k.texts()
    k.tap("Confirm")
    assert k.snap["score"] == {"A": 0, "B": 4}
    assert "Next game is the Crawford game" in k.texts()
    _save(k, shots, "8-crawford-next")

    # game 2, the Crawford game: nobody may double; B resigns a gammon
    k.tap("Next game")
    k.tap_at(die_center(k, True, 6))
    k.tap_at(die_center(k, False, 1))
    assert k.snap["crawford"] and "CRAWFORD GAME" in k.texts()
    assert "Double" not in k.texts()
    _save(k, shots, "9-crawford-game")
    _win(k, "Alice Lambert", "resigned", "Gammon")
    assert k.snap["score"] == {"A": 2, "B": 4}
    assert k.snap["games"][-1]["resigned"] is True

    # game 3, after the Crawford game: A doubles, B passes
    k.tap("Next game")
    k.tap_at(die_center(k, True, 2))
    k.tap_at(die_center(k, False, 4))
    assert not k.snap["crawford"] and k.texts().count("Double") == 2
    k.tap("Double", 0)
    k.tap("Pass")
    k.tap("Pass")  # the confirmation's button
    assert k.snap["score"] == {"A": 3, "B": 4}
    assert k.snap["games"][-1]["kind"] == "pass"

    # game 4: A doubles again, B takes and wins: 3–6, the match is over
    k.tap("Next game")
    k.tap_at(die_center(k, True, 3))
    k.tap_at(die_center(k, False, 5))
    k.tap("Double", 0)
    k.tap("Take")
    _win(k, "Boris Ivanov", "played", "Single game")
    snap = k.snap
    assert snap["phase"] == "finished" and snap["score"] == {"A": 3, "B": 6}
    assert [g["points"] for g in snap["games"]] == [4, 2, 1, 2]
    assert k.texts().count("Confirm the score") == 2
    _save(k, shots, "10-match-over")
    k.tap("Confirm the score", 0)
    k.tap("Confirm the score")
    assert k.snap["confirmed"] == {"A": True, "B": True}
    assert "Both players confirmed. Thank you!" in k.texts()
    _save(k, shots, "11-confirmed")
    assert not k.rejected, k.rejected
