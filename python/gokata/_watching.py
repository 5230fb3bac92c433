"""Watching from the Python client: any game (:meth:`gokata.client.Player.watch`) and the
lobby (:meth:`gokata.client.Player.watch_lobby`), pushed by the server over the player's
connection (docs/protocol.md, "watch and unwatch", "watch_lobby").

>>> with connect("localhost", "carol") as me:              # doctest: +SKIP
...     with me.watch("k3v9q2x7m4pd") as game:
...         print(game.moves)                  # the turns so far
...         for news in game:                  # each turn once, in order, then the end
...             print(news)                    # Played, Presence, ChatMessage... and last Over

The names are exported by :mod:`gokata.client`. Frames reach these objects through the
player's reader thread, under the player's lock; after a reconnection the client watches again
and turns it missed meanwhile come as :class:`~gokata.client.Played` (``remaining_ms`` ``None``).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Optional, TypedDict, Union

from gokata import Go
from gokata._frames import (
    Frame,
    Over,
    Played,
    Point,
    ServerError,
    _get,
    _other,
    _over,
    _played,
    _Request,
    _server_error,
)
from gokata._game_events import ChatMessage, GameEvents, Marks, Resumed, Undone
from gokata._game_terms import GameTerms, first_to_move, start_position
from gokata._remote_game import _result
from gokata._time_control import TimeControl
from gokata.client import Player

# What the server reports


@dataclass(frozen=True)
class Presence:
    """A player of a watched game (``name``, playing ``color``) now has a connection to the server
    (``connected``) after having none, or the reverse. Their clock runs on either way."""

    game: str
    name: str
    color: str
    connected: bool


News = Union[Played, Presence, ChatMessage, Marks, Undone, Resumed, Over]
"""What a watched game tells: a turn, a player gone or back, a chat message, the scoring
phase's marks (at its start and each change), a turn taken back, play resumed after the scoring
phase, its end."""


class ListedSeek(TypedDict):
    """A seek waiting, as the lobby lists it: ``size`` a number or a list of them; the seeker's
    ``rank``; the terms it will be paired on (``rated``, ``handicap``: a number of stones or
    ``"auto"``, ``komi``, ``time``)."""

    name: str
    size: Union[int, list[int]]
    color: str
    opponent: str
    bot: bool
    rank: str
    rated: bool
    handicap: Union[int, str]
    komi: float
    time: TimeControl


class ListedBots(TypedDict):
    black: bool
    white: bool


class ListedGame(TypedDict):
    """A game being played, as the lobby lists it: ``moves`` is the number of turns played."""

    id: str
    size: int
    black: str
    white: str
    bots: ListedBots
    moves: int
    to_move: str


@dataclass(frozen=True)
class Lobby:
    """The lobby: the seeks waiting, oldest first, and the games being played, newest first (at
    most 200 listed; ``total`` counts them all), as ``GET /api/seeks`` and ``GET /api/games`` list
    them."""

    seeks: tuple[ListedSeek, ...]
    games: tuple[ListedGame, ...]
    total: int


# A game watched


class WatchedGame(GameTerms, GameEvents):
    """A game followed on the server, anyone's (made by :meth:`gokata.client.Player.watch`).

    Iterating (or :meth:`news`, with a timeout) yields what happens in it, in order: each turn
    once (:class:`~gokata.client.Played`, with no gap after the turns in :attr:`moves` when it
    was made), players leaving or coming back (:class:`Presence`), chat messages
    (:class:`~gokata.client.ChatMessage`), a turn taken back (:class:`~gokata.client.Undone`),
    the scoring phase's marks (:class:`~gokata.client.Marks`) and play resumed after it
    (:class:`~gokata.client.Resumed`), and last the end (:class:`~gokata.client.Over`; the only
    news of a game over before it was watched), after which iteration stops. :attr:`moves`,
    :attr:`board`, :attr:`turn`, :attr:`over`, :attr:`messages`, :attr:`status` and
    :attr:`marks` follow what was received, and so do its terms, ``clocks`` and ``ratings``, as
    a :class:`~gokata.client.RemoteGame`'s; :meth:`chat` says something (to the other watchers
    while the game is on). A context manager: leaving it stops watching (:meth:`close`)."""

    def __init__(self, player: Player, game_id: str) -> None:
        self._player = player
        self.id = game_id
        self.size = 0
        self.black = ""
        self.white = ""
        self.bots: dict[str, bool] = {"black": False, "white": False}
        """Which players are programs."""
        self._go: Optional[Go] = None
        self._moves: list[Point] = []
        self._to_move = "black"
        self._connected: dict[str, bool] = {}
        self._over: Optional[Over] = None
        self._news: deque[News] = deque()
        self._watching = True
        self._request = _Request({"type": "watch", "game": game_id})
        self._init_terms(None)  # until the state comes
        self._init_events()

    # What it shows

    @property
    def moves(self) -> list[str | None]:
        """Every turn received, in order, kata form, ``None`` for a pass."""
        with self._player._cond:
            return list(self._moves)

    @property
    def board(self) -> list[list[str]]:
        """Rows of ``'.'``, ``'x'`` (black), ``'o'`` (white), top row first."""
        with self._player._cond:
            return self._go.board if self._go is not None else []

    @property
    def turn(self) -> str:
        """``"black"`` or ``"white"``: the side to move."""
        with self._player._cond:
            return self._to_move

    @property
    def connected(self) -> dict[str, bool]:
        """Whether each player has a connection to the server, as last told (while on)."""
        with self._player._cond:
            return dict(self._connected)

    @property
    def over(self) -> Over | None:
        """How the game ended (``records`` ``None`` if it had ended before it was watched)."""
        with self._player._cond:
            return self._over

    @property
    def watching(self) -> bool:
        """Whether news may still come: not closed, and not over."""
        with self._player._cond:
            return self._watching

    def news(self, timeout: float | None = None) -> Iterator[News]:
        """What happens in the game, in order, until its end (the last item yielded) or
        :meth:`close`. Raises ``TimeoutError`` after ``timeout`` seconds without news, and
        :class:`~gokata.client.ConnectionFailedError` if the connection is given up."""
        player = self._player
        while True:
            with player._cond:
                player._wait(lambda: bool(self._news) or not self._watching, timeout, self._waiting)
                if not self._news:
                    return
                item = self._news.popleft()
            yield item
            if isinstance(item, Over):
                return

    def __iter__(self) -> Iterator[News]:
        return self.news()

    def close(self) -> None:
        """Stops watching (nothing more comes; news already received can still be read)."""
        with self._player._cond:
            was = self._watching
            self._stop()
        if was:
            self._player._send({"type": "unwatch", "game": self.id})

    def __enter__(self) -> WatchedGame:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        with self._player._cond:
            status = (
                _result(self._over)
                if self._over is not None
                else "being scored"
                if self._status == "scoring"
                else f"{self._to_move} to play (turn {len(self._moves) + 1})"
            )
            players = f"{self.black} (black) vs {self.white} (white)"
            return f"<WatchedGame {self.id} {self.size}x{self.size}: {players}, {status}>"

    def _waiting(self) -> str:
        return f"nothing happened in game {self.id}"

    def _stop(self) -> None:
        """No more news (under the lock)."""
        self._watching = False
        if self._player._watches.get(self.id) is self:
            del self._player._watches[self.id]

    # Frames from the server (the reader thread, under the player's lock)

    def _on_state(self, state: Frame, kind: str = "state") -> None:
        """The answer to ``watch`` (again, after a reconnection: the turns missed come as news);
        or the game's state after a turn taken back (``undone``) or play resumed (``resumed``)."""
        first = not self._request.done
        if first:
            self.size = _get(state, "size", int)
            self.black = _get(state, "black", str)
            self.white = _get(state, "white", str)
            bots = state.get("bots")
            self.bots = {c: isinstance(bots, dict) and bots.get(c) is True for c in ("black", "white")}
            self._init_terms(state)
            self._go = start_position(self.size, self.handicap)
            self._to_move = first_to_move(self.handicap)
        moves: list[Point] = [None if m is None else str(m) for m in _get(state, "moves", list)]
        if self._go is not None and len(moves) < len(self._moves) and self._moves[: len(moves)] == moves:
            self._go.rollback(len(self._moves) - len(moves))  # a turn taken back (undone)
            del self._moves[len(moves) :]
        for ply in range(len(self._moves), len(moves)):
            self._replay(Played(self.id, ply, self._to_move, moves[ply], (), _other(self._to_move)), first)
        if self._moves != moves:  # not a continuation of what was received: the server's wins
            rows = _get(state, "board", list)
            self._go = Go.from_board(rows, turn="white" if state.get("to_move") == "white" else "black")
            self._moves = moves
        self._to_move = _get(state, "to_move", str)
        self._merge_clocks(state)
        connected = state.get("connected")
        if isinstance(connected, dict):
            self._connected = {c: connected.get(c) is True for c in ("black", "white")}
        scoring, version = self._status == "scoring", self._marks_version
        for message in self._adopt_events(state):
            if not first:
                self._tell(message)
        if not first and kind == "undone":
            self._news.append(Undone(self.id, len(self._moves)))
        elif not first and kind == "resumed":
            self._news.append(Resumed(self.id, self._to_move))
        elif self._marks is not None and (not scoring or version != self._marks_version) and not first:
            self._news.append(self._marks)  # the scoring phase began, or changed, while away
        if _get(state, "status", str) == "over" and self._over is None:
            self._end(_over(self.id, state))
        self._request.resolve(self)

    def _on_news(self, kind: str, frame: Frame) -> None:
        if not self._request.done or self._over is not None:
            return  # the state, on its way, has it
        if kind == "played":
            ply = _get(frame, "ply", int)
            if ply > len(self._moves):  # missed: the whole state again
                self._player._outbox.append({"type": "watch", "game": self.id})
            elif ply == len(self._moves):
                self._replay(_played(self.id, frame), quiet=False)
                self._merge_clocks(frame)
        elif kind == "over":
            self._end(_over(self.id, frame))
        elif kind == "presence":
            presence = Presence(
                self.id, _get(frame, "name", str), _get(frame, "color", str), _get(frame, "connected", bool)
            )
            self._connected[presence.color] = presence.connected
            self._news.append(presence)
        elif kind == "chat":
            message = self._on_chat(frame)
            if message is not None:
                self._news.append(message)
        elif kind == "scoring":
            version = self._marks_version
            marks = self._on_scoring(frame)
            if version != self._marks_version:
                self._news.append(marks)

    def _tell(self, message: ChatMessage) -> None:
        """A message learnt from a state (said while the connection was down): news, and told."""
        self._news.append(message)
        self._player._callbacks.call(self.on_chat, message)

    def _replay(self, played: Played, quiet: bool) -> None:
        """A turn on the local board, and as news (unless ``quiet``: part of the first state)."""
        assert self._go is not None
        point = played.point
        try:
            if point is None:
                self._go.pass_turn()
            else:
                if not played.captured:  # learnt from a state: the captures are the board's
                    captured = tuple(self._go.captures(point))
                    played = dataclasses.replace(played, captured=captured)
                self._go.move(point)
        except ValueError:
            pass  # the state that follows, or the server's board, corrects it
        self._moves.append(played.point)
        self._to_move = played.to_move
        if not quiet:
            self._news.append(played)

    def _end(self, over: Over) -> None:
        """The end, as the last news (also of a game that was over when watched)."""
        self._over = over
        self._news.append(over)
        self._stop()


