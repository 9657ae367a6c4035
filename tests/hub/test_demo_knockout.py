"""The demo's rolling knockout (demo/knockout.py): an ordinary draw file the hub takes, on tables
after the round tables, with players none of whom plays in the rounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from demo.knockout import ENTRIES, draw_toml, tables
from demo.schedule import first_round
from hub.draw import Bracket
from hub.live.draw_setup import read_draw_file
from rulebook.custom_profiles import ProfileBook


@pytest.mark.parametrize(("round_tables", "speed"), [(8, 1.0), (3, 10.0), (100, 50.0)])
def test_the_knockout_is_a_draw_file_the_hub_takes(tmp_path: Path, round_tables: int, speed: float) -> None:
    path = tmp_path / "knockout.toml"
    path.write_text(draw_toml(round_tables, speed=speed), encoding="utf-8")
    setup = read_draw_file(path, ProfileBook())
    assert list(setup.tables) == tables(round_tables) == [str(round_tables + k) for k in range(1, 5)]
    assert setup.settings.grace_ms == round(60_000 / speed)
    assert not setup.settings.needs_verified
    assert [f.name for f in setup.event.flights] == ["main", "consolation"]
    # eight players, no byes: the first round's four matches are ready at once, one per table
    bracket = Bracket.build(setup.event, setup.draws)
    assert len(bracket.players()) == ENTRIES and len(bracket.ready()) == 4
    rounds = {name for row in first_round(0, round_tables) for name in (row.player_a, row.player_b)}
    assert not rounds & {p.name for p in setup.players}
    # the same draw at every run
    assert read_draw_file(path, ProfileBook()).draws == setup.draws
