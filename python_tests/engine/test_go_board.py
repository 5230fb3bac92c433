"""Board sizes, the `board`, `size`, `turn` and `move_number` properties, and coordinates."""

from __future__ import annotations

from typing import Any, cast

import pytest

from gokata import Go, IllegalMoveError
from support.reference_model import COLUMNS, Coordinate, GoFactory
from support.tracked_game import Tracked, empty, snapshot

SIZES = [(1, 1), (1, 5), (5, 1), (2, 3), (3, 19), (19, 3), (9, 6), (6, 9), (9, 9), (13, 13), (19, 19), (25, 25), (25, 1), (1, 25), (7, 25)]


def kata(row: int, col: int, height: int) -> str:
    """The kata form of a 0-based (row, col) of ``board``, computed here from the spec."""
    return f"{height - row}{COLUMNS[col]}"


def gtp(row: int, col: int, height: int) -> str:
    return f"{COLUMNS[col]}{height - row}"


# Sizes


@pytest.mark.parametrize(("height", "width"), SIZES)
def test_new_game_has_the_given_size_and_is_empty(new_game: GoFactory, height: int, width: int) -> None:
    game = new_game(height, width)
    assert game.size == {"height": height, "width": width}
    assert game.board == empty(height, width)
    assert game.turn == "black"
    assert game.move_number == 0


@pytest.mark.parametrize("side", [1, 2, 5, 9, 13, 19, 24, 25])
def test_width_defaults_to_height(new_game: GoFactory, side: int) -> None:
    for game in (new_game(side), new_game(side, None)):
        assert game.size == {"height": side, "width": side}
        assert game.board == empty(side)


def test_kata_size_example(new_game: GoFactory) -> None:
    game = new_game(9, 6)
    assert game.size == {"height": 9, "width": 6}
    assert len(game.board) == 9
    assert all(len(row) == 6 for row in game.board)
    assert new_game(9, 16).size == {"height": 9, "width": 16}


@pytest.mark.parametrize(
    ("height", "width"),
    [(0, None), (-1, None), (-25, None), (26, None), (32, None), (100, None), (10**30, None), (-(10**30), None),
     (9, 0), (9, -1), (9, 26), (0, 9), (26, 9), (0, 0), (26, 26), (9, 10**30)],
)
def test_sizes_out_of_range_raise_value_error(new_game: GoFactory, height: int, width: int | None) -> None:
    with pytest.raises(ValueError):
        new_game(height, width)


@pytest.mark.parametrize(
    ("height", "width"),
    [(9.0, None), (9.5, None), ("9", None), (True, None), (False, None), (9, 6.0), (9, "6"), (9, True), (9, False), (True, True)],
)
def test_non_integer_sizes_raise_type_error(new_game: GoFactory, height: object, width: object) -> None:
    with pytest.raises(TypeError):
        new_game(cast(Any, height), cast(Any, width))


# The board property


def test_board_is_a_fresh_list_every_time(new_game: GoFactory) -> None:
    game = new_game(5, 4)
    game.move("3B")
    first = game.board
    second = game.board
    assert first == second
    assert first is not second
    assert all(a is not b for a, b in zip(first, second))
    first[0][0] = "o"
    first[2].clear()
    first.append(["x"] * 4)
    del first[1]
    second[2][1] = "."
    assert game.board == [list("...."), list("...."), list(".x.."), list("...."), list("....")]
    assert game.get_position("3B") == "x"
    assert game.get_position("5A") == "."


def test_board_cells_are_one_character_strings(new_game: GoFactory) -> None:
    game = new_game(4, 6)
    game.move("2B", "3B")
    board = game.board
    assert isinstance(board, list)
    for row in board:
        assert isinstance(row, list)
        assert len(row) == 6
        for cell in row:
            assert type(cell) is str
            assert cell in (".", "x", "o")
    assert board[2][1] == "x"  # 2B: second row from the bottom of 4
    assert board[1][1] == "o"


def test_turn_and_move_number_follow_the_turns(new_game: GoFactory) -> None:
    game = new_game(9)
    assert (game.turn, game.move_number) == ("black", 0)
    game.move("3B")
    assert (game.turn, game.move_number) == ("white", 1)
    game.move("4B")
    assert (game.turn, game.move_number) == ("black", 2)
    game.pass_turn()
    assert (game.turn, game.move_number) == ("white", 3)
    game.move("5B", "6B", "7B")
    assert (game.turn, game.move_number) == ("black", 6)


# Coordinates


@pytest.mark.parametrize(("height", "width"), [(9, 9), (9, 6), (3, 19), (1, 5), (5, 1), (1, 1), (13, 13), (25, 25), (12, 10)])
def test_every_point_in_kata_form_maps_to_board_row_and_column(new_game: GoFactory, height: int, width: int) -> None:
    game = new_game(height, width)
    for row in range(height):
        for col in range(width):
            name = kata(row, col, height)
            if height * width == 1:
                # the only point of a 1x1 board is suicide for black; get_position still reads it
                assert game.get_position(name) == "."
                continue
            game.move(name)
            expected = empty(height, width)
            expected[row][col] = "x"
            assert game.board == expected, name
            assert game.get_position(name) == "x"
            assert game.get_position(gtp(row, col, height)) == "x"
            assert game.get_position(gtp(row, col, height).lower()) == "x"
            assert game.get_position((row, col)) == "x"
            game.rollback(1)


