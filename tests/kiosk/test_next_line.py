"""The "Next:" lines on the result screen (kiosk/ui/screens/next_line.py): each player's line on
his half, in his language, whole and readable at both sizes in every language, and only for the
match they follow (the hub's ``table/{t}/next``, docs/protocol.md §3.8)."""

from __future__ import annotations

from typing import Any

import pygame
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiosk.ui import next_carry, samples
from kiosk.ui.i18n import LANGUAGES, translator
from kiosk.ui.screens import next_line
from kiosk.ui.view import KioskView, LocalState
from rulebook.messages import NextLine, NextMessage
from rulebook.wire import parse_next
from tests.kiosk.test_ui_layout import inside

SIZES = [(800, 480), (1280, 720)]
#: the smallest text a line may shrink to (the clock notice's floor), in pixels
MIN_PX = {(800, 480): 12, (1280, 720): 19}
LONG_NAME = "Maximilian Alexander von Hohenzollern-Sigmaringen"


def line(**fields: Any) -> NextLine:
    empty: NextLine = {
        "kind": "out",
        "flight": "main",
        "round": None,
        "table": None,
        "opponent": None,
        "waits_for": None,
        "from_table": None,
        "left": None,
    }
    return {**empty, **fields}  # type: ignore[typeddict-item]


#: every case the hub sends, with an opponent's name and flight names longer than most
CASES: dict[str, NextLine] = {
    "called": line(kind="called", round=3, table="14", opponent=LONG_NAME),
    "called-fed": line(
        kind="called", flight="consolation", round=1, table="114", opponent=LONG_NAME, left="main"
    ),
    "ready": line(kind="ready", round=3, opponent=LONG_NAME),
    "ready-fed": line(kind="ready", flight="last_chance", round=2, opponent=LONG_NAME, left="consolation"),
    "waiting-winner": line(kind="waiting", round=3, waits_for="winner", from_table="9"),
    "waiting-loser": line(kind="waiting", round=1, waits_for="loser", from_table="109"),
    "waiting": line(kind="waiting", round=3, waits_for="winner"),
    "waiting-fed": line(
        kind="waiting", flight="consolation", round=1, waits_for="loser", from_table="9", left="main"
    ),
    "won": line(kind="won", flight="consolation"),
    "out": line(kind="out", flight="last_chance"),
}

EN = {
    "called": f"Next: table 14 — round 3 vs {LONG_NAME}",
    "called-fed": f"Out of the main flight — next: table 114, consolation round 1 vs {LONG_NAME}",
    "ready": f"Next: round 3 vs {LONG_NAME} — your table will be called",
    "ready-fed": f"Out of the consolation flight — next: last_chance round 2 vs {LONG_NAME}",
    "waiting-winner": "Next: round 3 — waiting for the winner of table 9",
    "waiting-loser": "Next: round 1 — waiting for the loser of table 109",
    "waiting": "Next: round 3 — waiting for your opponent",
    "waiting-fed": "Out of the main flight — next: consolation round 1, waiting for your opponent",
    "won": "You won the consolation flight!",
    "out": "Out of the last_chance flight — thank you for playing",
}


def message(match_id: str, a: NextLine, b: NextLine) -> NextMessage:
    # as the table's link hands it on: checked against the declaration
    return parse_next({"match_id": match_id, "wall": 1_900_000_000_000, "A": a, "B": b})


def draw(
    sample: str,
    lines: NextMessage | None,
    size: tuple[int, int] = (800, 480),
    lang: str = "en",
    langs: dict[str, str | None] | None = None,
) -> KioskView:
    snap = samples.sample_snapshot(sample)
    view = KioskView(size, lang=lang)
    local = LocalState(hub_online=True, synced=True, match_id=snap.get("match_id"), next_lines=lines)
    if langs:
        local.langs = dict(langs)
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view


def shown(view: KioskView) -> dict[str, Any]:
    return {p.region: p for p in view.last_layout if p.region in ("A.bot", "B.bot")}


