"""Comparing two games by everything observable, turn by turn back to their start: shared by the
tests of pickling and of SGF records, which both must give back the same history."""

from __future__ import annotations

import pytest

from gokata import Go


def snapshot(game: Go) -> tuple[object, ...]:
    """Everything observable: board, turn, turn count, and every point's legality for both."""
    height, width = game.size["height"], game.size["width"]
    reasons = tuple(
        game.illegal_reason((row, col), color)
        for row in range(height)
        for col in range(width)
        for color in ("black", "white")
    )
    return (game.board, game.turn, game.move_number, reasons)


def assert_same_history(original: Go, restored: Go) -> None:
    while True:
        assert snapshot(restored) == snapshot(original)
        if original.move_number == 0:
            break
        original.rollback(1)
        restored.rollback(1)
    with pytest.raises(ValueError):
        restored.rollback(1)
