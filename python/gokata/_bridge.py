"""``gokata bot``: any GTP engine as a player on a gokata server.

The bridge signs in as a program (``hello`` with ``"bot": true``), keeps a seek open for the
board sizes the engine accepts while it plays fewer than ``games`` games, and plays each game
with an engine process of its own (started for the game, restarted when it fails), spoken to
through ``gokata.engine``: each turn sends the engine the server's moves it lacks, or the whole
game again when its position differs from them. A move that has not come when the move time less
a margin has gone is abandoned, the engine restarted, and a move chosen by gokata's own quick
search instead, so the bot never loses on time while the bridge runs. After three engine
failures in one game the bot resigns it.

The engine is told the game's time control when it starts (``time_settings``, in GTP's
Canadian form, or ``kgs-time_settings byoyomi`` for byo-yomi when it lists that command) and
the bot's clock before each ``genmove`` (``time_left``); an engine that lists neither is not
told, and one that refuses them plays on.

An opponent's request to take back its last turn is refused in a rated game and accepted in an
unrated one (the engine is then given the game as it stands at its next turn). The bot seeks
games that count every stone alive: programs do not seek scoring by agreement.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import gokata
from gokata.engine import EngineError, EngineProtocolError, EngineTerminated, EngineTimeout, GtpEngine, vertex
from gokata.client import (
    ConnectionFailedError,
    GameOverError,
    IllegalMoveError,
    OutOfSyncError,
    Player,
    RemoteGame,
    ServerError,
    UndoRequest,
    connect,
)
from gokata._time_control import TimeControl

log = logging.getLogger("gokata.bot")

FAILURES_BEFORE_RESIGNING = 3
FALLBACK_PLAYOUTS = 200
"""Playouts of gokata's own search for a move when the engine did not answer in time."""
SEEK_FOR = 30.0
"""Seconds a seek waits before it is renewed (so that games taken up meanwhile are seen)."""


@dataclass(frozen=True)
class BridgeOptions:
    url: str
    name: str
    token: str | None
    engine: Sequence[str]
    sizes: Sequence[int] = (9, 13, 19)
    games: int = 1
    opponent: str = "human"
    """Whom the bot seeks: people (``human``), other bots too (``any``), or only bots."""
    rated: bool = True
    time: Optional[TimeControl] = None
    """The time control the bot seeks (``None``: the server's move time)."""


def move_margin(move_time_s: float) -> float:
    """Seconds kept back from each move's time: for the network, starting an engine again and
    the quick search that then chooses the move."""
    return min(max(1.0, move_time_s * 0.1), 10.0)


def time_settings(control: Optional[Mapping[str, Any]], move_time_s: float, kgs: bool) -> str:
    """What tells an engine the game's time control: ``time_settings MAIN PERIOD STONES`` (GTP's
    Canadian form, in whole seconds: a time a move is ``0 MOVE 1``, an absolute or Fischer
    clock ``TOTAL 0 0``, byo-yomi ``MAIN PERIOD 1``), or ``kgs-time_settings byoyomi MAIN
    PERIOD PERIODS`` for byo-yomi when the engine knows it (``kgs``). A time a move and the
    period of byo-yomi or Canadian time are told less the bot's margin (:func:`move_margin`)."""
    system = control.get("system") if control else "per_move"

    def seconds(key: str) -> int:
        assert control is not None
        return int(control[key]) // 1000

    def less_margin(ms: float) -> int:
        return max(int(ms / 1000 - move_margin(ms / 1000)), 1)

    if control is None or system == "per_move":
        return f"time_settings 0 {less_margin(move_time_s * 1000)} 1"
    if system == "absolute":
        return f"time_settings {seconds('total_ms')} 0 0"
    if system == "fischer":
        return f"time_settings {seconds('initial_ms')} 0 0"
    period = less_margin(control["period_ms"])
    if system == "byoyomi":
        if kgs:
            return f"kgs-time_settings byoyomi {seconds('main_ms')} {period} {control['periods']}"
        return f"time_settings {seconds('main_ms')} {period} 1"
    return f"time_settings {seconds('main_ms')} {period} {control['stones']}"


