"""A game on the server, mirrored by a local :class:`gokata.Go` and updated by its
:class:`~gokata.client.Player`'s reader thread. Re-exported by :mod:`gokata.client`."""

from __future__ import annotations

import logging
import operator
import re
import threading
import time
from typing import TYPE_CHECKING

import gokata
from gokata import Go
from gokata._frames import (
    COLUMNS,
    BadRequestError,
    Coordinate,
    Frame,
    GameOverError,
    NotYourTurnError,
    OutOfSyncError,
    Over,
    Played,
    Point,
    Score,
    _get,
    _opt,
    _other,
    _over,
    _played,
    _Request,
)
from gokata._game_terms import GameTerms, first_to_move, start_position

if TYPE_CHECKING:
    from gokata.client import Player

log = logging.getLogger("gokata.client")


class RemoteGame(GameTerms):
    """A game on the server, mirrored by a local :class:`gokata.Go`: ``board``, ``turn``,
    ``get_position`` and ``str()`` read it like the engine's. Updated in the background as the
    server announces turns; the server's state wins any disagreement. Its terms (``rated``,
    ``handicap``, ``komi``, ``time``, ``ranks``), ``clocks`` and, once over, ``ratings`` are
    as the server told them."""

    def __init__(self, player: Player, state: Frame) -> None:
        self._player = player
        self.id: str = _get(state, "id", str)
        self._height = _get(state, "size", int)
        self.black: str = _get(state, "black", str)
        self.white: str = _get(state, "white", str)
        self._init_terms(state)
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
        self._go = start_position(self._height, self.handicap)
        self._moves: list[Point] = []
        self._history: list[Played] = []
        self._to_move = first_to_move(self.handicap)
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
        """``"black"`` or ``"white"``; ``None`` while the game goes on, and for a draw."""
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
            self._go, self._moves, self._history = start_position(self._height, self.handicap), [], []
        for point in moves[len(self._moves) :]:
            if not self._replay(point, None):
                break
        if self._moves != moves or ["".join(row) for row in self._go.board] != rows:
            log.warning("game %s: the local board disagrees with the server's; adopting it", self.id)
            self._go = Go.from_board(rows, turn="black" if to_move == "black" else "white")
            self._moves = list(moves)
            del self._history[len(moves) :]
            first = first_to_move(self.handicap)
            for ply in range(len(self._history), len(moves)):
                color = first if ply % 2 == 0 else _other(first)
                self._history.append(Played(self.id, ply, color, moves[ply], (), _other(color)))
        self._to_move = to_move
        remaining = _opt(state, "remaining_ms", int)
        self._deadline = None if remaining is None else time.monotonic() + remaining / 1000
        self._merge_clocks(state)
        connected = state.get("connected")  # only while the game is on
        if isinstance(connected, dict):
            for color in ("black", "white"):
                self._connected[color] = _get(connected, color, bool)
        if _get(state, "status", str) == "over":
            self._over = _over(self.id, state, self._over)
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
        played = _played(self.id, frame)
        agrees = self._replay(played.point, played)
        if len(self._moves) == ply:
            return False  # the local engine refused it
        self._to_move = played.to_move
        if played.remaining_ms is not None:
            self._deadline = time.monotonic() + played.remaining_ms / 1000
        self._merge_clocks(frame)
        self._check_pending()
        return agrees

    def _on_over(self, frame: Frame) -> None:
        self._over = _over(self.id, frame)
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
                status = _result(self._over)
            head = (
                f"<RemoteGame {self.id} {self._height}x{self._height}: {self.black} (black) "
                f"vs {self.white} (white), {status}; I am {self.color}>"
            )
            return f"{head}\n{str(self._go).rstrip()}"


def _result(over: Over) -> str:
    """How a game ended, in a few words: ``black won by 3.5 points``, ``a draw``."""
    return over.how if over.winner is None else f"{over.winner} won {over.how}"
