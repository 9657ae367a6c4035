"""The controller: journal first, then the reducer; ticks; the state is always replay(journal)."""

from __future__ import annotations

import pytest

from kiosk.controller import TableController
from kiosk.journal import Journal, JournalError
from rulebook.replay import replay
from rulebook.snapshot import snapshot
from rulebook.table import new_table

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
WALL0 = 1_795_000_000_000


class Clock:
    """Injected journal time (ms): the test decides when time passes."""

    def __init__(self, t: int = 0):
        self.t = t

    def __call__(self) -> int:
        return self.t


def make(tmp_path, t: int = 0, **kw) -> tuple[TableController, Clock]:
    clock = Clock(t)
    journal = Journal(tmp_path / "journal.sqlite3")
    ctl = TableController(journal, "12", clock_ms=clock, wall_ms=lambda: WALL0 + clock.t, **kw)
    return ctl, clock


def start_match(ctl: TableController, clock: Clock, length: int = 5) -> None:
    """Assign, both check in, A wins the opening roll, B starts A's clock."""
    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": length,
            "players": PLAYERS,
            "clock": True,
        }
    )
    ctl.submit({"input": "checkin", "side": "A"})
    ctl.submit({"input": "checkin", "side": "B"})
    ctl.submit({"input": "opening_roll", "A": 5, "B": 2})
    ctl.submit({"input": "press", "side": "B"})
    assert ctl.state.clock.running == "A"


def replayed(ctl: TableController):
    return replay(ctl.journal.read_all(), new_table("12"))


def test_inputs_are_stamped_and_journaled(tmp_path):
    ctl, clock = make(tmp_path, t=100)
    clock.t = 250
    events = ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
    )
    assert events[0]["type"] == "assign" and events[0]["seq"] == 1
    (line,) = ctl.journal.read_all()
    assert line["at"] == 250 and line["wall"] == WALL0 + 250
    assert line["input"] == "assign" and line["match_id"] == "m1"
    assert ctl.state.match_id == "m1"
    assert ctl.state == replayed(ctl)


def test_journal_is_written_before_the_input_is_applied(tmp_path):
    """The row is in the journal while the state still lacks it (then the reducer runs)."""
    ctl, _clock = make(tmp_path)
    seen = []
    real_append = ctl.journal.append

    def append(inp):
        real_append(inp)
        seen.append((ctl.journal.count(), ctl.state.match_id))

    ctl.journal.append = append  # observe the order on the real journal
    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
    )
    assert seen == [(1, None)]
    assert ctl.state.match_id == "m1"


def test_killed_between_journal_and_apply_restores_the_same_state(tmp_path):
    """A crash after the write but before the apply: the restart applies what was journaled."""
    ctl, clock = make(tmp_path)
    start_match(ctl, clock)
    clock.t = 4_000

    class Killed(BaseException):
        pass

    real_append = ctl.journal.append

    def append_then_die(inp):
        real_append(inp)
        raise Killed

    ctl.journal.append = append_then_die
    with pytest.raises(Killed):
        ctl.submit({"input": "press", "side": "A"})
    assert ctl.state.clock.running == "A"  # never applied in this process
    path = ctl.journal.path
    ctl.journal.close()

    journal = Journal(path)
    again = TableController(journal, "12", clock_ms=Clock(4_000), wall_ms=lambda: WALL0)
    again.restore()
    lines = journal.read_all()
    assert lines[-2]["input"] == "press" and lines[-2]["side"] == "A"
    assert lines[-1] == {"at": 4_000, "wall": WALL0, "input": "pause", "reason": "power_loss"}
    assert again.state == replay(lines, new_table("12"))
    assert again.state.clock.running == "B"  # the press that was journaled counts
    assert again.state.paused == "power_loss"


def test_journal_failure_applies_nothing(tmp_path):
    ctl, _clock = make(tmp_path)
    ctl.journal.close()
    with pytest.raises(Exception):  # noqa: B017 - sqlite's ProgrammingError on a closed db
        ctl.submit(
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "m1",
                "length": 5,
                "players": PLAYERS,
                "clock": True,
            }
        )
    assert ctl.state.match_id is None


def test_rejected_inputs_are_journaled_and_change_nothing(tmp_path):
    ctl, _clock = make(tmp_path)
    before = ctl.state
    events = ctl.submit({"input": "press", "side": "A"})
    assert "rejected" in events[0]
    events = ctl.submit({"input": "bogus"})
    assert events[0]["rejected"] == "unknown input 'bogus'"
    assert [line["input"] for line in ctl.journal.read_all()] == ["press", "bogus"]
    assert ctl.state.match == before.match and ctl.state.phase == before.phase
    assert ctl.state == replayed(ctl)


