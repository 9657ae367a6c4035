"""Touch flows of the kiosk screen, driven like a player would: tap the label you see
(the harness is ``tests/kiosk/touch.py``)."""

from __future__ import annotations

import pygame
import pytest

from kiosk.ui import samples
from kiosk.ui.i18n import translator
from kiosk.ui.local import MSG_TIE, MSG_WRONG_PIN
from kiosk.ui.screens.messages import PAUSE_CHOICES as PAUSE_CHOICES_EN
from kiosk.ui.view import KioskView, LocalState
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.kiosk.touch import SMALL, Kiosk, die_center


def test_check_in_both_players_opens_the_opening_roll():
    k = Kiosk(samples.assigned())
    assert k.snap["phase"] == "waiting"
    assert k.texts().count("Check in") == 2
    assert k.tap("Check in", 0) == [{"input": "checkin", "side": "A"}]
    assert k.snap["present"] == {"A": True, "B": False}
    assert k.texts().count("Check in") == 1 and "Checked in" in k.texts()
    k.tap("Check in")
    assert k.snap["phase"] == "opening"
    assert "Touch the die you rolled" in k.texts()


def test_opening_roll_by_touching_die_faces():
    k = Kiosk(samples.checked_in())
    k.tap_at(die_center(k, True, 5))
    assert k.local.opening == {"A": 5, "B": None}
    assert "Your die: 5" in k.texts()
    assert k.sent == []
    intents = k.tap_at(die_center(k, False, 3))
    assert {"input": "opening_roll", "A": 5, "B": 3} in intents
    snap = k.snap
    assert snap["phase"] == "playing" and snap["turn"] == "A"
    assert k.local.opening == {"A": None, "B": None}
    # with a clock, the lower roller (B) is told to start A's clock
    assert any("Press your clock button" in t for t in k.texts())


def test_opening_roll_tie_asks_to_roll_again():
    k = Kiosk(samples.checked_in())
    k.tap_at(die_center(k, True, 4))
    k.tap_at(die_center(k, False, 4))
    assert k.snap["phase"] == "opening"
    assert k.local.message == MSG_TIE
    assert "Same number: roll again" in k.texts()


def test_double_take_and_pass_flow():
    k = Kiosk(samples.playing())  # B is on turn, before rolling
    snap = k.snap
    assert snap["cube"]["usable"]["B"] and not snap["cube"]["usable"]["A"]
    assert k.texts().count("Double") == 1
    assert k.placement("Double").rect[0] > SMALL[0] // 2  # B's button, on the right
    assert k.tap("Double") == [{"input": "double", "side": "B"}]
    assert k.snap["cube"]["offered_by"] == "B"
    # A answers on the left half; the doubler is told to press, so A thinks on A's own time (4.4 ii)
    assert k.placement("Take").rect[0] < SMALL[0] // 2
    hint = k.placement("Press your clock button: Alice Lambert answers on their own time")
    assert hint.rect[0] > SMALL[0] // 2
    k.key(pygame.K_m)  # B's clock button
    assert k.snap["clock"]["running"] == "A"
    assert "Doubled to 2: waiting for the answer" in k.texts()
    k.tap("Take")
    cube = k.snap["cube"]
    assert cube["value"] == 2 and cube["owner"] == "A" and cube["offered_by"] is None
    assert "Owner: Alice Lambert" in k.texts()
    # the taker presses back: B's turn goes on
    assert k.placement("Press your clock button: Boris Ivanov goes on playing").rect[0] < SMALL[0] // 2
    k.key(pygame.K_z)
    assert k.snap["clock"]["running"] == "B"
    assert not any(t.startswith("Press your clock button") for t in k.texts())


def test_a_premature_double_at_a_clock_table_is_offered_as_the_rulebook_says():
    """WBGF 4.4 v: a double before the opponent finished the turn stands. While B's clock runs the
    rulebook offers A a premature double (``legal.A.premature_double``): the screen offers it
    apart ("Double early"); B may finish the turn knowing of it, then answers on B's own time."""
    k = Kiosk(samples.playing())  # B's turn, B's clock runs
    legal = k.snap["legal"]["A"]
    assert legal["premature_double"] and not legal["double"]
    early = k.placement("Double early")
    assert early.rect[0] < SMALL[0] // 2 and k.texts().count("Double") == 1  # B's proper one
    k.tap("Double early")
    assert k.sent == [] and k.local.double_ask == "A"  # asked once more
    k.tap("Double now: it stands")
    assert k.sent[-1] == {"input": "double", "side": "A"} and not k.rejected
    assert k.snap["cube"]["offered_by"] == "A"
    assert k.placement("Take").rect[0] > SMALL[0] // 2
    k.key(pygame.K_m)  # B finishes the turn knowing of the double
    assert k.snap["clock"]["running"] == "A"
    assert "Press your clock button: Boris Ivanov answers on their own time" in k.texts()
    k.key(pygame.K_z)  # A hands the decision over
    assert k.snap["clock"]["running"] == "B"
    k.tap("Take")
    assert k.snap["cube"] == {
        "value": 2,
        "owner": "B",
        "offered_by": None,
        "usable": {"A": False, "B": False},
    }
    assert not k.rejected


def _button_area(k: Kiosk, label: str) -> int:
    """The touch area of the button drawn with ``label`` (the hit whose drawn rect holds it)."""
    x, y, w, h = k.placement(label).rect
    scene = k.view.last_scene
    assert scene is not None
    for hit in scene.hits:
        assert hit.shown is not None
        hx, hy, hw, hh = hit.shown
        if hx <= x + w // 2 <= hx + hw and hy <= y + h // 2 <= hy + hh:
            return hw * hh
    raise AssertionError(label)


