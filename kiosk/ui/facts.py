"""Readings of a snapshot for the screens (pure: no drawing, no pygame, no rules of their own).

What a player, the table or the TD may do now is the rulebook's answer, published in the
snapshot's ``legal`` field (``rulebook.legal.legal_actions``, docs/protocol.md §2.1): :func:`may`
reads it, so the screen never offers what the rules refuse, nor hides what they allow. The rest
are lookups of the snapshot's fields for drawing them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kiosk.screen_state import ScreenSnapshot
from rulebook.errors import ProfileError
from rulebook.match import points_for as _points_for
from rulebook.messages import CubeState, GameRow, Snapshot
from rulebook.policy import Lateness, lateness_at
from rulebook.profiles import PROFILES, Profile, get_profile, profile_from_mapping
from rulebook.sides import SIDES, Side
from rulebook.vocab import InputType, ResultKind


def profile_of(snap: ScreenSnapshot) -> Profile:
    """The rules the match is played under: a custom profile's from the snapshot's ``rules``
    (failing those, as the profile its name is based on)."""
    rules = snap.get("rules")
    if isinstance(rules, dict):
        try:
            return profile_from_mapping(rules)
        except ProfileError:
            pass
    name = snap.get("profile") or ""
    base = name.split("+", 1)[0]
    try:
        return get_profile(name if name in PROFILES else base)
    except ProfileError:
        return get_profile()


def has_match(snap: Snapshot) -> bool:
    return bool(snap.get("match_id"))


def in_game(snap: Snapshot) -> bool:
    """A game is in progress (also while the clock is paused in it)."""
    return bool(snap.get("in_game"))


def cube(snap: Snapshot) -> CubeState:
    return snap.get("cube") or {"value": 1, "owner": None, "offered_by": None, "usable": {}}


def offered_value(snap: Snapshot) -> int:
    """The value the cube goes to if the offer is taken (twice its value, 4.4 vi)."""
    return int(cube(snap).get("value") or 1) * 2


def points_for(kind: str, cube_value: int) -> int:
    """What a game won as ``kind`` is worth with the cube at ``cube_value`` (the rulebook's count)."""
    return _points_for(ResultKind(kind), cube_value)


def breaks_on_clock(snap: ScreenSnapshot) -> bool:
    """ffbg-cdf with a clock: breaks run on the player's own clock, from a bank, not counted."""
    clock = snap.get("clock") or {}
    return bool(clock.get("enabled")) and profile_of(snap).breaks_on_running_clock_with_clock


def breaks_left(snap: Snapshot, side: Side) -> int:
    b = (snap.get("breaks") or {}).get(side) or {}
    return max(0, int(b.get("allowed") or 0) - int(b.get("used") or 0))


def is_away(snap: Snapshot, side: Side) -> bool:
    return bool(((snap.get("breaks") or {}).get(side) or {}).get("away"))


def break_until(snap: Snapshot, side: Side) -> int | None:
    return ((snap.get("breaks") or {}).get(side) or {}).get("until_wall")


def lateness_of(snap: ScreenSnapshot, side: Side, now: int) -> Lateness | None:
    """How late ``side`` is at ``now`` (wall ms) and what it costs, as the hub counts it."""
    return lateness_at(profile_of(snap), snap, side, now)


def last_game(snap: Snapshot) -> GameRow | None:
    games = snap.get("games") or []
    return games[-1] if games else None


def td_calls(snap: Snapshot) -> dict[str, bool]:
    """Each side's open call of the TD."""
    calls: Mapping[str, object] = snap.get("td_calls") or {}
    return {s: bool(calls.get(s)) for s in SIDES}


# -- the rulebook's answer -------------------------------------------------------------------------


def legal(snap: Snapshot, who: str) -> Mapping[str, Any]:
    """What ``who`` may do now: the snapshot's ``legal[who]``; ``who`` is a player ("A", "B"),
    ``"table"`` (what nobody in particular does: the roll, undo, resume) or ``"td"``."""
    table = snap.get("legal")
    entry = table.get(who) if isinstance(table, Mapping) else None
    return entry if isinstance(entry, Mapping) else {}


def may(snap: Snapshot, who: str, *actions: str) -> bool:
    """Whether ``who`` may do any of ``actions`` now (an input or command type, or another action
    ``legal`` names such as ``premature_double``): allowed when its value is true or a non-empty
    list (``pause``: the reasons; ``win``/``resign``: the kinds)."""
    entry = legal(snap, who)
    return any(bool(entry.get(action)) for action in actions)


def either_may(snap: Snapshot, *actions: str) -> bool:
    """Whether either player may do one of ``actions`` now (the shared buttons of the centre)."""
    return any(may(snap, side, *actions) for side in SIDES)


def pause_reasons(snap: Snapshot, side: Side) -> list[str]:
    """The reasons ``side`` may pause the clock for now, in the rulebook's order."""
    listed = legal(snap, side).get(InputType.PAUSE)
    return [str(r) for r in listed] if isinstance(listed, list) else []


def roller(snap: Snapshot) -> str | None:
    """The player whose roll a roll entered now would be (``legal.table.roller``), or None when no
    roll is due: a roll names no side, so the entry is offered on that player's half."""
    side = legal(snap, "table").get("roller")
    return side if side in SIDES and may(snap, "table", InputType.ROLL) else None