# The lobby watched


class LobbyWatch:
    """The lobby followed on the server (made by :meth:`gokata.client.Player.watch_lobby`):
    :attr:`latest` is the lobby as last pushed; iterating (or :meth:`updates`, with a timeout)
    yields it, then the newest lobby each time it changes (the server pushes one at most once
    a second). A context manager: leaving it stops following (:meth:`close`)."""

    def __init__(self, player: Player) -> None:
        self._player = player
        self._latest = Lobby((), (), 0)
        self._version = 0
        self._watching = True
        self._request = _Request({"type": "watch_lobby"})

    @property
    def latest(self) -> Lobby:
        with self._player._cond:
            return self._latest

    def updates(self, timeout: float | None = None) -> Iterator[Lobby]:
        """The lobby now, then each newer one, until :meth:`close`; raises ``TimeoutError``
        after ``timeout`` seconds without a change."""
        player = self._player
        seen = -1

        def changed() -> bool:
            return self._version != seen or not self._watching

        while True:
            with player._cond:
                player._wait(changed, timeout, lambda: "the lobby has not changed")
                if self._version == seen:
                    return
                seen, lobby = self._version, self._latest
            yield lobby

    def __iter__(self) -> Iterator[Lobby]:
        return self.updates()

    def close(self) -> None:
        """Stops following the lobby."""
        with self._player._cond:
            was = self._watching
            self._watching = False
            if self._player._lobby is self:
                self._player._lobby = None
        if was:
            self._player._send({"type": "unwatch_lobby"})

    def __enter__(self) -> LobbyWatch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _on_lobby(self, frame: Frame) -> None:
        seeks: list[ListedSeek] = _get(frame, "seeks", list)
        games: list[ListedGame] = _get(frame, "games", list)
        self._latest = Lobby(tuple(seeks), tuple(games), _get(frame, "total", int))
        self._version += 1
        self._request.resolve(self)


