"""What the board and a player's page show of the draw (hub/web/draw_public.py), for any bracket
hypothesis makes, played part of the way with scores and withdrawals: no registry key ever
reaches the room; every seat's name is its player's; a player's path is exactly their matches
in the draw's order, with their results from their side, and their next match is the bracket's
own next match for them."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.draw import Bracket, bracket_json
from hub.draw.bracket import State
from hub.web.draw_public import player_view, public_draw
from tests.hub.draw.draw_play import brackets


def played(bracket: Bracket, data: st.DataObject) -> Bracket:
    for now in range(data.draw(st.integers(0, 40), label="results")):
        if data.draw(st.integers(0, 9), label="withdraw?") == 0 and bracket.players():
            out = data.draw(st.sampled_from(sorted(bracket.players())), label="withdrawn")
            if not bracket.is_withdrawn(out):
                bracket = bracket.with_withdrawal(out, now)
            continue
        ready = bracket.ready()
        if not ready:
            break
        m = data.draw(st.sampled_from(ready), label="match")
        winner = data.draw(st.sampled_from(m.players), label="winner")
        points = (data.draw(st.integers(1, 9)), data.draw(st.integers(0, 8)))
        bracket = bracket.with_result(m.id, winner, at=now, points=points)
    return bracket


def no_tile(table: str) -> dict[str, Any] | None:
    return None


@settings(max_examples=60, deadline=None)
@given(bracket=brackets(max_exp=4), data=st.data())
def test_the_room_sees_names_and_each_player_their_own_path(bracket: Bracket, data: st.DataObject) -> None:
    bracket = played(bracket, data)
    doc = json.loads(bracket_json(bracket))
    names = {key: f"Player {n}" for n, key in enumerate(sorted(bracket.players()), start=1)}
    board = public_draw(doc, names)
    text = json.dumps(board)
    assert not any(f'"{key}"' in text for key in names), text
    assert "random_seed" not in text and "positions" not in text and "confirmed_at" not in text
    assert sorted(board["names"].values()) == sorted(names.values())
    rows = [m for f in board["flights"] for r in f["rounds"] for m in r["matches"]]
    for row in rows:
        m = bracket.match(row["id"])
        shown = [board["names"][s["player"]] if s["player"] else None for s in row["seats"]]
        assert shown == [names[s] if isinstance(s, str) else None for s in m.seats]
    order = [row["id"] for row in rows]
    for key in names:
        view = player_view(doc, key, names, no_tile)
        assert not re.search(r'"p\d+"', json.dumps(view))
        mine = [m for m in bracket.matches() if key in m.players]
        assert [s["id"] for s in view["path"]] == sorted((m.id for m in mine), key=order.index)
        for step in view["path"]:
            m = bracket.match(step["id"])
            other = [p for p in m.players if p != key]
            assert step["opponent"] == (names[other[0]] if other else None)
            if m.state in (State.PLAYED, State.WALKOVER):
                assert step["won"] == (m.winner == key)
            if m.state is State.PLAYED and m.result is not None and m.result.points is not None:
                won, lost = m.result.points
                assert step["points"] == (
                    {"me": won, "opponent": lost} if m.winner == key else {"me": lost, "opponent": won}
                )
        following = bracket.next_match(key)
        if bracket.is_withdrawn(key):
            assert view["standing"] == "withdrawn"
        elif following is None:
            assert view["next"] is None and view["standing"] in ("won", "out")
        else:
            assert view["next"] is not None and view["next"]["id"] == following.id
