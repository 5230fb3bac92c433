"""A client for ``gokata serve``: sign in, seek a game and play it from Python.

>>> from gokata.client import connect
>>> with connect("ws://localhost:8080/ws", "alice") as me:   # doctest: +SKIP
...     print(me.token)                # keep it: the only way back to the name "alice"
...     game = me.seek(size=9)         # waits until the server pairs us
...     while not game.is_over:
...         if game.turn == game.color:
...             game.move(game.legal_moves()[0])
...         else:
...             game.wait()            # the opponent's move, or the end of the game
...     print(game.winner, game.reason, game.score, me.wins, me.losses)

The connection runs on the ``websockets`` library's threading client (works in Jupyter too):
a background thread receives every frame and updates the games, so nothing is lost while the
program does something else. If the connection drops, the client signs in again with its token
(with back-off), resynchronises its games and resends a move that was not acknowledged; the
protocol makes that harmless. Protocol: docs/protocol.md. Needs ``pip install gokata[client]``.
"""

from __future__ import annotations

import itertools
import json
import logging
import operator
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Optional, TypedDict, Union
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import ConnectionClosed, InvalidURI, WebSocketException
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as _ws_connect

import gokata
from gokata import Go

if TYPE_CHECKING:  # defined in gokata._watching, which needs this module: exported lazily
    from gokata._watching import Lobby, LobbyWatch, Presence, WatchedGame

__all__ = [
    "BadRequestError",
    "BadTokenError",
    "ConnectionFailedError",
    "GameOverError",
    "IllegalMoveError",
    "Lobby",
    "LobbyWatch",
    "NameTakenError",
    "NotYourGameError",
    "NotYourTurnError",
    "OutOfSyncError",
    "Over",
    "Played",
    "Player",
    "Presence",
    "RateLimitedError",
    "Record",
    "RemoteGame",
    "Score",
    "ServerError",
    "UnknownGameError",
    "WatchedGame",
    "connect",
    "websocket_url",
]

_WATCHING = ("Lobby", "LobbyWatch", "Presence", "WatchedGame")


