"""Conditions: what in the room needs the TD, as alerts with an urgency (pure functions).

Each alert has a ``key`` naming the situation (the table, the match, the side, the break), so
the hub raises it once, updates it while it lasts and resolves it when the situation is over;
a situation that comes back (a second TD call) reopens it unacknowledged. Its ``data`` carries
what the dashboard needs to act on it (penalty ids, when the next point falls due, lists).

Urgencies: ``critical`` (time flags: the match waits for the TD's decision), ``high`` (TD calls,
offline tables, players late or overrunning a break once points are due, both players absent,
a player at two tables), ``medium`` (a late player a minute before the first point, matches not
started, slow matches, skewed table clocks, refused commands), ``low`` (a round's absentees as
one line, a player still playing elsewhere).

What is not an alert: a player on a permitted break and a result waiting for verification are
counted (:func:`counters`), each with its list, instead of filling the alert list. A player
not checked in at a round's start is one line per round (:func:`round_absentees`); their own
alert comes when it matters, ``late_alert_lead_ms`` before the first point.

Every time here is the hub's: a table's durations are anchored at receipt (:mod:`hub.logic.tabletime`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hub.logic.lateness import SideLate, Timing, auto_points, mark, next_due, side_lateness
from hub.logic.presence import DoubleBooking
from hub.logic.table_view import TableView
from hub.logic.tabletime import checked_in, clock_offset_ms
from hub.tournament.schedule import ScheduledMatch
from rulebook.messages import Snapshot, Status
from rulebook.policy import first_point_ms
from rulebook.profiles import Profile
from rulebook.sides import SIDES
from rulebook.vocab import CommandType, EndReason, Phase

#: the phases of a match under way (the slow alert's)
PLAY_PHASES = frozenset({Phase.PLAYING, Phase.BETWEEN_GAMES, Phase.BREAK, Phase.PAUSED})


@dataclass(frozen=True, slots=True)
class AlertConfig:
    #: a table whose Will said offline is reported after this grace (PROTOCOL §3)
    offline_grace_ms: int = 30_000
    #: a match still waiting this long after its start is reported
    not_started_grace_ms: int = 5 * 60_000
    #: a late player's own alert appears this long before their first point
    late_alert_lead_ms: int = 60_000
    #: a table whose wall clock is further than this from the hub's is reported
    clock_skew_alert_ms: int = 30_000
    #: both players checked in, the match not started: reported this long after the second
    opening_grace_ms: int = 5 * 60_000


@dataclass(frozen=True, slots=True)
class AlertSpec:
    key: str
    kind: str
    urgency: str
    message: str
    table: str | None
    match_id: str | None
    data: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player of the next round whose match waits for this one."""

    name: str
    match_id: str
    table: str


@dataclass(frozen=True, slots=True)
class Context:
    """What the conditions need beyond the table's own view (gathered by :mod:`hub.live.alerts`)."""

    #: lateness of the table's current match (:func:`hub.live.state.RoomState.timing`)
    timing: Timing | None = None
    #: the match's automatic commands the hub recorded: id -> {created_wall, sent_wall, done_ok}
    commands: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: when the next round starts, and its name
    round_end: int | None = None
    next_round: str | None = None
    #: the players of this match who are due in the next round, where
    holds_up: tuple[Waiting, ...] = ()
    suspended: bool = False
    #: why the hub's automation is held at the table now, as the TD reads it (hub.logic.holds.NOW);
    #: None: it is not (or only ``suspended`` says so)
    held: str | None = None

    def held_text(self) -> str | None:
        return self.held or ("automation suspended" if self.suspended else None)


def hhmm(wall: int) -> str:
    return time.strftime("%H:%M", time.localtime(wall / 1000))


def duration_text(ms: int) -> str:
    """A clock offset as the TD reads it: seconds under two minutes, then minutes, then hours."""
    s = abs(ms) // 1000
    if s < 120:
        return f"{s} s"
    if s < 2 * 3600:
        return f"{s // 60} min"
    if s < 2 * 86_400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86_400} days"


