"""Type stubs for the Rust extension module `gokata._gokata`."""

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, Optional, SupportsIndex, TypedDict, Union, final

import numpy
import numpy.typing
from typing_extensions import TypeAlias

__all__ = [
    "Go",
    "IllegalMoveError",
    "Server",
    "SgfError",
    "SgfGame",
    "SgfNode",
    "__version__",
    "_VecGo",
    "_gtp",
    "analyze",
    "genmove",
    "playouts",
    "read_sgf_collection",
    "solve",
    "svg",
    "write_sgf_collection",
]
__version__: str

_Coordinate: TypeAlias = Union[str, tuple[SupportsIndex, SupportsIndex]]
"""The kata form ``"7A"`` (row number, column letter), the GTP form ``"A7"``, or a 0-based
``(row, col)`` tuple indexing ``board`` (ints, or numpy integers: anything with ``__index__``
but a bool)."""

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
    game: Go,
    n: SupportsIndex,
    seed: SupportsIndex | None = None,
    max_moves: SupportsIndex | None = None,
    komi: float = 0.5,
    threads: SupportsIndex | None = None,
) -> _PlayoutSummary:
    """``n`` light random playouts from ``game``'s position, aggregated, spread over
    ``threads`` threads (default: one per core); a seed gives the same summary whatever the
    number of threads. Releases the GIL and raises ``KeyboardInterrupt`` promptly on Ctrl-C."""

class _Candidate(TypedDict):
    move: str | None
    """A kata coordinate such as ``"5E"``, ``None`` for a pass."""
    visits: int
    """Simulations through the move."""
    win_rate: float
    """For the side to move."""
    prior: float
    """The win rate the priors alone give the move."""
    pv: list[str | None]
    """The expected line of play from this move on."""

def genmove(
    game: Go,
    playouts: SupportsIndex = 10000,
    seed: SupportsIndex | None = None,
    threads: SupportsIndex | None = None,
    komi: float = 0.5,
) -> str | None:
    """The bot's move for the side to move (Monte-Carlo tree search with RAVE, ``playouts``
    simulations, default 10,000, over ``threads`` threads, default one per core): a kata
    coordinate, or ``None`` to pass. Deterministic for a seed with one thread. Releases the GIL."""

def analyze(
    game: Go,
    playouts: SupportsIndex = 10000,
    seed: SupportsIndex | None = None,
    threads: SupportsIndex | None = None,
    komi: float = 0.5,
) -> list[_Candidate]:
    """The bot's candidate moves for the side to move after ``playouts`` simulations, most
    visited first. Releases the GIL."""

def _gtp(
    playouts: SupportsIndex | None = None,
    time: float | None = None,
    threads: SupportsIndex | None = None,
    seed: SupportsIndex | None = None,
    resign: bool = True,
    root_parallel: bool = False,
) -> None:
    """``gokata gtp``: a GTP session on standard input and output until ``quit`` or the end
    of the input."""

def solve(text: str) -> str:
    """Solves the puzzle "A Game of Go": the final board lines, or ``NOT_VALID``."""

class IllegalMoveError(ValueError):
    """A move that breaks the rules: occupied point, suicide or ko (a move may not recreate the
    position as it was before the last turn). The attributes are ``None`` on an error made
    from a message alone, ``IllegalMoveError("...")``."""

    coord: str | None
    """The point, in the kata form (``"7A"``)."""
    color: Literal["black", "white"] | None
    reason: str | None
    """``"occupied"``, ``"suicide"`` or ``"ko"`` (``str``, so that ``gokata.client``'s subclass
    can carry the server's reasons too)."""

