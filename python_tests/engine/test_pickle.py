"""Games survive pickling exactly: position, side to move, ko, handicap state and the whole
history that rollback walks back through."""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gokata
from gokata import Go, playouts
from support.game_history import assert_same_history

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def random_game(seed: int, height: int, width: int, turns: int) -> Go:
    rng = random.Random(seed)
    game = Go(height, width)
    for _ in range(turns):
        point = f"{rng.randint(1, height)}{COLUMNS[rng.randrange(width)]}"
        action = rng.random()
        try:
            if action < 0.08:
                game.pass_turn()
            elif action < 0.16:
                game.play(rng.choice(["black", "white"]), point)
            elif action < 0.22:
                game.rollback(rng.randint(0, 2))
            else:
                game.move(point)
        except ValueError:
            pass
    return game


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    height=st.integers(1, 7),
    width=st.integers(1, 7),
    turns=st.integers(0, 60),
)
def test_random_games_round_trip(seed: int, height: int, width: int, turns: int) -> None:
    game = random_game(seed, height, width, turns)
    restored = pickle.loads(pickle.dumps(game))
    assert restored is not game
    assert_same_history(game, restored)


def test_a_ko_from_the_previous_position_survives() -> None:
    game = Go.from_board(
        [".xo.", "x.xo", ".xo.", "...."], turn="white", previous=[".xo.", "xo.o", ".xo.", "...."]
    )
    game.move("1A", "1B")
    restored = pickle.loads(pickle.dumps(game))
    restored.rollback(2)
    assert restored.illegal_reason("3B") == "ko"


def test_handicap_is_remembered_as_used() -> None:
    game = Go(9)
    game.handicap_stones(2)
    restored = pickle.loads(pickle.dumps(game))
    assert restored.board == game.board and restored.turn == "black"
    with pytest.raises(ValueError, match="already placed"):
        restored.handicap_stones(1)


@pytest.mark.parametrize(
    "state",
    [
        "junk",
        (2, ["..."], "black", None, False, []),
        (1, ["x"], "black", None, False, []),
        (1, ["..", ".."], "black", None, False, [("black", 5, 0, "black")]),
        (1, ["..", ".."], "purple", None, False, []),
    ],
)
def test_foreign_states_are_refused_and_change_nothing(state: object) -> None:
    game = Go(3)
    game.move("2B")
    with pytest.raises(ValueError):
        game.__setstate__(state)  # type: ignore[arg-type]
    assert game.board[1] == [".", "x", "."] and game.move_number == 1


# Every protocol, and every game the public API can reach


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol(protocol: int) -> None:
    game = random_game(7, 5, 6, 40)
    game.play("white", "3C") if game.is_legal("3C", "white") else game.pass_turn()
    restored = pickle.loads(pickle.dumps(game, protocol))
    assert type(restored) is Go
    assert_same_history(game, restored)


SETUP_CELLS = st.sampled_from(".xo")


@st.composite
def reachable_games(draw: st.DrawFn) -> Go:
    """A game reached by any sequence of public calls, failing ones included: set up from a
    random position (or new), then moves, explicit colours, passes, handicap, rollback, reset."""
    side = draw(st.sampled_from([3, 5, 9]))
    if draw(st.booleans()):
        game = Go(side)
    else:
        position = st.lists(st.text(SETUP_CELLS, min_size=side, max_size=side), min_size=side, max_size=side)
        rows = draw(position)
        # The position before it: any position, or one move away (a ko ban from the start).
        previous = draw(st.one_of(st.none(), position, st.just(rows).map(lambda r: [row.replace(".", "x", 1) for row in r])))
        try:
            game = Go.from_board(rows, turn=draw(st.sampled_from(["black", "white"])), previous=previous)
        except ValueError:  # a chain without liberties
            game = Go(side)
    point = st.builds(lambda r, c: (r, c), st.integers(0, side - 1), st.integers(0, side - 1))
    action = st.one_of(
        st.tuples(st.just("move"), point),
        st.tuples(st.just("play"), st.sampled_from(["black", "white"]), point),
        st.tuples(st.just("pass")),
        st.tuples(st.just("handicap"), st.integers(0, 9)),
        st.tuples(st.just("rollback"), st.integers(0, 3)),
        st.tuples(st.just("reset")),
        st.tuples(st.just("play_many"), st.lists(st.one_of(point, st.none()), max_size=6)),
    )
    for step in draw(st.lists(action, max_size=30)):
        try:
            if step[0] == "move":
                game.move(step[1])
            elif step[0] == "play":
                game.play(step[1], step[2])
            elif step[0] == "pass":
                game.pass_turn()
            elif step[0] == "handicap":
                game.handicap_stones(step[1])
            elif step[0] == "rollback":
                game.rollback(step[1])
            elif step[0] == "reset":
                game.reset()
            else:
                game.play_many(step[1])
        except ValueError:
            pass
    return game


