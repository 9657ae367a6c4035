"""Pure parts of the kiosk application: screen rotation geometry and scripted inputs."""

from __future__ import annotations

import pytest

from kiosk.rotation import logical_size, pygame_angle, to_logical_point, to_panel_rect
from kiosk.script import ScriptError, ScriptPlayer, parse_script


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_a_pixel_goes_to_the_panel_and_back(rotation):
    logical = logical_size((80, 48), rotation)
    for x in range(logical[0]):
        for y in range(logical[1]):
            px, py, w, h = to_panel_rect((x, y, 1, 1), logical, rotation)
            assert (w, h) == (1, 1)
            assert to_logical_point((px + 0.5, py + 0.5), logical, rotation) == (x, y)


def test_rects_turn_with_the_picture():
    assert logical_size((800, 480), 90) == (480, 800)
    # picture turned clockwise: its top-left corner lands top-right on the panel
    assert to_panel_rect((0, 0, 10, 20), (480, 800), 90) == (780, 0, 20, 10)
    assert to_panel_rect((0, 0, 10, 20), (800, 480), 180) == (790, 460, 10, 20)
    assert to_panel_rect((0, 0, 10, 20), (480, 800), 270) == (0, 470, 20, 10)
    assert [pygame_angle(r) for r in (0, 90, 180, 270)] == [0, 270, 180, 90]


def test_touches_outside_are_clamped():
    assert to_logical_point((-5, 9999), (800, 480), 0) == (0, 479)


def test_script_lines_and_timing():
    steps = parse_script(
        '# a comment\n{"input": "checkin", "side": "A"}\n\n{"after_ms": 100, "input": "tick"}\n'
        '{"after_ms": 50, "exit": true}\n'
    )
    assert [s.after_ms for s in steps] == [0, 100, 50]
    assert steps[0].item == {"input": "checkin", "side": "A"} and steps[2].is_exit
    now = [1000]
    player = ScriptPlayer(steps, lambda: now[0])
    assert [s.item.get("input") for s in player.due()] == ["checkin"]
    now[0] = 1099
    assert player.due() == []
    now[0] = 1200
    assert [s.is_exit for s in player.due()] == [False, True]
    assert player.done


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", "line 1: not JSON"),
        ("[1]", "line 1: expected a JSON object"),
        ('{"after_ms": -1}', "after_ms"),
    ],
)
def test_bad_scripts_are_refused(text, message):
    with pytest.raises(ScriptError, match=message):
        parse_script(text)