def test_an_early_double_is_asked_once_more_naming_the_rule_and_its_button_is_smaller():
    """WBGF 4.4 v: a premature double stands, so a stray touch must not record one. "Double early"
    is smaller than the proper Double; its touch only asks; the second touch says what it does and
    the status row names the rule. The confirmation is on the inner part of the bar: a second
    touch where the first one was cancels."""
    k = Kiosk(samples.playing())  # B's turn: A may only double early
    assert _button_area(k, "Double early") < _button_area(k, "Double") // 2 + 1
    first = k.placement("Double early").rect
    k.tap("Double early")
    assert k.sent == [] and "Alice Lambert" in k.texts()
    assert "Boris Ivanov has not finished: an early double stands (WBGF 4.4 v)" in k.texts()
    assert "Double now: it stands" in k.texts() and "Cancel" in k.texts()
    k.tap_at((first[0] + first[2] // 4, first[1] + first[3] // 2))  # the same place again
    assert k.sent == [] and k.local.double_ask is None and "Double early" in k.texts()
    k.key(pygame.K_q)  # A's main key: the same two steps
    assert k.sent == [] and "Double now: it stands" in k.texts()
    k.key(pygame.K_q)
    assert k.sent == [{"input": "double", "side": "A"}] and not k.rejected
    assert k.snap["cube"]["offered_by"] == "A"


def test_an_asked_early_double_goes_when_the_turn_passes():
    """Asked during B's turn, then B presses: A's double is a proper one now, shown as such."""
    k = Kiosk(samples.playing())
    k.tap("Double early")
    k.key(pygame.K_m)  # B's clock button: A's turn
    assert k.local.double_ask is None and "Double now: it stands" not in k.texts()
    assert k.placement("Double").rect[0] < SMALL[0] // 2


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_hu_7_5_a_double_in_the_crawford_game_is_asked_once_more_and_recorded(lang: str) -> None:
    """HU 7.5: a double in the Crawford game is one the rule forbids, which the leader may void;
    the table records it (its cube must match the board) after a second touch naming the rule."""
    k = Kiosk(samples.crawford_hu(), lang=lang)  # B, the trailer, on turn
    view_tr = translator(lang)
    small = view_tr("Double: Crawford game")
    assert small in k.texts() and view_tr("Double") not in k.texts()
    k.tap(small, 1)  # B's, on the right
    assert k.sent == []
    assert view_tr("The rule forbids it; the leader may void it ({rule})").format(rule="HU 7.5") in k.texts()
    k.tap(view_tr("Double in the Crawford game"))
    assert k.sent == [{"input": "double", "side": "B"}] and not k.rejected
    assert k.snap["cube"]["offered_by"] == "B" and k.snap["legal"]["td"]["crawford_double"]


def test_no_early_double_while_the_player_must_press_the_clock():
    """After the opening roll the lower roller starts the winner's clock: that comes first."""
    k = Kiosk(samples.checked_in())
    k.tap_at(die_center(k, True, 5))
    k.tap_at(die_center(k, False, 3))
    assert k.snap["legal"]["B"]["premature_double"]
    assert "Double early" not in k.texts()
    assert k.placement("Press your clock button to start Alice Lambert's clock").rect[0] > SMALL[0] // 2


def test_pass_asks_for_confirmation_then_ends_the_game():
    k = Kiosk(samples.cube_offer())
    k.tap("Pass")
    assert k.local.overlay == "pass" and k.sent == []
    assert "Pass?" in k.texts()
    k.tap("Back")
    assert k.local.overlay is None and k.snap["phase"] == "playing"
    k.tap("Pass")
    k.tap("Pass")  # the confirm button in the dialog
    snap = k.snap
    assert snap["phase"] == "between_games"
    assert snap["score"] == {"A": 0, "B": 1}
    assert snap["games"][-1]["kind"] == "pass"


def test_result_entry_wizard_and_undo():
    k = Kiosk(samples.cube_owned())  # cube 2 owned by A
    k.tap("Game over")
    assert "Who won the game?" in k.texts()
    k.tap("Boris Ivanov")
    assert k.local.result_winner == "B"
    assert "Points: 4" in k.texts()  # gammon with the cube on 2
    k.tap("Gammon")
    assert "New score: 0 – 4" in k.texts()
    k.tap("Back")  # back to the kind
    assert k.local.result_kind is None and k.local.result_winner == "B"
    k.tap("Backgammon")
    intents = k.tap("Confirm")
    assert {"input": "win", "side": "B", "kind": "backgammon"} in intents
    snap = k.snap
    assert snap["phase"] == "between_games" and snap["score"] == {"A": 0, "B": 6}
    assert k.local.overlay is None
    # undo, with its confirmation
    k.tap("Undo")
    assert "Undo the last entry?" in k.texts()
    assert any("Boris Ivanov" in t and "Points: 6" in t for t in k.texts())
    k.tap("Undo", 0)  # the dialog's button
    snap = k.snap
    assert snap["phase"] == "playing" and snap["score"] == {"A": 0, "B": 0}
    assert not k.rejected


def test_break_flow_with_countdown_and_return():
    k = Kiosk(samples.between_games())
    assert k.texts().count("Breaks left: 1") == 2
    k.tap("Take a break", 1)  # B's, on the right
    assert k.local.overlay == "break" and k.local.overlay_side == "B"
    assert "Take a break of 5 minutes?" in k.texts()
    assert "Breaks left after this one: 0" in k.texts()
    k.tap("Start the break")
    snap = k.snap
    assert snap["phase"] == "break" and snap["breaks"]["B"]["away"]
    assert "On a break" in k.texts() and "5:00" in k.texts()
    k.tick(61_000)
    assert "3:59" in k.texts()
    k.tap("I am back")
    assert k.snap["phase"] == "between_games"
    assert "Breaks left: 0" in k.texts()
    assert k.texts().count("Take a break") == 1  # only A has one left


def test_next_game_opens_the_opening_roll_with_crawford_notice():
    k = Kiosk(samples.crawford_next())
    assert "Next game is the Crawford game" in k.texts()
    k.tap("Next game")
    assert k.local.overlay == "opening"
    assert "CRAWFORD GAME" in k.texts()
    k.tap_at(die_center(k, True, 2))
    k.tap_at(die_center(k, False, 6))
    snap = k.snap
    assert snap["phase"] == "playing" and snap["crawford"]
    assert k.local.overlay is None
    assert "CRAWFORD GAME" in k.texts() and "No doubling" in k.texts()
    assert "Double" not in k.texts()


def test_pause_with_reason_then_resume():
    k = Kiosk(samples.playing())
    k.tap("Pause")
    assert "Pause the clock: why?" in k.texts()
    k.tap("Correct an illegal move")
    snap = k.snap
    assert snap["phase"] == "paused" and snap["clock"]["paused"] == "illegal_move"
    assert "Clock paused" in k.texts() and "Illegal move to correct" in k.texts()
    k.tap("Resume")
    assert k.snap["phase"] == "playing"


def test_power_loss_restore_shows_its_notice():
    k = Kiosk(samples.paused("power_loss"))
    assert "Restored after a power cut. Resume when both players are ready." in k.texts()
    assert "Resume" in k.texts()


def test_call_td_and_indicator():
    k = Kiosk(samples.playing())
    assert k.texts().count("Call the TD") == 2
    assert k.tap("Call the TD", 1) == [{"input": "call_td", "side": "B"}]
    assert k.snap["td_call"] == "B"
    tc = k.placement("TD called")
    assert SMALL[0] // 3 < tc.rect[0] < SMALL[0] // 2  # in the middle of the amber bar
    assert k.placement("Withdraw the call").rect[0] > SMALL[0] // 2
    assert k.texts().count("Call the TD") == 1


def _open_td_menu(k: Kiosk, pin: str) -> None:
    """Touch the middle of the top bar (the table number, or "TD called" while a call is open)."""
    k.tap("TD called" if "TD called" in k.texts() else "Table 12")
    assert k.local.overlay == "pin"
    for digit in pin:
        k.tap(digit)
    k.tap("OK")


def test_td_menu_behind_a_pin():
    k = Kiosk(samples.playing(), pin="4321")
    _open_td_menu(k, "1111")
    assert k.local.overlay == "pin" and k.local.message == MSG_WRONG_PIN
    assert "Wrong PIN" in k.texts()
    # the TD pages cannot be opened around the PIN
    k.handle([{"ui": "open", "overlay": "td"}])
    assert k.local.overlay == "pin"
    for digit in "4321":
        k.tap(digit)
    k.tap("OK")
    assert k.local.overlay == "td" and "TD menu" in k.texts()
    intents = k.tap("Pause the clock")
    assert {"input": "cmd", "type": "pause", "reason": "td"} in intents
    snap = k.snap
    assert snap["phase"] == "paused" and snap["clock"]["paused"] == "td"
    assert "Waiting for the TD" in k.texts() and "Resume" not in k.texts()
    assert k.local.overlay is None  # closing the menu locks it again
    _open_td_menu(k, "4321")
    k.tap("Resume the clock")
    assert k.snap["phase"] == "playing"


def test_td_sets_time_and_table_settings():
    k = Kiosk(samples.playing())
    _open_td_menu(k, "4321")
    k.tap("Set the time")
    assert k.local.overlay == "td_time"
    before = dict(k.snap["clock"]["reserve_ms"])
    k.tap("+1:00", 0)  # the left player's
    k.tap("−0:10", 1)  # the right player's
    k.tap("Apply")
    reserves = k.snap["clock"]["reserve_ms"]
    assert reserves["A"] == before["A"] + 60_000
    assert abs(reserves["B"] - (before["B"] - 10_000)) <= 1_000  # B's clock runs meanwhile
    _open_td_menu(k, "4321")
    k.tap("Table settings")
    k.tap("Table language")
    k.tap("Magyar")
    assert k.app[-1] == {"app": "set_language", "lang": "hu"}
    _open_td_menu(k, "4321")
    k.tap("Table settings")
    k.tap("Table number")
    k.tap("Clear")
    k.tap("7")
    k.tap("OK")
    assert k.app[-1] == {"app": "set_table_id", "table": "7"}
    _open_td_menu(k, "4321")
    k.tap("Table settings")
    k.tap("Swap the sides")
    assert k.app[-1] == {"app": "flip"}


def test_table_number_is_refused_with_an_explanation_on_a_networked_table():
    k = Kiosk(samples.playing())
    k.local.table_number_fixed = True  # the application sets it when a broker is configured
    _open_td_menu(k, "4321")
    k.tap("Table settings")
    k.tap("Table number")
    assert k.local.overlay == "td_table"
    assert any(t.startswith("This table's number comes with its credential") for t in k.texts())
    assert "OK" not in k.texts() and "7" not in k.texts()
    k.tap("Back")
    assert k.local.overlay == "td_settings" and k.app == []


def test_td_resolves_a_time_flag_naming_the_players_and_asking_again():
    from kiosk.ui.theme import PRIMARY, SECONDARY

    k = Kiosk(samples.flag())  # A's time has expired
    assert k.snap["phase"] == "flag"
    assert "Time expired" in k.texts()
    _open_td_menu(k, "4321")
    k.tap("Settle the time-out")
    assert "Time-out: who wins the match?" in k.texts()
    assert "Alice Lambert's time has expired" in k.texts()
    # no player is chosen beforehand: both names look alike
    styles = {
        i.color
        for r in k.view.last_scene.regions
        for i in r.items
        if type(i).__name__ == "Fill" and i.color in (PRIMARY, SECONDARY)
    }
    assert styles == {SECONDARY}
    k.tap("Boris Ivanov")
    assert k.local.overlay == "td_confirm" and k.sent == []
    assert "Boris Ivanov wins the match on time" in k.texts()
    assert "Alice Lambert loses the match" in k.texts()
    k.tap("Back")
    assert k.local.overlay == "td_flag"
    k.tap("Boris Ivanov")
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "cmd", "type": "resolve_flag", "winner": "B"}
    snap = k.snap
    assert snap["phase"] == "finished" and snap["winner"] == "B" and snap["end_reason"] == "time"


def test_hu_7_9_the_td_forbids_a_players_doubles_from_the_table():
    """HU 7.9 at the table: the TD menu offers it (``legal.td.forbid_double``), names the player,
    asks once more naming the article."""
    k = Kiosk(samples.hu_playing())
    _open_td_menu(k, "4321")
    assert "Enter a forced double" not in k.texts() and "Double loss" not in k.texts()  # not HU's
    k.tap("Forbid doubling")
    assert "Forbid doubling: which player?" in k.texts()
    k.tap("Boris Ivanov")
    assert k.local.overlay == "td_confirm" and k.sent == []
    assert "Boris Ivanov may not double for the rest of this game" in k.texts() and "HU 7.9" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "cmd", "type": "forbid_double", "side": "B"} and not k.rejected
    assert k.snap["legal"]["B"]["why"]["double"] == "double.forbidden"
    assert "Double" not in k.texts()  # B's button is gone for this game


