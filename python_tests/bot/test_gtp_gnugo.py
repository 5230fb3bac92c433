"""GNU Go plays ``gokata gtp`` over GTP through a referee (`gtp_referee`): 20 quick games on
9x9 (gokata at a few hundred playouts, GNU Go at level 0), colours alternating. Every reply
of both must be well-formed GTP with its id, every move legal on the referee's board and
accepted by the other engine, and wherever both engines find every stone alive at the end,
their ``final_score`` must agree with each other and with the referee's area score."""

from __future__ import annotations

import os
import sys

import pytest

from support.gtp_referee import GNUGO, GameResult, GtpProcess, gnugo, play_game, score_margin

GAMES = 20

pytestmark = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")


def gokata_engine(seed: int) -> GtpProcess:
    argv = [sys.executable, "-m", "gokata", "gtp", "--playouts", "300", "--threads", "1", "--seed", str(seed), "--no-resign"]
    return GtpProcess(argv, "gokata")


@pytest.mark.slow
def test_gnugo_and_gokata_play_whole_games_and_agree_on_the_score() -> None:
    results: list[GameResult] = []
    for number in range(GAMES):
        ours, theirs = gokata_engine(number), gnugo(0, number + 1)
        try:
            black, white = (ours, theirs) if number % 2 == 0 else (theirs, ours)
            results.append(play_game(black, white, size=9, komi=7.5))
        finally:
            ours.close()
            theirs.close()
    scored = [r for r in results if r.resigned is None]
    compared = [r for r in scored if r.all_alive]
    for result in compared:
        margins = {score_margin(text) for text in result.scores.values()}
        assert margins == {result.referee_score}, result
    assert len(scored) >= GAMES // 2, [r.resigned for r in results]
    assert compared, "no game ended with every stone alive for both: nothing was compared"
    print(f"{len(results)} games, {len(scored)} scored, {len(compared)} with every stone alive for both")
