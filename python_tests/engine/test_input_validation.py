"""Hostile and unusual inputs: no input reaches a Rust panic (`pyo3_runtime.PanicException`, a
BaseException that `except Exception` misses) or sizes memory by itself; numpy integers and
anything else with ``__index__`` are taken wherever an int is, booleans nowhere; komi is a
finite number and its errors say so."""

from __future__ import annotations

import math
import re
import pickle
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from gokata import Go, playouts, solve
from support.reference_model import COLUMNS, chain_and_liberties, kata_name

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def only_value_or_type_errors(call: Callable[[], object]) -> None:
    """Runs ``call``: it may succeed or raise ValueError or TypeError, nothing else (a
    PanicException is a BaseException and goes through)."""
    try:
        call()
    except (ValueError, TypeError):
        pass


# No input panics


def test_a_huge_move_count_on_a_short_input_is_a_value_error() -> None:
    # 2 * 10^9 moves sized a 48 GB allocation (the process aborted); 10^18 panicked.
    for count in (2_000_000_000, 10**18, 2**64 - 1):
        with pytest.raises(ValueError, match=f"the input ends before move 1 of {count}"):
            solve(f"3\n{count}\n...\n...\n...\n")
    with pytest.raises(ValueError, match="line 2: the move count is too large"):
        solve(f"3\n{10**30}\n...\n...\n...\n")


NUMBERS = st.sampled_from(["0", "1", "3", "25", "26", "-1", str(10**18), str(2**64), str(10**30), "x", ""])
PUZZLE_LINES = st.one_of(
    NUMBERS,
    st.text(st.sampled_from(".BWx "), max_size=6),
    st.builds(lambda c, r, k: f"{c} {r} {k}", st.sampled_from("BWbwG"), NUMBERS, NUMBERS),
    st.text(max_size=8),
)


@FUZZ
@given(lines=st.lists(PUZZLE_LINES, max_size=12))
def test_solve_never_panics_on_near_puzzles(lines: list[str]) -> None:
    only_value_or_type_errors(lambda: solve("\n".join(lines)))


@st.composite
def well_framed_puzzles(draw: st.DrawFn) -> str:
    """A size that fits the board lines, any move count, then moves near the format."""
    size = draw(st.integers(1, 4))
    rows = draw(st.lists(st.text(st.sampled_from(".BW"), min_size=size, max_size=size), min_size=size, max_size=size))
    moves = draw(st.lists(PUZZLE_LINES, max_size=4))
    return "\n".join([str(size), draw(NUMBERS), *rows, *moves])


@FUZZ
@given(text=well_framed_puzzles())
def test_solve_never_panics_on_well_framed_puzzles(text: str) -> None:
    only_value_or_type_errors(lambda: solve(text))


@FUZZ
@given(data=st.binary(max_size=200))
def test_solve_never_panics_on_random_bytes(data: bytes) -> None:
    only_value_or_type_errors(lambda: solve(data.decode("utf-8", errors="replace")))
    only_value_or_type_errors(lambda: solve(data.decode("latin-1")))


CELLS = st.sampled_from(list(".-+xXBb#oOWw") + ["", "xx", " ", "é", "\n"])
ROW = st.one_of(st.text(st.sampled_from(".xo-+#Ww?"), max_size=27), st.lists(CELLS, max_size=27))
ROWS = st.one_of(
    st.lists(ROW, max_size=27),
    st.text(max_size=60),
    st.binary(max_size=20),
    st.integers(),
    st.none(),
    st.lists(st.one_of(st.integers(), st.none(), st.lists(st.integers(), max_size=3)), max_size=4),
)


@FUZZ
@given(rows=ROWS, turn=st.one_of(st.none(), st.sampled_from(["black", "W", "purple", ""]), st.integers()), previous=st.one_of(st.none(), ROWS))
def test_from_board_never_panics(rows: Any, turn: Any, previous: Any) -> None:
    def set_up() -> None:
        game = Go.from_board(rows, turn=turn, previous=previous)
        # A game it makes works throughout.
        game.legal_mask()
        game.score()
        pickle.loads(pickle.dumps(game))

    only_value_or_type_errors(set_up)


# from_board: inputs of every shape, each reaching its error (never a panic)

