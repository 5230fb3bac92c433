"""What a ``Go`` read from SGF keeps of the record: the root's properties (players, ranks, komi,
result, date, event, game name, unknown properties) and the properties of the main line's nodes
(comments...), written back by ``to_sgf`` with the game's moves, those played after reading
included. The game information is typed and settable on any game, one made from scratch too.
``Go.from_sgf(record).to_sgf()`` kept the moves and lost everything else."""

from __future__ import annotations

import copy
import math
import pickle
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gokata
from gokata import Go, SgfGame

# The Go attribute, the SgfGame attribute that reads it back, and the SGF property.
TEXT_INFO = [
    ("black_player", "PB"),
    ("white_player", "PW"),
    ("black_rank", "BR"),
    ("white_rank", "WR"),
    ("result", "RE"),
    ("date", "DT"),
    ("event", "EV"),
    ("game_name", "GN"),
    ("rules", "RU"),
]
NAMES = [name for name, _ in TEXT_INFO] + ["komi"]

RECORD = (
    "(;GM[1]FF[3]SZ[9]PB[Honinbo Shusaku]PW[Gennan Inseki]BR[4d]WR[8d]KM[6.5]RE[B+2]DT[1846-09-11]"
    "EV[Ear-reddening]GN[x]RU[Japanese]XZ[kept as read]C[a comment\\] with a bracket]"
    ";B[ee]C[first move];W[gc]N[named]LB[ee:A];B[gd]TR[gc](;W[fc]C[main line];B[cg])(;W[cg]C[a variation]))"
)


def written(game: Go) -> SgfGame:
    (record,) = gokata.read_sgf_collection(game.to_sgf(), strict=False)
    return record


def node_properties(record: SgfGame) -> list[dict[str, list[str]]]:
    """The main line's properties, the root's but those the writer sets (FF, GM, CA)."""
    nodes = [node.properties for node in record.main_line()]
    nodes[0] = {k: v for k, v in nodes[0].items() if k not in ("FF", "GM", "CA")}
    return nodes


def history_state(game: Go) -> tuple[object, ...]:
    return game.__getstate__()[:6]


def test_a_record_read_is_written_back_whole() -> None:
    (record,) = gokata.read_sgf_collection(RECORD)
    game = Go.from_sgf(RECORD)
    for name, _ in TEXT_INFO:
        assert getattr(game, name) == getattr(record, name), name
    assert game.komi == record.komi == 6.5
    again = written(game)
    assert node_properties(again) == node_properties(record)
    assert history_state(again.replay()) == history_state(game)


def random_rewrite(game: Go, rng: random.Random) -> None:
    """Rolls back some turns and plays some moves."""
    game.rollback(rng.randint(0, game.move_number))
    for _ in range(rng.randint(0, 6)):
        legal = game.legal_moves()
        if legal and rng.random() < 0.85:
            game.move(rng.choice(legal))
        else:
            game.pass_turn()


def turns_of(game: Go) -> list[object]:
    turns = game.__getstate__()[5]
    assert isinstance(turns, list)
    return turns


def turns_in_common(game: Go, other: Go) -> int:
    pairs = zip(turns_of(game), turns_of(other))
    return next((i for i, (a, b) in enumerate(pairs) if a != b), min(game.move_number, other.move_number))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_moves_played_after_reading_are_written_after_the_record_kept(seed: int) -> None:
    (record,) = gokata.read_sgf_collection(RECORD)
    game = Go.from_sgf(RECORD)
    random_rewrite(game, random.Random(seed))
    kept = turns_in_common(game, Go.from_sgf(RECORD))
    again = written(game)
    nodes, original = node_properties(again), node_properties(record)
    # The root and the nodes of the turns the game still follows, as read; a plain move node
    # for each turn after them.
    assert nodes[: kept + 1] == original[: kept + 1]
    assert all(set(node) <= {"B", "W"} and len(node) == 1 for node in nodes[kept + 1 :])
    assert len(nodes) == game.move_number + 1
    assert history_state(again.replay()) == history_state(game)


def test_every_property_a_game_reads_is_kept_along_a_variation_too() -> None:
    (record,) = gokata.read_sgf_collection(RECORD)
    variation = record.main_line()[3].children[1]
    game = record.replay(variation)
    nodes = node_properties(written(game))
    assert nodes[-1] == {"W": ["cg"], "C": ["a variation"]} and len(nodes) == 5
    assert nodes[:4] == node_properties(record)[:4]


# The game information, typed and settable on any game

