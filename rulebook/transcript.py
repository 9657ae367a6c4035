"""Match transcripts: the whole story of a match, built from the table's events.

A transcript is what a TD or an arbiter reads after a dispute, and what a player keeps: every
game's start and end, each cube action, every roll (with a tower or entered by hand), every clock
press with the time that turn used, breaks, pauses, penalties and the TD's actions, in order and
with their times. Recording a match is allowed (WBGF 1.7 ii, 3.8); nothing here aids play.

The same events exist at the table (replayed from its journal) and at the hub (as received), so
one pure builder serves ``bgtable transcript`` and the dashboard. Three renderings:

* ``to_json``: the transcript as data (a dict, JSON-ready);
* ``to_text``: a readable, printable page;
* ``to_mat``: the part a backgammon match file can carry, in the Jellyfish ``.mat`` layout that
  GNU Backgammon and eXtreme Gammon read: the header tags, each game's score, dice and cube
  actions, and who won how many points. The table does not see the checkers, so the moves are
  left blank for a transcriber to fill in before the file is analysed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any

#: events that are only plumbing for the hub and the screen: not part of a match's story
_SILENT = frozenset({"tick", "assign", "invalid"})
#: TD commands, named as a TD reads them
_COMMAND_WORDS = {
    "penalty": "penalty",
    "forfeit": "forfeit",
    "waive": "waiver",
    "start_clock": "clock started for the late player",
    "set_time": "time set",
    "impose_clock": "clock imposed",
    "set_length": "match length corrected",
    "correct_score": "score corrected",
    "resolve_flag": "time flag resolved",
    "td_ack": "TD at the table",
    "forbid_double": "no more doubling in this game",
    "force_double": "a double the player must make",
    "crawford_double": "the leader's choice about a double in the Crawford game",
    "double_loss": "both players lose the match",
}


@dataclass(slots=True)
class GameSummary:
    """One game as the transcript's table of games shows it."""

    game: int
    score_before: dict[str, int]
    crawford: bool = False
    started_wall: int | None = None
    first: str | None = None
    opening: list[int] | None = None
    winner: str | None = None
    kind: str | None = None
    points: int | None = None
    cube: int | None = None
    resigned: bool = False
    ended_wall: int | None = None
    rolls: int = 0
    #: clock time each side used in this game (sum of its turns), ms
    used_ms: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "score_before": dict(self.score_before),
            "crawford": self.crawford,
            "started_wall": self.started_wall,
            "opening": {"dice": self.opening, "first": self.first} if self.opening else None,
            "result": None
            if self.winner is None
            else {
                "winner": self.winner,
                "kind": self.kind,
                "points": self.points,
                "cube": self.cube,
                "resigned": self.resigned,
                "ended_wall": self.ended_wall,
            },
            "rolls": self.rolls,
            "used_ms": dict(self.used_ms),
        }


@dataclass(slots=True)
class _Walk:
    """What :func:`build` keeps while it walks a match's events in order."""

    score: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    games: list[GameSummary] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    game_no: int = 0
    #: when the last turn began (a press, or a game's opening roll), and the pauses since then
    last_boundary: int | None = None
    paused_since: int | None = None
    paused_ms: int = 0
    result: dict[str, Any] | None = None

    def add(self, event: str, e: Mapping[str, Any], **fields: Any) -> None:
        self.entries.append(_entry(event, e, self.game_no, **fields))

    def rescore(self, value: Any) -> None:
        """The score an event carries, when it carries one."""
        score = _score(value)
        if score is not None:
            self.score = score