@final
class Go:
    """A game of Go under the kata's rules: black first, captures, no suicide, and ko: a move
    may not recreate the position as it was before the last turn (a pass is a turn). One game
    may be shared between threads: each call is atomic (``play_many`` over an iterator other
    than a list or tuple: each move)."""

    def __new__(cls, height: SupportsIndex, width: SupportsIndex | None = None) -> Go: ...
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
    def playout(
        self, seed: SupportsIndex | None = None, max_moves: SupportsIndex | None = None, komi: float = 0.5
    ) -> _PlayoutResult:
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
    def handicap_stones(self, n: SupportsIndex) -> None:
        """Places ``n`` black handicap stones on an empty 9x9, 13x13 or 19x19 board before the
        first turn."""
    def get_position(self, coord: _Coordinate) -> str:
        """``'x'``, ``'o'`` or ``'.'`` at ``coord``."""
    def rollback(self, n: SupportsIndex) -> None:
        """Undoes the last ``n`` turns."""
    def reset(self) -> None:
        """Back to an empty board of the same size, black to move, no history; the game
        information stays."""
    def __reduce__(self) -> tuple[type[Go], tuple[int, int], tuple[object, ...]]: ...
    def __getnewargs__(self) -> tuple[int, int]: ...
    def __getstate__(self) -> tuple[object, ...]: ...
    def __setstate__(self, state: tuple[object, ...]) -> None:
        """Becomes the game of ``state`` (from ``__getstate__``), whatever its size, with its
        game information; a malformed state raises ``ValueError`` and changes nothing."""
    def __copy__(self) -> Go: ...
    def __deepcopy__(self, memo: object) -> Go: ...
    def __sizeof__(self) -> int:
        """Bytes of the object, its board's block and its turns on record."""
    @staticmethod
    def from_sgf(data: Union[str, bytes, bytearray], strict: bool = True) -> Go:
        """A game from SGF (str, or bytes decoded by ``CA[...]``, a byte-order mark or a
        guess): the main line of the file's first game, replayed with the engine's rules.
        ``strict`` raises ``SgfError`` at the file's first problem; ``strict=False`` reads what
        can be read (``read_sgf_collection`` lists the problems), and a move that breaks the
        rules is carried out as the record says, a turn on record like any other. A board past
        25x25 raises ``SgfError`` (a ``ValueError``) naming its size either way. The game keeps
        the record's root and main line properties (game information, comments, unknown
        properties) for ``to_sgf``."""
    def to_sgf(self) -> str:
        """The game as SGF (``FF[4]``, ``GM[1]``): its size, start position (handicap as ``HA``
        and ``AB``), whose turn, its game information, and every turn; ``Go.from_sgf`` reads it
        back to the same game (with ``strict=False`` if moves that broke the rules are on
        record). A game read from SGF writes the record's properties as read, its nodes as far
        as the game still follows them, then the turns played since."""
    @property
    def black_player(self) -> str | None:
        """``PB``: black's name. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @black_player.setter
    def black_player(self, value: str | None) -> None: ...
    @property
    def white_player(self) -> str | None:
        """``PW``: white's name. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @white_player.setter
    def white_player(self, value: str | None) -> None: ...
    @property
    def black_rank(self) -> str | None:
        """``BR``: black's rank. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @black_rank.setter
    def black_rank(self, value: str | None) -> None: ...
    @property
    def white_rank(self) -> str | None:
        """``WR``: white's rank. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @white_rank.setter
    def white_rank(self, value: str | None) -> None: ...
    @property
    def result(self) -> str | None:
        """``RE``: ``"B+R"``, ``"W+3.5"``, ``"0"`` (a draw)... Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @result.setter
    def result(self, value: str | None) -> None: ...
    @property
    def date(self) -> str | None:
        """``DT``. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @date.setter
    def date(self, value: str | None) -> None: ...
    @property
    def event(self) -> str | None:
        """``EV``. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @event.setter
    def event(self, value: str | None) -> None: ...
    @property
    def game_name(self) -> str | None:
        """``GN``. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @game_name.setter
    def game_name(self, value: str | None) -> None: ...
    @property
    def rules(self) -> str | None:
        """``RU``. Settable on any game (``None`` removes it); ``to_sgf`` writes it."""
    @rules.setter
    def rules(self, value: str | None) -> None: ...
    @property
    def komi(self) -> float | None:
        """``KM`` as a number. Settable on any game (``None`` removes it); ``to_sgf`` writes it.
        ``score`` and ``playout`` take their own ``komi``."""
    @komi.setter
    def komi(self, value: float | None) -> None: ...
    def _repr_svg_(self) -> str:
        """The picture Jupyter shows: ``gokata.svg(self)``."""

