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
protocol makes that harmless. Protocol: docs/protocol.md. Needs ``websockets``: ``pip install '.[client]'`` in the checkout.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Union

from websockets.exceptions import ConnectionClosed, InvalidURI, WebSocketException
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as _ws_connect

from gokata._frames import (
    RECONNECT_FOR,
    BadRequestError,
    BadTokenError,
    ConnectionFailedError,
    Frame,
    GameOverError,
    IllegalMoveError,
    NameTakenError,
    NotYourGameError,
    NotYourTurnError,
    OutOfSyncError,
    Over,
    Played,
    RateLimitedError,
    RatingChange,
    Record,
    Score,
    ServerError,
    UnknownGameError,
    _get,
    _opt,
    _Request,
    _server_error,
    websocket_url,
)
from gokata import _player_frames
from gokata._game_events import Callbacks, ChatMessage, Marks, Resumed, Undone, UndoRequest
from gokata._remote_game import RemoteGame
from gokata._time_control import Clock, TimeControl, clock_text, describe_time, parse_time, time_control

if TYPE_CHECKING:  # defined in gokata._watching, which needs this module: exported lazily
    from gokata._watching import Lobby, LobbyWatch, News, Presence, WatchedGame

__all__ = [
    "BadRequestError",
    "BadTokenError",
    "ChatMessage",
    "Clock",
    "ConnectionFailedError",
    "GameOverError",
    "IllegalMoveError",
    "Lobby",
    "LobbyWatch",
    "Marks",
    "NameTakenError",
    "News",
    "NotYourGameError",
    "NotYourTurnError",
    "OutOfSyncError",
    "Over",
    "Played",
    "Player",
    "Presence",
    "RateLimitedError",
    "RatingChange",
    "Record",
    "RemoteGame",
    "Resumed",
    "Score",
    "ServerError",
    "TimeControl",
    "UndoRequest",
    "Undone",
    "UnknownGameError",
    "WatchedGame",
    "clock_text",
    "connect",
    "describe_time",
    "parse_time",
    "websocket_url",
]

_WATCHING = ("Lobby", "LobbyWatch", "News", "Presence", "WatchedGame")


