"""``gokata.engine`` for asyncio: ``popen_gtp`` as an ``async with`` block and awaited; analysis
from the real ``gokata gtp`` (``lz-analyze``); two engines thinking at once; a timeout, after
which the engine starts again."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from gokata import Go
from gokata.engine import AsyncGtpEngine, Candidate, EngineTimeout, popen_gtp

GOKATA = [sys.executable, "-m", "gokata", "gtp", "--playouts", "200", "--threads", "1", "--seed", "3"]
GNUGO = "/usr/games/gnugo"
STANDIN = str(Path(__file__).resolve().parents[1] / "support" / "standin_gtp.py")
needs_gnugo = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_analysis_from_gokata_gtp() -> None:
    async def analyze() -> tuple[list[Candidate], Go, str | None]:
        game = Go(9)
        game.move("5E", "3C", "7G")
        async with popen_gtp(GOKATA) as engine:
            assert engine.name == "gokata" and "lz-analyze" in engine.commands
            candidates = await engine.analyze(game, seconds=0.5)
            move = await engine.play(game)
        return candidates, game, move

    candidates, game, move = asyncio.run(analyze())
    assert len(candidates) >= 3
    assert [c.order for c in candidates] == list(range(len(candidates)))
    for candidate in candidates:
        assert candidate.move is None or game.is_legal(candidate.move)
        assert candidate.visits > 0 and 0.0 <= candidate.winrate <= 1.0
        assert candidate.prior is not None and 0.0 <= candidate.prior <= 1.0
        assert candidate.pv[0] == candidate.move
        line = game.__copy__()
        for point in candidate.pv:  # the principal variation is a line of legal moves
            if point is None:
                line.pass_turn()
            else:
                line.move(point)
    assert move is not None and move != "resign" and game.is_legal(move)


@needs_gnugo
def test_two_engines_think_at_once_and_an_awaited_engine_is_closed_by_hand() -> None:
    async def both() -> tuple[list[str | None], list[int]]:
        gnugo = await popen_gtp([GNUGO, "--mode", "gtp", "--level", "1"])
        gokata = AsyncGtpEngine(GOKATA)
        await gokata.start()
        pids = [pid for pid in (gnugo.pid, gokata.pid) if pid is not None]
        try:
            game = Go(9)
            game.komi = 7.5
            moves: list[str | None] = []
            for _ in range(6):  # a game between them: each the other's opponent
                engine = gnugo if game.turn == "black" else gokata
                move = await engine.play(game)
                assert move != "resign"
                moves.append(move)
                game.pass_turn() if move is None else game.move(move)
            first, second = Go(9), Go(9)
            second.move("5E")
            replies = await asyncio.gather(gnugo.play(first), gokata.play(second))
            assert all(reply is not None and reply != "resign" for reply in replies)
            return moves, pids
        finally:
            await asyncio.gather(gnugo.close(), gokata.close())

    moves, pids = asyncio.run(both())
    assert len(moves) == 6 and len(pids) == 2
    assert all(gone(pid) for pid in pids)


def test_an_async_timeout_kills_the_engine_and_the_next_call_starts_it_again() -> None:
    async def slow() -> tuple[float, int | None, int | None, int]:
        async with popen_gtp([sys.executable, STANDIN, "--delay", "30"]) as engine:
            first = engine.pid
            started = time.monotonic()
            with pytest.raises(EngineTimeout, match="genmove black"):
                await engine.play(Go(9), timeout=0.3)
            took = time.monotonic() - started
            await engine.send("boardsize 9")
            return took, first, engine.pid, engine.starts

    took, first, second, starts = asyncio.run(slow())
    assert took < 5 and first != second and starts == 2
    assert first is not None and gone(first)
