"""The tables' "Next:" lines: after a match of the draw, where each of its players goes next, sent
to the table it was played at (``table/{t}/next``, retained, QoS 1; docs/protocol.md §3.8).

The hub's bracket knows it (:func:`hub.draw.next_step`); the table says it in each player's
language on its result screen. Each table's message is worked out again whenever the draw's
bracket or its calls change, and published only when it differs from the one last sent: so it
follows the draw — the opponent known once his match ends, the table once the match is called, a
call moved or swapped, a withdrawal, an undo (the lines withdrawn, an empty retained message,
when the table's match no longer has a result). An event without a draw sends nothing.

Each message is checked against its declaration (:func:`rulebook.wire.parse_next`) before it is
sent: a name too long for the wire is a fault of this table's step (:mod:`hub.live.guard`), not a
message every table would drop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from drivers.hub_link import HubLink
from hub.draw import Bracket, NextStep, State, next_step
from hub.live.calls import Called, DrawCalls
from hub.live.state import RoomState
from rulebook.messages import NextLine
from rulebook.wire import parse_next

log = logging.getLogger("hub")


class NextLines:
    """Publishes each draw table's "Next:" lines as the draw changes (see module doc)."""

    def __init__(self, room: RoomState, draw: DrawCalls, link: Callable[[], HubLink | None]) -> None:
        self.room = room
        self.draw = draw
        self._link = link
        #: table -> the message last published (without its ``wall``); None: withdrawn
        self._sent: dict[str, dict[str, Any] | None] = {}
        #: what the messages were last worked out from (the bracket object and the calls)
        self._from: tuple[Bracket | None, tuple[Called, ...]] | None = None

    def republish(self) -> None:
        """Publish every table's lines again (the hub has reconnected to the broker)."""
        self._sent.clear()
        self._from = None

    def publish(self, now: int) -> set[str]:
        """Send the lines that changed since the last call; returns the tables sent to."""
        link = self._link()
        key = (self.draw.bracket, tuple(self.draw.called.values()))
        if link is None or key == self._from:
            return set()
        wanted = self.messages()
        sent: set[str] = set()
        for table in sorted(wanted.keys() | self._sent.keys()):
            message = wanted.get(table)
            if table in self._sent and self._sent[table] == message:
                continue
            with self.room.guard.table(table, "send its next lines"):
                if message is None:
                    link.clear_next(table)
                else:
                    link.send_next(table, dict(parse_next({**message, "wall": now})))
                self._sent[table] = message
                sent.add(table)
                log.info("table %s: next lines %s", table, "withdrawn" if message is None else "sent")
        self._from = key
        return sent

    def messages(self) -> dict[str, dict[str, Any]]:
        """Each draw table's message: the lines of the latest match of the draw played there."""
        draw, bracket, setup = self.draw, self.draw.bracket, self.draw.setup
        if bracket is None or setup is None:
            return {}
        calls = tuple(c.call for c in draw.called.values())
        latest: dict[str, tuple[int, Called]] = {}
        for called in draw.called.values():
            played = bracket.match(called.call.match)
            if played.state is not State.PLAYED or played.result is None:
                continue
            when = played.result.at
            table = called.call.table
            if table not in latest or latest[table][0] <= when:
                latest[table] = (when, called)
        out: dict[str, dict[str, Any]] = {}
        for table, (_, called) in latest.items():
            a, b = (next_step(bracket, calls, p, called.call.match) for p in called.players)
            out[table] = {"match_id": called.match_id, "A": self._line(a), "B": self._line(b)}
        return out

    def _line(self, step: NextStep) -> NextLine:
        setup = self.draw.setup
        assert setup is not None
        opponent = setup.player(step.opponent).name if step.opponent is not None else None
        return {
            "kind": step.kind,
            "flight": step.flight,
            "round": step.round,
            "table": step.table,
            "opponent": opponent,
            "waits_for": step.waits_for,
            "from_table": step.from_table,
            "left": step.left,
        }