def test_ffbg_6_8_and_10_3_the_td_enters_a_forced_double_and_a_double_loss():
    k = Kiosk(samples.ffbg_playing())  # B's turn, before B rolls
    _open_td_menu(k, "4321")
    assert "Forbid doubling" not in k.texts()  # not FFBG's
    k.tap("Enter a forced double")
    k.tap("Boris Ivanov")
    assert "Boris Ivanov doubles: the cube goes to 2" in k.texts() and "FFBG 6.8" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "cmd", "type": "force_double", "side": "B"} and not k.rejected
    assert k.snap["cube"]["offered_by"] == "B"
    _open_td_menu(k, "4321")
    k.tap("Double loss")
    assert "Both players lose the match" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1]["type"] == "double_loss" and not k.rejected
    assert k.snap["end_reason"] == "double_loss" and "Both players lose" in k.texts()


def test_hu_7_5_the_td_enters_the_leaders_choice_from_the_table():
    k = Kiosk(samples.crawford_hu_doubled())
    _open_td_menu(k, "4321")
    k.tap("Double in the Crawford game")
    assert "Double in the Crawford game: the leader's choice" in k.texts()
    k.tap("Void the double")
    assert "HU 7.5" in k.texts() and k.sent == []
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "cmd", "type": "crawford_double", "choice": "void"} and not k.rejected
    assert k.snap["cube"]["offered_by"] is None and k.snap["legal"]["td"]["crawford_double"] is False