@settings(max_examples=300, deadline=None)
@given(game=reachable_games(), protocol=st.integers(0, pickle.HIGHEST_PROTOCOL))
def test_every_reachable_game_round_trips(game: Go, protocol: int) -> None:
    restored = pickle.loads(pickle.dumps(game, protocol))
    assert_same_history(game, restored)


def test_handicap_on_a_set_up_position_is_refused_and_the_game_still_pickles() -> None:
    # 5E, the fifth handicap point of 9x9, is surrounded by white: placed without checks it
    # was a black stone without liberties, and the game could no longer be unpickled.
    rows = ["." * 9] * 3 + ["....o....", "...o.o...", "....o...."] + ["." * 9] * 3
    game = Go.from_board(rows)
    with pytest.raises(ValueError, match="handicap stones go on an empty board"):
        game.handicap_stones(5)
    assert game.board == [list(row) for row in rows]
    assert_same_history(game, pickle.loads(pickle.dumps(game)))
    empty = Go.from_board(["." * 9] * 9)
    empty.handicap_stones(5)
    assert_same_history(empty, pickle.loads(pickle.dumps(empty)))


# Malformed states: each refused whole, the game unchanged

GOOD_STATE = (1, ["...", "...", "..."], "black", None, False, [("black", 1, 1, "black")])


@pytest.mark.parametrize(
    "state",
    [
        (True, *GOOD_STATE[1:]),  # a bool as the version
        (1.0, *GOOD_STATE[1:]),
        (1, "...\n...\n...", *GOOD_STATE[2:]),  # a str, not a list of rows
        (1, [True, "...", "..."], *GOOD_STATE[2:]),
        (*GOOD_STATE[:3], (True, False, "black"), *GOOD_STATE[4:]),  # bools as row and column
        (*GOOD_STATE[:3], (0, 0), *GOOD_STATE[4:]),
        (*GOOD_STATE[:4], 0, GOOD_STATE[5]),  # an int as the handicap flag
        (*GOOD_STATE[:4], None, GOOD_STATE[5]),
        (*GOOD_STATE[:5], [("black", True, False, "black")]),  # bools as row and column
        (*GOOD_STATE[:5], [("black", 1, None, "black")]),  # half a point: not a pass
        (*GOOD_STATE[:5], [("black", None, 1, "black")]),
        (*GOOD_STATE[:5], [("black", 1.0, 1, "black")]),
        (*GOOD_STATE[:5], [("black", -1, 1, "black")]),
        (*GOOD_STATE[:5], [("black", 1, 1)]),
        (*GOOD_STATE[:5], [["black", 1, 1, "black", None]]),
        (*GOOD_STATE[:5], [("black", 1, 1, "black", True)]),  # a legal move marked as breaking the rules
        (*GOOD_STATE[:5], [("black", 1, 1, "black", 1)]),
        (*GOOD_STATE[:5], [("black", None, None, "black", True)]),
        (*GOOD_STATE[:5], "turns"),
        GOOD_STATE[:5],
        (*GOOD_STATE, None),
        list(GOOD_STATE),
        (1, ["...."] * 4, "black", None, False, [("black", 4, 0, "black")]),  # another size, a move off it
        (1, ["...."] * 4, "black", None, False, [("black", 0, 0, "black"), ("white", 0, 0, "white")]),  # occupied
        (1, [], *GOOD_STATE[2:]),
        None,
    ],
)
def test_malformed_states_are_refused(state: object) -> None:
    game = Go(3)
    game.__setstate__(GOOD_STATE)  # the good one is taken
    assert game.board[1] == [".", "x", "."] and game.turn == "white" and game.move_number == 1
    game.move("1A")
    with pytest.raises(ValueError):
        game.__setstate__(state)  # type: ignore[arg-type]
    assert game.board[2] == ["o", ".", "."] and game.move_number == 2
    assert game.size == {"height": 3, "width": 3} and repr(game) == "<Go 3x3, black to move, 2 turns played>"


