"""An impossible score is refused, never applied with a winner picked by side order.

WBGF 2023 4.7 (the same in HBF 4.7): a wrong score is corrected when found ("all feilaktig
angivelse av stillingen i kampen korrigeres når dette oppdages"). WBGF/HBF 4.5: every match is
played to its length ("Alle kamper må spilles til korrekt spesifisert kamplengde") unless it ends
by a pass or a time-out; 2.2 iv adds the forfeit for lateness. So a match's score never has both
players at or past the length (it ended when the first one got there), and a match that ended
short of its length did so by time, forfeit or lateness, with its loser short of it too.

``correct_score`` also needs its ``note`` (docs/protocol.md §3.3): a correction says why.
Each case is played at the four table setups (docs/rules.md, "Table setups").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebook.errors import CommandError, RuleError
from rulebook.legal import check_command
from rulebook.match import SHORT_ENDS, final_winner, score_refusal
from rulebook.parse import parse_command
from rulebook.sides import Pair
from rulebook.snapshot import snapshot
from tests.rulebook.helpers import SECOND, Table


def _scoreboard(t: Table) -> Table:
    return t.start(length=5)


def _clock(t: Table) -> Table:
    return t.start(length=5, clock=True)


def _clock_tower(t: Table) -> Table:
    t.start(length=5, clock=True).opening(6, 1)
    t.wait(5 * SECOND).move("A", dice=(4, 2))  # the tower reads A's roll, A presses
    return t


def _tower(t: Table) -> Table:
    t.start(length=5).opening(6, 1)
    t.send("roll", dice=[5, 5], source="tower").ok()
    return t


SETUPS: dict[str, Callable[[Table], Table]] = {
    "scoreboard": _scoreboard,
    "clock": _clock,
    "clock+tower": _clock_tower,
    "tower, no clock": _tower,
}


@pytest.fixture(params=list(SETUPS))
def table(request: pytest.FixtureRequest) -> Table:
    return SETUPS[request.param](Table())


def _correct(t: Table, a: int, b: int, note: Any = "score sheet") -> Table:
    fields: dict[str, Any] = {"score": {"A": a, "B": b}}
    if note is not None:
        fields["note"] = note
    return t.cmd("correct_score", **fields)


def test_wbgf_4_7_both_at_the_length_is_refused_mid_match(table: Table) -> None:
    """WBGF 4.7 with 4.5: 5-5 in a 5-point match is no score; before, A won "by side order"."""
    before = table.snap()
    _correct(table, 5, 5)
    table.refused("both players", code="score.both_reached")
    after = table.snap()
    assert (after["score"], after["winner"], after["phase"]) == (before["score"], None, before["phase"])
    _correct(table, 7, 9)
    table.refused(code="score.both_reached")


def test_wbgf_4_7_both_at_the_length_is_refused_after_the_match(table: Table) -> None:
    """WBGF 4.7: the final 5-2 cannot be corrected to 6-5: B's 5 would have ended it first."""
    while table.state.phase != "finished":
        if table.state.phase == "playing":
            table.send("win", side="A", kind="gammon").ok()
        else:
            table.game("A", "gammon")
    assert table.snap()["winner"] == "A"
    _correct(table, 6, 5)
    table.refused(code="score.both_reached")
    snap = table.snap()
    assert snap["winner"] == "A" and snap["end_reason"] == "points" and snap["score"]["A"] >= 5


@pytest.mark.parametrize(("command", "reason"), [("forfeit", "forfeit"), ("forfeit_late", "lateness")])
def test_wbgf_4_5_the_loser_of_a_forfeit_cannot_have_the_length(
    table: Table, command: str, reason: str
) -> None:
    """WBGF 4.5 / 2.2 iv: A forfeits; a correction giving A the match length is impossible (A
    would have won by points first). B's score may be corrected: the forfeit stands."""
    late = command == "forfeit_late"
    table.cmd("forfeit", against="A", reason="late" if late else "conduct").ok()
    assert table.snap()["end_reason"] == reason
    _correct(table, 5, 1)
    table.refused("A lost", code="score.loser_reached")
    _correct(table, 2, 1).ok()
    snap = table.snap()
    assert (snap["winner"], snap["end_reason"], snap["decision"]) == ("B", reason, "correct_score")


def test_hbf_4_3_iii_the_loser_on_time_cannot_have_the_length() -> None:
    """HBF 4.3 iii: the flagged player loses at once (no gin exception); the winner below the
    length is explained by ``time``; a correction giving the loser the length is refused."""
    t = Table().start(length=3, profile="hbf", clock={"minutes_per_point": 0.1, "delay_s": 0}).opening(6, 1)
    t.wait(60 * SECOND).send("tick").ok()  # A's clock ran out
    snap = t.snap()
    assert (snap["phase"], snap["end_reason"], snap["winner"]) == ("finished", "time", "B")
    _correct(t, 3, 0)
    t.refused(code="score.loser_reached")
    _correct(t, 2, 1).ok()  # the winner below the length: the time-out says why
    assert (t.snap()["winner"], t.snap()["end_reason"]) == ("B", "time")