def _name(state: Snapshot | None, match: ScheduledMatch | None, side: str) -> str:
    if state is not None and side in SIDES:
        name = state["players"]["A" if side == "A" else "B"]["name"]
        if name:
            return f"{name} ({side})"
    if match is not None:
        return f"{match.player_a if side == 'A' else match.player_b} ({side})"
    return side


def projected_finish(
    state: Snapshot, now: int, start_wall: int | None, length: int | None = None
) -> int | None:
    """When the match should end at its pace so far (capped by the clocks' reserves), or None.
    ``length``: the schedule's (the table's when not given)."""
    if length is None:
        length = state["length"]
    played = sum(g.get("points", 0) for g in state.get("games") or [] if isinstance(g, dict))
    if not isinstance(played, int) or played <= 0 or start_wall is None or now <= start_wall:
        return None
    per_point = (now - start_wall) / played
    score = state["score"]
    # as the mid-match clock formula does: the average of the points each still needs
    left = (max(0, length - score["A"]) + max(0, length - score["B"])) / 2 * per_point
    clock = state.get("clock") or {}
    reserve = clock.get("reserve_ms")
    if clock.get("enabled") and isinstance(reserve, dict):
        left = min(left, reserve["A"] + reserve["B"])
    return now + int(left)


def slow_from(state: Snapshot, now: int, start_wall: int | None, length: int, round_end: int) -> int | None:
    """The first moment after ``now`` at which :func:`projected_finish` passes ``round_end`` if
    nothing happens at the table (None: not before a point is played, or not before the round's
    end, which is a deadline of its own).

    Between two messages the projection only grows with time: ``now + (now - start) / played ×
    left``, capped by ``now + reserves``, both increasing in ``now``. So the alert appears when
    both terms pass ``round_end``: at the later of the two crossings. The hub looks at a playing
    table again at that moment instead of every second."""
    played = sum(g.get("points", 0) for g in state.get("games") or [] if isinstance(g, dict))
    if not isinstance(played, int) or played <= 0 or start_wall is None:
        return None
    score = state["score"]
    left = (max(0, length - score["A"]) + max(0, length - score["B"])) / 2
    ratio = left / played
    # now + (now - start) × ratio > round_end  <=>  now > (round_end + start × ratio) / (1 + ratio)
    at = (round_end + start_wall * ratio) / (1 + ratio)
    clock = state.get("clock") or {}
    reserve = clock.get("reserve_ms")
    if clock.get("enabled") and isinstance(reserve, dict):
        at = max(at, round_end - (reserve["A"] + reserve["B"]))
    moment = max(int(at), start_wall + 1, now + 1)
    for _ in range(4):  # the projection rounds to the millisecond: step past the rounding
        if moment >= round_end:
            return None
        finish = projected_finish(state, moment, start_wall, length)
        if finish is not None and finish > round_end:
            break
        moment += 1
    return moment if moment < round_end else None


# -- what was given automatically ---------------------------------------------------------------


