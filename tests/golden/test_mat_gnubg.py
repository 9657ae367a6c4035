"""The match file (``bgtable transcript --format mat``) read by GNU Backgammon, Debian's ``gnubg``
(tools/system-packages installs it for ``make test``): for every golden match, the final score
GNU Backgammon reads is the table's, penalty points, time and forfeit endings included.

What the .mat format cannot say (who won on time or by forfeit, a double loss) is in the file's
header comments; GNU Backgammon reads the score and leaves the match unfinished (docs/rules.md,
"The match file"). It imports matches of up to 64 points only: a longer golden match's file must
say so, and GNU Backgammon must refuse it for that reason, not another.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rulebook.replay import replay_lines
from rulebook.snapshot import snapshot
from rulebook.transcript import GNUBG_MAX_LENGTH
from tests.golden.make_journals import SCRIPTS

HERE = Path(__file__).resolve().parent
BGTABLE = str(Path(sys.executable).with_name("bgtable"))
#: Debian installs it under /usr/games, which a non-login PATH may lack
GNUBG = shutil.which("gnubg", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"]))
SCORE = re.compile(r"The score \(after \d+ games?\) is: .+? (\d+), .+? (\d+) \(match to (\d+) points")


def _read(name: str, work: Path) -> tuple[str, str]:
    """The match file ``bgtable`` writes for the golden journal, and what GNU Backgammon says."""
    done = subprocess.run(
        [BGTABLE, "transcript", "--format", "mat", str(HERE / f"{name}.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    mat = work / f"{name}.mat"
    mat.write_text(done.stdout, encoding="utf-8")
    commands = work / f"{name}.gnubg"
    commands.write_text(f"import mat {mat}\nshow score\n", encoding="utf-8")
    assert GNUBG is not None
    home = work / f"{name}.home"
    home.mkdir()
    said = subprocess.run(
        [GNUBG, "-t", "-q", "-r", "-c", str(commands)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    )
    return done.stdout, said.stdout + said.stderr


@pytest.fixture(scope="module")
def gnubg_read(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    assert GNUBG, "gnubg is missing: run tools/system-packages test (Debian package gnubg)"
    work = tmp_path_factory.mktemp("mat")
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(SCRIPTS, pool.map(lambda n: _read(n, work), SCRIPTS), strict=True))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_gnu_backgammon_reads_the_tables_final_score(
    name: str, gnubg_read: dict[str, tuple[str, str]]
) -> None:
    mat, said = gnubg_read[name]
    snap = snapshot(replay_lines((HERE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()))
    if snap["length"] > GNUBG_MAX_LENGTH:
        assert f"Invalid match length {snap['length']}" in said, said
        assert f'; [Note "GNU Backgammon reads matches of up to {GNUBG_MAX_LENGTH} points"]' in mat
        return
    found = SCORE.search(said)
    assert found is not None, said
    assert [int(x) for x in found.groups()] == [snap["score"]["A"], snap["score"]["B"], snap["length"]], mat
    assert "Unrecognised move" not in said and "WARNING" not in said, said
    if snap["end_reason"] not in (None, "points"):
        assert '; [Termination "' in mat  # who won (or that both lost) is said where readers skip it


def test_penalty_points_that_end_a_game_are_its_wins_line_and_named() -> None:
    """g06: B's conduct penalty in game 7 brings A to 7: the format's only way to say it is the
    game's result (1 point, cube 1), and the header says it was not a game won."""
    done = subprocess.run(
        [BGTABLE, "transcript", "--format", "mat", str(HERE / "g06-hu7-noclock-penalty-wins.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    mat = done.stdout
    assert '; [Penalty "game 7: 1 point(s) against Bo Berg (conduct)"]' in mat
    assert "the Wins line is the points that ended the match, not a game won" in mat
    assert mat.rstrip().endswith("Wins 1 point")