def __getattr__(name: str) -> Any:
    """The watching classes, from gokata._watching (which imports this module)."""
    if name in _WATCHING:
        from gokata import _watching

        return getattr(_watching, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The classes defined beside this module are this module's to its users (tracebacks, help()).
for _public in (BadRequestError, BadTokenError, ChatMessage, ConnectionFailedError, GameOverError, IllegalMoveError,
                Marks, NameTakenError, NotYourGameError, NotYourTurnError, OutOfSyncError, Over, Played,
                RateLimitedError, RatingChange, Record, RemoteGame, Resumed, ServerError, UndoRequest, Undone,
                UnknownGameError):
    _public.__module__ = __name__

log = logging.getLogger("gokata.client")



# A signed-in player


class Player:
    """A signed-in player: its ``name``, ``token`` (keep it: the way back to the name), ``wins``,
    ``losses``, ``rating``, ``deviation``, ``rank`` and ``games``. Made by :func:`connect`; a
    context manager that closes it."""

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
        self.rating: float | None = None
        """My Glicko-2 rating (1500 for a new player), as of the sign-in or my last game's end."""
        self.deviation: float | None = None
        """How uncertain :attr:`rating` is (350 for a new player; a rank ends in ``?`` while it is
        160 or more)."""
        self.rank: str | None = None
        """My rank from :attr:`rating`: ``"6k?"``, ``"3k"``, ``"1d"``."""
        self.seeking: dict[str, Any] | None = None
        """The terms of my seek while it waits, as the server echoed them (``seeking``: size,
        color, opponent, rated, handicap, komi, time); ``None`` when no seek waits."""
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
        self._callbacks = Callbacks(f"gokata-client-{name}-callbacks")  # the games' on_chat...

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
        """My wins, losses, rating and rank, as of the last result or sign-in."""
        with self._cond:
            return Record(
                self.name, self.wins, self.losses, self.bot, self.rating, self.deviation, rank=self.rank
            )

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
        rated: bool = True,
        time: Union[str, Mapping[str, Any], None] = None,
        handicap: Union[int, str, None] = None,
        komi: float | None = None,
        scoring: str = "all_alive",
    ) -> RemoteGame:
        """Seeks a game of ``size`` (9, 13, 19, or a list of them, the preferred first) playing
        ``color`` (``black``, ``white``, ``any``) against ``opponent`` (``"human"``, the
        default; ``"computer"``, a bot; ``"any"``), and waits until the server pairs us;
        returns the new game. After ``timeout`` seconds the seek is withdrawn and
        ``TimeoutError`` raised (unless a game started meanwhile).

        The terms, which a partner's seek must share: ``rated`` (default ``True``); ``time``, the
        time control, as the protocol writes it (``{"system": "byoyomi", "main_ms": 600000,
        "period_ms": 30000, "periods": 5}``) or in the short notation (``"5m"`` a move,
        ``"abs:20m"``, ``"5m+5s"`` Fischer, ``"10m+5x30s"`` byo-yomi, ``"10m+25/5m"`` Canadian;
        default: the server's move time); ``handicap``, ``"auto"`` (rated: stones from the
        ranks) or a number of stones (unrated: 0, or 2 to 9, 2 to 5 on 9x9); ``komi`` (unrated:
        a multiple of 0.5 from -150 to 150; default 0.5); ``scoring``, ``"all_alive"`` (the
        default: two passes end the game, every stone counted alive) or ``"agreement"`` (two
        passes start a scoring phase: the players mark the dead stones and accept them; not
        for programs). A notation the client cannot read is a ``ValueError`` before anything
        is sent; terms the server refuses, :class:`BadRequestError` naming the field."""
        if opponent not in ("human", "computer", "any"):
            raise ValueError(f"opponent must be 'human', 'computer' or 'any', not {opponent!r}")
        if scoring not in ("all_alive", "agreement"):
            raise ValueError(f"scoring must be 'all_alive' or 'agreement', not {scoring!r}")
        if not isinstance(rated, bool):
            raise ValueError(f"rated must be True or False, not {rated!r}")
        sizes: int | list[int] = size if isinstance(size, int) else list(size)
        frame: Frame = {"type": "seek", "size": sizes, "color": color, "opponent": opponent, "rated": rated}
        if time is not None:
            frame["time"] = time_control(time)
        if handicap is not None:
            if isinstance(handicap, bool) or not isinstance(handicap, (int, str)):
                raise ValueError(f'handicap must be "auto" or a number of stones, not {handicap!r}')
            frame["handicap"] = handicap
        if komi is not None:
            if isinstance(komi, bool) or not isinstance(komi, (int, float)):
                raise ValueError(f"komi must be a number, not {komi!r}")
            frame["komi"] = komi
        if scoring != "all_alive":
            frame["scoring"] = scoring
        request = _Request(frame)
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
                        self.seeking = None
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
        self._callbacks.close()
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
        if self.rank is not None:
            record += f", {self.rank}"
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
        reconnection), so that the server's refusal, which echoes it, finds it; an
        acknowledged one is followed by a ``ping`` with the same ``ref``."""
        with self._cond:
            if "ref" not in request.frame:
                request.frame["ref"] = next(self._refs)
            self._by_ref[request.frame["ref"]] = request
        self._send(request.frame)
        if request.acknowledged:
            self._send({"type": "ping", "t": "acknowledged", "ref": request.frame["ref"]})

    def _acknowledged(self, frame: Frame, timeout: float | None) -> None:
        """Sends a request that the server answers only if it refuses it (undo, chat, mark...),
        and waits until it is taken: the ``pong`` of a ``ping`` sent after it comes after any
        error and after what the request made the server tell (it answers a connection in
        order). Raises the server's error, or ``TimeoutError``; not sent again after a
        reconnection."""
        self._request(_Request(frame, acknowledged=True), timeout, lambda: None)

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
        self.rating = _opt(welcome, "rating", (int, float))
        self.deviation = _opt(welcome, "deviation", (int, float))
        self.rank = _opt(welcome, "rank", str)
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
        """A frame from the server, given to what it concerns (under the lock)."""
        _player_frames.dispatch(self, frame)


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
