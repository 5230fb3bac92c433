"""A game with the record of every turn played on it, and the pictures the rule tests are
written with: shared by the `engine/test_go_*` suites, which run each test on `gokata.Go` and on
the reference model (the `new_game` fixture of `engine/conftest.py`).

`Tracked` proves that a failed call changes nothing and that rollback undoes exactly the turns on
record; `set_up` reaches a drawn position by moves; `KO_SHAPE` is a ko on 5x5 that several suites
use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Optional

import pytest

from gokata import IllegalMoveError
from support.reference_model import Coordinate, GoFactory, GoLike

Snapshot = tuple[list[list[str]], str, int]
"""What must not change when a call fails: board, side to move, move number."""

Turn = Optional[Coordinate]
"""A recorded turn: a coordinate, or None for a pass."""

def rows(*lines: str) -> list[list[str]]:
    """A board from text rows, top row first; spaces are ignored: ``rows(". x", "o .")``."""
    return [list(line.replace(" ", "")) for line in lines]


def empty(height: int, width: int | None = None) -> list[list[str]]:
    return [["."] * (height if width is None else width) for _ in range(height)]


def snapshot(game: GoLike) -> Snapshot:
    return game.board, game.turn, game.move_number


def other(turn: str) -> str:
    return "white" if turn == "black" else "black"


def mentions(message: str, word: str) -> bool:
    """Whether ``word`` occurs in ``message`` as a word of its own, in any case."""
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(word)}(?![0-9A-Za-z])", message, re.IGNORECASE) is not None


class Tracked:
    """A game together with the record of every turn played on it, to prove that failed calls
    change nothing and that rollback undoes exactly the turns on record."""

    def __init__(self, game: GoLike) -> None:
        self.game = game
        self.turns: list[Turn] = []
        self.history: list[Snapshot] = [snapshot(game)]

    @property
    def board(self) -> list[list[str]]:
        return self.game.board

    def move(self, *coords: Coordinate) -> None:
        """Plays each coordinate as a separate call, recording it."""
        for coord in coords:
            self.game.move(coord)
            self._record(coord)

    def pass_turn(self) -> None:
        self.game.pass_turn()
        self._record(None)

    def rollback(self, n: int) -> None:
        self.game.rollback(n)
        if n:
            del self.turns[-n:]
            del self.history[-n:]
        self.assert_unchanged()

    def _record(self, turn: Turn) -> None:
        before = self.history[-1]
        self.turns.append(turn)
        self.history.append(snapshot(self.game))
        assert self.game.move_number == before[2] + 1
        assert self.game.turn == other(before[1])

    def assert_unchanged(self) -> None:
        """The game is in the state of the last turn on record."""
        assert snapshot(self.game) == self.history[-1]

    def illegal(self, coord: Coordinate, reason: str, name: str | None = None) -> str:
        """Asserts that playing ``coord`` raises IllegalMoveError naming the point (``name``,
        by default ``coord`` itself) and ``reason``, and changes nothing. Returns the message."""
        with pytest.raises(IllegalMoveError) as info:
            self.game.move(coord)
        message = str(info.value)
        point = name if name is not None else str(coord)
        assert mentions(message, point), f"{message!r} does not name {point}"
        assert mentions(message, reason), f"{message!r} does not say {reason}"
        self.assert_unchanged()
        return message

    def invalid(self, call: Callable[[], object]) -> ValueError:
        """Asserts that ``call`` raises ValueError but not IllegalMoveError, changing nothing."""
        with pytest.raises(ValueError) as info:
            call()
        assert not isinstance(info.value, IllegalMoveError), repr(info.value)
        self.assert_unchanged()
        return info.value

    def verify_history(self) -> None:
        """Rolls back one turn at a time, checking every earlier state, checks that no further
        rollback is possible, then replays the record and checks it ends where it started."""
        end = snapshot(self.game)
        assert end == self.history[-1]
        for expected in reversed(self.history[:-1]):
            self.game.rollback(1)
            assert snapshot(self.game) == expected
        with pytest.raises(ValueError) as info:
            self.game.rollback(1)
        assert not isinstance(info.value, IllegalMoveError)
        assert snapshot(self.game) == self.history[0]
        for turn in self.turns:
            if turn is None:
                self.game.pass_turn()
            else:
                self.game.move(turn)
        assert snapshot(self.game) == end


def stones(diagram: Sequence[Sequence[str]], colour: str) -> list[tuple[int, int]]:
    return [(r, c) for r, line in enumerate(diagram) for c, cell in enumerate(line) if cell == colour]


def set_up(game: GoLike, diagram: list[list[str]], to_move: str = "black") -> Tracked:
    """Reaches ``diagram`` (with no capture, every chain of it having a liberty) by moves,
    black and white alternating with passes to fill in, then a pass if needed so that
    ``to_move`` is to play. Returns the tracked game."""
    tracked = Tracked(game)
    black, white = stones(diagram, "x"), stones(diagram, "o")
    while black or white:
        for queue in (black, white):
            if queue:
                tracked.move(queue.pop(0))
            else:
                tracked.pass_turn()
    if game.turn != to_move:
        tracked.pass_turn()
    assert game.board == diagram
    assert game.turn == to_move
    return tracked


# A ko on 5x5, used by several suites

KO_SHAPE = rows(
    ". . . . .",
    ". x o . .",
    "x o . o .",
    ". x o . .",
    ". . . . .",
)
AFTER_TAKE = rows(
    ". . . . .",
    ". x o . .",
    "x . x o .",
    ". x o . .",
    ". . . . .",
)
AFTER_RETAKE = KO_SHAPE


def ko_taken(new_game: GoFactory) -> Tracked:
    """`KO_SHAPE` after black 3C took the white stone 3B: white to move, and 3B is a ko."""
    game = set_up(new_game(5), KO_SHAPE)
    game.move("3C")
    assert game.board == AFTER_TAKE
    return game
