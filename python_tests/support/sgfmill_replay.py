"""sgfmill's reading and playing of an SGF game's main line: a reference no one here wrote, for
the SGF tests to compare positions with (on square boards, the only ones sgfmill plays)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sgfmill import boards, sgf, sgf_grammar  # type: ignore[import-untyped]

Stones = dict[tuple[int, int], str]
"""``{(row from the top, col): 'x' or 'o'}``."""


def main_line_boards(data: bytes | str, index: int = 0) -> Iterator[tuple[int, Any]]:
    """sgfmill's board after each node of game ``index``'s main line, with the number of moves
    (passes included) played so far. Moves onto an occupied point are carried out as the SGF
    specification says (sgfmill's board refuses them). The board is the same object each
    time: read it before asking for the next."""
    if isinstance(data, str):
        data = data.encode()
    game = sgf.Sgf_game.from_coarse_game_tree(sgf_grammar.parse_sgf_collection(data)[index])
    board = boards.Board(game.get_size())
    moves = 0
    for node in game.get_main_sequence():
        if node.has_setup_stones():
            board.apply_setup(*node.get_setup_stones())
        colour, move = node.get_move()
        if colour is not None:
            moves += 1
        if colour is not None and move is not None:
            row, col = move
            if board.get(row, col) is not None:
                board.apply_setup((), (), [(row, col)])
            board.play(row, col, colour)
        yield moves, board


def stones(board: Any) -> Stones:
    """The stones of an sgfmill board, rows counted from the top as in ``Go.board``."""
    size = board.side
    return {
        (size - 1 - row, col): "x" if colour == "b" else "o"
        for (colour, (row, col)) in board.list_occupied_points()
    }
