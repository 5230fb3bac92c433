"""The one pure-Python model of Go in this repository: deliberately simple and independent of
the engine, the oracle of the tests and the pure-Python baseline of the benchmarks.

It is meant to be obviously right rather than fast, so that random games can be played on it
and on `gokata.Go` side by side (see ``engine/test_go_differential.py``):

* the board is a list of lists of ``'.'``, ``'x'``, ``'o'``, row 0 at the top;
* liberties are found by flood fill every time they are needed (`chain_and_liberties`);
* a stone is played on a bare board by `play_stone`: captures, then suicide, then ko, where
  ko is the board after the move equal to a given earlier board;
* `ReferenceGo`, the model of the `gokata.Go` class, keeps the history as a list of full board
  snapshots: ``boards[0]`` is the position before the first turn (empty, or the handicap
  stones) and ``boards[k]`` the position after turn ``k``;
* the side to move is black after an even number of turns and white after an odd number;
* ko: a move is illegal if the board after it equals the board as it was before the last
  turn, ``boards[-2]`` (a pass repeats the board, so passes are turns like any other);
* rollback drops snapshots, reset starts over;
* `area_score` counts stones and the empty regions that touch one colour only;
  `simple_ko_point` is the one-turn ban of simple ko (a single stone taking a single stone),
  as playouts and GTP engines apply it to a position without its history.

Illegal moves raise `ReferenceIllegalMove`, a subclass of `gokata.IllegalMoveError` (so that the
same tests can be run against both implementations) that also records the reason.

Who uses it: the rule tests of ``engine/`` (through the `new_game` fixture, and as the oracle of
the differential, legality-oracle, solve, batch and input tests), ``env/test_env_vecgo.py``, the
GNU Go differential of ``bot/``, and the timed pure-Python baseline of
``benches/bench_python.py``. It lives in ``python_tests/support``, imported as
``support.reference_model``: the tests through pytest's ``pythonpath``, a benchmark after
putting ``python_tests`` on ``sys.path`` (as ``benches/strength.py`` does for the GTP referee).
It imports nothing from the tests, only `gokata.IllegalMoveError`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Optional, Protocol, Union

from gokata import IllegalMoveError

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""Column letters, left to right; there is no I."""

MAX_SIDE = 25

EMPTY, BLACK, WHITE = ".", "x", "o"

Board = list[list[str]]
"""A position: rows of ``'.'``, ``'x'``, ``'o'``, top row first, as `gokata.Go.board` gives it."""
Rows = Sequence[Sequence[str]]
"""A position only read: a `Board`, or rows of text such as ``("x.", ".o")``."""
Point = tuple[int, int]
"""A 0-based ``(row, col)``, row 0 at the top."""
Coordinate = Union[str, tuple[int, int]]

HANDICAP_POINTS: dict[int, tuple[str, ...]] = {
    9: ("7G", "3C", "3G", "7C", "5E"),
    13: ("10K", "4D", "4K", "10D", "7G", "7D", "7K", "10G", "4G"),
    19: ("16Q", "4D", "4Q", "16D", "10K", "10D", "10Q", "16K", "4K"),
}

_KATA_FORM = re.compile(r"([1-9][0-9]*)([A-Z])")
_GTP_FORM = re.compile(r"([A-Za-z])([1-9][0-9]*)")


class GoLike(Protocol):
    """The public interface shared by `gokata.Go` and `ReferenceGo`."""

    @property
    def board(self) -> list[list[str]]: ...
    @property
    def size(self) -> dict[str, int]: ...
    @property
    def turn(self) -> str: ...
    @property
    def move_number(self) -> int: ...
    def move(self, *coords: Coordinate) -> None: ...
    def pass_turn(self) -> None: ...
    def handicap_stones(self, n: int) -> None: ...
    def get_position(self, coord: Coordinate) -> str: ...
    def rollback(self, n: int) -> None: ...
    def reset(self) -> None: ...


class GoFactory(Protocol):
    """`gokata.Go` or `ReferenceGo`, as a constructor."""

    def __call__(self, height: int, width: int | None = None) -> GoLike: ...


class ReferenceIllegalMove(IllegalMoveError):
    """An illegal move in the reference model, with the kata-form point and the reason."""

    reason: str

    def __init__(self, coordinate: str, reason: str) -> None:
        super().__init__(f"illegal move at {coordinate}: {reason}")
        self.coordinate = coordinate
        self.reason = reason


