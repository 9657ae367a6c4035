"""The TD's draw file: read whole or refused whole with a code, and kept by the store as JSON
that reads back to the same setup."""

from __future__ import annotations

import pytest

from hub.live.actions import ActionError
from hub.live.draw_setup import read_setup, setup_from_json
from rulebook.custom_profiles import ProfileBook

NAMES = ProfileBook().names()

GOOD = """
[draw]
tables = ["1", "2", "10"]
grace_minutes = 3
needs_verified = false
random_seed = 11

[draw.prefer]
consolation = ["10"]

[[flights]]
name = "main"
size = 8
profile = "wbgf-2023"
lengths = [3, 5]

[[flights]]
name = "consolation"
feeds = [{ flight = "main", round = 1 }]
profile = "wbgf-2023"
lengths = [3]
""" + "".join(
    f'[[players]]\nkey = "p{n}"\nname = "Player  {n}"\nid = "F{n}"\n'
    f'[[entries]]\nflight = "main"\nplayer = "p{n}"\n'
    for n in range(1, 7)
)


def no_file(name: str) -> str:
    raise AssertionError(f"no file expected: {name}")


def test_a_draw_file_reads_and_the_store_keeps_the_same_setup():
    setup = read_setup(GOOD, NAMES, no_file)
    assert [f.name for f in setup.event.flights] == ["main", "consolation"]
    assert setup.tables == ("1", "2", "10")
    assert setup.settings.grace_ms == 180_000 and not setup.settings.needs_verified
    assert setup.settings.preferred("consolation") == ("10",)
    assert setup.draws[0].random_seed == 11 and len(setup.draws[0].players) == 6
    assert setup.player("p3").name == "Player 3"
    again = setup_from_json(setup.as_json())
    assert again == setup
    assert read_setup(GOOD, NAMES, no_file) == setup  # the same seed, the same draw


def test_a_drawn_bracket_csv_is_read_next_to_the_file():
    text = GOOD.replace("random_seed = 11", 'bracket = "drawn.csv"')
    csv_text = "flight,position,player\nmain,1,p1\nmain,3,p2\nmain,4,p3\nmain,5,p4\nmain,6,p5\nmain,8,p6\n"
    setup = read_setup(text, NAMES, lambda name: csv_text if name == "drawn.csv" else no_file(name))
    assert setup.draws[0].positions == ("p1", None, "p2", "p3", "p4", "p5", None, "p6")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (
            ('profile = "wbgf-2023"\nlengths = [3, 5]', 'profile = "nope"\nlengths = [3, 5]'),
            "draw.profile.unknown",
        ),
        (("random_seed = 11", ""), "draw.file"),
        (('tables = ["1", "2", "10"]', "tables = []"), "draw.file"),
        (('consolation = ["10"]', 'consolation = ["7"]'), "draw.file"),
        (('player = "p6"', 'player = "p9"'), "draw.file"),
        (("size = 8", "size = 6"), "draw.flight.size"),
        (("[draw]", "[draw"), "draw.file"),
    ],
)
def test_a_bad_draw_file_is_refused_whole_with_its_code(change, code):
    old, new = change
    assert old in GOOD
    with pytest.raises(ActionError) as refused:
        read_setup(GOOD.replace(old, new, 1), NAMES, no_file)
    assert refused.value.code == code
    assert refused.value.status == 422
