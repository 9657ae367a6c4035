"""Facts the screens read off a snapshot (pure: no drawing, no pygame).

Kept apart so that what a screen offers — a Double button, an Undo, a Break — follows from the
snapshot in one place, and the rules behind it stay those of ``rulebook``.
"""

from __future__ import annotations

from typing import Any

from rulebook.errors import ProfileError
from rulebook.policy import Lateness, lateness
from rulebook.profiles import PROFILES, Profile, get_profile

#: pause reasons a player picks from the pause dialog (the TD's own and the power cut are not theirs;
#: breaks have their own button)
NOT_PLAYER_PAUSES = frozenset({"td", "power_loss", "break"})
#: the order reasons are listed in
PAUSE_ORDER = (
    "dispute",
    "game_over",
    "claim",
    "illegal_move",
    "premature_pickup",
    "invalid_roll",
    "equipment",
    "agreement",
)


def profile_of(snap: dict[str, Any]) -> Profile:
    name = snap.get("profile") or ""
    base = name.split("+", 1)[0]
    try:
        return get_profile(name if name in PROFILES else base)
    except ProfileError:
        return get_profile()


def has_match(snap: dict[str, Any]) -> bool:
    return bool(snap.get("match_id"))


def in_game(snap: dict[str, Any]) -> bool:
    """A game is in progress (also while the clock is paused in it)."""
    return snap.get("turn") is not None and snap.get("phase") in ("playing", "paused")


def cube(snap: dict[str, Any]) -> dict[str, Any]:
    return snap.get("cube") or {"value": 1, "owner": None, "offered_by": None, "usable": {}}


def offered_value(snap: dict[str, Any]) -> int:
    """The value the cube goes to if the offer is taken (twice its value, 4.4 vi)."""
    return int(cube(snap).get("value") or 1) * 2


def can_double(snap: dict[str, Any], side: str) -> bool:
    inferred = snap.get("phase") == "playing" and bool((cube(snap).get("usable") or {}).get(side))
    return allows(snap, "double", (side,), inferred)


def can_undo(snap: dict[str, Any]) -> bool:
    """Whether the last score or cube entry can still be undone at the table.

    Uses the snapshot's ``can_undo`` when it has one; otherwise infers it: a result entered and the
    next game not started, or a cube action in the game in progress.
    """
    if legal(snap, "table") is not None:
        return allows(snap, "undo", ("table",), False)
    if "can_undo" in snap:
        return bool(snap["can_undo"])
    phase = snap.get("phase")
    confirmed = snap.get("confirmed") or {}
    if phase == "finished":
        return bool(snap.get("games")) and not (confirmed.get("A") and confirmed.get("B"))
    if phase == "between_games":
        return bool(snap.get("games"))
    if phase in ("playing", "paused") and in_game(snap):
        c = cube(snap)
        return c.get("offered_by") is not None or int(c.get("value") or 1) > 1
    return False


def breaks_on_clock(snap: dict[str, Any]) -> bool:
    """ffbg-cdf with a clock: breaks run on the player's own clock, from a bank, not counted."""
    clock = snap.get("clock") or {}
    return bool(clock.get("enabled")) and profile_of(snap).breaks_on_running_clock_with_clock


def breaks_left(snap: dict[str, Any], side: str) -> int:
    b = (snap.get("breaks") or {}).get(side) or {}
    return max(0, int(b.get("allowed") or 0) - int(b.get("used") or 0))


def is_away(snap: dict[str, Any], side: str) -> bool:
    return bool(((snap.get("breaks") or {}).get(side) or {}).get("away"))


def can_break(snap: dict[str, Any], side: str) -> bool:
    return allows(snap, "break", (side,), _can_break(snap, side))


def _can_break(snap: dict[str, Any], side: str) -> bool:
    if is_away(snap, side):
        return False
    phase = snap.get("phase")
    if breaks_on_clock(snap):
        clock = snap.get("clock") or {}
        return phase == "between_games" or (phase == "playing" and clock.get("running") == side)
    return phase in ("between_games", "break") and breaks_left(snap, side) > 0


def break_until(snap: dict[str, Any], side: str) -> int | None:
    return ((snap.get("breaks") or {}).get(side) or {}).get("until_wall")


def late_ms(snap: dict[str, Any], side: str, now: int) -> int | None:
    """How late ``side`` is at ``now`` (wall ms): after the start time, or after a break ended."""
    phase = snap.get("phase")
    if phase == "waiting":
        start = snap.get("start_wall")
        present = (snap.get("present") or {}).get(side)
        if start is None or present or now < start:
            return None
        return now - start
    until = break_until(snap, side)
    if is_away(snap, side) and until is not None and now > until:
        return now - until
    return None


def lateness_of(snap: dict[str, Any], side: str, now: int) -> Lateness | None:
    late = late_ms(snap, side, now)
    if late is None:
        return None
    clock = bool((snap.get("clock") or {}).get("enabled"))
    return lateness(profile_of(snap), int(snap.get("length") or 1), late, clock=clock)


def player_pause_reasons(snap: dict[str, Any], side: str | None = None) -> list[str]:
    """The reasons a player may pause for: the rulebook's list for ``side`` when the snapshot has
    ``legal``, else the profile's reasons."""
    table = snap.get("legal")
    if side is not None and isinstance(table, dict) and isinstance(table.get(side), dict):
        listed = table[side].get("pause")
        allowed = set(listed) if isinstance(listed, list) else set()
    else:
        allowed = set(profile_of(snap).pause_reasons)
    return [r for r in PAUSE_ORDER if r in allowed and r not in NOT_PLAYER_PAUSES]


