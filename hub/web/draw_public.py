"""What the room and each player may see of the draw: the public board's brackets and a player's
own page (pure: the draw's JSON export and the room's board tiles in, dictionaries out).

Both are cut from the draw's export (``GET /api/draw``, :func:`hub.draw.bracket_json`) so that
they say what the TD's Draw page says, never more: no registry keys or federation ids, no seeds,
positions or random seed, no result's confirmation or verification times. Players are named;
where the page must tell two seats apart it uses a token that means nothing outside one answer
(``e1``, ``e2``… in the draw's order of players). docs/draw.md, "What the room and the players
see", and docs/api.md describe both answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: a draw match id: ``main-r2-m1``
_MATCH_ID = re.compile(r"^(.+)-r(\d+)-m(\d+)$")
#: where a seat's player comes from, as a page may say it (not a round-1 position)
_FROM = ("winner_of", "loser_of")


def tokens(keys: Iterable[str]) -> dict[str, str]:
    """Registry key -> the token an answer names the player by (``e1``, ``e2``…)."""
    return {key: f"e{n}" for n, key in enumerate(keys, start=1)}


def public_draw(doc: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The board's brackets: the export's flights, rounds and matches, players as tokens with a
    ``names`` map (token -> name), and only what the tables and the draw sheet show anyway."""
    tok = tokens(names)
    flights = []
    for f in doc.get("flights") or []:
        item = {k: f[k] for k in ("name", "kind", "profile", "lengths", "size", "feeds") if k in f}
        item["rounds"] = [
            {
                "round": r["round"],
                "length": r["length"],
                "matches": [_public_match(m, tok) for m in r["matches"]],
            }
            for r in f.get("rounds") or []
        ]
        flights.append(item)
    withdrawn = [{"player": tok.get(w["player"])} for w in doc.get("withdrawn") or [] if w["player"] in tok]
    return {"flights": flights, "withdrawn": withdrawn, "names": {tok[k]: n for k, n in names.items()}}


def _public_match(m: Mapping[str, Any], tok: Mapping[str, str]) -> dict[str, Any]:
    result = m.get("result")
    call = m.get("call")
    return {
        "id": m["id"],
        "number": m["number"],
        "state": m["state"],
        "seats": [
            {"from": s["from"], "player": tok.get(s["player"]) if s["player"] else None, "bye": s["bye"]}
            for s in m["seats"]
        ],
        "winner": tok.get(m["winner"]) if m.get("winner") else None,
        "result": None if result is None else {"points": result.get("points")},
        "call": None
        if call is None
        else {"table": call["table"], "called_at": call["called_at"], "start": call["start"]},
    }


# -- a player's page ------------------------------------------------------------------------------


def match_ref(match_id: str) -> dict[str, Any]:
    """A match as a page names it: its flight, round and number (``main-r2-m1``)."""
    m = _MATCH_ID.match(match_id)
    if m is None:
        return {"id": match_id}
    return {"id": match_id, "flight": m.group(1), "round": int(m.group(2)), "number": int(m.group(3))}


#: a table -> the room board's tile of it (None: no such table)
TileOf = Callable[[str], "Mapping[str, Any] | None"]


def _tile_of(match_id: str, table: str, tiles: TileOf) -> Mapping[str, Any] | None:
    """The board's tile of a called match: its table holding it, or a call again of it
    (``main-r2-m1-2``)."""
    t = tiles(table)
    held = str(t.get("match_id") or "") if t is not None else ""
    return t if held == match_id or held.startswith(match_id + "-") else None


def _live(tile: Mapping[str, Any] | None, side: str) -> dict[str, Any] | None:
    if tile is None:
        return None
    raw = tile.get("score")
    score: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    other = "B" if side == "A" else "A"
    return {
        "match_id": tile.get("match_id"),
        "status": tile.get("status"),
        "phase": tile.get("phase"),
        "game": tile.get("game"),
        "crawford": bool(tile.get("crawford")),
        "score": {"me": score.get(side), "opponent": score.get(other)},
    }


def _step(m: Mapping[str, Any], seat: int, names: Mapping[str, str], tiles: TileOf) -> dict[str, Any]:
    """One match of the player's path, as the player sees it (``me``/``opponent``, not A/B)."""
    mine, theirs = m["seats"][seat], m["seats"][1 - seat]
    opponent = names.get(theirs["player"], theirs["player"]) if theirs["player"] else None
    points = (m.get("result") or {}).get("points")
    won = m.get("winner") == mine["player"] if m.get("winner") else None
    out: dict[str, Any] = {
        **match_ref(m["id"]),
        "length": m["length"],
        "state": m["state"],
        "side": "A" if seat == 0 else "B",
        "opponent": opponent,
        "opponent_from": None
        if opponent or theirs["bye"]
        else {
            k: match_ref(v) for k, v in (theirs.get("from") or {}).items() if k in ("winner_of", "loser_of")
        },
        "bye": bool(theirs["bye"]),
        "won": won,
        "points": None
        if not points or won is None
        else {"me": points[0] if won else points[1], "opponent": points[1] if won else points[0]},
        "table": None,
        "start": None,
        "live": None,
    }
    call = m.get("call")
    if call is not None:
        out["table"], out["start"] = str(call["table"]), call["start"]
        if m["state"] == "ready":
            out["live"] = _live(_tile_of(m["id"], str(call["table"]), tiles), out["side"])
    return out


def player_view(doc: Mapping[str, Any], key: str, names: Mapping[str, str], tiles: TileOf) -> dict[str, Any]:
    """A player's page: the matches of their path in the draw's order (each with its opponent
    and result), the next one (its table, opponent, live score from ``tiles``, or what it waits
    for), and how their event stands (``playing``, ``waiting``, ``won``, ``out``, ``withdrawn``)."""
    path: list[dict[str, Any]] = []
    for f in doc.get("flights") or []:
        for r in f.get("rounds") or []:
            for m in r["matches"]:
                seats = [s["player"] for s in m["seats"]]
                if key in seats:
                    path.append(_step({**m, "length": r["length"]}, seats.index(key), names, tiles))
    upcoming = [s for s in path if s["state"] in ("waiting", "ready")]
    nxt = upcoming[0] if upcoming else None
    withdrawn = any(w.get("player") == key for w in doc.get("withdrawn") or [])
    if withdrawn:
        standing = "withdrawn"
    elif nxt is not None:
        standing = "playing" if nxt["table"] else "waiting"
    elif path and path[-1]["won"] and _is_final(doc, path[-1]):
        standing = "won"
    else:
        standing = "out"
    return {"name": names.get(key, key), "standing": standing, "next": nxt, "path": path}


def _is_final(doc: Mapping[str, Any], step: Mapping[str, Any]) -> bool:
    for f in doc.get("flights") or []:
        if f.get("name") == step.get("flight"):
            return bool(f.get("rounds")) and f["rounds"][-1]["round"] == step.get("round")
    return False
