"""Games survive pickling exactly: position, side to move, ko, handicap state and the whole
history that rollback walks back through."""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gokata import Go

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def random_game(seed: int, height: int, width: int, turns: int) -> Go:
    rng = random.Random(seed)
    game = Go(height, width)
    for _ in range(turns):
        point = f"{rng.randint(1, height)}{COLUMNS[rng.randrange(width)]}"
        action = rng.random()
        try:
            if action < 0.08:
                game.pass_turn()
            elif action < 0.16:
                game.play(rng.choice(["black", "white"]), point)
            elif action < 0.22:
                game.rollback(rng.randint(0, 2))
            else:
                game.move(point)
        except ValueError:
            pass
    return game


def snapshot(game: Go) -> tuple[object, ...]:
    """Everything observable: board, turn, turn count, and every point's legality for both."""
    height, width = game.size["height"], game.size["width"]
    reasons = tuple(
        game.illegal_reason((row, col), color)
        for row in range(height)
        for col in range(width)
        for color in ("black", "white")
    )
    return (game.board, game.turn, game.move_number, reasons)


def assert_same_history(original: Go, restored: Go) -> None:
    while True:
        assert snapshot(restored) == snapshot(original)
        if original.move_number == 0:
            break
        original.rollback(1)
        restored.rollback(1)
    with pytest.raises(ValueError):
        restored.rollback(1)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    height=st.integers(1, 7),
    width=st.integers(1, 7),
    turns=st.integers(0, 60),
)
def test_random_games_round_trip(seed: int, height: int, width: int, turns: int) -> None:
    game = random_game(seed, height, width, turns)
    restored = pickle.loads(pickle.dumps(game))
    assert restored is not game
    assert_same_history(game, restored)


def test_a_ko_from_the_previous_position_survives() -> None:
    game = Go.from_board(
        [".xo.", "x.xo", ".xo.", "...."], turn="white", previous=[".xo.", "xo.o", ".xo.", "...."]
    )
    game.move("1A", "1B")
    restored = pickle.loads(pickle.dumps(game))
    restored.rollback(2)
    assert restored.illegal_reason("3B") == "ko"


def test_handicap_is_remembered_as_used() -> None:
    game = Go(9)
    game.handicap_stones(2)
    restored = pickle.loads(pickle.dumps(game))
    assert restored.board == game.board and restored.turn == "black"
    with pytest.raises(ValueError, match="already placed"):
        restored.handicap_stones(1)


@pytest.mark.parametrize(
    "state",
    [
        "junk",
        (2, ["..."], "black", None, False, []),
        (1, ["x"], "black", None, False, []),
        (1, ["..", ".."], "black", None, False, [("black", 5, 0, "black")]),
        (1, ["..", ".."], "purple", None, False, []),
    ],
)
def test_foreign_states_are_refused_and_change_nothing(state: object) -> None:
    game = Go(3)
    game.move("2B")
    with pytest.raises(ValueError):
        game.__setstate__(state)  # type: ignore[arg-type]
    assert game.board[1] == [".", "x", "."] and game.move_number == 1
