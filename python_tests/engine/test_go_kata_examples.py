"""The examples of the Codewars kata "Go (Baduk)": its sample tests, translated to pytest, and
the examples of its description."""

from __future__ import annotations

import pytest

from gokata import IllegalMoveError
from support.reference_model import GoFactory
from support.tracked_game import Tracked, empty, rows, set_up

# Sample tests: creating boards


@pytest.mark.parametrize("side", [9, 13, 19])
def test_creating_boards(new_game: GoFactory, side: int) -> None:
    assert new_game(side).board == [["."] * side for _ in range(side)]


def test_32x32_is_too_large(new_game: GoFactory) -> None:
    with pytest.raises(ValueError):
        new_game(32)


# Sample tests: placing stones


def test_placing_stones(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("3D")
    assert game.get_position("3D") == "x"
    game.move("4D")
    assert game.get_position("4D") == "o"
    game.move("4A", "5A", "6A")
    assert game.get_position("4A") == "x"
    assert game.get_position("5A") == "o"
    assert game.get_position("6A") == "x"
    with pytest.raises(IllegalMoveError):
        game.move("3D")
    with pytest.raises(IllegalMoveError):
        game.move("4D")
    with pytest.raises(ValueError):
        game.move("3Z")
    with pytest.raises(ValueError):
        game.move("66")


# Sample tests: capturing


def test_black_captures_a_single_white_stone(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("4D", "3D", "4H", "5D", "3H", "4C", "5B", "4E")
    assert game.get_position("4D") == "."


def test_black_captures_multiple_white_stones(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("6D", "7E", "6E", "6F", "4D", "5E", "5D", "7D",
              "5C", "6C", "7H", "3D", "4E", "4F", "3E", "2E",
              "3F", "3G", "2F", "1F", "2G", "2H", "1G", "1H",
              "4C", "3C", "6H", "4B", "5H", "5B")
    for point in ["6D", "6E", "4D", "5D", "5C", "4E", "3E", "3F", "2F", "2G", "1G", "4C"]:
        assert game.get_position(point) == "."


def test_corner_capture(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("9A", "8A", "8B", "9B")
    assert game.get_position("9A") == "."


def test_multiple_captures(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("5D", "5E", "4E", "6E", "7D", "4F", "7E", "3E", "5F", "4D",
              "6F", "6D", "6C", "7F", "4E", "5E")
    for point in ["4E", "6D", "6E"]:
        assert game.get_position(point) == "."


def test_snapback(new_game: GoFactory) -> None:
    game = new_game(5)
    game.move("5A", "1E", "5B", "2D", "5C", "2C", "3A",
              "1C", "2A", "3D", "2B", "3E", "4D", "4B",
              "4E", "4A", "3C", "3B", "1A", "4C", "3C")
    for point in ["4A", "4B", "4C", "3B"]:
        assert game.get_position(point) == "."


def test_self_capturing_throws_and_black_tries_again(new_game: GoFactory) -> None:
    game = new_game(9)
    with pytest.raises(IllegalMoveError, match="9A"):
        game.move("4H", "8A", "8B", "9B", "9A")
    assert game.get_position("9A") == "."
    game.move("3B")
    assert game.get_position("3B") == "x"


# Sample tests: ko


def test_illegal_ko(new_game: GoFactory) -> None:
    game = new_game(5)
    with pytest.raises(IllegalMoveError, match="4B"):
        game.move("5C", "5B", "4D", "4A", "3C", "3B", "2D", "2C", "4B", "4C", "4B")
    game.move("2B")
    assert game.get_position("2B") == "x"
    assert game.get_position("4B") == "."


def test_illegal_ko_leaves_the_game_as_before_it(new_game: GoFactory) -> None:
    game = Tracked(new_game(5))
    game.move("5C", "5B", "4D", "4A", "3C", "3B", "2D", "2C", "4B", "4C")
    message = game.illegal("4B", "ko")
    assert "4B" in message
    game.rollback(1)  # undoes white's 4C, the last legal move
    assert game.game.get_position("4B") == "x"
    assert game.game.get_position("4C") == "."
    assert game.game.turn == "white"
    game.verify_history()


# Sample tests: handicap and misc


def test_three_handicap_stones_on_9x9(new_game: GoFactory) -> None:
    game = new_game(9)
    game.handicap_stones(3)
    assert game.board == rows(
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . x . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . x . . . x . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    )


def test_board_size(new_game: GoFactory) -> None:
    assert new_game(9, 16).size == {"height": 9, "width": 16}
    assert new_game(9, 6).size == {"height": 9, "width": 6}


def test_color_of_current_turn(new_game: GoFactory) -> None:
    game = new_game(9)
    assert game.turn == "black"
    game.move("3B")
    assert game.turn == "white"
    game.move("4B")
    assert game.turn == "black"


def test_rollback(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("3B", "2B", "1B")
    game.rollback(3)
    assert game.board == empty(9)
    assert game.turn == "black"


def test_pass_turn(new_game: GoFactory) -> None:
    game = new_game(9)
    assert game.turn == "black"
    game.pass_turn()
    assert game.turn == "white"


def test_reset(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("3B", "2B", "1B")
    game.reset()
    assert game.board == empty(9)
    assert game.turn == "black"


# Description examples

BEFORE_9H = rows(
    ". x o o o o o . .",
    ". x o o o o o x .",
    ". . x o o o x . .",
    ". . . x o o x . .",
    ". . x . x x . . .",
    ". . . . . . . o .",
    ". . x . . . . . .",
    ". . . x . . o . .",
    ". . . . . . . . .",
)
AFTER_9H = rows(
    ". x . . . . . x .",
    ". x . . . . . x .",
    ". . x . . . x . .",
    ". . . x . . x . .",
    ". . x . x x . . .",
    ". . . . . . . o .",
    ". . x . . . . . .",
    ". . . x . . o . .",
    ". . . . . . . . .",
)
SELF_CAPTURE_9H = rows(
    ". x o o o o o . x",
    ". x o o o o o x .",
    ". . x o o o x . .",
    ". . . x o o x . .",
    ". . x . x x . . .",
    ". . . . . . . o .",
    ". . x . . . . . .",
    ". . . x . . o . .",
    ". . . . . . . . .",
)


def test_black_9h_captures_the_white_group(new_game: GoFactory) -> None:
    game = set_up(new_game(9), BEFORE_9H)
    game.move("9H")
    assert game.board == AFTER_9H
    assert game.game.turn == "white"
    game.verify_history()


def test_white_9h_is_self_capture(new_game: GoFactory) -> None:
    game = set_up(new_game(9), SELF_CAPTURE_9H, to_move="white")
    game.illegal("9H", "suicide")
    game.illegal("H9", "suicide", name="9H")
    game.move("1A")  # white has another try
    assert game.game.get_position("1A") == "o"
    game.verify_history()


def test_black_9h_in_the_self_capture_position_captures(new_game: GoFactory) -> None:
    game = set_up(new_game(9), SELF_CAPTURE_9H)
    game.move("9H")
    expected = [list(line) for line in AFTER_9H]
    expected[0][8] = "x"
    assert game.board == expected


def test_placing_7a_and_1a(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("7A")
    game.move("1A")
    expected = empty(9)
    expected[2][0] = "x"
    expected[8][0] = "o"
    assert game.board == expected
    assert game.get_position("1A") == "o"


def test_handicap_19x19_example(new_game: GoFactory) -> None:
    game = new_game(19)
    game.handicap_stones(3)
    assert [game.get_position(p) for p in ("16Q", "4D", "4Q")] == ["x", "x", "x"]
    assert sum(cell == "x" for line in game.board for cell in line) == 3
