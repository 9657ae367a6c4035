"""Restore after a restart or a power cut: replay the journal, pause a match that was under way."""

from __future__ import annotations

from kiosk.controller import TableController, needs_power_loss_pause
from kiosk.journal import Journal
from rulebook.replay import replay
from rulebook.table import new_table

PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
WALL0 = 1_795_000_000_000


class Clock:
    def __init__(self, t: int = 0):
        self.t = t

    def __call__(self) -> int:
        return self.t


def controller(path, t: int = 0) -> tuple[TableController, Clock]:
    clock = Clock(t)
    ctl = TableController(Journal(path), "12", clock_ms=clock, wall_ms=lambda: WALL0 + clock.t)
    return ctl, clock


def play(ctl: TableController, clock: Clock, inputs: list[dict], step_ms: int = 2_000) -> None:
    for inp in inputs:
        clock.t += step_ms
        ctl.submit(inp)


def opening(clock_setting=True, length=7) -> list[dict]:
    return [
        {
            "input": "assign",
            "profile": "wbgf-2023",
            "match_id": "m1",
            "length": length,
            "players": PLAYERS,
            "clock": clock_setting,
        },
        {"input": "checkin", "side": "A"},
        {"input": "checkin", "side": "B"},
        {"input": "opening_roll", "A": 5, "B": 2},
        {"input": "press", "side": "B"},
    ]


def restart(path, t: int = 0) -> TableController:
    """A new process on the same journal; its own clock starts wherever it likes."""
    ctl, _ = controller(path, t)
    ctl.restore()
    return ctl


def test_running_clock_comes_back_paused_for_power_loss(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, [*opening(), {"input": "press", "side": "A"}, {"input": "roll", "dice": [4, 2]}])
    clock.t += 30_000
    ctl.maybe_tick()  # B's clock ran 32 s since A pressed: 12 s delay, 20 s of reserve
    before = ctl.snapshot(at=ctl.state.now)
    last_at = ctl.journal.last_at()
    ctl.journal.close()  # the power goes

    again = restart(path, t=last_at + 5)
    snap = again.snapshot(at=again.state.now)
    assert snap["clock"]["paused"] == "power_loss" and snap["phase"] == "paused"
    assert again.power_loss
    assert snap["clock"]["reserve_ms"] == before["clock"]["reserve_ms"]
    assert snap["clock"]["reserve_ms"]["B"] == 7 * 120_000 - 20_000
    assert snap["clock"]["delay_ms"] == before["clock"]["delay_ms"]
    assert (snap["score"], snap["cube"]["value"], snap["breaks"]) == (
        before["score"],
        before["cube"]["value"],
        before["breaks"],
    )
    lines = again.journal.read_all()
    assert lines[-1]["input"] == "pause" and lines[-1]["reason"] == "power_loss"
    assert lines[-1]["at"] == last_at  # the lost time is nobody's
    assert again.state == replay(lines, new_table("12"))
    assert again.restored_inputs == len(lines) - 1


def test_time_stands_still_until_someone_resumes(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, opening())
    last_at = ctl.journal.last_at()
    ctl.journal.close()
    again, clock2 = controller(path, t=last_at)
    again.restore()
    reserve = again.snapshot()["clock"]["reserve_ms"]["A"]
    clock2.t += 60_000
    assert again.snapshot()["clock"]["reserve_ms"]["A"] == reserve
    assert again.maybe_tick() == [] and again.journal.count() == len(opening()) + 1
    events = again.submit({"input": "resume"})
    assert events[0]["type"] == "resume" and not again.power_loss
    clock2.t += 20_000  # A's delay (12 s, untouched before the cut) then 8 s of reserve
    snap = again.snapshot()
    assert snap["clock"]["paused"] is None and snap["clock"]["running"] == "A"
    assert snap["clock"]["reserve_ms"]["A"] == reserve - 8_000


def test_game_in_progress_without_a_clock_is_paused_too(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, opening(clock_setting=False))
    assert ctl.state.is_in_game() and not ctl.state.clock.is_running()
    ctl.journal.close()
    again = restart(path)
    assert again.state.paused == "power_loss"