EMPTY, BLACK, WHITE = ".-+", "xXBb#", "oOWw"
UNKNOWN = "?qéIz1*"
"""Characters that are no point's (none of them a space or a quote, which the one-str form
trims and repr quotes differently)."""
STONE_MIXES = [".", "...xo", ".xo", "xo", EMPTY + BLACK + WHITE]
"""From empty boards to full ones, so that chains without a liberty are common."""


@st.composite
def near_boards(draw: st.DrawFn) -> list[str]:
    """Rows around a board's shape: 0 to 30 rows of 0 to 30 points, some rows then made
    shorter or longer (past 25 points too), and unknown characters put anywhere, past the 25th
    column included."""
    height, width = draw(st.integers(0, 30)), draw(st.integers(0, 30))
    cell = st.sampled_from(draw(st.sampled_from(STONE_MIXES)))
    rows = [draw(st.text(cell, min_size=width, max_size=width)) for _ in range(height)]
    for _ in range(draw(st.integers(0, 2)) if rows else 0):
        r = draw(st.integers(0, len(rows) - 1))
        rows[r] = draw(st.text(cell, max_size=30))
    for _ in range(draw(st.integers(0, 2)) if rows else 0):
        r = draw(st.integers(0, len(rows) - 1))
        c = draw(st.integers(0, len(rows[r])))  # len: one more point, making the row longer
        rows[r] = rows[r][:c] + draw(st.sampled_from(UNKNOWN)) + rows[r][c + 1 :]
    return rows


ROW_FORMS: dict[str, Callable[[list[str]], Any]] = {
    "strs": lambda rows: rows,
    "tuple of lists of characters": lambda rows: tuple(list(row) for row in rows),
    "one str of lines": lambda rows: "\n".join(rows),
}


def first_problem(rows: list[str]) -> str | None:
    """What `from_board` must report first about ``rows`` (a regex), ``None`` for a shape and
    characters it takes: the size, then ragged rows, then the first unknown character."""
    height, width = len(rows), len(rows[0]) if rows else 0
    if not (1 <= height <= 25 and 1 <= width <= 25):
        return f"a position has 1 to 25 rows of 1 to 25 points, not {height} rows of {width}"
    for r, row in enumerate(rows):
        if len(row) != width:
            return rf"row {r + 1} \(from the top\) has {len(row)} points but the first row has {width}"
    for r, row in enumerate(rows):
        for c, character in enumerate(row):
            if character not in EMPTY + BLACK + WHITE:
                place = rf"{kata_name(r, c, height)} \(row {r + 1} from the top, column {c + 1}\)"
                return f"unknown character {re.escape(repr(character))} at {place}"
    return None


def as_board(rows: list[str]) -> list[list[str]]:
    return [["x" if ch in BLACK else "o" if ch in WHITE else "." for ch in row] for row in rows]


def assert_refused_for_no_liberty(message: str, rows: list[str]) -> None:
    """The message names a chain of ``rows`` that has no liberty."""
    named = re.search(r"the (black|white) chain at (\d+)([A-Z]) has no liberty", message)
    assert named is not None, message
    board = as_board(rows)
    row, col = len(rows) - int(named[2]), COLUMNS.index(named[3])
    assert board[row][col] == {"black": "x", "white": "o"}[named[1]]
    assert not chain_and_liberties(board, row, col)[1], message


def a_dead_chain(rows: list[str]) -> bool:
    board = as_board(rows)
    return any(
        cell != "." and not chain_and_liberties(board, r, c)[1]
        for r, line in enumerate(board)
        for c, cell in enumerate(line)
    )


def check_from_board(rows: list[str], form: str, previous: list[str] | None) -> None:
    """`from_board` refuses exactly what the model expects, with its message; else it builds
    the board."""
    if form == "one str of lines":
        rows = one_str_form(rows)
        previous = None if previous is None else one_str_form(previous)
    problem = first_problem(rows)
    if problem is None and a_dead_chain(rows):
        with pytest.raises(ValueError, match="^invalid position: ") as refused:
            Go.from_board(ROW_FORMS[form](rows))
        assert_refused_for_no_liberty(str(refused.value), rows)
        return
    previous_problem = None if previous is None else first_problem(previous)
    if problem is None and previous is not None and previous_problem is None:
        if a_dead_chain(previous):
            previous_problem = "previous position: the (black|white) chain at "
        elif (len(previous), len(previous[0])) != (len(rows), len(rows[0])):
            previous_problem = f"the previous position is {len(previous)}x{len(previous[0])} but"
    elif previous_problem is not None:
        previous_problem = "previous position: " + previous_problem
    expected = problem or previous_problem
    given_previous = None if previous is None else ROW_FORMS[form](previous)
    if expected is None:
        game = Go.from_board(ROW_FORMS[form](rows), previous=given_previous)
        assert game.board == as_board(rows)
        return
    with pytest.raises(ValueError, match=f"^invalid position: {expected}"):
        Go.from_board(ROW_FORMS[form](rows), previous=given_previous)