def points_for(kind: str, cube_value: int) -> int:
    return {"single": 1, "gammon": 2, "backgammon": 3}.get(kind, 1) * cube_value


def last_game(snap: dict[str, Any]) -> dict[str, Any] | None:
    games = snap.get("games") or []
    return games[-1] if games else None


# -- the rulebook's own answer, when the snapshot carries it -----------------------------------------


def legal(snap: dict[str, Any], who: str) -> frozenset[str] | None:
    """What ``who`` may do now, from the snapshot's ``legal`` field (``rulebook.legal``): "A" and
    "B" (each player's own actions), "table" (what nobody in particular does: the roll, undo,
    resume) or "td" (commands). None when the snapshot has none: then the screen infers it from the
    other fields, as below. An action is allowed when its value is true or a non-empty list
    (``pause``: the reasons; ``win``/``resign``: the kinds).
    """
    table = snap.get("legal")
    if not isinstance(table, dict):
        return None
    entry = table.get(who)
    if isinstance(entry, dict):
        return frozenset(str(k) for k, v in entry.items() if v and k != "why")
    names: set[str] = set()
    for item in entry if isinstance(entry, list | tuple) else ():
        if isinstance(item, str):
            names.add(item)
        elif isinstance(item, dict):
            name = item.get("type") or item.get("action") or item.get("input")
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)


def allows(snap: dict[str, Any], action: str, sides: tuple[str, ...], inferred: bool) -> bool:
    """Whether one of ``sides`` may do ``action``: the rulebook's ``legal`` answer when the snapshot
    has one, else ``inferred`` (what the screen reads off the other fields)."""
    answers = [legal(snap, who) for who in sides]
    if all(a is None for a in answers):
        return inferred
    return any(a is not None and action in a for a in answers)


def can_enter_result(snap: dict[str, Any]) -> bool:
    """A game's result may be entered (no double waiting for its answer)."""
    inferred = in_game(snap) and cube(snap).get("offered_by") is None
    return allows(snap, "win", ("A", "B"), inferred) or allows(snap, "resign", ("A", "B"), False)


def can_answer_double(snap: dict[str, Any], side: str, answer: str) -> bool:
    """``answer`` ("take" or "pass") is open to ``side``: the opponent's double waits."""
    other_side = "B" if side == "A" else "A"
    return allows(snap, answer, (side,), cube(snap).get("offered_by") == other_side)


def can_pause(snap: dict[str, Any]) -> bool:
    """A player may pause the clock: only at a table with a clock, while a game is played."""
    clock = snap.get("clock") or {}
    inferred = bool(clock.get("enabled")) and snap.get("phase") == "playing"
    return allows(snap, "pause", ("A", "B"), inferred)


def can_resume(snap: dict[str, Any]) -> bool:
    """The players may resume the clock from the screen: when the rulebook allows a resume, and
    not after the TD paused it (the TD resumes that one, from the hub or the TD menu)."""
    by_td = (snap.get("clock") or {}).get("paused") == "td"
    return not by_td and allows(snap, "resume", ("table",), snap.get("phase") == "paused")


def roller(snap: dict[str, Any]) -> str | None:
    """The player whose roll comes next (for dice entered by hand), or None.

    With a clock, the player on turn once their clock runs and before they rolled; without one,
    the player on turn until they rolled, then the opponent (nothing else marks the turn's end).
    """
    if snap.get("phase") != "playing" or cube(snap).get("offered_by") is not None:
        return None
    turn = snap.get("turn")
    if turn not in ("A", "B"):
        return None
    rolled = bool(snap.get("dice"))
    clock = snap.get("clock") or {}
    if clock.get("enabled"):
        return turn if clock.get("running") == turn and not rolled else None
    return ("B" if turn == "A" else "A") if rolled else turn


def can_roll(snap: dict[str, Any], side: str) -> bool:
    """``side`` may enter the next roll: the rulebook says a roll is due now (``table.roll``), and
    the roll is that player's."""
    return roller(snap) == side and allows(snap, "roll", ("table",), True)


# -- calling the TD ------------------------------------------------------------------------------------


def td_calls(snap: dict[str, Any]) -> dict[str, bool]:
    """Each side's call of the TD: the snapshot's ``td_calls``, or its older single ``td_call``."""
    calls = snap.get("td_calls")
    if isinstance(calls, dict):
        return {s: bool(calls.get(s)) for s in ("A", "B")}
    one = snap.get("td_call")
    return {s: one == s for s in ("A", "B")}


def withdraw_input_known() -> bool:
    """Whether the rulebook takes a ``withdraw_call`` input (asked, not assumed, so the screen
    offers the touch exactly when the table can apply it)."""
    from rulebook import table

    return "withdraw_call" in getattr(table, "HANDLERS", {})


def can_withdraw_call(snap: dict[str, Any], side: str) -> bool:
    """``side`` may take back its own call (not the table's call at a time-out)."""
    if not td_calls(snap)[side]:
        return False
    if legal(snap, side) is not None:
        return allows(snap, "withdraw_call", (side,), False)
    return withdraw_input_known() and snap.get("phase") != "flag"


def can_call_td(snap: dict[str, Any], side: str) -> bool:
    return allows(snap, "call_td", (side,), not td_calls(snap)[side])
