"""The pure debouncer: presses carry their first edge's time, bounces vanish, long press once."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import drivers.debounce
from drivers.debounce import ButtonEvent, Debouncer


def press(at: int) -> ButtonEvent:
    return ButtonEvent("press", at)


def release(at: int) -> ButtonEvent:
    return ButtonEvent("release", at)


def long_press(at: int) -> ButtonEvent:
    return ButtonEvent("long_press", at)


def feed_all(d: Debouncer, edges: list[tuple[bool, int]]) -> list[ButtonEvent]:
    out: list[ButtonEvent] = []
    for level, at in edges:
        out.extend(d.feed(level, at))
    return out


def test_clean_press_and_release_are_reported_at_their_edges() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    assert d.feed(True, 1000) == [press(1000)]
    assert d.is_pressed and d.pressed_since_ms == 1000
    assert d.feed(False, 1200) == [release(1200)]
    assert not d.is_pressed and d.pressed_since_ms is None
    assert d.poll(5000) == []


def test_bouncy_press_and_release_give_one_event_each_at_the_first_edge() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    bouncy_press = [(True, 1000), (False, 1001), (True, 1004), (False, 1009), (True, 1017)]
    assert feed_all(d, bouncy_press) == [press(1000)]
    bouncy_release = [(False, 1400), (True, 1402), (False, 1405), (True, 1411), (False, 1420)]
    assert feed_all(d, bouncy_release) == [release(1400)]
    assert d.poll(1500) == [] and d.poll(4000) == []
    assert not d.is_pressed


def test_the_press_is_reported_immediately_not_after_the_bounce_window() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    assert d.feed(True, 50) == [press(50)]  # nothing has been polled or fed after the edge


def test_a_tap_shorter_than_the_window_is_released_when_the_window_ends() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    assert d.feed(True, 0) == [press(0)]
    assert d.feed(False, 10) == []  # inside the window: could be bounce
    assert d.poll(29) == []
    assert d.poll(30) == [release(10)]  # it stayed released: the release happened at 10
    assert d.poll(100) == []


def test_a_change_settled_inside_the_window_is_found_by_the_next_edge_too() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    d.feed(True, 0)
    d.feed(False, 10)
    # The next edge (a new press at 200) first settles the pending release at 10.
    assert d.feed(True, 200) == [release(10), press(200)]


def test_long_press_is_reported_once_at_the_threshold_via_poll() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    d.feed(True, 100)
    assert d.poll(1599) == []
    assert d.poll(1650) == [long_press(1600)]
    assert d.poll(5000) == []
    assert d.feed(False, 6000) == [release(6000)]
    # A new press can be long again.
    d.feed(True, 7000)
    assert d.poll(9000) == [long_press(8500)]


def test_long_press_is_found_on_the_release_edge_without_polling() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    d.feed(True, 0)
    assert d.feed(False, 2000) == [long_press(1500), release(2000)]


def test_bounces_while_held_do_not_restart_the_long_press_timer() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    assert feed_all(d, [(True, 0), (False, 3), (True, 7)]) == [press(0)]
    assert d.poll(1500) == [long_press(1500)]


def test_a_short_press_is_not_long() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    d.feed(True, 0)
    assert d.feed(False, 1499) == [release(1499)]
    assert d.poll(10_000) == []


def test_older_timestamps_are_treated_as_now() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    d.feed(True, 1000)
    assert d.poll(900) == []  # a poll timestamped before the edge (other thread): harmless
    assert d.feed(False, 990) == []  # clamped to 1000: inside the window
    assert d.poll(1030) == [release(1000)]


def test_a_repeated_level_is_not_an_edge() -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    assert d.feed(True, 0) == [press(0)]
    assert d.feed(True, 500) == []
    assert d.feed(False, 600) == [release(600)]
    assert d.feed(False, 700) == []


@pytest.mark.parametrize(("debounce_ms", "long_press_ms"), [(-1, 1500), (30, 30), (30, 10)])
def test_bad_settings_are_refused(debounce_ms: int, long_press_ms: int) -> None:
    with pytest.raises(ValueError):
        Debouncer(debounce_ms=debounce_ms, long_press_ms=long_press_ms)


def test_module_examples() -> None:
    result = doctest.testmod(drivers.debounce)
    assert result.attempted > 0 and result.failed == 0


# -- properties ------------------------------------------------------------------------------

gaps = st.lists(st.integers(min_value=1, max_value=2500), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(gaps=gaps, start_pressed_level=st.booleans(), tail=st.integers(min_value=0, max_value=5000))
def test_events_are_well_formed_for_any_edge_sequence(
    gaps: list[int], start_pressed_level: bool, tail: int
) -> None:
    debounce_ms, long_ms = 30, 1500
    d = Debouncer(debounce_ms=debounce_ms, long_press_ms=long_ms)
    edges: list[tuple[bool, int]] = []
    t, level = 0, start_pressed_level
    for gap in gaps:
        t += gap
        edges.append((level, t))
        level = not level
    events = feed_all(d, edges)
    last_edge_at = edges[-1][1]
    events += d.poll(last_edge_at + debounce_ms + tail)

    edge_times = {(lvl, at) for lvl, at in edges}
    pressed = False
    press_at: int | None = None
    long_seen = False
    prev_at = -1
    for ev in events:
        assert ev.at_ms >= prev_at, "events come in time order"
        prev_at = ev.at_ms
        if ev.kind == "long_press":
            assert pressed and not long_seen and press_at is not None
            assert ev.at_ms == press_at + long_ms
            long_seen = True
            continue
        is_press = ev.kind == "press"
        assert is_press != pressed, "press and release alternate"
        assert (is_press, ev.at_ms) in edge_times, "transitions carry a real edge's timestamp"
        pressed = is_press
        press_at = ev.at_ms if is_press else None
        long_seen = False
    # Once everything has settled the debounced level is the real one.
    assert d.is_pressed == edges[-1][0]
    if pressed and press_at is not None and last_edge_at + debounce_ms + tail >= press_at + long_ms:
        assert long_seen


@settings(max_examples=200, deadline=None)
@given(
    presses=st.lists(
        st.tuples(
            st.lists(st.integers(min_value=1, max_value=9), max_size=6),  # bounce gaps (< 30 ms total)
            st.integers(min_value=40, max_value=3000),  # held
            st.integers(min_value=40, max_value=3000),  # released
        ),
        min_size=1,
        max_size=10,
    )
)
def test_each_bouncy_press_gives_exactly_one_press_at_its_first_edge(
    presses: list[tuple[list[int], int, int]],
) -> None:
    d = Debouncer(debounce_ms=30, long_press_ms=1500)
    t = 0
    events: list[ButtonEvent] = []
    expected: list[ButtonEvent] = []
    for bounce, held, released in presses:
        first = t
        edges = [(True, t)]
        level = True
        for gap in bounce[:3]:  # at most 3 bounces of < 10 ms: within the 30 ms window
            t += gap
            level = not level
            edges.append((level, t))
        if not level:
            t += 1
            edges.append((True, t))
        events += feed_all(d, edges)
        expected.append(press(first))
        t = first + held
        if held >= 1500:
            expected.append(long_press(first + 1500))
        events += d.feed(False, t)
        expected.append(release(t))
        t += released
        events += d.poll(t)
    assert events == expected