TEXTS = st.text(
    st.one_of(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")), st.sampled_from(" \n]\\:[")),
    max_size=20,
)
"""Texts that SGF keeps as they are (other white space is read back as a space)."""


@settings(max_examples=100, deadline=None)
@given(
    values=st.fixed_dictionaries({name: st.one_of(st.none(), TEXTS) for name, _ in TEXT_INFO}),
    komi=st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    size=st.integers(1, 19),
    read=st.booleans(),
)
def test_game_information_set_on_any_game_is_written(values: dict[str, str | None], komi: float | None, size: int, read: bool) -> None:
    game = Go.from_sgf(RECORD) if read else Go(size)
    for name, value in values.items():
        setattr(game, name, value)
    game.komi = komi
    record = written(game)
    for name, value in values.items():
        assert getattr(game, name) == getattr(record, name) == value, name
    assert game.komi == record.komi == komi
    assert ("KM[" in game.to_sgf()) == (komi is not None)
    assert history_state(record.replay()) == history_state(game)
    # Unknown properties and comments read stay.
    assert ("XZ[kept as read]" in game.to_sgf()) == read


def test_a_game_made_from_scratch_writes_komi_once_set() -> None:
    game = Go(9)
    game.move("5E")
    assert "KM[" not in game.to_sgf() and game.komi is None
    game.komi = 6.5
    assert written(game).komi == 6.5 and written(game).replay().move_number == 1
    game.komi = 7  # an int, or anything with __index__ or __float__
    assert game.komi == 7.0 and written(game).properties["KM"] == ["7"]
    game.komi = None
    assert "KM[" not in game.to_sgf()


BAD_VALUES: list[tuple[str, Any, type[Exception], str]] = [
    ("black_player", 5, TypeError, "black_player must be a str or None, not int"),
    ("game_name", b"x", TypeError, "game_name must be a str or None, not bytes"),
    ("komi", "6.5", TypeError, "komi must be a number, not str"),
    ("komi", True, TypeError, "komi must be a number, not bool"),
    ("komi", math.inf, ValueError, "komi must be a finite number, not inf"),
    ("komi", 10**400, ValueError, "komi must be a finite number"),
]


@pytest.mark.parametrize(
    ("name", "value", "error", "message"),
    BAD_VALUES,
    ids=["black_player-int", "game_name-bytes", "komi-str", "komi-bool", "komi-inf", "komi-huge"],
)
def test_bad_values_are_refused_and_change_nothing(name: str, value: Any, error: type[Exception], message: str) -> None:
    game = Go.from_sgf(RECORD)
    before = game.to_sgf()
    with pytest.raises(error, match=f"^{message}"):
        setattr(game, name, value)
    assert game.to_sgf() == before


def test_copies_and_pickles_keep_the_record_and_the_information() -> None:
    read = Go.from_sgf(RECORD)
    scratch = Go(5)
    scratch.black_player, scratch.komi = "someone", 0.5
    for game in (read, scratch):
        text = game.to_sgf()
        for other in (copy.copy(game), copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
            assert other.to_sgf() == text
            assert [getattr(other, name) for name in NAMES] == [getattr(game, name) for name in NAMES]
        # A state without the record (as pickled before, or of a game without one) clears it.
        game.__setstate__(Go(5).__getstate__())
        assert [getattr(game, name) for name in NAMES] == [None] * len(NAMES)
        assert game.to_sgf() == Go(5).to_sgf()


@pytest.mark.parametrize(
    "record",
    [
        None,
        "text",
        (True,),
        (1, "(;SZ[5])"),  # the flag is a bool
        (True, b"(;SZ[5])"),
        (True, "(;SZ[5])(;SZ[5])"),  # two games
        (True, ""),  # none
        (False, "(;PB[x];B[aa])"),  # information alone has no moves
    ],
)
def test_malformed_records_in_a_state_are_refused(record: object) -> None:
    game = Go.from_sgf(RECORD)
    before = (game.__getstate__(), game.to_sgf())
    with pytest.raises(ValueError, match="not a gokata.Go state"):
        game.__setstate__((*Go(5).__getstate__(), record))
    assert (game.__getstate__(), game.to_sgf()) == before


def test_reset_and_a_new_start_keep_the_information() -> None:
    game = Go.from_sgf("(;SZ[9]PB[black]KM[0.5]AB[ee]C[setup];W[cc])")
    game.reset()  # another start: the position is written anew, the information kept
    again = written(game)
    assert (again.black_player, again.komi) == ("black", 0.5)
    assert "AB" not in again.properties and again.replay().board == Go(9).board
    empty = Go.from_sgf("(;SZ[9]PB[black]C[empty])")
    empty.handicap_stones(2)
    again = written(empty)
    assert again.black_player == "black" and again.handicap == 2
    assert again.replay().board == empty.board
