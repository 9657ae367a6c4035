"""Where a player goes after a match (hub/draw/next_steps.py), checked on random events played
out with random results and calls: the line says what the bracket says, whatever the event."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.draw import Bracket, Call, CallSettings, Holds, TableState, next_step, plan_calls
from hub.draw.calls import live_calls
from hub.draw.flights import LoserOf, WinnerOf
from rulebook.messages import MAX_ROUNDS
from tests.hub.draw.draw_play import brackets


def check_step(bracket: Bracket, calls: list[Call], player: str, after: str) -> None:
    step = next_step(bracket, calls, player, after)
    done = bracket.match(after)
    coming = bracket.next_match(player)
    if coming is None:
        final = bracket.flight_matches(done.match.flight)[-1]
        assert step.kind == ("won" if final.id == after and done.winner == player else "out")
        assert step.flight == done.match.flight and step.round is None and step.left is None
        return
    m = coming.match
    assert (step.flight, step.round) == (m.flight, m.round)
    assert step.round is not None and 1 <= step.round <= MAX_ROUNDS
    assert step.left == (done.match.flight if m.flight != done.match.flight else None)
    others = [p for p in coming.players if p != player]
    live = {c.match: c.table for c in live_calls(bracket, calls)}
    if step.kind == "called":
        assert step.opponent == others[0] and step.table == live[m.id]
    elif step.kind == "ready":
        assert coming.is_ready() and step.opponent == others[0] and m.id not in live
    else:
        assert step.kind == "waiting" and not others and step.opponent is None
        source = next(s for seat, s in zip(coming.seats, m.sources, strict=True) if seat is None)
        assert isinstance(source, WinnerOf | LoserOf)
        assert step.waits_for == ("winner" if isinstance(source, WinnerOf) else "loser")
        assert step.from_table == live.get(source.match)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bracket=brackets(max_exp=4), n_tables=st.integers(1, 6), data=st.data())
def test_after_every_result_each_players_line_says_what_the_bracket_says(bracket, n_tables, data):
    tables = [TableState(str(t)) for t in range(1, n_tables + 1)]
    rules, holds = CallSettings(needs_verified=False), Holds()
    calls: list[Call] = []
    now = 0
    played: list[str] = []
    while True:
        now += 1
        calls += plan_calls(bracket, calls, tables, rules, holds, now)
        live = live_calls(bracket, calls)
        if not live:
            assert bracket.is_complete()
            break
        call = data.draw(st.sampled_from(live))
        match = bracket.match(call.match)
        bracket = bracket.with_result(call.match, data.draw(st.sampled_from(match.players)), now)
        played.append(call.match)
        calls += plan_calls(bracket, calls, tables, rules, holds, now)
        # every match played so far: its players' lines as its table would show them now
        for done in played:
            for player in bracket.match(done).players:
                check_step(bracket, calls, player, done)