def test_between_games_nothing_to_pause(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, [*opening(), {"input": "win", "side": "A", "kind": "single"}])
    assert ctl.state.phase == "between_games"
    n = ctl.journal.count()
    ctl.journal.close()
    again = restart(path)
    assert again.state.phase == "between_games" and again.state.paused is None
    assert again.journal.count() == n
    assert not again.power_loss


def test_already_paused_stays_as_it_was(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, [*opening(), {"input": "pause", "reason": "td"}])
    n = ctl.journal.count()
    ctl.journal.close()
    again = restart(path)
    assert again.state.paused == "td"
    assert again.journal.count() == n


def test_finished_match_is_left_alone(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, [*opening(length=1), {"input": "win", "side": "B", "kind": "single"}])
    assert ctl.state.phase == "finished"
    ctl.journal.close()
    again = restart(path)
    assert again.state.phase == "finished" and again.snapshot()["winner"] == "B"
    assert not needs_power_loss_pause(again.state)


def test_empty_journal_is_a_fresh_table(tmp_path):
    again = restart(tmp_path / "j.sqlite3")
    assert again.state == new_table("12")
    assert again.restored_inputs == 0 and again.journal.count() == 0


def test_repeated_restarts_pause_once(tmp_path):
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(ctl, clock, opening())
    ctl.journal.close()
    for _ in range(3):
        again = restart(path)
        again.journal.close()
    lines = Journal(path).read_all()
    assert [line.get("reason") for line in lines].count("power_loss") == 1


def test_real_clock_continues_the_journal_time_base(tmp_path):
    """With the real monotonic clock: a fresh boot's ``at`` starts from the journal's last one."""
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        for inp in opening():
            journal.append({**inp, "at": 10**9})
    again = TableController(Journal(path), "12")
    again.restore()
    again.submit({"input": "resume"})
    ats = [line["at"] for line in again.journal.read_all()]
    assert ats[-2] == 10**9 and ats[-1] >= 10**9
    assert again.state.clock.running == "A"


def test_a_late_players_clock_before_the_match_keeps_running(tmp_path):
    """The rules allow no pause before the opening (phase waiting): the clock keeps its state."""
    path = tmp_path / "j.sqlite3"
    ctl, clock = controller(path)
    play(
        ctl,
        clock,
        [
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "m1",
                "length": 7,
                "players": PLAYERS,
                "clock": True,
            },
            {"input": "checkin", "side": "B"},
            {"input": "cmd", "id": "c1", "type": "start_clock", "side": "A"},
        ],
    )
    assert ctl.state.clock.running == "A" and ctl.state.phase == "waiting"
    n = ctl.journal.count()
    ctl.journal.close()
    again = restart(path, t=clock.t)
    assert again.journal.count() == n  # nothing journaled that the rules would refuse
    assert again.state.clock.running == "A"


def test_restore_through_runs_of_ticks_finds_the_flag_as_replay_does(tmp_path):
    """Hours of ticks restore quickly (runs are collapsed), with exactly replay's state."""
    for profile in ("wbgf-2023", "hbf"):
        path = tmp_path / f"{profile}.sqlite3"
        clock_setting = {"minutes_per_point": 0.1, "delay_s": 1}
        rows = [
            {
                "input": "assign",
                "profile": "wbgf-2023",
                "match_id": "f",
                "length": 1,
                "players": PLAYERS,
                "clock": clock_setting,
            },
            {"input": "checkin", "side": "A"},
            {"input": "checkin", "side": "B"},
            {"input": "opening_roll", "A": 5, "B": 2},
            {"input": "press", "side": "B"},  # A: 1 s delay + 6 s reserve from at=0
        ]
        rows[0]["profile"] = profile
        with Journal(path) as journal:
            for row in rows:
                journal.append({**row, "at": 0, "wall": WALL0})
            for t in range(1_000, 20_001, 1_000):  # ticks straight over the flag at 7 s
                journal.append({"at": t, "wall": WALL0 + t, "input": "tick"})
        again = restart(path, t=20_000)
        expected = replay(Journal(path).read_all(), new_table("12"))
        assert again.state == expected
        assert again.state.clock.flagged == "A" and again.state.clock.flagged_at == 7_000
        assert again.state.phase == ("flag" if profile == "wbgf-2023" else "finished")
