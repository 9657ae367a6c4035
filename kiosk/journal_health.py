"""What the table knows about its journal beyond the journal itself: a marker and an open notice.

Why: a journal can come back damaged (restored only up to its last good input) or lost
altogether (a zero-length or missing file, a data partition replaced, an older card put back).
A table that then started its match again at 0–0 as if new would be believed, so

* the **marker** is a small file next to the journal, written atomically whenever the match
  changes and every :data:`MARK_EVERY` inputs: the current ``match_id``, its last event ``seq``
  and how many inputs the journal held. A journal holding fewer inputs than the marker says
  has lost rows: the table raises a notice instead of quietly playing on;
* the **notice** (``damaged`` or ``lost``) is what the table shows as a banner ("journal damaged
  after input N — call the TD"), reports to the hub in its ``status`` (``journal``, see
  docs/protocol.md) and keeps across restarts until a TD has dealt with the table: a TD
  command ``resume``, ``td_ack`` or ``correct_score`` applied, or another match assigned.

The file is ``journal-health.json`` in the data directory. A damaged or unreadable health file
is logged and treated as absent: it can never stop the table.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final, Literal

from rulebook.messages import Event, JournalNotice
from rulebook.vocab import CommandType, EventType

log = logging.getLogger(__name__)

#: what went wrong with a journal (``status.journal.problem``)
Problem = Literal["damaged", "lost"]

FILE_NAME = "journal-health.json"
#: the marker is rewritten at least this often (in inputs) while nothing else changes
MARK_EVERY = 100
#: TD commands after which the TD has seen the table: the notice is cleared
CLEARING_COMMANDS = frozenset({CommandType.RESUME, CommandType.TD_ACK, CommandType.CORRECT_SCORE})
DAMAGED: Final = "damaged"
LOST: Final = "lost"


@dataclass(frozen=True, slots=True)
class Marker:
    """The last match the journal held, its last event ``seq`` and the journal's length."""

    match_id: str | None
    seq: int
    inputs: int


@dataclass(frozen=True, slots=True)
class Notice:
    """An open journal problem: the table's ``status.journal`` (docs/protocol.md)."""

    #: ``damaged``: restored up to ``after_input``; ``lost``: the journal of ``match_id`` is gone
    problem: Problem
    match_id: str | None
    #: inputs restored (``damaged``) or found (``lost``: usually 0)
    after_input: int
    #: ``lost``: the last event seq the table had published for ``match_id``; else None
    last_seq: int | None
    #: the damaged file kept aside (its name in the data directory), if one was
    aside: str | None
    #: what was wrong, in words (for the TD's log, not translated)
    reason: str
    #: the table's wall clock when it was found (epoch ms; the hub keeps its own receipt time)
    since_wall: int

    def status(self) -> JournalNotice:
        """The notice as the status declares it (``rulebook.messages.JournalNotice``)."""
        return {
            "problem": self.problem,
            "match_id": self.match_id,
            "after_input": self.after_input,
            "last_seq": self.last_seq,
            "aside": self.aside,
            "reason": self.reason,
            "since_wall": self.since_wall,
        }


class JournalHealth:
    """The marker and the notice, kept in ``path`` (``None``: in memory only, for tools)."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self.marker: Marker | None = None
        self.notice: Notice | None = None
        self._load()

    # -- reading ---------------------------------------------------------------------------------

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            self.marker = _marker(data.get("marker"))
            self.notice = _notice(data.get("notice"))
        except (OSError, ValueError, TypeError) as exc:
            log.warning("%s unreadable (%s); starting without it", self.path, exc)
            self.marker = self.notice = None

    # -- changes ---------------------------------------------------------------------------------

    def mark(self, match_id: str | None, seq: int, inputs: int) -> None:
        marker = Marker(match_id, seq, inputs)
        if marker != self.marker:
            self.marker = marker
            self._save()

    def raise_notice(self, notice: Notice) -> None:
        self.notice = notice
        self._save()

    def clear_notice(self) -> None:
        if self.notice is not None:
            self.notice = None
            self._save()

    def due_mark(self, match_id: str | None, inputs: int) -> bool:
        """Whether the marker should be written after this input."""
        marker = self.marker
        return marker is None or marker.match_id != match_id or inputs - marker.inputs >= MARK_EVERY

    def clears(self, match_id: str | None, events: Sequence[Event]) -> bool:
        """Whether these events (of one input) show a TD dealt with the table, or a new match."""
        notice = self.notice
        if notice is None:
            return False
        for event in events:
            kind = event.get("type")
            if kind == EventType.CMD_DONE and event.get("ok") and event.get("cmd") in CLEARING_COMMANDS:
                return True
            if kind == EventType.ASSIGN and "rejected" not in event and match_id != notice.match_id:
                return True
        return False

    def _save(self) -> None:
        if self.path is None:
            return
        data = {
            "marker": asdict(self.marker) if self.marker else None,
            "notice": asdict(self.notice) if self.notice else None,
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(data, ensure_ascii=False))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:  # a full disk must not stop the table; the journal is what counts
            log.warning("cannot write %s: %s", self.path, exc)


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name}: expected an integer >= 0")
    return value


def _opt_str(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name}: expected a string or null")
    return value


def _marker(data: Any) -> Marker | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("marker: expected an object")
    return Marker(
        _opt_str(data.get("match_id"), "match_id"),
        _int(data.get("seq"), "seq"),
        _int(data.get("inputs"), "inputs"),
    )


def _notice(data: Any) -> Notice | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("notice: expected an object")
    problem = data.get("problem")
    if problem != DAMAGED and problem != LOST:
        raise ValueError(f"notice: unknown problem {problem!r}")
    last_seq = data.get("last_seq")
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise ValueError("reason: expected a string")
    return Notice(
        problem=problem,
        match_id=_opt_str(data.get("match_id"), "match_id"),
        after_input=_int(data.get("after_input"), "after_input"),
        last_seq=None if last_seq is None else _int(last_seq, "last_seq"),
        aside=_opt_str(data.get("aside"), "aside"),
        reason=reason,
        since_wall=_int(data.get("since_wall"), "since_wall"),
    )