def given_points(state: Snapshot, prefix: str, commands: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The automatic points of one episode: applied at the table (or sent, not yet answered),
    with when the last one was given. ``penalty_ids`` are the ones in force (not waived)."""
    applied = {p["id"]: p for p in auto_points(state, prefix)}
    ids = set(applied) | {i for i, c in commands.items() if i.startswith(prefix) and c.get("done_ok") != 0}
    ids.discard(f"{prefix}forfeit")
    in_force = sorted((i for i in ids if not (i in applied and applied[i]["waived"])), key=_mark_no)
    waived = sorted((i for i in ids if i in applied and applied[i]["waived"]), key=_mark_no)
    pending = [i for i in in_force if i not in applied]
    walls = [w for i in in_force if i in commands and isinstance(w := commands[i].get("created_wall"), int)]
    return {
        "penalty_ids": in_force,
        "last_penalty_id": in_force[-1] if in_force else None,
        "given_wall": max(walls) if walls else None,
        "waived_ids": waived,
        "pending_ids": pending,
    }


def _mark_no(pid: str) -> int:
    tail = pid.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _points_text(given: dict[str, Any]) -> str:
    n = len(given["penalty_ids"])
    if n == 0:
        return ""
    what = "1 point" if n == 1 else f"{n} points"
    at = given["given_wall"]
    when = "" if at is None else (f" at {hhmm(at)}" if n == 1 else f" (the last at {hhmm(at)})")
    text = f"{what} given automatically{when}"
    if given["pending_ids"]:
        text += ", not yet confirmed by the table"
    if given["waived_ids"]:
        text += f"; {len(given['waived_ids'])} waived"
    return text


def _next_text(nxt: tuple[int, str] | None) -> str:
    if nxt is None:
        return ""
    at, kind = nxt
    return f"forfeit at {hhmm(at)}" if kind == CommandType.FORFEIT else f"next point at {hhmm(at)}"


def side_facts(
    sl: SideLate, t: Timing, state: Snapshot, commands: dict[str, dict[str, Any]], now: int
) -> dict[str, Any]:
    """One absent side as data (alert ``data`` and the tile's ``lateness``)."""
    a = sl.absence
    nxt = None if sl.both_absent or sl.absence.elsewhere else next_due(t, sl.side, now)
    given = given_points(state, f"late:{t.match_id}:{sl.side}:", commands)
    return {
        "side": sl.side,
        "counts_from": a.counts_from,
        "counts_from_reason": a.reason,
        "previous_match": a.previous_match,
        "late_ms": sl.late_ms,
        "first_point_wall": sl.first_point_at,
        "next_due_wall": nxt[0] if nxt else None,
        "next_is_forfeit": bool(nxt and nxt[1] == CommandType.FORFEIT),
        "both_absent": sl.both_absent,
        "elsewhere": a.elsewhere.as_dict() if a.elsewhere else None,
        **given,
    }


# -- the table's alerts -------------------------------------------------------------------------
def journal_alert(table: str, status: Status | None) -> AlertSpec | None:
    """The table says its journal is damaged or lost (``status.journal``, PROTOCOL §3.2): the TD
    must set the match right, the table cannot know what it lost. Lasts until the table clears it."""
    journal = status.get("journal") if status else None
    if journal is None:
        return None
    mid = journal.get("match_id")
    key = f"journal:{table}:{journal.get('problem')}:{journal.get('since_wall')}"
    if journal.get("problem") == "lost":
        seen = f" (it had reached event {journal['last_seq']})" if journal.get("last_seq") else ""
        message = (
            f"Table {table} lost its journal for match {mid}: it plays that match again from 0–0{seen}. "
            "Ask the players the score and enter it with Correct score."
        )
    else:
        message = (
            f"Table {table}: its journal is damaged after input {journal.get('after_input')} "
            f"({journal.get('reason')}); the match is paused for you. Check the score and the clocks "
            "with the players, correct them, then resume."
        )
    return AlertSpec(key, "journal", "high", message, table, mid if isinstance(mid, str) else None)


def table_alerts(
    view: TableView,
    match: ScheduledMatch | None,
    *,
    now: int,
    config: AlertConfig,
    profile: Profile,
    context: Context | None = None,
) -> list[AlertSpec]:
    """Every alert this table deserves at ``now``."""
    ctx = context or Context()
    t = view.table
    mid = match.match_id if match else None
    state = view.state_for(match.match_id) if match else view.state
    out: list[AlertSpec] = []

    def add(
        key: str,
        kind: str,
        urgency: str,
        message: str,
        match_id: str | None = mid,
        data: dict[str, Any] | None = None,
    ) -> None:
        out.append(AlertSpec(key, kind, urgency, message, t, match_id, data))

    notice = journal_alert(t, view.status)
    if notice is not None:
        out.append(notice)
    offline = view.is_offline(now, config.offline_grace_ms)
    if offline:
        note = ""
        if state is not None and state["phase"] == Phase.WAITING and match and now > match.start_wall:
            note = ": lateness is not applied automatically while it is offline"
        if view.no_device is not None:
            note = (
                f": no device is connected ({view.no_device}); nothing automatic happens there "
                "until one comes online"
            )
        add(
            f"offline:{t}",
            "offline",
            "high",
            f"Table {t} offline since {hhmm(view.status_since)}{note}",
            None,
        )
    # the hub's estimate, never one state's offset: a state that waited (a backlog, the broker's
    # queue) makes any clock look behind (hub.logic.clock_estimate); rounded to the second, so
    # the alert does not change with each state
    offset = clock_offset_ms(view)
    if offset is not None and abs(offset) > config.clock_skew_alert_ms:
        rounded = offset // 1000 * 1000
        direction = "ahead of" if offset > 0 else "behind"
        add(
            f"clock:{t}",
            "clock_skew",
            "medium",
            f"Table {t}'s clock is off by {duration_text(rounded)} ({direction} the hub): lateness and "
            "breaks use the hub's time; set the table's time (NTP)",
            None,
            {"offset_ms": rounded},
        )
    if state is not None:
        smid = state.get("match_id")
        phase = state["phase"]
        if phase == Phase.FLAG:
            flagged = state["clock"]["flagged"] or "?"
            at = state["clock"].get("flagged_at")
            add(
                f"flag:{t}:{smid}:{at}",
                Phase.FLAG,  # alerts of a phase are named after it
                "critical",
                f"Table {t}: time expired for {_name(state, match, flagged)}; the match waits for the TD",
                smid,
            )
        elif (caller := state.get("td_call")) is not None:
            side = caller
            add(
                f"call:{t}:{smid}:{side}",
                "td_call",
                "high",
                f"Table {t}: {_name(state, match, side)} calls the TD",
                smid,
            )
        timing = ctx.timing if ctx.timing is not None and ctx.timing.match_id == smid else None
        if (
            match is not None
            and timing is not None
            and not offline
            and view.online
            and phase == Phase.WAITING
        ):
            out += _late_alerts(t, match, state, timing, ctx, now, config)
        if timing is not None:
            out += _overrun_alerts(t, match, state, timing, ctx, now)
        if match is not None and phase in PLAY_PHASES and ctx.round_end:
            slow = _slow_alert(t, match, state, ctx, now)
            if slow is not None:
                out.append(slow)
        if match is not None and smid == match.match_id:
            out += done_items(t, match, state, ctx.commands)
    if match is not None and now >= match.start_wall + config.not_started_grace_ms and not offline:
        if state is None:
            why = "no table has reported" if view.status is None else "the table has not taken the match"
            add(
                f"not_started:{match.match_id}",
                "not_started",
                "medium",
                f"Table {t}: match not started ({why})",
            )
        elif state["phase"] == Phase.OPENING and now >= opening_due(view, state, config):
            add(
                f"not_started:{match.match_id}",
                "not_started",
                "medium",
                f"Table {t}: both players are there but the match has not started",
            )
    return out


def opening_due(view: TableView, state: Snapshot, config: AlertConfig) -> int:
    """When "both players are there but the match has not started" is due: the opening grace
    after the later check-in, in hub time (the table's check-in ages anchored at receipt)."""
    times = [checked_in(state, view.state_wall, s) for s in SIDES]
    both = max((t for t in times if t is not None), default=view.state_wall)
    return both + config.opening_grace_ms


# -- what the hub did by itself ------------------------------------------------------------------

#: the automatic commands' id prefixes (hub.logic.lateness): lateness, break overrun
AUTO_PREFIXES = ("late", "break")
#: what takes a done line back from the feed, both by a waiver of its id: the point is taken back,
#: or the match the forfeit ended is reopened
TAKE_BACK, REOPEN = "take_back", "reopen"
#: a match that ended by one of these may have been ended by an automatic forfeit
FORFEIT_ENDS = frozenset({EndReason.FORFEIT, EndReason.LATENESS})


def done_items(
    t: str, match: ScheduledMatch, state: Snapshot, commands: dict[str, dict[str, Any]]
) -> list[AlertSpec]:
    """One ``done`` line per automatic point or forfeit the hub gave in the table's match (applied
    at the table, or sent and not refused), with what takes it back: a point is waived, a forfeit
    that ended the match is undone (a waiver of its id). They last while the table holds the
    match; the timeline keeps them for good."""
    mid = match.match_id
    prefixes = tuple(f"{p}:{mid}:" for p in AUTO_PREFIXES)
    applied = {
        p["id"]: p
        for p in state.get("penalty_log") or []
        if isinstance(p, dict) and isinstance(p.get("id"), str) and p["id"].startswith(prefixes)
    }
    sent = {i for i, c in commands.items() if i.startswith(prefixes) and c.get("done_ok") != 0}
    ended = state.get("phase") == Phase.FINISHED and state.get("end_reason") in FORFEIT_ENDS
    out = []
    for pid in sorted(set(applied) | sent, key=lambda i: (commands.get(i, {}).get("created_wall") or 0, i)):
        parts = pid.split(":")
        side = parts[2] if len(parts) > 3 and parts[2] in SIDES else None
        if side is None:
            continue
        forfeit = pid.endswith(":forfeit")
        p = applied.get(pid)
        given = commands.get(pid, {}).get("created_wall")
        waived = bool(p and p.get("waived"))
        done = p is not None or (forfeit and ended)
        why = "lateness" if parts[0] == "late" else "break overrun"
        who = _name(state, match, side)
        at = f" at {hhmm(given)}" if isinstance(given, int) else ""
        if forfeit:
            text = f"Table {t}: match forfeited automatically against {who} ({why}){at}"
        else:
            n = p.get("points", 1) if p else 1
            text = (
                f"Table {t}: {n} point{'s' if n != 1 else ''} against {who} given automatically ({why}){at}"
            )
        if waived:
            text += " — waived"
        elif not done:
            text += ", not yet confirmed by the table"
        out.append(
            AlertSpec(
                f"auto:{pid}",
                "auto_forfeit" if forfeit else "auto_point",
                "low",
                text,
                t,
                mid,
                {
                    "penalty_id": pid,
                    "side": side,
                    "forfeit": forfeit,
                    "reason": why,
                    "given_wall": given,
                    "applied": done,
                    "waived": waived,
                    # what takes it back from the feed: a waiver of its id (an undo for a forfeit)
                    "undo": REOPEN
                    if forfeit and ended
                    else TAKE_BACK
                    if p is not None and not waived
                    else None,
                },
            )
        )
    return out


def _late_alerts(
    t: str,
    match: ScheduledMatch,
    state: Snapshot,
    timing: Timing,
    ctx: Context,
    now: int,
    config: AlertConfig,
) -> list[AlertSpec]:
    """A late player's alert, from a minute before the first point; both players absent as one."""
    out: list[AlertSpec] = []
    mid = match.match_id
    late = {s: side_lateness(timing, s, now) for s in SIDES}
    lead = config.late_alert_lead_ms
    absent = [sl for sl in late.values() if sl is not None]
    counting = [sl for sl in absent if sl.absence.counts_from is not None]
    if len(absent) == 2 and len(counting) == 2:
        # both players absent, neither playing elsewhere: never an automatic point or forfeit
        starts = [sl.absence.counts_from for sl in counting if sl.absence.counts_from is not None]
        firsts = [
            sl.first_point_at if sl.first_point_at is not None else sl.absence.counts_from for sl in counting
        ]
        first = min(f for f in firsts if f is not None)
        since = min(starts)
        if now < first - lead:
            return out
        minutes = max(0, now - since) // 60_000
        data = {
            "sides": {sl.side: side_facts(sl, timing, state, ctx.commands, now) for sl in counting},
            "both_absent": True,
            "first_point_wall": first,
        }
        if now < first:
            text = (
                f"Table {t}: neither player is checked in ({hhmm(since)}); no automatic point or "
                f"forfeit while both are absent (the first would fall at {hhmm(first)}): the TD decides"
            )
            urgency = "medium"
        else:
            text = (
                f"Table {t}: both players absent, {minutes} min after {hhmm(since)}; no automatic "
                "point or forfeit while both are absent: the TD decides"
            )
            urgency = "high"
        out.append(AlertSpec(f"late:{mid}:both", "both_absent", urgency, text, t, mid, data))
        return out
    for sl in absent:
        spec = _side_alert(t, match, state, timing, ctx, now, lead, sl, late["B" if sl.side == "A" else "A"])
        if spec is not None:
            out.append(spec)
    return out


def _side_alert(
    t: str,
    match: ScheduledMatch,
    state: Snapshot,
    timing: Timing,
    ctx: Context,
    now: int,
    lead: int,
    sl: SideLate,
    other: SideLate | None,
) -> AlertSpec | None:
    """One absent player's alert, or None while it does not matter yet."""
    who = _name(state, match, sl.side)
    facts = side_facts(sl, timing, state, ctx.commands, now)

    def spec(urgency: str, text: str) -> AlertSpec:
        return AlertSpec(f"late:{match.match_id}:{sl.side}", "late", urgency, f"Table {t}: {who} {text}", t,
                         match.match_id, facts)  # fmt: skip

    if sl.absence.elsewhere is not None:
        # playing another match in the room: not late; said when lateness would have mattered
        if now < match.start_wall + first_point_ms(timing.profile, clock=timing.clock) - lead:
            return None
        return spec(
            "low", f"{sl.absence.elsewhere.text()}: not late; lateness counts from the end of that match"
        )
    counts_from = sl.absence.counts_from
    assert counts_from is not None
    minutes = max(0, now - counts_from) // 60_000
    late_text = f"not checked in, {minutes} min late"
    if sl.absence.reason != "start":
        late_text += f" (counted from {hhmm(counts_from)}, {_reason_text(sl)})"
    if sl.first_point_at is None:
        # ffbg-cdf with a clock: no points, the late player's clock runs
        return (
            None if now < counts_from else spec("medium", f"{late_text}; the clock runs from the round time")
        )
    if now < sl.first_point_at - lead:
        return None
    if other is not None and other.absence.elsewhere is not None:
        # the opponent is still playing elsewhere: nobody waits, no point
        opponent = _name(state, match, other.side)
        return spec(
            "medium",
            f"{late_text}; no point while the opponent {opponent} is {other.absence.elsewhere.text()}",
        )
    nxt = facts["next_due_wall"]
    coming = _next_text(
        (nxt, CommandType.FORFEIT if facts["next_is_forfeit"] else "point") if nxt is not None else None
    )
    held = ctx.held_text()
    if sl.due_points == 0:
        first = nxt if nxt is not None else sl.first_point_at
        text, urgency = f"first point at {hhmm(first)}", "medium"
        if sl.marks:
            text += " (none for the time both players were absent)"
        if held:
            text += f" ({held}: not given automatically)"
    else:
        text, urgency = _given_and_due(facts, sl.due_points, held), "high"
        if coming:
            text += f" — {coming}"
    return spec(urgency, f"{late_text}; {text}")


def _given_and_due(facts: dict[str, Any], due_points: int, held: str | None) -> str:
    """What was given of the points due so far, and what is not given yet and why: never "1
    point given" alone while a second is due."""
    parts = [_points_text(facts)] if facts["penalty_ids"] else []
    missing = due_points - len(facts["penalty_ids"]) - len(facts["waived_ids"])
    if missing > 0:
        what = "1 point" if missing == 1 else f"{missing} points"
        more = " more" if parts else ""
        parts.append(f"{what}{more} due, not given: {held}" if held else f"{what}{more} due, being sent")
    if not parts:
        n = len(facts["waived_ids"])
        parts.append(f"{'1 point' if n == 1 else f'{n} points'} waived by the TD")
    return "; ".join(parts)


def _reason_text(sl: SideLate) -> str:
    if sl.absence.reason == "assignment":
        return "when the table got the match"
    if sl.absence.reason == "previous_match":
        return f"the end of {sl.absence.previous_match}"
    return "the start"


def _overrun_alerts(
    t: str, match: ScheduledMatch | None, state: Snapshot, timing: Timing, ctx: Context, now: int
) -> list[AlertSpec]:
    out = []
    for side, (used, ends) in sorted(timing.breaks.items()):
        if now < ends:
            continue
        minutes = (now - ends) // 60_000
        prefix = f"break:{timing.match_id}:{side}:{used}:"
        given = given_points(state, prefix, ctx.commands)
        nxt = next_due(timing, side, now, break_side=True)
        coming = f" — {_next_text(nxt)}" if nxt else ""
        first = mark(timing, ends, 1)
        if now < first:
            text, urgency = f"; first point at {hhmm(first)}", "medium"
        elif given["penalty_ids"]:
            text, urgency = f"; {_points_text(given)}{coming}", "high"
        elif ctx.held_text():
            text, urgency = f"; points due, not given: {ctx.held_text()}{coming}", "high"
        else:
            text, urgency = f"; points due, being sent{coming}", "high"
        data = {
            "side": side,
            "break_no": used,
            "ended_wall": ends,
            "overrun_ms": now - ends,
            "next_due_wall": nxt[0] if nxt else None,
            "next_is_forfeit": bool(nxt and nxt[1] == CommandType.FORFEIT),
            **given,
        }
        out.append(
            AlertSpec(
                f"overrun:{timing.match_id}:{side}:{used}",
                "break_overrun",
                urgency,
                f"Table {t}: {_name(state, match, side)} overran the break by {minutes} min{text}",
                t,
                timing.match_id,
                data,
            )
        )
    return out


def _slow_alert(t: str, match: ScheduledMatch, state: Snapshot, ctx: Context, now: int) -> AlertSpec | None:
    """A match that will end, or still runs, after the next round's start; which players it holds
    up. Recomputed at every look, so it never speaks of a start that has passed as to come."""
    round_end = ctx.round_end
    assert round_end is not None
    nxt = ctx.next_round or "the next round"
    label = f"round {nxt}" if ctx.next_round else nxt
    waiting = "; ".join(f"{w.name} is due at table {w.table} ({w.match_id})" for w in ctx.holds_up)
    data = {
        "next_round": ctx.next_round,
        "next_round_wall": round_end,
        "holds_up": [{"name": w.name, "match_id": w.match_id, "table": w.table} for w in ctx.holds_up],
    }
    if now >= round_end:
        over = (now - round_end) // 60_000
        message = f"Table {t}: still playing {over} min after {label} started ({hhmm(round_end)})"
        data["late_by_ms"] = now - round_end
    else:
        finish = projected_finish(state, now, match.start_wall, match.length)
        if finish is None or finish <= round_end:
            return None
        over = (finish - round_end) // 60_000
        message = (
            f"Table {t}: at this pace the match ends about {over} min after {label} starts "
            f"({hhmm(round_end)})"
        )
        data["projected_end_wall"] = finish
    if waiting:
        message += f"; {waiting}"
    return AlertSpec(f"slow:{match.match_id}", "slow", "medium", message, t, match.match_id, data)


@dataclass(frozen=True, slots=True)
class MisplacedPoint:
    """An automatic lateness point given to a player who, the hub now knows, was at another match
    of the event at that moment (found after an import resolved who is who, or once that match's
    events arrived)."""

    penalty_id: str
    side: str
    points: int
    given_wall: int
    #: the match the player was at, its table and round
    elsewhere: tuple[str, str, str]


def late_elsewhere(t: str, match: ScheduledMatch, state: Snapshot, point: MisplacedPoint) -> AlertSpec:
    """A point to take back: the TD waives it from the alert (the hub never waives by itself).
    Its data is a late alert's (``last_penalty_id``, ``side``, ``given_wall``), which the
    dashboard's *Waive* reads; once the match is over, its result is the TD's to correct."""
    mid, table, rnd = point.elsewhere
    who = _name(state, match, point.side)
    pts = "1 point" if point.points == 1 else f"{point.points} points"
    over = state.get("phase") == Phase.FINISHED
    message = (
        f"Table {t}: {point.penalty_id} ({pts} for lateness against {who}, given at "
        f"{hhmm(point.given_wall)}) — the player was at {mid} (table {table}, round {rnd}) then, "
        "not late: "
        + ("the match is over, correct its result if that point changed it" if over else "waive it")
    )
    data = {
        "penalty_id": point.penalty_id,
        "side": point.side,
        "points": point.points,
        "given_wall": point.given_wall,
        "elsewhere": {"match_id": mid, "table": table, "round": rnd},
        # the dashboard's Waive reads these (as for a late alert)
        "last_penalty_id": None if over else point.penalty_id,
        "penalty_ids": [point.penalty_id],
        "waived_ids": [],
        "pending_ids": [],
    }
    key = f"late_elsewhere:{point.penalty_id}"
    return AlertSpec(key, "late_elsewhere", "high", message, t, match.match_id, data)


def result_alert(result: dict[str, Any]) -> AlertSpec | None:
    """A finished match whose result the TD has not verified yet (a counter, not an alert: kept
    for :func:`counters`)."""
    if result.get("verified"):
        return None
    score = result["score"]
    return AlertSpec(
        f"verify:{result['match_id']}",
        "verify",
        "low",
        f"Table {result['table']}: result {result['player_a']} {score['A']} – {score['B']} "
        f"{result['player_b']} waits for verification",
        result["table"],
        result["match_id"],
    )


# -- the room's alerts and counters -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Absentee:
    """A player of a round's match not checked in after its start."""

    round: str
    table: str
    match_id: str
    side: str
    name: str
    late_ms: int | None
    elsewhere: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "match_id": self.match_id,
            "side": self.side,
            "name": self.name,
            "late_ms": self.late_ms,
            "elsewhere": self.elsewhere,
        }


def round_absentees(absentees: Iterable[Absentee]) -> list[AlertSpec]:
    """One line per round: "Round 2: 4 players not checked in", the list in its data."""
    by_round: dict[str, list[Absentee]] = {}
    for a in absentees:
        by_round.setdefault(a.round, []).append(a)
    out = []
    for rnd, items in sorted(by_round.items()):
        n = len(items)
        playing = sum(1 for a in items if a.elsewhere)
        message = f"Round {rnd}: {n} player{'s' if n != 1 else ''} not checked in"
        if playing:
            message += f" ({playing} still playing an earlier match)"
        out.append(
            AlertSpec(
                f"absent:{rnd}",
                "absent",
                "low",
                message,
                None,
                None,
                {"round": rnd, "count": n, "players": [a.as_dict() for a in items]},
            )
        )
    return out


def double_booked(bookings: Iterable[DoubleBooking]) -> list[AlertSpec]:
    """A player the schedule puts at two matches at once (medium), or the room shows at two
    tables (high)."""
    return [
        AlertSpec(
            f"double:{b.where}:{b.key}",
            "double_booked",
            "high" if b.where == "room" else "medium",
            b.text(),
            None,
            None,
            {
                "player": b.name,
                "where": b.where,
                "matches": [{"match_id": m, "table": t} for m, t in b.matches],
            },
        )
        for b in bookings
    ]


def counters(on_break: list[dict[str, Any]], results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What the room counts rather than alerts: players on a permitted break, results to verify."""
    verify = [
        {
            "match_id": r["match_id"],
            "table": r["table"],
            "round": r.get("round"),
            "players": {"A": r.get("player_a"), "B": r.get("player_b")},
            "score": r.get("score"),
            "winner": r.get("winner"),
        }
        for r in results
        if not r.get("verified")
    ]
    return {
        "on_break": {"count": len(on_break), "items": on_break},
        "verify": {
            "count": len(verify),
            "items": sorted(verify, key=lambda v: (str(v["round"]), v["table"])),
        },
    }