def time_left(
    color: str, control: Optional[Mapping[str, Any]], clock: Optional[Mapping[str, Any]], remaining_ms: int, kgs: bool
) -> str:
    """``time_left COLOR SECONDS STONES`` for the bot's clock, ``remaining_ms`` before it loses
    (``clock`` as its turn began): in main time the main time left and 0; then the time left in
    the period under way (less the margin) and the stones to play in it (under byo-yomi told
    by ``kgs-time_settings``, the periods left; else 1, as ``time_settings`` said)."""
    system = control.get("system") if control else "per_move"

    def less_margin(ms: float, scale_ms: float) -> int:
        return max(int(ms / 1000 - move_margin(scale_ms / 1000)), 1)

    if control is None or clock is None or system in ("per_move", "absolute", "fischer"):
        stones = 1 if system == "per_move" or control is None else 0
        turn_ms = control.get("move_ms", remaining_ms) if control and system == "per_move" else remaining_ms
        return f"time_left {color} {less_margin(remaining_ms, turn_ms)} {stones}"
    period = int(control["period_ms"])
    if system == "byoyomi":
        main = remaining_ms - int(clock.get("periods", 0)) * period
        if main > 0:
            return f"time_left {color} {main // 1000} 0"
        periods = max(math.ceil(remaining_ms / period), 1)
        in_period = remaining_ms - (periods - 1) * period
        return f"time_left {color} {less_margin(in_period, period)} {periods if kgs else 1}"
    main = remaining_ms - int(clock.get("period_ms", 0))
    if main > 0 and int(clock.get("main_ms", 0)) > 0:
        return f"time_left {color} {main // 1000} 0"
    return f"time_left {color} {less_margin(remaining_ms, period)} {int(clock.get('stones', 1))}"


def accepted_sizes(engine_argv: Sequence[str], sizes: Sequence[int]) -> list[int]:
    """The sizes among ``sizes`` that the engine accepts (``boardsize`` answered ``=``)."""
    with GtpEngine(engine_argv) as engine:
        accepted = []
        for size in sizes:
            try:
                engine.send(f"boardsize {size}", timeout=10.0)
            except (EngineTimeout, EngineTerminated, EngineProtocolError):
                raise
            except EngineError:  # it answered `?`
                log.info("the engine refuses %dx%d: not sought", size, size)
                continue
            accepted.append(size)
        return accepted


