"""Duplicate and gap detection for table events, per ``(table, match_id)`` (pure, no I/O).

API::

    tracker = SeqTracker(first_seq=1)
    kind, missing = tracker.accept(table, match_id, seq)   # Accepted("new"|"duplicate"|"gap", range)
    tracker.restore(table, match_id, upto, seen=())        # from the hub's own store after a restart
    tracker.contiguous(table, match_id) -> int             # every seq <= this one was received
    tracker.holes(table, match_id) -> list[range]          # what is still missing below the top
    tracker.forget(table) ; tracker.forget_match(table, match_id)

Why: events travel at QoS 1, so a table may deliver one twice (a re-send after a lost PUBACK, a
resync), and a hub that was away may have missed some. The hub applies an event only when it is
``new`` or ``gap``; on ``gap`` it applies it *and* asks the table for a resync from
``missing.start``. Each hole is reported once, when the event that reveals it arrives; events
that later fill a hole are ``new``. Keys may use ``match_id`` ``None`` (events before any
assignment). Memory per key is the holes only, not every seq seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

Kind = Literal["new", "duplicate", "gap"]


class Accepted(NamedTuple):
    kind: Kind
    missing: range
    """For ``gap``: the seqs between the previous highest and this one; otherwise empty."""


@dataclass
class _Match:
    contiguous: int  # every seq <= contiguous was received
    top: int  # highest seq received
    above: set[int] = field(default_factory=set)  # received seqs in (contiguous + 1, top]


_NONE = range(0)


class SeqTracker:
    """Per ``(table, match_id)`` memory of which event seqs arrived (see module doc)."""

    def __init__(self, first_seq: int = 1) -> None:
        self.first_seq = first_seq
        self._matches: dict[tuple[str, str | None], _Match] = {}

    def _get(self, table: str, match_id: str | None) -> _Match:
        key = (table, match_id)
        state = self._matches.get(key)
        if state is None:
            state = self._matches[key] = _Match(self.first_seq - 1, self.first_seq - 1)
        return state

    def accept(self, table: str, match_id: str | None, seq: int) -> Accepted:
        """Record ``seq`` and say whether it is new, a duplicate, or new after a gap."""
        m = self._get(table, match_id)
        if seq <= m.contiguous or seq in m.above:
            return Accepted("duplicate", _NONE)
        if seq == m.contiguous + 1:
            m.contiguous = seq
            while m.contiguous + 1 in m.above:
                m.contiguous += 1
                m.above.discard(m.contiguous)
            m.top = max(m.top, seq)
            return Accepted("new", _NONE)
        m.above.add(seq)
        if seq > m.top + 1:
            missing = range(m.top + 1, seq)
            m.top = seq
            return Accepted("gap", missing)
        m.top = max(m.top, seq)
        return Accepted("new", _NONE)

    def restore(self, table: str, match_id: str | None, upto: int, seen: tuple[int, ...] = ()) -> None:
        """Start from stored knowledge: everything up to ``upto`` and the ``seen`` seqs above it."""
        m = _Match(upto, upto)
        self._matches[(table, match_id)] = m
        for seq in sorted(seen):
            if seq > upto:
                self.accept(table, match_id, seq)

    def contiguous(self, table: str, match_id: str | None) -> int:
        m = self._matches.get((table, match_id))
        return self.first_seq - 1 if m is None else m.contiguous

    def holes(self, table: str, match_id: str | None) -> list[range]:
        """The missing seqs below the highest received, as ranges in increasing order."""
        m = self._matches.get((table, match_id))
        if m is None:
            return []
        out: list[range] = []
        start = m.contiguous + 1
        for seq in sorted(m.above):
            if seq > start:
                out.append(range(start, seq))
            start = seq + 1
        return out

    def forget(self, table: str) -> None:
        """Drop the memory of every match of ``table``."""
        for key in [k for k in self._matches if k[0] == table]:
            del self._matches[key]

    def forget_match(self, table: str, match_id: str | None) -> None:
        """Drop the memory of one match (e.g. once its result is final and stored)."""
        self._matches.pop((table, match_id), None)
