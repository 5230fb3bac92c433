"""Rollback and reset."""

from __future__ import annotations

import pytest

from support.reference_model import GoFactory
from support.tracked_game import AFTER_TAKE, KO_SHAPE, Tracked, empty, ko_taken, rows, set_up, snapshot

# A 5x5 game record (None is a pass) with captures, checked below.
RECORD: list[str | None] = [
    "3C", "4E", "1C", "4A", "2D", "2A", "5C", "2E", "1D", None, "2B", "1A",
    "5A", "1B", "5D", "5B", "3E", "3B", "3A", "4C", "2C", "5E", "1B", "2A",
]


def play_record(game: Tracked, record: list[str | None]) -> None:
    for turn in record:
        if turn is None:
            game.pass_turn()
        else:
            game.move(turn)


@pytest.fixture
def recorded(new_game: GoFactory) -> Tracked:
    game = Tracked(new_game(5))
    play_record(game, RECORD)
    return game


def test_the_record_has_captures(recorded: Tracked) -> None:
    boards = [h[0] for h in recorded.history]
    stones = [sum(cell != "." for line in board for cell in line) for board in boards]
    assert any(later < earlier for earlier, later in zip(stones, stones[1:])), stones


def test_rollback_from_the_kata(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("3B", "2B", "1B")
    game.rollback(3)
    assert game.board == empty(9)
    assert game.turn == "black"
    assert game.move_number == 0


@pytest.mark.parametrize("n", range(len(RECORD) + 1))
def test_rollback_n_restores_the_state_n_turns_back(recorded: Tracked, n: int) -> None:
    expected = recorded.history[len(recorded.history) - 1 - n]
    recorded.game.rollback(n)
    assert snapshot(recorded.game) == expected


def test_rollback_one_at_a_time_and_replay(recorded: Tracked) -> None:
    recorded.verify_history()


@pytest.mark.parametrize("n", [len(RECORD) + 1, len(RECORD) + 100, 10**30, -1, -2, -(10**30)])
def test_rollback_of_too_many_or_negative_turns_raises_and_changes_nothing(recorded: Tracked, n: int) -> None:
    recorded.invalid(lambda: recorded.game.rollback(n))
    recorded.verify_history()


def test_rollback_zero_does_nothing(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.rollback(0)
    game.move("5E")
    game.rollback(0)
    game.assert_unchanged()
    game.verify_history()


def test_rollback_on_a_new_game_raises(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.invalid(lambda: game.game.rollback(1))
    game.game.rollback(0)
    game.assert_unchanged()


def test_rollback_brings_captured_stones_back(new_game: GoFactory) -> None:
    game = set_up(new_game(3, 5), rows(
        ". x x x .",
        "x o o o .",
        ". x x x .",
    ))
    before = game.board
    game.move("2E")
    game.rollback(1)
    assert game.board == before
    assert game.game.turn == "black"
    game.move("2E")
    game.verify_history()


def test_rollback_counts_passes(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("3B")
    game.pass_turn()
    game.pass_turn()
    game.move("4B")
    game.rollback(2)  # undoes 4B and white's pass
    assert game.board == rows(*["." * 9] * 6, ". x . . . . . . .", "." * 9, "." * 9)
    assert game.game.turn == "black"
    assert game.game.move_number == 2
    game.rollback(1)  # undoes black's pass
    assert game.game.turn == "white"
    assert game.game.get_position("3B") == "x"
    game.verify_history()


def test_rollback_after_a_failed_ko_attempt_undoes_the_last_legal_move(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.illegal("3B", "ko")
    game.rollback(1)
    assert game.board == KO_SHAPE
    assert game.game.turn == "black"
    game.verify_history()


def test_rollback_restores_the_ko_ban_after_a_threat_exchange(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.move("1E", "5E", "3B")
    game.rollback(3)
    assert game.board == AFTER_TAKE
    game.illegal("3B", "ko")
    game.move("1E", "5E")
    game.rollback(1)
    game.move("5A")
    game.move("3B")  # legal: the board changed since white's last turn
    game.illegal("3C", "ko")
    game.verify_history()


def test_rollback_restores_the_ko_ban_lifted_by_passes(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.pass_turn()
    game.pass_turn()
    game.move("3B")
    game.rollback(1)
    game.move("3B")  # still legal: the passes are still on record
    game.rollback(3)
    assert game.board == AFTER_TAKE
    assert game.game.turn == "white"
    game.illegal("3B", "ko")
    game.verify_history()


def test_rollback_before_the_take_and_take_again(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.rollback(1)
    assert game.board == KO_SHAPE
    game.move("3C")
    game.illegal("3B", "ko")
    game.move("1A")
    game.rollback(2)
    game.pass_turn()  # black passes instead of taking
    game.move("3C")  # white fills the ko
    assert game.game.get_position("3C") == "o"
    game.illegal("3B", "occupied")
    game.verify_history()


def test_rollback_then_a_different_continuation(new_game: GoFactory) -> None:
    game = Tracked(new_game(9))
    game.move("5E", "4E", "3E")
    game.rollback(2)
    game.move("3E")
    assert game.game.get_position("3E") == "o"
    assert game.game.get_position("4E") == "."
    game.pass_turn()
    game.move("4E")
    assert game.game.get_position("4E") == "o"
    game.verify_history()


# Reset


def test_reset_from_the_kata(new_game: GoFactory) -> None:
    game = new_game(9)
    game.move("3B", "2B", "1B")
    game.reset()
    assert game.board == empty(9)
    assert game.turn == "black"


@pytest.mark.parametrize(("height", "width"), [(9, 9), (9, 6), (3, 19), (1, 5), (25, 25), (19, 19)])
def test_reset_clears_everything_but_the_size(new_game: GoFactory, height: int, width: int) -> None:
    game = new_game(height, width)
    if (height, width) in [(9, 9), (19, 19)]:
        game.handicap_stones(2)
    game.move("1A", "1B")
    game.pass_turn()
    game.reset()
    assert game.size == {"height": height, "width": width}
    assert snapshot(game) == (empty(height, width), "black", 0)
    with pytest.raises(ValueError):
        game.rollback(1)
    game.rollback(0)
    tracked = Tracked(game)
    tracked.move("1A", "1B")  # the points are free again
    tracked.verify_history()


def test_reset_clears_a_ko(new_game: GoFactory) -> None:
    game = ko_taken(new_game)
    game.game.reset()
    assert game.game.board == empty(5)
    fresh = set_up(game.game, KO_SHAPE)
    fresh.move("3C")
    fresh.illegal("3B", "ko")