def test_each_case_says_where_the_player_goes_in_english() -> None:
    en = translator("en")
    assert {case: next_line.text(en, ln) for case, ln in CASES.items()} == EN


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_each_case_is_translated_and_keeps_what_it_names(lang: str) -> None:
    """What the English line names (the table, the opponent, the round, the flights), each
    language names too."""
    tr = translator(lang)
    for case, ln in CASES.items():
        text = next_line.text(tr, ln)
        assert text != EN[case], f"{lang} {case}: not translated"
        for value in (ln["table"], ln["opponent"], ln["from_table"], ln["left"], ln["round"]):
            if value is not None and str(value) in EN[case]:
                assert str(value) in text, f"{lang} {case}: {value!r} missing from {text!r}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_line_fits_its_half_in_every_language_at_both_sizes(size: tuple[int, int], lang: str) -> None:
    snap = samples.sample_snapshot("finished_confirmed")
    names = list(CASES)
    for a, b in zip(names, names[1:] + names[:1], strict=True):
        view = draw("finished_confirmed", message(snap["match_id"], CASES[a], CASES[b]), size, lang)
        got = shown(view)
        assert set(got) == {"A.bot", "B.bot"}
        tr = translator(lang)
        for side, case in (("A", a), ("B", b)):
            p = got[f"{side}.bot"]
            assert p.text == next_line.text(tr, CASES[case])
            assert inside(p.rect, p.box), f"{lang} {case}: {p.text!r} overflows"
            assert p.size >= MIN_PX[size], f"{lang} {case}: {p.text!r} shrunk to {p.size}px"


def test_each_half_speaks_its_players_language() -> None:
    snap = samples.sample_snapshot("finished_confirmed")
    lines = message(snap["match_id"], CASES["called"], CASES["waiting-fed"])
    got = shown(draw("finished_confirmed", lines, langs={"A": "el", "B": "bg"}))
    assert got["A.bot"].text == next_line.text(translator("el"), CASES["called"])
    assert got["B.bot"].text == next_line.text(translator("bg"), CASES["waiting-fed"])


def test_the_lines_of_another_match_or_before_the_confirmation_are_not_shown() -> None:
    snap = samples.sample_snapshot("finished_confirmed")
    assert shown(draw("finished_confirmed", message("r9-t1", CASES["called"], CASES["out"]))) == {}
    assert shown(draw("finished_confirmed", None)) == {}
    # A confirmed, B not yet: B's half still asks B to confirm; A's line is shown
    one = samples.sample_snapshot("finished")
    view = draw("finished", message(one["match_id"], CASES["called"], CASES["out"]))
    got = shown(view)
    assert got["A.bot"].text == EN["called"]
    assert got["B.bot"].text == "Confirm the score"
    assert snap["match_id"] == one["match_id"]


# -- the previous match's lines on the next match's waiting screen (kiosk/ui/next_carry.py) ------


def carried_shown(view: KioskView) -> dict[str, Any]:
    return {p.region: p for p in view.last_layout if p.region in ("A.prev", "B.prev")}


def draw_called(
    lines: NextMessage | None,
    carried: next_carry.Carried | None,
    size: tuple[int, int] = (800, 480),
    lang: str = "en",
) -> KioskView:
    snap = samples.sample_snapshot("called")
    view = KioskView(size, lang=lang)
    local = LocalState(
        hub_online=True, synced=True, match_id=snap.get("match_id"), next_lines=lines, carried=carried
    )
    view.draw(pygame.Surface(size), snap, local, snap["wall"])
    return view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_previous_lines_fit_the_waiting_screen_in_each_players_language(
    size: tuple[int, int], lang: str
) -> None:
    """Each half says the previous player's line in the language he had chosen (the table's when
    he chose none), whole, above the new match's Check in button."""
    match_id = samples.sample_snapshot("called")["match_id"]
    names = list(CASES)
    for a, b in zip(names, names[1:] + names[:1], strict=True):
        lines = message("r2-t12", CASES[a], CASES[b])
        carried = next_carry.Carried("r2-t12", match_id, {"A": None, "B": "hu"}, 0.0)
        got = carried_shown(draw_called(lines, carried, size, lang))
        assert got["A.prev"].text == next_line.text(translator(lang), CASES[a])
        assert got["B.prev"].text == next_line.text(translator("hu"), CASES[b])
        for p in got.values():
            assert inside(p.rect, p.box), f"{lang} {p.text!r} overflows"
            assert p.size >= MIN_PX[size], f"{lang} {p.text!r} shrunk to {p.size}px"
        assert any(
            p.text == translator(lang)("Check in")
            for p in draw_called(lines, carried, size, lang).last_layout
        )


