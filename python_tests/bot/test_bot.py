"""The bot from Python: `gokata.genmove` and `gokata.analyze` answer legal moves, find what
tactics demand, follow their seed with one thread, release the GIL, and refuse bad arguments."""

from __future__ import annotations

import threading
import time

import pytest

import gokata
from gokata import Go


def test_genmove_answers_a_legal_move_and_leaves_the_game_unchanged() -> None:
    game = Go(9)
    game.move("5E", "3C")
    before = (game.board, game.turn, game.move_number)
    move = gokata.genmove(game, playouts=300, seed=1, threads=1)
    assert move is not None and game.is_legal(move)
    assert (game.board, game.turn, game.move_number) == before


def test_genmove_follows_its_seed_with_one_thread() -> None:
    game = Go(9)
    moves = {gokata.genmove(game, playouts=500, seed=11, threads=1) for _ in range(3)}
    assert len(moves) == 1
    lines = {tuple(c["move"] for c in gokata.analyze(game, playouts=500, seed=11, threads=1)) for _ in range(2)}
    assert len(lines) == 1


def test_the_bot_captures_a_big_chain_in_atari() -> None:
    game = Go.from_board([".....", ".xxx.", "xooo.", ".xxx.", "....."], turn="black")
    assert gokata.genmove(game, playouts=2000, seed=3, threads=1, komi=0.5) == "3E"


def test_the_bot_passes_after_a_pass_when_passing_wins() -> None:
    game = Go(5)
    game.move("3C")
    game.pass_turn()  # white passes; black owns the whole board
    assert gokata.genmove(game, playouts=200, seed=1, threads=1, komi=0.5) is None
    game.rollback(1)  # without a pass before, white plays on
    assert gokata.genmove(game, playouts=200, seed=1, threads=1, komi=0.5) is not None
    game = Go.from_board(["xxxxx", "x...x", "x...x", "x...x", "xxxxx"], turn="white")
    game.pass_turn()
    assert gokata.genmove(game, playouts=200, seed=1, threads=1, komi=0.5) is None


def test_analyze_lists_candidates_by_visits_with_their_statistics() -> None:
    game = Go(7)
    candidates = gokata.analyze(game, playouts=1000, seed=5, threads=2)
    assert candidates, "candidates"
    visits = [c["visits"] for c in candidates]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) == 1000
    for candidate in candidates:
        move = candidate["move"]
        assert move is not None and game.is_legal(move)
        assert 0.0 <= candidate["win_rate"] <= 1.0 and 0.0 <= candidate["prior"] <= 1.0
        assert candidate["pv"][0] == move
    best = candidates[0]
    assert len(best["pv"]) >= 2


def test_genmove_releases_the_gil() -> None:
    game = Go(9)
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.perf_counter()
    gokata.genmove(game, playouts=20_000, seed=1, threads=1)
    elapsed = time.perf_counter() - started
    stop.set()
    counter.join()
    assert elapsed > 0.05, "long enough to see the other thread run"
    assert ticks >= 10, (ticks, elapsed)


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"playouts": 0}, ValueError),
        ({"playouts": -5}, ValueError),
        ({"playouts": "many"}, TypeError),
        ({"playouts": 1.5}, TypeError),
        ({"threads": 0}, ValueError),
        ({"seed": "x"}, TypeError),
        ({"komi": float("nan")}, ValueError),
    ],
)
def test_bad_arguments_raise_clear_errors(arguments: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        gokata.genmove(Go(5), **arguments)  # type: ignore[arg-type]
    with pytest.raises(error):
        gokata.analyze(Go(5), **arguments)  # type: ignore[arg-type]


def test_a_board_without_moves_left_passes() -> None:
    game = Go.from_board(["x.x", "xxx", "x.x"], turn="black")
    assert gokata.genmove(game, playouts=50, seed=1, threads=1) is None
    assert [c["move"] for c in gokata.analyze(game, playouts=50, seed=1, threads=1)] == [None]