def build(events: Iterable[Mapping[str, Any]], info: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The transcript of one match from its events (in ``seq`` order; duplicates ignored).

    ``info`` is what the events do not say: a state snapshot of the match (``players``,
    ``length``, ``profile``, ``table``, ``round``, ``clock.enabled``, ``winner``...), or the
    schedule's row. Missing pieces stay empty; a transcript is never refused.
    """
    info = info or {}
    w = _Walk()
    match_id = info.get("match_id")
    for e in _in_order(events):
        kind = e.get("type")
        if not isinstance(kind, str):
            continue
        match_id = match_id or e.get("match_id")
        if e.get("rejected"):
            w.add("refused", e, input=kind, reason=str(e["rejected"])[:200])
        elif kind not in _SILENT:
            _ON.get(kind, _on_other)(w, e, _int(e.get("at")), _int(e.get("wall")))
    result = w.result
    if result is None and (info.get("winner") in ("A", "B") or info.get("end_reason")):
        result = {
            "winner": _side(info.get("winner")),
            "end_reason": info.get("end_reason"),
            "score": _score(info.get("score")),
        }
    clock = info.get("clock")
    return {
        "match_id": match_id,
        "table": info.get("table"),
        "round": info.get("round"),
        "length": _int(info.get("length")),
        "profile": info.get("profile"),
        "cube_limit": _cube_limit(info.get("profile")),
        "clock": bool(clock.get("enabled")) if isinstance(clock, Mapping) else None,
        "players": _players(info),
        "result": result,
        "games": [g.as_dict() for g in w.games],
        #: the score as the events leave it (the result's, once the match is over)
        "score": dict(w.score),
        "entries": w.entries,
    }


# -- what each event adds to the transcript ------------------------------------------------------

_On = Callable[[_Walk, Mapping[str, Any], int | None, int | None], None]


def _on_opening_roll(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    if e.get("tie"):
        w.add("opening_tie", e, dice=e.get("dice"))
        return
    w.game_no = _int(e.get("game")) or w.game_no + 1
    summary = GameSummary(
        game=w.game_no,
        score_before=dict(w.score),
        crawford=bool(e.get("crawford")),
        started_wall=wall,
        first=_side(e.get("first")),
        opening=_dice(e.get("dice")),
    )
    w.games.append(summary)
    w.last_boundary, w.paused_ms, w.paused_since = at, 0, None
    w.add(
        "game_start",
        e,
        first=summary.first,
        dice=summary.opening,
        crawford=summary.crawford,
        score=dict(w.score),
    )


def _on_press(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    side = _side(e.get("side"))
    used = None
    if at is not None and w.last_boundary is not None:
        used = max(0, at - w.last_boundary - w.paused_ms)
        if w.games and side in ("A", "B") and w.games[-1].winner is None:
            w.games[-1].used_ms[side] += used
    w.last_boundary, w.paused_ms = at, 0
    w.add("press", e, side=side, used_ms=used)


def _on_roll(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    if w.games:
        w.games[-1].rolls += 1
    w.add(
        "roll",
        e,
        side=_side(e.get("side")),
        dice=_dice(e.get("dice")),
        source=e.get("source"),
        early=bool(e.get("premature")),
    )


def _on_double(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.add(
        "double",
        e,
        side=_side(e.get("side")),
        value=_int(e.get("value")),
        premature=bool(e.get("premature")),
        crawford=bool(e.get("crawford")),
        forced=bool(e.get("forced")),
    )


def _on_take(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.add("take", e, side=_side(e.get("side")), value=_int(e.get("value")))


def _on_game_over(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.rescore(e.get("score"))
    if w.games:
        g = w.games[-1]
        g.winner, g.kind = _side(e.get("winner")), str(e.get("kind") or "")
        g.points, g.cube = _int(e.get("points")), _int(e.get("cube"))
        g.resigned, g.ended_wall = bool(e.get("resigned")), wall
    w.add(
        "game_over",
        e,
        winner=_side(e.get("winner")),
        kind=e.get("kind"),
        points=_int(e.get("points")),
        cube=_int(e.get("cube")),
        resigned=bool(e.get("resigned")),
        score=dict(w.score),
    )


def _on_undo(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.rescore(e.get("score"))
    if w.games and w.games[-1].winner is not None and w.games[-1].game == w.game_no:
        g = w.games[-1]
        g.winner = g.kind = g.points = g.cube = g.ended_wall = None
        g.resigned = False
    w.result = None
    w.add("undo", e, score=dict(w.score))


def _on_pause(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.paused_since = at
    w.add("pause", e, reason=e.get("reason"), side=_side(e.get("side")))


def _on_resume(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    if w.paused_since is not None and at is not None:
        w.paused_ms += max(0, at - w.paused_since)
    w.paused_since = None
    w.add("resume", e)


def _on_penalty(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.rescore(e.get("score"))
    w.add(
        "penalty",
        e,
        against=_side(e.get("against")),
        points=_int(e.get("points")),
        reason=e.get("reason"),
        id=e.get("id"),
        score=dict(w.score),
    )


def _on_correct_score(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.rescore(e.get("score"))
    w.add("correct_score", e, before=e.get("before"), score=dict(w.score))


def _on_crawford_double(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    rescored = _score(e.get("score"))
    if rescored is not None:
        # HU 7.5: voided after the game: that game is scored again without the cube
        w.score = rescored
        voided = next((g for g in w.games if g.game == _int(e.get("game"))), None)
        if voided is not None and voided.winner is not None:
            voided.points, voided.cube = _int(e.get("points")), _int(e.get("value")) or 1
    w.add("crawford_double", e, choice=e.get("choice"), points=_int(e.get("points")), score=dict(w.score))


def _on_match_over(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    w.result = {
        "winner": _side(e.get("winner")),
        "end_reason": e.get("end_reason"),
        "score": _score(e.get("score")) or dict(w.score),
    }
    w.add("match_over", e, **w.result)


def _on_cmd_done(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    if e.get("ok") is False:
        w.add("td_refused", e, command=e.get("cmd"), reason=e.get("error"))


def _on_other(w: _Walk, e: Mapping[str, Any], at: int | None, wall: int | None) -> None:
    """Any other event: its plain fields, as they are."""
    fields = {
        k: v
        for k, v in e.items()
        if k not in ("type", "seq", "match_id", "at", "wall", "event", "game")
        and (v is None or isinstance(v, str | int | float | bool))
    }
    if "side" in fields:
        fields["side"] = _side(fields["side"])
    w.add(str(e.get("type")), e, **fields)


#: what each kind of event adds (any other: :func:`_on_other`)
_ON: dict[str, _On] = {
    "opening_roll": _on_opening_roll,
    "press": _on_press,
    "roll": _on_roll,
    "double": _on_double,
    "take": _on_take,
    "game_over": _on_game_over,
    "undo": _on_undo,
    "pause": _on_pause,
    "resume": _on_resume,
    "penalty": _on_penalty,
    "correct_score": _on_correct_score,
    "crawford_double": _on_crawford_double,
    "match_over": _on_match_over,
    "cmd_done": _on_cmd_done,
}


# -- renderings ---------------------------------------------------------------------------------


def to_text(t: Mapping[str, Any], tz: tzinfo | None = None) -> str:
    """A readable page: a header, the games in order with every entry, the result."""
    tz = tz or _local_tz()
    names = {s: _name(t, s) for s in ("A", "B")}
    head = [f"Match {t.get('match_id') or '?'}"]
    if t.get("table"):
        head.append(f"table {t['table']}")
    if t.get("round"):
        head.append(f"round {t['round']}")
    if t.get("length"):
        head.append(f"{t['length']} points")
    if t.get("profile"):
        head.append(str(t["profile"]))
    if t.get("clock") is not None:
        head.append("clock" if t["clock"] else "no clock")
    lines = [" · ".join(head)]
    for s in ("A", "B"):
        pid = (t.get("players") or {}).get(s, {}).get("id")
        lines.append(f"  {s}: {names[s]}" + (f" (id {pid})" if pid else ""))
    result = t.get("result")
    if result:
        lines.append("Result: " + _result_line(result, names))
    current = -1
    for e in t.get("entries") or []:
        if e["game"] != current:
            current = e["game"]
            lines.append("")
            lines.append(_game_heading(t, current, names))
        lines.append(
            f"  {_clock_time(e.get('wall'), tz)}  {_describe(e, names, t.get('clock') is not False)}"
        )
    games = t.get("games") or []
    if games:
        lines += ["", "Games:"]
        for g in games:
            res = g.get("result")
            used = g.get("used_ms") or {}
            what = (
                f"{names[res['winner']]} {_kind_words(res)}, {res['points']} point(s), cube {res['cube']}"
                if res
                else "not finished"
            )
            clock = (
                f" · clock used {_duration(used.get('A', 0))} / {_duration(used.get('B', 0))}"
                if t.get("clock")
                else ""
            )
            lines.append(f"  {g['game']:>2}. {_score_text(g['score_before'])} → {what}{clock}")
    return "\n".join(lines) + "\n"


def to_mat(t: Mapping[str, Any], tz: tzinfo | None = None) -> str:
    """The Jellyfish ``.mat`` layout: header tags, games with dice and cube actions, moves blank.

    The format knows games, cubes and game results only. What else moves the score is written the
    way GNU Backgammon reads it back to the table's final score (``docs/rules.md``, "The match
    file"): penalty points and score corrections between games in the next game's header score; a
    match that ended with a game unfinished at a score below the length (time, forfeit, lateness, a
    double loss) with that game left unfinished, or an empty game whose header is the final score;
    penalty points that reach the length during a game as that game's "Wins" line (when the cube
    of that game can say that many points). Each such entry is also named in a header comment
    (``Termination``, ``Penalty``, ``Note``), which readers skip; what the format cannot say at all
    (who won on time, a double loss) is said only there.
    """
    tz = tz or _local_tz()
    names = {s: _mat_name(_name(t, s)) for s in ("A", "B")}
    out: list[str] = []
    first_wall = next((e.get("wall") for e in t.get("entries") or [] if e.get("wall")), None)
    tags: list[tuple[str, str]] = [("Player 1", names["A"]), ("Player 2", names["B"])]
    if first_wall:
        when = datetime.fromtimestamp(first_wall / 1000, tz)
        tags += [("EventDate", when.strftime("%Y.%m.%d")), ("EventTime", when.strftime("%H.%M"))]
    if t.get("round"):
        tags.append(("Round", str(t["round"])))
    if t.get("match_id"):
        tags.append(("Match ID", str(t["match_id"])))
    tags += [("Crawford", "On"), ("Jacoby", "Off"), ("Beaver", "Off")]
    if t.get("cube_limit"):
        tags.append(("CubeLimit", str(t["cube_limit"])))
    length = _int(t.get("length")) or 0
    games = list(t.get("games") or [])
    by_game: dict[int, list[dict[str, Any]]] = {}
    for e in t.get("entries") or []:
        by_game.setdefault(e["game"], []).append(e)
    bodies = [_mat_game(by_game.get(g["game"], []), g) for g in games]
    ending, notes = _mat_ending(t, games, bodies, by_game, names, length)
    tags += _mat_notes(t, names) + notes
    if length > GNUBG_MAX_LENGTH:
        tags.append(("Note", f"GNU Backgammon reads matches of up to {GNUBG_MAX_LENGTH} points"))
    out += [f'; [{k} "{_mat_text(v)}"]' for k, v in tags]
    out += ["", f" {length} point match", ""]
    for g, body in zip(games, bodies, strict=True):
        out += [f" Game {g['game']}", _mat_score_line(names, g["score_before"]), *_mat_lines(body), ""]
    if ending is not None:
        out += [f" Game {ending[0]}", _mat_score_line(names, ending[1]), ""]
    return "\n".join(out) + "\n"


#: the longest match GNU Backgammon imports ("Match length must be between 0 ... and 64")
GNUBG_MAX_LENGTH = 64
#: width of the left (player 1) column of a move line, and the word that ends a game
_COLUMN = 34
WINS = "Wins "
#: the most a game's result says: a backgammon, three times the cube (GNU Backgammon reads
#: "Wins N points" as a resignation of N / cube, from 1 to 3)
_MAX_KIND = 3

Cell = tuple[str, str]


def _mat_score_line(names: Mapping[str, str], score: Mapping[str, Any]) -> str:
    return f" {names['A']} : {score.get('A', 0)}".ljust(38) + f"{names['B']} : {score.get('B', 0)}"


def _mat_text(text: str) -> str:
    return "".join(ch for ch in text.replace("–", "-") if ch.isprintable() and ch != '"')


def _mat_notes(t: Mapping[str, Any], names: Mapping[str, str]) -> list[tuple[str, str]]:
    """Header comments: how the match ended when not on points, and every penalty that stands."""
    notes: list[tuple[str, str]] = []
    result = t.get("result") or {}
    reason = result.get("end_reason")
    if reason and reason != "points":
        notes.append(("Termination", _result_line(result, names)))
    entries = t.get("entries") or []
    waived = {e.get("penalty_id") for e in entries if e["event"] == "waive"}
    for e in entries:
        if e["event"] == "penalty" and e.get("id") not in waived:
            when = f"game {e['game']}" if e["game"] else "before game 1"
            against = names.get(e.get("against") or "", "?")
            points = e.get("points")
            notes.append(("Penalty", f"{when}: {points} point(s) against {against} ({e.get('reason')})"))
        elif e["event"] == "correct_score":
            notes.append(("Note", f"game {e['game']}: the TD corrected the score from {e.get('before')}"))
    return notes


def _gnubg_score(games: list[Mapping[str, Any]]) -> dict[str, int]:
    """The score a reader takes from the games written: the last header plus its result."""
    if not games:
        return {"A": 0, "B": 0}
    last = games[-1]
    score = {s: int(last["score_before"].get(s, 0)) for s in ("A", "B")}
    res = last.get("result")
    if res and res.get("winner") in ("A", "B"):
        score[res["winner"]] += int(res.get("points") or 0)
    return score


def _mat_ending(
    t: Mapping[str, Any],
    games: list[Mapping[str, Any]],
    bodies: list[list[Cell]],
    by_game: Mapping[int, list[dict[str, Any]]],
    names: Mapping[str, str],
    length: int,
) -> tuple[tuple[int, Mapping[str, int]] | None, list[tuple[str, str]]]:
    """What brings a reader from the games written to the table's final score: an empty game at
    that score, or a "Wins" line closing the unfinished last game (added to its cells), or, when
    the format cannot say it, a note."""
    final = _score((t.get("result") or {}).get("score")) or _score(t.get("score"))
    if final is None or final == _gnubg_score(games):
        return None, []
    if max(final.values()) < length:
        number = games[-1]["game"] + 1 if games else 1
        note = f"game {number} below is not a game played: it carries the final score {_score_text(final)}"
        return (number, final), [("Note", note)]
    winner = "A" if final["A"] >= final["B"] else "B"
    last = games[-1] if games else None
    if last is not None and not last.get("result"):
        start = last["score_before"]
        points = final[winner] - int(start.get(winner, 0))
        loser = "B" if winner == "A" else "A"
        cube = _mat_cube(by_game.get(last["game"], []))
        if (
            final[loser] == int(start.get(loser, 0))
            and points % cube == 0
            and 1 <= points // cube <= _MAX_KIND
        ):
            bodies[-1].append((winner, f"{WINS}{points} point{'s' if points != 1 else ''}"))
            note = f"game {last['game']}: the Wins line is the points that ended the match, not a game won"
            return None, [("Note", note)]
    return None, [("Note", f"the match ended at {_score_text(final)}, which the games above do not reach")]


def _mat_cube(entries: list[dict[str, Any]]) -> int:
    """The cube of a game as a reader of the file has it at its end: the last value taken."""
    cube = 1
    for e in entries:
        if e["event"] == "take" and isinstance(e.get("value"), int) and not _in_crawford_void(e, entries):
            cube = e["value"]
    return cube


def _in_crawford_void(take: Mapping[str, Any], entries: list[dict[str, Any]]) -> bool:
    return any(
        e["event"] == "crawford_double"
        and e.get("choice") == "void"
        and (e.get("seq") or 0) > (take.get("seq") or 0)
        for e in entries
    )


def _mat_game(entries: list[dict[str, Any]], game: Mapping[str, Any]) -> list[Cell]:
    """The game's cells: one per action, the side that made it and its text."""
    cells: list[Cell] = []
    opening = game.get("opening") or {}
    if opening.get("dice") and opening.get("first") in ("A", "B"):
        first = opening["first"]
        d = opening["dice"]
        cells.append((first, f"{d[0]}{d[1]}:" if first == "A" else f"{d[1]}{d[0]}:"))
    kept = len(cells)
    for e in entries:
        kind, side = e["event"], e.get("side")
        if kind == "roll" and side in ("A", "B") and e.get("dice"):
            cells.append((side, f"{e['dice'][0]}{e['dice'][1]}:"))
        elif kind == "double" and side in ("A", "B"):
            cells.append((side, f" Doubles => {e.get('value') or 2}"))
        elif kind == "take" and side in ("A", "B"):
            cells.append((side, " Takes"))
        elif kind == "crawford_double":
            if e.get("choice") == "keep":
                kept = len(cells)
                continue
            # HU 7.5, FFBG 6.5: the double was void: the file never had it
            cells = [
                c for i, c in enumerate(cells) if i < kept or not c[1].startswith((" Doubles", " Takes"))
            ]
            if e.get("points") is not None and cells and cells[-1][1].startswith(WINS):
                points = e["points"]
                cells[-1] = (cells[-1][0], f"{WINS}{points} point{'s' if points != 1 else ''}")
        elif kind == "undo":
            # the last score or cube entry was taken back at the table (never a roll)
            if cells and not cells[-1][1].endswith(":"):
                undone = cells.pop()[1]
                if undone.startswith(WINS) and cells and cells[-1][1] == " Drops":
                    cells.pop()
        elif kind == "game_over" and e.get("winner") in ("A", "B"):
            winner = e["winner"]
            if e.get("kind") == "pass":
                cells.append(("B" if winner == "A" else "A", " Drops"))
            points = e.get("points") or 0
            cells.append((winner, f"{WINS}{points} point{'s' if points != 1 else ''}"))
    return cells


