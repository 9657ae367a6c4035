"""Golden journals: complete matches replayed to their expected snapshots.

``KEY_FACTS`` was worked out by hand from the scripts in ``make_journals.py`` (the arithmetic is in
the comments), independently of the reducer; the expected snapshot files must agree with it, so a
golden file can never silently record a wrong result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rulebook.replay import parse_lines, replay_lines
from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.golden.make_journals import SCRIPTS, journal_text

HERE = Path(__file__).resolve().parent
MIN = 60_000
S = 1000

# Reserves: start - sum over each turn of max(0, turn time - delay). "A: 8 + 18" = A's charged seconds.
KEY_FACTS: dict[str, dict[str, Any]] = {
    "g01-wbgf7-clock-crawford-by-gammon": {
        "score": (7, 3),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 3,
        "games": 5,
        # A: g1 8 + 18, g2 13 + 1, g3 8, g4 8, g5 2 = 58 s; B: g2 3, g3 11 (3 s + 20 s turn), g4 18 = 32 s
        "reserve": (14 * MIN - 58 * S, 14 * MIN - 32 * S),
        "rejected": ["Crawford game: no doubling"],
    },
    "g02-wbgf7-noclock-dead-cube": {
        "score": (3, 7),
        "winner": "B",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 5,
        "last_game": {"winner": "B", "kind": "single", "cube": 4, "points": 4},
        "reserve": (0, 0),
        "clock": False,
        "rejected": ["dead cube"],
    },
    "g03-wbgf11-clock-passed-redouble": {
        "score": (11, 4),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 11,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 5,
        "games": 7,
        "first_game": {"winner": "B", "kind": "pass", "cube": 2, "points": 2},
        # A: 28 + 8 (pass after 20 s) + 8 + 3 + 12 + 18 = 77 s; B: 38 + 3 = 41 s
        "reserve": (22 * MIN - 77 * S, 22 * MIN - 41 * S),
        "rejected": [],
    },
    "g04-hbf7-clock-flag-loses": {
        "score": (2, 0),
        "winner": "A",
        "end_reason": "time",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 1,
        # B: 88 s charged in a 100 s turn; B's clock restarts at 126 s: flag at 126 + 12 + 122 = 260 s
        "reserve": (210 * S, 0),
        "flagged": "B",
        "flagged_at": 260 * S,
        "rejected": [],
    },
    "g05-ffbg9-clock-break-gin-flag": {
        "score": (2, 0),
        "winner": "B",
        "end_reason": "time",
        "phase": "finished",
        "length": 9,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 1,
        # 32 min each. B: 30 s + break 6 min - 15 s = 345 s + 5 s = 380 s; B's clock from 463 s:
        # flag at 463 + 15 + (1920 - 380) = 2018 s. A: 1 s.
        "reserve": (32 * MIN - 1 * S, 0),
        "flagged": "B",
        "flagged_at": 2018 * S,
        "breaks_used": (0, 1),
        "rejected": [],
    },
    "g06-hu7-noclock-penalty-wins": {
        "score": (7, 5),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 6,
        "games": 6,
        "penalties": (0, 2),
        "breaks_used": (0, 1),
        "reserve": (0, 0),
        "clock": False,
        "rejected": [],
    },
    "g07-wbgf7-lateness-forfeit": {
        "score": (4, 0),
        "winner": "A",
        "end_reason": "lateness",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 0,
        "penalties": (0, 4),
        "reserve": (14 * MIN, 14 * MIN),
        "present": (True, False),
        "rejected": [],
    },
    "g19-club7-noclock-custom-lateness": {
        # 1 (B's late point, at the club's 10 min) + 1 single + 3 backgammon + 2 gammon = 7-0
        "score": (7, 0),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 3,
        "penalties": (0, 1),
        "breaks_used": (0, 0),
        "breaks_allowed": 0,
        "reserve": (0, 0),
        "clock": False,
        "present": (True, True),
        "rejected": ["break"],
    },
    "g08-ffbg7-noclock-lateness-dmp-break": {
        "score": (6, 7),
        "winner": "B",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 6,
        "games": 7,
        # 1 + 2 (A gammon) = 3-0, 3-4 (B gammon at 2), 5-4, 5-5, 6-5, Crawford 6-6, 6-7
        "penalties": (0, 1),
        "breaks_used": (2, 0),
        "reserve": (0, 0),
        "clock": False,
        "rejected": [],
    },
    "g09-wbgf25-noclock-imposed-clock": {
        "score": (18, 26),
        "winner": "B",
        "end_reason": "points",
        "phase": "finished",
        "length": 25,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 5,
        "games": 7,
        # imposed at 6-8: 2 min x (19 + 17) / 2 = 36 min. A: 18 + 8 + 8 + 3 = 37 s; B: 28 s
        "reserve": (36 * MIN - 37 * S, 36 * MIN - 28 * S),
        "rejected": [],
    },
    "g10-wbgf11-length-corrected": {
        "score": (9, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 9,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 6,
        "games": 7,
        "corrections": [{"kind": "length", "before": "11", "after": "9", "note": "schedule:9"}],
        "reserve": (0, 0),
        "clock": False,
        "rejected": [],
    },
    "g11-hbf9-length-impossible": {
        "score": (10, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 9,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 5,
        "games": 6,
        "reserve": (18 * MIN - 8 * S, 18 * MIN),
        "rejected": ["impossible (4.8)"],
    },
    "g12-hbf11-two-banks-set-time": {
        "score": (11, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 11,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 5,
        # before the TD: A 11 min - 648 s - 12 s = 0 of bank 1, then 6 s of bank 2 (294 s left).
        # set_time 400 s / 500 s; then B's 20 s turn: 8 s.
        "reserve": (400 * S, 500 * S - 8 * S),
        "bank2": (0, 5 * MIN),
        "rejected": [],
    },
    "g13-wbgf7-clock-pauses-pickup-undo": {
        "score": (7, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 4,
        # A: 5 s + (3 min paused) + 17 s = 22 s -> 10 s; then 12 s with no delay (pick-up) = 22 s.
        # B: 20 s -> 8 s; invalid roll after 3 s restarts the delay, then 20 s -> 8 s = 16 s.
        "reserve": (14 * MIN - 22 * S, 14 * MIN - 16 * S),
        "corrections": [{"kind": "score", "before": "1-3", "after": "1-2", "note": "was-a-gammon"}],
        "rejected": ["before any roll attempt", "unknown input 'fly'", "at: required", "JSON object"],
    },
    "g14-hu11-clock-final-breaks-claim": {
        "score": (2, 12),
        "winner": "B",
        "end_reason": "points",
        "phase": "finished",
        "length": 11,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 2,
        "last_game": {"winner": "B", "kind": "backgammon", "cube": 4, "points": 12},
        # 22 min each. A: 18 + 8 = 26 s; B: 18 s
        "reserve": (22 * MIN - 26 * S, 22 * MIN - 18 * S),
        "breaks_used": (2, 1),
        "breaks_allowed": 2,
        "rejected": [],
    },
    # HU 7.9 and 7.5: game 1 A +4 (a gammon at 2; A's forbidden double refused), game 2 A +2 (6-0),
    # game 3 the Crawford game: B +4 (a gammon at 2), voided to a gammon at 1: +2 (6-2); game 4 A +1.
    "g15-hu7-noclock-forbid-crawford-void": {
        "score": (7, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 3,
        "games": 4,
        "clock": False,
        "reserve": (0, 0),
        "first_game": {"winner": "A", "kind": "gammon", "cube": 2, "points": 4},
        "last_game": {"winner": "A", "kind": "single", "cube": 1, "points": 1},
        "rejected": ["forbidden A to double"],
    },
    # FFBG 5.14, 6.8, 6.5/6.10: game 1 A +2 (the forced double taken), game 2 A +4 (6-0), game 3 the
    # Crawford game, B's double kept and taken: B +2 (6-2), game 4 A +1. 26 min each: A's only turn
    # past the 15 s delay is 20 s (5 s), B's 30 s (15 s).
    "g16-ffbg7-clock-early-roll-force-crawford-keep": {
        "score": (7, 2),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 7,
        "crawford": False,
        "post_crawford": True,
        "crawford_game": 3,
        "games": 4,
        "reserve": (26 * MIN - 5 * S, 26 * MIN - 15 * S),
        "first_game": {"winner": "A", "kind": "single", "cube": 2, "points": 2},
        "last_game": {"winner": "A", "kind": "single", "cube": 1, "points": 1},
        "rejected": [],
    },
    # FFBG (no limit to redoubles): 2, 4, ..., 128 in seven doubles; A owns 128 >= 99: dead; A +128.
    "g17-ffbg99-noclock-cube-128": {
        "score": (128, 0),
        "winner": "A",
        "end_reason": "points",
        "phase": "finished",
        "length": 99,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 1,
        "clock": False,
        "reserve": (0, 0),
        "first_game": {"winner": "A", "kind": "single", "cube": 128, "points": 128},
        "rejected": ["dead cube"],
    },
    # FFBG 10.3: game 1 A +2; in game 2 the double loss: no winner. 27 + 5 = 32 min each, no turn
    # past the 15 s delay.
    "g18-ffbg9-clock-double-loss": {
        "score": (2, 0),
        "winner": None,
        "end_reason": "double_loss",
        "phase": "finished",
        "length": 9,
        "crawford": False,
        "post_crawford": False,
        "crawford_game": None,
        "games": 1,
        "reserve": (32 * MIN, 32 * MIN),
        "rejected": [],
    },
}


# The s-scripts: one nine-point match in three table setups under the four profiles (make_journals'
# _SETUP_GAMES). Worked out by hand: game 1 A +2 (the redouble passed at 2), game 2 B +2 (a gammon
# resigned at 1), game 3 A +6 (a backgammon resigned at 2): 8-2, A one away, so game 4 is the
# Crawford game (B's double refused), B +2 (gammon): 8-4; game 5 A +2 (single at 2): 10-4.
# Clock: A's only turns past the delay are 30 s (game 1) and 20 s (game 5), B's only one 40 s
# (game 3): with a 12 s delay A is charged 18 + 8 = 26 s and B 28 s; with FFBG's 15 s, 15 + 5 = 20 s
# and 25 s. Reserves 9 x 2 min = 18 min; FFBG 9 x 3 min + 5 min of break allowance = 32 min.
_SETUP_FACTS: dict[str, Any] = {
    "score": (10, 4),
    "winner": "A",
    "end_reason": "points",
    "phase": "finished",
    "length": 9,
    "crawford": False,
    "post_crawford": True,
    "crawford_game": 4,
    "games": 5,
    "first_game": {"winner": "A", "kind": "pass", "cube": 2, "points": 2},
    "last_game": {"winner": "A", "kind": "single", "cube": 2, "points": 2},
    "rejected": ["Crawford game: no doubling"],
}
#: HU 7.5, FFBG 6.5: there B's double in the Crawford game is recorded and the leader A voids it
LEADER_VOIDS = ("hu9", "ffbg9")
for _name in [n for n in SCRIPTS if n.startswith("s")]:
    _clock = "clock-no-tower" in _name
    _ffbg = "ffbg" in _name
    KEY_FACTS[_name] = {
        **_SETUP_FACTS,
        "rejected": [] if any(p in _name for p in LEADER_VOIDS) else _SETUP_FACTS["rejected"],
        "clock": _clock,
        "reserve": (
            ((32 * MIN - 20 * S, 32 * MIN - 25 * S) if _ffbg else (18 * MIN - 26 * S, 18 * MIN - 28 * S))
            if _clock
            else (0, 0)
        ),
    }

SETUP_OF = {"scoreboard": None, "clock-no-tower": "clock", "tower-no-clock": "dice"}


@pytest.mark.parametrize("name", sorted(n for n in SCRIPTS if n.startswith("s")))
def test_every_table_setup_plays_the_whole_match_with_its_cube_actions(name: str) -> None:
    """Issue: a scoreboard table could not enter the owner's redouble after a double and a take.
    In every setup and profile each double of the match is a proper one, none premature; the
    snapshot says what the table sees of the turn."""
    setup = name.split("-", 2)[2]
    state = new_table()
    doubles: list[dict[str, Any]] = []
    seen: list[str | None] = []
    for inp in parse_lines(_journal(name)):
        state, events = apply(state, inp)
        doubles += [e for e in events if e["type"] == "double" and not e.get("rejected")]
        if state.phase == "playing" and inp.get("input") == "opening_roll":
            seen.append(snapshot(state)["turn_from"])
    # a tower table is a scoreboard until its first roll is read (in game 1), then the dice count
    assert seen[-1] == SETUP_OF[setup] and (seen[0] is None or setup == "clock-no-tower")
    crawford = [("B", 2)] if any(p in name for p in LEADER_VOIDS) else []  # recorded, then voided
    assert [(d["side"], d["value"]) for d in doubles] == [("B", 2), ("A", 4), ("A", 2), *crawford, ("B", 2)]
    flags = [False, False, False, *(True for _ in crawford), False]
    assert [d.get("crawford", False) for d in doubles] == flags
    assert not any(d.get("premature") for d in doubles)


def assert_snapshot_matches(actual: Any, expected: Any, path: str = "snapshot") -> None:
    """Every field of the expected snapshot has the same value in the actual one.

    Fields added to the snapshot later (PROTOCOL allows adding, never changing) do not break the
    golden files; a changed or missing value does.
    """
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} is missing"
            assert_snapshot_matches(actual[key], value, f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (
            f"{path}: {actual!r} != {expected!r}"
        )
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_snapshot_matches(a, e, f"{path}[{i}]")
    else:
        assert actual == expected and type(actual) is type(expected), f"{path}: {actual!r} != {expected!r}"


def _journal(name: str) -> list[str]:
    return (HERE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()


def _expected(name: str) -> dict[str, Any]:
    return json.loads((HERE / f"{name}.expected.json").read_text(encoding="utf-8"))


def test_every_script_has_a_journal_a_snapshot_and_hand_facts() -> None:
    assert set(SCRIPTS) == set(KEY_FACTS)
    assert len(SCRIPTS) >= 26
    on_disk = {p.name.removesuffix(".jsonl") for p in HERE.glob("*.jsonl")}
    assert on_disk == set(SCRIPTS)
    named = [json.loads(_journal(n)[0])["profile"] for n in SCRIPTS]
    profiles = {p if isinstance(p, str) else p["name"] for p in named}
    lengths = {json.loads(_journal(n)[0])["length"] for n in SCRIPTS}
    assert profiles == {"wbgf-2023", "hbf", "hu", "ffbg-cdf", "club-thursday"} and {7, 11, 25} <= lengths


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_journal_is_built_from_its_script(name: str) -> None:
    """The committed journal is exactly what the readable script describes."""
    assert (HERE / f"{name}.jsonl").read_text(encoding="utf-8") == journal_text(name)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_replay_matches_expected_snapshot(name: str) -> None:
    state = replay_lines(_journal(name))
    assert_snapshot_matches(snapshot(state), _expected(name))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_key_facts_worked_out_by_hand(name: str) -> None:
    facts = KEY_FACTS[name]
    state = new_table()
    rejected: list[str] = []
    for inp in parse_lines(_journal(name)):
        state, events = apply(state, inp)
        for event in events:
            reason = event.get("rejected") or (event.get("error") if event.get("ok") is False else None)
            if reason:
                rejected.append(str(reason))
    snap = snapshot(state)
    assert_snapshot_matches(snap, _expected(name))
    assert (snap["score"]["A"], snap["score"]["B"]) == facts["score"]
    assert snap["winner"] == facts["winner"] and snap["end_reason"] == facts["end_reason"]
    assert (snap["phase"] == "finished") == (snap["end_reason"] is not None)
    assert snap["phase"] == facts["phase"] and snap["length"] == facts["length"]
    assert snap["crawford"] == facts["crawford"] and snap["post_crawford"] == facts["post_crawford"]
    assert state.match is not None and state.match.crawford_game == facts["crawford_game"]
    assert len(snap["games"]) == facts["games"]
    assert snap["cube"]["value"] == 1 or not snap["games"]  # a finished match leaves the cube centred
    assert (snap["clock"]["reserve_ms"]["A"], snap["clock"]["reserve_ms"]["B"]) == facts["reserve"]
    assert snap["clock"]["enabled"] == facts.get("clock", True)
    assert snap["clock"]["running"] is None
    assert snap["clock"]["flagged"] == facts.get("flagged")
    assert snap["clock"]["flagged_at"] == facts.get("flagged_at")
    if "bank2" in facts:
        assert (snap["clock"]["bank2_ms"]["A"], snap["clock"]["bank2_ms"]["B"]) == facts["bank2"]
    assert (snap["penalties"]["A"], snap["penalties"]["B"]) == facts.get("penalties", (0, 0))
    if "breaks_used" in facts:
        assert (snap["breaks"]["A"]["used"], snap["breaks"]["B"]["used"]) == facts["breaks_used"]
    if "breaks_allowed" in facts:
        assert snap["breaks"]["A"]["allowed"] == facts["breaks_allowed"]
    if "present" in facts:
        assert (snap["present"]["A"], snap["present"]["B"]) == facts["present"]
    if "corrections" in facts:
        # what was corrected and why (the command's id and age are the table's bookkeeping)
        kept = ("kind", "before", "after", "note")
        assert [{k: c[k] for k in kept} for c in snap["corrections"]] == facts["corrections"]
    for key in ("first_game", "last_game"):
        if key in facts:
            game = snap["games"][0 if key == "first_game" else -1]
            assert {k: game[k] for k in facts[key]} == facts[key]
    assert len(rejected) == len(facts["rejected"]), rejected
    for reason, fragment in zip(rejected, facts["rejected"], strict=True):
        assert fragment in reason
