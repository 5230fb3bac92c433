"""OpenSpiel's Go (``pyspiel``, from PyPI: ``pip install '.[bench]'``) replaying the corpus, as the
Python benchmark's reference for the speed of one move played from Python.

Each game is a ``go`` state with the corpus's size and komi 0.5, its moves applied with
``state.apply_action`` in a plain loop; actions are computed before the clock starts, as the
kata coordinates are for gokata. The final boards are read back from the state's text and
checked against the corpus, so a replay that went wrong cannot pass for a fast one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
STONE_BY_PYSPIEL_CHAR = {"+": ".", "X": "x", "O": "o"}


def load_pyspiel() -> Any:
    """The ``pyspiel`` module; ImportError with the install command if it is missing."""
    try:
        import pyspiel
    except ImportError as error:
        raise ImportError(
            "the benchmark compares gokata with OpenSpiel's Go: pip install '.[bench]' "
            f"(open_spiel from PyPI) first ({error})"
        ) from error
    return pyspiel


def action(coord: Optional[str], size: int) -> int:
    """OpenSpiel's action for a kata coordinate such as ``"7A"`` (row numbers count from the
    bottom, as OpenSpiel's do), or for a pass (``None``): ``size * size``."""
    if coord is None:
        return size * size
    row_from_bottom = int(coord[:-1]) - 1
    return row_from_bottom * size + COLUMN_LETTERS.index(coord[-1])


def board_rows(state: Any, size: int) -> list[str]:
    """The state's board, rows top first, in the corpus's ``.``/``x``/``o`` letters."""
    rows = []
    for line in str(state).splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and len(fields[1]) == size:
            rows.append("".join(STONE_BY_PYSPIEL_CHAR[c] for c in fields[1]))
    if len(rows) != size:
        raise ValueError(f"could not read a {size}x{size} board from pyspiel's state:\n{state}")
    return rows


class PyspielReplay:
    """Fresh states for every game of some corpora, each with its action list."""

    def __init__(self, pyspiel: Any, games: Sequence[tuple[int, list[int]]]) -> None:
        self.games = [
            (size, pyspiel.load_game("go", {"board_size": size, "komi": 0.5}), actions)
            for size, actions in games
        ]
        self.states: list[Any] = []

    def fresh_states(self) -> None:
        self.states = [game.new_initial_state() for _, game, _ in self.games]

    def replay(self) -> None:
        for state, (_, _, actions) in zip(self.states, self.games):
            apply_action = state.apply_action
            for each in actions:
                apply_action(each)

    def first_wrong_board(self, expected: Sequence[list[str]]) -> Optional[str]:
        for number, (state, (size, _, _), rows) in enumerate(zip(self.states, self.games, expected)):
            got = board_rows(state, size)
            if got != rows:
                return f"pyspiel game {number} ({size}x{size}): final board {got} instead of {rows}"
        return None
