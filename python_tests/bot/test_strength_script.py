"""``benches/strength.py``, the script behind the bot's figures against GNU Go: a short real
run (gokata at a few playouts against GNU Go level 1) writes one log line a game that
replays on a board and that ``--summarize`` tallies as the run did; and the rule that gives
a game to the colour both engines' scores name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gokata import Go
from support.gtp_referee import GNUGO, GameResult, agreed_winner, kata_coordinate

SCRIPT = Path(__file__).resolve().parents[2] / "benches" / "strength.py"

needs_gnugo = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")


def strength(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.bench
@pytest.mark.slow
@needs_gnugo
def test_a_logged_run_replays_and_summarizes_as_it_was_played(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    gokata = f"{sys.executable} -m gokata"
    played = strength(
        "--gokata", gokata, "--playouts", "40", "--level", "1", "--games", "3", "--jobs", "2",
        "--first-seed", "7", "--log", str(log), "--label", "test",
    )  # fmt: skip
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(entry["seed"] for entry in entries) == [7, 8, 9]
    for entry in entries:
        assert entry["gokata"] == ("B" if entry["seed"] % 2 == 1 else "W")
        assert (entry["label"], entry["playouts"], entry["level"]) == ("test", 40, 1)
        assert len(entry["vertices"]) == entry["moves"] > 0
        board = Go(9)
        for vertex in entry["vertices"]:
            if vertex.lower() == "pass":
                board.pass_turn()
            else:
                board.move(kata_coordinate(vertex, 9))
    tally = played.strip().splitlines()[-1].split(": ", 1)[1].rsplit(";", 1)[0]
    summarized = strength("--summarize", str(log)).strip()
    assert summarized == f"{log}: {tally}"


def test_a_game_goes_to_the_colour_both_scores_name_whatever_the_margins() -> None:
    assert agreed_winner([0.5, 1.5]) == "B"
    assert agreed_winner([-3.5, -0.5]) == "W"
    assert agreed_winner([0.5, -0.5]) == "0"
    assert agreed_winner([0.0, 0.0]) == "0"


def test_the_summary_counts_a_margin_disagreement_as_a_win_and_a_winner_disagreement_as_half(tmp_path: Path) -> None:
    def line(seed: int, color: str, scores: dict[str, str], winner: str) -> str:
        result = GameResult(winner, None, 60, scores=scores)
        return json.dumps({"seed": seed, "gokata": color, **result.__dict__})

    log = tmp_path / "games.jsonl"
    log.write_text(
        "\n".join(
            [
                # Logged by the old rule as no agreement; both name black, gokata's colour.
                line(1, "B", {"gokata": "B+0.5", "GNU Go": "B+1.5"}, "0"),
                line(2, "W", {"gokata": "B+0.5", "GNU Go": "W+0.5"}, "0"),
                line(3, "B", {"gokata": "W+2.5", "GNU Go": "W+2.5"}, "W"),
            ]
        )
    )
    summary = strength("--summarize", str(log))
    assert "1.5/3 = 50.0%" in summary
    assert "as black 1/2, as white 0.5/1" in summary
    assert "1 disputed (counted as half), 1 won by both engines' count with different margins" in summary
