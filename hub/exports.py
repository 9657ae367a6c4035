"""Results as files for the organiser: CSV for a spreadsheet or the pairing program, JSON in full.

A pairing or rating program matches players by id, not by a name typed twice: each result carries
the schedule's ``player_a_id`` / ``player_b_id`` (federation or rating ids; empty when the schedule
gave none). The CSV starts with a UTF-8 byte order mark, so that spreadsheet programs read
"Ζωή", "Ёлкин" and "Kovács" as written instead of guessing a legacy code page; the columns are
documented in ``docs/api.md`` (new ones are only ever added at the end).
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
            ]
        )
    return out.getvalue()


def results_json(event: str, results: list[dict[str, Any]]) -> str:
    return json.dumps({"event": event, "results": results}, ensure_ascii=False, indent=2)