class GameRunner(threading.Thread):
    """Plays one game with an engine of its own until the game is over."""

    def __init__(self, game: RemoteGame, engine_argv: Sequence[str], stop: threading.Event) -> None:
        super().__init__(name=f"gokata-bot-{game.id}", daemon=True)
        self.game = game
        self.engine_argv = list(engine_argv)
        self.stop = stop
        self.failures = 0
        self._engine: GtpEngine | None = None
        game.on_undo_request = self._answer_undo

    def run(self) -> None:
        try:
            self._play()
        except ConnectionFailedError as error:
            log.warning("game %s: the connection is gone: %s", self.game.id, error)
        except Exception:  # a thread must say why it stopped
            log.exception("game %s: the runner stopped", self.game.id)
        finally:
            self._drop_engine()

    def _play(self) -> None:
        game = self.game
        while not game.is_over and not self.stop.is_set():
            if not game.my_turn:
                game.wait(timeout=1.0)
                continue
            if self.failures >= FAILURES_BEFORE_RESIGNING:
                log.warning("game %s: the engine failed %d times: resigning", game.id, self.failures)
                self._send(lambda: game.resign())
                return
            self._take_turn()

    def _answer_undo(self, request: UndoRequest) -> None:
        """The opponent asks to take back its last turn: refused in a rated game, accepted in
        an unrated one (on the client's thread for callbacks, while the engine may think: a move
        it finds for the turn taken back is not sent)."""
        accept = not self.game.rated
        try:
            self.game.answer_undo(accept)
        except (ServerError, TimeoutError) as error:  # withdrawn by the bot's turn meanwhile, say
            log.info("game %s: the request to take back turn %d: %s", self.game.id, request.ply, error)
        else:
            log.info("game %s: %s the request to take back turn %d", self.game.id, "accepted" if accept else "refused", request.ply)

    def _take_turn(self) -> None:
        game = self.game
        ply = game.move_number
        local = game.local_copy()  # the server's moves: the engine gets those it lacks
        local.komi = game.komi
        if local.turn != game.color:
            return  # the game moved on since my turn was seen
        move_time = (game.move_time_ms or 300_000) / 1000
        remaining = game.remaining_ms
        left = (move_time * 1000 if remaining is None else remaining) / 1000
        deadline = time.monotonic() + left - move_margin(move_time)
        try:
            engine = self._running_engine(deadline, move_time)
            if engine.knows("time_left"):
                now_ms = game.remaining_ms
                now_ms = round(left * 1000) if now_ms is None else now_ms
                kgs = engine.knows("kgs-time_settings") and (game.time or {}).get("system") == "byoyomi"
                _tell(engine, time_left(game.color, game.time, game.clocks.get(game.color), now_ms, kgs))
            point = engine.play(local, timeout=deadline - time.monotonic())
        except EngineTimeout as error:
            log.warning("game %s: %s: the engine is restarted and gokata chooses", game.id, error)
            self._drop_engine()
            self._play_point(ply, self._fallback())
            return
        except EngineError as error:
            self._failed(f"{error}")
            return
        if game.is_over or game.move_number != ply:
            return  # the game moved on meanwhile (another connection): the next turn resends it
        if point == "resign":
            self._send(lambda: game.resign())
            return
        if point is not None and not _legal(game, point):
            self._failed(f"genmove answered {vertex(point)!r}, illegal here")
            return
        self._play_point(ply, point)

    def _running_engine(self, deadline: float, move_time: float) -> GtpEngine:
        """The engine, started (and told the time control) if it is not running."""
        engine = self._engine
        if engine is None:
            engine = self._engine = GtpEngine(self.engine_argv, start_timeout=max(deadline - time.monotonic(), 1.0))
            control = self.game.time
            if control is not None and control.get("system") == "per_move":
                move_time = int(control["move_ms"]) / 1000
            command = time_settings(control, move_time, kgs=engine.knows("kgs-time_settings"))
            if engine.knows(command.split()[0]):
                _tell(engine, command)
        return engine

    def _fallback(self) -> str | None:
        """gokata's own move, found in a moment."""
        local = self.game.local_copy()
        return gokata.genmove(local, playouts=FALLBACK_PLAYOUTS, threads=1)

    def _play_point(self, ply: int, point: str | None) -> None:
        game = self.game
        if game.is_over or game.move_number != ply:
            return
        if point is None:
            self._send(lambda: game.pass_turn())
        else:
            self._send(lambda: game.move(point))

    def _send(self, turn: Callable[[], object]) -> None:
        """Sends a turn (a call of the client); when the game moved on instead, the engine's
        next ``play`` brings it to the server's moves."""
        try:
            turn()
        except (GameOverError, OutOfSyncError) as error:
            log.info("game %s: %s", self.game.id, error)
        except IllegalMoveError as error:
            self._failed(f"the server refused the engine's move: {error}")
        except TimeoutError as error:  # resent by the client after a reconnection
            log.info("game %s: %s", self.game.id, error)
        except ServerError as error:
            log.warning("game %s: %s", self.game.id, error)

    def _failed(self, why: str) -> None:
        self.failures += 1
        log.warning("game %s: engine failure %d: %s", self.game.id, self.failures, why)
        self._drop_engine()

    def _drop_engine(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.close(timeout=1.0)


def _tell(engine: GtpEngine, command: str) -> None:
    """Sends a command the engine may refuse (``?``): it plays on without it."""
    try:
        engine.send(command, timeout=5.0)
    except (EngineTimeout, EngineTerminated, EngineProtocolError):
        raise
    except EngineError as error:
        log.info("the engine refuses %r: %s", command, error)


def _legal(game: RemoteGame, point: str) -> bool:
    try:
        return point in game.legal_moves()
    except ValueError:
        return False


class Bridge:
    """Keeps a seek open while fewer than ``games`` games are played, and a runner for each."""

    def __init__(self, options: BridgeOptions, sizes: Sequence[int]) -> None:
        self.options = options
        self.sizes = list(sizes)
        self.stop = threading.Event()
        self.runners: dict[str, GameRunner] = {}

    def run(self, player: Player) -> None:
        while not self.stop.is_set():
            self._take_up(player.games)
            if player.failure is not None:
                raise ConnectionFailedError(str(player.failure))
            if len(self._playing()) >= self.options.games:
                self.stop.wait(0.5)
                continue
            try:
                game = player.seek(
                    self.sizes,
                    "any",
                    timeout=SEEK_FOR,
                    opponent=self.options.opponent,
                    rated=self.options.rated,
                    time=self.options.time,
                )
            except TimeoutError:
                continue
            self._take_up([game])

    def _take_up(self, games: Sequence[RemoteGame]) -> None:
        for game in games:
            runner = self.runners.get(game.id)
            if game.is_over or (runner is not None and runner.is_alive()):
                continue
            log.info("game %s: %s against %s on %dx%d", game.id, game.color, game.opponent, *game.size.values())
            runner = self.runners[game.id] = GameRunner(game, self.options.engine, self.stop)
            runner.start()

    def _playing(self) -> list[GameRunner]:
        for game_id in [id_ for id_, runner in self.runners.items() if not runner.is_alive()]:
            del self.runners[game_id]
        return list(self.runners.values())

    def close(self) -> None:
        self.stop.set()
        for runner in list(self.runners.values()):
            runner.join(timeout=5.0)


def run_bridge(options: BridgeOptions, on_token: Callable[[str], object] | None = None) -> None:
    """Signs in, then plays until interrupted. ``on_token(token)`` is called with the token
    of a name registered now. ``ValueError`` if the engine cannot start or accepts no size."""
    try:
        sizes = accepted_sizes(options.engine, options.sizes)
    except EngineError as error:
        raise ValueError(f"the engine {' '.join(options.engine)!r} does not work: {error}") from error
    if not sizes:
        raise ValueError(f"the engine accepts none of the sizes {', '.join(map(str, options.sizes))}")
    player = connect(options.url, options.name, options.token, bot=True, reconnect_for=float("inf"))
    bridge = Bridge(options, sizes)
    try:
        if options.token is None and player.token is not None and on_token is not None:
            on_token(player.token)
        bridge.run(player)
    finally:
        bridge.close()
        player.close()
