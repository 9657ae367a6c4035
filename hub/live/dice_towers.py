"""Dice fairness in the room: every tower's rolls counted as they arrive, a TD alerted once when a
tower looks biased or misreads, and the figures for the dice page and its export.

The statistics and their thresholds are :mod:`hub.logic.dice_stats` (see docs/dice-fairness.md). What is
counted: every roll a tower read (``roll`` events with ``source`` ``tower``, including a premature
roll the rules refused — the dice fell all the same), and as a misread every ``invalid_roll`` at a
table whose rolls come from a tower. Rolls entered by hand are not evidence about a tower and are
left out. Tallies are kept per table and tower (a tower names itself in the table's status as
``dice.device``; otherwise the table's number stands for it), and stored, so a hub restart loses
nothing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from hub.live.alerts import Alerts
from hub.live.state import RoomState
from hub.logic.conditions import AlertSpec
from hub.logic.dice_stats import ALPHA, MAX_MISREAD_RATE, MIN_ROLLS, DiceTally, Fairness, assess
from hub.storage.store import Store
from rulebook.messages import Envelope
from rulebook.vocab import EventType, RollSource

#: after an alert, a tower still suspect is reported again only after this many more rolls
REALERT_ROLLS = 300


@dataclass(slots=True)
class TowerRecord:
    table: str
    tower: str
    tally: DiceTally
    #: rolls counted when the last alert was raised (None: never)
    alerted_at_rolls: int | None = None
    alerts: int = 0
    #: the table's last roll came from a tower (its misreads count)
    uses_tower: bool = False


class DiceTowers:
    """Tallies of every tower in the room, fed by :meth:`on_event` on the hub's loop."""

    def __init__(self, room: RoomState, store: Store, alerts: Alerts) -> None:
        self.room = room
        self.store = store
        self.alerts = alerts
        self.towers: dict[tuple[str, str], TowerRecord] = {}
        for table, tower, tally, alerted, count in store.dice_tallies(_tally):
            self.towers[(table, tower)] = TowerRecord(table, tower, tally, alerted, count, True)

    def on_event(self, table: str, event: Envelope, now: int) -> None:
        kind = event["type"]
        # a received event: its type's own fields were checked when present (``rulebook.wire``)
        evt = cast(Mapping[str, object], event)
        if kind == EventType.ROLL:
            tower_read = evt.get("source") == RollSource.TOWER
            record = self._record(table)
            record.uses_tower = tower_read
            dice = _dice(evt.get("dice"))
            if not tower_read or dice is None:
                return
            record.tally = record.tally.add(*dice)
        elif kind == EventType.INVALID_ROLL:
            record = self._record(table)
            if not record.uses_tower or evt.get("rejected"):
                return
            record.tally = record.tally.add_misread()
        else:
            return
        self._check(record, now)
        self.store.put_dice_tally(
            record.table,
            record.tower,
            json.dumps(record.tally.as_dict()),
            record.alerted_at_rolls,
            record.alerts,
        )

    def _record(self, table: str) -> TowerRecord:
        tower = self._tower_of(table)
        key = (table, tower)
        record = self.towers.get(key)
        if record is None:
            record = self.towers[key] = TowerRecord(table, tower, DiceTally())
        return record

    def _tower_of(self, table: str) -> str:
        view = self.room.views.get(table)
        status = view.status if view is not None else None
        dice = status.get("dice") if isinstance(status, dict) else None
        device = dice.get("device") if isinstance(dice, dict) else None
        if isinstance(device, str) and 0 < len(device) <= 64 and device.isprintable():
            return device
        return f"table {table}"

    def _check(self, record: TowerRecord, now: int) -> None:
        verdict = assess(record.tally)
        if not (verdict.is_suspect or verdict.misreads_high):
            return
        last = record.alerted_at_rolls
        if last is not None and record.tally.rolls < last + REALERT_ROLLS:
            return
        record.alerted_at_rolls = record.tally.rolls
        record.alerts += 1
        spec = AlertSpec(
            key=f"dice:{record.table}:{record.tower}:{record.alerts}",
            kind="dice",
            urgency="medium",
            message=_alert_text(record, verdict),
            table=record.table,
            match_id=None,
        )
        self.alerts.raise_(spec, now)

    # -- reading ------------------------------------------------------------------------------

    def rows(self) -> list[dict[str, Any]]:
        """One row per table and tower: counts and the tests' outcome, suspect towers first."""
        out = []
        for record in self.towers.values():
            verdict = assess(record.tally)
            out.append(
                {
                    "table": record.table,
                    "tower": record.tower,
                    **record.tally.as_dict(),
                    "fairness": verdict.as_dict(),
                    "alerts": record.alerts,
                }
            )
        rank = {"suspect": 0, "fair": 1, "too_few": 2}
        return sorted(
            out,
            key=lambda r: (
                rank[r["fairness"]["verdict"]] - (1 if r["fairness"]["misreads_high"] else 0),
                _natural(r["table"]),
                r["tower"],
            ),
        )

    def room_total(self) -> dict[str, Any]:
        """All towers' rolls together: a room-wide check, and the figures for the dice page."""
        total = DiceTally()
        for record in self.towers.values():
            total = total.merge(record.tally)
        return {**total.as_dict(), "fairness": assess(total).as_dict()}


