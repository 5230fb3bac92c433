"""Handicap stones: where, how many, on which boards, and when."""

from __future__ import annotations

import pytest

from support.reference_model import COLUMNS, GoFactory
from support.tracked_game import Tracked, empty, snapshot

ORDER = {
    9: ["7G", "3C", "3G", "7C", "5E"],
    13: ["10K", "4D", "4K", "10D", "7G", "7D", "7K", "10G", "4G"],
    19: ["16Q", "4D", "4Q", "16D", "10K", "10D", "10Q", "16K", "4K"],
}
CASES = [(side, n) for side, points in ORDER.items() for n in range(1, len(points) + 1)]


def board_with(side: int, points: list[str]) -> list[list[str]]:
    """An empty board with black stones on kata-form points (computed here from the spec)."""
    board = empty(side)
    for point in points:
        board[side - int(point[:-1])][COLUMNS.index(point[-1])] = "x"
    return board


@pytest.mark.parametrize(("side", "n"), CASES)
def test_handicap_stones_go_on_the_first_n_points_in_order(new_game: GoFactory, side: int, n: int) -> None:
    game = new_game(side)
    game.handicap_stones(n)
    assert game.board == board_with(side, ORDER[side][:n])
    for point in ORDER[side][:n]:
        assert game.get_position(point) == "x"
    assert game.turn == "black"
    assert game.move_number == 0


def test_three_handicap_stones_on_9x9_from_the_kata(new_game: GoFactory) -> None:
    game = new_game(9)
    game.handicap_stones(3)
    expected = empty(9)
    expected[2][6] = expected[6][2] = expected[6][6] = "x"
    assert game.board == expected


def test_three_handicap_stones_on_19x19(new_game: GoFactory) -> None:
    game = new_game(19)
    game.handicap_stones(3)
    expected = empty(19)
    expected[3][15] = "x"  # 16Q
    expected[15][3] = "x"  # 4D
    expected[15][15] = "x"  # 4Q
    assert game.board == expected
    assert [game.get_position(p) for p in ("16Q", "4D", "4Q", "16D")] == ["x", "x", "x", "."]


@pytest.mark.parametrize("side", [9, 13, 19])
def test_black_still_moves_first_after_handicap(new_game: GoFactory, side: int) -> None:
    game = Tracked(new_game(side))
    game.game.handicap_stones(2)
    game.history = [snapshot(game.game)]
    game.move("1A", "1B")
    assert game.game.get_position("1A") == "x"
    assert game.game.get_position("1B") == "o"
    game.illegal(ORDER[side][0], "occupied")
    game.verify_history()


@pytest.mark.parametrize(("side", "n"), [(9, 6), (9, 9), (13, 10), (19, 10), (19, 100), (9, 0), (13, 0), (19, 0), (9, -1), (19, -9)])
def test_wrong_number_of_stones_raises_and_does_not_use_up_the_call(new_game: GoFactory, side: int, n: int) -> None:
    game = Tracked(new_game(side))
    game.invalid(lambda: game.game.handicap_stones(n))
    assert game.board == empty(side)
    game.game.handicap_stones(len(ORDER[side]))
    assert game.board == board_with(side, ORDER[side])


@pytest.mark.parametrize(("height", "width"), [(9, 6), (6, 9), (9, 13), (13, 9), (13, 19), (19, 13), (19, 9), (1, 1), (5, 5), (8, 8), (10, 10), (12, 12), (14, 14), (18, 18), (20, 20), (25, 25), (1, 19)])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_only_9x9_13x13_and_19x19_take_handicap(new_game: GoFactory, height: int, width: int, n: int) -> None:
    game = Tracked(new_game(height, width))
    game.invalid(lambda: game.game.handicap_stones(n))
    if height * width > 1:
        game.move("1A")
    else:
        game.pass_turn()
    game.verify_history()


@pytest.mark.parametrize("side", [9, 13, 19])
def test_handicap_only_once(new_game: GoFactory, side: int) -> None:
    game = Tracked(new_game(side))
    game.game.handicap_stones(2)
    game.history = [snapshot(game.game)]
    for n in (1, 2, 3, 5):
        game.invalid(lambda: game.game.handicap_stones(n))
    assert game.board == board_with(side, ORDER[side][:2])


@pytest.mark.parametrize("side", [9, 13, 19])
def test_no_handicap_after_a_move_or_a_pass(new_game: GoFactory, side: int) -> None:
    game = Tracked(new_game(side))
    game.move("1A")
    game.invalid(lambda: game.game.handicap_stones(1))
    game.pass_turn()
    game.invalid(lambda: game.game.handicap_stones(2))
    game.verify_history()

    passed = Tracked(new_game(side))
    passed.pass_turn()
    passed.invalid(lambda: passed.game.handicap_stones(1))
    passed.verify_history()


def test_a_failed_move_is_not_a_turn(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.invalid(lambda: game.game.move("10A"))
    game.game.handicap_stones(1)
    assert game.board == board_with(9, ["7G"])


@pytest.mark.parametrize("undo", ["move", "pass", "several"])
def test_handicap_allowed_again_once_every_turn_is_rolled_back(new_game: GoFactory, undo: str) -> None:
    game = new_game(13)
    if undo == "move":
        game.move("7G")
    elif undo == "pass":
        game.pass_turn()
    else:
        game.move("7G", "1A")
        game.pass_turn()
    game.rollback(game.move_number)
    game.handicap_stones(5)
    assert game.board == board_with(13, ORDER[13][:5])
    assert (game.turn, game.move_number) == ("black", 0)


def test_rollback_never_removes_handicap_stones(new_game: GoFactory) -> None:
    game = Tracked(new_game(19))
    game.game.handicap_stones(4)
    game.history = [snapshot(game.game)]
    game.move("10K", "3C", "17R")
    game.pass_turn()
    game.rollback(4)
    assert game.board == board_with(19, ORDER[19][:4])
    assert game.game.turn == "black"
    game.invalid(lambda: game.game.rollback(1))
    game.invalid(lambda: game.game.handicap_stones(1))  # still used up


def test_reset_allows_handicap_again(new_game: GoFactory) -> None:
    game = new_game(9)
    game.handicap_stones(5)
    game.move("1A")
    game.reset()
    assert game.board == empty(9)
    game.handicap_stones(4)
    assert game.board == board_with(9, ORDER[9][:4])
    game.reset()
    game.handicap_stones(1)
    assert game.board == board_with(9, ORDER[9][:1])


def test_handicap_stones_can_be_captured_and_rollback_brings_them_back(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.game.handicap_stones(1)  # 7G
    game.history = [snapshot(game.game)]
    game.move("1A", "8G", "1B", "6G", "1C", "7F", "1D", "7H")
    assert game.game.get_position("7G") == "."
    game.rollback(1)
    assert game.game.get_position("7G") == "x"
    game.verify_history()
