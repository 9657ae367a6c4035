"""Match transcripts built from the golden matches' events: the story agrees with the result,
every roll and press is there, and no event list (however broken) stops a transcript."""

from __future__ import annotations

import json
import re
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebook import transcript
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table

GOLDEN = sorted((Path(__file__).parents[1] / "golden").glob("*.jsonl"))


def _play(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    state = new_table("7")
    events: list[dict[str, Any]] = []
    for line in path.read_text().splitlines():
        if line.strip():
            state, more = apply(state, json.loads(line))
            events += more
    return events, snapshot(state)


@pytest.fixture(params=GOLDEN, ids=[p.stem for p in GOLDEN])
def match(request: pytest.FixtureRequest) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    events, snap = _play(request.param)
    return events, snap, transcript.build(events, snap)


def test_the_games_are_the_matchs_games(match: Any) -> None:
    _, snap, t = match
    finished = [g for g in t["games"] if g["result"]]
    assert [(g["game"], g["result"]["winner"], g["result"]["points"]) for g in finished] == [
        (g["game"], g["winner"], g["points"]) for g in snap["games"]
    ]


def test_each_game_starts_from_the_score_the_last_one_left(match: Any) -> None:
    _, _, t = match
    for before, after in zip(t["games"], t["games"][1:], strict=False):
        res = before["result"]
        if res is None:
            continue
        expected = dict(before["score_before"])
        expected[res["winner"]] += res["points"]
        between = [
            e
            for e in t["entries"]
            if e["game"] == before["game"] and e["event"] in ("penalty", "correct_score", "waive")
        ]
        if not between:
            assert after["score_before"] == expected


def test_every_applied_roll_press_and_cube_action_is_recorded(match: Any) -> None:
    events, _, t = match
    for kind in ("roll", "press", "double", "take"):
        applied = [e["seq"] for e in events if e["type"] == kind and "rejected" not in e]
        assert [e["seq"] for e in t["entries"] if e["event"] == kind] == applied


def test_refused_inputs_are_kept_as_refused(match: Any) -> None:
    events, _, t = match
    refused = [e["seq"] for e in events if "rejected" in e and e["type"] != "cmd"]
    assert [e["seq"] for e in t["entries"] if e["event"] == "refused"] == refused


def test_the_result_is_the_matchs(match: Any) -> None:
    _, snap, t = match
    if snap["end_reason"] is None:
        assert t["result"] is None
    else:  # a double loss (FFBG 10.3) has no winner
        assert t["result"]["winner"] == snap["winner"]
        assert t["result"]["end_reason"] == snap["end_reason"]
        assert t["result"]["score"] == snap["score"] == t["score"]


def test_clock_time_used_adds_up_to_the_presses(match: Any) -> None:
    _, _, t = match
    for g in t["games"]:
        presses = [
            e
            for e in t["entries"]
            if e["game"] == g["game"] and e["event"] == "press" and e["used_ms"] is not None
        ]
        if g["result"] is None:
            continue
        for side in ("A", "B"):
            assert g["used_ms"][side] == sum(e["used_ms"] for e in presses if e["side"] == side)


def test_the_text_names_the_players_and_each_game(match: Any) -> None:
    _, snap, t = match
    text = transcript.to_text(t, UTC)
    for side in ("A", "B"):
        assert snap["players"][side]["name"] in text
    for g in t["games"]:
        assert f"Game {g['game']} " in text


def _doubles_in_the_file(t: dict[str, Any]) -> int:
    """Doubles the match file keeps: all but those the leader voided in the Crawford game."""
    kept = 0
    for g in t["games"]:
        since_choice = 0
        for e in t["entries"]:
            if e["game"] != g["game"]:
                continue
            if e["event"] == "double":
                since_choice += 1
            elif e["event"] == "crawford_double":
                kept += since_choice if e["choice"] == "keep" else 0
                since_choice = 0
        kept += since_choice
    return kept


def test_the_match_file_carries_dice_cube_and_results(match: Any) -> None:
    _, snap, t = match
    mat = transcript.to_mat(t, UTC)
    assert f" {snap['length']} point match" in mat
    games = [int(n) for n in re.findall(r"^ Game (\d+)$", mat, re.M)]
    played = [g["game"] for g in t["games"]]
    # one more game may follow, carrying only the final score (a match ended between games)
    assert games[: len(played)] == played and len(games) - len(played) in (0, 1)
    wins = [int(n) for n in re.findall(r"^\s+Wins (\d+) points?$", mat, re.M)]
    won = [g["result"]["points"] for g in t["games"] if g["result"]]
    # one more Wins line may close an unfinished last game: the penalty points that ended the match
    assert wins[: len(won)] == won and len(wins) - len(won) in (0, 1)
    rolls = sum(g["rolls"] + (1 if g["opening"] else 0) for g in t["games"])
    assert len(re.findall(r"\b[1-6][1-6]:", mat)) == rolls
    if not any(e["event"] == "undo" for e in t["entries"]):
        assert mat.count("Doubles =>") == _doubles_in_the_file(t)


def test_an_undone_result_leaves_the_transcript_as_the_table_left_it() -> None:
    events, snap = _play(next(p for p in GOLDEN if "undo" in p.stem))
    t = transcript.build(events, snap)
    undo = next(e for e in t["entries"] if e["event"] == "undo")
    game = next(g for g in t["games"] if g["game"] == undo["game"])
    assert game["result"] is None or game["result"]["winner"] == snap["games"][undo["game"] - 1]["winner"]
    mat = transcript.to_mat(t, UTC)
    wins = [int(n) for n in re.findall(r"^\s+Wins (\d+) points?$", mat, re.M)]
    assert wins == [g["points"] for g in snap["games"]]


def test_events_delivered_twice_or_out_of_order_make_the_same_transcript() -> None:
    events, snap = _play(GOLDEN[2])
    shuffled = list(reversed(events)) + events[:10]
    assert transcript.build(shuffled, snap) == transcript.build(events, snap)


_junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**13),
    st.sampled_from(["A", "B", "", "gammon", "x"]),
    st.lists(st.integers(-1, 7), max_size=3),
    st.fixed_dictionaries({"A": st.integers(0, 9), "B": st.integers(0, 9)}),
    st.dictionaries(st.sampled_from(["A", "B", "name"]), st.text(max_size=3), max_size=2),
)
_event = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "opening_roll",
                "press",
                "roll",
                "double",
                "take",
                "game_over",
                "pause",
                "resume",
                "penalty",
                "match_over",
                "cmd_done",
                "break",
                "flag",
                "junk",
            ]
        )
    },
    optional={
        k: _junk
        for k in (
            "seq",
            "at",
            "wall",
            "side",
            "dice",
            "value",
            "winner",
            "score",
            "points",
            "kind",
            "game",
            "first",
            "rejected",
            "ok",
        )
    },
)


