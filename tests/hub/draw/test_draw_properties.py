"""The draw's invariants (issue 23, item 5), played out by hypothesis on random events: random
flights, draws, tables and settings; results, verifications, corrections and withdrawals in a
random order, the calls planned after each.

- no player in two live matches; no table holding two; every match called exactly once (a call
  withdrawn after a correction or a withdrawal is called again, once, with its new players);
- every result feeds exactly the matches the flight's definition says;
- a bracket re-derived after an undo (or a correction, or a withdrawal) equals the bracket built
  from scratch with the corrected inputs.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.draw import (
    Bracket,
    Call,
    CallSettings,
    DrawError,
    Holds,
    State,
    TableState,
    call_changes,
    plan_calls,
)
from hub.draw.calls import live_calls
from tests.hub.draw.draw_play import brackets, check_derived, check_fed, check_live

ACTIONS = ("finish", "finish", "finish", "finish", "verify", "correct", "undo", "withdraw")


def call_settings() -> st.SearchStrategy[CallSettings]:
    tables = [str(i) for i in range(1, 11)]
    return st.builds(
        CallSettings,
        grace_ms=st.integers(0, 600_000),
        needs_verified=st.booleans(),
        keep_player_table=st.booleans(),
        prefer=st.lists(
            st.tuples(
                st.sampled_from(["main", "consolation", "last_chance"]),
                st.lists(st.sampled_from(tables), max_size=3).map(tuple),
            ),
            max_size=2,
        ).map(tuple),
    )


@settings(max_examples=80)
@given(bracket=brackets(), rules=call_settings(), n_tables=st.integers(1, 10), data=st.data())
def test_an_event_played_out_keeps_every_invariant(bracket, rules, n_tables, data):
    # some tables out of service (never all)
    out = data.draw(st.sets(st.integers(1, n_tables), max_size=n_tables - 1), label="out of service")
    tables = [TableState(str(i), is_free=i not in out) for i in range(1, n_tables + 1)]
    now = 0
    calls: list[Call] = []
    called = Counter[str]()
    withdrawn_calls: set[str] = set()
    for _ in range(2_000):
        new = plan_calls(bracket, calls, tables, rules, Holds(), now)
        for c in new:
            assert c.called_at == now and c.start == now + rules.grace_ms
            assert bracket.match(c.match).is_ready()
            assert int(c.table) not in out
            called[c.match] += 1
        calls.extend(new)
        check_live(bracket, calls)
        live = live_calls(bracket, calls)
        unverified = [m.id for m in bracket.matches() if m.result is not None and not m.result.is_verified]
        if not live and not unverified:
            break
        now += data.draw(st.integers(1, 900_000), label="time passes")
        action = data.draw(st.sampled_from(ACTIONS), label="action")
        if action in ("finish", "withdraw") and not live:
            action = "verify"  # every step moves the event on
        if action == "verify" and not unverified:
            action = "finish"
        old = bracket
        if action == "verify" and unverified:
            bracket = bracket.verified(data.draw(st.sampled_from(unverified), label="verify"), now)
        elif action == "correct" and bracket.results:
            result = data.draw(
                st.sampled_from(sorted(bracket.results, key=lambda r: r.match)), label="correct"
            )
            m = bracket.match(result.match)
            other = next(p for p in m.players if p != result.winner)
            try:
                undone = bracket.undone(result.match)
                bracket = bracket.corrected(result.match, other, at=now)
            except DrawError as refused:
                # a later result stands on who won: refused, nothing changed
                assert refused.code == "draw.result.dependent"
                continue
            if undone.match(result.match).is_ready():
                assert bracket == undone.with_result(result.match, other, at=now)
            check_fed(undone, bracket, result.match)
        elif action == "undo" and bracket.results:
            result = data.draw(st.sampled_from(sorted(bracket.results, key=lambda r: r.match)), label="undo")
            try:
                bracket = bracket.undone(result.match)
            except DrawError as refused:
                assert refused.code == "draw.result.dependent"
                continue
            scratch = Bracket.build(old.event, old.draws, old.results - {result}, old.withdrawals)
            assert bracket == scratch and bracket.matches() == scratch.matches()
        elif action == "withdraw" and live:
            # a player walks out in the middle of his match
            player = data.draw(st.sampled_from(bracket.match(live[0].match).players), label="withdraw")
            bracket = bracket.with_withdrawal(player, now)
        elif live:
            call = data.draw(st.sampled_from(live), label="finish")
            winner = data.draw(st.sampled_from(bracket.match(call.match).players), label="winner")
            bracket = bracket.with_result(call.match, winner, at=now)
            check_fed(old, bracket, call.match)
            continue
        else:
            continue
        # the hub withdraws the calls the change voids; they are called again when ready
        for change in call_changes(old, bracket, calls):
            if change.voids_call():
                assert change.call is not None
                calls.remove(change.call)
                withdrawn_calls.add(change.call.match)
        check_derived(bracket)
    else:  # pragma: no cover
        raise AssertionError("the event did not end")
    assert bracket.is_complete()
    check_derived(bracket)
    played = {m.id for m in bracket.matches() if m.state is State.PLAYED}
    assert {c.match for c in calls} == played
    # called once; a match whose call was withdrawn (other players, or to be played again) once more
    assert all(n == 1 for m, n in called.items() if m not in withdrawn_calls)
    assert all(called[m] >= 1 for m in played)


@settings(max_examples=80)
@given(bracket=brackets(), data=st.data())
def test_an_undo_re_derives_the_bracket_built_from_scratch(bracket, data):
    """Results in any order, some undone: each undo equals the bracket built from scratch without
    that result, or is refused naming later results that depend on it."""
    for now in range(data.draw(st.integers(0, 60), label="results")):
        ready = bracket.ready()
        if not ready:
            break
        m = data.draw(st.sampled_from(ready), label="match")
        bracket = bracket.with_result(m.id, data.draw(st.sampled_from(m.players), label="winner"), at=now)
    for result in sorted(bracket.results, key=lambda r: r.match):
        try:
            undone = bracket.undone(result.match)
        except DrawError as refused:
            assert refused.code == "draw.result.dependent"
            dependents = str(refused.params["dependents"]).split(", ")
            downstream = set(bracket.event.downstream(result.match))
            assert all(d in downstream and bracket.result(d) is not None for d in dependents)
            continue
        scratch = Bracket.build(bracket.event, bracket.draws, bracket.results - {result}, bracket.withdrawals)
        assert undone == scratch and undone.matches() == scratch.matches()
        redone = undone.with_result(result.match, result.winner, at=result.at)
        assert redone == bracket and redone.matches() == bracket.matches()
        changes = call_changes(bracket, undone, [Call(result.match, "1", 0, 0)])
        assert changes[0].after.id == result.match and changes[0].is_reopened() and changes[0].voids_call()
        assert {c.after.id for c in changes[1:]} <= set(bracket.event.downstream(result.match))


@settings(max_examples=60)
@given(bracket=brackets(), data=st.data())
def test_results_in_any_order_give_one_bracket(bracket, data):
    now = 0
    while bracket.ready():
        m = data.draw(st.sampled_from(bracket.ready()), label="match")
        now += 1
        bracket = bracket.with_result(m.id, data.draw(st.sampled_from(m.players), label="winner"), at=now)
    assert bracket.is_complete()
    results = list(bracket.results)
    shuffled = data.draw(st.permutations(results), label="order")
    again = Bracket.build(bracket.event, bracket.draws)
    pending = list(shuffled)
    while pending:
        r = next(r for r in pending if again.match(r.match).is_ready())
        pending.remove(r)
        again = again.with_result(r.match, r.winner, at=r.at)
    assert again == bracket and again.matches() == bracket.matches()
