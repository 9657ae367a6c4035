"""The TD menu's preview is a dry run of the reducer (kiosk/td_preview.py): what the confirmation
page says follows a command is what ``apply`` then does, and the dry run changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from kiosk import td_preview
from kiosk.ui import samples
from kiosk.ui.local import LocalState
from rulebook.snapshot import snapshot
from rulebook.table import apply
from rulebook.vocab import CommandType, InputType
from tests.kiosk.test_ui_flows import _open_td_menu
from tests.kiosk.touch import Kiosk


def _cmd(kind: CommandType, **fields: Any) -> dict[str, Any]:
    return {"input": InputType.CMD, "type": kind, **fields}


@pytest.mark.parametrize(
    ("sample", "cmd"),
    [
        ("playing", _cmd(CommandType.PENALTY, against="B", points=2, reason="conduct")),
        ("playing", _cmd(CommandType.PENALTY, against="B", points=4, reason="late")),
        ("crawford", _cmd(CommandType.PENALTY, against="B", points=1, reason="late")),
        ("crawford", _cmd(CommandType.CORRECT_SCORE, score={"A": 5, "B": 2}, note="corrected at the table")),
        ("flag", _cmd(CommandType.RESOLVE_FLAG, winner="B")),
        ("playing", _cmd(CommandType.FORFEIT, against="A", reason="forfeit")),
        ("ffbg_playing", _cmd(CommandType.DOUBLE_LOSS, note="decided at the table")),
    ],
)
def test_the_preview_is_what_the_reducer_then_does(sample: str, cmd: dict[str, Any]) -> None:
    state = samples.sample_state(sample)
    before = snapshot(state)
    preview = td_preview.outcome(state, cmd)
    assert snapshot(state) == before  # a dry run: nothing changed
    after, _ = apply(state, {**cmd, "at": state.now, "id": "x"})
    assert preview is not None
    assert (preview["score"], preview["winner"], preview["phase"]) == (
        snapshot(after)["score"],
        snapshot(after)["winner"],
        snapshot(after)["phase"],
    )


def test_a_command_the_reducer_refuses_has_no_preview() -> None:
    state = samples.sample_state("playing")  # no flag: a time-out decision is refused
    assert td_preview.outcome(state, _cmd(CommandType.RESOLVE_FLAG, winner="B")) is None
    local = LocalState(overlay="td_confirm", td_pending=_cmd(CommandType.RESOLVE_FLAG, winner="B"))
    td_preview.refresh(local, state)
    assert local.td_outcome is None


def test_a_lateness_penalty_past_half_the_length_says_it_ends_the_match() -> None:
    """Lateness points above half the length forfeit the match (2.2 iv): the page says so because
    the reducer's dry run ends the match, not because the screen counts."""
    k = Kiosk(samples.playing())  # a 7-point match at 0–0
    _open_td_menu(k, "4321")
    k.tap("Penalty")
    k.tap("Boris Ivanov")
    for _ in range(3):
        k.tap("+")
    k.tap("Lateness")
    k.tap("Continue")
    assert "This ends the match: Alice Lambert wins" in k.texts()
    k.tap("Confirm")
    assert k.snap["phase"] == "finished" and k.snap["winner"] == "A"
