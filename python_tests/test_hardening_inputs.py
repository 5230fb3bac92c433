"""Hostile and unusual inputs: no input reaches a Rust panic (`pyo3_runtime.PanicException`, a
BaseException that `except Exception` misses) or sizes memory by itself; numpy integers and
anything else with ``__index__`` are taken wherever an int is, booleans nowhere; komi is a
finite number and its errors say so."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gokata import Go, playouts, solve

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