def test_a_refusal_carries_its_code_and_the_values_its_message_names(tmp_path):
    """What the screen shows in the player's language: the rulebook's code and its values."""
    ctl, clock = make(tmp_path)
    start_match(ctl, clock)
    assert ctl.refusal is None
    clock.t += 1_000
    events = ctl.submit({"input": "press", "side": "B"})  # A's clock runs
    assert events[-1]["code"] == "clock.not_yours"
    refusal = ctl.refusal
    assert refusal is not None
    assert (refusal.code, dict(refusal.params), refusal.side) == ("clock.not_yours", {"side": "A"}, "B")
    ctl.submit({"input": "press", "side": "A"})
    assert ctl.refusal is None  # taken
    ctl.submit({"input": "double", "side": "A"})  # premature: A's turn has just ended
    ctl.submit({"input": "take", "side": "B"})
    ctl.submit({"input": "double", "side": "A"})  # B owns the cube
    refusal = ctl.refusal
    assert refusal is not None and refusal.code == "double.cube_owned"
    assert dict(refusal.params) == {"owner": "B"} and refusal.side == "A"
    ctl.submit({"input": "roll", "dice": [3, 1], "source": "tower"})
    ctl.submit({"input": "roll", "dice": [4, 4], "source": "tower"})  # the same turn: premature
    refusal = ctl.refusal
    assert refusal is not None and refusal.code == "roll.premature" and refusal.side is None
    assert dict(refusal.params) == {"side": ctl.state.turn}
    ctl.submit({"input": "cmd", "type": "resolve_flag", "winner": "A"})  # the TD's, from the screen
    refusal = ctl.refusal
    assert refusal is not None and (refusal.code, dict(refusal.params)) == ("flag.none", {})
    ctl.submit({"input": "win", "side": "A"})  # no kind: refused as malformed, with the field
    refusal = ctl.refusal
    assert refusal is not None and refusal.code == "field.missing"
    assert dict(refusal.params) == {"field": "kind"}


def test_not_an_object_is_refused_without_journaling(tmp_path):
    ctl, _clock = make(tmp_path)
    events = ctl.submit(["press", "A"])  # type: ignore[arg-type]
    assert events[0]["rejected"]
    assert ctl.journal.count() == 0


def test_edge_time_is_kept_and_clamped(tmp_path):
    ctl, clock = make(tmp_path)
    start_match(ctl, clock)
    clock.t = 10_000
    ctl.submit({"input": "press", "side": "A", "at": 9_400})  # the GPIO edge, 600 ms ago
    line = ctl.journal.read_all()[-1]
    assert line["at"] == 9_400 and line["wall"] == WALL0 + 9_400
    clock.t = 11_000
    ctl.submit({"input": "press", "side": "B", "at": 5_000})  # older than the journal: clamped
    assert ctl.journal.read_all()[-1]["at"] == 9_400
    ctl.submit({"input": "press", "side": "A", "at": 99_999})  # from the future: now
    assert ctl.journal.read_all()[-1]["at"] == 11_000
    assert all("rejected" not in e for e in list(ctl.events)[-3:])
    ats = [line["at"] for line in ctl.journal.read_all()]
    assert ats == sorted(ats)


def test_journal_time_never_goes_backwards_when_the_clock_does(tmp_path):
    ctl, clock = make(tmp_path, t=5_000)
    ctl.submit({"input": "tick"})
    clock.t = 10  # e.g. a monotonic clock that restarted
    ctl.submit({"input": "tick"})
    assert [line["at"] for line in ctl.journal.read_all()] == [5_000, 5_000]


def test_table_commands_from_the_screen_get_a_local_id(tmp_path):
    ctl, clock = make(tmp_path)
    start_match(ctl, clock)
    events = ctl.submit({"input": "cmd", "type": "td_ack"})
    line = ctl.journal.read_all()[-1]
    assert line["id"].startswith("local:") and len(line["id"]) > 10
    assert events[-1]["type"] == "cmd_done" and events[-1]["ok"] is True
    ctl.submit({"input": "cmd", "type": "td_ack", "id": "hub-7"})
    assert ctl.journal.read_all()[-1]["id"] == "hub-7"


def test_ticks_only_while_a_clock_runs(tmp_path):
    ctl, clock = make(tmp_path, tick_interval_ms=1000)
    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
    )
    for t in range(0, 5_000, 100):
        clock.t = t
        ctl.maybe_tick()
    assert [line["input"] for line in ctl.journal.read_all()] == ["assign"]  # nothing runs
    ctl.submit({"input": "checkin", "side": "A"})
    ctl.submit({"input": "checkin", "side": "B"})
    ctl.submit({"input": "opening_roll", "A": 5, "B": 2})
    ctl.submit({"input": "press", "side": "B"})  # A's clock runs from 4900
    start = clock.t
    for t in range(start, start + 10_050, 50):
        clock.t = t
        ctl.maybe_tick()
    ticks = [line["at"] for line in ctl.journal.read_all() if line["input"] == "tick"]
    assert ticks == [start + 1000 * i for i in range(1, 11)]
    ctl.submit({"input": "pause", "reason": "td"})
    n = ctl.journal.count()
    for t in range(clock.t, clock.t + 5_000, 100):
        clock.t = t
        ctl.maybe_tick()
    assert ctl.journal.count() == n  # paused: no ticks
    assert ctl.state == replayed(ctl)


