"""A game on the server, mirrored by a local :class:`gokata.Go` and updated by its
:class:`~gokata.client.Player`'s reader thread. Re-exported by :mod:`gokata.client`."""

from __future__ import annotations

import logging
import operator
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional, Union

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
    people_point,
)
from gokata._game_events import GameEvents, Marks, UndoRequest
from gokata._game_terms import GameTerms, first_to_move, start_position

if TYPE_CHECKING:
    from gokata.client import Player

log = logging.getLogger("gokata.client")


class RemoteGame(GameTerms, GameEvents):
    """A game on the server, mirrored by a local :class:`gokata.Go`: ``board``, ``turn``,
    ``get_position`` and ``str()`` read it like the engine's. Updated in the background as the
    server announces turns; the server's state wins any disagreement. Its terms (``rated``,
    ``handicap``, ``komi``, ``time``, ``ranks``, ``scoring``), ``clocks`` and, once over,
    ``ratings`` are as the server told them; so are its chat (``messages``) and, in a game
    scored by agreement, its scoring phase (``status``, ``marks``)."""

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
        self._resumed_at: int | None = None  # the turns played when the scoring phase was left
        self._marks_waited = 0  # the version of the marks wait() last returned
        self._states = 0  # STATEs adopted: one answers an acceptance that raced a change
        self._accepting: tuple[str, ...] | None = None  # the marks of my acceptance in flight
        self._accept_seen = False  # whether the server told it, accepted
        self._undo_mine: UndoRequest | None = None  # my request, waiting for the answer
        self._undo_accepted: bool | None = None  # how the last one was answered
        self._undo_theirs: UndoRequest | None = None  # the opponent's, waiting for mine
        self.on_undo_request: Optional[Callable[[UndoRequest], object]] = None
        """Called with the opponent's :class:`UndoRequest` when it comes, on the client's
        thread for callbacks (as ``on_chat``): it may answer (:meth:`answer_undo`)."""
        self._init_events()
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
            return self._over is None and self._to_move == self.color and self._playing_now()

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
        """Whether the game has ended (not while it is being scored: see :attr:`status`)."""
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
        """``"passes"``, ``"timeout"``, ``"resign"``, ``"score"`` (scored by agreement), or
        ``None`` while the game goes on."""
        with self._player._cond:
            return None if self._over is None else self._over.reason

    @property
    def score(self) -> Score | None:
        """``{"black", "white", "komi"}`` once the game ended by two passes or by agreement,
        else ``None`` (the scoring phase's score is in :attr:`marks`)."""
        with self._player._cond:
            return None if self._over is None else self._over.score

    @property
    def remaining_ms(self) -> int | None:
        """The time left to the player to move (in the scoring phase, to agree on the dead
        stones), counted down locally from the server's last report; ``None`` when the game
        is over or the server gave no time."""
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

    def wait(self, timeout: float | None = None) -> Union[Played, Over, Marks, None]:
        """Blocks until it is my turn, the game is over, or, in the scoring phase, the marks
        are new (its start, and each change since ``wait`` last returned them). Returns the
        :class:`Over` if the game is over, the :class:`Marks` in the scoring phase, else the
        opponent's last turn (``None`` if there was none yet). Raises ``TimeoutError`` after
        ``timeout`` seconds."""

        def ready() -> bool:
            return (
                self._over is not None
                or (self._status == "scoring" and self._marks_version != self._marks_waited)
                or (self._to_move == self.color and self._pending is None and self._playing_now())
            )

        with self._player._cond:
            self._player._wait(ready, timeout, self._opponent_to_move)
            if self._over is not None:
                return self._over
            if self._status == "scoring" and self._marks is not None:
                self._marks_waited = self._marks_version
                return self._marks
            for played in reversed(self._history):
                if played.color != self.color:
                    return played
            return None

    def result(self, timeout: float | None = None) -> Over:
        """Blocks until the game ends (whoever is to move, and through a scoring phase until
        the players agree); returns how it ended. Raises ``TimeoutError`` after ``timeout``
        seconds. (:attr:`winner`, :attr:`reason` and :attr:`score` answer at once instead:
        ``None`` while the game goes on.)"""
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

    # Taking back a turn

    def undo(self, *, timeout: float | None = None) -> None:
        """Asks the opponent to take back my last turn (it must be the last turn played: the
        opponent is to move). Returns once the server has the request, without waiting for the
        answer: :attr:`undo_pending` is then true until the opponent answers, and
        :attr:`undo_accepted` says how (:meth:`wait_undo` waits for it). Taken back, the turn
        is gone from :attr:`moves` and I am to move again. At most 3 requests a player a game,
        one at a time: the server's refusal is a :class:`BadRequestError`; also
        :class:`GameOverError` and ``TimeoutError``."""
        with self._player._cond:
            if self._over is not None:
                raise GameOverError("game_over", f"game {self.id} is over", {"type": "undo", "game": self.id})
            ply = len(self._moves)
            self._undo_accepted = None
        self._player._acknowledged({"type": "undo", "game": self.id, "ply": ply}, timeout)
        with self._player._cond:  # as the server's undo_requested said, if it came first
            if self._undo_mine is None and self._undo_accepted is None and len(self._moves) == ply:
                if self._over is None:  # (a game that ended meanwhile was answered with its state)
                    self._undo_mine = UndoRequest(self.id, ply, self.color)
                else:
                    self._undo_accepted = False

    @property
    def undo_pending(self) -> bool:
        """Whether my request to take back my last turn waits for the opponent's answer."""
        with self._player._cond:
            return self._undo_mine is not None

    @property
    def undo_accepted(self) -> bool | None:
        """How my last request to take back a turn was answered: ``True`` (the turn was taken
        back), ``False`` (refused, or the opponent played on, or the game ended), ``None``
        while it waits, or if I asked none."""
        with self._player._cond:
            return self._undo_accepted

    def wait_undo(self, timeout: float | None = None) -> bool:
        """Blocks until my request to take back a turn is answered (at once if none waits);
        whether the turn was taken back. ``TimeoutError`` after ``timeout`` seconds."""
        with self._player._cond:
            self._player._wait(
                lambda: self._undo_mine is None,
                timeout,
                lambda: f"{self.opponent} has not answered the request to take back turn {len(self._moves)}",
            )
            return self._undo_accepted is True

    @property
    def undo_requested(self) -> UndoRequest | None:
        """The opponent's request to take back its last turn, while it waits for my answer
        (:meth:`answer_undo`; playing on refuses it too), else ``None``."""
        with self._player._cond:
            return self._undo_theirs

    def answer_undo(self, accept: bool, *, timeout: float | None = None) -> None:
        """Answers the opponent's request to take back its last turn: ``accept`` takes the
        turn back (the opponent is to move again, and :attr:`moves` has one turn less when this
        returns), else it stays. Raises :class:`BadRequestError` if no request waits (it was
        withdrawn by a turn, say), and ``TimeoutError``."""
        frame: Frame = {"type": "undo_answer", "game": self.id}
        with self._player._cond:
            request = self._undo_theirs
            if request is None:
                message = f"no request of {self.opponent}'s to take back a turn waits in game {self.id}"
                raise BadRequestError("bad_request", message, frame)
        frame.update(ply=request.ply, accept=bool(accept))
        self._player._acknowledged(frame, timeout)
        with self._player._cond:
            if self._undo_theirs is request:
                self._undo_theirs = None

    # The scoring phase (scoring by agreement)

    def mark(self, point: Coordinate, dead: bool = True, *, timeout: float | None = None) -> None:
        """In the scoring phase, marks the whole chain at ``point`` (any form: ``"7C"``,
        ``"C7"``, ``(2, 2)``) dead, or with ``dead=False`` alive; clears both players'
        acceptances. Returns once the server has taken it (the new :attr:`marks` are told to
        both players). Raises :class:`BadRequestError` (not being scored, no stone there)
        and ``TimeoutError``."""
        kata = self._kata(point, "mark")
        self._player._acknowledged({"type": "mark", "game": self.id, "point": kata, "dead": bool(dead)}, timeout)

    def accept(self, *, timeout: float | None = None) -> Over | None:
        """In the scoring phase, accepts the marks as they stand (:attr:`marks`). Returns the
        :class:`Over` if the opponent had accepted them too (the game is scored), else
        ``None`` (:attr:`marks` shows my acceptance; the opponent's comes, or a change).
        Raises :class:`BadRequestError` if the game is not being scored,
        :class:`OutOfSyncError` if the marks changed, or play resumed, before the acceptance
        reached the server (look at the new marks and accept again), :class:`GameOverError`
        and ``TimeoutError``."""
        frame: Frame = {"type": "accept", "game": self.id}
        for _ in range(3):  # again when it raced a change that left the marks as they were
            with self._player._cond:
                if self._over is not None:
                    raise GameOverError("game_over", f"game {self.id} is over", frame)
                if self._status != "scoring" or self._marks is None:
                    raise BadRequestError("bad_request", f"game {self.id} is not being scored", frame)
                sent = self._accepting = self._marks.dead
                self._accept_seen = False
                states, version = self._states, self._marks_version
            try:
                self._player._acknowledged(dict(frame, dead=list(sent)), timeout)
                with self._player._cond:
                    if not self._accept_seen and self._over is None:
                        # The server had another change first (another process's): a state
                        # follows, or the marks as they now are.
                        def answered() -> bool:
                            changed = self._states != states or self._marks_version != version
                            return self._over is not None or self._accept_seen or changed

                        self._player._wait(answered, timeout, lambda: "the server has not answered the acceptance")
                    if self._over is not None:
                        return self._over
                    if self._accept_seen:
                        return None
                    if self._status != "scoring":
                        raise OutOfSyncError("out_of_sync", f"game {self.id} went back to play: nothing was accepted", frame)
                    if self._marks is not None and self._marks.dead != sent:
                        now = " ".join(people_point(point) for point in self._marks.dead) or "none"
                        message = f"the marks changed before the acceptance was taken: dead now {now}; accept again to agree"
                        raise OutOfSyncError("out_of_sync", message, frame)
            finally:
                with self._player._cond:
                    self._accepting = None
        raise OutOfSyncError("out_of_sync", f"the acceptance in game {self.id} kept meeting other changes", frame)

    def resume(self, *, timeout: float | None = None) -> None:
        """In the scoring phase, goes back to play (the player who passed first is to move);
        returns once the game is played again (:attr:`status` ``"playing"``). Raises
        :class:`BadRequestError` if the game is not being scored, and ``TimeoutError``."""
        self._player._acknowledged({"type": "resume", "game": self.id}, timeout)

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
        if self._status == "scoring" and self._over is None:
            return f"the players of game {self.id} have not agreed on the dead stones, and nothing changed"
        if self._over is not None or self._to_move == self.color:
            return None  # my turn in flight, or the end after two passes: the server's answer
        return f"{self.opponent} ({self._to_move}) has still not played in game {self.id}"

    def _playing(self) -> str | None:
        """What ``result`` is waiting for, while turns are played (under the lock)."""
        if self._status == "scoring" and self._over is None:
            return f"game {self.id} is being scored: the players have not agreed on the dead stones"
        if self._over is not None or self._ending():
            return None
        return f"game {self.id} is still going on: {self._to_move} to play (turn {len(self._moves) + 1})"

    def _ending(self, turns: int | None = None) -> bool:
        """Whether the first ``turns`` turns (default all) end in two passes that ended play:
        the game is over (its ``over`` on the way), or being scored (by agreement), unless
        play resumed after them."""
        turns = len(self._moves) if turns is None else turns
        last = self._moves[:turns][-2:]
        return len(last) == 2 and last[0] is None and last[1] is None and turns != self._resumed_at

    def _playing_now(self) -> bool:
        """Whether turns are being played: not over, nor being scored, nor about to be."""
        return self._over is None and self._status == "playing" and not self._ending()

    def _kata(self, coord: Coordinate, kind: str = "move") -> str:
        """``coord`` in the kata form the server writes, so that a turn can be recognised in a
        state. A point the local engine would refuse as malformed or off the board is refused
        here too, as :class:`BadRequestError` (a ``ValueError``, as ``gokata.Go.move`` raises)
        with the engine's message: the server is not asked."""
        try:
            with self._player._cond:
                self._go.get_position(coord)  # checks the point as Go.move would
        except ValueError as error:
            frame: Frame = {"type": kind, "game": self.id}
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
        for message in self._adopt_events(state):
            if self._states:  # said while the connection was down: told now
                self._player._callbacks.call(self.on_chat, message)
        if self._resumed_at is not None and len(moves) < self._resumed_at:
            self._resumed_at = None  # turns taken back past it
        if self._status == "playing" and self._ending(len(moves)):
            self._resumed_at = len(moves)  # two passes, and play goes on: the scoring phase was left
        self._states += 1
        self._lapse_undo()
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
        self._lapse_undo()
        self._check_pending()
        return agrees

    def _on_over(self, frame: Frame) -> None:
        self._over = _over(self.id, frame)
        self._deadline = None
        self._lapse_undo()
        self._check_pending()

    def _on_frame(self, kind: str, frame: Frame) -> None:
        """The game's other frames: undo requests and their answers, chat, the scoring phase."""
        if kind in ("undone", "resumed"):  # the game's state after an accepted undo, a resume
            self._apply_state(_get(frame, "game", dict))
        elif kind == "undo_requested":
            request = UndoRequest(self.id, _get(frame, "ply", int), _get(frame, "by", str))
            if request.ply == len(self._moves) and self._over is None:
                if request.by == self.color:
                    self._undo_mine, self._undo_accepted = request, None
                elif request != self._undo_theirs:
                    self._undo_theirs = request
                    self._player._callbacks.call(self.on_undo_request, request)
        elif kind == "undo_declined":
            if self._undo_mine is not None and self._undo_mine.ply == _get(frame, "ply", int):
                self._undo_mine, self._undo_accepted = None, False
        elif kind == "chat":
            self._on_chat(frame)
        elif kind == "scoring":
            marks = self._on_scoring(frame)
            if self._accepting == marks.dead and marks.accepted[self.color]:
                self._accept_seen = True
            self._check_pending()

    def _lapse_undo(self) -> None:
        """Drops the requests to take back a turn that the game has moved past: mine was
        accepted if the turn is gone, else refused (the opponent played on, or it ended)."""
        mine = self._undo_mine
        if mine is not None and (self._over is not None or len(self._moves) != mine.ply):
            self._undo_mine, self._undo_accepted = None, len(self._moves) < mine.ply and self._over is None
        theirs = self._undo_theirs
        if theirs is not None and (self._over is not None or len(self._moves) != theirs.ply):
            self._undo_theirs = None

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
                if self._over is None and self._ending(ply + 1) and self._status == "playing":
                    if len(self._moves) == ply + 1:
                        return  # the second pass: answered when the end or the scoring phase is told
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
        elif len(self._moves) < ply:  # a turn taken back before mine arrived
            message = f"game {self.id} went back to turn {len(self._moves) + 1}; the turn was not played"
            request.resolve(error=OutOfSyncError("out_of_sync", message, request.frame))

    # Display

    def __str__(self) -> str:
        with self._player._cond:
            return str(self._go)

    def _repr_svg_(self) -> str:
        """The board as a picture, like ``Go``'s: Jupyter shows it for a game on its own line."""
        return gokata.svg(self.local_copy())

    def __repr__(self) -> str:
        with self._player._cond:
            if self._over is None and self._status == "scoring":
                status = "being scored"
            elif self._over is None:
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