@given(
    st.lists(_event, max_size=30),
    st.dictionaries(st.sampled_from(["players", "length", "clock", "winner"]), _junk, max_size=4),
)
def test_no_event_list_stops_a_transcript(events: list[dict[str, Any]], info: dict[str, Any]) -> None:
    t = transcript.build(events, info)
    assert isinstance(transcript.to_text(t, UTC), str)
    assert isinstance(transcript.to_mat(t, UTC), str)
    json.dumps(t)


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        (
            "g15-hu7-noclock-forbid-crawford-void",
            [
                "TD: Ann Andersen may not double for the rest of this game",
                "Bo Berg doubles to 2 in the Crawford game (the leader may void it)",
                "TD: the double made in the Crawford game is void — game scored again: 2 point(s), score 6–2",
            ],
        ),
        (
            "g16-ffbg7-clock-early-roll-force-crawford-keep",
            [
                "Bo Berg 5-5 (tower), before the opponent finished: it counts",
                "TD: Ann Andersen must double",
                "Ann Andersen doubles to 2 (entered by the TD: the player must double)",
                "TD: the leader keeps the double made in the Crawford game",
            ],
        ),
        (
            "g18-ffbg9-clock-double-loss",
            [
                "Result: both players lose at 2–0 (double_loss: FFBG 10.3)",
                "TD: both players lose the match (FFBG 10.3)",
            ],
        ),
    ],
)
def test_the_tds_cube_decisions_and_the_double_loss_are_in_the_transcript(
    name: str, lines: list[str]
) -> None:
    """HU 7.5, 7.9; FFBG 5.14, 6.5, 6.8, 10.3: what the TD decided is read in the transcript, and the
    JSON keeps the decisions as entries (the hub's dashboard and export read the same)."""
    events, snap = _play(next(p for p in GOLDEN if p.stem == name))
    t = transcript.build(events, snap)
    text = transcript.to_text(t, UTC)
    for line in lines:
        assert line in text, text
    kinds = {e["event"] for e in t["entries"]}
    assert kinds & {"forbid_double", "force_double", "crawford_double", "double_loss"}