# The player's side: requests, frames, reconnections


def watch(player: Player, game_id: str, timeout: float | None) -> WatchedGame:
    """`Player.watch`: the game watched, once the server answered with its state."""
    with player._cond:
        known = player._watches.get(game_id)
        if known is not None:
            return known
        watched = player._watches[game_id] = WatchedGame(player, game_id)

    def forget() -> None:
        if not watched._request.done or watched._request.error is not None:
            watched._stop()

    try:
        player._request(watched._request, timeout, forget)
    except TimeoutError:
        player._send({"type": "unwatch", "game": game_id})  # in case the answer comes later
        raise
    return watched


def watch_lobby(player: Player, timeout: float | None) -> LobbyWatch:
    """`Player.watch_lobby`: the lobby followed, once the server sent it."""
    with player._cond:
        if player._lobby is not None:
            return player._lobby
        lobby = player._lobby = LobbyWatch(player)

    def forget() -> None:
        if (not lobby._request.done or lobby._request.error is not None) and player._lobby is lobby:
            player._lobby = None

    try:
        player._request(lobby._request, timeout, forget)
    except TimeoutError:
        player._send({"type": "unwatch_lobby"})
        raise
    return lobby


def dispatch(player: Player, frame: Frame) -> bool:
    """Gives a frame to what watches it (under the player's lock); whether that is all there is
    to it (else the player handles it too: a game of its own, say)."""
    kind = frame.get("type")
    if kind == "lobby":
        if player._lobby is not None:
            player._lobby._on_lobby(frame)
        return True
    if kind in ("unwatched", "unwatched_lobby"):
        return True
    game_id = frame.get("game")
    if kind in ("state", "undone", "resumed") and isinstance(game_id, dict):  # a STATE
        watched = player._watches.get(str(game_id.get("id")))
        if watched is not None:
            watched._on_state(game_id, kind)
        return False
    if not isinstance(game_id, str):
        if kind == "error" and player._lobby is not None and not player._lobby._request.done:
            if player._seek is None and player._cancel is None:
                player._lobby._request.resolve(error=_server_error(frame))
                player._lobby = None
                return True
        return False
    watched = player._watches.get(game_id)
    if watched is None:
        return False
    if kind == "error":
        if watched._request.done:
            return False
        error: ServerError = _server_error(frame)
        watched._request.resolve(error=error)
        watched._stop()
        return True
    if kind in ("played", "over", "presence", "chat", "scoring"):
        watched._on_news(kind, frame)
        return game_id not in player._games  # a game of the player's own is its own too
    return False


def resume(player: Player) -> list[Frame]:
    """After a reconnection: what to ask again (each watch is answered with the state)."""
    frames: list[Frame] = [{"type": "watch", "game": game_id} for game_id in player._watches]
    if player._lobby is not None:
        frames.append({"type": "watch_lobby"})
    return frames
