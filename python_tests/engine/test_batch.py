"""Tests of the batch APIs: `Go.score`, `Go.playout`, `gokata.playouts`, `Go.legal_mask` and
`Go.play_many`.

The oracle is the pure-Python reference model (``support/reference_model.py``), independent
of the engine, and what playouts add to it here:

* `ref_score` is the model's area score (`area_score`, a flood fill);
* `ref_play` / `ref_is_legal` play and check moves from a bare position with the model's
  `play_stone` (no suicide), simple ko as a one-turn ban on retaking a single stone
  (`simple_ko_point`);
* `ref_is_simple_eye` is the playout's definition of an eye;
* `PlayoutModel` enumerates every light playout from a small position and gives the exact
  probability of each outcome ``(black, white, moves)``. The engine's playouts must land in its
  support, one by one, and their frequencies (and `playouts`'s aggregates) must match it.
"""

from __future__ import annotations

import copy
import math
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Callable, Literal, Optional, Union

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gokata import Go, IllegalMoveError, playouts
from support import reference_model as reference
from support.reference_model import COLUMNS

Point = tuple[int, int]
"""A 0-based (row, col), row 0 at the top, as `board` is indexed."""

Board = tuple[str, ...]
"""A position as rows of '.', 'x', 'o', top row first (hashable, for the playout model)."""

Outcome = tuple[int, int, int]
"""What a playout comes to: (black area, white area, moves)."""

Distribution = dict[Outcome, float]

Coordinate = Union[str, tuple[int, int]]
Turn = Optional[Coordinate]
Colour = Literal["black", "white"]
"""A coordinate to play, or None / "pass" for a pass."""

STONE = {"black": "x", "white": "o"}
OTHER = {"black": "white", "white": "black"}

SLOW = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])


# The reference: the model's geometry, flood fills, moves and area score; the playouts' eyes


def kata(point: Point, height: int) -> str:
    row, col = point
    return f"{height - row}{COLUMNS[col]}"


def gtp(point: Point, height: int) -> str:
    row, col = point
    return f"{COLUMNS[col]}{height - row}"


def points_of(board: Sequence[str]) -> list[Point]:
    return [(r, c) for r in range(len(board)) for c in range(len(board[0]))]


def neighbours(board: Sequence[str], point: Point) -> list[Point]:
    return reference.neighbours(board, *point)


def at(board: Sequence[str], point: Point) -> str:
    return board[point[0]][point[1]]


def chain_and_liberties(board: Sequence[str], start: Point) -> tuple[set[Point], set[Point]]:
    """The chain of the stone at `start` and its liberties, by the model's flood fill."""
    return reference.chain_and_liberties(board, *start)


def ref_score(board: Sequence[str]) -> tuple[int, int]:
    """Area score: stones plus empty regions (4-connected) bordering only that colour."""
    return reference.area_score(board)


def winner(black: int, white: int, komi: float) -> str:
    if black > white + komi:
        return "black"
    if black < white + komi:
        return "white"
    return "draw"


def ref_play(board: Board, point: Point, colour: str) -> Optional[tuple[Board, Optional[Point]]]:
    """The position after `colour` plays at the empty `point`, and the ko ban it creates (the
    point the opponent may not retake next turn); None if the move is suicide."""
    reason, grid, captured = reference.play_stone(board, *point, STONE[colour])
    if reason is not None:
        assert reason == "suicide", f"{reason} at {point}: ref_play is for empty points"
        return None
    after: Board = tuple("".join(row) for row in grid)
    return after, reference.simple_ko_point(after, *point, captured)


def ref_is_legal(board: Board, point: Point, colour: str, ko: Optional[Point] = None) -> bool:
    return at(board, point) == "." and point != ko and ref_play(board, point, colour) is not None


def ref_is_simple_eye(board: Sequence[str], point: Point, colour: str) -> bool:
    """An empty point whose neighbours are all `colour` stones (or the edge), with at most one
    opponent stone on its diagonals, and none if it is on the edge."""
    if at(board, point) != "." or any(at(board, n) != STONE[colour] for n in neighbours(board, point)):
        return False
    height, width = len(board), len(board[0])
    row, col = point
    on_edge = row in (0, height - 1) or col in (0, width - 1)
    diagonals = [(row + dr, col + dc) for dr in (-1, 1) for dc in (-1, 1)]
    opponents = sum(
        1
        for r, c in diagonals
        if 0 <= r < height and 0 <= c < width and board[r][c] == STONE[OTHER[colour]]
    )
    return opponents + (1 if on_edge else 0) < 2