@pytest.mark.parametrize(
    ("height", "width", "name", "row", "col"),
    [
        (9, 9, "1A", 8, 0),
        (9, 9, "9A", 0, 0),
        (9, 9, "9J", 0, 8),
        (9, 9, "1J", 8, 8),
        (9, 9, "1H", 8, 7),
        (9, 9, "5E", 4, 4),
        (9, 9, "7A", 2, 0),
        (19, 19, "10K", 9, 9),
        (19, 19, "10J", 9, 8),
        (19, 19, "19T", 0, 18),
        (19, 19, "16Q", 3, 15),
        (19, 19, "4D", 15, 3),
        (25, 25, "25Z", 0, 24),
        (25, 25, "25A", 0, 0),
        (25, 25, "1Z", 24, 24),
        (25, 25, "13N", 12, 12),
        (25, 25, "10K", 15, 9),
        (13, 13, "10K", 3, 9),
        (9, 6, "1F", 8, 5),
        (9, 6, "9A", 0, 0),
        (3, 19, "3T", 0, 18),
        (3, 19, "1A", 2, 0),
        (1, 5, "1E", 0, 4),
        (5, 1, "5A", 0, 0),
        (5, 1, "1A", 4, 0),
        (12, 3, "11C", 1, 2),
    ],
)
def test_named_points(new_game: GoFactory, height: int, width: int, name: str, row: int, col: int) -> None:
    letter, number = name[-1], name[:-1]
    for form in (name, letter + number, letter.lower() + number, (row, col)):
        game = new_game(height, width)
        game.move(form)
        assert game.board[row][col] == "x", form
        assert sum(cell != "." for line in game.board for cell in line) == 1
        assert game.get_position(name) == "x"
        assert game.get_position((row, col)) == "x"


@pytest.mark.parametrize("coord", ["0A", "10A", "1K", "3Z", "66", "5I", "IA", "A", "1", "", "I5", "i5", "J10", "A0", "Z3", "K1", (9, 0), (0, 9), (9, 9)])
def test_bad_coordinates_on_9x9_raise_value_error_and_change_nothing(new_game: GoFactory, coord: Coordinate) -> None:
    game = Tracked(new_game(9))
    game.move("5E", "3C", "4D")
    game.pass_turn()
    error = game.invalid(lambda: game.game.move(coord))
    assert type(error) is not IllegalMoveError
    game.invalid(lambda: game.game.get_position(coord))
    game.verify_history()


@pytest.mark.parametrize(
    ("height", "width", "coord"),
    [
        (9, 6, "1G"),
        (9, 6, "G1"),
        (9, 6, "10A"),
        (9, 6, (0, 6)),
        (9, 6, (9, 0)),
        (3, 19, "4A"),
        (3, 19, "1U"),
        (3, 19, "A4"),
        (1, 1, "1B"),
        (1, 1, "2A"),
        (1, 1, (0, 1)),
        (1, 5, "2A"),
        (1, 5, "1F"),
        (5, 1, "1B"),
        (5, 1, "6A"),
        (25, 25, "26A"),
        (25, 25, "0Z"),
        (19, 19, "20A"),
        (19, 19, "1U"),
        (19, 19, "100A"),
    ],
)
def test_points_off_rectangular_boards_raise_value_error(new_game: GoFactory, height: int, width: int, coord: Coordinate) -> None:
    game = Tracked(new_game(height, width))
    game.invalid(lambda: game.game.move(coord))
    game.invalid(lambda: game.game.get_position(coord))
    game.verify_history()


def test_bad_coordinate_in_a_list_keeps_the_moves_before_it(new_game: GoFactory) -> None:
    game = new_game(9)
    with pytest.raises(ValueError) as info:
        game.move("5E", "3C", "3Z", "4D")
    assert not isinstance(info.value, IllegalMoveError)
    twin = Tracked(new_game(9))
    twin.move("5E", "3C")
    assert snapshot(game) == snapshot(twin.game)
    assert game.get_position("4D") == "."
    twin.game = game
    twin.verify_history()


def test_two_digit_rows_on_25x25(new_game: GoFactory) -> None:
    game = Tracked(new_game(25))
    game.move("25Z", "10K", "Z1", "a25", (12, 12))
    board = game.board
    assert board[0][24] == "x"
    assert board[15][9] == "o"
    assert board[24][24] == "x"
    assert board[0][0] == "o"
    assert board[12][12] == "x"
    assert game.game.get_position("13N") == "x"
    assert game.game.get_position("N13") == "x"
    game.verify_history()
