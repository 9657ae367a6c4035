"""Every dialog of the screen by name: what opens it, and a sample table where it applies.

One list serves ``bgtable screenshot --dialog NAME`` (documentation, bug reports), the gallery in
docs/screens.md and the tests that check every dialog (text fits, touch targets in millimetres).
A name opens the dialog as a player or the TD would reach it: the local screen state after the
touches that lead there (``overlay``, the choices already made).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kiosk import td_preview
from kiosk.screen_state import ScreenSnapshot
from kiosk.ui.local import LocalState
from rulebook.state import TableState
from rulebook.vocab import CommandType, InputType


@dataclass(frozen=True)
class NamedDialog:
    #: what the dialog is for (``bgtable screenshot --dialog list`` prints it)
    about: str
    #: a sample journal (``kiosk.ui.samples``) in which the dialog applies
    sample: str
    #: LocalState fields after the touches that open it
    local: dict[str, Any] = field(default_factory=dict)


def _cmd(kind: CommandType, **fields: Any) -> dict[str, Any]:
    """A TD command as the TD menu's confirmation page holds it."""
    return {"input": InputType.CMD, "type": kind, **fields}


DIALOGS: dict[str, NamedDialog] = {
    "lang": NamedDialog(
        "a player's language (left player)", "playing", {"overlay": "lang", "overlay_side": "A"}
    ),
    "pass": NamedDialog(
        "pass a double: asks once more", "cube_offer", {"overlay": "pass", "overlay_side": "A"}
    ),
    "break": NamedDialog(
        "take a break: asks once more", "between_games", {"overlay": "break", "overlay_side": "B"}
    ),
    "result": NamedDialog("game over, step 1: who won", "playing", {"overlay": "result"}),
    "result-kind": NamedDialog(
        "game over, step 2: how (played out or resigned)",
        "cube_owned",
        {"overlay": "result", "result_winner": "B"},
    ),
    "result-confirm": NamedDialog(
        "game over, step 3: confirm",
        "cube_owned",
        {"overlay": "result", "result_winner": "B", "result_kind": "backgammon"},
    ),
    "result-resign": NamedDialog(
        "game over, step 3: confirm a resignation",
        "cube_owned",
        {"overlay": "result", "result_winner": "B", "result_kind": "gammon", "result_resigned": True},
    ),
    "dice": NamedDialog(
        "a roll entered by hand (dice.manual_entry), first die",
        "no_clock",
        {"overlay": "dice", "overlay_side": "B", "manual_dice": True},
    ),
    "dice-second": NamedDialog(
        "a roll entered by hand, second die",
        "no_clock",
        {"overlay": "dice", "overlay_side": "B", "manual_dice": True, "dice_pick": 5},
    ),
    "pause": NamedDialog("pause the clock: the reason", "playing", {"overlay": "pause"}),
    "undo": NamedDialog("undo the last entry", "between_games", {"overlay": "undo"}),
    "undo-take": NamedDialog("undo a take", "cube_owned", {"overlay": "undo"}),
    "opening": NamedDialog(
        "opening roll of the next game (after a tie)",
        "crawford_next",
        {"overlay": "opening", "opening": {"A": 4, "B": None}, "message": "tie"},
    ),
    "pin": NamedDialog(
        "the TD menu's PIN (after a wrong one)",
        "playing",
        {"overlay": "pin", "pin_entry": "12", "message": "wrong_pin"},
    ),
    "td": NamedDialog("the TD menu", "td_called", {"overlay": "td"}),
    "td-flag": NamedDialog("the TD menu after a time-out", "flag", {"overlay": "td"}),
    "td-paused": NamedDialog("the TD menu with the clock paused", "paused", {"overlay": "td"}),
    "td-time": NamedDialog(
        "TD: set each player's time",
        "playing",
        {"overlay": "td_time", "td_reserve": {"A": 600_000, "B": 3_725_000}},
    ),
    "td-clock": NamedDialog("TD: impose a clock", "playing", {"overlay": "td_clock"}),
    "td-lang": NamedDialog("TD: the table's language", "playing", {"overlay": "td_lang"}),
    "td-settings": NamedDialog("TD: the table's settings", "playing", {"overlay": "td_settings"}),
    "td-table": NamedDialog(
        "TD: the table number (a table without a broker)",
        "playing",
        {"overlay": "td_table", "td_table": "14"},
    ),
    "td-table-fixed": NamedDialog(
        "TD: the table number, refused on a networked table",
        "playing",
        {"overlay": "td_table", "table_number_fixed": True},
    ),
    "td-flag-winner": NamedDialog("TD: who wins a time-out (nobody chosen)", "flag", {"overlay": "td_flag"}),
    "td-forfeit": NamedDialog("TD: who loses by forfeit", "playing", {"overlay": "td_forfeit"}),
    "td-score": NamedDialog(
        "TD: correct the score", "crawford", {"overlay": "td_score", "td_score": {"A": 6, "B": 2}}
    ),
    "td-penalty": NamedDialog("TD: penalty points (nobody chosen)", "playing", {"overlay": "td_penalty"}),
    "td-penalty-chosen": NamedDialog(
        "TD: penalty points, player, points and reason chosen",
        "playing",
        {"overlay": "td_penalty", "td_side": "A", "td_points": 2, "td_reason": "late"},
    ),
    "td-confirm-flag": NamedDialog(
        "TD: confirm a time-out decision",
        "flag",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.RESOLVE_FLAG, winner="B")},
    ),
    "td-confirm-forfeit": NamedDialog(
        "TD: confirm a forfeit",
        "playing",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.FORFEIT, against="A", reason="forfeit")},
    ),
    "td-confirm-penalty": NamedDialog(
        "TD: confirm penalty points that end the match",
        "crawford",
        {
            "overlay": "td_confirm",
            "td_pending": _cmd(CommandType.PENALTY, against="B", points=1, reason="late"),
        },
    ),
    "double-early": NamedDialog(
        "a premature double (WBGF 4.4 v), asked once more: the second touch names the rule",
        "playing",
        {"double_ask": "A"},
    ),
    "double-crawford": NamedDialog(
        "a double in the Crawford game (HU 7.5), asked once more", "crawford_hu", {"double_ask": "B"}
    ),
    "td-cube-menu": NamedDialog(
        "the TD menu with a double in the Crawford game to decide (HU)",
        "crawford_hu_doubled",
        {"overlay": "td"},
    ),
    "td-crawford": NamedDialog(
        "TD: the leader keeps or voids a double made in the Crawford game (HU 7.5, FFBG 6.5)",
        "crawford_hu_doubled",
        {"overlay": "td_crawford"},
    ),
    "td-forbid": NamedDialog(
        "TD: forbid a player's doubles for the rest of the game (HU 7.9)",
        "hu_playing",
        {"overlay": "td_forbid"},
    ),
    "td-force": NamedDialog(
        "TD: enter the double a player must make (FFBG 6.8)", "ffbg_playing", {"overlay": "td_force"}
    ),
    "td-confirm-forbid": NamedDialog(
        "TD: confirm a player's doubles forbidden",
        "hu_playing",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.FORBID_DOUBLE, side="A")},
    ),
    "td-confirm-force": NamedDialog(
        "TD: confirm a forced double",
        "ffbg_playing",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.FORCE_DOUBLE, side="B")},
    ),
    "td-confirm-crawford-void": NamedDialog(
        "TD: confirm the leader voids the Crawford double",
        "crawford_hu_doubled",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.CRAWFORD_DOUBLE, choice="void")},
    ),
    "td-confirm-double-loss": NamedDialog(
        "TD: confirm a double loss (FFBG 10.3)",
        "ffbg_playing",
        {"overlay": "td_confirm", "td_pending": _cmd(CommandType.DOUBLE_LOSS, note="decided at the table")},
    ),
    "td-confirm-score": NamedDialog(
        "TD: confirm a score correction",
        "crawford",
        {
            "overlay": "td_confirm",
            "td_pending": _cmd(
                CommandType.CORRECT_SCORE, score={"A": 5, "B": 2}, note="corrected at the table"
            ),
        },
    ),
}


def local_for(
    name: str, snap: ScreenSnapshot, *, hub_online: bool = True, state: TableState | None = None
) -> LocalState:
    """The screen state with dialog ``name`` open over ``snap`` (KeyError for an unknown name).

    With the table's ``state`` (whose snapshot ``snap`` is), a TD command's confirmation page
    also gets the reducer's dry run of the command, as the application gives it."""
    dialog = DIALOGS[name]
    local = LocalState(hub_online=hub_online, synced=True, match_id=snap.get("match_id"))
    for key, value in dialog.local.items():
        setattr(local, key, value)
    if state is not None:
        td_preview.refresh(local, state)
    return local
