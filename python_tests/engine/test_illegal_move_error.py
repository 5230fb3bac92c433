"""`IllegalMoveError` carries what a program needs (the point, the colour, the reason), and the
ko rule as the engine applies it: the position before the last turn, whoever played it. How
the texts state the rule: `test_documented_api`."""

from __future__ import annotations

import re
from typing import Callable

import pytest

from gokata import Go, IllegalMoveError

KO_RULE = "recreate the position as it was before the last turn"


# IllegalMoveError carries what a program needs


@pytest.mark.parametrize(
    ("set_up", "call", "attributes"),
    [
        (lambda g: g.move("3C"), lambda g: g.move("3C"), ("3C", "white", "occupied")),
        (lambda g: g.move("3C"), lambda g: g.play("b", (2, 2)), ("3C", "black", "occupied")),
        (lambda g: g.move("3C"), lambda g: g.captures("C3", "w"), ("3C", "white", "occupied")),
        (lambda g: g.move("2A", "4E", "1B"), lambda g: g.move("1A"), ("1A", "white", "suicide")),
    ],
)
def test_illegal_move_error_attributes(
    set_up: Callable[[Go], object], call: Callable[[Go], object], attributes: tuple[str, str, str]
) -> None:
    game = Go(5)
    set_up(game)
    with pytest.raises(IllegalMoveError) as info:
        call(game)
    error = info.value
    assert (error.coord, error.color, error.reason) == attributes
    assert isinstance(error, ValueError)


def test_ko_error_attributes_and_message() -> None:
    game = Go.from_board([".xo.", "xo.o", ".xo."])
    game.move((1, 2))  # black takes at 2C: white may not retake at once
    with pytest.raises(IllegalMoveError) as info:
        game.move("2B")
    assert (info.value.coord, info.value.color, info.value.reason) == ("2B", "white", "ko")
    assert str(info.value) == f"illegal move 2B for white: ko (it would {KO_RULE})"


def test_illegal_move_error_from_a_message_alone() -> None:
    error = IllegalMoveError("illegal move 3C for white: the point is occupied")
    assert (error.coord, error.color, error.reason) == (None, None, None)
    assert str(error) == "illegal move 3C for white: the point is occupied"

    class Remote(ValueError):
        pass

    class RemoteIllegalMove(Remote, IllegalMoveError):  # as gokata.client defines its own
        pass

    remote = RemoteIllegalMove("refused")
    assert remote.reason is None and isinstance(remote, IllegalMoveError)


# Ko: the position before the last turn, whoever played it


def test_ko_with_explicit_colours_is_the_position_before_the_last_turn() -> None:
    # White plays twice in a row, the second time taking a black stone in a ko. Black's retake
    # would not recreate the position after black's own previous turn (black has none: the
    # game was set up), but it would recreate the one before the last turn: ko.
    game = Go.from_board([".xo.", "x.xo", ".xo.", "...."], turn="white")
    game.play("white", "1D")
    game.play("white", "3B")  # takes the black stone at 3C
    assert game.board[1] == list("xo.o")
    assert game.illegal_reason("3C", "black") == "ko"
    with pytest.raises(IllegalMoveError, match=re.escape(KO_RULE)):
        game.play("black", "3C")
    # One more turn, by anyone, and the retake no longer recreates the position before it.
    game.play("white", "1A")
    assert game.illegal_reason("3C", "black") is None
