"""Every refusal code the rulebook gives, with its English message.

Why one table: a code is a contract. The kiosk translates it (gettext domain ``rules``:
``kiosk/locale/<lang>/LC_MESSAGES/rules.po``, whose English catalog mirrors this table and is
checked against it by the tests), the hub shows it in English (:func:`english`), and
``docs/rules.md`` maps the articles of the rules to it. Messages are English sentences with
named ``{placeholders}`` filled from the error's ``params``; article numbers are those of the
WBGF 2023 rules unless another profile is named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MESSAGES: dict[str, str] = {
    # -- the shape of a message (parsed at the edge) -----------------------------------------------
    "input.not_object": "an input is a JSON object",
    "input.unknown": "unknown input {input}",
    "input.time_backwards": "at: time went backwards ({at} < {now})",
    "field.missing": "{field}: required",
    "field.type": "{field}: expected {expected}, got {got}",
    "field.range": "{field}: expected a value from {lo} to {hi}, got {got}",
    "field.choice": "{field}: expected one of {choices}, got {got}",
    "field.too_long": "{field}: longer than {limit} characters",
    "cmd.unknown": "unknown command type {type}",
    "cmd.expired": "command expired",
    "cmd.not_in_profile": "{profile}: these rules give the TD no {type} decision",
    # -- the match and the phase -------------------------------------------------------------------
    "match.none": "no match assigned to this table",
    "match.over": "the match is over",
    "match.not_over": "the match is not over",
    "match.in_progress": "match {match_id} is still in progress (assign with force to replace)",
    "phase.wrong": "not possible in phase {phase}",
    "phase.paused": "the clock is paused ({reason})",
    "flag.waiting": "time expired: waiting for the TD's decision",
    "flag.none": "no time flag to resolve",
    # -- arrival and the opening roll --------------------------------------------------------------
    "checkin.already": "{side} has already checked in",
    "checkin.missing": "{side} has not checked in",
    # -- the clock ----------------------------------------------------------------------------------
    "clock.none": "no clock in this match",
    "clock.none_impose": "no clock in this match (impose one first)",
    "clock.lower_starts": "{side} (the lower opening roll) starts the clock",
    "clock.not_yours": "it is {side}'s clock that runs",
    "clock.not_paused": "the clock is not paused",
    "clock.not_in_profile": "{profile}: the TD does not start a late player's clock in these rules (2.2 iv)",
    "turn.not_yours": "it is {side}'s turn",
    "roll.not_yours": "it is {side}'s roll",
    "roll.double_waiting": "a double is waiting for take or pass",
    "roll.premature": "premature roll: {side} has not finished the turn (4.1 v a)",
    "roll.clock_not_running": "premature roll: {side}'s clock is not running yet",
    # -- pauses (4.3 ii) ----------------------------------------------------------------------------
    "pause.no_clock": "no clock in this match: there is no clock for a player to pause",
    "pause.reason_not_allowed": "reason {reason} does not allow a pause in {profile} ({allowed})",
    "pause.break_in_game": "a break is taken between games, never by pausing a game in progress (2.2 ii)",
    "pause.break_before_first_game": "a break is taken between games, not before the first game (2.2 ii)",
    "pause.not_in_game": "reason {reason} pauses a game in progress only",
    "pause.table_reason": "reason {reason} is the table's, not a player's",
    # -- the cube (4.4) -----------------------------------------------------------------------------
    "double.no_game": "no game in progress",
    "double.crawford": "Crawford game: no doubling (4.4 iv)",
    "double.offered": "a double is already offered",
    "double.cube_owned": "the cube is owned by {owner}",
    "double.dead_cube": "dead cube: it already wins the match (4.4 vii)",
    "double.max": "the cube is at its highest value ({value})",
    "double.after_roll": "doubling must come before any roll attempt (4.4 ii)",
    "double.clock_wait": "wait for the opponent to finish the turn (press the clock)",
    "double.forbidden": "the TD has forbidden {side} to double for the rest of this game (HU 7.9)",
    "crawford.none": "no double made in the Crawford game waits for the leader's choice (HU 7.5, FFBG 6.5)",
    "take.no_offer": "no double to take",
    "take.own": "the doubler cannot take their own double",
    "pass.no_offer": "no double to pass",
    "pass.own": "the doubler cannot pass their own double",
    # -- results (4.5) ------------------------------------------------------------------------------
    "result.no_game": "no game in progress (phase {phase})",
    "result.double_waiting": "a double is waiting: take or pass first",
    "undo.nothing": "nothing to undo (only the last score or cube entry, before the next game)",
    "undo.confirmed": "both players confirmed the result: the TD corrects it now",
    "confirm.already": "{side} has already confirmed the score",
    # -- breaks and calls (2.2) ---------------------------------------------------------------------
    "break.away": "{side} is already on a break",
    "break.none_left": "no breaks left ({used} of {allowed} used)",
    "break.own_clock": "take a break on your own running clock",
    "break.not_combined": "{side} is already on a break ({profile} does not combine a player's breaks)",
    "return.not_away": "{side} is not on a break",
    "call.already": "{side} has already called the TD",
    "call.none": "{side} has not called the TD",
    # -- TD commands (docs/protocol.md §3.4) --------------------------------------------------------
    "penalty.applied": "penalty {id} already applied",
    "waive.none": "no penalty with id {id}",
    "waive.already": "penalty {id} is already waived",
    "waive.finished": "the match is over; correct the score instead",
    "length.finished": "a finished match stands (4.8)",
    "length.impossible": "impossible (4.8): length {length} would end the match; play continues at {current}",
    "length.impossible_both": (
        "impossible: both players already have {length} points or more; the TD corrects the score"
    ),
    "length.same": "the match is already played to {length}",
    "score.both_reached": "impossible score {a}-{b}: both players at or past the match length {length} (4.7)",
    "score.loser_reached": (
        "impossible final: {side} lost ({reason}) and cannot have {points} of {length} points (4.5)"
    ),
    "score.winner_short": (
        "impossible final: the winner {side} has {points} of {length} points, and the match did not end "
        "by time, forfeit or lateness (4.5)"
    ),
    "score.no_winner": (
        "impossible final: nobody has the match length {length} (4.5); the match is played out"
    ),
    # -- profiles -----------------------------------------------------------------------------------
    "profile.unknown": "profile: unknown profile {name} (known: {known})",
    "profile.key_unknown": "{key}: unknown profile key",
    "profile.type": "{key}: expected {expected}",
    "profile.range": "{key}: {value} is out of range ({lo}..{hi})",
    "profile.bands": "{key}: expected a non-empty list of [max_length, value] pairs, ascending",
    "profile.reasons": "{key}: unknown pause reason(s) {reasons}",
    "profile.unreadable": "profile: cannot read {path}: {detail}",
    "profile.not_toml": "profile: {path} is not valid TOML: {detail}",
    "profile.name_taken": "name: {name} is a built-in profile; a custom profile needs a name of its own",
    "profile.name_repeated": "name: two custom profiles are named {name}",
    "profile.digest_missing": (
        "profile {name}: a custom profile comes with its digest; the table cannot verify it"
    ),
    "profile.digest": (
        "profile {name}: these rules resolve to another digest here ({digest}…) than the hub's; "
        "the table does not play them"
    ),
    # -- journals -----------------------------------------------------------------------------------
    "journal.not_json": "line {line}: not JSON ({detail})",
    "journal.bad_input": "line {line}: {input_code}: {detail}",
    # -- a fault in the reducer itself (tests make sure none occurs) --------------------------------
    "internal.error": "internal error: {detail}",
}


class _Keep(dict[str, Any]):
    """Leaves a placeholder that has no value as it is, so a message never fails to format."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def english(code: str, params: Mapping[str, Any] | None = None) -> str:
    """The English message of ``code`` with ``params`` filled in (the hub's lookup).

    An unknown code is returned as it is: a newer table may send codes this hub does not know.
    """
    template = MESSAGES.get(code)
    if template is None:
        return code
    return template.format_map(_Keep(params or {}))


__all__ = ["MESSAGES", "english"]