def test_a_correction_that_reaches_the_length_ends_the_match_by_points_decided_by_the_td(
    table: Table,
) -> None:
    """The match ends by points (how it ended); the TD's correction is recorded beside it."""
    _correct(table, 1, 5).ok()
    snap = table.snap()
    assert (snap["winner"], snap["end_reason"], snap["decision"], snap["phase"]) == (
        "B",
        "points",
        "correct_score",
        "finished",
    )
    assert table.event("match_over")["end_reason"] == "points"
    (row,) = snap["corrections"]
    assert (row["before"], row["after"], row["note"]) == ("0-0", "1-5", "score sheet")
    assert row["id"].startswith("c") and row["age_ms"] == 0


@pytest.mark.parametrize("note", [None, "", "   "])
def test_protocol_3_3_correct_score_without_its_note_is_refused(table: Table, note: Any) -> None:
    """docs/protocol.md §3.3 lists ``note`` as a field of ``correct_score``: a correction says why."""
    _correct(table, 1, 0, note=note)
    table.refused("note", code="field.missing")
    assert table.snap()["score"] == {"A": 0, "B": 0}
    with pytest.raises(RuleError) as caught:
        parse_command(
            {"type": "correct_score", "score": {"A": 1, "B": 0}, **({} if note is None else {"note": note})}
        )
    assert caught.value.code == "field.missing"


def test_the_hub_judges_an_impossible_correction_from_the_snapshot_alone(table: Table) -> None:
    """``check_command`` on the published snapshot refuses it with the table's own code."""
    snap = table.snap()
    with pytest.raises(CommandError) as caught:
        check_command(snap, parse_command({"type": "correct_score", "score": {"A": 5, "B": 6}, "note": "x"}))
    assert caught.value.code == "score.both_reached"
    check_command(snap, parse_command({"type": "correct_score", "score": {"A": 4, "B": 2}, "note": "x"}))


# -- the rule as a property ------------------------------------------------------------------------

LENGTHS = st.integers(1, 25)
ENDS = st.sampled_from([None, "points", "time", "forfeit", "lateness"])


@given(
    length=LENGTHS,
    a=st.integers(0, 60),
    b=st.integers(0, 60),
    winner=st.sampled_from([None, "A", "B"]),
    end=ENDS,
)
def test_property_a_final_the_hub_accepts_is_a_possible_final(
    length: int, a: int, b: int, winner: str | None, end: str | None
) -> None:
    """WBGF 4.7 with 4.5, for any length, score, named winner and end reason: an accepted final
    has one winner; at most that winner at the length; a winner short of it only with an end
    reason that explains it; never a winner picked by side order."""
    score = Pair(a, b)
    try:
        won = final_winner(length, score, winner, end)
    except RuleError as exc:
        assert exc.code.startswith("score.")
        return
    loser = "B" if won == "A" else "A"
    assert score.of(loser) < length
    assert score.of(won) >= length or end in SHORT_ENDS
    assert winner in (None, won)


@given(
    length=st.integers(1, 9),
    a=st.integers(0, 20),
    b=st.integers(0, 20),
    setup=st.sampled_from(list(SETUPS)),
    forfeit=st.booleans(),
)
def test_property_the_table_applies_a_correction_exactly_when_it_is_possible(
    length: int, a: int, b: int, setup: str, forfeit: bool
) -> None:
    """At every setup, in play or after a forfeit: the reducer applies ``correct_score`` exactly
    when ``score_refusal`` has nothing against it, and the result is then a possible one."""
    t = SETUPS[setup](Table())
    if length != 5:
        t.cmd("set_length", length=length)  # at once between games, else at the next one (4.8)
    if forfeit:
        t.cmd("forfeit", against="B", reason="conduct").ok()
    m = t.match
    expected = score_refusal(m.length, Pair(a, b), m.winner, m.end_reason)
    _correct(t, a, b)
    if expected is not None:
        assert t.rejection_code() == expected.code
        return
    t.ok()
    snap = snapshot(t.state)
    L = snap["length"]
    assert not (snap["score"]["A"] >= L and snap["score"]["B"] >= L)
    if snap["winner"] is not None:
        w, loser = snap["winner"], "B" if snap["winner"] == "A" else "A"
        assert snap["score"][loser] < L
        assert snap["score"][w] >= L or snap["end_reason"] in SHORT_ENDS