class PlayoutModel:
    """Exact distribution of light playout outcomes, by enumerating every playout (memoised)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[Board, str, bool, Optional[Point], int], Distribution] = {}

    def distribution(
        self, board: Board, to_move: str, previous_was_pass: bool, max_moves: int, ko: Optional[Point] = None
    ) -> Distribution:
        return self._from(board, to_move, previous_was_pass, ko, max_moves)

    def _from(
        self, board: Board, to_move: str, previous_was_pass: bool, ko: Optional[Point], remaining: int
    ) -> Distribution:
        key = (board, to_move, previous_was_pass, ko, remaining)
        if key in self.memo:
            return self.memo[key]
        black, white = ref_score(board)
        result: Distribution = {}
        if remaining == 0:
            result = {(black, white, 0): 1.0}
        else:
            candidates = [
                p
                for p in points_of(board)
                if ref_is_legal(board, p, to_move, ko) and not ref_is_simple_eye(board, p, to_move)
            ]
            if not candidates and previous_was_pass:
                result = {(black, white, 1): 1.0}
            elif not candidates:
                sub = self._from(board, OTHER[to_move], True, None, remaining - 1)
                result = {(b, w, m + 1): q for (b, w, m), q in sub.items()}
            else:
                for p in candidates:
                    played = ref_play(board, p, to_move)
                    assert played is not None
                    after, new_ko = played
                    sub = self._from(after, OTHER[to_move], False, new_ko, remaining - 1)
                    for (b, w, m), q in sub.items():
                        outcome = (b, w, m + 1)
                        result[outcome] = result.get(outcome, 0.0) + q / len(candidates)
        self.memo[key] = result
        return result


def remove_dead(cells: list[list[str]]) -> Board:
    """Turns random cells into a valid position: chains without liberties are removed."""
    while True:
        board = tuple("".join(row) for row in cells)
        dead = next(
            (p for p in points_of(board) if at(board, p) != "." and not chain_and_liberties(board, p)[1]),
            None,
        )
        if dead is None:
            return board
        for r, c in chain_and_liberties(board, dead)[0]:
            cells[r][c] = "."


# Helpers on the engine


def board_of(game: Go) -> Board:
    return tuple("".join(row) for row in game.board)


def snapshot(game: Go) -> tuple[Board, str, int]:
    return board_of(game), game.turn, game.move_number


def history(game: Go) -> list[Board]:
    """Every position of the game, last first, read by rolling back a copy turn by turn."""
    replay = copy.copy(game)
    boards = [board_of(replay)]
    while replay.move_number:
        replay.rollback(1)
        boards.append(board_of(replay))
    return boards


def as_colour(name: str) -> Colour:
    """A colour name (such as `game.turn`) typed for the API."""
    if name == "black":
        return "black"
    assert name == "white", name
    return "white"


def legality(game: Go, colour: str) -> list[list[bool]]:
    """`is_legal` at every point, as a (height, width) grid."""
    height, width = len(game.board), len(game.board[0])
    return [[game.is_legal((r, c), as_colour(colour)) for c in range(width)] for r in range(height)]


def full_state(game: Go) -> tuple[tuple[Board, str, int], list[Board], list[list[bool]], list[list[bool]]]:
    """Everything a call that must not change the game could change: position, side to move,
    move number, history (rollback) and legality for both colours (ko)."""
    return snapshot(game), history(game), legality(game, "black"), legality(game, "white")


def outcome(result: dict[str, object]) -> Outcome:
    black, white, moves = result["black"], result["white"], result["moves"]
    assert isinstance(black, int) and isinstance(white, int) and isinstance(moves, int)
    return black, white, moves


def number(value: object) -> float:
    assert isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value)


def check_score_dict(result: dict[str, object], black: int, white: int, komi: float) -> None:
    assert result["black"] == black
    assert result["white"] == white
    assert result["komi"] == komi and isinstance(result["komi"], float)
    assert result["winner"] == winner(black, white, komi)


def last_turn(game: Go) -> tuple[bool, Optional[Point]]:
    """Whether the game's last turn was a pass, and the ko ban the last move left, worked out
    from the game's history (a game from `from_board` without `previous` has no ko pending)."""
    boards = history(game)
    if len(boards) < 2:
        return False, None
    now, before = boards[0], boards[1]
    placed = [p for p in points_of(now) if at(before, p) == "." and at(now, p) != "."]
    if not placed:
        return True, None
    assert len(placed) == 1
    played = ref_play(before, placed[0], OTHER[game.turn])
    assert played is not None and played[0] == now
    return False, played[1]


def model_distribution(game: Go, max_moves: Optional[int] = None) -> Distribution:
    """The exact outcome distribution of a playout from `game` (a set-up position, then turns)."""
    board = board_of(game)
    cap = max_moves if max_moves is not None else 3 * len(board) * len(board[0])
    previous_was_pass, ko = last_turn(game)
    return PlayoutModel().distribution(board, game.turn, previous_was_pass, cap, ko)


def random_game(height: int, width: int, choices: Sequence[int]) -> Go:
    """A game played from the empty board by `play_choices`."""
    return play_choices(Go(height, width), choices)


def play_choices(game: Go, choices: Sequence[int]) -> Go:
    """Plays on: choice 0 passes, k picks the k-th legal move (mod their number)."""
    for choice in choices:
        legal = game.legal_moves()
        if choice == 0 or not legal:
            game.pass_turn()
        else:
            game.move(legal[choice % len(legal)])
    return game


# Strategies


