"""Build the golden journals (``*.jsonl``) from readable match scripts.

Each script below reads as a match report, one step per line; this module turns it into the table
inputs of PROTOCOL §1 with an explicit time line. Run it after changing a script:

    .venv/bin/python -m tests.golden.make_journals            # rewrite the journals
    .venv/bin/python -m tests.golden.make_journals --expected # and the expected snapshots

The expected snapshots are what ``bgtable replay`` prints; ``test_golden.py`` checks each against
key facts worked out by hand, so a snapshot is never just "whatever the code printed".

Step language (times are durations: ``300ms``, ``12s``, ``5m``; every step happens after the
previous one, so reserves can be worked out by hand):

    match ID length=N profile=P clock=yes|no|{json} [final] [start=+5m] [round=R]
                         (P: a built-in name, or one of CUSTOM_PROFILES, sent as the hub sends it)
    checkin S | break S | return S | call_td S | confirm S | press S | invalid S | pickup S
    wait D | tick | undo | pause S REASON | pause td | resume | roll D1-D2
    opening A-B          opening roll (A's die, B's die); with a clock the lower roller presses 1 s later
    first-move S D       S plays the opening roll and presses after D
    move S D             S rolls 2 s into the turn and presses after D in all
    turn S D             S presses after D (a clock without a dice tower: no roll is read)
    tower-turn S D       S's roll is read 2 s into the turn; nothing marks its end (no clock)
    double S D [value=V] S doubles after D; with a clock S then presses 1 s later
    try-double S D       a double only (one expected to be refused: no press follows)
    take S D | pass S D  after D; a take is followed by S's press 1 s later with a clock
    win S KIND D | resign S KIND D
    cmd TYPE [id=ID] key=value ...   a TD command (values are JSON where they parse as JSON)
    raw JSON             a journal line exactly as written ("at": "now" is replaced)

With a clock a player's turn starts when the opponent presses: ``move S 20s`` charges S
max(0, 20 s - delay) of reserve, ``double S 5s`` a 6-second span, ``take S 4s`` a 5-second one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WALL0 = 1_795_000_000_000  # the wall clock (epoch ms) at each journal's first line
PLAYERS = {"A": {"name": "Ann Andersen", "id": "p-101"}, "B": {"name": "Bo Berg", "id": "p-202"}}

#: custom profiles the scripts may name: the TOML a club writes (docs/rules.md's worked example)
CUSTOM_PROFILES: dict[str, str] = {
    "club-thursday": """
        base = "wbgf-2023"
        name = "club-thursday"
        lateness_first_point_min = 10
        lateness_interval_min = 10
        break_allowance = [[7, 0], [10000, 1]]
    """,
}

SCRIPTS: dict[str, str] = {
    "g01-wbgf7-clock-crawford-by-gammon": """
        # WBGF, 7 points, clock 14 min + 12 s delay. Crawford reached by a gammon; a double in the
        # Crawford game is refused; the trailer doubles post-Crawford.
        match g01 length=7 profile=wbgf-2023 clock=yes
        checkin A
        checkin B
        # game 1: A wins a gammon (2-0)
        opening 6-1
        first-move A 20s
        move B 10s
        move A 30s
        win A gammon 2s
        # game 2: A doubles, B takes, A wins a gammon at 2 (6-0): Crawford next
        opening 1-6
        first-move B 15s
        double A 5s
        take B 4s
        move A 25s
        move B 12s
        move A 13s
        win A gammon 1s
        # game 3, the Crawford game: B's double is void; B wins a single (6-1)
        opening 6-2
        first-move A 12s
        try-double B 3s
        move B 20s
        move A 20s
        win B single 5s
        # game 4, post-Crawford: B doubles at once, A takes, B wins (6-3)
        opening 2-5
        first-move B 10s
        move A 20s
        double B 4s
        take A 6s
        move B 30s
        win B single 2s
        # game 5: A wins a single: 7-3
        opening 4-3
        first-move A 14s
        win A single 1s
    """,
    "g02-wbgf7-noclock-dead-cube": """
        # WBGF, 7 points, no clock. At 3-3 the cube goes 2 (A) then 4 (B): B's cube is dead (3 + 4 >= 7)
        # and B's redouble is refused (4.4 vii).
        match g02 length=7 profile=wbgf-2023 clock=no
        checkin A
        checkin B
        opening 6-1
        first-move A 20s
        move B 20s
        win A single 5s
        opening 1-6
        first-move B 20s
        win B gammon 5s
        opening 5-3
        win A gammon 10s
        opening 2-4
        win B single 10s
        # game 5 at 3-3
        opening 6-4
        first-move A 20s
        double B 10s
        take A 10s
        move B 30s
        double A 10s
        take B 10s
        move A 30s
        try-double B 5s
        move B 30s
        move A 30s
        win B single 5s
    """,
    "g03-wbgf11-clock-passed-redouble": """
        # WBGF, 11 points, clock 22 min + 12 s. A cube turned to 8 is corrected to 2 (4.4 vi); a passed
        # redouble scores the 2 the cube showed; Crawford at 10-2; post-Crawford pass.
        match g03 length=11 profile=wbgf-2023 clock=yes
        checkin B
        checkin A
        opening 3-5
        first-move B 12s
        double A 2s value=8
        take B 3s
        move A 40s
        move B 50s
        move A 12s
        double B 5s
        pass A 20s
        # 0-2
        opening 6-5
        first-move A 20s
        double B 1s
        take A 10s
        move B 15s
        move A 15s
        win A backgammon 0s
        # 6-2
        opening 6-1
        first-move A 12s
        win A gammon 3s
        # 8-2
        opening 1-6
        first-move B 12s
        resign B gammon 5s
        # 10-2: Crawford next
        opening 2-1
        first-move A 24s
        win B single 4s
        # 10-3, post-Crawford
        opening 1-2
        first-move B 12s
        move A 12s
        double B 2s
        pass A 30s
        # 10-4
        opening 5-4
        first-move A 12s
        win A single 1s
    """,
    "g04-hbf7-clock-flag-loses": """
        # HBF, 7 points, clock 0.5 min/point (3.5 min) + 12 s. B's reserve runs out: no gin exception
        # in hbf, B loses at once (end_reason time).
        match g04 length=7 profile=hbf clock={"minutes_per_point":0.5,"delay_s":12}
        checkin A
        checkin B
        opening 6-1
        first-move A 12s
        win A gammon 2s
        opening 2-3
        first-move B 100s
        move A 10s
        wait 10m
        tick
    """,
    "g05-ffbg9-clock-break-gin-flag": """
        # FFBG (CDF), 9 points, clock 3 min/point + 5 min break bank = 32 min, 15 s delay. B's break runs
        # on B's own clock (10.2); later B flags and the TD rules B was certain to win (12.2).
        match g05 length=9 profile=ffbg-cdf clock=yes
        checkin A
        checkin B
        opening 6-1
        first-move A 15s
        move B 45s
        win A gammon 5s
        break B
        wait 6m
        return B
        opening 2-3
        first-move B 20s
        move A 16s
        wait 40m
        tick
        cmd resolve_flag id=flag-g05 winner=B note=gin
    """,
    "g06-hu7-noclock-penalty-wins": """
        # HU, 7 points, no clock. B overruns the 10-minute break by 6 minutes: 1 lateness point (1.5, 1.6).
        # Crawford at 6-3; post-Crawford B's conduct penalty gives A the 7th point.
        match g06 length=7 profile=hu clock=no
        checkin A
        checkin B
        opening 6-1
        win A gammon 30s
        opening 1-6
        win B single 30s
        break B
        wait 16m
        return B
        cmd penalty id=late:g06:B:1 against=B points=1 reason=late
        opening 3-1
        first-move A 20s
        double B 10s
        take A 10s
        win B single 30s
        opening 5-1
        win A gammon 30s
        opening 2-1
        win A single 30s
        opening 1-2
        win B gammon 30s
        opening 4-2
        first-move A 20s
        cmd penalty id=pen-g06-1 against=B points=1 reason=conduct
    """,
    "g07-wbgf7-lateness-forfeit": """
        # WBGF, 7 points, clock. B never comes: 1 point at 5:00, 2 at 10:00, 3 at 15:00, 4 at 20:00 =
        # more than half of 7: A wins by lateness (2.2 iv).
        match g07 length=7 profile=wbgf-2023 clock=yes start=+2m
        wait 1m
        checkin A
        wait 6m
        cmd penalty id=late:g07:B:1 against=B points=1 reason=late
        wait 5m
        cmd penalty id=late:g07:B:2 against=B points=1 reason=late
        wait 5m
        cmd penalty id=late:g07:B:3 against=B points=1 reason=late
        wait 5m
        cmd penalty id=late:g07:B:4 against=B points=1 reason=late
    """,
    "g08-ffbg7-noclock-lateness-dmp-break": """
        # FFBG (CDF), 7 points, no clock. B arrives 27 min late: 1 point at 25:00 (20-min grace + one
        # 5-min block, 1.10). A takes the 7-point match's break, then the extra one at 6-6 (1.11).
        match g08 length=7 profile=ffbg-cdf clock=no start=+1m
        wait 30s
        checkin A
        wait 25m30s
        cmd penalty id=late:g08:B:1 against=B points=1 reason=late
        wait 2m
        checkin B
        opening 6-1
        win A gammon 1m
        opening 1-6
        first-move B 30s
        double A 10s
        take B 10s
        win B gammon 1m
        break A
        wait 4m
        return A
        opening 6-2
        win A gammon 1m
        opening 2-6
        win B single 1m
        opening 6-3
        win A single 1m
        opening 3-6
        win B single 1m
        break A
        wait 5m
        return A
        opening 4-5
        win B single 1m
    """,
    "g09-wbgf25-noclock-imposed-clock": """
        # WBGF, 25 points without a clock; at 6-8 the TD imposes one (2.3): 2 min x (19 + 17) / 2 = 36 min
        # each, 12 s delay. The cube reaches 8; Crawford at 10-24.
        match g09 length=25 profile=wbgf-2023 clock=no
        checkin A
        checkin B
        opening 6-1
        first-move A 30s
        double B 10s
        take A 10s
        win A backgammon 1m
        opening 1-6
        first-move B 30s
        double A 10s
        take B 10s
        move A 30s
        double B 10s
        take A 10s
        move B 30s
        win B gammon 1m
        cmd impose_clock id=slow-g09 minutes_per_point=2 delay_s=12
        opening 6-3
        first-move A 30s
        move B 40s
        double A 2s
        take B 4s
        move A 20s
        win A gammon 1s
        opening 1-6
        first-move B 12s
        double A 2s
        take B 3s
        move A 12s
        double B 2s
        take A 2s
        move B 12s
        double A 2s
        take B 2s
        move A 20s
        win B gammon 1s
        opening 6-1
        first-move A 12s
        win A gammon 1s
        opening 1-6
        first-move B 12s
        double A 2s
        take B 2s
        move A 15s
        win A backgammon 1s
        opening 1-6
        first-move B 12s
        double A 2s
        take B 2s
        move A 12s
        win B single 1s
    """,
    "g10-wbgf11-length-corrected": """
        # WBGF, scheduled by mistake at 11 points instead of 9. The TD's correction during game 2 waits
        # for the start of game 3 (4.8); the match is then played to 9 with its Crawford game.
        match g10 length=11 profile=wbgf-2023 clock=no
        checkin A
        checkin B
        opening 6-1
        win A gammon 1m
        opening 5-2
        first-move A 20s
        cmd set_length id=len-g10 length=9 note=schedule:9
        win B single 1m
        opening 4-1
        first-move A 20s
        move B 20s
        double A 10s
        take B 10s
        win A gammon 1m
        opening 3-1
        win A single 1m
        opening 2-1
        win A single 1m
        opening 1-2
        win B single 1m
        opening 2-1
        win A single 1m
    """,
    "g11-hbf9-length-impossible": """
        # HBF, 9 points that should have been 7, clock 18 min + 12 s. The correction to 7 asked during
        # game 3 becomes impossible when A reaches 7-0 (it would end the match): play goes on at 9.
        match g11 length=9 profile=hbf clock=yes
        checkin A
        checkin B
        opening 6-1
        first-move A 12s
        win A gammon 1s
        opening 6-1
        first-move A 12s
        win A gammon 1s
        opening 6-1
        first-move A 12s
        cmd set_length id=len-g11 length=7
        win A backgammon 1s
        cmd set_length id=len-g11b length=7
        opening 6-1
        first-move A 12s
        win A single 1s
        opening 1-6
        first-move B 12s
        win B gammon 1s
        opening 1-6
        first-move B 12s
        move A 20s
        double B 2s
        take A 2s
        move B 12s
        win A single 1s
    """,
    "g12-hbf11-two-banks-set-time": """
        # HBF, 11 points, clock 1 min/point (11 min) + a second bank of 5 min (3.5 v), 12 s delay. A runs
        # through the first bank into the second; then the TD corrects both clocks (4.3 iv).
        match g12 length=11 profile=hbf clock={"minutes_per_point":1,"delay_s":12,"second_bank_minutes":5}
        checkin A
        checkin B
        opening 6-1
        first-move A 11m
        move B 20s
        move A 30s
        win A gammon 1s
        cmd set_time id=time-g12 reserve_ms={"A":400000,"B":500000} note=clock-error
        opening 1-6
        first-move B 20s
        win B gammon 2s
        opening 6-1
        first-move A 12s
        double B 2s
        take A 3s
        move B 12s
        win A backgammon 1s
        opening 6-1
        first-move A 12s
        win A single 1s
        opening 6-1
        first-move A 12s
        win A gammon 1s
    """,
    "g13-wbgf7-clock-pauses-pickup-undo": """
        # WBGF, 7 points, clock 14 min + 12 s: a dispute pause keeps A's remaining delay (4.3 ii); A's
        # premature pick-up costs A the next delay (4.1 v b); B's invalid roll restarts B's delay and
        # ends B's right to double (4.3 v, 4.4 ii); garbage lines are rejected; a result is undone; the
        # TD corrects the score (4.7).
        match g13 length=7 profile=wbgf-2023 clock=yes
        checkin A
        checkin B
        opening 6-1
        wait 5s
        pause A dispute
        wait 3m
        resume
        wait 17s
        press A
        wait 2s
        roll 5-3
        wait 2s
        pickup A
        wait 16s
        press B
        wait 2s
        roll 6-6
        wait 10s
        press A
        wait 3s
        invalid B
        try-double B 0s
        wait 2s
        roll 2-1
        wait 18s
        press B
        raw {"at": "now", "input": "fly"}
        raw {"input": "press", "side": "A"}
        raw [1, 2]
        move A 12s
        win A gammon 2s
        undo
        win A single 1s
        opening 1-6
        first-move B 12s
        win B backgammon 1s
        cmd correct_score id=fix-g13 score={"A":1,"B":2} note=was-a-gammon
        opening 6-1
        first-move A 12s
        win A gammon 1s
        opening 6-1
        first-move A 12s
        double B 2s
        take A 2s
        move B 12s
        win A gammon 1s
    """,
    "g14-hu11-clock-final-breaks-claim": """
        # HU, 11-point final with a clock (the profile's defaults: 22 min + 12 s). Two 10-minute breaks
        # each in a final (1.6); a claim pause (8.9); B wins with a redoubled backgammon.
        match g14 length=11 profile=hu clock=yes final round=final
        checkin A
        checkin B
        opening 6-1
        first-move A 30s
        move B 12s
        win A gammon 1s
        break A
        wait 10m
        return A
        break B
        break A
        wait 9m
        return A
        return B
        opening 1-6
        first-move B 12s
        double A 2s
        take B 2s
        move A 20s
        double B 2s
        take A 2s
        move B 30s
        pause B claim
        wait 1m
        resume
        move A 12s
        win B backgammon 3s
    """,
    "g15-hu7-noclock-forbid-crawford-void": """
        # HU, 7 points, no clock (a scoreboard). 7.9: A touched the cube without doubling; the
        # referee forbids A to double for the rest of game 1 (game 2 frees him). 7.5: in the Crawford
        # game the leader A takes B's double, then voids it before the next game: game 3 is scored
        # without the cube.
        match g15 length=7 profile=hu clock=no
        checkin A
        checkin B
        # game 1: A's double is refused (forbidden); B doubles, A takes, A wins a gammon at 2: 4-0
        opening 6-1
        wait 20s
        cmd forbid_double id=td-forbid side=A
        try-double A 5s
        double B 10s
        take A 4s
        wait 60s
        win A gammon 2s
        # game 2: A doubles at once, B takes; A wins a single at 2: 6-0, the Crawford game next
        opening 3-1
        double A 10s
        take B 4s
        wait 60s
        win A single 2s
        # game 3, the Crawford game: B doubles (recorded for the leader), A takes, B wins a gammon
        # at 2 (6-4); A voids the double before game 4: the gammon is scored at 1: 6-2
        opening 2-5
        wait 10s
        double B 3s
        take A 4s
        wait 60s
        win B gammon 2s
        wait 30s
        cmd crawford_double id=td-crawford choice=void
        # game 4, post-Crawford: A wins a single: 7-2
        opening 6-2
        wait 40s
        win A single 3s
    """,
    "g16-ffbg7-clock-early-roll-force-crawford-keep": """
        # FFBG, 7 points with a clock (21 min + 5 min of breaks, 15 s delay). 5.14: B rolls before A
        # has finished: the roll counts, it is B's next roll. 6.8: A handled the cube: the TD enters
        # A's double. 6.5: in the Crawford game the leader A keeps B's double and takes it (6.10).
        match g16 length=7 profile=ffbg-cdf clock=yes
        checkin A
        checkin B
        # game 1: B's early 5-5 is B's roll once A presses; A's forced double, B takes; A wins a
        # single at 2: 2-0. Only A's last move passes the delay: 20 s, 5 s charged.
        opening 6-1
        wait 5s
        roll 5-5
        first-move A 10s
        turn B 8s
        cmd force_double id=td-force side=A
        wait 2s
        press A
        take B 4s
        move A 20s
        move B 10s
        win A single 2s
        # game 2: A doubles, B takes; A wins a gammon at 2: 6-0, the Crawford game next
        opening 1-6
        first-move B 10s
        double A 5s
        take B 4s
        move A 10s
        win A gammon 2s
        # game 3, the Crawford game: B doubles; the leader keeps it and takes; B's 30 s move costs
        # him 15 s; B wins a single at 2: 6-2
        opening 2-5
        first-move B 10s
        turn A 10s
        double B 3s
        cmd crawford_double id=td-keep choice=keep
        take A 4s
        move B 30s
        move A 10s
        win B single 2s
        # game 4, post-Crawford: A wins a single: 7-2
        opening 6-3
        first-move A 10s
        move B 10s
        win A single 2s
    """,
    "g17-ffbg99-noclock-cube-128": """
        # FFBG, 99 points, no clock (a scoreboard): "Il n'y a aucune limite au nombre de redoubles":
        # seven doubles, each taken, bring the cube to 128, past the 64 where the other profiles stop.
        # A's redouble of a cube that already wins the match is refused (dead cube, 4.4 vii, kept for
        # FFBG); A wins a single at 128: 128-0.
        match g17 length=99 profile=ffbg-cdf clock=no
        checkin A
        checkin B
        opening 6-1
        double B 10s
        take A 5s
        double A 10s
        take B 5s
        double B 10s
        take A 5s
        double A 10s
        take B 5s
        double B 10s
        take A 5s
        double A 10s
        take B 5s
        double B 10s
        take A 5s
        try-double A 10s
        win A single 30s
    """,
    "g18-ffbg9-clock-double-loss": """
        # FFBG, 9 points with a clock (27 min + 5 min of breaks, 15 s delay). 10.3: both players leave
        # the table while the clock is neutralised; the TD's sanction makes both lose: a double loss,
        # no winner (each scores 0). No turn passes the delay: the reserves are whole.
        match g18 length=9 profile=ffbg-cdf clock=yes
        checkin A
        checkin B
        # game 1: A wins a gammon: 2-0
        opening 6-1
        first-move A 10s
        move B 10s
        win A gammon 2s
        # game 2: the TD neutralises the clock; both leave; 10 minutes later the double loss
        opening 1-6
        first-move B 10s
        wait 5s
        pause td
        wait 10m
        raw {"at": "now", "input": "cmd", "id": "td-10-3", "type": "double_loss", "note": "FFBG 10.3"}
    """,
}


# -- one match in the three table setups, under every profile ------------------------------------
# The same nine-point match each time: a double, a take and the owner's redouble passed; a gammon
# and a backgammon resigned; the Crawford game with a refused double; a post-Crawford double.
# Only what the table can see differs: a scoreboard sees the results and the cube only, a clock
# without a tower sees the presses, a tower without a clock sees the rolls.

_SETUP_GAMES = {
    "scoreboard": """
        # game 1: B doubles, A takes, A (the cube's owner) redoubles at once, B passes: 2-0
        opening 6-1
        wait 40s
        double B 5s
        take A 4s
        wait 30s
        double A 5s
        pass B 6s
        # game 2: A resigns a gammon: 2-2
        opening 1-6
        wait 60s
        resign A gammon 3s
        # game 3: A doubles, B takes, B resigns a backgammon at 2: 8-2
        opening 5-2
        wait 30s
        double A 4s
        take B 5s
        wait 60s
        resign B backgammon 2s
        # game 4, the Crawford game: B's double is refused; B wins a gammon: 8-4
        opening 2-6
        wait 30s
        try-double B 2s
        wait 60s
        win B gammon 1s
        # game 5, post-Crawford: B doubles, A takes, A wins a single at 2: 10-4
        opening 1-5
        wait 20s
        double B 3s
        take A 4s
        wait 60s
        win A single 1s
    """,
    "clock-no-tower": """
        # game 1: A uses 30 s; B doubles, A takes, A redoubles on his turn, B passes: 2-0
        opening 6-1
        first-move A 30s
        double B 5s
        take A 4s
        turn B 8s
        double A 3s
        pass B 6s
        # game 2: A resigns a gammon: 2-2
        opening 1-6
        first-move B 9s
        turn A 7s
        resign A gammon 3s
        # game 3: B uses 40 s; A doubles, B takes, B resigns a backgammon at 2: 8-2
        opening 5-2
        first-move A 10s
        turn B 40s
        double A 4s
        take B 5s
        turn A 10s
        resign B backgammon 2s
        # game 4, the Crawford game: B's double is refused; B wins a gammon: 8-4
        opening 2-6
        first-move B 10s
        turn A 10s
        try-double B 2s
        turn B 9s
        win B gammon 1s
        # game 5, post-Crawford: A uses 20 s; B doubles, A takes, A wins a single at 2: 10-4
        opening 1-5
        first-move B 8s
        turn A 20s
        double B 3s
        take A 4s
        turn B 10s
        turn A 10s
        win A single 1s
    """,
    "tower-no-clock": """
        # game 1: B doubles once A has rolled, A takes, B rolls, A redoubles, B passes: 2-0
        opening 6-1
        wait 20s
        double B 5s
        take A 4s
        tower-turn B 10s
        double A 3s
        pass B 6s
        # game 2: A rolls, then resigns a gammon: 2-2
        opening 1-6
        tower-turn A 8s
        resign A gammon 3s
        # game 3: B rolls; A doubles, B takes, A rolls, B resigns a backgammon at 2: 8-2
        opening 5-2
        tower-turn B 10s
        double A 4s
        take B 5s
        tower-turn A 10s
        resign B backgammon 2s
        # game 4, the Crawford game: B's double is refused; B wins a gammon: 8-4
        opening 2-6
        tower-turn A 10s
        try-double B 2s
        tower-turn B 9s
        win B gammon 1s
        # game 5, post-Crawford: B doubles after A's roll, A takes, A wins a single at 2: 10-4
        opening 1-5
        tower-turn A 8s
        double B 3s
        take A 4s
        tower-turn B 10s
        tower-turn A 10s
        win A single 1s
    """,
}
SCRIPTS["g19-club7-noclock-custom-lateness"] = """
        # A club's own profile (CUSTOM_PROFILES: WBGF with a point every 10 minutes late, no break in
        # a 7-point match), carried by the assignment with its digest. B is 15 min late: 1 point at
        # 10:00 (WBGF's would be 3: at 5, 10 and 15). B asks for a break between games: refused, the
        # club gives none up to 7 points. A wins 7-0.
        match g19 length=7 profile=club-thursday clock=no start=+1m
        wait 1m
        checkin A
        wait 10m
        cmd penalty id=late:g19:B:1 against=B points=1 reason=late
        wait 5m
        checkin B
        opening 6-1
        win A single 1m
        break B
        opening 1-6
        win A backgammon 1m
        opening 5-3
        win A gammon 1m
