"""Type stubs for the Rust extension module `gokata._gokata`."""

import os
from collections.abc import Iterable, Sequence
from typing import Literal, Optional, TypedDict, Union, final

import numpy
import numpy.typing
from typing_extensions import TypeAlias

__all__ = ["Go", "IllegalMoveError", "Server", "__version__", "playouts", "solve"]
__version__: str

_Coordinate: TypeAlias = Union[str, tuple[int, int]]
"""The kata form ``"7A"`` (row number, column letter), the GTP form ``"A7"``, or a 0-based
``(row, col)`` tuple indexing ``board``."""

_Color: TypeAlias = Literal["black", "white", "b", "w", "x", "o", "Black", "White", "B", "W", "X", "O", "BLACK", "WHITE"]
"""A colour; any case is accepted at run time."""

_Rows: TypeAlias = Union[str, Sequence[str], Sequence[Sequence[str]]]
"""A position: rows top first, each a str or a sequence of one-character strs; or one str of lines."""

class _Score(TypedDict):
    """Area score: stones plus empty regions that touch only that colour."""

    black: int
    white: int
    komi: float
    winner: Literal["black", "white", "draw"]

class _PlayoutResult(_Score):
    moves: int

class _PlayoutSummary(TypedDict):
    playouts: int
    black_wins: int
    white_wins: int
    draws: int
    mean_margin: float
    """Mean of black's area minus white's area and komi."""
    mean_moves: float

def playouts(
    game: Go, n: int, seed: int | None = None, max_moves: int | None = None, komi: float = 0.5
) -> _PlayoutSummary:
    """``n`` light random playouts from ``game``'s position, aggregated; releases the GIL."""

def solve(text: str) -> str:
    """Solves the puzzle "A Game of Go": the final board lines, or ``NOT_VALID``."""

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
    @staticmethod
    def from_board(rows: _Rows, turn: _Color | None = None, previous: _Rows | None = None) -> Go:
        """A game from a position, with ``turn`` to play (default black); ``previous`` is the
        position before the last move, which makes ko checkable from the first move."""
    def play(self, color: _Color, coord: _Coordinate) -> None:
        """``color`` plays at ``coord`` whoever's turn it is; then the other colour is to move."""
    def is_legal(self, coord: _Coordinate, color: _Color | None = None) -> bool:
        """Whether ``color`` (default: the side to move) may play at ``coord``."""
    def illegal_reason(self, coord: _Coordinate, color: _Color | None = None) -> str | None:
        """``"occupied"``, ``"suicide"``, ``"ko"``, ``"off-board"``, or ``None`` if legal."""
    def legal_moves(self, color: _Color | None = None) -> list[str]:
        """Every legal point for ``color``, kata form, row by row from the top."""
    def captures(self, coord: _Coordinate, color: _Color | None = None) -> list[str]:
        """The stones (kata form) a legal move at ``coord`` would capture."""
    def score(self, komi: float = 0.5) -> _Score:
        """Area score of the position, ``komi`` added to white; every stone counts as alive."""
    def playout(self, seed: int | None = None, max_moves: int | None = None, komi: float = 0.5) -> _PlayoutResult:
        """A light random playout from this position, on a copy; its final score and length."""
    def legal_mask(
        self, color: _Color | None = None
    ) -> Union[bytes, numpy.typing.NDArray[numpy.bool_]]:
        """Legal points as a (height, width) bool array with numpy, else bytes of 0/1."""
    def play_many(self, coords: Iterable[Optional[_Coordinate]]) -> int:
        """Plays coordinates (None or "pass" to pass) until an illegal one; returns how many."""
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
    def __getnewargs__(self) -> tuple[int, int]: ...
    def __getstate__(self) -> tuple[object, ...]: ...
    def __setstate__(self, state: tuple[object, ...]) -> None: ...
    def __copy__(self) -> Go: ...
    def __deepcopy__(self, memo: object) -> Go: ...

@final
class Server:
    """A game server running on background threads (the protocol: docs/protocol.md).

    Opens the database, binds the address (port 0 picks a free one) and serves until
    ``stop()``. A context manager. It installs no signal handler."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: Optional[int] = None,
        db: Union[str, "os.PathLike[str]"] = "gokata.sqlite3",
        move_time: Optional[float] = None,
    ) -> None: ...
    @property
    def url(self) -> str:
        """``http://HOST:PORT/``"""
    @property
    def ws_url(self) -> str:
        """``ws://HOST:PORT/ws``"""
    @property
    def port(self) -> int: ...
    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds for the server to stop; whether it has."""
    def stop(self) -> None:
        """Stops the server; raises RuntimeError if it had stopped on an error."""
    def __enter__(self) -> "Server": ...
    def __exit__(self, _kind: Optional[type[BaseException]] = None, _value: Optional[BaseException] = None, _traceback: Optional[object] = None) -> bool: ...
