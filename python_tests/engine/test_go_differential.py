"""Differential tests: random sequences of actions (legal and illegal moves, passes, rollbacks
with valid and invalid counts, resets, handicap attempts, copies, position queries) played on
`gokata.Go` and on the reference model side by side. After every action the two must agree on
whether it raised and how (IllegalMoveError, for which reason and point, or a plain
ValueError), and on the board, the side to move and the move number.

The actions are drawn through a small `Chooser` interface so that the same generator is driven
by Hypothesis (which shrinks failures) and by seeded `random.Random` loops (many more games per
second, and long games on large boards).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gokata import Go, IllegalMoveError
from support.reference_model import COLUMNS, Coordinate, ReferenceGo, ReferenceIllegalMove, kata_name
from support.tracked_game import Snapshot, mentions, snapshot

T = TypeVar("T")

# Actions


@dataclass(frozen=True)
class Move:
    coords: tuple[Coordinate, ...]


@dataclass(frozen=True)
class Pass:
    pass


@dataclass(frozen=True)
class Rollback:
    n: int


@dataclass(frozen=True)
class Reset:
    pass


@dataclass(frozen=True)
class Handicap:
    n: int


@dataclass(frozen=True)
class Copy:
    deep: bool
    keep_original: bool


@dataclass(frozen=True)
class Probe:
    coord: Coordinate


Action = Union[Move, Pass, Rollback, Reset, Handicap, Copy, Probe]


# Choosing


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int:
        """An integer from ``low`` to ``high`` inclusive."""

    def chance(self, p: float) -> bool:
        """True with probability about ``p``."""


class RandomChooser:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


class DataChooser:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def chance(self, p: float) -> bool:
        return self.data.draw(st.integers(0, 999)) < p * 1000


def pick(chooser: Chooser, items: Sequence[T]) -> T:
    return items[chooser.integer(0, len(items) - 1)]


def choose_size(chooser: Chooser) -> tuple[int, int]:
    """Mostly small boards, where captures and ko are frequent; all sizes 1x1 to 25x25 occur."""
    roll = chooser.integer(0, 99)
    if roll < 50:
        return chooser.integer(1, 5), chooser.integer(1, 5)
    if roll < 75:
        return chooser.integer(1, 9), chooser.integer(1, 9)
    if roll < 88:
        side = pick(chooser, [9, 13, 19])
        return side, side
    return chooser.integer(1, 25), chooser.integer(1, 25)


def spell(chooser: Chooser, row: int, col: int, height: int) -> Coordinate:
    """The point in one of the accepted forms."""
    form = chooser.integer(0, 9)
    if form < 6:
        return kata_name(row, col, height)
    if form < 8:
        gtp = f"{COLUMNS[col]}{height - row}"
        return gtp if form == 6 else gtp.lower()
    return (row, col)


def bad_coordinate(chooser: Chooser, height: int, width: int) -> Coordinate:
    """A malformed or off-board coordinate."""
    col_letter = COLUMNS[chooser.integer(0, width - 1)]
    row_number = chooser.integer(1, height)
    candidates: list[Coordinate] = [
        f"{height + 1}{col_letter}",
        f"{height + chooser.integer(1, 30)}{col_letter}",
        f"0{col_letter}",
        f"{col_letter}0",
        f"{col_letter}{height + 1}",
        f"{row_number}I",
        f"I{row_number}",
        "66",
        "IA",
        "A",
        "1",
        "",
        (height, chooser.integer(0, width - 1)),
        (chooser.integer(0, height - 1), width),
    ]
    if width < len(COLUMNS):
        past = COLUMNS[chooser.integer(width, len(COLUMNS) - 1)]
        candidates += [f"{row_number}{past}", f"{past}{row_number}"]
    return pick(chooser, candidates)


def choose_coordinate(chooser: Chooser, board: list[list[str]]) -> Coordinate:
    height, width = len(board), len(board[0])
    roll = chooser.integer(0, 99)
    if roll < 6:
        return bad_coordinate(chooser, height, width)
    empties = [(r, c) for r in range(height) for c in range(width) if board[r][c] == "."]
    if roll < 85 and empties:
        row, col = pick(chooser, empties)
    else:
        row, col = chooser.integer(0, height - 1), chooser.integer(0, width - 1)
    return spell(chooser, row, col, height)


def choose_action(chooser: Chooser, model: ReferenceGo) -> Action:
    board = model.board
    height, width = len(board), len(board[0])
    turns = model.move_number
    if turns == 0 and height == width and height in (9, 13, 19) and chooser.chance(0.3):
        return Handicap(chooser.integer(-1, 10))
    roll = chooser.integer(0, 99)
    if roll < 68:
        count = 1 if chooser.integer(0, 9) < 8 else chooser.integer(0, 4)
        coords: list[Coordinate] = []
        for _ in range(count):
            coords.append(choose_coordinate(chooser, board))
        return Move(tuple(coords))
    if roll < 77:
        return Pass()
    if roll < 88:
        if chooser.chance(0.15):
            return Rollback(pick(chooser, [-1, -2, turns + 1, turns + 2, -(10**20), 10**20]))
        return Rollback(chooser.integer(0, min(turns, 4)) if chooser.chance(0.8) else chooser.integer(0, turns))
    if roll < 89:
        return Reset()
    if roll < 92:
        return Handicap(chooser.integer(-1, 10))
    if roll < 94:
        return Copy(deep=chooser.chance(0.5), keep_original=chooser.chance(0.5))
    return Probe(choose_coordinate(chooser, board))


# Playing on both


@dataclass
class Result:
    kind: str  # "ok", "illegal" or "invalid"
    error: Exception | None = None
    value: str | None = None


def apply(game: Go | ReferenceGo, action: Action) -> Result:
    try:
        value: str | None = None
        if isinstance(action, Move):
            game.move(*action.coords)
        elif isinstance(action, Pass):
            game.pass_turn()
        elif isinstance(action, Rollback):
            game.rollback(action.n)
        elif isinstance(action, Reset):
            game.reset()
        elif isinstance(action, Handicap):
            game.handicap_stones(action.n)
        elif isinstance(action, Probe):
            value = game.get_position(action.coord)
        else:
            raise AssertionError(action)
    except IllegalMoveError as error:
        return Result("illegal", error)
    except ValueError as error:
        return Result("invalid", error)
    return Result("ok", value=value)


class Pair:
    """`gokata.Go` and `ReferenceGo` driven in lockstep."""

    def __init__(self, height: int, width: int) -> None:
        self.size = (height, width)
        self.engine = Go(height, width)
        self.model = ReferenceGo(height, width)
        self.log: list[Action] = []
        self.retired: list[tuple[Go, Snapshot]] = []
        self.counts: dict[str, int] = {}
        self.compare()

    def describe(self) -> str:
        return f"Go{self.size}, actions: {self.log}"

    def step(self, action: Action) -> None:
        self.log.append(action)
        if isinstance(action, Copy):
            self.copy(action)
        else:
            expected = apply(self.model, action)
            actual = apply(self.engine, action)
            self.check(action, expected, actual)
            key = f"{type(action).__name__}:{expected.kind}"
            if isinstance(expected.error, ReferenceIllegalMove):
                key += f":{expected.error.reason}"
            self.counts[key] = self.counts.get(key, 0) + 1
        self.compare()

    def check(self, action: Action, expected: Result, actual: Result) -> None:
        assert actual.kind == expected.kind, (
            f"{action} -> engine {actual.kind} {actual.error!r}, model {expected.kind} {expected.error!r}; "
            + self.describe()
        )
        assert actual.value == expected.value, f"{action}: {actual.value!r} != {expected.value!r}; " + self.describe()
        if isinstance(expected.error, ReferenceIllegalMove):
            message = str(actual.error)
            for word in (expected.error.coordinate, expected.error.reason):
                assert mentions(message, word), f"{message!r} should mention {word}; " + self.describe()

    def copy(self, action: Copy) -> None:
        twin = copy.deepcopy(self.engine) if action.deep else copy.copy(self.engine)
        assert snapshot(twin) == snapshot(self.engine), self.describe()
        if action.keep_original:
            self.retired.append((twin, snapshot(twin)))
        else:
            self.retired.append((self.engine, snapshot(self.engine)))
            self.engine = twin
        self.model = copy.deepcopy(self.model)

    def compare(self) -> None:
        assert self.engine.board == self.model.board, self.describe()
        assert self.engine.turn == self.model.turn, self.describe()
        assert self.engine.move_number == self.model.move_number, self.describe()
        assert self.engine.size == self.model.size, self.describe()

    def finish(self) -> None:
        for game, expected in self.retired:
            assert snapshot(game) == expected, "a copy changed with its twin; " + self.describe()


def play_random_game(chooser: Chooser, size: tuple[int, int], actions: int) -> Pair:
    pair = Pair(*size)
    for _ in range(actions):
        pair.step(choose_action(chooser, pair.model))
    pair.finish()
    return pair


# Hypothesis


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_actions_agree_with_the_reference(data: st.DataObject) -> None:
    chooser = DataChooser(data)
    size = choose_size(chooser)
    play_random_game(chooser, size, chooser.integer(0, 60))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from([(1, 2), (1, 3), (1, 4), (2, 2), (2, 3), (3, 2), (3, 3), (1, 5), (4, 4)]))
def test_tiny_boards_agree_with_the_reference(data: st.DataObject, size: tuple[int, int]) -> None:
    play_random_game(DataChooser(data), size, data.draw(st.integers(0, 80)))


# Seeded loops


@pytest.mark.slow
def test_many_seeded_random_games() -> None:
    totals: dict[str, int] = {}
    sizes: set[tuple[int, int]] = set()
    for seed in range(2000):
        chooser = RandomChooser(seed)
        size = choose_size(chooser)
        sizes.add(size)
        pair = play_random_game(chooser, size, chooser.integer(20, 150))
        for key, count in pair.counts.items():
            totals[key] = totals.get(key, 0) + count
    # The games must have exercised every kind of outcome.
    for key in ("Move:ok", "Move:illegal:occupied", "Move:illegal:suicide", "Move:illegal:ko", "Move:invalid",
                "Pass:ok", "Rollback:ok", "Rollback:invalid", "Reset:ok", "Handicap:ok", "Handicap:invalid",
                "Probe:ok", "Probe:invalid"):
        assert totals.get(key, 0) > 0, (key, totals)
    assert totals["Move:illegal:ko"] >= 400, totals
    assert (1, 1) in sizes and any(h != w for h, w in sizes) and any(max(s) > 19 for s in sizes), sizes


@pytest.mark.parametrize("size", [(1, 1), (1, 2), (2, 1), (1, 7), (7, 1), (2, 2), (2, 5), (3, 3), (4, 4), (5, 5), (9, 6), (3, 19), (1, 25), (25, 2)])
def test_seeded_games_on_chosen_sizes(size: tuple[int, int]) -> None:
    for seed in range(15):
        play_random_game(RandomChooser(hash(size) ^ seed), size, 120)


def stone_count(board: list[list[str]]) -> int:
    return sum(cell != "." for line in board for cell in line)


def play_a_legal_move(pair: Pair, chooser: Chooser) -> None:
    """A random empty point, then another after each illegal attempt (every attempt is compared
    too); a pass if ten attempts fail."""
    height, width = pair.size
    for _ in range(10):
        board = pair.model.board
        empties = [(r, c) for r in range(height) for c in range(width) if board[r][c] == "."]
        if not empties:
            break
        row, col = pick(chooser, empties)
        pair.step(Move((spell(chooser, row, col, height),)))
        if pair.model.board != board:
            return
    pair.step(Pass())


@pytest.mark.parametrize(
    ("size", "turns"),
    [((9, 9), 700), ((13, 13), 900), ((19, 19), 1200), ((25, 25), 1500), ((25, 11), 900), ((11, 25), 900), ((1, 25), 300), ((25, 1), 300)],
)
def test_long_games(size: tuple[int, int], turns: int) -> None:
    """Long games of random legal moves that fill the board and capture large groups, checked
    at every action, then rolled back to the start a random stretch at a time."""
    chooser = RandomChooser(sum(size) * 7919 + turns)
    pair = Pair(*size)
    height, width = size
    largest_capture = 0
    while pair.model.move_number < turns:
        before = stone_count(pair.model.board)
        play_a_legal_move(pair, chooser)
        largest_capture = max(largest_capture, before + 1 - stone_count(pair.model.board))
    assert largest_capture >= (10 if min(size) > 1 else 2), pair.counts
    assert pair.counts.get("Move:ok", 0) > turns * 0.9, pair.counts
    while pair.model.move_number:
        pair.step(Rollback(chooser.integer(1, min(pair.model.move_number, 40))))
    assert pair.engine.board == [["."] * width for _ in range(height)]
    pair.step(Rollback(1))
    pair.finish()


@pytest.mark.parametrize("size", [(4, 4), (5, 5), (7, 7), (9, 9), (6, 11), (13, 13), (19, 19)])
def test_dense_games_with_rollbacks_in_between(size: tuple[int, int]) -> None:
    """Crowded positions with big captures, rolled back and replayed differently again and
    again, with copies taken along the way."""
    chooser = RandomChooser(hash(size) + 1)
    pair = Pair(*size)
    for _ in range(300 if max(size) < 13 else 150):
        roll = chooser.integer(0, 99)
        if roll < 8 and pair.model.move_number:
            pair.step(Rollback(chooser.integer(1, min(pair.model.move_number, 30))))
        elif roll < 10:
            pair.step(Copy(deep=chooser.chance(0.5), keep_original=chooser.chance(0.5)))
        else:
            # Fill the board for a while between rollbacks.
            for _ in range(chooser.integer(1, 12)):
                play_a_legal_move(pair, chooser)
    pair.finish()