def _whole_number(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value


def kata_name(row: int, col: int, height: int) -> str:
    """The kata form of the 0-based ``(row, col)`` on a board of ``height`` rows."""
    return f"{height - row}{COLUMNS[col]}"


def parse_coordinate(coord: object, height: int, width: int) -> tuple[int, int]:
    """The 0-based ``(row, col)`` of a kata-form, GTP-form or tuple coordinate; ValueError if
    it is malformed or off the board, TypeError if it is neither a str nor a tuple."""
    if isinstance(coord, tuple):
        if len(coord) != 2:
            raise ValueError(f"a coordinate tuple has two items, not {coord!r}")
        row = _whole_number(coord[0], "row")
        col = _whole_number(coord[1], "col")
        if not (0 <= row < height and 0 <= col < width):
            raise ValueError(f"{coord!r} is off the {height}x{width} board")
        return row, col
    if not isinstance(coord, str):
        raise TypeError(f"a coordinate is a str or a tuple, not {type(coord).__name__}")
    kata = _KATA_FORM.fullmatch(coord)
    gtp = _GTP_FORM.fullmatch(coord)
    if kata is not None:
        number, letter = kata.group(1), kata.group(2)
    elif gtp is not None:
        letter, number = gtp.group(1).upper(), gtp.group(2)
    else:
        raise ValueError(f"malformed coordinate {coord!r}")
    if letter not in COLUMNS[:width]:
        raise ValueError(f"no column {letter!r} on a board of width {width}")
    if int(number) > height:
        raise ValueError(f"no row {number} on a board of height {height}")
    return height - int(number), COLUMNS.index(letter)


def empty_board(height: int, width: int) -> Board:
    return [["." for _ in range(width)] for _ in range(height)]


def neighbours(board: Rows, row: int, col: int) -> list[Point]:
    height, width = len(board), len(board[0])
    candidates = [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]
    return [(r, c) for r, c in candidates if 0 <= r < height and 0 <= c < width]


def chain_and_liberties(board: Rows, row: int, col: int) -> tuple[set[Point], set[Point]]:
    """The stones of the chain through ``(row, col)`` and its liberties, by flood fill."""
    colour = board[row][col]
    chain = {(row, col)}
    liberties: set[Point] = set()
    todo = [(row, col)]
    while todo:
        r, c = todo.pop()
        for n in neighbours(board, r, c):
            cell = board[n[0]][n[1]]
            if cell == EMPTY:
                liberties.add(n)
            elif cell == colour and n not in chain:
                chain.add(n)
                todo.append(n)
    return chain, liberties


def play_stone(
    board: Rows, row: int, col: int, stone: str, previous: Optional[Rows] = None
) -> tuple[Optional[str], Board, list[Point]]:
    """``stone`` (``'x'`` or ``'o'``) played at ``(row, col)`` of ``board``: the reason it is
    illegal or None, the board after it (a copy of ``board`` if it is illegal) and the points
    it captured, in board order. Illegal, checked in this order: ``"occupied"``; ``"suicide"``
    if its chain has no liberty once the opponent's chains left without one are taken off;
    ``"ko"`` if the board after it equals ``previous``. ``board`` itself is never changed."""
    after = [list(line) for line in board]
    if after[row][col] != EMPTY:
        return "occupied", after, []
    after[row][col] = stone
    opponent = WHITE if stone == BLACK else BLACK
    captured: set[Point] = set()
    for r, c in neighbours(after, row, col):
        if after[r][c] == opponent and (r, c) not in captured:
            chain, liberties = chain_and_liberties(after, r, c)
            if not liberties:
                captured |= chain
    for r, c in captured:
        after[r][c] = EMPTY
    if not chain_and_liberties(after, row, col)[1]:
        return "suicide", [list(line) for line in board], []
    if previous is not None and after == [list(line) for line in previous]:
        return "ko", [list(line) for line in board], []
    return None, after, sorted(captured)


def simple_ko_point(after: Rows, row: int, col: int, captured: Sequence[Point]) -> Optional[Point]:
    """The point the opponent may not retake at once under simple ko, after a move at
    ``(row, col)`` that left ``after`` and took ``captured``: the stone taken, when the move
    took exactly one stone and is a single stone whose only liberty is that point; else None."""
    if len(captured) != 1:
        return None
    chain, liberties = chain_and_liberties(after, row, col)
    if chain == {(row, col)} and liberties == {captured[0]}:
        return captured[0]
    return None


def area_score(board: Rows) -> tuple[int, int]:
    """Black's and white's area: stones, and the empty regions (4-connected) that touch only
    that colour's stones."""
    area = {BLACK: 0, WHITE: 0}
    seen: set[Point] = set()
    for r, line in enumerate(board):
        for c, cell in enumerate(line):
            if cell != EMPTY:
                area[cell] += 1
                continue
            if (r, c) in seen:
                continue
            region, borders, todo = {(r, c)}, set(), [(r, c)]
            while todo:
                for nr, nc in neighbours(board, *todo.pop()):
                    if board[nr][nc] != EMPTY:
                        borders.add(board[nr][nc])
                    elif (nr, nc) not in region:
                        region.add((nr, nc))
                        todo.append((nr, nc))
            seen |= region
            if len(borders) == 1:
                area[borders.pop()] += len(region)
    return area[BLACK], area[WHITE]


class ReferenceGo:
    """The reference model; same public interface and semantics as `gokata.Go`."""

    def __init__(self, height: int, width: int | None = None) -> None:
        height = _whole_number(height, "height")
        width = height if width is None else _whole_number(width, "width")
        if not (1 <= height <= MAX_SIDE and 1 <= width <= MAX_SIDE):
            raise ValueError(f"board size {height}x{width} is out of range")
        self._height = height
        self._width = width
        self._boards: list[Board] = [empty_board(height, width)]
        self._handicap_placed = False

    # Queries

    @property
    def board(self) -> list[list[str]]:
        return [list(row) for row in self._boards[-1]]

    @property
    def size(self) -> dict[str, int]:
        return {"height": self._height, "width": self._width}

    @property
    def move_number(self) -> int:
        return len(self._boards) - 1

    @property
    def turn(self) -> str:
        return "black" if self.move_number % 2 == 0 else "white"

    def get_position(self, coord: Coordinate) -> str:
        row, col = parse_coordinate(coord, self._height, self._width)
        return self._boards[-1][row][col]

    # Turns

    def move(self, *coords: Coordinate) -> None:
        for coord in coords:
            row, col = parse_coordinate(coord, self._height, self._width)
            self._play(row, col)

    def _play(self, row: int, col: int) -> None:
        own = BLACK if self.turn == "black" else WHITE
        previous = self._boards[-2] if len(self._boards) >= 2 else None
        reason, after, _ = play_stone(self._boards[-1], row, col, own, previous)
        if reason is not None:
            raise ReferenceIllegalMove(kata_name(row, col, self._height), reason)
        self._boards.append(after)

    def pass_turn(self) -> None:
        self._boards.append([list(r) for r in self._boards[-1]])

    def handicap_stones(self, n: int) -> None:
        n = _whole_number(n, "n")
        points = HANDICAP_POINTS.get(self._height)
        if points is None or self._height != self._width:
            raise ValueError(f"no handicap on a {self._height}x{self._width} board")
        if not 1 <= n <= len(points):
            raise ValueError(f"{n} handicap stones: 1 to {len(points)} on this board")
        if self._handicap_placed:
            raise ValueError("handicap stones were already placed")
        if self.move_number != 0:
            raise ValueError("the game has started")
        board = [list(r) for r in self._boards[0]]
        for point in points[:n]:
            row, col = parse_coordinate(point, self._height, self._width)
            board[row][col] = "x"
        self._boards = [board]
        self._handicap_placed = True

    def rollback(self, n: int) -> None:
        n = _whole_number(n, "n")
        if not 0 <= n <= self.move_number:
            raise ValueError(f"cannot roll back {n} of {self.move_number} turns")
        del self._boards[len(self._boards) - n :]

    def reset(self) -> None:
        self._boards = [empty_board(self._height, self._width)]
        self._handicap_placed = False

    # Copies

    def __copy__(self) -> ReferenceGo:
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        return f"<ReferenceGo {self._height}x{self._width}, {self.turn} to move, {self.move_number} turns>"
