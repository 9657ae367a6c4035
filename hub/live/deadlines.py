"""When each table must be looked at again: a heap of per-table deadlines (pure, no clock).

The hub does not walk the whole room every second. After it looks at a table (its lateness, its
alerts, its tile) it files the next moment at which something about that table can change with
time alone — the next lateness point, a break's end, the offline grace's end, the projected
finish passing the next round's start — and a tick looks only at the tables whose moment has
come, besides those a message or an action changed. Setting a table's deadline again replaces
the old one (the heap keeps the old entry until it surfaces and is skipped).
"""

from __future__ import annotations

import heapq


class Deadlines:
    """table -> the next time it must be looked at; :meth:`due` hands out those that have come."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, str]] = []
        self._at: dict[str, int] = {}

    def put(self, table: str, when: int | None) -> None:
        """The table's next deadline (None: none, it waits for a message or an action)."""
        if when is None:
            self._at.pop(table, None)
            return
        if self._at.get(table) == when:
            return
        self._at[table] = when
        heapq.heappush(self._heap, (when, table))
        if len(self._heap) > 4 * len(self._at) + 1024:  # too many replaced entries: rebuild
            self._heap = [(w, t) for t, w in self._at.items()]
            heapq.heapify(self._heap)

    def due(self, now: int) -> set[str]:
        """The tables whose deadline is ``now`` or earlier (each forgets its deadline)."""
        out: set[str] = set()
        heap = self._heap
        while heap and heap[0][0] <= now:
            when, table = heapq.heappop(heap)
            if self._at.get(table) == when:
                del self._at[table]
                out.add(table)
        return out

    def when(self, table: str) -> int | None:
        return self._at.get(table)

    def __len__(self) -> int:
        return len(self._at)