def _mat_lines(cells: list[Cell]) -> list[str]:
    """Move lines: A in the left column and B in the right, numbered; a result on its own line."""
    lines: list[str] = []
    row: dict[str, str] = {}
    number = 0

    def flush() -> None:
        nonlocal number, row
        if row:
            number += 1
            lines.append(f"{number:>3}) {row.get('A', ''):<{_COLUMN}}{row.get('B', '')}".rstrip())
            row = {}

    for side, text in cells:
        if text.startswith(WINS):
            flush()
            indent = 6 if side == "A" else 6 + _COLUMN
            lines.append(" " * indent + text)
            continue
        if side in row or (side == "A" and "B" in row):
            flush()
        row[side] = text
    flush()
    return lines


# -- helpers ------------------------------------------------------------------------------------


def _cube_limit(profile: Any) -> int | None:
    """The highest cube of a built-in profile (a custom one is not known by its name alone)."""
    from rulebook.profiles import PROFILES

    found = PROFILES.get(profile) if isinstance(profile, str) else None
    return found.cube_limit() if found is not None else None


def _in_order(events: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    seen: set[int] = set()
    out = []
    for e in events:
        seq = e.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            if seq in seen:
                continue
            seen.add(seq)
        out.append(e)
    return sorted(out, key=lambda e: e["seq"] if isinstance(e.get("seq"), int) else 0)


def _entry(event: str, e: Mapping[str, Any], game: int, **fields: Any) -> dict[str, Any]:
    return {
        "event": event,
        "game": game,
        "seq": e.get("seq"),
        "at": _int(e.get("at")),
        "wall": _int(e.get("wall")),
        **fields,
    }


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _side(value: Any) -> str | None:
    return value if value in ("A", "B") else None


def _dice(value: Any) -> list[int] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(_int(d) is not None for d in value):
        return [int(value[0]), int(value[1])]
    return None


def _score(value: Any) -> dict[str, int] | None:
    if isinstance(value, Mapping) and _int(value.get("A")) is not None and _int(value.get("B")) is not None:
        return {"A": int(value["A"]), "B": int(value["B"])}
    return None


def _players(info: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    players = info.get("players")
    out = {}
    for s in ("A", "B"):
        p = players.get(s) if isinstance(players, Mapping) else None
        name = p.get("name") if isinstance(p, Mapping) else None
        pid = p.get("id") if isinstance(p, Mapping) else None
        out[s] = {"name": name if isinstance(name, str) else "", "id": pid if isinstance(pid, str) else ""}
    return out


def _name(t: Mapping[str, Any], side: str) -> str:
    name = ((t.get("players") or {}).get(side) or {}).get("name")
    return name or f"Player {side}"


def _mat_name(name: str) -> str:
    cleaned: str = "".join(ch for ch in name if ch.isprintable() and ch not in '"').strip()
    return cleaned or "Player"


def _local_tz() -> tzinfo:
    return datetime.now(UTC).astimezone().tzinfo or timezone(timedelta(0))


def _clock_time(wall: Any, tz: tzinfo) -> str:
    if not isinstance(wall, int):
        return "--:--:--"
    return datetime.fromtimestamp(wall / 1000, tz).strftime("%H:%M:%S")


def _duration(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def _score_text(score: Mapping[str, Any]) -> str:
    return f"{score.get('A', 0)}–{score.get('B', 0)}"


def _game_heading(t: Mapping[str, Any], game: int, names: Mapping[str, str]) -> str:
    if game == 0:
        return "Before the first game"
    g = next((g for g in t.get("games") or [] if g["game"] == game), None)
    crawford = " — Crawford game" if g and g.get("crawford") else ""
    before = f" (score {_score_text(g['score_before'])})" if g else ""
    return f"Game {game}{before}{crawford}"


def _kind_words(res: Mapping[str, Any]) -> str:
    kind = res.get("kind")
    if kind == "pass":
        return "wins (double passed)"
    how = {"single": "a single game", "gammon": "a gammon", "backgammon": "a backgammon"}.get(
        str(kind), str(kind)
    )
    return ("wins " if not res.get("resigned") else "wins by resignation, ") + how


def _result_line(result: Mapping[str, Any], names: Mapping[str, str]) -> str:
    winner = result.get("winner")
    score = result.get("score") or {}
    if winner not in ("A", "B") and result.get("end_reason") == "double_loss":
        return f"both players lose at {_score_text(score)} (double_loss: FFBG 10.3)"
    who = names.get(winner, "?") if isinstance(winner, str) else "?"
    return f"{who} wins {_score_text(score)} ({result.get('end_reason') or 'points'})"


@dataclass(frozen=True, slots=True)
class _Line:
    """One entry as :func:`_describe` words it: the entry, the players' names, whether a clock ran."""

    e: Mapping[str, Any]
    names: Mapping[str, str]
    clock: bool

    @property
    def who(self) -> str:
        side = _side(self.e.get("side"))
        return self.names[side] if side else ""

    def name(self, key: str) -> str:
        return self.names.get(self.e.get(key) or "", "?")

    def dice(self) -> str:
        d = self.e.get("dice") or ["?", "?"]
        return f"{d[0]}-{d[1]}"


def _describe(e: Mapping[str, Any], names: Mapping[str, str], clock: bool = True) -> str:
    """One entry in words (English: the transcript is the TD's and the arbiter's document).

    One wording per kind of entry (:data:`_SAY`); a TD command without one reads as the command's
    words (:data:`_COMMAND_WORDS`); anything else as its kind and fields."""
    k = str(e["event"])
    say = _SAY.get(k)
    if say is not None:
        return say(_Line(e, names, clock))
    if k in _COMMAND_WORDS:
        return "TD: " + _COMMAND_WORDS[k]
    rest = ", ".join(
        f"{key} {value}"
        for key, value in e.items()
        if key not in ("event", "game", "seq", "at", "wall") and value is not None
    )
    return k.replace("_", " ") + (f" ({rest})" if rest else "")


def _say_press(x: _Line) -> str:
    if not x.clock:
        return f"{x.who} ends the turn"
    used = x.e.get("used_ms")
    return f"{x.who} presses the clock" + (f" after {_duration(used)}" if isinstance(used, int) else "")


def _say_roll(x: _Line) -> str:
    e = x.e
    text = f"{x.who or 'roll'} {x.dice()}" + (f" ({e['source']})" if e.get("source") else "")
    return text + (", before the opponent finished: it counts" if e.get("early") else "")


def _say_double(x: _Line) -> str:
    text = f"{x.who} doubles to {x.e.get('value')}"
    if x.e.get("forced"):
        text += " (entered by the TD: the player must double)"
    if x.e.get("crawford"):
        text += " in the Crawford game (the leader may void it)"
    if x.e.get("premature"):
        text += " before the opponent finished (premature: it stands)"
    return text


def _say_crawford_double(x: _Line) -> str:
    e = x.e
    if e.get("choice") == "keep":
        return "TD: the leader keeps the double made in the Crawford game"
    rescored = f" — game scored again: {e.get('points')} point(s), score {_score_text(e['score'])}"
    return "TD: the double made in the Crawford game is void" + (
        rescored if e.get("points") is not None and e.get("score") else ""
    )


def _say_game_over(x: _Line) -> str:
    score = _score_text(x.e.get("score") or {})
    return f"{x.name('winner')} {_kind_words(x.e)}, {x.e.get('points')} point(s) — score {score}"


def _say_penalty(x: _Line) -> str:
    e = x.e
    return (
        f"penalty: {e.get('points')} point(s) against {x.name('against')} ({e.get('reason')}) — score "
        f"{_score_text(e.get('score') or {})}"
    )


def _say_return(x: _Line) -> str:
    over = x.e.get("overrun_ms")
    return f"{x.who} is back" + (f" ({_duration(over)} late)" if isinstance(over, int) and over > 0 else "")


#: the words of each kind of entry
_SAY: dict[str, Callable[[_Line], str]] = {
    "game_start": lambda x: f"opening roll {x.dice()}: {x.name('first')} starts",
    "opening_tie": lambda x: f"opening roll {x.dice()}: tie, roll again",
    "press": _say_press,
    "roll": _say_roll,
    "double": _say_double,
    "forbid_double": lambda x: f"TD: {x.who} may not double for the rest of this game",
    "force_double": lambda x: f"TD: {x.who} must double",
    "crawford_double": _say_crawford_double,
    "double_loss": lambda x: (
        "TD: both players lose the match" + (f" ({x.e['note']})" if x.e.get("note") else "")
    ),
    "take": lambda x: f"{x.who} takes ({x.e.get('value')})",
    "game_over": _say_game_over,
    "match_over": lambda x: "match over: " + _result_line(x.e, x.names),
    "pause": lambda x: f"clock paused ({x.e.get('reason')})" + (f" by {x.who}" if x.who else ""),
    "resume": lambda x: "clock resumed",
    "penalty": _say_penalty,
    "correct_score": lambda x: (
        f"TD corrects the score from {x.e.get('before')} to {_score_text(x.e.get('score') or {})}"
    ),
    "refused": lambda x: f"refused {x.e.get('input')}: {x.e.get('reason')}",
    "td_refused": lambda x: f"TD command {x.e.get('command')} refused: {x.e.get('reason')}",
    "checkin": lambda x: f"{x.who} checks in",
    "break": lambda x: f"{x.who} takes a break",
    "return": _say_return,
    "flag": lambda x: f"{x.who}'s time has run out",
    "call_td": lambda x: f"{x.who} calls the TD",
    "undo": lambda x: "last entry undone",
    "confirm": lambda x: f"{x.who} confirms the result",
}