def one_str_form(rows: list[str]) -> list[str]:
    """The rows as the one-str form reads them: empty lines dropped."""
    return [row for row in rows if row]


@FUZZ
@given(rows=near_boards(), form=st.sampled_from(list(ROW_FORMS)), previous=st.one_of(st.none(), near_boards()))
def test_from_board_reports_the_first_problem_of_any_shape(rows: list[str], form: str, previous: list[str] | None) -> None:
    # The old bug: ['..', '.' * 26 + '?'] panicked naming a 27th column letter.
    check_from_board(rows, form, previous)


INPUT_SHAPES: dict[str, Callable[[list[str]], bool]] = {
    "no row": lambda rows: not rows,
    "more than 25 rows": lambda rows: len(rows) > 25 and 0 < len(rows[0]) <= 25,
    "a first row of more than 25 points": lambda rows: len(rows[0]) > 25 if rows else False,
    "an empty first row": lambda rows: bool(rows) and not rows[0],
    "a later row of more than 25 points": lambda rows: 0 < len(rows[0]) < 25 and max(map(len, rows)) > 25 if rows else False,
    "a later row shorter than the first": lambda rows: bool(rows) and 0 < min(map(len, rows[1:]), default=99) < len(rows[0]) <= 25,
    "an unknown character past the 25th column of a later row": lambda rows: 0 < len(rows[0]) <= 25
    and any(set(row[25:]) & set(UNKNOWN) for row in rows[1:])
    if rows
    else False,
    "an unknown character past the first row's end": lambda rows: 0 < len(rows[0]) <= 25
    and any(set(row[len(rows[0]) :]) & set(UNKNOWN) for row in rows[1:])
    if rows
    else False,
    "an unknown character on a board": lambda rows: (first_problem(rows) or "").startswith("unknown"),
    "a chain without a liberty": lambda rows: first_problem(rows) is None and a_dead_chain(rows),
    "a board taken": lambda rows: first_problem(rows) is None and not a_dead_chain(rows),
}


@pytest.mark.slow  # a search of up to 5,000 examples per shape: 1 to 6 s each
@pytest.mark.parametrize("shape", list(INPUT_SHAPES))
def test_the_fuzzing_reaches_every_shape_of_input(shape: str) -> None:
    """The strategy above is not a narrow one: it makes each shape of input (so each error
    path of from_board), and the engine answers it as the model says."""
    example = find(near_boards(), INPUT_SHAPES[shape], settings=settings(max_examples=5000, database=None))
    for form in ROW_FORMS:
        check_from_board(example, form, None)


ANYTHING: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(2**70), 2**70),
        st.floats(),
        st.text(max_size=5),
        st.sampled_from(["black", "white", "x", ".", "...", "xo.", "7A", "pass"]),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.lists(inner, max_size=6).map(tuple)),
    max_leaves=20,
)


@FUZZ
@given(state=ANYTHING)
def test_setstate_never_panics_and_refuses_with_value_error(state: Any) -> None:
    game = Go(3)
    try:
        game.__setstate__(state)
    except ValueError:
        assert game.board == Go(3).board and game.move_number == 0


@FUZZ
@given(args=st.lists(ANYTHING, max_size=3), method=st.sampled_from(
    ["move", "play", "is_legal", "illegal_reason", "captures", "get_position", "legal_moves",
     "legal_mask", "rollback", "handicap_stones", "play_many", "score", "playout"]
))
def test_methods_never_panic(args: list[Any], method: str) -> None:
    game = Go(9)
    game.move("5E", "4D")
    only_value_or_type_errors(lambda: getattr(game, method)(*args))
    n: Any = args[0] if args else None
    if not (isinstance(n, int) and n > 100):  # n is a loop count
        only_value_or_type_errors(lambda: playouts(game, n, max_moves=5))
    only_value_or_type_errors(lambda: Go(*args[:2]))


