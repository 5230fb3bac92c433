"""The legality oracle of `gokata.Go`: positions set up with `Go.from_board` (ko made checkable
by the `previous` position), explicit-colour `play`, and the questions that change nothing
(`is_legal`, `illegal_reason`, `legal_moves`, `captures`).

The rules of the kata, one case each, are written as pictures and checked through every
question and then through `play`. The reference model's `play_stone`, a flood-fill model of
the rules (``support/reference_model.py``, also the oracle of `test_solve`), is checked against
the same pictures and then serves as the oracle of the property tests on positions reached by
random play.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gokata import Go, IllegalMoveError
from support.reference_model import BLACK, COLUMNS, EMPTY, WHITE, chain_and_liberties, play_stone

REASONS = ("occupied", "suicide", "ko")

Grid = list[list[str]]
"""A board as `Go.board` gives it: rows of '.', 'x', 'o', top row first."""
Point = tuple[int, int]
"""A 0-based (row, col) into a grid."""
Coordinate = Union[str, Point]
Side = Literal["black", "white"]
SIDES: tuple[Side, Side] = ("black", "white")
ASKED: tuple[Optional[Side], ...] = (None, "black", "white")
"""The colours a question can be asked for: the side to move, black, white."""


# --- pictures and coordinates ------------------------------------------------------------


def picture(*lines: str) -> list[str]:
    """Board rows from text rows, top first; spaces are for the eye: ``picture(". x", "o .")``."""
    return [line.replace(" ", "") for line in lines]


def grid(rows: Sequence[str]) -> Grid:
    return [list(row) for row in rows]


def text_rows(board: Grid) -> list[str]:
    return ["".join(row) for row in board]


def kata(height: int, point: Point) -> str:
    """The kata name of a 0-based (row, col) on a board of ``height`` rows: (0, 0) of 9 rows is 9A."""
    row, col = point
    return f"{height - row}{COLUMNS[col]}"


def gtp(height: int, point: Point) -> str:
    row, col = point
    return f"{COLUMNS[col]}{height - row}"


def points(height: int, width: int) -> list[Point]:
    """Every point, row by row from the top."""
    return [(row, col) for row in range(height) for col in range(width)]


def size_of(game: Go) -> tuple[int, int]:
    size = game.size
    return size["height"], size["width"]


def colour_stone(colour: str) -> str:
    return BLACK if colour.lower() in ("black", "b", "x") else WHITE


def side(colour: str) -> Side:
    """The side of any colour form, such as `Go.turn`."""
    return "black" if colour_stone(colour) == BLACK else "white"


def opponent(colour: str) -> Side:
    return "white" if side(colour) == "black" else "black"


# --- the model is `play_stone` of support.reference_model; what a valid position is -------


def valid_position(board: Grid) -> bool:
    """Whether every chain has a liberty."""
    return all(board[r][c] == EMPTY or chain_and_liberties(board, r, c)[1] for r, c in points(len(board), len(board[0])))


# --- the rules, one case each ------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """``colour`` plays at ``point`` on ``before`` (with ``previous`` as the position before the
    last move): illegal for ``reason``, or legal capturing ``captured`` and giving ``after``."""

    name: str
    before: list[str]
    colour: Side
    point: str
    reason: Optional[str] = None
    captured: tuple[str, ...] = ()
    after: Optional[list[str]] = None
    previous: Optional[list[str]] = None


KO_BEFORE = picture(
    ". x o .",
    "x o . o",
    ". x o .",
)
KO_AFTER = picture(
    ". x o .",
    "x . x o",
    ". x o .",
)
SNAPBACK_PREVIOUS = picture(  # black has just thrown in at 3C
    ". o x . x",
    "x x o o x",
    ". . x x .",
)
SNAPBACK = picture(  # white has taken it at 3D and has one liberty, 3C
    ". o . o x",
    "x x o o x",
    ". . x x .",
)

RULES = [
    Case("occupied by an own stone", picture(". x", "o ."), "black", "2B", "occupied"),
    Case("occupied by an enemy stone", picture(". x", "o ."), "black", "1A", "occupied"),
    Case("occupied, asked for white", picture(". x", "o ."), "white", "2B", "occupied"),
    Case(
        "plain move",
        picture("...", "...", "..."),
        "black",
        "2B",
        after=picture("...", ".x.", "..."),
    ),
    Case(
        "white may move when asked",
        picture("...", "...", "..."),
        "white",
        "1C",
        after=picture("...", "...", "..o"),
    ),
    Case(
        "capture of a single stone",
        picture(". x .", "x o x", ". . ."),
        "black",
        "1B",
        captured=("2B",),
        after=picture(". x .", "x . x", ". x ."),
    ),
    Case("suicide of a single stone", picture(". x .", "x . x", ". x ."), "white", "2B", "suicide"),
    Case(
        "filling an own eye is legal",
        picture(". x .", "x . x", ". x ."),
        "black",
        "2B",
        after=picture(". x .", "x x x", ". x ."),
    ),
    Case(
        "a stone without liberty joining a chain with liberties is legal",
        picture(". o .", "o . x", ". x ."),
        "black",
        "2B",
        after=picture(". o .", "o x x", ". x ."),
    ),
    Case(
        "suicide of a group",
        picture(". x x .", "x o . x", ". x x ."),
        "white",
        "2C",
        "suicide",
    ),
    Case("suicide in the corner", picture(". x .", "x . .", ". . ."), "white", "3A", "suicide"),
    Case("suicide on the edge", picture("x . x", ". x .", ". . ."), "white", "3B", "suicide"),
    Case("suicide on a 1x1 board", picture("."), "black", "1A", "suicide"),
    Case(
        "suicide of a group on the edge",
        picture("o o . x", "x x x x", ". . . ."),
        "white",
        "3C",
        "suicide",
    ),
    Case(
        "capture first: the corner point without liberty takes two chains",
        picture(". o x", "o x .", "x . ."),
        "black",
        "3A",
        captured=("3B", "2A"),
        after=picture("x . x", ". x .", "x . ."),
    ),
    Case(
        "capture first: a group of two on the edge and a stone",
        picture(". o o x", "o x x .", "x . . ."),
        "black",
        "3A",
        captured=("3B", "3C", "2A"),
        after=picture("x . . x", ". x x .", "x . . ."),
    ),
    Case(
        "capture first: the other stone on a 1x2 board",
        picture("o ."),
        "black",
        "1B",
        captured=("1A",),
        after=picture(". x"),
    ),
    Case(
        "capture first: taking a ko",
        KO_BEFORE,
        "black",
        "2C",
        captured=("2B",),
        after=KO_AFTER,
    ),
    Case("ko: the immediate retake recreates previous", KO_AFTER, "white", "2B", "ko", previous=KO_BEFORE),
    Case(
        "without previous the retake is allowed",
        KO_AFTER,
        "white",
        "2B",
        captured=("2C",),
        after=KO_BEFORE,
    ),
    Case(
        "previous only forbids its own position",
        KO_AFTER,
        "white",
        "2B",
        captured=("2C",),
        after=KO_BEFORE,
        previous=picture(". x o .", "x . x o", ". x . ."),
    ),
    Case("ko still occupied first", KO_AFTER, "white", "2C", "occupied", previous=KO_BEFORE),
    Case(
        "snapback: taking back three stones is no ko",
        SNAPBACK,
        "black",
        "3C",
        captured=("3D", "2C", "2D"),
        after=picture(". o x . x", "x x . . x", ". . x x ."),
        previous=SNAPBACK_PREVIOUS,
    ),
]


def assert_illegal_play(game: Go, colour: Side, coord: Coordinate, reason: str) -> None:
    """``play`` raises IllegalMoveError naming ``reason`` and changes nothing."""
    board, turn, number = game.board, game.turn, game.move_number
    with pytest.raises(IllegalMoveError) as info:
        game.play(colour, coord)
    assert reason in str(info.value), str(info.value)
    assert (game.board, game.turn, game.move_number) == (board, turn, number)


def ask(game: Go, coord: Coordinate, colour: Optional[Side]) -> tuple[Optional[str], bool, Optional[list[str]]]:
    """(illegal_reason, is_legal, captures or None if captures raises IllegalMoveError)."""
    reason, legal = game.illegal_reason(coord, colour), game.is_legal(coord, colour)
    try:
        captured: Optional[list[str]] = game.captures(coord, colour)
    except IllegalMoveError:
        captured = None
    return reason, legal, captured


@pytest.mark.parametrize("to_move", ["mover", "opponent"], ids=["mover to move", "opponent to move"])
@pytest.mark.parametrize("case", RULES, ids=[case.name for case in RULES])
def test_rule(case: Case, to_move: str) -> None:
    """The case asked of a game where its colour is to move, or where the other colour is to
    move and the question names the colour; then played with `play`."""
    turn = case.colour if to_move == "mover" else opponent(case.colour)
    expected = (case.reason, case.reason is None, list(case.captured) if case.reason is None else None)
    game = Go.from_board(case.before, turn=turn, previous=case.previous)
    assert game.turn == turn
    assert ask(game, case.point, case.colour) == expected
    if turn == case.colour:
        assert ask(game, case.point, None) == expected
        assert (case.point in game.legal_moves()) is (case.reason is None)
    assert (case.point in game.legal_moves(case.colour)) is (case.reason is None)
    if case.reason is not None:
        assert_illegal_play(game, case.colour, case.point, case.reason)
        return
    game.play(case.colour, case.point)
    assert text_rows(game.board) == case.after
    assert game.turn == opponent(case.colour)
    assert game.move_number == 1


@pytest.mark.parametrize("case", RULES, ids=[case.name for case in RULES])
def test_model_follows_the_rules(case: Case) -> None:
    """The reference model used as the oracle below gives the same verdicts as the pictures."""
    height = len(case.before)
    point = next(p for p in points(height, len(case.before[0])) if kata(height, p) == case.point)
    previous = None if case.previous is None else grid(case.previous)
    reason, after, captured = play_stone(grid(case.before), *point, colour_stone(case.colour), previous)
    assert reason == case.reason
    assert [kata(height, p) for p in captured] == list(case.captured)
    assert text_rows(after) == (case.before if case.after is None else case.after)


def test_empty_board_at_the_start() -> None:
    for height, width in ((9, 9), (9, 13), (1, 1), (19, 19)):
        game = Go(height, width)
        assert game.board == [["."] * width for _ in range(height)]
        assert (game.turn, game.move_number) == ("black", 0)
        expected = [] if height * width == 1 else [kata(height, p) for p in points(height, width)]
        assert game.legal_moves() == expected


def test_black_first_then_alternation() -> None:
    game = Go(5)
    assert game.turn == "black"
    game.move("3C")
    assert (game.get_position("3C"), game.turn) == ("x", "white")
    game.move("3D")
    assert (game.get_position("3D"), game.turn) == ("o", "black")
    game.move("4C", "2C", "1A")
    assert text_rows(game.board) == picture(". . . . .", ". . x . .", ". . x o .", ". . o . .", "x . . . .")
    assert (game.turn, game.move_number) == ("white", 5)
    assert_illegal_play(game, "white", "3C", "occupied")
    assert game.turn == "white"
    game.pass_turn()
    game.move("5E")
    assert game.get_position("5E") == "x"


def test_from_board_turn_defaults_to_black() -> None:
    assert Go.from_board(["..", ".."]).turn == "black"
    game = Go.from_board(["x.", ".."])
    game.move("1B")
    assert text_rows(game.board) == ["x.", ".x"]


def test_play_needs_no_alternation() -> None:
    game = Go(3)
    game.play("white", "1A")
    assert game.turn == "black"
    game.play("white", "1B")
    game.play("white", "1C")
    assert game.turn == "black"
    game.play("black", "2A")
    game.play("black", "2B")
    assert game.turn == "white"
    game.play("black", "2C")  # captures the white row
    assert text_rows(game.board) == ["...", "xxx", "..."]
    assert game.turn == "white"
    game.rollback(6)
    assert (text_rows(game.board), game.turn) == (["...", "...", "..."], "black")


def test_ko_against_previous_lasts_one_move() -> None:
    """The retake forbidden by ``previous`` is allowed after an exchange elsewhere."""
    rows = [*KO_AFTER, "....", "...."]
    previous = [*KO_BEFORE, "....", "...."]
    game = Go.from_board(rows, turn="white", previous=previous)
    assert game.illegal_reason("4B") == "ko"
    game.move("1D")
    assert game.illegal_reason("4B", "white") is None  # the board before the last move is another
    game.rollback(1)
    assert game.illegal_reason("4B") == "ko"  # rollback restores the ko of `previous`
    game.move("1D", "1A")
    assert game.illegal_reason("4B") is None
    assert game.captures("4B") == ["4C"]
    game.move("4B")
    assert text_rows(game.board) == [*KO_BEFORE, "....", "x..o"]
    assert game.illegal_reason("4C") == "ko"  # the same ko, now the other way round


# --- forms of rows, colours and coordinates ----------------------------------------------


@pytest.mark.parametrize(("char", "stone"), [(c, EMPTY) for c in ".-+"] + [(c, BLACK) for c in "xXBb#"] + [(c, WHITE) for c in "oOWw"])
def test_every_alphabet(char: str, stone: str) -> None:
    assert Go.from_board([char + ".", ".."]).board == [[stone, "."], [".", "."]]
    assert Go.from_board([[".", char]]).board == [[".", stone]]


def test_mixed_alphabets_in_one_position() -> None:
    game = Go.from_board(["x-O", "#+w", "b.W", "B.X"], previous=[".-.", "...", "...", "..."])
    assert text_rows(game.board) == ["x.o", "x.o", "x.o", "x.x"]


POSITION = ["x.o", ".o.", "..."]
SAME_POSITION: list[object] = [
    POSITION,
    tuple(POSITION),
    [list(row) for row in POSITION],
    tuple(tuple(row) for row in POSITION),
    [tuple(row) for row in POSITION],
    "x.o\n.o.\n...",
    "x.o\n.o.\n...\n",
    "\nx.o\n.o.\n...\n",
]


@pytest.mark.parametrize("rows", SAME_POSITION, ids=repr)
def test_forms_of_rows(rows: object) -> None:
    game = Go.from_board(rows, previous=rows)  # type: ignore[arg-type]
    assert text_rows(game.board) == POSITION
    assert game.illegal_reason("2A") is None


@pytest.mark.parametrize(
    ("form", "expected"),
    [(t, "black") for t in ("black", "b", "x", "BLACK", "Black", "bLaCk", "B", "X")]
    + [(t, "white") for t in ("white", "w", "o", "WHITE", "White", "wHiTe", "W", "O")],
)
def test_colour_forms(form: str, expected: str) -> None:
    turn: Any = form  # every case is accepted, more than the stub's literals
    game = Go.from_board(["...", "...", "..."], turn=turn)
    assert game.turn == expected
    assert game.legal_moves(turn) == game.legal_moves()
    game = Go(3)
    game.play(turn, "2B")
    assert game.get_position("2B") == colour_stone(expected)
    assert game.turn == opponent(expected)
    assert game.illegal_reason("2B", turn) == "occupied"
    assert game.is_legal("1A", turn)


BAD_COLOURS: list[tuple[object, type[Exception]]] = [
    ("red", ValueError),
    ("", ValueError),
    ("bl", ValueError),
    ("blackk", ValueError),
    ("black ", ValueError),
    ("e", ValueError),
    (None, TypeError),
    (1, TypeError),
    (b"b", TypeError),
    (["b"], TypeError),
]


def colour_uses(game: Go, colour: object) -> list[Callable[[], object]]:
    """Every call that takes a colour, with ``colour`` (None only where it is not the default)."""
    bad: Any = colour  # deliberately ill-typed
    if colour is None:
        return [lambda: game.play(bad, "1A")]
    return [
        lambda: game.play(bad, "1A"),
        lambda: game.is_legal("1A", bad),
        lambda: game.illegal_reason("1A", bad),
        lambda: game.legal_moves(bad),
        lambda: game.captures("1A", bad),
        lambda: Go.from_board(["..", ".."], turn=bad),
    ]


@pytest.mark.parametrize(("colour", "error"), BAD_COLOURS, ids=repr)
def test_bad_colours(colour: object, error: type[Exception]) -> None:
    game = Go(2)
    for use in colour_uses(game, colour):
        with pytest.raises(error) as info:
            use()
        assert not isinstance(info.value, IllegalMoveError)
        assert game.board == [[".", "."], [".", "."]] and game.move_number == 0


def test_every_coordinate_form() -> None:
    """On a 9x13 board every point is reachable as kata, GTP, lower case, and (row, col)."""
    height, width = 9, 13
    for point in points(height, width):
        names = [kata(height, point), gtp(height, point)]
        forms: list[Coordinate] = [*names, *(name.lower() for name in names), point]
        for form in forms:
            game = Go(height, width)
            assert game.is_legal(form) and game.illegal_reason(form) is None
            assert game.captures(form) == []
            game.play("white", form)
            assert [p for p in points(height, width) if game.board[p[0]][p[1]] != EMPTY] == [point]
            assert game.get_position(form) == WHITE
            assert game.illegal_reason(form) == "occupied"


def test_coordinates_skip_i_up_to_z() -> None:
    game = Go(25)
    assert game.legal_moves()[:25] == [f"25{letter}" for letter in COLUMNS]
    for form in ("25Z", "Z25", "z25", (0, 24)):
        assert game.is_legal(form)
    game.move("1J")
    assert game.board[24][8] == BLACK
    game.move("H2")
    assert game.board[23][7] == WHITE


@pytest.mark.parametrize("coord", ["10A", "A10", "1K", "K1", "26A", "Z25", (9, 0), (0, 9), (-1, 0), (0, -1), (99, 99)], ids=repr)
def test_off_board(coord: Coordinate) -> None:
    game = Go(9)
    assert game.is_legal(coord) is False
    assert game.illegal_reason(coord) == "off-board"
    assert game.illegal_reason(coord, "white") == "off-board"
    with pytest.raises(ValueError):
        game.captures(coord)
    with pytest.raises(ValueError):
        game.play("black", coord)
    assert game.move_number == 0


@pytest.mark.parametrize(
    ("coord", "error"),
    [
        ("5I", ValueError),
        ("I5", ValueError),
        ("66", ValueError),
        ("", ValueError),
        ("A", ValueError),
        ("1 A", ValueError),
        (" 1A", ValueError),
        ("1AA", ValueError),
        ("-1A", ValueError),
        ((0, 0, 0), ValueError),
        ((0,), ValueError),
        (5, TypeError),
        (None, TypeError),
        ([0, 0], TypeError),
        (("a", 0), TypeError),
    ],
    ids=repr,
)
def test_malformed_coordinates(coord: object, error: type[Exception]) -> None:
    game = Go(9)
    bad: Coordinate = coord  # type: ignore[assignment]
    for use in (game.is_legal, game.illegal_reason, game.captures, lambda c: game.play("b", c), game.move):
        with pytest.raises(error) as info:
            use(bad)
        assert not isinstance(info.value, IllegalMoveError)
    assert game.move_number == 0


# --- bad positions -----------------------------------------------------------------------


def names_point(message: str, height: int, point: Point) -> bool:
    """Whether ``message`` names ``point``: kata or GTP name, or row and column counted from 1."""
    row, col = point
    return (
        kata(height, point) in message
        or gtp(height, point) in message
        or (f"row {row + 1}" in message and f"column {col + 1}" in message)
    )


@pytest.mark.parametrize(
    ("rows", "point"),
    [
        (["...", ".q.", "..."], (1, 1)),
        (["...", "...", "..1"], (2, 2)),
        (["x..", "...", "...", " .."], (3, 0)),
        ([".", ".", "?"], (2, 0)),
        (["..", "o.", "X*"], (2, 1)),
        ([".....", "....\u00b7"], (1, 4)),
    ],
)
def test_unknown_character_is_named(rows: list[str], point: Point) -> None:
    for position, previous in ((rows, None), (["." * len(rows[0])] * len(rows), rows)):
        with pytest.raises(ValueError) as info:
            Go.from_board(position, previous=previous)
        message = str(info.value)
        assert names_point(message, len(rows), point), message
        if previous is not None:
            assert "previous" in message, message


@pytest.mark.parametrize(
    ("rows", "row"),
    [(["...", "..", "..."], 2), (["..", "...", ".."], 2), (["...", "...", "...."], 3), (["x", "", "x"], 2)],
)
def test_ragged_rows_are_named(rows: list[str], row: int) -> None:
    for position, previous in ((rows, None), (["." * len(rows[0])] * len(rows), rows)):
        with pytest.raises(ValueError) as info:
            Go.from_board(position, previous=previous)
        assert f"row {row}" in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("rows", "number"),
    [([], "0"), ("", "0"), ([""], "0"), (["." * 26], "26"), (["."] * 26, "26"), (["." * 26] * 26, "26")],
    ids=["no rows", "empty str", "empty row", "26 columns", "26 rows", "26x26"],
)
def test_sizes_out_of_range(rows: Union[str, list[str]], number: str) -> None:
    with pytest.raises(ValueError) as info:
        Go.from_board(rows)
    assert number in str(info.value), str(info.value)


def test_largest_sizes() -> None:
    for height, width in ((25, 25), (1, 25), (25, 1)):
        game = Go.from_board(["." * width] * height)
        assert size_of(game) == (height, width)


@pytest.mark.parametrize(
    "rows",
    [
        ["xo..", "o...", "...."],
        ["..x.", ".xox", "..x."],
        [".xx.", "xoox", ".xx."],
        ["ox", "xx"],
        ["x"],
        ["xxx", "xox", "xxx"],
    ],
)
def test_chain_without_liberty_is_named(rows: list[str]) -> None:
    board = grid(rows)
    dead = [p for p in points(len(rows), len(rows[0])) if board[p[0]][p[1]] != EMPTY and not chain_and_liberties(board, *p)[1]]
    assert dead  # the picture is meant to be invalid
    for position, previous in ((rows, None), (["." * len(rows[0])] * len(rows), rows)):
        with pytest.raises(ValueError) as info:
            Go.from_board(position, previous=previous)
        message = str(info.value)
        assert any(names_point(message, len(rows), p) for p in dead), message
        assert "libert" in message, message
        if previous is not None:
            assert "previous" in message, message


def test_previous_of_another_size() -> None:
    for previous in (["..", ".."], ["...", "...", "..."], ["..."], ["....", "...."]):
        with pytest.raises(ValueError) as info:
            Go.from_board(["...", "..."], previous=previous)
        assert "previous" in str(info.value), str(info.value)


NOT_SEQUENCES: list[object] = [5, 3.5, None, object(), {".."}, {"..": 1}, frozenset([".."]), (row for row in [".."]), iter([".."])]


@pytest.mark.parametrize("rows", NOT_SEQUENCES, ids=lambda rows: type(rows).__name__)
def test_non_sequences_are_type_errors(rows: object) -> None:
    with pytest.raises(TypeError):
        Go.from_board(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("previous", NOT_SEQUENCES, ids=lambda rows: type(rows).__name__)
def test_non_sequence_previous_is_a_type_error(previous: object) -> None:
    if previous is None:
        return  # None means no previous position
    with pytest.raises(TypeError):
        Go.from_board([".."], previous=previous)  # type: ignore[arg-type]


@pytest.mark.parametrize("rows", [[5], ["..", 5], [None], [{".", "x"}], [{".": 0, "x": 1}]], ids=repr)
def test_rows_of_the_wrong_type(rows: list[object]) -> None:
    """A row is a str or a sequence; a set or dict has no order of points."""
    with pytest.raises(TypeError):
        Go.from_board(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("rows", [[b".."], [[".", 5]], [[".", None]], [["x", ["."]]]], ids=repr)
def test_cells_of_the_wrong_type(rows: list[object]) -> None:
    """A cell that is no str is a wrong type, as a row that is neither str nor sequence is."""
    with pytest.raises(TypeError):
        Go.from_board(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("rows", [[[".", "xx"]], [[".", ""]], [["..", "."], [".", "."]]], ids=repr)
def test_cells_of_more_or_less_than_one_character(rows: list[list[str]]) -> None:
    with pytest.raises(ValueError):
        Go.from_board(rows)


# --- questions change nothing ------------------------------------------------------------


def ask_everything(game: Go) -> None:
    """Every question about every point (on and off the board) for every colour."""
    height, width = size_of(game)
    for colour in ASKED:
        game.legal_moves(colour)
        for point in points(height + 1, width + 1):
            for coord in (point, kata(height, point)):
                game.is_legal(coord, colour)
                reason = game.illegal_reason(coord, colour)
                try:
                    game.captures(coord, colour)
                except ValueError:
                    assert reason is not None
        for bad in ("5I", ""):
            with pytest.raises(ValueError):
                game.illegal_reason(bad, colour)


def test_questions_change_nothing() -> None:
    """A game asked everything after every turn ends in the state of a twin never asked, and
    rolls back through the same states."""
    turns: list[Optional[str]] = ["4B", "4C", "3A", "3B", "2B", "3D", "1D", "2C", None, None, "3C"]
    asked, twin = Go(4), Go(4)
    history = [(asked.board, asked.turn, asked.move_number)]
    for turn in turns:
        for game in (asked, twin):
            if turn is None:
                game.pass_turn()
            else:
                game.move(turn)
        ask_everything(asked)
        state = (asked.board, asked.turn, asked.move_number)
        assert state == (twin.board, twin.turn, twin.move_number)
        history.append(state)
    assert asked.illegal_reason("3B") == "ko"  # the questions were asked of a real ko too
    for state in reversed(history[:-1]):
        asked.rollback(1)
        ask_everything(asked)
        assert (asked.board, asked.turn, asked.move_number) == state
    with pytest.raises(ValueError):
        asked.rollback(1)


def test_questions_keep_the_previous_position() -> None:
    game = Go.from_board(KO_AFTER, turn="white", previous=KO_BEFORE)
    ask_everything(game)
    assert game.illegal_reason("2B") == "ko"
    assert (text_rows(game.board), game.turn, game.move_number) == (KO_AFTER, "white", 0)
    with pytest.raises(ValueError):
        game.rollback(1)


# --- properties on positions reached by random play --------------------------------------


@dataclass
class Played:
    """A game reached by `play` with random colours, and the boards it went through."""

    game: Go
    boards: list[Grid]
    verdicts: set[Optional[str]] = field(default_factory=set)
    """Every verdict met by `try_move`."""

    @property
    def previous(self) -> Optional[Grid]:
        return self.boards[-2] if len(self.boards) > 1 else None


def try_move(played: Played, colour: Side, point: Point) -> None:
    """Checks every question about ``colour`` at ``point`` against the model and against `play`
    on a copy, then plays it if legal."""
    game, board = played.game, played.game.board
    height = len(board)
    reason, after, captured = play_stone(board, *point, colour_stone(colour), played.previous)
    name = kata(height, point)
    played.verdicts.add(reason)
    assert game.illegal_reason(point, colour) == game.illegal_reason(name, colour) == reason
    assert game.is_legal(point, colour) is (reason is None)
    trial = copy.copy(game)
    if reason is not None:
        with pytest.raises(IllegalMoveError):
            game.captures(point, colour)
        assert_illegal_play(trial, colour, point, reason)
        return
    predicted = game.captures(name, colour)
    trial.play(colour, point)
    gone = [kata(height, p) for p in points(height, len(board[0])) if board[p[0]][p[1]] != EMPTY and trial.board[p[0]][p[1]] == EMPTY]
    assert predicted == gone == [kata(height, p) for p in captured]
    assert trial.board == after
    assert game.board == board  # the copy is independent
    game.play(colour, point)
    assert game.board == after
    played.boards.append(after)


def check_position(played: Played) -> None:
    """All questions at once about the current position, and a set-up copy of it."""
    game = played.game
    height, width = size_of(game)
    board = game.board
    set_up = Go.from_board(board, turn=side(game.turn), previous=played.previous)
    assert set_up.board == board and set_up.turn == game.turn
    for colour in ASKED:
        stone = colour_stone(colour or game.turn)
        verdicts = [play_stone(board, *p, stone, played.previous)[0] for p in points(height, width)]
        legal = [kata(height, p) for p, v in zip(points(height, width), verdicts) if v is None]
        assert game.legal_moves(colour) == legal == [kata(height, p) for p in points(height, width) if game.is_legal(p, colour)]
        assert set_up.legal_moves(colour) == legal
        for point, verdict in zip(points(height, width), verdicts):
            assert game.illegal_reason(point, colour) == verdict
            assert set_up.illegal_reason(point, colour) == verdict
            assert (board[point[0]][point[1]] != EMPTY) is (verdict == "occupied")


def random_game(rng: random.Random, height: int, width: int, moves: int, check_every: int) -> Played:
    """Plays ``moves`` attempts of random colours, mostly at random points and sometimes at the
    point just captured (to provoke ko); checks each attempt and every ``check_every``th position."""
    played = Played(Go(height, width), [Go(height, width).board])
    for number in range(moves):
        colour = rng.choice(SIDES)
        point = (rng.randrange(height), rng.randrange(width))
        if len(played.boards) > 1 and rng.random() < 0.3:
            freed = [p for p in points(height, width) if played.boards[-2][p[0]][p[1]] != EMPTY and played.boards[-1][p[0]][p[1]] == EMPTY]
            if freed:
                point = rng.choice(freed)
                colour = side(played.boards[-2][point[0]][point[1]])
        try_move(played, colour, point)
        if number % check_every == 0:
            check_position(played)
    check_position(played)
    return played


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(height=st.integers(1, 9), width=st.integers(1, 9), seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 70))
def test_random_play_agrees_with_the_model(height: int, width: int, seed: int, moves: int) -> None:
    random_game(random.Random(seed), height, width, moves, check_every=25)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    height=st.integers(1, 6),
    width=st.integers(1, 6),
    attempts=st.lists(st.tuples(st.sampled_from(SIDES), st.integers(0, 5), st.integers(0, 5)), max_size=50),
)
def test_chosen_play_agrees_with_the_model(height: int, width: int, attempts: list[tuple[Side, int, int]]) -> None:
    played = Played(Go(height, width), [Go(height, width).board])
    for colour, row, col in attempts:
        try_move(played, colour, (row % height, col % width))
    check_position(played)


def test_seeded_random_games_meet_every_verdict() -> None:
    """A fixed set of games, checked often; they must have met every kind of verdict."""
    rng = random.Random(20240613)
    seen: set[Optional[str]] = set()
    for number in range(150):
        height, width = rng.randint(1, 9), rng.randint(1, 9)
        played = random_game(rng, height, width, rng.randint(0, 90), check_every=9)
        seen |= played.verdicts
        assert valid_position(played.game.board)
    assert seen >= {None, *REASONS}