def test_only_the_carried_matchs_lines_are_shown_on_the_waiting_screen() -> None:
    match_id = samples.sample_snapshot("called")["match_id"]
    carried = next_carry.Carried("r2-t12", match_id, {"A": None, "B": None}, 0.0)
    assert carried_shown(draw_called(message("r2-t12", CASES["called"], CASES["out"]), None)) == {}
    # lines of another match than the previous one (not yet the previous match's)
    assert carried_shown(draw_called(message("r1-t12", CASES["called"], CASES["out"]), carried)) == {}
    assert carried_shown(draw_called(None, carried)) == {}
    # carried onto another match than the one on the screen
    other = next_carry.Carried("r2-t12", "r9-t12", {"A": None, "B": None}, 0.0)
    assert carried_shown(draw_called(message("r2-t12", CASES["called"], CASES["out"]), other)) == {}


def follow(carried: next_carry.Carried | None, **kw: Any) -> next_carry.Carried | None:
    args: dict[str, Any] = {
        "shown": "m2",
        "match_id": "m2",
        "waiting": True,
        "checked_in": False,
        "langs": {"A": None, "B": None},
        "now": 100.0,
    }
    return next_carry.follow(carried, **{**args, **kw})


def test_the_lines_are_carried_until_the_first_checkin_or_three_minutes() -> None:
    started = follow(None, shown="m1", langs={"A": "el", "B": None})
    assert started == next_carry.Carried("m1", "m2", {"A": "el", "B": None}, 100.0)
    # the screen has caught up with the new match (its choices reset): still carried, as it was
    assert follow(started, langs={"A": None, "B": None}, now=279.9) == started
    assert follow(started, now=100.0 + next_carry.CARRY_S) is None
    assert follow(started, checked_in=True, now=101.0) is None
    assert follow(started, waiting=False, now=101.0) is None  # the match under way
    assert follow(started, shown="m3", match_id="m3", now=101.0) is None  # not the match carried onto
    # m2 replaced in turn (moved): m2's own lines, if any, are carried onto m3 from now
    assert follow(started, match_id="m3", now=101.0) == next_carry.Carried(
        "m2", "m3", {"A": None, "B": None}, 101.0
    )
    # nothing is carried without a match replacing the one on the screen
    assert follow(None) is None
    assert follow(None, shown=None) is None
    assert follow(None, shown="m1", match_id=None) is None


@given(
    st.lists(
        st.tuples(st.sampled_from(["m1", "m2", None]), st.booleans(), st.booleans(), st.floats(0, 400)),
        max_size=12,
    )
)
def test_a_carry_never_outlives_its_match_a_checkin_or_three_minutes(steps: list[Any]) -> None:
    carried: next_carry.Carried | None = None
    shown: str | None = "m0"
    now = 0.0
    for match_id, waiting, checked_in, dt in steps:
        now += dt
        carried = next_carry.follow(
            carried,
            shown=shown,
            match_id=match_id,
            waiting=waiting,
            checked_in=checked_in,
            langs={"A": None, "B": None},
            now=now,
        )
        if carried is not None:
            assert carried.match_id == match_id and carried.previous != match_id
            assert waiting and not checked_in and now - carried.since < next_carry.CARRY_S
        shown = match_id
