"""A record that breaks the rules (a move onto an occupied point, a suicide, a ko retaken),
read leniently: each such move is carried out as the SGF specification says and stays a turn
on record like any other. The history restarted at it: ``move_number`` counted from there and
``rollback`` could not go back past it. Now every turn of the record counts, and rolling back
goes through each position of the main line, as sgfmill plays it, down to the start. Checked on
the games of Debian's goban-original-games that break the rules, on small hand-made records,
and on random records full of rule breaks."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gokata
from gokata import Go
from support.game_history import assert_same_history
from support.sgf_collections import GOBAN, files_of
from support.sgfmill_replay import Stones, main_line_boards, stones

RULE_BREAKS = ("the point is occupied", "suicide", "ko (")


def position(game: Go) -> Stones:
    return {(r, c): cell for r, row in enumerate(game.board) for c, cell in enumerate(row) if cell != "."}


def expected_positions(data: bytes | str, index: int = 0) -> dict[int, tuple[Stones, str]]:
    """For each number of moves of the main line: sgfmill's position after them, and whose turn
    a replay of the record up to them says it is."""
    (record,) = gokata.read_sgf_collection(data, strict=False)[index : index + 1]
    turns = {node.move_number: record.replay(node, strict=False).turn for node in record.main_line()}
    return {moves: (stones(board), turns[moves]) for moves, board in main_line_boards(data, index)}


def assert_every_turn_rolls_back(game: Go, data: bytes | str, index: int = 0) -> None:
    """``game``, read leniently from ``data``, holds every move of the main line, and rolling
    it back one turn at a time goes through each position down to the start."""
    expected = expected_positions(data, index)
    assert game.move_number == max(expected)
    while True:
        assert (position(game), game.turn) == expected[game.move_number], game.move_number
        if game.move_number == 0:
            break
        game.rollback(1)
    with pytest.raises(ValueError, match="rollback"):
        game.rollback(1)


def assert_survives_pickling_and_sgf(game: Go) -> None:
    """A game with rule breaks on record writes to SGF that reads back leniently to the same
    game, and pickles, to the same history."""
    again = Go.from_sgf(game.to_sgf(), strict=False)
    assert again.__getstate__() == game.__getstate__()
    assert_same_history(game, pickle.loads(pickle.dumps(game)))


# The real games that break the rules


def rule_breaking_games() -> list[tuple[str, bytes, int]]:
    """Every game of goban-original-games whose main line breaks the rules."""
    found = []
    for path in files_of(GOBAN, ("*.sgf", "*.mgt")):
        data = path.read_bytes()
        for index, record in enumerate(gokata.read_sgf_collection(data, strict=False)):
            if any(problem in message for _, _, message in record.problems for problem in RULE_BREAKS):
                found.append((path.name, data, index))
    return found


def test_the_collection_games_that_break_the_rules_keep_every_turn() -> None:
    games = rule_breaking_games()
    assert len(games) == 5, [name for name, _, _ in games]  # 5 of the 596 games
    for name, data, index in games:
        record = gokata.read_sgf_collection(data, strict=False)[index]
        game = Go.from_sgf(data, strict=False) if index == 0 else record.replay()
        assert game.move_number == record.main_line()[-1].move_number, name
        assert_survives_pickling_and_sgf(record.replay())
        assert_every_turn_rolls_back(game, data, index)


# Small records made by hand

HAND_MADE = {
    # White plays where black stands (1A), then both play on.
    "occupied": "(;SZ[5];B[ae];W[ae];B[cc];W[dd])",
    # A white stone at 5A with no liberty: the specification removes it.
    "suicide": "(;SZ[5]AB[ba][ab];B[ee];W[aa];B[cc])",
    # A suicide of two stones: white's 3A joins 3B in black's corner.
    "suicide of a chain": "(;SZ[3]AB[ba][bb][ac];W[aa];B[cc];W[ab];B[ca])",
    # Black takes the ko, white retakes at once, and so does black.
    "ko": "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][cc][db];B[cb];W[bb];B[cb];W[ee])",
    # The first move already breaks the rules.
    "first move": "(;SZ[3]AB[bb];W[bb];B[aa])",
    # One break after another.
    "in a row": "(;SZ[3];B[aa];W[aa];B[aa];W[bb];B[bb])",
}


@pytest.mark.parametrize("record", list(HAND_MADE.values()), ids=list(HAND_MADE))
def test_hand_made_records_keep_every_turn(record: str) -> None:
    with pytest.raises(gokata.SgfError, match="illegal move"):
        Go.from_sgf(record)
    assert_survives_pickling_and_sgf(Go.from_sgf(record, strict=False))
    assert_every_turn_rolls_back(Go.from_sgf(record, strict=False), record)


def test_a_ko_retaken_against_the_rules_bans_as_any_capture_does() -> None:
    # White's retake of the ko (a break) takes one stone, so black may not retake at once
    # (black's retake is a break too); rolled back over it, the ban on white is back.
    game = Go.from_sgf(HAND_MADE["ko"], strict=False)
    game.rollback(2)  # before black's retake
    assert game.turn == "black" and game.illegal_reason("4C") == "ko"
    game.rollback(1)  # before white's
    assert game.turn == "white" and game.illegal_reason("4B") == "ko"
    game.rollback(1)  # before black took the ko
    assert game.turn == "black" and game.illegal_reason("4C") is None


# Random records, full of rule breaks

POINTS = st.sampled_from([""] + [a + b for a in "abcde" for b in "abcde"])


@settings(max_examples=150, deadline=None)
@given(size=st.integers(2, 5), moves=st.lists(POINTS, max_size=40))
def test_random_records_keep_every_turn(size: int, moves: list[str]) -> None:
    letters = "abcde"[:size]
    on_board = [move for move in moves if move == "" or (move[0] in letters and move[1] in letters)]
    record = f"(;SZ[{size}]" + "".join(f";{'BW'[i % 2]}[{move}]" for i, move in enumerate(on_board)) + ")"
    game = Go.from_sgf(record, strict=False)
    assert_survives_pickling_and_sgf(Go.from_sgf(record, strict=False))
    assert_every_turn_rolls_back(game, record)