# Integers: anything with __index__, never a bool


class Index:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_numpy_integers_are_taken_wherever_an_int_is() -> None:
    # They were refused ("height must be an int, not int64") although legal_mask returns numpy.
    game = Go(np.int64(9), np.uint8(7))
    assert game.size == {"height": 9, "width": 7}
    game.move((np.int64(2), np.int32(3)))
    game.play("white", (np.uint16(0), Index(0)))
    assert game.board[2][3] == "x" and game.board[0][0] == "o"
    assert game.is_legal((np.int64(4), np.int64(4))) and game.illegal_reason((np.int8(2), np.int8(3))) == "occupied"
    assert game.get_position((np.int64(2), np.int64(3))) == "x"
    mask = game.legal_mask()
    assert isinstance(mask, np.ndarray)
    rows, cols = np.nonzero(mask)
    assert game.play_many([(rows[0], cols[0]), (rows[1], cols[1])]) == 2
    game.rollback(np.int64(3))
    assert game.move_number == 1
    game.rollback(Index(1))
    nine = Go(9)
    nine.handicap_stones(np.int64(2))
    assert sum(row.count("x") for row in nine.board) == 2
    seed, cap = 2**64 - 1, 40
    assert game.playout(seed=np.uint64(seed), max_moves=np.int16(cap)) == game.playout(seed=seed, max_moves=cap)
    assert playouts(game, np.int64(5), seed=Index(3), max_moves=np.uint32(cap)) == playouts(game, 5, seed=3, max_moves=cap)


BOOLS_AND_FLOATS = [True, False, np.bool_(True), 3.0, np.float64(3.0), Fraction(3), "3"]


@pytest.mark.parametrize("value", BOOLS_AND_FLOATS, ids=repr)
def test_bools_and_floats_are_not_ints(value: Any) -> None:
    game = Go(9)
    game.move("5E")
    calls: list[Callable[[], object]] = [
        lambda: Go(value),
        lambda: Go(9, value),
        lambda: game.move((value, 0)),
        lambda: game.is_legal((0, value)),
        lambda: game.rollback(value),
        lambda: game.handicap_stones(value),
        lambda: game.playout(seed=value),
        lambda: game.playout(max_moves=value),
        lambda: playouts(game, value),
        lambda: playouts(game, 1, seed=value),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="must be an int"):
            call()
    assert game.move_number == 1


def test_an_index_that_raises_is_passed_on() -> None:
    class Broken:
        def __index__(self) -> int:
            raise ZeroDivisionError("broken")

    with pytest.raises(ZeroDivisionError):
        Go(9).rollback(Broken())


# Komi: a finite number, named in every error


@pytest.mark.parametrize("call", ["score", "playout", "playouts"])
def test_komi(call: str) -> None:
    game = Go.from_board(["x.o"])

    def score(komi: object) -> object:
        if call == "score":
            return game.score(komi)["winner"]  # type: ignore[arg-type]
        if call == "playout":
            return game.playout(seed=1, max_moves=1, komi=komi)["komi"]  # type: ignore[arg-type]
        return playouts(game, 1, seed=1, max_moves=1, komi=komi)["mean_margin"]  # type: ignore[arg-type]

    bools: list[object] = [True, False, np.bool_(False)]
    for komi in bools:  # score(True) was komi 1.0
        with pytest.raises(TypeError, match=r"^komi must be a number, not bool"):
            score(komi)
    not_numbers: list[object] = ["7.5", None, [7.5], object(), 1j]
    for komi in not_numbers:
        with pytest.raises(TypeError, match=r"^komi must be a number, not "):
            score(komi)
    not_finite: list[object] = [10**400, -(10**400), math.inf, math.nan, np.float64("inf"), 1e400]
    for komi in not_finite:
        with pytest.raises(ValueError, match=r"^komi must be a finite number, not "):
            score(komi)  # 10**400 raised OverflowError
    numbers: list[object] = [7, np.int64(7), np.float32(7.0), Fraction(7), Index(7)]
    for komi in numbers:
        assert score(komi) == score(7.0)


def test_a_huge_komi_is_named_in_a_short_message() -> None:
    with pytest.raises(ValueError) as info:
        Go(9).score(komi=10**400)
    assert len(str(info.value)) < 100 and "komi" in str(info.value)