def test_td_corrects_the_score_at_the_table():
    k = Kiosk(samples.between_games())  # B leads 0–4 after a gammon on a cube of 2
    _open_td_menu(k, "4321")
    k.tap("Correct the score")
    assert k.local.td_score == {"A": 0, "B": 4}
    assert "Continue" not in k.texts()  # nothing changed yet
    k.tap("+1", 0)
    k.tap("+1", 0)
    k.tap("−1", 1)
    k.tap("Continue")
    assert k.local.overlay == "td_confirm"
    assert "New score: 2 – 3" in k.texts() and "Alice Lambert – Boris Ivanov  ·  Before: 0 – 4" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1] == {
        "input": "cmd",
        "type": "correct_score",
        "score": {"A": 2, "B": 3},
        "note": "corrected at the table",
    }
    assert not k.rejected
    snap = k.snap
    assert snap["score"] == {"A": 2, "B": 3}
    assert snap["corrections"][-1]["before"] == "0-4" and snap["corrections"][-1]["after"] == "2-3"


def test_td_is_not_offered_an_impossible_score_at_the_table():
    """WBGF 4.7 with 4.5: both players at the match length is no score; the TD menu says why
    instead of offering it (before, the table applied it and picked the winner by side order)."""
    k = Kiosk(samples.between_games())  # 0–4
    length = k.snap["length"]
    _open_td_menu(k, "4321")
    k.tap("Correct the score")
    for _ in range(length):
        k.tap("+1", 0)
    for _ in range(length - 4):
        k.tap("+1", 1)
    assert k.local.td_score == {"A": length, "B": length}
    assert "Continue" not in k.texts()
    assert any(f"impossible score {length}-{length}" in t for t in k.texts()), k.texts()
    k.tap("−1", 1)
    assert "Continue" in k.texts()  # B one short: A wins by points, a possible final


