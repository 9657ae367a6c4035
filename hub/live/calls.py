"""The draw, live: the bracket fed with the tables' results, the next matches called to the free
tables, and the TD's actions on the draw (docs/draw.md, "The draw in the hub").

The bracket is never edited in place: at every tick it is built again from what the hub holds —
the draw's setup, the calls that stand and the results of their matches as the tables reported
them (a result counts once both players confirmed it at the table, or the TD verified it) — so a
restarted hub, or one whose memory was read back from the store, has the same bracket. The pure
planner (:func:`hub.draw.plan_calls`) says which matches to call to which free tables; each call
is recorded and becomes a scheduled match in :attr:`RoomState.drawn` (one model: it is assigned,
timed and checked for lateness like any scheduled match, and where its players are is known to
the presence index). Its start is the call time plus the TD's walking grace.

A call's scheduled match id is the draw's match id (``main-r2-m1``); a match called again after
its call was withdrawn (an undo, a withdrawal) gets ``main-r2-m1-2``, ``-3``…: a table's events
and results are kept by match id, and the old ones are not the new match's.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hub.draw import (
    Bracket,
    BracketMatch,
    Call,
    DrawError,
    EntryFlight,
    Holds,
    Result,
    TableState,
    Withdrawal,
    bracket_csv,
    bracket_json,
    call_changes,
    moved_call,
    plan_calls,
    swapped_calls,
)
from hub.live.actions import ActionError
from hub.live.clock import Clock
from hub.live.draw_setup import SETUP_KEY, DrawSetup, setup_from_json
from hub.live.state import RoomState
from hub.storage.store import Store
from hub.tournament.names import fold
from hub.tournament.players import Player, Registry, SeatRef
from hub.tournament.schedule import ScheduledMatch

log = logging.getLogger("hub")


@dataclass(frozen=True, slots=True)
class Called:
    """A call that stands, and the scheduled match it is played as."""

    call: Call
    match_id: str
    #: its players (registry keys) at seats A and B, as they were when it was called
    players: tuple[str, str]


def refused(exc: DrawError, status: int = 409) -> ActionError:
    """The draw's refusal as the TD's action answers it (its code, its values)."""
    return ActionError(str(exc), exc.code, status=status, detail={k: str(v) for k, v in exc.params.items()})


class DrawCalls:
    """The event's draw in the running hub (see module doc); without a draw it does nothing."""

    def __init__(
        self,
        room: RoomState,
        store: Store,
        clock: Clock,
        *,
        tick: Callable[[], None],
        results_changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.room = room
        self._results_changed = results_changed
        self.store = store
        self.clock = clock
        self._tick = tick
        self.setup: DrawSetup | None = None
        self.bracket: Bracket | None = None
        #: scheduled match id -> the call that stands
        self.called: dict[str, Called] = {}
        #: scheduled match id -> a call withdrawn (an undo, a withdrawal): its match stays in the
        #: schedule, released, so that its table is given its next match (forced if need be)
        self.voided: dict[str, Called] = {}
        #: every scheduled match id a call ever had (a void one's is never used again)
        self._used: set[str] = set()
        self.holds = Holds()
        self._withdrawals: frozenset[Withdrawal] = frozenset()
        #: what :attr:`bracket` was last built from
        self._built_from: tuple[Any, ...] | None = None
        self.load()

    # -- what the store holds -----------------------------------------------------------------

    def load(self) -> None:
        """The draw as stored (at start, and after a new setup)."""
        text = self.store.get_meta(SETUP_KEY)
        if not text:
            return
        try:
            setup = setup_from_json(text)
        except (ValueError, KeyError, TypeError) as exc:
            log.error("the stored draw cannot be read (%s): the draw does not run", exc)
            return
        self.setup = setup
        rows = self.store.draw_calls()
        self._used = {r["match_id"] for r in rows}
        made = {
            r["match_id"]: Called(
                Call(r["draw_match"], r["table"], r["called_wall"], r["start_wall"]),
                r["match_id"],
                (r["player_a"], r["player_b"]),
            )
            for r in rows
            if setup.event.has_match(r["draw_match"])
        }
        void = {r["match_id"] for r in rows if r["void_wall"] is not None}
        self.called = {k: c for k, c in made.items() if k not in void}
        self.voided = {k: c for k, c in made.items() if k in void}
        holds = self.store.draw_holds()
        self.holds = Holds(
            frozenset(n for k, n in holds if k == "flight"), frozenset(n for k, n in holds if k == "match")
        )
        self._withdrawals = frozenset(Withdrawal(p, at) for p, at in self.store.draw_withdrawals().items())
        self.bracket = Bracket.build(setup.event, setup.draws, withdrawals=self._withdrawals)
        self._show()
        self.bracket = self._derive() or self.bracket

    def define(self, setup: DrawSetup, actor: str) -> dict[str, Any]:
        """The TD's draw file: the setup stored and run. The same setup again changes nothing;
        another one is refused once a match has been called (the draw is under way)."""
        text = setup.as_json()
        if self.store.get_meta(SETUP_KEY) == text:
            return {"draw": "unchanged"}
        if self._used:
            raise ActionError(
                "the draw is under way (matches have been called): it cannot be replaced",
                "draw.under_way",
                status=409,
            )
        now = self.clock.now_wall()
        self.store.set_meta(SETUP_KEY, text)
        self.store.audit(
            actor, "draw_defined", now, None, None, {"flights": [f.name for f in setup.event.flights]}
        )
        self.store.commit()
        self.load()
        self._tick()
        return {
            "draw": "defined",
            "flights": [f.name for f in setup.event.flights],
            "matches": len(setup.event.matches),
        }

    # -- the bracket, from what the hub holds ---------------------------------------------------

    def _calls(self) -> tuple[Call, ...]:
        return tuple(c.call for c in self.called.values())

    def _result(self, called: Called, bm: BracketMatch) -> Result | None:
        """The call's match's result as the tables reported it, if it counts for the draw."""
        r = self.room.results.get(called.match_id)
        if r is None or r.get("winner") not in ("A", "B") or set(bm.players) != set(called.players):
            return None
        confirmed = r.get("confirmed") or {}
        if not (r.get("verified") or (confirmed.get("A") and confirmed.get("B"))):
            return None
        keys = called.players
        winner = keys[0] if r["winner"] == "A" else keys[1]
        if winner not in bm.players:
            return None
        score = r.get("score") or {}
        # the model's points are the winner's, then the loser's (Result; the exports' winner_points)
        side = r["winner"]
        points = (score.get(side), score.get("B" if side == "A" else "A"))
        whole = tuple(p for p in points if type(p) is int and p >= 0)
        return Result(
            called.call.match,
            winner,
            r.get("finished_wall") or called.call.called_at,
            verified_at=r.get("verified_wall"),
            points=(whole[0], whole[1]) if len(whole) == 2 else None,
        )

    def _inputs(self) -> tuple[Any, ...]:
        """What the bracket is built from, to build it again only when that changed."""
        results = self.room.results
        return (
            self._withdrawals,
            tuple(
                (
                    c.match_id,
                    c.call,
                    str(r.get("winner")),
                    r.get("verified_wall"),
                    repr(r.get("confirmed")),
                    repr(r.get("score")),
                )
                for c in self.called.values()
                if (r := results.get(c.match_id)) is not None
            ),
        )

    def _derive(self) -> Bracket | None:
        """The bracket with every result that counts, built from scratch (None: it cannot be —
        a correction at a table that later results depend on: the TD undoes them first)."""
        setup = self.setup
        if setup is None:
            return None
        inputs = self._inputs()
        if inputs == self._built_from and self.bracket is not None:
            return self.bracket
        bracket = Bracket.build(setup.event, setup.draws, withdrawals=self._withdrawals)
        results: list[Result] = []
        # in the event's order (flight, round, number): each match's players are known from the
        # results before it
        order = {m.id: i for i, m in enumerate(setup.event.matches)}
        for called in sorted(self.called.values(), key=lambda c: order[c.call.match]):
            r = self._result(called, bracket.match(called.call.match))
            if r is None:
                continue
            results.append(r)
            try:
                bracket = Bracket.build(setup.event, setup.draws, results, self._withdrawals)
            except DrawError as exc:
                log.warning("the draw cannot take the result of %s as it is: %s", called.match_id, exc)
                return None
        self._built_from = inputs
        return bracket

    # -- the tick ---------------------------------------------------------------------------------

    def _tables(self) -> list[TableState]:
        """The draw's tables: free when online, automation not suspended, no match to play."""
        room, setup = self.room, self.setup
        assert setup is not None
        out = []
        for t in setup.tables:
            view = room.views.get(t)
            in_service = view is not None and view.online and t not in room.suspended
            out.append(TableState(t, is_free=in_service and t not in room.current))
        return out

    def step(self, now: int) -> set[str]:
        """Feed the results in, call what can be called now. Returns the tables given a match."""
        if self.setup is None or self.bracket is None:
            return set()
        self.bracket = self._derive() or self.bracket
        new = plan_calls(self.bracket, self._calls(), self._tables(), self.setup.settings, self.holds, now)
        if not new:
            return set()
        for call in new:
            match_id = self._new_id(call.match)
            seated = self.bracket.match(call.match).players
            players = (seated[0], seated[1])
            self.called[match_id] = Called(call, match_id, players)
            self._used.add(match_id)
            self.store.put_draw_call(match_id, call.match, call.table, players, call.called_at, call.start)
            self.store.audit(
                "hub",
                "draw_call",
                now,
                call.table,
                match_id,
                {
                    "match": call.match,
                    "players": list(self.bracket.match(call.match).players),
                    "start": call.start,
                },
            )
            log.info("draw: %s called to table %s", call.match, call.table)
        self._show()
        return {c.table for c in new}

    def _new_id(self, draw_match: str) -> str:
        if draw_match not in self._used:
            return draw_match
        n = 2
        while f"{draw_match}-{n}" in self._used:
            n += 1
        return f"{draw_match}-{n}"

    def _show(self) -> None:
        """The calls that stand, as scheduled matches in the room (and their seats in its registry)."""
        setup, bracket = self.setup, self.bracket
        if setup is None or bracket is None:
            return
        base = self.room.registry
        players = dict(base.players)
        for p in setup.players:
            known = players.get(p.key)
            if known is None or known.name != p.name or known.fed_id != p.fed_id:
                players[p.key] = Player(p.key, p.fed_id, p.name, fold(p.name))
        seats = dict(base.seats)
        drawn: list[ScheduledMatch] = []
        for called in [*self.voided.values(), *self.called.values()]:
            call = called.call
            a, b = (setup.player(k) for k in called.players)
            m = setup.event.match(call.match)
            flight = setup.event.flight(m.flight)
            drawn.append(
                ScheduledMatch(
                    match_id=called.match_id,
                    round=f"{m.flight}-r{m.round}",
                    table=call.table,
                    player_a=a.name,
                    player_b=b.name,
                    length=m.length,
                    start_wall=call.start,
                    clock=setup.clock,
                    profile=flight.profile,
                    final=m.round == setup.event.rounds(m.flight) and isinstance(flight, EntryFlight),
                    player_a_id=a.fed_id,
                    player_b_id=b.fed_id,
                )
            )
            seats[(called.match_id, "A")] = SeatRef(a.key, a.name, a.fed_id)
            seats[(called.match_id, "B")] = SeatRef(b.key, b.name, b.fed_id)
        self.room.set_drawn(drawn, Registry(players.values(), seats))

    # -- the TD's actions (docs/draw.md, "The TD's actions") -----------------------------------

    def _running(self) -> tuple[DrawSetup, Bracket]:
        if self.setup is None or self.bracket is None:
            raise ActionError("this event has no draw", "draw.none", status=404)
        return self.setup, self.bracket

    def _done(self, actor: str, action: str, detail: dict[str, Any], table: str | None = None) -> None:
        self.store.audit(actor, action, self.clock.now_wall(), table, None, detail)
        self.store.commit()
        self._show()
        self._tick()

    def hold_flight(self, flight: str, held: bool, actor: str) -> dict[str, Any]:
        """Hold a flight (no match of it is called until it is resumed), or resume it."""
        setup, _ = self._running()
        try:
            setup.event.flight(flight)
        except DrawError as exc:
            raise refused(exc, 404) from None
        flights = self.holds.flights | {flight} if held else self.holds.flights - {flight}
        self.holds = replace(self.holds, flights=flights)
        self.store.set_draw_hold("flight", flight, held)
        self._done(actor, "draw_hold_flight" if held else "draw_resume_flight", {"flight": flight})
        return {"flight": flight, "held": held}

    def hold_match(self, match: str, held: bool, actor: str) -> dict[str, Any]:
        """Hold one match (it is not called until released), or release it."""
        setup, _ = self._running()
        if not setup.event.has_match(match):
            raise ActionError(f"no match {match!r} in the draw", "draw.match.unknown", status=404)
        matches = self.holds.matches | {match} if held else self.holds.matches - {match}
        self.holds = replace(self.holds, matches=matches)
        self.store.set_draw_hold("match", match, held)
        self._done(actor, "draw_hold_match" if held else "draw_release_match", {"match": match})
        return {"match": match, "held": held}

    def _changed_calls(self, calls: tuple[Call, ...]) -> list[Called]:
        """The standing calls whose table ``calls`` changes. Each is withdrawn (its match released,
        so its old table is cleared) and made again at its new table under a new id, its call and
        start times kept: the new table takes it even if it still held the other one, unplayed
        (the assignment is forced, as after any release)."""
        now = self.clock.now_wall()
        by_match = {c.match: c for c in calls}
        changed = []
        for called in list(self.called.values()):
            new_call = by_match.get(called.call.match)
            if new_call is None or new_call == called.call:
                continue
            self._withdraw_call(called, now)
            new_id = self._new_id(new_call.match)
            self._used.add(new_id)
            self.called[new_id] = Called(new_call, new_id, called.players)
            self.store.put_draw_call(
                new_id, new_call.match, new_call.table, called.players, new_call.called_at, new_call.start
            )
            changed.append(self.called[new_id])
        return changed

    def _withdraw_call(self, called: Called, now: int) -> None:
        """A call no longer stands: its match released (its table told), its result dropped."""
        del self.called[called.match_id]
        self.voided[called.match_id] = called
        self.store.void_draw_call(called.match_id, now)
        self.store.delete_result(called.match_id)
        if self.room.results.pop(called.match_id, None) is not None:
            self._results_changed()
        self.store.release(called.match_id, "hub", now)
        self.room.released.add(called.match_id)

    def move(self, match: str, table: Any, actor: str) -> dict[str, Any]:
        """Move a standing call to another table (free, in service): its times stay."""
        _, bracket = self._running()
        if not isinstance(table, str):
            raise ActionError("table: expected a table id")
        try:
            calls = moved_call(bracket, self._calls(), self._tables(), match, table)
        except DrawError as exc:
            raise refused(exc) from None
        changed = self._changed_calls(calls)
        self._done(actor, "draw_move_call", {"match": match, "table": table}, table)
        return {"moved": [{"match": c.call.match, "table": c.call.table} for c in changed]}

    def swap(self, match_a: Any, match_b: Any, actor: str) -> dict[str, Any]:
        """Swap the tables of two standing calls."""
        _, bracket = self._running()
        if not isinstance(match_a, str) or not isinstance(match_b, str):
            raise ActionError("a, b: expected two match ids")
        try:
            calls = swapped_calls(bracket, self._calls(), match_a, match_b)
        except DrawError as exc:
            raise refused(exc) from None
        changed = self._changed_calls(calls)
        self._done(actor, "draw_swap_calls", {"a": match_a, "b": match_b})
        return {"moved": [{"match": c.call.match, "table": c.call.table} for c in changed]}

    def _void(self, old: Bracket, new: Bracket, now: int) -> list[str]:
        """Withdraw the calls an undo or a withdrawal voids (their tables are told, their results
        dropped); the planner calls those matches again when they can be. Returns the matches
        whose state changed, for the TD."""
        by_draw = {c.call.match: c for c in self.called.values()}
        changes = call_changes(old, new, self._calls())
        for change in changes:
            if change.voids_call() and change.call is not None:
                self._withdraw_call(by_draw[change.call.match], now)
        return [c.after.id for c in changes]

    def undo(self, match: str, actor: str) -> dict[str, Any]:
        """A wrong result taken away: the match is to be played again (called again when it can
        be), and what depended on it is derived again. Refused while a later result depends on it."""
        _, bracket = self._running()
        now = self.clock.now_wall()
        try:
            new = bracket.undone(match)
        except DrawError as exc:
            raise refused(
                exc, 404 if exc.code in ("draw.match.unknown", "draw.result.none") else 409
            ) from None
        changed = self._void(bracket, new, now)
        self.bracket = new
        self._done(actor, "draw_undo", {"match": match, "changed": changed})
        return {"undone": match, "changed": changed}

    def withdraw(self, player: str, actor: str) -> dict[str, Any]:
        """A player out of the event: every match of his not decided yet is a walkover."""
        _, bracket = self._running()
        now = self.clock.now_wall()
        try:
            new = bracket.with_withdrawal(player, now)
        except DrawError as exc:
            raise refused(exc, 404 if exc.code == "draw.player.unknown" else 409) from None
        self._withdrawals = new.withdrawals
        self.store.set_draw_withdrawal(player, now)
        changed = self._void(bracket, new, now)
        self.bracket = new
        self._done(actor, "draw_withdraw", {"player": player, "changed": changed})
        return {"withdrawn": player, "changed": changed}

    # -- the exports ----------------------------------------------------------------------------

    def _ids(self) -> dict[str, str]:
        assert self.setup is not None
        return {p.key: p.fed_id for p in self.setup.players if p.fed_id}

    def as_json(self) -> str:
        """The export, with the TD's holds: each flight's and each match's ``held`` (what the
        Draw page shows and lets the TD resume; the board and the players' pages leave it out)."""
        _, bracket = self._running()
        doc = json.loads(bracket_json(bracket, self._calls(), self._ids()))
        for f in doc["flights"]:
            f["held"] = f["name"] in self.holds.flights
            for r in f["rounds"]:
                for m in r["matches"]:
                    m["held"] = m["id"] in self.holds.matches
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    def as_csv(self) -> str:
        _, bracket = self._running()
        return bracket_csv(bracket, self._calls(), self._ids())