def test_a_flag_is_ticked_at_once(tmp_path):
    ctl, clock = make(tmp_path, tick_interval_ms=10_000)
    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 1,
            "players": PLAYERS,
            "clock": {"minutes_per_point": 0.1, "delay_s": 0},
        }
    )
    ctl.submit({"input": "checkin", "side": "A"})
    ctl.submit({"input": "checkin", "side": "B"})
    ctl.submit({"input": "opening_roll", "A": 5, "B": 2})
    ctl.submit({"input": "press", "side": "B"})  # A: 6 s reserve, from t=0
    seen = []
    ctl.listeners.append(lambda events, c: seen.extend(events))
    clock.t = 5_999
    assert ctl.maybe_tick() == []
    clock.t = 6_050
    events = ctl.maybe_tick()
    assert [e["type"] for e in events] == ["flag"]
    assert events[0]["side"] == "A" and events[0]["at"] == 6_000
    assert seen == events
    assert ctl.state.phase == "flag"


def test_listeners_get_events_and_a_failing_one_does_not_stop_the_table(tmp_path):
    ctl, _clock = make(tmp_path)
    got = []

    def broken(events, c):
        raise RuntimeError("network down")

    ctl.listeners.extend([broken, lambda events, c: got.append([e["type"] for e in events])])
    ctl.submit(
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
    )
    assert got == [["assign"]]
    assert ctl.published_snapshot()["match_id"] == "m1"


def test_snapshot_reads_the_clock_now(tmp_path):
    ctl, clock = make(tmp_path)
    start_match(ctl, clock)  # A runs from 0 with 12 s delay, 10 min reserve
    clock.t = 20_000
    snap = ctl.snapshot()
    assert snap["clock"]["reserve_ms"]["A"] == 600_000 - 8_000
    assert snap["table"] == "12"
    assert ctl.published_snapshot()["clock"]["reserve_ms"]["A"] == 600_000  # as of the last change


def test_set_table_id(tmp_path):
    ctl, _clock = make(tmp_path)
    ctl.set_table_id("14")
    assert ctl.snapshot()["table"] == "14"
    assert ctl.published_snapshot()["table"] == "14"


def test_state_equals_replay_after_a_whole_game(tmp_path):
    ctl, clock = make(tmp_path)
    start_match(ctl, clock, length=7)
    script = [
        {"input": "press", "side": "A"},
        {"input": "roll", "dice": [3, 1], "source": "tower"},
        {"input": "press", "side": "B"},
        {"input": "double", "side": "A"},
        {"input": "take", "side": "B"},
        {"input": "roll", "dice": [6, 6], "source": "manual"},
        {"input": "win", "side": "A", "kind": "gammon"},
        {"input": "break", "side": "B"},
        {"input": "return", "side": "B"},
    ]
    for inp in script:
        clock.t += 3_000
        ctl.submit(inp)
        ctl.maybe_tick()
    snap = ctl.snapshot(at=ctl.state.now)
    assert snap["score"] == {"A": 4, "B": 0}
    assert snap["breaks"]["B"]["used"] == 1
    assert ctl.state == replayed(ctl)
    assert snapshot(replayed(ctl)) == snap


def test_journal_error_type_is_exported():
    assert issubclass(JournalError, RuntimeError)


def test_an_assignment_without_profile_gets_the_tables(tmp_path):
    ctl, clock = make(tmp_path, default_profile="hbf")
    ctl.submit(
        {
            "input": "assign",
            "match_id": "m1",
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
    )
    assert ctl.journal.read_all()[-1]["profile"] == "hbf"
    assert ctl.snapshot()["profile"] == "hbf"
    clock.t += 1
    ctl.submit(
        {
            "input": "assign",
            "match_id": "m2",
            "length": 5,
            "players": PLAYERS,
            "profile": "hu",
            "force": True,
            "clock": True,
        }
    )
    assert ctl.snapshot()["profile"] == "hu"
    assert ctl.state == replayed(ctl)


def test_a_custom_profile_is_verified_journaled_as_sent_and_its_rules_reach_the_screens(tmp_path):
    """The table needs no profile file: the assignment carries the rules and their digest; the
    journal keeps them as sent (a replay verifies them again), and the screens get every rule."""
    from rulebook.custom_profiles import custom_profile

    club = custom_profile({"base": "hbf", "name": "club", "break_minutes": 9})
    ctl, _ = make(tmp_path)
    assign = {"input": "assign", "match_id": "m1", "length": 5, "players": PLAYERS, "clock": True}
    ctl.submit({**assign, "profile": club.wire()})
    assert ctl.journal.read_all()[-1]["profile"] == club.wire()
    assert ctl.snapshot()["profile"] == "club" and "rules" not in ctl.snapshot()
    assert ctl.screen_snapshot()["rules"]["break_minutes"] == 9
    assert ctl.state == replayed(ctl)
    other, _ = make(tmp_path / "other")
    other.submit({**assign, "profile": {**club.wire(), "break_minutes": 10}})
    assert other.state.match is None and "rules" not in other.screen_snapshot()