"""
SETUP_PROFILES = {"wbgf-2023": "wbgf", "hbf": "hbf", "hu": "hu", "ffbg-cdf": "ffbg"}
#: profiles whose rules record a double made in the Crawford game for the match leader to keep or
#: void (HU 7.5, FFBG 6.5): there A, the leader, voids B's double, and the match goes on as elsewhere
LEADER_VOIDS = ("hu", "ffbg-cdf")


def setup_script_name(number: int, profile: str, setup: str) -> str:
    return f"s{number:02d}-{SETUP_PROFILES[profile]}9-{setup}"


def _setup_scripts() -> dict[str, str]:
    scripts: dict[str, str] = {}
    number = 0
    for profile in SETUP_PROFILES:
        for setup, games in _SETUP_GAMES.items():
            number += 1
            clock = "yes" if setup == "clock-no-tower" else "no"
            head = f"""
        # {profile}, 9 points, {setup}: the same match as every s-script (see _SETUP_GAMES)
        match s{number:02d} length=9 profile={profile} clock={clock}
        checkin A
        checkin B"""
            if profile in LEADER_VOIDS:
                games = games.replace(
                    "B's double is refused;", "B's double is recorded, A (the leader) voids it;"
                ).replace("try-double B 2s", "try-double B 2s\n        cmd crawford_double choice=void")
            scripts[setup_script_name(number, profile, setup)] = head + games
    return scripts


SCRIPTS.update(_setup_scripts())


def _duration(text: str) -> int:
    """``300ms``, ``12s``, ``5m``, ``25m30s`` -> ms."""
    total, number = 0, ""
    units = {"ms": 1, "s": 1000, "m": 60_000}
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isdigit():
            number += ch
            i += 1
            continue
        unit = "ms" if text.startswith("ms", i) else ch
        if unit not in units or not number:
            raise ValueError(f"bad duration {text!r}")
        total += int(number) * units[unit]
        number = ""
        i += len(unit)
    if number:
        raise ValueError(f"duration {text!r} needs a unit")
    return total


def _profile(name: str) -> Any:
    """What the assignment carries: a built-in name, or a custom profile as the hub sends it."""
    if name not in CUSTOM_PROFILES:
        return name
    from textwrap import dedent

    from rulebook.custom_profiles import custom_profile_from_toml

    return custom_profile_from_toml(dedent(CUSTOM_PROFILES[name]), path=f"{name}.toml").wire()


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Builder:
    """Turns script lines into journal inputs, keeping the time line."""

    def __init__(self) -> None:
        self.now = 0
        self.clock = False
        self.lines: list[Any] = []

    def emit(self, name: str, **fields: Any) -> None:
        self.lines.append({"at": self.now, "input": name, **fields})

    def wait(self, ms: int) -> None:
        self.now += ms

    def step(self, line: str) -> None:
        words = line.split()
        verb, args = words[0], words[1:]
        if verb == "match":
            self._match(args)
        elif verb in ("checkin", "break", "return", "call_td", "confirm", "press"):
            self.emit(verb, side=args[0])
        elif verb == "invalid":
            self.emit("invalid_roll", side=args[0])
        elif verb == "pickup":
            self.emit("premature_pickup", side=args[0])
        elif verb == "wait":
            self.wait(_duration(args[0]))
        elif verb in ("tick", "undo", "resume"):
            self.emit(verb)
        elif verb == "pause":
            if len(args) == 1:  # the table's own reason (td, power_loss): no side
                self.emit("pause", reason=args[0])
            else:
                self.emit("pause", side=args[0], reason=args[1])
        elif verb == "roll":
            d1, d2 = (int(x) for x in args[0].split("-"))
            self.emit("roll", dice=[d1, d2], source="tower")
        elif verb == "opening":
            a, b = (int(x) for x in args[0].split("-"))
            self.emit("opening_roll", A=a, B=b)
            if self.clock and a != b:
                self.wait(1000)
                self.emit("press", side="A" if a < b else "B")
        elif verb in ("first-move", "turn"):
            self.wait(_duration(args[1]))
            self.emit("press", side=args[0])
        elif verb == "tower-turn":
            total = _duration(args[1])
            self.wait(min(2000, total))
            self.emit("roll", dice=[4, 2], source="tower")
            self.wait(total - min(2000, total))
        elif verb == "move":
            total = _duration(args[1])
            self.wait(min(2000, total))
            self.emit("roll", dice=[3, 1], source="tower")
            self.wait(total - min(2000, total))
            self.emit("press", side=args[0])
        elif verb in ("double", "try-double"):
            self.wait(_duration(args[1]))
            extra = dict(a.split("=", 1) for a in args[2:])
            fields = {"value": int(extra["value"])} if "value" in extra else {}
            self.emit("double", side=args[0], **fields)
            if verb == "double" and self.clock:
                self.wait(1000)
                self.emit("press", side=args[0])
        elif verb in ("take", "pass"):
            self.wait(_duration(args[1]))
            self.emit(verb, side=args[0])
            if verb == "take" and self.clock:
                self.wait(1000)
                self.emit("press", side=args[0])
        elif verb in ("win", "resign"):
            self.wait(_duration(args[2]))
            self.emit(verb, side=args[0], kind=args[1])
        elif verb == "cmd":
            self._cmd(args)
        elif verb == "raw":
            raw = json.loads(line[len("raw") :])
            if isinstance(raw, dict) and raw.get("at") == "now":
                raw["at"] = self.now
            self.lines.append(raw)
        else:
            raise ValueError(f"unknown step {line!r}")

    def _match(self, args: list[str]) -> None:
        opts = {k: v for k, _, v in (a.partition("=") for a in args[1:])}
        clock_text = opts.get("clock", "no")
        clock: Any = {"yes": True, "no": False}.get(clock_text)
        if clock is None:
            clock = json.loads(clock_text)
        self.clock = clock is not False
        fields: dict[str, Any] = {
            "match_id": args[0],
            "length": int(opts["length"]),
            "players": PLAYERS,
            "profile": _profile(opts["profile"]),
            "clock": clock,
            "wall": WALL0 + self.now,
        }
        if "start" in opts:
            fields["start_wall"] = WALL0 + self.now + _duration(opts["start"].lstrip("+"))
        if "round" in opts:
            fields["round"] = opts["round"]
        if "final" in opts:
            fields["final"] = True
        self.emit("assign", **fields)

    def _cmd(self, args: list[str]) -> None:
        fields = {k: _value(v) for k, _, v in (a.partition("=") for a in args[1:])}
        cmd_id = str(fields.pop("id", f"cmd-{len(self.lines)}"))
        if args[0] == "impose_clock":
            self.clock = True
        self.emit("cmd", id=cmd_id, type=args[0], **fields)


def build(name: str) -> list[Any]:
    builder = Builder()
    for raw_line in SCRIPTS[name].splitlines():
        line = (
            raw_line.split("#", 1)[0].strip() if not raw_line.strip().startswith("raw") else raw_line.strip()
        )
        if line:
            builder.step(line)
    return builder.lines


def journal_text(name: str) -> str:
    return "".join(json.dumps(inp, ensure_ascii=False, separators=(", ", ": ")) + "\n" for inp in build(name))


def main(argv: list[str]) -> int:
    from rulebook.replay import replay_lines
    from rulebook.snapshot import snapshot

    for name in SCRIPTS:
        text = journal_text(name)
        (HERE / f"{name}.jsonl").write_text(text, encoding="utf-8")
        if "--expected" in argv:
            snap = snapshot(replay_lines(text.splitlines()))
            expected = json.dumps(snap, ensure_ascii=False, indent=2) + "\n"
            (HERE / f"{name}.expected.json").write_text(expected, encoding="utf-8")
        print(f"{name}: {text.count(chr(10))} inputs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
