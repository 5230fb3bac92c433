"""Property tests: any game played through the API survives ``to_sgf`` then ``from_sgf`` with
the same history: the same position, side to move and legality at every turn as both are
rolled back to the start. Writing is deterministic, and the written text reads strictly.
(A game read from SGF also keeps the record it was read from: compared here is the game's
part of its state, ``history_state``.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gokata
from gokata import Go
from support.game_history import assert_same_history

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

Action = tuple[str, int, int, int]


def history_state(game: Go) -> tuple[object, ...]:
    """The game's part of its state: its history, without the SGF record it keeps."""
    return game.__getstate__()[:6]


def play(game: Go, actions: list[Action]) -> None:
    height, width = game.size["height"], game.size["width"]
    for kind, row, col, n in actions:
        point = (row % height, col % width)
        try:
            if kind == "move":
                game.move(point)
            elif kind == "play":
                game.play("black" if n % 2 else "white", point)
            elif kind == "pass":
                game.pass_turn()
            elif kind == "rollback":
                game.rollback(n % 3)
            elif kind == "handicap":
                game.handicap_stones(1 + n % 9)
        except ValueError:
            pass


actions = st.lists(
    st.tuples(
        st.sampled_from(["move"] * 8 + ["play", "pass", "rollback", "handicap"]),
        st.integers(0, 24),
        st.integers(0, 24),
        st.integers(0, 100),
    ),
    max_size=150,
)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 25), st.integers(1, 25), st.booleans(), actions)
def test_games_survive_sgf(height: int, width: int, square: bool, moves: list[Action]) -> None:
    game = Go(height, height if square else width)
    play(game, moves)
    text = game.to_sgf()
    assert "FF[4]" in text and "GM[1]" in text
    restored = Go.from_sgf(text)
    assert restored.to_sgf() == text
    assert history_state(Go.from_sgf(text.encode())) == history_state(game)
    assert_same_history(game, restored)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([9, 13, 19]), st.integers(1, 9), actions)
def test_handicap_games_survive_sgf(size: int, stones: int, moves: list[Action]) -> None:
    game = Go(size)
    game.handicap_stones(min(stones, 5 if size == 9 else 9))
    play(game, moves)
    restored = Go.from_sgf(game.to_sgf())
    assert restored.turn == game.turn
    with pytest.raises(ValueError):
        restored.handicap_stones(1)
    assert_same_history(game, restored)


def test_a_set_up_position_with_a_ko_ban_survives() -> None:
    game = Go.from_board([".xo.", "x.xo", ".xo.", "...."], turn="white", previous=[".xo.", "xo.o", ".xo.", "...."])
    assert game.illegal_reason("3B") == "ko"
    restored = Go.from_sgf(game.to_sgf())
    assert restored.illegal_reason("3B") == "ko"
    assert_same_history(game, restored)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(5, 19), actions), min_size=1, max_size=4))
def test_collections_survive(games: list[tuple[int, list[Action]]]) -> None:
    played = []
    for size, moves in games:
        game = Go(size)
        play(game, moves)
        played.append(game)
    read = gokata.read_sgf_collection(gokata.write_sgf_collection(played))
    assert [history_state(r.replay()) for r in read] == [history_state(g) for g in played]


sgf_pieces = st.sampled_from(
    ["(", ")", ";", "(;", "B[", "W[", "AB[", "AW[", "AE[", "PL[", "SZ[", "HA[", "KOBAN[", "C[", "]", "\\", ":",
     "aa", "bb", "cc", "tt", "dd:ff", "zz", "5", "9", "19:3", "B", "W", "\n", " ", "é", "\x00", "[", "x"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(sgf_pieces, max_size=60), st.booleans())
def test_any_text_reads_or_raises_sgf_error(pieces: list[str], as_bytes: bool) -> None:
    text = "".join(pieces)
    data: str | bytes = text.encode() if as_bytes else text
    try:
        gokata.read_sgf_collection(data)
    except gokata.SgfError as error:
        assert error.line >= 1 and error.column >= 1
    for game in gokata.read_sgf_collection(data, strict=False):
        nodes = [game.root]
        while nodes:
            node = nodes.pop()
            nodes.extend(node.children)
            _ = (node.move, node.properties, node.move_number)
            try:
                replayed = game.replay(node, strict=False)
            except gokata.SgfError:
                continue  # a board size out of range
            # Written back as read (problems included), it reads back to the same game.
            reread = Go.from_sgf(replayed.to_sgf(), strict=False)
            assert history_state(reread) == history_state(replayed)
        again = gokata.read_sgf_collection(game.to_sgf(), strict=False)
        assert len(again) == 1