THRESHOLDS = {"min_rolls": MIN_ROLLS, "alpha": ALPHA, "max_misread_rate": MAX_MISREAD_RATE}

DICE_CSV_COLUMNS = (
    "table",
    "tower",
    "verdict",
    "rolls",
    "misreads",
    "face_1",
    "face_2",
    "face_3",
    "face_4",
    "face_5",
    "face_6",
    "doubles",
    *(f"sum_{s}" for s in range(2, 13)),
    "p_faces",
    "p_sums",
    "p_doubles",
)


def dice_csv(rows: list[dict[str, Any]]) -> str:
    """The dice page as a spreadsheet: one line per table and tower (columns in docs/api.md)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(DICE_CSV_COLUMNS)
    for r in rows:
        f = r["fairness"]
        w.writerow(
            [
                r["table"],
                r["tower"],
                "misreads" if f["misreads_high"] and f["verdict"] != "suspect" else f["verdict"],
                r["rolls"],
                r["misreads"],
                *(r["faces"][str(face)] for face in range(1, 7)),
                r["doubles"],
                *(r["sums"][str(s)] for s in range(2, 13)),
                *(
                    "" if f[test]["p"] is None else f"{f[test]['p']:.6g}"
                    for test in ("faces", "sums", "doubles")
                ),
            ]
        )
    return out.getvalue()


def _alert_text(record: TowerRecord, verdict: Fairness) -> str:
    where = f"Table {record.table}"
    tower = "" if record.tower == f"table {record.table}" else f" ({record.tower})"
    if verdict.is_suspect:
        tests = {"faces": verdict.faces_p, "sums": verdict.sums_p, "doubles": verdict.doubles_p}
        worst = min(tests, key=lambda k: tests[k] or 1.0)
        return (
            f"{where}: the dice tower{tower} looks biased after {verdict.rolls} rolls "
            f"({worst} p = {tests[worst]:.1g}): check the tower and the dice"
        )
    return (
        f"{where}: the dice tower{tower} could not read {verdict.misread_rate:.0%} of its throws: "
        "clean or realign it"
    )


def _tally(body: str) -> DiceTally:
    data = json.loads(body)
    faces = tuple(int(data["faces"][str(f)]) for f in range(1, 7))
    return DiceTally(
        faces=(faces[0], faces[1], faces[2], faces[3], faces[4], faces[5]),
        sums=tuple(int(data["sums"][str(s)]) for s in range(2, 13)),
        doubles=int(data["doubles"]),
        rolls=int(data["rolls"]),
        misreads=int(data["misreads"]),
    )


def _dice(value: Any) -> tuple[int, int] | None:
    """Two dice 1..6 from an event, or None (a bad event is never counted)."""
    if not (isinstance(value, list) and len(value) == 2):
        return None
    a, b = value
    if all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in (a, b)):
        return a, b
    return None


def _natural(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (10**9, table)