def test_td_gives_penalty_points_at_the_table():
    k = Kiosk(samples.playing())
    _open_td_menu(k, "4321")
    k.tap("Penalty")
    assert "Penalty points: against whom?" in k.texts()
    assert "Continue" not in k.texts()  # nobody chosen yet
    k.tap("Alice Lambert")
    k.tap("+")
    k.tap("Clock handling")
    k.tap("Continue")
    assert "Penalty points against Alice Lambert: 2" in k.texts()
    assert "Clock handling" in k.texts() and "New score: 0 – 2" in k.texts()
    assert not any(t.startswith("This ends the match") for t in k.texts())
    k.tap("Confirm")
    assert k.sent[-1] == {
        "input": "cmd",
        "type": "penalty",
        "against": "A",
        "points": 2,
        "reason": "clock_handling",
    }
    snap = k.snap
    assert snap["score"] == {"A": 0, "B": 2}
    assert snap["penalty_log"][-1]["against"] == "A" and snap["penalty_log"][-1]["reason"] == "clock_handling"


def test_a_penalty_that_ends_the_match_says_so_before_it_is_sent():
    k = Kiosk(samples.playing())  # a 7-point match at 0–0
    _open_td_menu(k, "4321")
    k.tap("Penalty")
    k.tap("Boris Ivanov")
    for _ in range(6):
        k.tap("+")
    k.tap("Continue")
    assert "This ends the match: Alice Lambert wins" in k.texts()
    k.tap("Confirm")
    assert k.snap["phase"] == "finished" and k.snap["winner"] == "A"


def test_td_forfeit_names_who_loses_and_asks_again():
    k = Kiosk(samples.playing())
    _open_td_menu(k, "4321")
    k.tap("Forfeit")
    k.tap("Alice Lambert")
    assert "Alice Lambert loses the match by forfeit" in k.texts()
    assert "Boris Ivanov wins the match" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "cmd", "type": "forfeit", "against": "A", "reason": "forfeit"}
    snap = k.snap
    assert snap["phase"] == "finished" and snap["winner"] == "B" and snap["end_reason"] == "forfeit"


def test_a_pending_td_action_is_dropped_when_another_match_is_assigned():
    k = Kiosk(samples.playing())
    _open_td_menu(k, "4321")
    k.tap("Forfeit")
    k.tap("Alice Lambert")
    assert k.local.overlay == "td_confirm"
    k.handle([{"input": "cmd", "type": "forfeit", "against": "B", "reason": "forfeit"}])  # from the hub
    k.handle(
        [
            {
                "input": "assign",
                "match_id": "r4-t12",
                "length": 5,
                "players": samples.PLAYERS,
                "profile": "wbgf-2023",
                "clock": True,
            }
        ]
    )
    assert k.local.overlay == "td" and k.local.td_pending is None
    assert "Confirm" not in k.texts()


def test_match_over_both_players_confirm():
    k = Kiosk(samples.finished())  # A confirmed already
    assert "✓ Score confirmed" in k.texts()
    assert k.texts().count("Confirm the score") == 1
    k.tap("Confirm the score")
    assert k.snap["confirmed"] == {"A": True, "B": True}
    assert "Both players confirmed. Thank you!" in k.texts()
    assert "Undo" not in k.texts()