def test_the_good_state_of_the_malformed_ones_replays_a_pass_too() -> None:
    game = Go(3)
    game.__setstate__((*GOOD_STATE[:5], [("black", None, None, "black")]))
    assert game.move_number == 1 and game.turn == "white" and game.board == [["."] * 3] * 3


# A state of another size: the game becomes that game, size and all, as Python objects do


@settings(max_examples=100, deadline=None)
@given(game=reachable_games(), other=reachable_games())
def test_a_state_of_any_size_replaces_the_whole_game(game: Go, other: Go) -> None:
    # It was refused: "the state is of a 19x19 game, not of this 9x9 one".
    game.__setstate__(other.__getstate__())
    assert game.size == other.size and repr(game) == repr(other)
    assert pickle.dumps(game) == pickle.dumps(other)
    for color in ("black", "white"):
        assert game.legal_moves(color) == other.legal_moves(color)
        assert bytes(game.legal_mask(color)) == bytes(other.legal_mask(color))
    assert_same_history(other, game)


def test_a_game_of_another_size_plays_on_after_setstate() -> None:
    nineteen = Go(19)
    nineteen.move("16D", "4Q")
    game = Go(9)
    game.move("5E")
    game.__setstate__(nineteen.__getstate__())
    assert game.size == {"height": 19, "width": 19} and len(game.board) == 19
    game.move("17C", "19T")  # off a 9x9 board
    assert game.get_position("19T") == "o" and game.captures("1A") == [] and game.move_number == 4
    assert gokata.svg(game, marks=["19T"]).count('class="stone') == 4
    assert playouts(game, 3, seed=1)["playouts"] == 3 and game.playout(seed=1)["moves"] > 0
    game.rollback(4)
    assert game.board == Go(19).board
    game.__setstate__(Go(2, 3).__getstate__())
    assert game.size == {"height": 2, "width": 3} and Go.__getnewargs__(game) == (2, 3)
    with pytest.raises(ValueError, match="off the board"):
        game.move("3A")


class Resizing:
    """A coordinate whose ``__index__`` gives the game the state of another size ``times``
    times: reading the arguments changes the size they are read against."""

    def __init__(self, game: Go, value: int, times: int) -> None:
        self.game, self.value, self.times = game, value, times
        self.sizes = [Go(9).__getstate__(), Go(5).__getstate__()]

    def __index__(self) -> int:
        if self.times > 0:
            self.times -= 1
            self.game.__setstate__(self.sizes[self.times % 2])
        return self.value


def test_arguments_are_read_again_against_the_size_they_changed_to() -> None:
    game = Go(19)
    game.move((Resizing(game, 8, times=1), 8))  # read on 19x19, which the reading made 9x9
    assert game.size == {"height": 9, "width": 9} and game.move_number == 1
    assert game.get_position("1J") == "x"
    game = Go(19)
    with pytest.raises(ValueError, match="off the board"):
        game.move((Resizing(game, 12, times=1), 0))  # row 12 is on 19x19, not on 9x9
    assert game.size == {"height": 9, "width": 9} and game.move_number == 0


def test_arguments_that_always_change_the_size_are_a_runtime_error() -> None:
    game = Go(19)
    with pytest.raises(RuntimeError, match="changed size each time"):
        game.move((Resizing(game, 0, times=100), 0))
    assert game.move_number == 0
