"""What the screen remembers that is not the match: open dialogs, choices in progress, languages.

The match itself lives in the journal and the snapshot; this is only navigation. Touching the
screen yields intents; those with a ``"ui"`` key change this state through :meth:`LocalState.apply`
(which sets values rather than toggling them, so applying an intent twice is harmless); the
others are table inputs or requests for the application.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kiosk.screen_state import ScreenSnapshot
from kiosk.ui.i18n import LANGUAGES
from kiosk.ui.next_carry import Carried
from rulebook.messages import JournalNotice, NextMessage, PlayerPages, Snapshot
from rulebook.sides import SIDES, Side
from rulebook.vocab import CommandType, InputType, Phase

#: dialogs that belong to one player's half of the screen (``overlay_side`` names the player)
SIDE_OVERLAYS = frozenset({"lang", "pass", "break", "dice"})
#: dialogs over the whole screen below the top bar
#: TD pages about the match on the table (left for the menu when another match is assigned)
TD_MATCH_PAGES = frozenset(
    {
        "td_time",
        "td_clock",
        "td_score",
        "td_penalty",
        "td_forfeit",
        "td_flag",
        "td_confirm",
        "td_forbid",
        "td_force",
        "td_crawford",
    }
)
#: the TD menu's pages (reached only through the PIN)
TD_OVERLAYS = frozenset({"td", "td_lang", "td_table", "td_settings"}) | TD_MATCH_PAGES
FULL_OVERLAYS = frozenset({"result", "pause", "undo", "opening", "pin"}) | TD_OVERLAYS
OVERLAYS = SIDE_OVERLAYS | FULL_OVERLAYS
RESULT_KINDS = ("single", "gammon", "backgammon")
#: the reasons the TD gives penalty points for at the table (the hub's default is "conduct")
PENALTY_REASONS = ("conduct", "late", "clock_handling", "checker_handling")
#: TD commands that are confirmed on their own page before they are sent
CONFIRMED_COMMANDS = frozenset(
    {
        CommandType.RESOLVE_FLAG,
        CommandType.FORFEIT,
        CommandType.PENALTY,
        CommandType.CORRECT_SCORE,
        CommandType.FORBID_DOUBLE,
        CommandType.FORCE_DOUBLE,
        CommandType.CRAWFORD_DOUBLE,
        CommandType.DOUBLE_LOSS,
    }
)
#: ``legal``'s words for a double that is not a proper one but stands: made during the opponent's
#: turn (WBGF 4.4 v), or in the Crawford game where the leader may void it (HU 7.5, FFBG 6.5).
#: Each is asked once more before it is sent.
ASKED_DOUBLES = ("premature_double", "crawford_double")
MAX_PENALTY_POINTS = 25

#: transient notices (message ids, translated when shown)
MSG_TIE = "tie"
MSG_WRONG_PIN = "wrong_pin"


def _sides(value: Any = None) -> dict[str, Any]:
    return {"A": value, "B": value}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


@dataclass
class LocalState:
    """Screen state of one kiosk. The application sets ``hub_online`` and ``td_pin``."""

    #: the hub link is up (shown in the top bar)
    hub_online: bool = False
    #: an open journal notice (the status's ``journal``), shown as a banner
    journal_notice: JournalNotice | None = None
    #: how far the table's clock is from the room's (ms, + ahead), shown while it is off (None: not)
    clock_notice: int | None = None
    #: the hub's "Next:" lines (``table/{t}/next``), shown on the result screen of their match
    next_lines: NextMessage | None = None
    #: the previous match's lines kept on the new match's waiting screen (set by the application,
    #: :mod:`kiosk.ui.next_carry`)
    carried: Carried | None = None
    #: the players' page addresses of the latest assignments, by match id (kiosk.ui.pages), shown
    #: with their QR codes on that match's waiting screen
    pages: dict[str, PlayerPages] = field(default_factory=dict)
    #: the TD menu's PIN (from the configuration)
    td_pin: str = "0000"
    #: players enter each roll on the screen (a table without a dice tower, ``dice.manual_entry``)
    manual_dice: bool = False
    #: the open dialog, if any (see OVERLAYS)
    overlay: str | None = None
    #: the player a side dialog belongs to
    overlay_side: Side | None = None
    #: each player's own language; None: the table's language
    langs: dict[str, str | None] = field(default_factory=_sides)
    #: opening roll: the die each player touched so far
    opening: dict[str, int | None] = field(default_factory=_sides)
    #: result entry: the winner and the kind chosen so far, and whether the loser resigned
    result_winner: Side | None = None
    result_kind: str | None = None
    result_resigned: bool = False
    #: a roll entered by hand: the first die touched
    dice_pick: int | None = None
    #: digits typed on the PIN pad
    pin_entry: str = ""
    #: TD menu edits in progress
    td_reserve: dict[str, int] = field(default_factory=lambda: _sides(0))
    td_mpp: float = 2.0
    td_delay_s: int = 12
    td_table: str = ""
    #: the player whose double that is not a proper one (``ASKED_DOUBLES``) waits for the second
    #: touch that confirms it
    double_ask: str | None = None
    #: the player chosen on a TD page (none until the TD touches a name), points and reason
    td_side: Side | None = None
    td_points: int = 1
    td_reason: str = "conduct"
    #: the score as the TD corrects it
    td_score: dict[str, int] = field(default_factory=lambda: _sides(0))
    #: the TD command waiting on the confirmation page, and the page to go back to
    td_pending: dict[str, Any] | None = None
    td_back: str = "td"
    #: the snapshot the pending command leads to, by a dry run of the reducer
    #: (``kiosk.td_preview.refresh``, before each frame); None while the reducer would refuse it
    td_outcome: Snapshot | None = None
    #: the table number belongs to the broker credential: the TD cannot change it here
    table_number_fixed: bool = False
    #: a short notice (MSG_*), cleared by the next action
    message: str | None = None
    #: the table's refusal of a player's input, shown in the player's language until
    #: ``until_wall`` or the next touch: ``code`` (rulebook.codes), ``params`` (the values its
    #: message names), ``side`` (whose input it was; None: shown on both halves)
    refusal: dict[str, Any] | None = None
    #: the match the per-player choices belong to (reset when another match is assigned)
    match_id: str | None = None
    #: whether ``match_id`` has been taken from a snapshot yet
    synced: bool = False

    # -- intents -------------------------------------------------------------------------------

    def apply(self, intent: dict[str, Any]) -> bool:
        """Apply a ``{"ui": ...}`` intent; anything else is ignored. True when it was a UI intent."""
        action = intent.get("ui")
        if not isinstance(action, str):
            return False
        handler = getattr(self, f"_ui_{action}", None)
        self.message = None
        self.refusal = None
        if handler is not None:
            handler(intent)
        return True

    def _ui_open(self, intent: dict[str, Any]) -> None:
        overlay = intent.get("overlay")
        if overlay not in OVERLAYS:
            return
        if overlay in TD_OVERLAYS and self.overlay not in TD_OVERLAYS:
            return  # the TD menu opens only through the PIN
        self.overlay = overlay
        side = intent.get("side")
        self.overlay_side = side if side in SIDES else None
        if overlay == "result":
            self.result_winner = self.result_kind = None
            self.result_resigned = False
        if overlay == "dice":
            self.dice_pick = None
        if overlay == "pin":
            self.pin_entry = ""
        if overlay == "opening":
            self.opening = _sides()

    def show_refusal(self, code: str, params: dict[str, Any], side: Side | None, until_wall: int) -> None:
        """Show why the table refused a player's input (the application calls this)."""
        self.refusal = {
            "code": code,
            "params": dict(params),
            "side": side if side in SIDES else None,
            "until_wall": until_wall,
        }

    def _ui_dismiss(self, intent: dict[str, Any]) -> None:
        """A touch on a refusal's note: it goes (``apply`` already cleared it)."""

    def _ui_double_ask(self, intent: dict[str, Any]) -> None:
        """A first touch on "Double early" (or a double in the Crawford game): asked once more."""
        side = intent.get("side")
        self.double_ask = side if side in SIDES else None

    def _ui_double_cancel(self, intent: dict[str, Any]) -> None:
        self.double_ask = None

    def _ui_close(self, intent: dict[str, Any]) -> None:
        self.overlay = None
        self.overlay_side = None
        self.result_winner = self.result_kind = None
        self.result_resigned = False
        self.dice_pick = None
        self.pin_entry = ""

    def _ui_lang(self, intent: dict[str, Any]) -> None:
        side, lang = intent.get("side"), intent.get("lang")
        if side in SIDES and (lang in LANGUAGES or lang is None):
            self.langs[side] = lang
        if self.overlay == "lang":
            self._ui_close(intent)

    def _ui_die(self, intent: dict[str, Any]) -> None:
        side, value = intent.get("side"), intent.get("value")
        if side not in SIDES or not isinstance(value, int) or not 1 <= value <= 6:
            return
        self.opening[side] = value
        a, b = self.opening["A"], self.opening["B"]
        if a is not None and b is not None:
            # the pair went to the table as an opening_roll input; start afresh either way
            self.opening = _sides()
            if a == b:
                self.message = MSG_TIE
            elif self.overlay == "opening":
                self._ui_close(intent)

    def _ui_die_clear(self, intent: dict[str, Any]) -> None:
        self.opening = _sides()

    def _ui_result_winner(self, intent: dict[str, Any]) -> None:
        side = intent.get("side")
        if side in SIDES:
            self.result_winner = side
            self.result_kind = None

    def _ui_result_kind(self, intent: dict[str, Any]) -> None:
        kind = intent.get("kind")
        if kind in RESULT_KINDS and self.result_winner is not None:
            self.result_kind = kind
            self.result_resigned = intent.get("resigned") is True

    def _ui_roll_die(self, intent: dict[str, Any]) -> None:
        """A die touched in the roll dialog: the first is kept, the second completes the roll (the
        dialog's touch also carries the ``roll`` input), which closes the dialog."""
        value = intent.get("value")
        if self.overlay != "dice" or not isinstance(value, int) or not 1 <= value <= 6:
            return
        if self.dice_pick is None:
            self.dice_pick = value
        else:
            self._ui_close(intent)

    def _ui_roll_clear(self, intent: dict[str, Any]) -> None:
        self.dice_pick = None

    def _ui_result_back(self, intent: dict[str, Any]) -> None:
        if self.result_kind is not None:
            self.result_kind = None
            self.result_resigned = False
        elif self.result_winner is not None:
            self.result_winner = None
        else:
            self._ui_close(intent)

    def _ui_pin(self, intent: dict[str, Any]) -> None:
        digit = intent.get("digit")
        if isinstance(digit, str) and digit.isdigit() and len(digit) == 1 and len(self.pin_entry) < 8:
            self.pin_entry += digit

    def _ui_pin_clear(self, intent: dict[str, Any]) -> None:
        self.pin_entry = ""

    def _ui_pin_ok(self, intent: dict[str, Any]) -> None:
        entered, self.pin_entry = self.pin_entry, ""
        if self.overlay == "pin" and hmac.compare_digest(entered.encode(), self.td_pin.encode()):
            self.overlay = "td"
        else:
            self.message = MSG_WRONG_PIN

    def _ui_td(self, intent: dict[str, Any]) -> None:
        """Move within the TD menu (only once it is open): ``{"ui": "td", "page": ...}``.

        A page starts afresh (no player chosen) unless ``keep`` is set: going back from the
        confirmation keeps what the TD chose."""
        page = intent.get("page", "td")
        if self.overlay not in TD_OVERLAYS or page not in TD_OVERLAYS or page == "td_confirm":
            return
        self.overlay = page
        self.td_pending = None
        if intent.get("keep"):
            return
        if page in ("td_penalty", "td_forfeit", "td_flag"):
            self.td_side = None
            self.td_points = 1
            self.td_reason = "conduct"
        elif page == "td_score":
            score = intent.get("score") or {}
            self.td_score = {s: _count(score.get(s)) for s in SIDES}
        if page == "td_time":
            reserves = intent.get("reserve_ms") or {}
            self.td_reserve = {s: int(reserves.get(s, 0)) for s in SIDES}
        elif page == "td_clock":
            self.td_mpp = float(intent.get("minutes_per_point", self.td_mpp))
            self.td_delay_s = int(intent.get("delay_s", self.td_delay_s))
        elif page == "td_table":
            self.td_table = str(intent.get("table", ""))[:8]

    def _ui_td_pick(self, intent: dict[str, Any]) -> None:
        side = intent.get("side")
        if self.overlay in TD_OVERLAYS and side in SIDES:
            self.td_side = side

    def _ui_td_points(self, intent: dict[str, Any]) -> None:
        delta = intent.get("delta")
        if self.overlay == "td_penalty" and isinstance(delta, int):
            self.td_points = min(MAX_PENALTY_POINTS, max(1, self.td_points + delta))

    def _ui_td_reason(self, intent: dict[str, Any]) -> None:
        if self.overlay == "td_penalty" and intent.get("reason") in PENALTY_REASONS:
            self.td_reason = intent["reason"]

    def _ui_td_score_adjust(self, intent: dict[str, Any]) -> None:
        side, delta = intent.get("side"), intent.get("delta")
        if self.overlay == "td_score" and side in SIDES and isinstance(delta, int):
            self.td_score[side] = min(999, max(0, self.td_score[side] + delta))

    def _ui_td_confirm(self, intent: dict[str, Any]) -> None:
        """Ask once more before a command that gives points or ends the match."""
        cmd, back = intent.get("cmd"), intent.get("back")
        if self.overlay not in TD_OVERLAYS or not isinstance(cmd, dict):
            return
        if cmd.get("input") != InputType.CMD or cmd.get("type") not in CONFIRMED_COMMANDS:
            return
        self.td_pending = dict(cmd)
        self.td_back = back if back in TD_OVERLAYS and back != "td_confirm" else "td"
        self.overlay = "td_confirm"

    def _ui_td_pick_confirm(self, intent: dict[str, Any]) -> None:
        """A player touched on the time-out or forfeit page: straight to the confirmation."""
        side, kind = intent.get("side"), intent.get("type")
        if side not in SIDES:
            return
        self.td_side = side
        if kind == CommandType.RESOLVE_FLAG:
            cmd = {"input": InputType.CMD, "type": CommandType.RESOLVE_FLAG, "winner": side}
        elif kind == CommandType.FORFEIT:
            cmd = {"input": InputType.CMD, "type": CommandType.FORFEIT, "against": side, "reason": "forfeit"}
        elif kind in (CommandType.FORBID_DOUBLE, CommandType.FORCE_DOUBLE):
            cmd = {"input": InputType.CMD, "type": kind, "side": side}
        else:
            return
        self._ui_td_confirm({"cmd": cmd, "back": intent.get("back")})

    def _ui_td_adjust(self, intent: dict[str, Any]) -> None:
        side, delta = intent.get("side"), intent.get("delta_ms")
        if self.overlay == "td_time" and side in SIDES and isinstance(delta, int):
            self.td_reserve[side] = max(0, self.td_reserve[side] + delta)

    def _ui_td_clock_adjust(self, intent: dict[str, Any]) -> None:
        if self.overlay != "td_clock":
            return
        mpp = intent.get("mpp_delta", 0)
        delay = intent.get("delay_delta", 0)
        self.td_mpp = min(60.0, max(0.5, round(self.td_mpp + float(mpp), 1)))
        self.td_delay_s = min(120, max(0, self.td_delay_s + int(delay)))

    def _ui_td_table_digit(self, intent: dict[str, Any]) -> None:
        digit = intent.get("digit")
        if self.overlay == "td_table" and isinstance(digit, str) and len(self.td_table) < 6:
            self.td_table += digit

    def _ui_td_table_clear(self, intent: dict[str, Any]) -> None:
        self.td_table = ""

    # -- keeping in step with the table ----------------------------------------------------------

    def sync(self, snap: ScreenSnapshot, valid_overlay: bool) -> None:
        """Called by the view each frame: drop what no longer applies to the snapshot."""
        match_id = snap.get("match_id")
        if not self.synced:
            self.synced, self.match_id = True, match_id
        elif match_id != self.match_id:
            self.match_id = match_id
            self.langs = _sides()
            self.opening = _sides()
            self.refusal = None
            self.double_ask = None
            if self.overlay not in TD_OVERLAYS and self.overlay != "pin":
                self._ui_close({})
            elif self.overlay in TD_MATCH_PAGES:
                # a choice made for the previous match must not be sent to this one
                self.overlay, self.td_pending, self.td_side = "td", None, None
        if self.overlay is not None and not valid_overlay:
            self._ui_close({})
        if snap.get("phase") not in (Phase.OPENING, Phase.BETWEEN_GAMES) and any(self.opening.values()):
            self.opening = _sides()
        if self.double_ask is not None:
            table: Mapping[str, object] = snap.get("legal") or {}
            entry = table.get(self.double_ask)
            legal = entry if isinstance(entry, Mapping) else {}
            if not any(legal.get(word) for word in ASKED_DOUBLES):
                # the turn passed (the double is a proper one now) or no double is possible
                self.double_ask = None