def test_each_player_picks_their_own_language():
    k = Kiosk(samples.playing())
    lang_chips = [h for h in k.view.last_scene.hits if h.intents[0].get("overlay") == "lang"]
    left = min(lang_chips, key=lambda h: h.rect[0])
    x, y, w, h = left.rect
    k.tap_at((x + w // 2, y + h // 2))
    assert k.local.overlay == "lang" and k.local.overlay_side == "A"
    k.tap("Ελληνικά")
    assert k.local.langs == {"A": "el", "B": None}
    texts = k.texts()
    assert "Χρόνος καθυστέρησης" in texts and "Delay" in texts  # A's half Greek, B's English
    greek = k.placement("Χρόνος καθυστέρησης")
    assert greek.rect[0] < SMALL[0] // 2
    assert "Match to" in texts  # the shared centre keeps the table's language


def test_flip_puts_side_a_on_the_right():
    k = Kiosk(samples.assigned(), flip=True)
    a_name = k.placement("Alice Lambert")
    assert a_name.rect[0] > SMALL[0] // 2
    # the left check-in button is now B's
    assert k.tap("Check in", 0) == [{"input": "checkin", "side": "B"}]
    # keys go by position too: the right-hand key checks in A, who sits on the right
    assert k.key(pygame.K_q) == []  # the left player is already checked in
    assert k.key(pygame.K_p) == [{"input": "checkin", "side": "A"}]


def test_key_map_mirrors_the_buttons():
    k = Kiosk(samples.checked_in())
    k.key(pygame.K_6)
    k.key(pygame.K_1)
    assert k.snap["phase"] == "playing" and k.snap["turn"] == "A"
    assert k.key(pygame.K_m) == [{"input": "press", "side": "B"}]  # the lower roller starts A's clock
    assert k.snap["clock"]["running"] == "A"
    k.key(pygame.K_z)  # A ends the turn
    assert k.key(pygame.K_p) == [{"input": "double", "side": "B"}]
    assert k.key(pygame.K_q) == [{"input": "take", "side": "A"}]
    assert k.snap["cube"]["owner"] == "A"
    k.key(pygame.K_r)
    assert k.local.overlay == "result"
    k.key(pygame.K_q)
    k.key(pygame.K_g)
    k.key(pygame.K_RETURN)
    assert k.snap["score"] == {"A": 4, "B": 0}
    k.key(pygame.K_u)
    k.key(pygame.K_ESCAPE)
    assert k.local.overlay is None and k.snap["score"] == {"A": 4, "B": 0}


def test_hit_outside_buttons_and_under_a_dialog_does_nothing():
    k = Kiosk(samples.playing())
    assert k.view.hit((400, 120), k.snap, k.local) == []  # the score, not a button
    k.tap("Game over")
    double_area = (650, 430)  # where B's Double button is, now under the dialog
    assert all(i.get("input") != "double" for i in k.view.hit(double_area, k.snap, k.local))


def test_hit_does_not_change_local_state():
    k = Kiosk(samples.playing())
    before = repr(k.local)
    k.view.hit((400, 440), k.snap, k.local)
    k.view.key(pygame.K_r, 0, k.snap, k.local)
    assert repr(k.local) == before


def test_hub_indicator_shape_changes_with_connection():
    from kiosk.ui.scene import Circle, Line

    k = Kiosk(samples.idle())
    top = next(r for r in k.view.last_scene.regions if r.key == "top.C")
    assert any(isinstance(i, Circle) and i.width == 0 for i in top.items)
    k.local.hub_online = False
    k.draw()
    top = next(r for r in k.view.last_scene.regions if r.key == "top.C")
    assert any(isinstance(i, Circle) and i.width > 0 for i in top.items)
    assert any(isinstance(i, Line) for i in top.items)  # the cross


@pytest.mark.parametrize("size", [SMALL, (1280, 720)])
def test_dirty_rects_cover_only_what_changed(size):
    journal = samples.playing()
    state = replay(journal.lines, new_table(samples.TABLE))
    view = KioskView(size)
    surface = pygame.Surface(size)
    local = LocalState(hub_online=True)
    at = journal.at
    full = view.draw(surface, snapshot(state, at), local, samples.WALL0 + at)
    assert [tuple(r) for r in full] == [(0, 0, *size)]
    assert view.draw(surface, snapshot(state, at), local, samples.WALL0 + at) == []
    # 300 ms later only B's delay has moved (it shows whole seconds and a bar)
    dirty = view.draw(surface, snapshot(state, at + 300), local, samples.WALL0 + at + 300)
    area = sum(r.w * r.h for r in dirty)
    assert 0 < area < size[0] * size[1] // 10
    # seconds later the reserve moves too: still only the running side's rows
    state, _ = apply(state, {"at": at + 15_000, "input": "tick"})
    dirty = view.draw(surface, snapshot(state), local, samples.WALL0 + at + 15_000)
    assert dirty and all(r.x >= size[0] // 2 for r in dirty)
    # a new phase repaints the whole screen
    state, _ = apply(state, {"at": at + 16_000, "input": "pause", "side": "B", "reason": "dispute"})
    assert [tuple(r) for r in view.draw(surface, snapshot(state), local, samples.WALL0 + at + 16_000)] == [
        (0, 0, *size)
    ]


@pytest.mark.parametrize("sample", ["playing", "low_time", "break", "waiting"])
def test_next_frame_ms_names_when_the_screen_changes(sample):
    journal = samples.SAMPLES[sample]()
    state = replay(journal.lines, new_table(samples.TABLE))
    view = KioskView(SMALL)
    surface = pygame.Surface(SMALL)
    local = LocalState(hub_online=True)
    at = journal.at
    changes = 0
    for _ in range(12):
        snap = snapshot(state, at)
        view.draw(surface, snap, local, samples.WALL0 + at)
        wait = view.next_frame_ms(snap, samples.WALL0 + at)
        assert 20 <= wait <= 1000
        if wait > 20:  # nothing changes just before the moment it names...
            before = at + wait - 1
            assert view.draw(surface, snapshot(state, before), local, samples.WALL0 + before) == []
        at += wait
        changes += bool(view.draw(surface, snapshot(state, at), local, samples.WALL0 + at))
    assert changes >= 10  # ...and something does at that moment


def test_language_by_keys():
    k = Kiosk(samples.playing())
    k.key(pygame.K_l)  # the right player's language
    assert k.local.overlay == "lang" and k.local.overlay_side == "B"
    k.key(pygame.K_4)  # the fourth language: Български
    assert k.local.langs == {"A": None, "B": "bg"}
    assert "Забавяне" in k.texts() and "Delay" in k.texts()


def _tap_lowest(k: Kiosk, text: str) -> list[dict]:
    """Touch the lowest drawn ``text`` on the screen (e.g. the second row of a dialog)."""
    found = sorted((p for p in k.view.last_layout if p.text == text), key=lambda p: p.rect[1])
    assert found, f"{text!r} is not on the screen: {k.texts()}"
    x, y, w, h = found[-1].rect
    return k.tap_at((x + w // 2, y + h // 2))


def test_a_resignation_is_recorded_as_a_resignation():
    """4.5: a player may resign a single game, a gammon or a backgammon; the record says so."""
    k = Kiosk(samples.cube_owned())  # cube 2 owned by A
    k.tap("Game over")
    k.tap("Boris Ivanov")
    assert "Alice Lambert resigned" in k.texts() and "Played to the end" in k.texts()
    _tap_lowest(k, "Gammon")
    assert k.local.result_kind == "gammon" and k.local.result_resigned
    assert "Alice Lambert resigns: Gammon" in k.texts()
    assert "Points for Boris Ivanov: 4" in k.texts()
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "resign", "side": "A", "kind": "gammon"}
    game = k.snap["games"][-1]
    assert game["resigned"] is True and game["winner"] == "B" and game["points"] == 4
    assert k.snap["score"] == {"A": 0, "B": 4}
    assert "Game 1: Alice Lambert resigned (Gammon)\nPoints: 4" in k.texts()


def test_a_game_played_out_is_not_a_resignation():
    k = Kiosk(samples.cube_owned())
    k.tap("Game over")
    k.tap("Boris Ivanov")
    k.tap("Single game")  # the upper row: played to the end
    assert not k.local.result_resigned
    k.tap("Confirm")
    assert k.sent[-1] == {"input": "win", "side": "B", "kind": "single"}
    assert k.snap["games"][-1]["resigned"] is False


def _manual(journal: samples.Journal) -> Kiosk:
    k = Kiosk(journal)
    k.local.manual_dice = True
    k.draw()
    return k


def test_dice_entered_by_hand_at_a_table_without_clock_or_tower():
    k = _manual(samples.no_clock())  # B is on roll
    assert k.texts().count("Enter the roll") == 1
    assert k.placement("Enter the roll").rect[0] > SMALL[0] // 2
    k.tap("Enter the roll")
    assert k.local.overlay == "dice" and k.local.overlay_side == "B"
    assert "Your roll: touch both dice" in k.texts()
    faces = {h.intents[0]["value"]: h for h in k.view.last_scene.hits if h.intents[0].get("ui") == "roll_die"}
    assert sorted(faces) == [1, 2, 3, 4, 5, 6]
    x, y, w, h = faces[5].rect
    k.tap_at((x + w // 2, y + h // 2))
    assert k.local.dice_pick == 5 and k.sent == []
    assert "First die: 5. Touch the second." in k.texts()
    faces = {h.intents[0]["value"]: h for h in k.view.last_scene.hits if h.intents[0].get("ui") == "roll_die"}
    x, y, w, h = faces[3].rect
    k.tap_at((x + w // 2, y + h // 2))
    assert k.sent == [{"input": "roll", "dice": [5, 3], "source": "manual"}]
    assert k.local.overlay is None and not k.rejected
    assert k.snap["dice"] == [5, 3] and k.snap["turn"] == "B"
    assert "Roll" in k.texts()  # B's roll shown while B moves
    # without a clock nothing else ends B's turn: the next roll is A's
    assert k.placement("Enter the roll").rect[0] < SMALL[0] // 2
    k.key(pygame.K_d)  # A's key for the roll
    assert k.local.overlay == "dice" and k.local.overlay_side == "A"
    k.key(pygame.K_6)
    k.key(pygame.K_6)
    assert k.sent[-1] == {"input": "roll", "dice": [6, 6], "source": "manual"}
    assert k.snap["turn"] == "A" and k.snap["dice"] == [6, 6]


def test_dice_entered_by_hand_at_a_clock_table_follow_the_clock():
    k = _manual(samples.playing())  # B's clock runs, B has not rolled
    assert k.placement("Enter the roll").rect[0] > SMALL[0] // 2
    assert "Double" in k.texts()  # before the roll B may still double
    k.tap("Enter the roll")
    k.key(pygame.K_2)
    k.key(pygame.K_1)
    assert k.snap["dice"] == [2, 1]
    assert "Enter the roll" not in k.texts() and "Double" not in k.texts()  # 4.4 ii: no double after a roll
    k.key(pygame.K_m)  # B presses: A's turn, A's clock
    assert k.placement("Enter the roll").rect[0] < SMALL[0] // 2


def test_no_dice_entry_unless_the_table_is_configured_for_it():
    k = Kiosk(samples.no_clock())
    assert "Enter the roll" not in k.texts()
    k.key(pygame.K_k)
    assert k.local.overlay is None


def test_no_pause_at_a_table_without_a_clock():
    k = Kiosk(samples.no_clock())
    assert "Pause" not in k.texts()
    k.key(pygame.K_SPACE)
    assert k.local.overlay is None
    k = Kiosk(samples.playing())
    assert "Pause" in k.texts()


def test_the_buttons_are_exactly_what_the_rulebook_allows():
    """The rulebook is the one judge: the snapshot's ``legal`` field decides which buttons show,
    whatever the other fields say."""
    k = Kiosk(samples.playing())  # B on turn, before rolling: B may double
    k.local.manual_dice = True
    snap = dict(
        k.snap, legal={"A": {}, "B": {"double": False}, "table": {"roll": True, "roller": "B", "undo": False}}
    )
    k.view.draw(k.surface, snap, k.local, snap["wall"])
    texts = [p.text for p in k.view.last_layout]
    assert "Double" not in texts and "Pause" not in texts and "Game over" not in texts
    assert k.placement("Enter the roll").rect[0] > SMALL[0] // 2  # on the roller's half
    snap = dict(
        k.snap,
        legal={
            "A": {"pause": ["dispute"], "win": ["single"]},
            "B": {"double": True},
            "table": {"roll": False, "roller": None, "undo": True},
        },
    )
    k.view.draw(k.surface, snap, k.local, snap["wall"])
    texts = [p.text for p in k.view.last_layout]
    assert {"Double", "Pause", "Game over", "Undo"} <= set(texts) and "Enter the roll" not in texts


def test_the_pause_dialog_lists_the_rulebooks_reasons_and_never_passes_a_double():
    """The shared Pause button names a side: never one whose pause would pass the double that
    waits (WBGF 4.4 iii, ``legal[X].pause_passes``)."""
    k = Kiosk(samples.cube_offer())  # B doubled and pressed: A's clock runs, A is to answer
    assert k.snap["legal"]["A"]["pause_passes"] and not k.snap["legal"]["B"]["pause_passes"]
    k.tap("Pause")
    choices = [t for t in k.texts() if t in PAUSE_CHOICES_EN.values()]
    allowed = [PAUSE_CHOICES_EN[r] for r in k.snap["legal"]["B"]["pause"] if r in PAUSE_CHOICES_EN]
    assert choices == allowed and len(choices) >= 5
    k.tap("Dispute: call the TD")
    assert k.sent[-1] == {"input": "pause", "side": "B", "reason": "dispute"}
    assert k.snap["phase"] == "paused" and k.snap["cube"]["offered_by"] == "B"  # nobody passed


# -- calling the TD -------------------------------------------------------------------------------


def _top_regions(k: Kiosk) -> list:
    return [r for r in k.view.last_scene.regions if r.key.startswith("top.")]


@pytest.mark.parametrize("size", [SMALL, (1280, 720)])
def test_a_td_call_turns_the_whole_top_bar_amber(size):
    from kiosk.ui.theme import AMBER, TOPBAR

    k = Kiosk(samples.playing(), size=size)
    assert {r.bg for r in _top_regions(k)} == {TOPBAR}
    k.tap("Call the TD", 0)
    assert k.sent[-1] == {"input": "call_td", "side": "A"}
    top = _top_regions(k)
    assert {r.bg for r in top} == {AMBER}
    assert sum(r.rect[2] for r in top) == size[0]  # from edge to edge
    assert "TD called" in k.texts()
    assert k.placement("Withdraw the call").rect[0] < size[0] // 2  # on the caller's side
    assert k.placement("Call the TD").rect[0] > size[0] // 2  # the other may still call


def test_each_sides_call_is_shown_and_either_can_be_withdrawn():
    k = Kiosk(samples.playing())
    snap = dict(k.snap, td_calls={"A": True, "B": True}, td_call="A")
    k.view.draw(k.surface, snap, k.local, snap["wall"])
    texts = [p.text for p in k.view.last_layout]
    assert texts.count("Withdraw the call") == 2 and "Call the TD" not in texts
    snap = dict(k.snap, td_calls={"A": False, "B": True}, td_call="B")
    k.view.draw(k.surface, snap, k.local, snap["wall"])
    withdraw = [p for p in k.view.last_layout if p.text == "Withdraw the call"]
    assert len(withdraw) == 1 and withdraw[0].rect[0] > SMALL[0] // 2


def test_withdrawing_a_call_follows_the_rulebook_or_is_visibly_disabled():
    from kiosk.ui import facts
    from kiosk.ui.scene import Fill
    from kiosk.ui.theme import AMBER_MUTED

    k = Kiosk(samples.td_called())  # A called
    assert k.snap["legal"]["A"]["withdraw_call"]
    withdraw = k.placement("Withdraw the call")
    x, y, w, h = withdraw.rect
    intents = k.view.hit((x + w // 2, y + h // 2), k.snap, k.local)
    assert intents == [{"input": "withdraw_call", "side": "A"}]
    k.handle(intents)
    assert not k.rejected and not facts.td_calls(k.snap)["A"]
    assert "Withdraw the call" not in k.texts()
    # where the rulebook does not take it back, the button is drawn flat and touches nothing
    k.handle([{"input": "call_td", "side": "A"}])
    legal = dict(k.snap["legal"], A=dict(k.snap["legal"]["A"], withdraw_call=False))
    snap = dict(k.snap, legal=legal)
    k.view.draw(k.surface, snap, k.local, snap["wall"])
    x, y, w, h = next(p for p in k.view.last_layout if p.text == "Withdraw the call").rect
    assert k.view.hit((x + w // 2, y + h // 2), snap, k.local) == []
    region = next(r for r in k.view.last_scene.regions if r.key == "top.A")
    assert any(isinstance(i, Fill) and i.color == AMBER_MUTED for i in region.items)
    # the TD's acknowledgement at the table clears the call
    k.handle([{"input": "cmd", "type": "td_ack"}])
    assert not any(facts.td_calls(k.snap).values())
    assert "TD called" not in k.texts()


# -- refusals ---------------------------------------------------------------------------------------


def test_a_refusal_of_the_tables_own_input_is_shown_to_both_players_each_in_their_language():
    """A roll the tower read before the turn was over (4.1 v a): both halves say why, each in its
    player's language, naming the player; it goes when its time is up."""
    from kiosk.refusal import refusal_of

    k = Kiosk(samples.playing())  # B's turn, before rolling
    k.local.langs = {"A": "hu", "B": "el"}
    k.handle([{"input": "roll", "dice": [3, 1], "source": "tower"}])
    before = k.state
    line = {
        "input": "roll",
        "dice": [6, 6],
        "source": "tower",
        "at": k.at + 500,
        "wall": samples.WALL0 + k.at,
    }
    k.state, events = apply(before, line)
    refusal = refusal_of(before, line, events)
    assert refusal is not None and refusal.side is None
    until = k.snap["wall"] + 8_000
    k.local.show_refusal(refusal.code, dict(refusal.params), refusal.side, until)
    k.draw()
    shown = {p.region: p for p in k.view.last_layout if p.region.startswith("refusal.")}
    assert shown["refusal.A"].text == "korai dobás: Boris Ivanov nem fejezte be a körét (4.1 v a)"
    assert (
        shown["refusal.B"].text
        == "πρόωρη ζαριά: ο Boris Ivanov δεν έχει ολοκληρώσει την κίνησή του (4.1 v a)"
    )
    assert shown["refusal.A"].rect[0] < SMALL[0] // 2 < shown["refusal.B"].rect[0]
    assert events[-1]["rejected"] not in k.texts()  # never the reducer's English text
    k.view.draw(k.surface, k.snap, k.local, until)  # its time is up
    assert not any(p.region.startswith("refusal.") for p in k.view.last_layout)
