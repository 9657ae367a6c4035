"""Results as files for the organiser: CSV for a spreadsheet or the pairing program, JSON in full.

A pairing or rating program matches players by id, not by a name typed twice: each result carries
the schedule's ``player_a_id`` / ``player_b_id`` (federation or rating ids; empty when the schedule
gave none). The CSV starts with a UTF-8 byte order mark, so that spreadsheet programs read
"Ζωή", "Ёлкин" and "Kovács" as written instead of guessing a legacy code page; the columns are
documented in ``docs/api.md`` (new ones are only ever added at the end).

A result is what happened: ``end_reason`` says how the match ended (points, time, forfeit,
lateness) and ``decision`` the TD's command that decided it, if one did; every score correction,
made at the table's TD menu or at the hub, is listed with its note, who made it and when
(``corrected``, ``correction_note``, ``corrected_by``, ``corrected_at``).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any

CSV_COLUMNS = (
    "round",
    "table",
    "match_id",
    "player_a",
    "player_b",
    "length",
    "score_a",
    "score_b",
    "winner",
    "end_reason",
    "penalties_a",
    "penalties_b",
    "finished",
    "verified",
    "verified_by",
    "corrected",
    "note",
    "player_a_id",
    "player_b_id",
    "correction_note",
    "corrected_by",
    "corrected_at",
    "decision",
)
#: the UTF-8 byte order mark: spreadsheet programs then read the file as UTF-8
BOM = "\ufeff"


def _iso(wall: int | None) -> str:
    if not wall:
        return ""
    return datetime.fromtimestamp(wall / 1000).astimezone().isoformat(timespec="seconds")


def results_csv(results: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    out.write(BOM)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in results:
        winner = r.get("winner")
        penalties = r.get("penalties") or {}
        w.writerow(
            [
                r["round"],
                r["table"],
                r["match_id"],
                r["player_a"],
                r["player_b"],
                r["length"],
                r["score"]["A"],
                r["score"]["B"],
                r["player_a"] if winner == "A" else r["player_b"] if winner == "B" else "",
                r.get("end_reason") or "",
                penalties.get("A", 0),
                penalties.get("B", 0),
                _iso(r.get("finished_wall")),
                "yes" if r.get("verified") else "no",
                r.get("verified_by") or "",
                "yes" if r.get("corrected") else "no",
                r.get("note") or "",
                r.get("player_a_id") or "",
                r.get("player_b_id") or "",
                *_corrections(r.get("corrections") or []),
                r.get("decision") or "",
            ]
        )
    return out.getvalue()


def _corrections(rows: list[dict[str, Any]]) -> tuple[str, str, str]:
    """Every correction of a result (at the table or at the hub, in the order made): the notes,
    who, and when, each column listing them in the same order, separated by " | "."""
    return (
        " | ".join(str(c.get("note") or "") for c in rows),
        " | ".join(str(c.get("by") or "") for c in rows),
        " | ".join(_iso(c.get("wall")) for c in rows),
    )


def results_json(event: str, results: list[dict[str, Any]]) -> str:
    return json.dumps({"event": event, "results": results}, ensure_ascii=False, indent=2)
