"""What a schedule import would change (pure): a row for two players already paired in the round
is the same match (moved, not doubled), by id when both rows have ids, else by name whatever the
accents; a player booked twice in a round is found; the preview sorts rows into new, changed,
moved, removed, and warns about matches in progress."""

from __future__ import annotations

from dataclasses import replace

from hub.tournament.schedule import ScheduledMatch
from hub.tournament.schedule_diff import double_bookings, imported, keep_match_ids, preview


def m(table: str, a: str, b: str, rnd: str = "1", **kw) -> ScheduledMatch:
    return ScheduledMatch(
        match_id=kw.pop("match_id", f"r{rnd}-t{table}"),
        round=rnd,
        table=table,
        player_a=a,
        player_b=b,
        length=7,
        start_wall=1000,
        clock=True,
        profile="wbgf-2023",
        **kw,
    )


EXISTING = [m("12", "Anna Berg", "Jon Dahl"), m("14", "Søren Ærø", "Ζωή Νικολάου", player_a_id="NOR-1")]


def test_a_row_for_a_pair_already_in_the_round_keeps_its_match_id():
    rows = keep_match_ids(EXISTING, [m("20", "anna berg", "JON DAHL"), m("21", "Soren Aero", "Ζωη Νικολαου")])
    assert [r.match_id for r in rows] == ["r1-t12", "r1-t14"]
    # ids decide when both rows have one: another Søren Ærø (another id) is another player
    other = keep_match_ids(EXISTING, [m("21", "Søren Ærø", "Ζωή Νικολάου", player_a_id="NOR-2")])
    assert other[0].match_id == "r1-t21"
    # the same pair in another round is another match
    assert keep_match_ids(EXISTING, [m("12", "Anna Berg", "Jon Dahl", rnd="2")])[0].match_id == "r2-t12"


def test_swapping_two_tables_moves_both_matches():
    swap = keep_match_ids(EXISTING, [m("14", "Anna Berg", "Jon Dahl"), m("12", "Søren Ærø", "Ζωή Νικολάου")])
    after = {x.match_id: x.table for x in imported(EXISTING, swap)}
    assert after == {"r1-t12": "14", "r1-t14": "12"}
    assert double_bookings(imported(EXISTING, swap)) == []


def test_a_player_in_two_matches_of_a_round_is_found():
    twice = imported(EXISTING, [m("30", "Jon Dahl", "Kari Holm")])
    assert double_bookings(twice) == [
        "Jon Dahl would play two matches in round 1: r1-t12 at table 12 and r1-t30 at table 30"
    ]


def test_the_preview_names_what_changes_and_warns_about_play_in_progress():
    incoming = keep_match_ids(
        EXISTING,
        [
            m("20", "Anna Berg", "Jon Dahl"),
            replace(m("14", "Søren Ærø", "Ζωή Νικολάου", player_a_id="NOR-1"), length=9),
            m("30", "Mia Lund", "Ola Nes"),
        ],
    )
    states = {
        "r1-t12": {"phase": "playing", "present": {"A": True, "B": True}, "score": {"A": 3, "B": 2}},
        "r1-t14": {"phase": "playing", "present": {"A": True, "B": True}, "score": {"A": 0, "B": 1}},
    }
    pv = preview(EXISTING, incoming, states=states, results=set())
    assert [x["match_id"] for x in pv.moved] == ["r1-t12"] and pv.moved[0]["from_table"] == "12"
    assert [x["match_id"] for x in pv.updated] == ["r1-t14"] and pv.updated[0]["changes"] == {
        "length": [7, 9]
    }
    assert [x["match_id"] for x in pv.added] == ["r1-t30"] and pv.removed == [] and pv.errors == []
    assert pv.warnings == [
        "r1-t12 (Anna Berg – Jon Dahl) is being played at table 12 (3–2): it moves to table 20 with its "
        "score and clocks, and the players check in there",
        "r1-t14 (Søren Ærø – Ζωή Νικολάου) is in progress at table 14: its table keeps the match as it is "
        "(length changed here only); correct it at the table if needed",
    ]
    gone = preview(
        EXISTING, [m("12", "Kari Holm", "Per Aas", match_id="new-12")], states=states, results=set()
    )
    assert [x["match_id"] for x in gone.removed] == ["r1-t12"]
    assert "leaves the schedule" in gone.warnings[0]


# -- the indexed look-ups against the plain definitions ----------------------------------------
# A championship's round has thousands of matches, so the look-ups index the players; these
# property tests hold them to the plain scans they replace, names and ids drawn from a few values
# so that collisions (the same name under two ids, a name with and without an id) are common.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hub.tournament.schedule_diff import _same_pair, _same_player  # noqa: E402

NAMES = st.sampled_from(["Anna Berg", "anna berg", "Ánna Berg", "Jon Dahl", "Søren", "Soren", "Zoe"])
IDS = st.sampled_from(["", "", "NOR-1", "NOR-2"])


@st.composite
def matches(draw: st.DrawFn) -> ScheduledMatch:
    return m(
        draw(st.sampled_from(["1", "2", "3", "4"])),
        draw(NAMES),
        draw(NAMES),
        rnd=draw(st.sampled_from(["1", "2"])),
        match_id=draw(st.sampled_from(["x1", "x2", "x3", "x4", "x5", "x6"])),
        player_a_id=draw(IDS),
        player_b_id=draw(IDS),
    )


def plain_keep(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    out = []
    for row in incoming:
        old = next((x for x in existing if x.round == row.round and _same_pair(x, row)), None)
        out.append(replace(row, match_id=old.match_id) if old is not None else row)
    return out


def plain_imported(existing: list[ScheduledMatch], incoming: list[ScheduledMatch]) -> list[ScheduledMatch]:
    rows = {x.match_id: x for x in existing}
    for row in incoming:
        for mid, old in list(rows.items()):
            if mid != row.match_id and old.round == row.round and old.table == row.table:
                del rows[mid]
        rows[row.match_id] = row
    return list(rows.values())


def plain_double_bookings(schedule: list[ScheduledMatch]) -> list[str]:
    problems, earlier = [], []
    for row in sorted(schedule, key=lambda x: (x.round, x.table)):
        for player in ((row.player_a, row.player_a_id), (row.player_b, row.player_b_id)):
            first = next(
                (
                    x
                    for p, x in earlier
                    if x.round == row.round and x.match_id != row.match_id and _same_player(p, player)
                ),
                None,
            )
            if first is not None:
                problems.append(
                    f"{player[0]} would play two matches in round {row.round}: {first.match_id} at table "
                    f"{first.table} and {row.match_id} at table {row.table}"
                )
        earlier += [((row.player_a, row.player_a_id), row), ((row.player_b, row.player_b_id), row)]
    return problems


@settings(max_examples=300)
@given(st.lists(matches(), max_size=8), st.lists(matches(), max_size=8))
def test_the_indexed_lookups_give_what_the_plain_scans_give(existing, incoming):
    existing = list({x.match_id: x for x in existing}.values())
    assert keep_match_ids(existing, incoming) == plain_keep(existing, incoming)
    assert imported(existing, incoming) == plain_imported(existing, incoming)
    assert double_bookings(existing + incoming) == plain_double_bookings(existing + incoming)