@st.composite
def positions(draw: st.DrawFn, max_side: int = 6, max_points: int = 36) -> Board:
    """A valid position (no chain without liberties) from random cells."""
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, min(max_side, max(1, max_points // height))))
    weights = draw(st.sampled_from(["..xo", ".xo", ".xxoo", ".xxxoo", "xxo", "xoo"]))
    cells = [[draw(st.sampled_from(weights)) for _ in range(width)] for _ in range(height)]
    return remove_dead(cells)


@st.composite
def played_games(draw: st.DrawFn, max_side: int = 7) -> Go:
    """A game reached by random play (so with history, captures and ko bans)."""
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    choices = draw(st.lists(st.integers(0, 1000), max_size=3 * height * width))
    return random_game(height, width, choices)


@st.composite
def any_games(draw: st.DrawFn) -> Go:
    """A set-up position (either side to move) or a game reached by play."""
    if draw(st.booleans()):
        return draw(played_games())
    return Go.from_board(list(draw(positions())), turn=draw(st.sampled_from(["black", "white"])))


komis = st.one_of(
    st.sampled_from([0.0, 0.5, 6.5, 7.5, -0.5, -3.0, 1.0]),
    st.integers(-40, 40).map(float),
    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
)


# The reference itself, against hand-made cases


def test_reference_scorer_hand_cases() -> None:
    assert ref_score(("...", "...", "...")) == (0, 0)
    assert ref_score(("...", ".x.", "...")) == (9, 0)
    assert ref_score((".x.o.",)) == (2, 2)
    assert ref_score(("x.o", "x.o", "x.o")) == (3, 3)


def test_reference_eyes_hand_cases() -> None:
    center = ("xxx", "x.x", "xxx")
    assert ref_is_simple_eye(center, (1, 1), "black")
    assert not ref_is_simple_eye(center, (1, 1), "white")
    assert ref_is_simple_eye(("oxx", "x.x", "xxx"), (1, 1), "black")  # one opponent diagonal
    assert not ref_is_simple_eye(("oxo", "x.x", "xxx"), (1, 1), "black")  # two: a false eye
    assert ref_is_simple_eye((".x.", "x.x", ".x."), (1, 1), "black")  # empty diagonals
    assert not ref_is_simple_eye(("...", "x.x", "xxx"), (1, 1), "black")  # an empty neighbour
    assert ref_is_simple_eye(("x.x", "xxx"), (0, 1), "black")  # edge
    assert not ref_is_simple_eye(("x.x", "oxx"), (0, 1), "black")  # edge, opponent diagonal
    assert ref_is_simple_eye((".x", "xx"), (0, 0), "black")  # corner
    assert not ref_is_simple_eye((".x", "xo"), (0, 0), "black")  # corner, opponent diagonal
    assert ref_is_simple_eye((".",), (0, 0), "black")  # 1x1: no neighbours at all


def test_reference_moves_hand_cases() -> None:
    ko_board = (".xo.", "xo.o", ".xo.")
    played = ref_play(ko_board, (1, 2), "black")
    assert played == ((".xo.", "x.xo", ".xo."), (1, 1))
    assert not ref_is_legal(played[0], (1, 1), "white", played[1])
    assert ref_is_legal(played[0], (1, 1), "white")
    assert ref_play((".x", "x."), (0, 0), "white") is None  # suicide
    assert ref_play(("..o", ".ox", ".o."), (2, 2), "black") is None  # suicide though it touches x
    assert ref_play((".xo", "xo."), (1, 2), "black") == ((".x.", "x.x"), None)  # takes two
    assert PlayoutModel().distribution((".",), "black", False, 3) == {(0, 0, 2): 1.0}
    assert PlayoutModel().distribution((".",), "black", True, 3) == {(0, 0, 1): 1.0}


# score()


@pytest.mark.parametrize(
    ("rows", "black", "white"),
    [
        (["....."] * 5, 0, 0),
        ([".....", ".....", "..x..", ".....", "....."], 25, 0),
        ([".....", ".o...", ".....", ".....", "....."], 0, 25),
        (["..x..", "..x..", "xxo..", "..o..", "..o.."], 4 + 4, 3 + 0),  # dame region touches both
        (["x.o", "x.o", "x.o"], 3, 3),  # the middle column is shared
        (["x.x.o", "xxxoo"], 5 + 1, 3),  # (0, 3) touches both
        ([".x.x.", "xx.oo", "..o.."], 4 + 1, 3 + 2),
        (["."], 0, 0),
    ],
)
def test_score_hand_cases(rows: list[str], black: int, white: int) -> None:
    game = Go.from_board(rows)
    check_score_dict(dict(game.score()), black, white, 0.5)
    check_score_dict(dict(game.score(komi=0)), black, white, 0.0)
    check_score_dict(dict(game.score(7.5)), black, white, 7.5)
    check_score_dict(dict(game.score(-2)), black, white, -2.0)


def test_score_winner_boundaries() -> None:
    game = Go.from_board(["x.o", "x.o", "x.o"])  # 3 : 3
    assert game.score(komi=0)["winner"] == "draw"
    assert game.score(komi=0.0)["winner"] == "draw"
    assert game.score(komi=-0.0)["winner"] == "draw"
    assert game.score(komi=0.5)["winner"] == "white"
    assert game.score(komi=-0.5)["winner"] == "black"
    assert game.score(komi=1e-9)["winner"] == "white"
    assert game.score()["komi"] == 0.5
    assert Go(9).score(komi=0)["winner"] == "draw"
    assert Go(9).score()["winner"] == "white"


@pytest.mark.parametrize("komi", [math.nan, math.inf, -math.inf])
def test_score_rejects_non_finite_komi(komi: float) -> None:
    game = Go(5)
    with pytest.raises(ValueError):
        game.score(komi=komi)
    with pytest.raises(ValueError):
        game.playout(seed=1, komi=komi)
    with pytest.raises(ValueError):
        playouts(game, 3, seed=1, komi=komi)


@pytest.mark.parametrize("komi", ["7.5", None, [7.5], object()])
def test_score_rejects_non_number_komi(komi: object) -> None:
    game = Go(5)
    with pytest.raises(TypeError):
        game.score(komi=komi)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        game.playout(seed=1, komi=komi)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        playouts(game, 3, seed=1, komi=komi)  # type: ignore[arg-type]


@SLOW
@given(board=positions(max_side=8, max_points=64), komi=komis)
def test_score_matches_flood_fill_on_set_up_positions(board: Board, komi: float) -> None:
    game = Go.from_board(list(board))
    black, white = ref_score(board)
    check_score_dict(dict(game.score(komi)), black, white, komi)
    assert board_of(game) == board


@SLOW
@given(game=played_games(), komi=komis)
def test_score_matches_flood_fill_on_played_games(game: Go, komi: float) -> None:
    before = full_state(game)
    black, white = ref_score(board_of(game))
    check_score_dict(dict(game.score(komi)), black, white, komi)
    assert full_state(game) == before


# playout(): hand-made positions whose outcome is forced

EYES_ONLY = [".x.x", "xxxx", "oooo", "o.o."]
"""Every empty point is an eye of one side that the other side may not fill (suicide):
8 : 8, and neither side has a playout move."""

CROSS = [".x.", "x.x", ".x."]
"""Five black eyes (the center's diagonals are empty): black 9, white 0; white has no legal move."""


@pytest.mark.parametrize(
    ("rows", "black", "white"),
    [
        (["."], 0, 0),
        (EYES_ONLY, 8, 8),
        (CROSS, 9, 0),
        (["x.", ".x"], 4, 0),
        ([".o.o.", "ooooo"], 0, 10),
    ],
)
@pytest.mark.parametrize("turn", ["black", "white"])
def test_playout_when_nobody_can_move(rows: list[str], black: int, white: int, turn: str) -> None:
    game = Go.from_board(rows, turn=as_colour(turn))
    assert game.score(0) == {"black": black, "white": white, "komi": 0.0, "winner": winner(black, white, 0)}
    for seed in (0, 1, 2, -1, 2**70):
        assert game.playout(seed=seed, komi=0) == {**game.score(0), "moves": 2}
        assert game.playout(seed=seed) == {**game.score(), "moves": 2}
    assert game.playout() == {**game.score(), "moves": 2}
    assert game.playout(seed=3, max_moves=1) == {**game.score(), "moves": 1}
    summary = playouts(game, 25, seed=5, komi=1.5)
    assert summary["playouts"] == 25
    assert summary["mean_moves"] == 2.0
    assert summary["mean_margin"] == pytest.approx(black - white - 1.5)
    wins = {"black": summary["black_wins"], "white": summary["white_wins"], "draw": summary["draws"]}
    assert wins == {w: (25 if w == winner(black, white, 1.5) else 0) for w in wins}

    game.pass_turn()  # the pass just before the playout is the first of the two
    assert game.playout(seed=4) == {**game.score(), "moves": 1}
    assert playouts(game, 7, seed=4)["mean_moves"] == 1.0
    game.rollback(1)
    assert game.playout(seed=4) == {**game.score(), "moves": 2}


def test_playout_after_pass_then_move_is_not_a_finished_game() -> None:
    game = Go.from_board(CROSS, turn="white")
    game.pass_turn()  # white passes
    game.pass_turn()  # black passes: the game's own two passes
    assert game.playout(seed=1) == {**game.score(), "moves": 1}
    game.rollback(2)
    game.play("black", (0, 0))  # black fills an eye: the last turn is a move, not a pass
    assert game.turn == "white"
    assert game.playout(seed=1) == {**game.score(), "moves": 2}


def test_playout_first_moves_are_exact() -> None:
    # One move on an empty board: a lone black stone owns every point.
    assert Go(9).playout(seed=11, max_moves=1) == {
        "black": 81, "white": 0, "komi": 0.5, "winner": "black", "moves": 1,
    }
    # Two moves on 9x9 cannot capture: one stone each, all empty points are shared.
    for seed in range(20):
        assert outcome(dict(Go(9).playout(seed=seed, max_moves=2))) == (1, 1, 2)
    white_first = Go.from_board(["." * 7] * 5, turn="white")
    assert outcome(dict(white_first.playout(seed=3, max_moves=1))) == (0, 35, 1)


def test_playout_on_a_one_by_two_board() -> None:
    # 1x2: black plays one point, white captures it from the other, and so on; with one move
    # allowed black owns the board, with two white does.
    game = Go(1, 2)
    assert {outcome(dict(game.playout(seed=s, max_moves=1))) for s in range(30)} == {(2, 0, 1)}
    assert {outcome(dict(game.playout(seed=s, max_moves=2))) for s in range(30)} == {(0, 2, 2)}


# playout(): arguments, determinism, the game left unchanged


def ko_game() -> Go:
    """Black has just taken a ko: white may not retake at (1, 1) now."""
    game = Go.from_board([".xo.", "xo.o", ".xo."])
    game.move((1, 2))
    assert not game.is_legal((1, 1))
    return game


@pytest.mark.parametrize(
    "make",
    [lambda: Go(9), ko_game, lambda: random_game(7, 5, list(range(1, 40, 3))), lambda: Go.from_board(EYES_ONLY)],
)
def test_playouts_leave_the_game_unchanged(make: Callable[[], Go]) -> None:
    game = make()
    before = full_state(game)
    mask = game.legal_mask()
    for seed in range(5):
        game.playout(seed=seed)
        game.playout(seed=seed, max_moves=3)
        playouts(game, 20, seed=seed)
    assert full_state(game) == before
    after = game.legal_mask()
    assert isinstance(mask, np.ndarray) and isinstance(after, np.ndarray)
    assert after.tolist() == mask.tolist()
    # The game still plays on normally.
    legal = game.legal_moves()
    if legal:
        game.move(legal[0])
        assert game.move_number == before[0][2] + 1


@SLOW
@given(game=any_games(), seed=st.integers(-(2**80), 2**80), cap=st.one_of(st.none(), st.integers(1, 200)))
def test_playout_is_deterministic_bounded_and_side_effect_free(game: Go, seed: int, cap: Optional[int]) -> None:
    before = full_state(game)
    height, width = len(game.board), len(game.board[0])
    first = game.playout(seed=seed, max_moves=cap, komi=2.5)
    assert game.playout(seed=seed, max_moves=cap, komi=2.5) == first
    assert copy.copy(game).playout(seed=seed, max_moves=cap, komi=2.5) == first
    black, white, moves = outcome(dict(first))
    assert 1 <= moves <= (cap if cap is not None else 3 * height * width)
    assert 0 <= black and 0 <= white and black + white <= height * width
    assert first["komi"] == 2.5 and first["winner"] == winner(black, white, 2.5)
    assert set(first) == {"black", "white", "komi", "winner", "moves"}
    summary = playouts(game, 5, seed=seed, max_moves=cap)
    assert summary == playouts(game, 5, seed=seed, max_moves=cap)
    assert full_state(game) == before


def test_playout_without_seed_works() -> None:
    results = [Go(5).playout() for _ in range(10)]
    assert all(1 <= r["moves"] <= 75 for r in results)


@pytest.mark.parametrize("cap", [0, -1, -(2**70)])
def test_playout_rejects_non_positive_max_moves(cap: int) -> None:
    with pytest.raises(ValueError):
        Go(5).playout(seed=1, max_moves=cap)
    with pytest.raises(ValueError):
        playouts(Go(5), 2, seed=1, max_moves=cap)


@pytest.mark.parametrize("cap", [1.0, 5.0, True, False, "5"])
def test_playout_rejects_non_int_max_moves(cap: object) -> None:
    with pytest.raises(TypeError):
        Go(5).playout(seed=1, max_moves=cap)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        playouts(Go(5), 2, seed=1, max_moves=cap)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [1.0, True, "1"])
def test_playout_rejects_non_int_seed(seed: object) -> None:
    with pytest.raises(TypeError):
        Go(5).playout(seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("cap", [2**31, 2**32, 2**40, 2**64, 10**30])
def test_playout_accepts_any_large_max_moves(cap: int) -> None:
    """A positive int however large is a valid cap; the playout then ends by two passes."""
    game = Go(5)
    assert game.playout(seed=9, max_moves=cap) == game.playout(seed=9)
    assert playouts(game, 3, seed=9, max_moves=cap) == playouts(game, 3, seed=9)


@pytest.mark.parametrize("seed", [-1, -(2**63), 2**63, 2**64 + 5, 10**40, -(10**40)])
def test_playout_accepts_any_int_seed(seed: int) -> None:
    game = Go(6, 4)
    assert game.playout(seed=seed) == game.playout(seed=seed)
    assert playouts(game, 4, seed=seed) == playouts(game, 4, seed=seed)


def test_different_seeds_give_different_playouts() -> None:
    assert len({tuple(sorted(Go(9).playout(seed=s).items())) for s in range(20)}) > 1


# playout(): differential against the exact playout model


def distribution_game(rows: Sequence[str], turn: str = "black", opening: Sequence[Turn] = ()) -> Go:
    """A set-up position, then some turns (None to pass) played with move() and pass_turn()."""
    game = Go.from_board(list(rows), turn=as_colour(turn))
    for coord in opening:
        if coord is None:
            game.pass_turn()
        else:
            game.move(coord)
    return game


MODEL_GAMES: dict[str, tuple[list[str], str, list[Turn], Optional[int]]] = {
    "empty 2x2": (["..", ".."], "black", [], None),
    "empty 1x5": (["....."], "black", [], None),
    "empty 2x3 white": (["...", "..."], "white", [], 8),
    "false eye": ([".xo.", "x.x.", ".xo."], "black", [], None),
    "edge eyes": (["x.x.o", ".xxo."], "white", [None], None),
    "ko to take": ([".xo.", "xo.o", ".xo."], "black", [], None),
    "ko just taken": ([".xo.", "xo.o", ".xo."], "black", [(1, 2)], None),
}
"""Small positions whose every playout the model enumerates: (rows, turn, opening, max_moves).
The false eye at (1, 1) has two white diagonals, so black may fill it; in "ko just taken" white
may not retake at once."""


@pytest.mark.parametrize("name", sorted(MODEL_GAMES))
def test_playout_outcomes_follow_the_exact_distribution(name: str) -> None:
    rows, turn, opening, cap = MODEL_GAMES[name]
    game = distribution_game(rows, turn, opening)
    dist = model_distribution(game, cap)
    assert sum(dist.values()) == pytest.approx(1.0)

    # One by one: every playout is a possible one, at the model's frequencies.
    trials = 3000
    counts: dict[Outcome, int] = {}
    for seed in range(trials):
        result = dict(game.playout(seed=seed, max_moves=cap))
        got = outcome(result)
        assert got in dist, f"impossible playout outcome {got} from {rows}"
        assert result["winner"] == winner(got[0], got[1], 0.5)
        counts[got] = counts.get(got, 0) + 1
    for key, p in dist.items():
        expected, sigma = trials * p, math.sqrt(trials * p * (1 - p))
        assert abs(counts.get(key, 0) - expected) <= 5 * sigma + 3, (key, p, counts.get(key, 0))

    # Aggregated: win rates, mean margin and mean length.
    n, komi = 20000, 0.5
    summary = playouts(game, n, seed=2024, max_moves=cap, komi=komi)
    stats: dict[str, object] = dict(summary)
    assert summary["playouts"] == n
    assert summary["black_wins"] + summary["white_wins"] + summary["draws"] == n
    for field, who in (("black_wins", "black"), ("white_wins", "white"), ("draws", "draw")):
        p = sum(q for (b, w, _), q in dist.items() if winner(b, w, komi) == who)
        assert abs(number(stats[field]) / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-9, field
    for field, value in (
        ("mean_margin", lambda o: o[0] - o[1] - komi),
        ("mean_moves", lambda o: float(o[2])),
    ):
        mean = sum(q * value(o) for o, q in dist.items())
        var = sum(q * (value(o) - mean) ** 2 for o, q in dist.items())
        assert abs(number(stats[field]) - mean) <= 5 * math.sqrt(var / n) + 1e-9, field


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=positions(max_side=3, max_points=6),
    turn=st.sampled_from(["black", "white"]),
    opening=st.lists(st.integers(0, 10), max_size=4),
    cap=st.one_of(st.none(), st.integers(1, 12)),
    seeds=st.lists(st.integers(-(2**64), 2**64), min_size=1, max_size=8),
)
def test_playout_outcomes_are_possible_on_random_small_positions(
    board: Board, turn: str, opening: list[int], cap: Optional[int], seeds: list[int]
) -> None:
    """From a set-up position and a few random turns (passes, captures, ko), every playout's
    outcome is one the model can reach."""
    game = play_choices(distribution_game(board, turn), opening)
    dist = model_distribution(game, cap)
    for seed in [*seeds, *range(30)]:
        got = outcome(dict(game.playout(seed=seed, max_moves=cap)))
        assert got in dist, f"impossible outcome {got}; possible: {sorted(dist)}"


def test_mean_length_of_nine_by_nine_playouts_is_plausible() -> None:
    summary = playouts(Go(9), 2000, seed=7, komi=7.5)
    assert 100 <= summary["mean_moves"] <= 125
    assert summary["black_wins"] + summary["white_wins"] + summary["draws"] == 2000
    assert -81 <= summary["mean_margin"] <= 81
    assert summary["black_wins"] > 0 and summary["white_wins"] > 0


# playouts()


def test_playouts_summary_shape_and_counts() -> None:
    game = Go(5)
    summary = playouts(game, 50, seed=3, komi=0)
    assert set(summary) == {"playouts", "black_wins", "white_wins", "draws", "mean_margin", "mean_moves"}
    assert summary["playouts"] == 50
    assert summary["black_wins"] + summary["white_wins"] + summary["draws"] == 50
    assert 1 <= summary["mean_moves"] <= 75
    assert -25 <= summary["mean_margin"] <= 25
    assert playouts(game, 50, seed=3, komi=0) == summary
    assert playouts(game, 50, 3, None, 0) == summary  # positional arguments
    # Komi only moves the margin, not the games played.
    shifted = playouts(game, 50, seed=3, komi=25.5)
    assert shifted["mean_moves"] == summary["mean_moves"]
    assert shifted["mean_margin"] == pytest.approx(summary["mean_margin"] - 25.5)
    assert shifted["white_wins"] == 50


def test_playouts_zero_and_negative_counts() -> None:
    game = Go(5)
    summary = playouts(game, 0, seed=1)
    assert summary["playouts"] == 0
    assert summary["black_wins"] == summary["white_wins"] == summary["draws"] == 0
    assert playouts(game, 0) == summary
    for n in (-1, -(2**70)):
        with pytest.raises(ValueError):
            playouts(game, n, seed=1)


def test_playouts_agrees_with_the_playouts_it_summarises_on_a_max_moves_cap() -> None:
    # With one move allowed on an empty board black always owns everything.
    summary = playouts(Go(4, 6), 30, seed=8, max_moves=1, komi=3)
    assert summary == {
        "playouts": 30, "black_wins": 30, "white_wins": 0, "draws": 0,
        "mean_margin": 24 - 3, "mean_moves": 1.0,
    }


def test_playouts_releases_the_gil() -> None:
    game = Go(19)
    # Calibrate: a call lasting about a second, while the Python side needs far less than
    # that but well over one GIL switch interval.
    start = time.perf_counter()
    playouts(game, 200, seed=1)
    per_playout = max((time.perf_counter() - start) / 200, 1e-6)
    n = min(max(int(1.0 / per_playout), 2000), 500_000)

    def python_work(rounds: int) -> int:
        total = 0
        for i in range(rounds):
            total += i % 7
        return total

    start = time.perf_counter()
    python_work(20_000)
    per_round = max((time.perf_counter() - start) / 20_000, 1e-9)
    rounds = int(max(0.05, 5 * sys.getswitchinterval()) / per_round)

    started = threading.Event()
    finished: list[float] = []
    summaries: list[dict[str, object]] = []

    def worker() -> None:
        started.set()
        summaries.append(dict(playouts(game, n, seed=2)))
        finished.append(time.perf_counter())

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    python_work(rounds)
    main_done = time.perf_counter()
    thread.join()
    assert summaries and summaries[0]["playouts"] == n
    assert main_done < finished[0], "the main thread got no Python work done during playouts()"


# legal_mask()


def check_mask_against_is_legal(game: Go) -> None:
    height, width = len(game.board), len(game.board[0])
    for colour in (None, "black", "white"):
        mask = game.legal_mask() if colour is None else game.legal_mask(colour)
        assert isinstance(mask, np.ndarray)
        assert mask.dtype == np.bool_ and mask.shape == (height, width)
        expected = legality(game, colour if colour is not None else game.turn)
        assert mask.tolist() == expected


@SLOW
@given(game=any_games())
def test_legal_mask_agrees_with_is_legal(game: Go) -> None:
    check_mask_against_is_legal(game)


@SLOW
@given(board=positions(max_side=7, max_points=49), turn=st.sampled_from(["black", "white"]))
def test_legal_mask_agrees_with_the_reference_rules(board: Board, turn: str) -> None:
    game = Go.from_board(list(board), turn=as_colour(turn))
    for colour in ("black", "white"):
        mask = game.legal_mask(colour)
        assert isinstance(mask, np.ndarray)
        assert mask.tolist() == [
            [ref_is_legal(board, (r, c), colour) for c in range(len(board[0]))] for r in range(len(board))
        ]


def test_legal_mask_hand_cases() -> None:
    game = ko_game()
    mask = game.legal_mask()  # white to move, barred from the ko
    assert isinstance(mask, np.ndarray)
    assert mask.tolist() == [  # (1, 1) is ko, (0, 0) and (2, 0) suicide
        [False, False, False, True],
        [False, False, False, False],
        [False, False, False, True],
    ]
    black = game.legal_mask("black")
    assert isinstance(black, np.ndarray)
    assert black.tolist() == [[cell == "." for cell in row] for row in game.board]
    empty = Go(3, 5).legal_mask("w")
    assert isinstance(empty, np.ndarray) and empty.shape == (3, 5) and empty.all()
    full = Go.from_board(EYES_ONLY).legal_mask()
    assert isinstance(full, np.ndarray)
    assert full.tolist() == [[True, False, True, False], [False] * 4, [False] * 4, [False] * 4]


def test_legal_mask_is_a_copy() -> None:
    game = ko_game()
    before = full_state(game)
    mask = game.legal_mask()
    assert isinstance(mask, np.ndarray)
    mask[:] = True
    mask[0, 0] = False
    assert full_state(game) == before
    fresh = game.legal_mask()
    assert isinstance(fresh, np.ndarray) and fresh[0, 3] and not fresh[0, 0] and not fresh[1, 1]
    assert fresh is not game.legal_mask()


def test_legal_mask_without_numpy() -> None:
    """numpy is imported once, at the first call (test_threads_and_signals.py checks that), so a
    Python without numpy is tried in a fresh process: bytes, one per point, as the arrays."""
    games = [ko_game(), Go(2, 7), Go.from_board(EYES_ONLY, turn="white"), random_game(5, 3, [3, 9, 1, 4, 0, 8])]
    with_numpy = [(game.legal_mask(), game.legal_mask("black")) for game in games]
    code = (
        "import pickle, sys\n"
        "sys.modules['numpy'] = None\n"
        "games = pickle.load(sys.stdin.buffer)\n"
        "pickle.dump([(g.legal_mask(), g.legal_mask('black')) for g in games], sys.stdout.buffer)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(games), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    without_numpy = pickle.loads(done.stdout)
    for game, (default, black), (default_array, black_array) in zip(games, without_numpy, with_numpy):
        height, width = len(game.board), len(game.board[0])
        for mask, colour, array in ((default, game.turn, default_array), (black, "black", black_array)):
            assert isinstance(mask, bytes) and isinstance(array, np.ndarray)
            assert len(mask) == height * width
            assert set(mask) <= {0, 1}
            assert list(mask) == [int(flag) for row in legality(game, colour) for flag in row]
            assert list(mask) == [int(x) for x in array.flatten()]


# play_many()


def play_one_by_one(game: Go, turns: Iterable[Turn]) -> tuple[int, Optional[type[BaseException]]]:
    """What play_many should do, by move() and pass_turn(): turns played, error raised."""
    played = 0
    for turn in turns:
        if turn is None or (isinstance(turn, str) and turn.lower() == "pass"):
            game.pass_turn()
        else:
            try:
                game.move(turn)
            except IllegalMoveError:
                return played, None
            except ValueError:
                return played, ValueError
        played += 1
    return played, None


def check_play_many_like_one_by_one(game: Go, turns: list[Turn]) -> int:
    expected = copy.copy(game)
    count, error = play_one_by_one(expected, turns)
    if error is None:
        assert game.play_many(turns) == count
    else:
        with pytest.raises(error):
            game.play_many(turns)
    assert full_state(game) == full_state(expected)
    return count


@st.composite
def turn_sequences(draw: st.DrawFn, height: int, width: int) -> list[Turn]:
    """Coordinates in every form (some on occupied points, so illegal), and passes."""
    point = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    forms: list[Callable[[Point], Turn]] = [
        lambda p: kata(p, height),
        lambda p: gtp(p, height),
        lambda p: gtp(p, height).lower(),
        lambda p: p,
    ]
    turn = st.one_of(
        st.builds(lambda p, f: forms[f](p), point, st.integers(0, len(forms) - 1)),
        st.sampled_from([None, "pass", "PASS", "Pass"]),
    )
    return draw(st.lists(turn, max_size=3 * height * width))


@SLOW
@given(data=st.data(), height=st.integers(1, 6), width=st.integers(1, 6), opening=st.lists(st.integers(0, 50), max_size=10))
def test_play_many_is_move_by_move(data: st.DataObject, height: int, width: int, opening: list[int]) -> None:
    game = random_game(height, width, opening)
    turns = data.draw(turn_sequences(height, width))
    count = check_play_many_like_one_by_one(game, turns)
    # Continuing after an illegal move works like a fresh call on the rest.
    rest = data.draw(turn_sequences(height, width))
    check_play_many_like_one_by_one(game, turns[count + 1 :] + rest)


@SLOW
@given(data=st.data(), height=st.integers(2, 6), width=st.integers(2, 6))
def test_play_many_with_bad_coordinates_keeps_earlier_moves(data: st.DataObject, height: int, width: int) -> None:
    game = Go(height, width)
    turns = data.draw(turn_sequences(height, width))
    malformed: list[Turn] = [
        f"{height + 1}A", f"1{COLUMNS[width]}", (height, 0), (0, width), (-1, 0),  # off the board
        "ZZ", "", "5I", "I5", "0A", "pass!", "A", "5", "5 E",  # not coordinates at all
    ]
    bad = data.draw(st.sampled_from(malformed))
    expected = copy.copy(game)
    count, _ = play_one_by_one(expected, turns)
    turns = turns[:count]  # legal throughout
    expected_after = copy.copy(game)
    play_one_by_one(expected_after, turns)
    with pytest.raises(ValueError):
        game.play_many([*turns, bad, None])
    assert full_state(game) == full_state(expected_after)


def test_play_many_hand_cases() -> None:
    game = Go(9)
    assert game.play_many(["5E", "E3", (0, 0), None, "pass", "PaSs", "c7"]) == 7
    assert game.move_number == 7 and game.turn == "white"
    assert game.get_position("5E") == "x" and game.get_position("3E") == "o"
    assert game.board[0][0] == "x" and game.get_position("7C") == "x"  # 7 turns: c7 is black's
    assert game.play_many([]) == 0
    assert game.play_many(iter(["1B", "1J"])) == 2  # any iterable

    # Stops before an illegal move (occupied), which is left unplayed; the rest is ignored.
    game = Go(9)
    assert game.play_many(["5E", "3C", "5E", "4D"]) == 2
    assert snapshot(game) == (
        tuple(["." * 9] * 4 + ["....x...."] + ["." * 9] + ["..o......"] + ["." * 9] * 2),
        "black",
        2,
    )

    # Ko: black takes, white's immediate retake is refused, black's continuation not played.
    game = Go.from_board([".xo.", "xo.o", ".xo."])
    assert game.play_many([(1, 2), (1, 1), (0, 0)]) == 1
    assert game.turn == "white" and game.move_number == 1 and game.board[1] == list("x.xo")
    # After passes the ko may be retaken.
    assert game.play_many([None, None, (1, 1)]) == 3
    assert game.board[1] == list("xo.o")

    # Suicide stops it too.
    game = Go.from_board([".x", "x."], turn="white")
    assert game.play_many([(0, 0), (1, 1)]) == 0
    assert snapshot(game) == ((".x", "x."), "white", 0)


def test_play_many_bad_coordinate_hand_case() -> None:
    game = Go(9)
    with pytest.raises(ValueError):
        game.play_many(["5E", "3C", "10A", "4D"])
    assert game.move_number == 2 and game.get_position("3C") == "o" and game.get_position("4D") == "."
    with pytest.raises(ValueError):
        game.play_many(["4D", (9, 9)])
    assert game.move_number == 3 and game.turn == "white"
    with pytest.raises(ValueError):
        game.play_many(["4E", (1,)])  # type: ignore[list-item]
    assert game.move_number == 4 and game.get_position("4E") == "o"


def test_play_many_then_rollback() -> None:
    game = Go(5)
    turns: list[Turn] = ["3C", "2C", None, "4C", (0, 0), "pass"]
    assert game.play_many(turns) == 6
    one_by_one = Go(5)
    play_one_by_one(one_by_one, turns)
    assert history(game) == history(one_by_one)
    game.rollback(6)
    assert snapshot(game) == snapshot(Go(5))


# playouts(threads=...)


@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_playouts_give_the_same_summary_whatever_the_thread_count(seed: int) -> None:
    game = Go(9)
    game.move("5E", "3C", "7G")
    one_thread = playouts(game, 41, seed=seed, threads=1)
    for threads in (2, 3, 8, 41, 1000):
        assert playouts(game, 41, seed=seed, threads=threads) == one_thread, threads
    assert playouts(game, 41, seed=seed) == one_thread  # default: every core
    assert playouts(game, 41, seed=seed, threads=np.int64(2)) == one_thread
    assert playouts(game, 41, seed=seed + 1, threads=2) != one_thread


def test_playouts_spread_over_threads_leave_the_game_alone() -> None:
    game = Go(9)
    game.move("5E", "4E")
    before = (game.board, game.turn, game.move_number)
    summary = playouts(game, 300, seed=3, threads=4)
    assert summary["playouts"] == 300
    assert summary["black_wins"] + summary["white_wins"] + summary["draws"] == 300
    assert (game.board, game.turn, game.move_number) == before


@pytest.mark.parametrize("threads", [0, -1, -(2**70)])
def test_playouts_refuse_thread_counts_below_one(threads: int) -> None:
    with pytest.raises(ValueError, match=f"threads must be a positive int, not {threads}"):
        playouts(Go(5), 3, seed=1, threads=threads)


@pytest.mark.parametrize("threads", [True, 2.0, "2", [2]])
def test_playouts_refuse_thread_counts_that_are_not_ints(threads: object) -> None:
    with pytest.raises(TypeError, match="threads must be an int"):
        playouts(Go(5), 3, seed=1, threads=threads)  # type: ignore[arg-type]


def test_playouts_with_more_threads_than_playouts_or_cores_still_count_each_once() -> None:
    summary = playouts(Go(5), 3, seed=4, threads=2**80)
    assert summary == playouts(Go(5), 3, seed=4, threads=1)
    assert summary["playouts"] == 3
