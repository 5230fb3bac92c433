"""`str`, `repr`, and copies."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

import pytest

from gokata import Go
from support.reference_model import COLUMNS, GoFactory, GoLike
from support.tracked_game import KO_SHAPE, Tracked, empty, ko_taken, rows, set_up, snapshot


def mentions_number(text: str, number: int) -> bool:
    return re.search(rf"(?<![0-9]){number}(?![0-9])", text) is not None


def assert_shows(game: Go) -> None:
    """``str(game)`` has a line of the column letters, and for each row, top first, a line with
    the row number and the row's cells in order."""
    board = game.board
    height, width = len(board), len(board[0])
    lines = str(game).splitlines()
    letters = COLUMNS[:width]
    assert any(re.sub(r"\s", "", line) == letters for line in lines), str(game)
    position = -1
    for r, row in enumerate(board):
        number = height - r
        matches = [
            i for i, line in enumerate(lines)
            if mentions_number(line, number) and re.sub(r"[\s0-9|]", "", line) == "".join(row)
        ]
        assert matches, f"no line for row {number} in\n{game}"
        assert matches[0] > position, f"row {number} out of order in\n{game}"
        position = matches[0]


@pytest.mark.parametrize(("height", "width"), [(9, 9), (9, 6), (3, 19), (1, 1), (1, 5), (5, 1), (25, 25), (19, 19), (12, 10)])
def test_str_shows_letters_numbers_and_stones(height: int, width: int) -> None:
    game = Go(height, width)
    assert_shows(game)
    if height * width > 1:
        game.move("1A")  # bottom left
        if (0, width - 1) != (height - 1, 0):
            game.move((0, width - 1))  # top right
        assert_shows(game)


def test_str_of_the_kata_example() -> None:
    game = Go(9)
    game.move("7A", "1A")
    assert_shows(game)
    text = str(game)
    assert "x" in text and "o" in text


def test_str_of_25x25_has_two_digit_rows() -> None:
    game = Go(25)
    game.move("25Z", "10K", "1A")
    assert_shows(game)
    assert mentions_number(str(game), 25)
    assert mentions_number(str(game), 10)


@pytest.mark.parametrize(("height", "width"), [(7, 5), (19, 19), (25, 3)])
def test_repr_is_short_and_gives_size_turn_and_move_number(height: int, width: int) -> None:
    game = Go(height, width)
    game.move("1A", "1B")
    game.pass_turn()
    text = repr(game)
    assert "\n" not in text
    assert len(text) <= 100
    assert mentions_number(text, height) and mentions_number(text, width)
    assert "white" in text.lower()
    assert mentions_number(text, 3)
    game.rollback(1)
    assert "black" in repr(game).lower()
    assert mentions_number(repr(game), 2)


CopyFunction = Callable[[GoLike], GoLike]
COPIES: list[CopyFunction] = [copy.copy, copy.deepcopy]


@pytest.mark.parametrize("copier", COPIES, ids=["copy", "deepcopy"])
def test_copies_are_independent_both_ways(new_game: GoFactory, copier: CopyFunction) -> None:
    original = Tracked(new_game(9))
    original.move("5E", "4E", "3E")
    twin = Tracked(copier(original.game))
    twin.history = list(original.history)
    twin.turns = list(original.turns)
    assert snapshot(twin.game) == snapshot(original.game)
    assert twin.game.size == original.game.size

    twin.move("6E")
    twin.rollback(1)
    twin.rollback(2)
    twin.move("1A", "1B", "1C")
    original.assert_unchanged()
    original.move("9A")
    original.pass_turn()
    assert twin.game.get_position("9A") == "."
    twin.game.reset()
    original.assert_unchanged()
    original.verify_history()
    assert twin.game.board == empty(9)


@pytest.mark.parametrize("copier", COPIES, ids=["copy", "deepcopy"])
def test_copy_keeps_the_ko_ban_and_history(new_game: GoFactory, copier: CopyFunction) -> None:
    game = ko_taken(new_game)
    twin = Tracked(copier(game.game))
    twin.history = list(game.history)
    twin.turns = list(game.turns)
    twin.illegal("3B", "ko")
    twin.rollback(1)
    assert twin.board == KO_SHAPE
    twin.verify_history()
    game.illegal("3B", "ko")


@pytest.mark.parametrize("copier", COPIES, ids=["copy", "deepcopy"])
def test_copy_keeps_the_handicap(new_game: GoFactory, copier: CopyFunction) -> None:
    game = new_game(9)
    game.handicap_stones(2)
    twin = copier(game)
    assert twin.board == game.board
    with pytest.raises(ValueError):
        twin.handicap_stones(1)
    twin.reset()
    twin.handicap_stones(5)
    assert sum(cell == "x" for line in game.board for cell in line) == 2


def test_copy_of_a_fresh_game_allows_handicap(new_game: GoFactory) -> None:
    game = new_game(13)
    twin = copy.copy(game)
    twin.handicap_stones(9)
    game.handicap_stones(1)
    assert sum(cell == "x" for line in twin.board for cell in line) == 9
    assert sum(cell == "x" for line in game.board for cell in line) == 1


def test_deepcopy_inside_a_container(new_game: GoFactory) -> None:
    game = set_up(new_game(3), rows(". x .", "x o .", ". x ."))
    games = copy.deepcopy([game.game, game.game])
    games[0].move("2C")
    assert games[0].get_position("2B") == "."
    assert game.game.get_position("2B") == "o"
