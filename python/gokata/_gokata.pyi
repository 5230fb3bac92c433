"""Type stubs for the Rust extension module `gokata._gokata`."""

from typing import Union, final

from typing_extensions import TypeAlias

__all__ = ["Go", "IllegalMoveError", "__version__"]
__version__: str

_Coordinate: TypeAlias = Union[str, tuple[int, int]]
"""The kata form ``"7A"`` (row number, column letter), the GTP form ``"A7"``, or a 0-based
``(row, col)`` tuple indexing ``board``."""

class IllegalMoveError(ValueError):
    """A move that breaks the rules: occupied point, suicide or ko."""

@final
class Go:
    """A game of Go under the kata's rules."""

    def __new__(cls, height: int, width: int | None = None) -> Go: ...
    @property
    def board(self) -> list[list[str]]:
        """Rows of ``'.'``, ``'x'`` (black), ``'o'`` (white), top row first; a new list each time."""
    @property
    def size(self) -> dict[str, int]:
        """``{"height": h, "width": w}``."""
    @property
    def turn(self) -> str:
        """``"black"`` or ``"white"``: the side to move."""
    @property
    def move_number(self) -> int:
        """Turns (moves and passes) played and not rolled back."""
    def move(self, *coords: _Coordinate) -> None:
        """Plays each coordinate in turn for the side to move; raises on the first illegal one."""
    def pass_turn(self) -> None:
        """The side to move passes."""
    def handicap_stones(self, n: int) -> None:
        """Places ``n`` black handicap stones on a 9x9, 13x13 or 19x19 board before the first turn."""
    def get_position(self, coord: _Coordinate) -> str:
        """``'x'``, ``'o'`` or ``'.'`` at ``coord``."""
    def rollback(self, n: int) -> None:
        """Undoes the last ``n`` turns."""
    def reset(self) -> None:
        """Back to an empty board of the same size, black to move, no history."""
    def __copy__(self) -> Go: ...
    def __deepcopy__(self, memo: object) -> Go: ...