class SgfError(ValueError):
    """An SGF file that cannot be read (strict mode: its first problem). ``line`` and
    ``column`` (from 1; columns in characters) say where; both 0 on an error made from a
    message alone."""

    line: int
    column: int

_Problem: TypeAlias = tuple[int, int, str]
"""``(line, column, message)``: where in the file (from 1), and what."""

@final
class SgfNode:
    """A node of an ``SgfGame``'s tree."""

    @property
    def properties(self) -> dict[str, list[str]]:
        """Identifier to values (as text: escapes resolved), in file order."""
    @property
    def children(self) -> list[SgfNode]:
        """The variations from here; the first continues the main line."""
    @property
    def parent(self) -> SgfNode | None: ...
    @property
    def move(self) -> tuple[Literal["black", "white"], str | None] | None:
        """``("black", "4D")``, ``("white", None)`` for a pass, ``None`` without a move (or
        when its value is not a point on the board)."""
    @property
    def move_number(self) -> int:
        """Moves (``B`` and ``W``, passes included) from the root to here."""
    @property
    def line(self) -> int:
        """Where the node's ``;`` is in the file (from 1)."""
    @property
    def column(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SgfGame:
    """One game of an SGF collection as read: root properties, the tree of variations, the
    problems found, and the game at any node. Read-only."""

    @property
    def properties(self) -> dict[str, list[str]]:
        """The root's properties: identifier to values (as text), in file order."""
    @property
    def root(self) -> SgfNode: ...
    @property
    def problems(self) -> list[_Problem]:
        """Problems reading the game and replaying its main line, in file order."""
    @property
    def encoding(self) -> str:
        """The encoding the file was read in: ``"UTF-8"``, ``"GBK"``, ``"Shift_JIS"``..."""
    @property
    def size(self) -> dict[str, int]:
        """``{"height": h, "width": w}`` from ``SZ`` (19x19 without one)."""
    @property
    def black_player(self) -> str | None:
        """``PB``."""
    @property
    def white_player(self) -> str | None:
        """``PW``."""
    @property
    def black_rank(self) -> str | None:
        """``BR``."""
    @property
    def white_rank(self) -> str | None:
        """``WR``."""
    @property
    def result(self) -> str | None:
        """``RE``: ``"B+R"``, ``"W+3.5"``, ``"0"`` (a draw)..."""
    @property
    def komi(self) -> float | None:
        """``KM`` as a number (``None`` without one, or if it is not a number)."""
    @property
    def rules(self) -> str | None:
        """``RU``."""
    @property
    def date(self) -> str | None:
        """``DT``."""
    @property
    def handicap(self) -> int | None:
        """``HA`` as a number."""
    @property
    def event(self) -> str | None:
        """``EV``."""
    @property
    def game_name(self) -> str | None:
        """``GN``."""
    def main_line(self) -> list[SgfNode]:
        """The root, then each node's first child."""
    def replay(self, node: SgfNode | None = None, strict: bool | None = None) -> Go:
        """The game at ``node`` (default: the end of the main line). ``strict`` (default: as
        read) raises ``SgfError`` on a move the rules forbid; lenient, it is carried out as the
        record says."""
    def to_sgf(self) -> str:
        """The game as SGF: every property and variation as read (``FF[4]``, ``GM[1]``,
        ``CA[UTF-8]`` in the root)."""

def read_sgf_collection(data: Union[str, bytes, bytearray], strict: bool = True) -> list[SgfGame]:
    """Every game of an SGF collection. ``strict`` raises ``SgfError`` at the first problem;
    lenient, each game lists its ``problems`` (a file without a game gives ``[]``)."""

def write_sgf_collection(games: Iterable[Union[Go, SgfGame]]) -> str:
    """One SGF collection of the games given (``Go.to_sgf`` or ``SgfGame.to_sgf`` each)."""

def svg(
    game: Go,
    size: SupportsIndex | None = None,
    coordinates: bool = True,
    *,
    last_move: bool = True,
    marks: Iterable[_Coordinate] | None = None,
    fill: Mapping[_Coordinate, str] | None = None,
    style: Literal["wood", "plain"] = "wood",
    caption: bool = True,
) -> str:
    """An SVG picture of ``game``: board, lines, star points, coordinates, stones, the last move
    ringed, the ko point, a caption (side to move, captures), the board as text in ``<desc>``.
    ``size``: width in pixels; ``marks``: points to cross; ``fill``: points to shade. The
    picture's size depends on the board's and the options, never on the position."""

@final
class Server:
    """A game server running on background threads (the protocol: docs/protocol.md).

    Opens the database (an SQLite file, or PostgreSQL: ``"postgresql://USER@HOST:PORT/DBNAME"``
    or ``"host=... dbname=..."``, which several servers may share), binds the address (port 0
    picks a free one) and serves until ``stop()``. A context manager. It installs no signal
    handler. Per client address: at most ``max_connections_per_address`` open connections,
    ``registrations_per_hour`` new names, ``api_requests_per_second`` HTTP API requests; with
    ``behind_proxy``, the address is the last ``X-Forwarded-For`` entry. ``bot="NAME"`` adds the
    server's own computer player under that name (a bot's account; a person's name is refused),
    which seeks people who ask for the computer, on every size."""

    def __new__(
        cls,
        host: str = "127.0.0.1",
        port: SupportsIndex = 8080,
        db: Union[str, "os.PathLike[str]"] = "gokata.sqlite3",
        move_time: float = 300.0,
        *,
        max_connections_per_address: SupportsIndex = 64,
        registrations_per_hour: SupportsIndex = 20,
        api_requests_per_second: SupportsIndex = 20,
        behind_proxy: bool = False,
        bot: Optional[str] = None,
    ) -> Server: ...
    @property
    def url(self) -> str:
        """``http://HOST:PORT/``"""
    @property
    def ws_url(self) -> str:
        """``ws://HOST:PORT/ws``"""
    @property
    def database(self) -> str:
        """The database it serves from, any password hidden."""
    @property
    def port(self) -> int: ...
    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds for the server to stop; whether it has."""
    def stop(self) -> None:
        """Stops the server; raises RuntimeError if it had stopped on an error."""
    def __enter__(self) -> "Server": ...
    def __exit__(self, _kind: Optional[type[BaseException]] = None, _value: Optional[BaseException] = None, _traceback: Optional[object] = None) -> bool: ...

_BoolArray: TypeAlias = numpy.typing.NDArray[numpy.bool_]

@final
class _VecGo:
    """The batched environment behind ``gokata.env.VecGo``."""

    def __new__(
        cls,
        num_envs: SupportsIndex,
        size: SupportsIndex,
        komi: float,
        history: SupportsIndex,
        max_steps: Optional[SupportsIndex],
        rules: str,
        autoreset: str,
        layout: str,
        threads: Optional[SupportsIndex],
        seed: Optional[SupportsIndex],
    ) -> _VecGo: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def komi(self) -> float: ...
    @property
    def history(self) -> int: ...
    @property
    def max_steps(self) -> int: ...
    @property
    def rules(self) -> str: ...
    @property
    def autoreset(self) -> str: ...
    @property
    def layout(self) -> str: ...
    @property
    def threads(self) -> int: ...
    def reset(
        self, seed: Optional[SupportsIndex] = None
    ) -> tuple[_BoolArray, _BoolArray, numpy.typing.NDArray[numpy.int8]]:
        """New games on every board: ``(observation, legal_action_mask, to_play)``."""
    def step(
        self, actions: numpy.typing.NDArray[numpy.int64]
    ) -> tuple[
        _BoolArray,
        numpy.typing.NDArray[numpy.float32],
        _BoolArray,
        _BoolArray,
        _BoolArray,
        numpy.typing.NDArray[numpy.int8],
        Optional[_BoolArray],
    ]:
        """One step of every board: ``(observation, rewards, terminated, truncated,
        legal_action_mask, to_play, final_observation)``."""
    def random_legal_actions(self, seed: Optional[SupportsIndex] = None) -> numpy.typing.NDArray[numpy.int64]:
        """One uniformly random legal action per board."""
    def game(self, index: SupportsIndex) -> Go:
        """A copy of the game on board ``index``, with its history."""
    def games(self) -> list[Go]:
        """A copy of every board's game, with its history."""