def __getattr__(name: str) -> Any:
    """The watching classes, from gokata._watching (which imports this module)."""
    if name in _WATCHING:
        from gokata import _watching

        return getattr(_watching, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

log = logging.getLogger("gokata.client")

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
DEFAULT_PORT = 8080
"""The port ``gokata serve`` listens on unless told otherwise: that of a server given as a bare
host, without a port."""
RECONNECT_FOR = 300.0
"""Seconds a lost connection is retried before the player gives up (default)."""

Frame = dict[str, Any]
Point = Optional[str]
Coordinate = Union[str, tuple[int, int]]


# Errors


class ServerError(ValueError):
    """A request the server refused (``{"type":"error"}``), or one the client refuses for the
    same kind of reason. ``code`` is the protocol's error code; nothing changed."""

    code: str
    message: str
    game: str | None
    reason: str | None
    frame: Frame | None

    def __init__(self, code: str, message: str, frame: Frame | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.frame = frame
        game = frame.get("game") if frame else None
        reason = frame.get("reason") if frame else None
        self.game = game if isinstance(game, str) else None
        self.reason = reason if isinstance(reason, str) else None


class BadRequestError(ServerError):
    """``bad_request``: malformed request, bad name or point, or a second hello."""


class NameTakenError(ServerError):
    """``name_taken``: the name is registered; sign in with its token."""


class BadTokenError(ServerError):
    """``bad_token``: the token does not belong to the name."""


class NotYourGameError(ServerError):
    """``not_your_game``: a move, pass or resignation in a game the player does not play."""


class NotYourTurnError(ServerError):
    """``not_your_turn``: a move or pass out of turn."""


class UnknownGameError(ServerError):
    """``unknown_game``: no game with that id."""


class RateLimitedError(ServerError):
    """``rate_limited``: too many frames; the server closed the connection."""


class IllegalMoveError(ServerError, gokata.IllegalMoveError):
    """``illegal_move``: occupied, suicide or ko (``reason``), at ``coord`` (kata form) for
    ``color`` (mine); also a :class:`gokata.IllegalMoveError`, as in the local engine. (A point
    off the board raises :class:`BadRequestError` before it is sent, as ``gokata.Go.move``
    raises a plain ``ValueError``.)"""


class GameOverError(ServerError):
    """(client side, ``game_over``) a turn or resignation in a game that is over."""


class OutOfSyncError(ServerError):
    """(client side, ``out_of_sync``) the game moved on before the turn arrived (another
    connection of the same player played); the game is resynchronised, the turn not played."""


class ConnectionFailedError(ConnectionError):
    """The server could not be reached, the player was closed, or a lost connection could not
    be restored."""


_ERRORS: dict[str, type[ServerError]] = {
    "bad_request": BadRequestError,
    "name_taken": NameTakenError,
    "bad_token": BadTokenError,
    "not_your_game": NotYourGameError,
    "not_your_turn": NotYourTurnError,
    "illegal_move": IllegalMoveError,
    "unknown_game": UnknownGameError,
    "rate_limited": RateLimitedError,
}


def _server_error(frame: Frame) -> ServerError:
    code = frame.get("code")
    code = code if isinstance(code, str) else "unknown"
    message = frame.get("message")
    message = message if isinstance(message, str) else code
    return _ERRORS.get(code, ServerError)(code, message, frame)


# What the server reports


class Score(TypedDict):
    """Area score after two passes: stones plus surrounded empty points; white adds komi."""

    black: float
    white: float
    komi: float


@dataclass(frozen=True)
class Record:
    """A player's wins and losses, and whether the player is a program (a bot)."""

    name: str
    wins: int
    losses: int
    bot: bool = False


@dataclass(frozen=True)
class Played:
    """A turn stored by the server: ``ply`` turns were played before it; ``point`` is ``None``
    for a pass; ``captured`` the stones taken; ``remaining_ms`` the time of ``to_move`` (``None``
    when the turn was learnt from a resynchronisation rather than announced)."""

    game: str
    ply: int
    color: str
    point: str | None
    captured: tuple[str, ...]
    to_move: str
    remaining_ms: int | None = None


@dataclass(frozen=True)
class Over:
    """The end of a game: ``winner`` ``"black"``/``"white"``, ``reason`` ``"passes"``,
    ``"timeout"`` or ``"resign"``, ``score`` after two passes (else ``None``) and both players'
    ``records`` with this result counted (``None`` when learnt from a game's state)."""

    game: str
    winner: str
    reason: str
    score: Score | None
    records: dict[str, Record] | None = None

    @property
    def how(self) -> str:
        """How the winner won, in the words of the server's page: ``"by resignation"``,
        ``"on time"``, ``"by 3.5 points"`` (after two passes)."""
        if self.score is not None:
            margin = abs(self.score["black"] - self.score["white"] - self.score["komi"])
            return f"by {margin:g} point{'' if margin == 1 else 's'}"
        return {"resign": "by resignation", "timeout": "on time"}.get(self.reason, f"by {self.reason}")


# Reading frames: the server's JSON is checked before use


def _get(frame: Frame, key: str, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    value = frame.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
        raise ValueError(f"field {key!r} of a {frame.get('type')!r} frame is {value!r}")
    return value


def _opt(frame: Frame, key: str, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    return None if frame.get(key) is None else _get(frame, key, kind)


def _score(value: Any) -> Score | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"score is {value!r}")
    number = (int, float)
    return Score(
        black=_get(value, "black", number),
        white=_get(value, "white", number),
        komi=_get(value, "komi", number),
    )


def _records(value: Any) -> dict[str, Record]:
    if not isinstance(value, dict):
        raise ValueError(f"records is {value!r}")
    records: dict[str, Record] = {}
    for color in ("black", "white"):
        entry = value.get(color)
        if not isinstance(entry, dict):
            raise ValueError(f"records.{color} is {entry!r}")
        records[color] = Record(
            _get(entry, "name", str),
            _get(entry, "wins", int),
            _get(entry, "losses", int),
            entry.get("bot") is True,
        )
    return records


def _other(color: str) -> str:
    return "white" if color == "black" else "black"


def websocket_url(url: str) -> str:
    """The WebSocket address of a server given as ``ws://host:port/ws``, ``http://host:port/``
    or ``host:port``: ``ws://host:port/ws`` (``wss`` for ``https``). A bare host, without a
    scheme or a port (``localhost``), is on ``gokata serve``'s default port, 8080; a URL with a
    scheme and no port keeps the scheme's own (80 or 443: a server behind a proxy). Raises
    ValueError naming what is wrong: the scheme, a missing host, a port that is not 1 to 65535."""
    text = url.strip()
    bare = "://" not in text
    if bare:
        text = "ws://" + text
    parts = urlsplit(text)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
    netloc = parts.netloc
    after_host = netloc.rsplit("@", 1)[-1]
    if after_host.startswith("["):  # an IPv6 address: [::1]:8080
        after_host = after_host.partition("]")[2]
    elif after_host.count(":") > 1:
        raise ValueError(f"not a server address: {url!r} (an IPv6 address goes in brackets: [::1]:8080)")
    if scheme is None or not parts.hostname:
        raise ValueError(f"not a server address: {url!r} (try ws://HOST:PORT/ws)")
    port_text = after_host.partition(":")[2]
    if ":" in after_host and not (port_text.isdigit() and port_text.isascii() and 1 <= int(port_text) <= 65535):
        raise ValueError(f"not a server address: {url!r}: the port must be 1 to 65535, not {port_text!r}")
    if bare and ":" not in after_host:
        netloc += f":{DEFAULT_PORT}"
    path = parts.path
    if scheme != parts.scheme.lower() or path in ("", "/"):
        path = path.rstrip("/")
        if not path.endswith("/ws"):
            path += "/ws"
    return urlunsplit((scheme, netloc, path, parts.query, ""))


# A game


class _Request:
    """A request waiting for its answer: a turn or resignation, a seek, a cancel, a sync."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None

    def resolve(self, result: Any = None, error: BaseException | None = None) -> None:
        if not self.done:
            self.done, self.result, self.error = True, result, error


class RemoteGame:
    """A game on the server, mirrored by a local :class:`gokata.Go`: ``board``, ``turn``,
    ``get_position`` and ``str()`` read it like the engine's. Updated in the background as the
    server announces turns; the server's state wins any disagreement."""

    def __init__(self, player: Player, state: Frame) -> None:
        self._player = player
        self.id: str = _get(state, "id", str)
        self._height = _get(state, "size", int)
        self.black: str = _get(state, "black", str)
        self.white: str = _get(state, "white", str)
        self.komi: float = _get(state, "komi", (int, float))
        self.move_time_ms: int | None = _opt(state, "move_time_ms", int)
        me = player.name.lower()
        self.color: str = "black" if self.black.lower() == me else "white"
        """My colour."""
        self.opponent: str = self.white if self.color == "black" else self.black
        """The other player's name."""
        bots = state.get("bots")
        self.bots: dict[str, bool] = {
            color: isinstance(bots, dict) and bots.get(color) is True for color in ("black", "white")
        }
        """Which players are programs (bots): ``{"black": False, "white": True}``."""
        self._go = Go(self._height)
        self._moves: list[Point] = []
        self._history: list[Played] = []
        self._to_move = "black"
        self._deadline: float | None = None  # time.monotonic() when the player to move runs out
        self._over: Over | None = None
        self._connected = {"black": True, "white": True}  # as the server last said
        self._pending: _Request | None = None  # my turn or resignation in flight
        self._syncing: _Request | None = None
        self._requests = threading.Lock()  # one request of this game at a time
        self._apply_state(state)

    # The position, read from the local engine

    @property
    def board(self) -> list[list[str]]:
        """Rows of ``'.'``, ``'x'`` (black), ``'o'`` (white), top row first."""
        with self._player._cond:
            return self._go.board

    @property
    def size(self) -> dict[str, int]:
        """``{"height": h, "width": w}``."""
        return {"height": self._height, "width": self._height}

    @property
    def turn(self) -> str:
        """``"black"`` or ``"white"``: the side to move."""
        with self._player._cond:
            return self._to_move

    @property
    def my_turn(self) -> bool:
        """Whether the game goes on and I am to move."""
        with self._player._cond:
            return self._over is None and self._to_move == self.color and not self._ending()

    @property
    def moves(self) -> list[str | None]:
        """Every turn in order, kata form, ``None`` for a pass."""
        with self._player._cond:
            return list(self._moves)

    @property
    def move_number(self) -> int:
        """Turns played (the next turn's ``ply``)."""
        with self._player._cond:
            return len(self._moves)

    @property
    def history(self) -> list[Played]:
        """Every turn with its colour and captures."""
        with self._player._cond:
            return list(self._history)

    def get_position(self, coord: Coordinate) -> str:
        """``'x'``, ``'o'`` or ``'.'`` at ``coord`` (kata ``"5E"``, GTP ``"E5"`` or ``(row, col)``)."""
        with self._player._cond:
            return self._go.get_position(coord)

    def legal_moves(self) -> list[str]:
        """Every legal point for the side to move, by the local engine."""
        with self._player._cond:
            return self._go.legal_moves()

    def local_copy(self) -> Go:
        """An independent :class:`gokata.Go` with this game's position and history."""
        with self._player._cond:
            return self._go.__copy__()

    # The result and the clock

    @property
    def is_over(self) -> bool:
        with self._player._cond:
            return self._over is not None

    @property
    def over(self) -> Over | None:
        """How the game ended, or ``None`` while it goes on."""
        with self._player._cond:
            return self._over

    @property
    def winner(self) -> str | None:
        with self._player._cond:
            return None if self._over is None else self._over.winner

    @property
    def reason(self) -> str | None:
        """``"passes"``, ``"timeout"``, ``"resign"``, or ``None`` while the game goes on."""
        with self._player._cond:
            return None if self._over is None else self._over.reason

    @property
    def score(self) -> Score | None:
        """``{"black", "white", "komi"}`` after two passes, else ``None``."""
        with self._player._cond:
            return None if self._over is None else self._over.score

    @property
    def remaining_ms(self) -> int | None:
        """The time left to the player to move, counted down locally from the server's last
        report; ``None`` when the game is over or the server gave no time."""
        with self._player._cond:
            if self._over is not None or self._deadline is None:
                return None
            return max(0, round((self._deadline - time.monotonic()) * 1000))

    @property
    def connected(self) -> dict[str, bool]:
        """Whether each player, by colour (``{"black": True, "white": False}``), has a connection
        to the server, as the server last said while the game was on (its state, then a
        ``presence`` frame at each change). A player who left has a clock that runs on."""
        with self._player._cond:
            return dict(self._connected)

    @property
    def opponent_connected(self) -> bool:
        """Whether my opponent has a connection to the server (see :attr:`connected`)."""
        with self._player._cond:
            return self._connected[_other(self.color)]

    @property
    def deadline(self) -> float | None:
        """When the player to move runs out of time, as ``time.time()``; ``None`` if unknown."""
        remaining = self.remaining_ms
        return None if remaining is None else time.time() + remaining / 1000

    # Playing

    def move(self, coord: Coordinate, *, timeout: float | None = None) -> Played:
        """Plays a stone at ``coord``; returns the server's ``played`` once the turn is stored.
        Raises :class:`IllegalMoveError` (a :class:`gokata.IllegalMoveError`, with ``coord``,
        ``color`` and ``reason``) with the server's message, :class:`BadRequestError` (a
        ``ValueError``) for a point malformed or off the board, :class:`NotYourTurnError`,
        :class:`GameOverError`, :class:`ServerError`, or ``TimeoutError`` after ``timeout``
        (default: the player's) seconds."""
        point = self._kata(coord)
        return self._turn({"type": "move", "game": self.id, "point": point}, point, timeout)

    def pass_turn(self, *, timeout: float | None = None) -> Played:
        """Passes; two passes in a row end the game."""
        return self._turn({"type": "pass", "game": self.id}, None, timeout)

    def resign(self, *, timeout: float | None = None) -> Over:
        """Resigns (on either player's turn); returns how the game ended."""
        frame: Frame = {"type": "resign", "game": self.id}
        with self._requests:
            with self._player._cond:
                if self._over is not None:
                    raise GameOverError("game_over", f"game {self.id} is over", frame)
                request = self._pending = _Request(frame)
            result: Over = self._player._request(request, timeout, self._forget)
            return result

    def wait(self, timeout: float | None = None) -> Played | Over | None:
        """Blocks until it is my turn or the game is over. Returns the :class:`Over` if the
        game is over, else the opponent's last turn (``None`` if there was none yet). Raises
        ``TimeoutError`` after ``timeout`` seconds."""

        def ready() -> bool:
            return self._over is not None or (
                self._to_move == self.color and self._pending is None and not self._ending()
            )

        with self._player._cond:
            self._player._wait(ready, timeout, self._opponent_to_move)
            if self._over is not None:
                return self._over
            for played in reversed(self._history):
                if played.color != self.color:
                    return played
            return None

    def result(self, timeout: float | None = None) -> Over:
        """Blocks until the game is over (whoever is to move); returns how it ended. Raises
        ``TimeoutError`` after ``timeout`` seconds."""
        with self._player._cond:
            self._player._wait(lambda: self._over is not None, timeout, self._playing)
            assert self._over is not None
            return self._over

    def sync(self, *, timeout: float | None = None) -> None:
        """Asks the server for the game's full state and adopts it."""
        request = _Request({"type": "sync", "game": self.id})
        with self._player._cond:
            self._syncing = request

        def forget() -> None:
            if self._syncing is request:
                self._syncing = None

        self._player._request(request, timeout, forget)

    def _turn(self, frame: Frame, point: Point, timeout: float | None) -> Played:
        with self._requests:
            with self._player._cond:
                if self._over is not None:
                    raise GameOverError("game_over", f"game {self.id} is over", frame)
                frame["ply"] = len(self._moves)
                request = self._pending = _Request(frame)
                request.result = point  # what the turn plays, until the answer replaces it
            result: Played = self._player._request(request, timeout, self._forget)
            return result

    def _forget(self) -> None:
        self._pending = None

    def _opponent_to_move(self) -> str | None:
        """What ``wait`` is waiting for, when it is the opponent's turn (under the lock)."""
        if self._over is not None or self._to_move == self.color:
            return None  # my turn in flight, or the end after two passes: the server's answer
        return f"{self.opponent} ({self._to_move}) has still not played in game {self.id}"

    def _playing(self) -> str | None:
        """What ``result`` is waiting for, while turns are played (under the lock)."""
        if self._over is not None or self._ending():
            return None
        return f"game {self.id} is still going on: {self._to_move} to play (turn {len(self._moves) + 1})"

    def _ending(self, turns: int | None = None) -> bool:
        """Whether the first ``turns`` turns (default all) end in two passes: the game is over,
        its ``over`` on the way."""
        last = self._moves[: len(self._moves) if turns is None else turns][-2:]
        return len(last) == 2 and last[0] is None and last[1] is None

    def _kata(self, coord: Coordinate) -> str:
        """``coord`` in the kata form the server writes, so that a turn can be recognised in a
        state. A point the local engine would refuse as malformed or off the board is refused
        here too, as :class:`BadRequestError` (a ``ValueError``, as ``gokata.Go.move`` raises)
        with the engine's message: the server is not asked."""
        try:
            with self._player._cond:
                self._go.get_position(coord)  # checks the point as Go.move would
        except ValueError as error:
            frame: Frame = {"type": "move", "game": self.id}
            raise BadRequestError("bad_request", str(error), frame) from None
        if isinstance(coord, tuple):
            row, col = (operator.index(n) for n in coord)
            return f"{self._height - row}{COLUMNS[col]}"
        kata = re.fullmatch(r"([0-9]+)([A-Z])", coord.upper())
        if kata:
            return f"{kata.group(1)}{kata.group(2)}"
        gtp = re.fullmatch(r"([A-Z])([0-9]+)", coord.upper())
        assert gtp is not None, coord  # the engine read it
        return f"{gtp.group(2)}{gtp.group(1)}"

    # Frames from the server (called by the reader thread, under the player's lock)

    def _apply_state(self, state: Frame) -> None:
        moves: list[Point] = [None if m is None else str(m) for m in _get(state, "moves", list)]
        rows: list[str] = _get(state, "board", list)
        to_move: str = _get(state, "to_move", str)
        if moves[: len(self._moves)] != self._moves:
            self._go, self._moves, self._history = Go(self._height), [], []
        for point in moves[len(self._moves) :]:
            if not self._replay(point, None):
                break
        if self._moves != moves or ["".join(row) for row in self._go.board] != rows:
            log.warning("game %s: the local board disagrees with the server's; adopting it", self.id)
            self._go = Go.from_board(rows, turn="black" if to_move == "black" else "white")
            self._moves = list(moves)
            del self._history[len(moves) :]
            for ply in range(len(self._history), len(moves)):
                color = "black" if ply % 2 == 0 else "white"
                self._history.append(Played(self.id, ply, color, moves[ply], (), _other(color)))
        self._to_move = to_move
        remaining = _opt(state, "remaining_ms", int)
        self._deadline = None if remaining is None else time.monotonic() + remaining / 1000
        connected = state.get("connected")  # only while the game is on
        if isinstance(connected, dict):
            for color in ("black", "white"):
                self._connected[color] = _get(connected, color, bool)
        if _get(state, "status", str) == "over":
            self._over = Over(
                self.id,
                _get(state, "winner", str),
                _get(state, "reason", str),
                _score(state.get("score")),
                self._over.records if self._over else None,
            )
        self._check_pending()
        if self._syncing is not None:
            self._syncing.resolve()

    def _replay(self, point: Point, played: Played | None) -> bool:
        """Plays a turn on the local engine and records it; False if the engine refuses it (then
        nothing is recorded) or disagrees with ``played`` on its captures (recorded anyway)."""
        color = self._go.turn
        try:
            if point is None:
                captured: list[str] = []
                self._go.pass_turn()
            else:
                captured = self._go.captures(point)
                self._go.move(point)
        except ValueError:
            return False
        agrees = True
        if played is None:
            played = Played(self.id, len(self._moves), color, point, tuple(captured), _other(color))
        elif sorted(captured) != sorted(played.captured) or color != played.color:
            log.warning("game %s: turn %d differs locally: %s", self.id, played.ply, captured)
            agrees = False  # kept, but the game is to be resynchronised
        self._moves.append(point)
        self._history.append(played)
        return agrees

    def _on_played(self, frame: Frame) -> bool:
        """Applies a ``played``; False if the game must be resynchronised."""
        ply = _get(frame, "ply", int)
        if ply < len(self._moves):
            return True  # already known, from a state
        if ply > len(self._moves):
            return False
        played = Played(
            self.id,
            ply,
            _get(frame, "color", str),
            _opt(frame, "point", str),
            tuple(_get(frame, "captured", list)),
            _get(frame, "to_move", str),
            _opt(frame, "remaining_ms", int),
        )
        agrees = self._replay(played.point, played)
        if len(self._moves) == ply:
            return False  # the local engine refused it
        self._to_move = played.to_move
        if played.remaining_ms is not None:
            self._deadline = time.monotonic() + played.remaining_ms / 1000
        self._check_pending()
        return agrees

    def _on_over(self, frame: Frame) -> None:
        records = _records(frame.get("records"))
        self._over = Over(
            self.id,
            _get(frame, "winner", str),
            _get(frame, "reason", str),
            _score(frame.get("score")),
            records,
        )
        self._deadline = None
        self._check_pending()

    def _on_presence(self, frame: Frame) -> None:
        color = _get(frame, "color", str)
        if color not in self._connected:
            raise ValueError(f"field 'color' of a 'presence' frame is {color!r}")
        self._connected[color] = _get(frame, "connected", bool)

    def _check_pending(self) -> None:
        """Resolves my turn or resignation in flight if the game now answers it."""
        request = self._pending
        if request is None or request.done:
            return
        kind = request.frame["type"]
        if kind == "resign":
            if self._over is not None:
                request.resolve(self._over)
            return
        ply: int = request.frame["ply"]
        if len(self._moves) > ply:
            if self._moves[ply] == request.result and self._history[ply].color == self.color:
                if self._over is None and self._ending(ply + 1):
                    return  # the second pass: answered when the game's end is announced
                request.resolve(self._history[ply])
            elif self._over is not None:
                request.resolve(error=GameOverError("game_over", f"game {self.id} is over", request.frame))
            elif self._history[ply].color != self.color:  # sent before the opponent's turn arrived
                message = f"turn {ply + 1} of game {self.id} was {self._history[ply].color}'s"
                request.resolve(error=NotYourTurnError("not_your_turn", message, request.frame))
            else:
                message = f"game {self.id} moved on to turn {len(self._moves) + 1}; the turn was not played"
                request.resolve(error=OutOfSyncError("out_of_sync", message, request.frame))
        elif self._over is not None:
            request.resolve(error=GameOverError("game_over", f"game {self.id} is over", request.frame))

    # Display

    def __str__(self) -> str:
        with self._player._cond:
            return str(self._go)

    def _repr_svg_(self) -> str:
        """The board as a picture, like ``Go``'s: Jupyter shows it for a game on its own line."""
        return gokata.svg(self.local_copy())

    def __repr__(self) -> str:
        with self._player._cond:
            if self._over is None:
                status = f"{self._to_move} to play (turn {len(self._moves) + 1})"
            else:
                status = f"{self._over.winner} won {self._over.how}"
            head = (
                f"<RemoteGame {self.id} {self._height}x{self._height}: {self.black} (black) "
                f"vs {self.white} (white), {status}; I am {self.color}>"
            )
            return f"{head}\n{str(self._go).rstrip()}"


# A signed-in player


class Player:
    """A signed-in player: its ``name``, ``token`` (keep it: the way back to the name), ``wins``,
    ``losses`` and ``games``. Made by :func:`connect`; a context manager that closes it."""

    def __init__(
        self,
        url: str,
        name: str,
        token: str | None,
        timeout: float,
        reconnect_for: float,
        bot: bool = False,
    ) -> None:
        self.url = websocket_url(url)
        self.name = name
        self.token: str | None = token
        self.bot = bot
        """Whether this player is a program (a bot): said in every hello, and kept for good."""
        self.wins = 0
        self.losses = 0
        self.timeout = timeout
        """Default seconds to wait for the server's answer to a request."""
        self.reconnect_for = reconnect_for
        self._cond = threading.Condition(threading.RLock())
        self._games: dict[str, RemoteGame] = {}
        self._ws: ClientConnection | None = None
        self._seek: _Request | None = None
        self._cancel: _Request | None = None
        self._outbox: list[Frame] = []
        self._closing = False
        self._failure: BaseException | None = None
        self._goodbye: str | None = None
        self._stop = threading.Event()
        self._requests = threading.Lock()  # one seek or cancel at a time
        self._reader: threading.Thread | None = None
        self._fetches: dict[str, _Request] = {}  # games asked for by fetch_game, by id
        self._refs = itertools.count(1)
        self._by_ref: dict[int, _Request] = {}  # requests in flight, by the ref they were sent with
        self._watches: dict[str, WatchedGame] = {}  # games watched, by id
        self._lobby: LobbyWatch | None = None  # the lobby, if watched

    # Public

    @property
    def games(self) -> list[RemoteGame]:
        """My unfinished games, oldest first."""
        with self._cond:
            return [game for game in self._games.values() if game._over is None]

    def game(self, game_id: str) -> RemoteGame:
        """One of my games, finished or not, by id."""
        with self._cond:
            if game_id not in self._games:
                raise KeyError(game_id)
            return self._games[game_id]

    def record(self) -> Record:
        """My wins and losses, as of the last result or sign-in."""
        with self._cond:
            return Record(self.name, self.wins, self.losses, self.bot)

    @property
    def connected(self) -> bool:
        """Whether the connection is up (False while reconnecting, and once closed)."""
        with self._cond:
            return self._ws is not None and not self._closing

    @property
    def failure(self) -> BaseException | None:
        """Why the lost connection was given up (the server was gone for ``reconnect_for``
        seconds, or refused the token), else ``None``; every wait then raises
        :class:`ConnectionFailedError`."""
        with self._cond:
            return self._failure

    def fetch_game(self, game_id: str, *, timeout: float | None = None) -> RemoteGame:
        """One of my games, finished or not, as the server has it now; asked of the server if
        this connection has not seen it (a game that ended while I was away, say). Raises
        :class:`UnknownGameError`, :class:`NotYourGameError` for someone else's game, or
        ``TimeoutError``."""
        with self._cond:
            known = self._games.get(game_id)
        if known is not None:
            known.sync(timeout=timeout)
            return known
        request = _Request({"type": "sync", "game": game_id})
        with self._cond:
            self._fetches[game_id] = request

        def forget() -> None:
            if self._fetches.get(game_id) is request:
                del self._fetches[game_id]

        game: RemoteGame | None = self._request(request, timeout, forget)
        if game is None:
            message = f"game {game_id} is not one of {self.name}'s"
            raise NotYourGameError("not_your_game", message, request.frame)
        return game

    def watch(self, game_id: str, *, timeout: float | None = None) -> WatchedGame:
        """Follows any game (anyone's; games are public): returns it once the server sent its
        state, as a :class:`WatchedGame`, which yields what happens in it, in order, each turn
        once, until its end (``for news in player.watch(id): ...``). Watching a game watched
        already returns the same object. At most 64 games at once (:class:`BadRequestError`
        past that); :class:`UnknownGameError`; ``TimeoutError``. Close it (or use it as a
        context manager) to stop."""
        from gokata import _watching

        return _watching.watch(self, game_id, timeout)

    def watch_lobby(self, *, timeout: float | None = None) -> LobbyWatch:
        """Follows the lobby: returns it once the server sent it, as a :class:`LobbyWatch`
        (its ``latest`` :class:`Lobby`: the seeks waiting and the games being played), which
        yields it again each time it changes (at most once a second). Close it to stop."""
        from gokata import _watching

        return _watching.watch_lobby(self, timeout)

    def seek(
        self,
        size: int | Sequence[int] = 9,
        color: str = "any",
        timeout: float | None = None,
        *,
        opponent: str = "human",
    ) -> RemoteGame:
        """Seeks a game of ``size`` (9, 13, 19, or a list of them, the preferred first) playing
        ``color`` (``black``, ``white``, ``any``) against ``opponent`` (``"human"``, the
        default; ``"computer"``, a bot; ``"any"``), and waits until the server pairs us;
        returns the new game. After ``timeout`` seconds the seek is withdrawn and
        ``TimeoutError`` raised (unless a game started meanwhile)."""
        if opponent not in ("human", "computer", "any"):
            raise ValueError(f"opponent must be 'human', 'computer' or 'any', not {opponent!r}")
        sizes: int | list[int] = size if isinstance(size, int) else list(size)
        request = _Request({"type": "seek", "size": sizes, "color": color, "opponent": opponent})
        with self._requests:
            with self._cond:
                self._seek = request
            try:
                self._send_request(request)
                with self._cond:
                    try:
                        self._wait(lambda: request.done, timeout)
                    except TimeoutError:
                        pass  # withdrawn below; a game may still start until then
                    else:
                        if request.error is not None:
                            raise request.error
                        game: RemoteGame = request.result
                        return game
                    cancel = self._cancel = _Request({"type": "cancel"})
                self._request(cancel, self.timeout, self._forget_cancel)
                with self._cond:
                    if request.done and request.error is None:
                        started: RemoteGame = request.result
                        return started
                raise TimeoutError(f"no {size}x{size} game in {timeout} s; the seek is withdrawn")
            except (TimeoutError, ValueError, ConnectionError):
                raise
            except BaseException:
                if not request.done:  # interrupted (Ctrl-C in a notebook, say): withdraw it
                    self._send({"type": "cancel"})
                raise
            finally:
                with self._cond:
                    if self._seek is request:
                        self._seek = None
                    ref = request.frame.get("ref")
                    if isinstance(ref, int):
                        self._by_ref.pop(ref, None)

    def cancel(self, *, timeout: float | None = None) -> None:
        """Withdraws my seek (harmless without one)."""
        with self._cond:
            cancel = self._cancel = _Request({"type": "cancel"})
        self._request(cancel, timeout, self._forget_cancel)

    def close(self) -> None:
        """Closes the connection; my unfinished games go on on the server."""
        with self._cond:
            if self._closing:
                return
            self._closing = True
            ws = self._ws
            self._ws = None
            self._cond.notify_all()
        self._stop.set()
        if ws is not None:
            ws.close()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)

    def __enter__(self) -> Player:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closing else "connected" if self._ws else "reconnecting"
        record = f"{_count(self.wins, 'win')}, {_count(self.losses, 'loss')}"
        unfinished = _count(len(self.games), "unfinished game")
        return f"<Player {self.name} at {self.url}: {record}, {unfinished}, {state}>"

    # Requests

    def _forget_cancel(self) -> None:
        self._cancel = None

    def _request(self, request: _Request, timeout: float | None, forget: Callable[[], None]) -> Any:
        """Sends a registered request, waits for its answer; ``forget`` unregisters it (called
        under the lock). Raises the answer's error or TimeoutError."""
        try:
            self._send_request(request)
            with self._cond:
                self._wait(lambda: request.done, self.timeout if timeout is None else timeout)
        finally:
            with self._cond:
                forget()
                self._by_ref.pop(request.frame["ref"], None)
        with self._cond:
            if request.error is not None:
                raise request.error
            return request.result

    def _send_request(self, request: _Request) -> None:
        """Sends a request with a ``ref`` of its own (kept if it is sent again after a
        reconnection), so that the server's refusal, which echoes it, finds it."""
        with self._cond:
            if "ref" not in request.frame:
                request.frame["ref"] = next(self._refs)
            self._by_ref[request.frame["ref"]] = request
        self._send(request.frame)

    def _wait(
        self,
        ready: Callable[[], bool],
        timeout: float | None,
        waiting: Callable[[], str | None] = lambda: None,
    ) -> None:
        """Waits (holding the lock) until ``ready()``; raises TimeoutError or the failure.
        ``waiting()`` says what is awaited when it is not the server's answer (the opponent's
        turn, say), for the TimeoutError's message."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not ready():
            if self._failure is not None:
                raise ConnectionFailedError(str(self._failure)) from self._failure
            if self._closing:
                raise ConnectionFailedError(f"the connection of {self.name} is closed")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(self._timed_out(waiting(), timeout))
            self._cond.wait(left)

    def _timed_out(self, waiting: str | None, timeout: float | None) -> str:
        """Why a wait of ``timeout`` seconds ended (under the lock): the connection is down,
        nothing happened that was awaited of others (``waiting``), or the server is silent."""
        if self._ws is None:
            return f"no answer in {timeout} s: the connection to {self.url} is lost; reconnecting"
        if waiting is not None:
            return f"after {timeout} s, {waiting} (the connection to the server is up)"
        return f"no answer from the server in {timeout} s"

    def _send(self, frame: Frame) -> None:
        """Sends a frame; while reconnecting it is dropped (pending requests are resent)."""
        with self._cond:
            ws = self._ws
        if ws is None:
            return
        try:
            ws.send(json.dumps(frame))
        except (ConnectionClosed, OSError):
            pass  # the reader notices and reconnects

    # The connection

    def _open(self, timeout: float) -> tuple[ClientConnection, Frame]:
        """Connects and says hello; returns the connection and the welcome."""
        deadline = time.monotonic() + timeout
        try:
            ws = _ws_connect(
                self.url, open_timeout=timeout, close_timeout=2, max_size=2**24
            ).__enter__()
        except InvalidURI as error:
            raise ValueError(f"not a server address: {self.url!r}") from error
        except (OSError, WebSocketException, TimeoutError) as error:
            raise ConnectionFailedError(f"cannot connect to {self.url}: {_describe(error)}") from error
        try:
            hello: Frame = {"type": "hello", "name": self.name}
            if self.bot:
                hello["bot"] = True
            if self.token is not None:
                hello["token"] = self.token
            ws.send(json.dumps(hello))
            while True:
                left = deadline - time.monotonic()
                try:
                    text = ws.recv(timeout=max(left, 0))
                except TimeoutError:
                    raise TimeoutError(f"no welcome from {self.url} in {timeout} s") from None
                frame = _parse(text)
                if frame is None:
                    continue
                if frame.get("type") == "welcome":
                    return ws, frame
                if frame.get("type") == "error":
                    raise _server_error(frame)
                if frame.get("type") == "goodbye":
                    raise ConnectionFailedError(f"{self.url} is shutting down")
        except ConnectionClosed as error:
            ws.close()
            raise ConnectionFailedError(f"{self.url} closed the connection: {_describe(error)}") from error
        except BaseException:
            ws.close()
            raise

    def _welcome(self, ws: ClientConnection, welcome: Frame) -> list[Frame]:
        """Adopts a welcome (under the lock); returns the frames to send to catch up."""
        self.name = _get(welcome, "name", str)
        token = welcome.get("token")
        if isinstance(token, str) and token:
            self.token = token
        self.wins = _get(welcome, "wins", int)
        self.losses = _get(welcome, "losses", int)
        self.bot = welcome.get("bot") is True
        self._ws = ws
        self._goodbye = None
        unfinished: set[str] = set()
        for state in _get(welcome, "games", list):
            new = isinstance(state, dict) and state.get("id") not in self._games
            game = self._adopt(state)
            if game is not None:
                unfinished.add(game.id)
                seek = self._seek
                if new and seek is not None and game._height in _sizes(seek.frame["size"]):
                    seek.resolve(game)  # it started while the connection was down
        catch_up: list[Frame] = []
        for game in self._games.values():
            if game._over is None and game.id not in unfinished:
                catch_up.append({"type": "sync", "game": game.id})  # it ended while away
            elif game._syncing is not None and not game._syncing.done:
                game._syncing.resolve()
            if game._pending is not None and not game._pending.done:
                catch_up.append(game._pending.frame)  # harmless if it was played meanwhile
        if self._seek is not None and not self._seek.done:
            catch_up.append(self._seek.frame)  # the server dropped it with the connection
        catch_up += [fetch.frame for fetch in self._fetches.values() if not fetch.done]
        if self._watches or self._lobby is not None:
            from gokata import _watching

            catch_up += _watching.resume(self)  # answered with each game's state, and the lobby
        if self._cancel is not None:
            self._cancel.resolve()
        self._cond.notify_all()
        return catch_up

    def _adopt(self, state: Any) -> RemoteGame | None:
        """Adds or updates one of my games from a STATE."""
        if not isinstance(state, dict):
            raise ValueError(f"a game state is {state!r}")
        game_id = _get(state, "id", str)
        if game_id in self._games:
            self._games[game_id]._apply_state(state)
            return self._games[game_id]
        names = (_get(state, "black", str).lower(), _get(state, "white", str).lower())
        if self.name.lower() not in names:
            return None  # someone else's game
        game = self._games[game_id] = RemoteGame(self, state)
        return game

    def _start(self, ws: ClientConnection, welcome: Frame) -> None:
        with self._cond:
            self._welcome(ws, welcome)
        self._reader = threading.Thread(target=self._read, name=f"gokata-client-{self.name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """The reader thread: receives frames until close(), reconnecting when needed."""
        while True:
            with self._cond:
                ws = self._ws
            if ws is None:
                if not self._reconnect():
                    return
                continue
            try:
                text = ws.recv()
            except Exception:  # ConnectionClosed, normally
                with self._cond:
                    if self._closing:
                        return
                    self._ws = None
                    self._cond.notify_all()
                continue
            frame = _parse(text)
            if frame is None:
                continue
            with self._cond:
                try:
                    self._dispatch(frame)
                except Exception as error:  # the reader must go on
                    log.warning("ignored a malformed %r frame: %s", frame.get("type"), error)
                outbox, self._outbox = self._outbox, []
                self._cond.notify_all()
            for out in outbox:
                self._send(out)

    def _reconnect(self) -> bool:
        """Signs in again with back-off until it works, close() or ``reconnect_for`` seconds;
        False if the player stops."""
        give_up = time.monotonic() + self.reconnect_for
        delay = 0.5 if self._goodbye else 0.05
        while not self._stop.wait(delay * (0.5 + random.random())):
            try:
                ws, welcome = self._open(min(self.timeout, max(give_up - time.monotonic(), 1)))
            except (ConnectionFailedError, TimeoutError) as error:
                if time.monotonic() < give_up:
                    log.info("reconnecting to %s: %s", self.url, error)
                    delay = min(delay * 2, 5.0)
                    continue
                failure: BaseException = error
            except Exception as error:  # bad_token after a server reset, say: hopeless
                failure = error
            else:
                try:
                    with self._cond:
                        if self._closing:
                            ws.close()
                            return False
                        catch_up = self._welcome(ws, welcome)
                except Exception as error:  # a malformed welcome
                    ws.close()
                    failure = error
                else:
                    for frame in catch_up:
                        self._send(frame)
                    return True
            with self._cond:
                self._failure = failure
                self._cond.notify_all()
            return False
        return False

    def _dispatch(self, frame: Frame) -> None:
        if self._watches or self._lobby is not None:
            from gokata import _watching

            if _watching.dispatch(self, frame):
                return
        kind = frame.get("type")
        game_id = frame.get("game")
        game = self._games.get(game_id) if isinstance(game_id, str) else None
        if kind == "played":
            if game is None:
                self._outbox.append({"type": "sync", "game": _get(frame, "game", str)})
            elif not game._on_played(frame):
                self._outbox.append({"type": "sync", "game": game.id})
        elif kind == "over":
            if game is None:
                self._outbox.append({"type": "sync", "game": _get(frame, "game", str)})
                return
            game._on_over(frame)
            records = game._over.records if game._over else None
            mine = records.get(game.color) if records else None
            if mine is not None:
                self.wins, self.losses = mine.wins, mine.losses
        elif kind in ("state", "start"):
            state = frame.get("game")
            started = self._adopt(state)
            if kind == "start" and started is not None and self._seek is not None:
                self._seek.resolve(started)
            state_id = state.get("id") if isinstance(state, dict) else None
            fetch = self._fetches.get(state_id) if isinstance(state_id, str) else None
            if kind == "state" and fetch is not None:
                fetch.resolve(started)  # None: not my game
        elif kind == "presence":
            if game is not None:
                game._on_presence(frame)
        elif kind == "seeking":
            pass
        elif kind == "cancelled":
            if self._cancel is not None:
                self._cancel.resolve()
            if self._seek is not None:
                self._seek.resolve(error=ServerError("cancelled", "the seek was withdrawn", frame))
        elif kind == "error":
            error = _server_error(frame)
            ref = frame.get("ref")
            request = self._by_ref.get(ref) if isinstance(ref, int) else None
            if request is None:  # answers nothing of ours in flight (a request already given up)
                log.warning("server error: %s %s", error.code, error.message)
                return
            if isinstance(error, IllegalMoveError) and request.frame.get("type") == "move":
                mover = self._games.get(request.frame.get("game", ""))
                error.coord = request.frame.get("point")
                if mover is not None:
                    error.color = "black" if mover.color == "black" else "white"
            request.resolve(error=error)
        elif kind == "goodbye":
            reason = frame.get("reason")
            self._goodbye = reason if isinstance(reason, str) else "goodbye"
        # welcome (only after hello), pong and unknown types: nothing to do


def _parse(text: str | bytes) -> Frame | None:
    if isinstance(text, bytes):
        return None
    try:
        frame = json.loads(text)
    except ValueError:
        log.warning("ignored a frame that is not JSON: %.80r", text)
        return None
    return frame if isinstance(frame, dict) else None


def _sizes(size: int | list[int]) -> list[int]:
    """The sizes of a seek's ``size``: one number or a list."""
    return [size] if isinstance(size, int) else size


def _count(n: int, noun: str) -> str:
    """``1 win``, ``2 wins``, ``0 losses``."""
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{n} {noun if n == 1 else plural}"


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def connect(
    url: str,
    name: str,
    token: str | None = None,
    *,
    timeout: float = 10.0,
    reconnect_for: float = RECONNECT_FOR,
    bot: bool = False,
) -> Player:
    """Signs in to the server at ``url`` (``ws://host:port/ws``, ``http://host:port/``,
    ``host:port``, or ``host`` on port 8080) as ``name``; ``token`` for a registered name (a new name gets a token:
    ``player.token``). ``timeout`` bounds the connection and each request's wait for its
    answer; a lost connection is retried for ``reconnect_for`` seconds. ``bot=True`` signs in
    as a program: the server marks the account as a bot for good, and pairs it only with those
    who asked for the computer (programs playing on a server must say so).

    Raises :class:`NameTakenError`, :class:`BadTokenError` or :class:`BadRequestError` (bad
    name) from the server, :class:`ConnectionFailedError` if it cannot be reached, and
    ``TimeoutError``."""
    player = Player(url, name, token, timeout, reconnect_for, bot)
    ws, welcome = player._open(timeout)
    player._start(ws, welcome)
    return player
