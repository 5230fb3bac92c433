"""Placing stones, captures, suicide, ko and passes; every illegal move leaves the game as it was."""

from __future__ import annotations

import pytest

from gokata import Go, IllegalMoveError
from support.reference_model import GoFactory
from support.tracked_game import AFTER_RETAKE, KO_SHAPE, Tracked, empty, ko_taken, rows, set_up, snapshot

def test_illegal_move_error_is_a_value_error() -> None:
    assert issubclass(IllegalMoveError, ValueError)
    game = Go(9)
    game.move("5E")
    with pytest.raises(ValueError) as info:
        game.move("5E")
    assert type(info.value) is IllegalMoveError


# Placing stones


def test_black_moves_first_and_colours_alternate(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("3D")
    assert game.game.get_position("3D") == "x"
    game.move("4D")
    assert game.game.get_position("4D") == "o"
    game.game.move("4A", "5A", "6A")
    assert [game.game.get_position(p) for p in ("4A", "5A", "6A")] == ["x", "o", "x"]
    assert game.game.turn == "white"
    assert game.game.move_number == 5


def test_move_with_no_coordinates_plays_nothing(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("5E")
    game.game.move()
    game.assert_unchanged()


@pytest.mark.parametrize("point", ["3D", "4D"])
def test_occupied_point_is_illegal_for_both_colours(new_game: GoFactory, point: str) -> None:
    game = Tracked(new_game(9))
    game.move("3D", "4D")
    game.illegal(point, "occupied")
    game.pass_turn()
    game.illegal(point, "occupied")
    game.verify_history()


def test_occupied_point_named_in_other_forms(new_game: GoFactory) -> None:
    game = Tracked(new_game(19))
    game.move("10K")
    game.illegal("K10", "occupied", name="10K")
    game.illegal("k10", "occupied", name="10K")
    game.illegal((9, 9), "occupied", name="10K")
    game.verify_history()


def test_illegal_move_in_a_list_keeps_the_moves_before_it(new_game: GoFactory) -> None:
    game = new_game(9)
    with pytest.raises(ValueError) as info:
        game.move("3C", "3D", "3C", "4D")
    assert "occupied" in str(info.value).lower()
    assert "3C" in str(info.value)
    twin = Tracked(new_game(9))
    twin.move("3C", "3D")
    assert snapshot(game) == snapshot(twin.game)
    assert game.get_position("4D") == "."
    twin.game = game
    twin.verify_history()


# Captures


def test_capture_of_a_single_stone(new_game: GoFactory) -> None:
    game = set_up(new_game(5), rows(
        ". . . . .",
        ". . x . .",
        ". x o . .",
        ". . x . .",
        ". . . . .",
    ))
    game.move("3D")
    assert game.board == rows(
        ". . . . .",
        ". . x . .",
        ". x . x .",
        ". . x . .",
        ". . . . .",
    )
    game.illegal("3C", "suicide")  # white may not play back into the hole: it takes nothing
    game.verify_history()


def test_capture_of_a_chain(new_game: GoFactory) -> None:
    game = set_up(new_game(3, 5), rows(
        ". x x x .",
        "x o o o .",
        ". x x x .",
    ))
    game.move("2E")
    assert game.board == rows(
        ". x x x .",
        "x . . . x",
        ". x x x .",
    )
    game.verify_history()


def test_one_move_captures_several_chains(new_game: GoFactory) -> None:
    game = set_up(new_game(5), rows(
        ". x o x .",
        "x o . o x",
        ". x o x .",
        ". . x . .",
        ". . . . .",
    ))
    game.move("4C")
    assert game.board == rows(
        ". x . x .",
        "x . x . x",
        ". x . x .",
        ". . x . .",
        ". . . . .",
    )
    game.verify_history()


def test_only_chains_without_liberties_are_captured(new_game: GoFactory) -> None:
    game = set_up(new_game(4), rows(
        ". x o .",
        "x o . o",
        ". x o .",
        ". . . .",
    ))
    # Black 3C takes the white stone 3B but not the white stones that still have liberties.
    game.move("3C")
    assert game.board == rows(
        ". x o .",
        "x . x o",
        ". x o .",
        ". . . .",
    )
    game.verify_history()


def test_white_captures_too(new_game: GoFactory) -> None:
    game = set_up(new_game(1, 2), rows("x ."), to_move="white")
    game.move("1B")
    assert game.board == rows(". o")
    game.verify_history()


def test_corner_capture(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("9A", "8A", "8B", "9B")
    assert game.game.get_position("9A") == "."
    assert game.board[0][:2] == [".", "o"]
    game.verify_history()


def test_captures_come_before_the_suicide_check(new_game: GoFactory) -> None:
    # Black 1B fills the last liberty of its own stone 1A and has no empty neighbour, but it
    # first takes the white stone 1C, whose last liberty it was.
    game = set_up(new_game(4), rows(
        ". . . .",
        ". . . .",
        "o o x .",
        "x . o x",
    ))
    game.move("1B")
    assert game.board == rows(
        ". . . .",
        ". . . .",
        "o o x .",
        "x x . x",
    )
    # White 1C takes the two black stones back: one stone captured, but not the same board,
    # so not a ko.
    game.move("1C")
    assert game.board == rows(
        ". . . .",
        ". . . .",
        "o o x .",
        ". . o x",
    )
    game.verify_history()


def test_captured_points_can_be_played_again(new_game: GoFactory) -> None:
    game = set_up(new_game(3, 5), rows(
        ". x x x .",
        "x o o o .",
        ". x x x .",
    ))
    game.move("2E", "2C", "2B")
    assert game.board == rows(
        ". x x x .",
        "x x o . x",
        ". x x x .",
    )
    game.illegal("2D", "suicide")
    game.verify_history()


def test_snapback_from_the_kata(new_game: GoFactory) -> None:
    game = Tracked(new_game(5))
    game.move("5A", "1E", "5B", "2D", "5C", "2C", "3A", "1C", "2A", "3D", "2B", "3E", "4D", "4B",
              "4E", "4A", "3C", "3B", "1A", "4C", "3C")
    for point in ("4A", "4B", "4C", "3B"):
        assert game.game.get_position(point) == "."
    assert game.game.get_position("3C") == "x"
    game.verify_history()


# Suicide


def test_suicide_of_a_single_stone(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("4H", "8A", "8B", "9B")
    game.illegal("9A", "suicide")
    game.move("3B")
    assert game.game.get_position("3B") == "x"
    game.verify_history()


def test_suicide_of_a_chain(new_game: GoFactory) -> None:
    game = set_up(new_game(1, 5), rows("x x . o ."))
    game.illegal("1C", "suicide")
    game.pass_turn()
    game.move("1C")  # white may play it: it takes the two black stones
    assert game.board == rows(". . o o .")
    game.verify_history()


def test_suicide_filling_a_chain_surrounded_by_living_stones(new_game: GoFactory) -> None:
    game = set_up(new_game(3, 5), rows(
        ". o x o .",
        "o x . x o",
        ". o x o .",
    ))
    game.illegal("2C", "suicide")
    game.verify_history()


def test_suicide_for_white(new_game: GoFactory) -> None:
    game = set_up(new_game(3), rows(
        ". . .",
        ". x .",
        "x . x",
    ), to_move="white")
    game.illegal("1B", "suicide")
    game.move("2A")
    game.verify_history()


@pytest.mark.parametrize("point", ["1A", "A1", "a1"])
def test_the_one_point_of_a_1x1_board_is_suicide(new_game: GoFactory, point: str) -> None:
    game = Tracked(new_game(1))
    game.illegal(point, "suicide", name="1A")
    game.pass_turn()
    game.illegal(point, "suicide", name="1A")
    game.pass_turn()
    game.pass_turn()
    assert game.board == [["."]]
    game.verify_history()


# Ko

def test_ko_retake_is_illegal(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.illegal("3B", "ko")
    game.verify_history()


def test_ko_retake_after_a_threat_and_answer_is_legal(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.move("1E", "5E", "3B")
    assert game.board[1:4] == AFTER_RETAKE[1:4]
    # Now black may not take back at once.
    game.illegal("3C", "ko")
    game.move("1A", "1B")  # threat and answer
    game.move("3C")
    game.verify_history()


@pytest.mark.parametrize("pass_pairs", [1, 2, 3])
def test_ko_retake_is_legal_after_both_players_pass(new_game: GoFactory, pass_pairs: int) -> None:
    game = ko_taken(new_game)
    for _ in range(pass_pairs):
        game.pass_turn()  # white
        game.pass_turn()  # black
    assert game.game.turn == "white"
    game.move("3B")
    assert game.board == KO_SHAPE
    game.illegal("3C", "ko")  # and it is black who may not take back at once now
    game.verify_history()


def test_one_pass_by_the_banned_side_does_not_lift_the_ban(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.pass_turn()  # white passes
    game.move("1A")  # black plays elsewhere: the board changed, so white may now retake
    game.move("3B")
    game.verify_history()


def test_a_pass_before_the_take_does_not_lift_the_ban(new_game: GoFactory) -> None:
    # White's previous turn was a pass: the board after it is the board the retake would make.
    game = set_up(new_game(5), KO_SHAPE, to_move="white")
    game.pass_turn()
    game.move("3C")
    game.illegal("3B", "ko")
    game.verify_history()


def test_ko_after_an_illegal_retake_the_ban_stays(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.illegal("3B", "ko")
    game.illegal("3B", "ko")
    game.illegal("3C", "occupied")
    game.move("1E")
    game.move("1A")
    game.move("3B")  # legal now
    game.verify_history()


def test_ko_from_the_kata_description(new_game: GoFactory) -> None:
    # Move 1: white plays 9E; move 2: black takes it at 9D; move 3: white's retake at 9E would
    # recreate the board after move 1, white's previous move.
    game = set_up(new_game(9), rows(
        ". . o . . x . . .",
        ". . . o x . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    ), to_move="white")
    game.move("9E")
    move_1 = game.board
    assert move_1[:2] == rows(". . o . o x . . .", ". . . o x . . . .")
    game.move("9D")
    assert game.board[:2] == rows(". . o x . x . . .", ". . . o x . . . .")
    game.illegal("9E", "ko")
    game.rollback(1)
    assert game.board == move_1
    game.verify_history()


def test_taking_back_is_ko_when_the_takers_last_turn_left_that_board(new_game: GoFactory) -> None:
    # Black's stone at 9D is taken by white 9E; black's retake at 9D recreates the board after
    # black's previous turn (a pass here, or any move: the retake undoes white's move), so it
    # is a ko even though no ko was "started" by black.
    game = set_up(new_game(9), rows(
        ". . o x . x . . .",
        ". . . o x . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
    ), to_move="white")
    game.move("9E")
    game.illegal("9D", "ko")
    game.verify_history()


def test_ko_on_a_1x5_board(new_game: GoFactory) -> None:
    game = Tracked(new_game(1, 5))
    game.move("1C", "1B", "1A")
    assert game.board == rows("x . x . .")
    game.illegal("1B", "ko")
    game.move("1E", "1D")
    assert game.board == rows("x . x x .")
    game.verify_history()


# Passing


def test_pass_changes_the_turn_only(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.pass_turn()
    assert game.game.turn == "white"
    assert game.game.move_number == 1
    assert game.board == empty(9)
    game.move("5E")
    assert game.game.get_position("5E") == "o"
    for _ in range(7):
        game.pass_turn()
    assert game.game.turn == "white"
    assert game.game.move_number == 9
    game.verify_history()
