"""Room-wide actions of the TD: start a round now or delay it, pause and resume every clock,
suspend and resume the room's automation, verify every result confirmed at its table, move a
match to another table (carrying its state), and import a schedule after a preview.

A round often starts late (the pairings were printed late): the TD moves its start, and every
table waiting for a match of that round is sent its assignment again with the new start, from
which lateness counts. The new start is stored in the schedule, and lateness counts from the
hub's schedule (never the table's), so nothing waits for the tables: every table's deadlines are
worked out again from the schedule at once, and a table whose current match is of another round
goes on exactly as before. Every action here is audited once for the room (and each command it
sends once more).

A moved match keeps its id. Its schedule row names the new table; the hub assigns it there and
withdraws it from the old table. When the match had started, its score (and clocks, and a
corrected length) are carried: once the new table holds the match, the hub sends the TD's
``correct_score`` / ``set_time`` / ``set_length`` for it, and lateness counts from the move.
Pending carries are kept in the store, so a restarted hub still sends them. A table whose device
is retired or replaced mid-match carries its match the same way to its next device
(:meth:`RoundControl.carry_to_next_device`, from :mod:`hub.fleet.device_change`), and the TD is told
that the new device's score went back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from drivers.mqtt_topics import is_valid_id
from hub.live.actions import ActionError, Actions
from hub.live.clock import Clock
from hub.live.config import HubConfig
from hub.live.incidents import carried, carry_failed, went_lower
from hub.live.state import RoomState, natural
from hub.logic.round_view import both_confirmed
from hub.storage.store import Store
from hub.tournament.players import Conflict, Resolution
from hub.tournament.schedule import ScheduledMatch, parse_schedule
from hub.tournament.schedule_diff import IN_PLAY, Preview, imported, keep_match_ids, preview
from rulebook import legal
from rulebook.messages import Snapshot
from rulebook.vocab import CommandType, EventType, PauseReason, Phase

log = logging.getLogger("hub")

#: the store's meta key holding the carries not sent yet (match id -> what to carry)
CARRIES = "pending_carries"
PAUSABLE = legal.PAUSABLE
MAX_DELAY_MIN = 240


class RoundControl:
    def __init__(
        self,
        room: RoomState,
        store: Store,
        config: HubConfig,
        clock: Clock,
        actions: Actions,
        *,
        refresh: Callable[[int, set[str] | None], None],
        tick: Callable[[], None],
        publish: Callable[[dict[str, Any]], None],
    ) -> None:
        self.room = room
        self.store = store
        self.config = config
        self.clock = clock
        self.actions = actions
        self._refresh = refresh
        self._tick = tick
        self._publish = publish

    # -- the round's start ----------------------------------------------------------------------

    def _round(self, rnd: Any) -> list[ScheduledMatch]:
        if not isinstance(rnd, str) or not rnd:
            raise ActionError("round: expected a round name")
        # the draw's calls start at their call (plus the walking grace): they have no round time
        matches = [m for m in self.room.imported if m.round == rnd]
        if not matches:
            raise ActionError(f"no round {rnd!r} in the schedule")
        return matches

    def _not_started(self, matches: list[ScheduledMatch]) -> list[ScheduledMatch]:
        """The round's matches not begun: no result, and their table has no state of the match or
        is still waiting for a player (one who is there arrived early; the other's lateness counts
        from the round's new start)."""
        out = []
        for m in matches:
            if m.match_id in self.room.results:
                continue
            state = self._state_of(m)
            if state is not None and state["phase"] != Phase.WAITING:
                continue
            out.append(m)
        return out

    def _state_of(self, m: ScheduledMatch) -> Snapshot | None:
        view = self.room.views.get(m.table)
        return view.state_for(m.match_id) if view is not None else None

    def start_now(self, rnd: Any, actor: str) -> dict[str, Any]:
        """The round starts now: lateness counts from this moment at every table still waiting."""
        now = self.clock.now_wall()
        return self._restart(self._round(rnd), now, actor, "round_start", {"round": rnd})

    def delay(self, rnd: Any, minutes: Any, actor: str) -> dict[str, Any]:
        """The round starts ``minutes`` later (at the tables where no one has started yet)."""
        if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= MAX_DELAY_MIN:
            raise ActionError(f"minutes: expected a whole number from 1 to {MAX_DELAY_MIN}")
        matches = self._round(rnd)
        waiting = self._not_started(matches)
        if not waiting:
            raise ActionError(f"every match of round {rnd} has started: nothing to delay")
        start = min(m.start_wall for m in waiting) + minutes * 60_000
        return self._restart(matches, start, actor, "round_delay", {"round": rnd, "minutes": minutes})

    def _restart(
        self, matches: list[ScheduledMatch], start: int, actor: str, action: str, detail: dict[str, Any]
    ) -> dict[str, Any]:
        now = self.clock.now_wall()
        waiting = self._not_started(matches)
        if not waiting:
            raise ActionError("every match of the round has started")
        moved = [replace(m, start_wall=start) for m in waiting if m.start_wall != start]
        if moved:
            # the hub's schedule is what lateness counts from (hub.logic.lateness): nothing is held at
            # the tables, whose states stay current; the tick works every deadline out again
            self.store.import_schedule(moved, now)
        tables = sorted({m.table for m in waiting}, key=natural)
        self.store.audit(
            actor,
            action,
            now,
            detail={**detail, "start_wall": start, "matches": len(moved), "tables": tables},
        )
        self.store.commit()
        self.room.set_schedule(self.store.schedule())
        self._tick()
        self._publish({"type": "schedule", "now_wall": now})
        return {"start_wall": start, "matches": [m.match_id for m in waiting], "tables": tables}

    # -- clocks and automation for the room ---------------------------------------------------

    def _current_states(self) -> list[tuple[str, Snapshot]]:
        out = []
        for table, cur in sorted(self.room.current.items(), key=lambda kv: natural(kv[0])):
            view = self.room.views.get(table)
            state = view.state_for(cur.match.match_id) if view is not None else None
            if state is not None and view is not None and view.online:
                out.append((table, state))
        return out

    def pause_all(self, actor: str) -> dict[str, Any]:
        """Pause every running clock of the room (a TD pause, resumed by ``resume_all``)."""
        tables = [
            t
            for t, s in self._current_states()
            if s["phase"] in PAUSABLE and (s.get("clock") or {}).get("enabled")
        ]
        return self._all(tables, CommandType.PAUSE, "pause_all", actor)

    def resume_all(self, actor: str) -> dict[str, Any]:
        """Resume every clock the TD paused (a pause for another reason stays)."""
        tables = [
            t
            for t, s in self._current_states()
            if s["phase"] == Phase.PAUSED and (s.get("clock") or {}).get("paused") == PauseReason.TD
        ]
        return self._all(tables, CommandType.RESUME, "resume_all", actor)

    def _all(self, tables: list[str], kind: str, action: str, actor: str) -> dict[str, Any]:
        now = self.clock.now_wall()
        self.store.audit(actor, action, now, detail={"tables": tables})
        self.store.commit()
        for table in tables:
            self.actions.td_command(table, kind, {}, actor)
        self._tick()  # every table's deadlines again, at once
        return {"tables": tables}

    def set_room_automation(self, suspended: Any, actor: str) -> dict[str, Any]:
        """Suspend (or resume) automatic lateness at every table of the room."""
        if not isinstance(suspended, bool):
            raise ActionError("suspended: expected true or false")
        now = self.clock.now_wall()
        tables = self.room.tables()
        for table in tables:
            self.store.set_automation(table, suspended)
        self.store.audit(
            actor, "suspend_room" if suspended else "resume_room", now, detail={"tables": len(tables)}
        )
        self.store.commit()
        if suspended:
            self.room.suspended.update(tables)
        else:
            self.room.suspended.clear()
        # at once: a resumed table decides the marks that fell due while it was suspended
        self._tick()
        return {"automation_suspended": suspended, "tables": tables}

    def confirmed_unverified(self, round_: str) -> list[str]:
        """The round's results not verified yet whose two players confirmed them at their table."""
        out = []
        for mid, result in sorted(self.room.results.items()):
            if str(result.get("round")) != round_ or result.get("verified"):
                continue
            both = both_confirmed(result)
            if both is None:  # a result stored by an older hub: the table's confirm events say it
                events = self.store.events(result["table"], mid, limit=5000)
                both = {"A", "B"} <= {e.get("side") for e in events if e.get("type") == EventType.CONFIRM}
            if both:
                out.append(mid)
        return out

    def verify_confirmed(self, round_: Any, actor: str) -> dict[str, Any]:
        """Verify the results of one round that both players confirmed at their table (WBGF 4.6:
        the TD verifies each result; the bulk action never reaches into another round)."""
        if not isinstance(round_, str) or round_ not in {m.round for m in self.room.schedule}:
            raise ActionError(f"round: no round {round_!r} in the schedule", "field.choice")
        now = self.clock.now_wall()
        verified = self.confirmed_unverified(round_)
        for mid in verified:
            self.store.verify_result(mid, actor, now)
        self.store.audit(actor, "verify_confirmed", now, detail={"round": round_, "verified": verified})
        self.store.commit()
        for mid in verified:
            stored = self.store.result(mid)
            if stored is not None:
                self.room.results[mid] = stored
        self._refresh(now, None)
        self._publish({"type": "results", "now_wall": now})
        return {"round": round_, "count": len(verified), "verified": verified}

    # -- moving a match -------------------------------------------------------------------------

    def move(self, match_id: Any, to_table: Any, actor: str) -> dict[str, Any]:
        """Move a match to another table, carrying its state if it has begun."""
        m = self.room.by_id.get(match_id) if isinstance(match_id, str) else None
        if m is None:
            raise ActionError(f"no match {match_id!r} in the schedule")
        if m in self.room.drawn:
            raise ActionError(
                f"{match_id} is a call of the draw: move it as a call (POST /api/draw/matches/…/move)",
                "draw.call.not_a_round_match",
                status=409,
            )
        if not isinstance(to_table, str) or not is_valid_id(to_table):
            raise ActionError("to_table: expected a table id (letters, digits, _ . -)")
        if to_table == m.table:
            raise ActionError(f"{match_id} is at table {to_table} already")
        if match_id in self.room.results:
            raise ActionError(f"{match_id} is finished: there is nothing to move")
        there = next((x for x in self.room.schedule if x.round == m.round and x.table == to_table), None)
        if there is not None:
            raise ActionError(
                f"table {to_table} has {there.match_id} ({there.player_a} – {there.player_b}) in round "
                f"{m.round}: move that match first"
            )
        now = self.clock.now_wall()
        self.store.import_schedule([self._moved(m, replace(m, table=to_table), now, actor)], now)
        self.store.audit(actor, "move_match", now, m.table, m.match_id, {"from": m.table, "to": to_table})
        self.store.commit()
        self.room.set_schedule(self.store.schedule())
        self._tick()
        self._publish({"type": "schedule", "now_wall": now})
        return {
            "match_id": m.match_id,
            "from": m.table,
            "to": to_table,
            "carried": self.carries().get(m.match_id),
        }

    def _moved(self, old: ScheduledMatch, new: ScheduledMatch, now: int, actor: str) -> ScheduledMatch:
        """The row ``new`` of a match moving from ``old.table``; what it carries is noted for when
        its new table has it.

        A match its players had begun (checked in, or playing) starts again at the new table from
        now: lateness there counts from the move, not from the round's start."""
        carry = self._carry_of(old, new, now, actor)
        if carry is None:
            return new
        self._keep_carry(old.match_id, carry)
        return replace(new, start_wall=max(new.start_wall, now))

    def _carry_of(
        self, old: ScheduledMatch, new: ScheduledMatch, now: int, actor: str
    ) -> dict[str, Any] | None:
        """What a match begun at ``old.table`` carries to wherever it is played next (None: it
        has not begun there, nothing to carry)."""
        state = self._state_of(old)
        begun = state is not None and (state["phase"] in IN_PLAY or any(state["present"].values()))
        if not begun or state is None:
            return None
        clock = state.get("clock") or {}
        return {
            "from": old.table,
            "to": new.table,
            "actor": actor,
            "wall": now,
            "score": state["score"],
            "seq": state["seq"],
            "length": state["length"] if state["length"] != new.length else None,
            "reserve_ms": clock.get("reserve_ms") if clock.get("enabled") else None,
        }

    def _keep_carry(self, match_id: str, carry: dict[str, Any]) -> None:
        carries = self.carries()
        carries[match_id] = carry
        self.store.set_meta(CARRIES, json.dumps(carries))

    def carry_to_next_device(self, table: str, why: str, actor: str) -> dict[str, Any] | None:
        """The table's device is retired or replaced in the middle of a match: the next device
        to hold the match there takes its last known score, length and clocks, as a moved match
        does (:meth:`carry_moved`), and the TD is told that its score went back. Lateness there
        counts from when the new device took the match (:func:`hub.logic.lateness.timing`). Returns
        what is carried (None: no match begun at the table)."""
        view = self.room.views.get(table)
        mid = view.match_id if view is not None else None
        m = self.room.by_id.get(mid) if isinstance(mid, str) else None
        if m is None or m.table != table or m.match_id in self.room.results:
            return None
        carry = self._carry_of(m, m, self.clock.now_wall(), actor)
        if carry is None:
            return None
        carry["device"] = why
        self._keep_carry(m.match_id, carry)
        self.store.commit()
        log.info(
            "table %s: %s at %s is carried to its next device (%s)", table, m.match_id, carry["score"], why
        )
        return carry

    def carries(self) -> dict[str, dict[str, Any]]:
        raw = self.store.get_meta(CARRIES)
        try:
            data = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}

    def carry_moved(self, now: int) -> None:
        """Send the carried state of each moved match whose new table now holds it (at the tick)."""
        carries = self.carries()
        if not carries:
            return
        left = dict(carries)
        for mid, c in carries.items():
            m = self.room.by_id.get(mid)
            if m is None or m.table != c.get("to") or mid in self.room.results:
                del left[mid]  # moved again, removed or finished meanwhile: nothing to carry
                continue
            view = self.room.views.get(m.table)
            # the state of the table as it is now: not the last one of a device that is gone
            state = view.state_for(mid) if view is not None and view.online and view.state_fresh else None
            if state is None:
                continue
            device = c.get("device")
            if state["phase"] not in (Phase.WAITING, Phase.OPENING):
                # play went on there before the hub could carry: the score is the TD's to correct
                if device and went_lower(c["score"], state["score"]):
                    self.actions.alerts.raise_(
                        carry_failed(m.table, mid, c["score"], c.get("seq"), state), now
                    )
                del left[mid]
                continue
            if device and went_lower(c["score"], state["score"]):
                self.actions.alerts.raise_(carried(m.table, mid, c["score"], c.get("seq"), state), now)
            note = (
                "the last known state before the device change" if device else f"moved from table {c['from']}"
            )
            actor = str(c.get("actor") or "td")
            try:
                if isinstance(c.get("length"), int) and c["length"] != state["length"]:
                    self.actions.td_command(
                        m.table, CommandType.SET_LENGTH, {"length": c["length"], "note": note}, actor
                    )
                if c.get("score") and c["score"] != state["score"]:
                    self.actions.td_command(
                        m.table, CommandType.CORRECT_SCORE, {"score": c["score"], "note": note}, actor
                    )
                reserve = c.get("reserve_ms")
                if isinstance(reserve, dict) and (state.get("clock") or {}).get("enabled"):
                    self.actions.td_command(m.table, CommandType.SET_TIME, {"reserve_ms": reserve}, actor)
            except ActionError as exc:
                log.warning("table %s: carrying %s failed: %s", m.table, mid, exc)
            del left[mid]
        if left != carries:
            self.store.set_meta(CARRIES, json.dumps(left))
            self.store.commit()

    # -- importing a schedule -----------------------------------------------------------------

    def _incoming(
        self, data: str | bytes, choices: Any = None
    ) -> tuple[list[ScheduledMatch], Preview, Resolution]:
        matches = keep_match_ids(
            self.room.schedule,
            parse_schedule(data, default_profile=self.config.profile, profiles=self.room.profiles),
        )
        players = self.room.registry.resolve(matches, _choices(choices))
        states = {}
        for m in self.room.schedule:
            state = self._state_of(m)
            if state is not None:
                states[m.match_id] = state
        pv = preview(
            self.room.schedule, matches, states=states, results=set(self.room.results), players=players
        )
        return matches, pv, players

    def preview(self, data: str | bytes, choices: Any = None) -> dict[str, Any]:
        """What importing this CSV (with these choices for its players) would change (raises
        :class:`hub.tournament.schedule.ScheduleError`, or ActionError for choices that are not a map)."""
        return self._incoming(data, choices)[1].as_dict()

    def import_schedule(self, data: str | bytes, actor: str, choices: Any = None) -> dict[str, Any]:
        """Import a schedule CSV whole, or raise (nothing imported): a bad line
        (:class:`hub.tournament.schedule.ScheduleError`), a player booked twice in a round (ActionError), or
        players the TD has not identified (:class:`PlayersToIdentify`). ``choices``: conflict id
        -> the TD's choice (:mod:`hub.tournament.players`)."""
        matches, pv, players = self._incoming(data, choices)
        if pv.errors:
            raise ActionError("; ".join(pv.errors))
        if players.conflicts:
            raise PlayersToIdentify(players.conflicts)
        now = self.clock.now_wall()
        by_id = self.room.by_id
        rows = []
        for m in matches:
            old = by_id.get(m.match_id)
            moving = old is not None and old.table != m.table and m.match_id not in self.room.results
            rows.append(self._moved(old, m, now, actor) if moving and old is not None else m)
        registry = players.registry.pruned(imported(self.room.schedule, rows))
        added, updated = self.store.import_schedule(rows, now, registry)
        self.store.audit(
            actor,
            "import_schedule",
            now,
            detail={
                "added": added,
                "updated": updated,
                "moved": [x["match_id"] for x in pv.moved],
                "players_new": len(players.new_players),
                "choices": players.chosen,
            },
        )
        self.store.commit()
        self.room.set_schedule(self.store.schedule(), registry)
        self._tick()
        self._publish({"type": "schedule", "now_wall": now})
        return {
            "added": added,
            "updated": updated,
            "matches": len(matches),
            "moved": len(pv.moved),
            "players_new": len(players.new_players),
            "choices": len(players.chosen),
        }


class PlayersToIdentify(ActionError):
    """An import whose file has players the registry cannot resolve by itself: nothing was
    imported; each conflict needs the TD's choice (``conflicts``)."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        n = len(conflicts)
        super().__init__(
            f"{n} player{'s' if n != 1 else ''} to identify before the import: "
            + "; ".join(c.message() for c in conflicts)
        )


def _choices(raw: Any) -> dict[str, str]:
    """The TD's choices as the import takes them: conflict id -> a player's key or "new"."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str | bytes):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ActionError("choices: expected a JSON object (conflict id -> choice)") from None
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise ActionError('choices: expected an object of conflict id -> a player\'s key or "new"')
    return dict(raw)
