"""The asynchronous GTP engine: a child process spoken to over asyncio pipes, one command at a
time, each reply framed and checked by the protocol core (``_gtp``); the position it was sent
kept, so that each call sends only what changed."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Awaitable, Generator, Mapping
from types import TracebackType
from typing import Any, Optional

from gokata._gokata import Go
from gokata.engine._gtp import (
    Candidate,
    EngineError,
    EngineProtocolError,
    EngineTerminated,
    EngineTimeout,
    Position,
    Reply,
    Score,
    check,
    command_name,
    common_prefix,
    fixed_handicap_points,
    make_reply,
    move_answer,
    parse_analysis,
    parse_head,
    parse_score,
    position_of,
    vertex,
    vertex_list,
)
from gokata.engine._pipe import EngineProcess
from gokata.engine._process import Command, engine_argv

log = logging.getLogger("gokata.engine")

STDERR_LINES = 40
"""Lines of the engine's standard error kept, for ``EngineTerminated``."""
QUIT_WAIT = 2.0

_KEEPS_POSITION = frozenset(
    "name version protocol_version list_commands known_command showboard final_score final_status_list "
    "time_settings time_left kgs-time_settings gogui-analyze_commands printsgf estimate_score".split()
)
"""Commands ``send`` may pass without the engine's position being sent again before the next
``play``; any other may change it."""


class AsyncGtpEngine:
    """A GTP engine in a child process, for asyncio: ``await start()`` (or ``popen_gtp``), then
    the coroutines below. A call after a timeout or the engine's death starts it again. Points
    are in the kata form (``"4D"``: row, then column letter), ``None`` for a pass."""

    def __init__(
        self,
        command: Command,
        *,
        start_timeout: float | None = 30.0,
        stderr_lines: int = STDERR_LINES,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.argv = engine_argv(command)
        self.start_timeout = start_timeout
        self.name = os.path.basename(self.argv[0])
        """The engine's answer to ``name`` (its program's file name if it has none)."""
        self.version = ""
        self.commands: frozenset[str] = frozenset()
        """The engine's ``list_commands``."""
        self.starts = 0
        """How many times the process was started."""
        self._cwd, self._env, self._stderr_lines = cwd, None if env is None else dict(env), stderr_lines
        self._pipe: EngineProcess | None = None  # the running process
        self._last_stderr: list[str] = []  # the last process's, once it is gone
        self._lock: asyncio.Lock | None = None
        self._sent: Position | None = None  # the engine's position, when known
        self._closed = False

    def knows(self, command: str) -> bool:
        """Whether ``command`` is in the engine's ``list_commands``."""
        return command in self.commands

    # The process

    @property
    def pid(self) -> int | None:
        """The running process's id."""
        return None if self._pipe is None else self._pipe.pid

    @property
    def stderr(self) -> list[str]:
        """The last lines the running (or last) process wrote on its standard error."""
        return self._last_stderr if self._pipe is None else list(self._pipe.stderr)

    async def start(self) -> AsyncGtpEngine:
        """Starts the engine and asks its ``name``, ``version`` and ``list_commands`` (within
        ``start_timeout``); nothing if it runs."""
        async with self._locked():
            await self._ensure_started(None, None)
        return self

    def kill(self) -> None:
        """Kills the process now (a command waiting for its answer raises ``EngineTerminated``);
        the next call starts it again."""
        if self._pipe is not None:
            self._pipe.kill()

    async def close(self, timeout: float = QUIT_WAIT) -> None:
        """Sends ``quit``, waits up to ``timeout`` seconds for the process to end, kills it
        otherwise. Nothing more can be asked of the engine. Kills it at once if a command is
        waiting for its answer."""
        self._closed = True
        pipe = self._pipe
        if pipe is None:
            return
        lock = self._lock
        if pipe.running and (lock is None or not lock.locked()):
            try:
                await asyncio.wait_for(pipe.write("quit", b"quit\n"), timeout)
                await asyncio.wait_for(pipe.process.wait(), timeout)
            except (EngineError, asyncio.TimeoutError):
                pass
        await self._reap()

    async def abort(self) -> None:
        """Kills the process, waits for it, and closes the engine: ``close`` without ``quit``."""
        self._closed = True
        await self._reap()

    async def __aenter__(self) -> AsyncGtpEngine:
        return await self.start()

    def __repr__(self) -> str:
        return f"<AsyncGtpEngine {self.name} {self.version} pid={self.pid}>"

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.close()

    # Commands

    async def send(self, command: str, *, timeout: float | None = None) -> str:
        """Sends one command; its answer's text (after ``=``). ``EngineError`` for a ``?``.
        A command that may change the engine's position makes the next ``play`` send it all."""
        if "\n" in command or "\r" in command:
            raise ValueError(f"one command at a time, without a line break: {command!r}")
        async with self._locked():
            deadline = self._deadline(timeout)
            if command_name(command) not in _KEEPS_POSITION:
                self._sent = None
            reply = await self._exchange(command, deadline, timeout)
            if command_name(command) == "quit":
                await self._reap()
            return check(command, reply)

    def new_game(self) -> None:
        """Forgets the position sent: the next call sends the whole game (``boardsize``,
        ``clear_board``...), never ``undo``."""
        self._sent = None

    async def play(self, game: Go, *, timeout: float | None = None) -> Optional[str]:
        """The engine's move for the side to move of ``game`` (``genmove``), after sending it
        what changed since the last call: a kata point, ``None`` for a pass, or ``"resign"``.
        ``timeout`` bounds the whole call."""
        position = position_of(game)
        async with self._locked():
            deadline = self._deadline(timeout)
            await self._set_position(position, deadline, timeout)
            command = f"genmove {position.to_move}"
            text = check(command, await self._exchange(command, deadline, timeout))
            try:
                move = move_answer(command, text, position.size)
            except EngineProtocolError:
                self._sent = None
                raise
            if move != "resign":
                other = "white" if position.to_move == "black" else "black"
                self._sent = dataclasses.replace(position, turns=(*position.turns, (position.to_move, move)), to_move=other)
            return move

    async def analyze(self, game: Go, seconds: float = 1.0, *, timeout: float | None = None) -> list[Candidate]:
        """The candidates for the side to move of ``game`` after ``seconds`` of the engine's
        ``kata-analyze`` (preferred) or ``lz-analyze``, as its last report gave them (most
        promising first); ``EngineError`` if it offers neither."""
        name = next((n for n in ("kata-analyze", "lz-analyze") if n in self.commands), None)
        position = position_of(game)
        async with self._locked():
            deadline = self._deadline(timeout)
            if name is None:
                await self._ensure_started(deadline, timeout)
                name = next((n for n in ("kata-analyze", "lz-analyze") if n in self.commands), None)
            if name is None:
                raise EngineError("lz-analyze", "", f"{self.name} offers neither kata-analyze nor lz-analyze")
            await self._set_position(position, deadline, timeout)
            interval = max(5, min(100, int(seconds * 100 / 4)))
            command = f"{name} {position.to_move} {interval}"
            report = await self._wait(self._analysis(command, seconds), deadline, command, timeout)
            return parse_analysis(command, report, position.size, 1.0 if name == "kata-analyze" else 10000.0)

    async def final_score(self, game: Go, *, timeout: float | None = None) -> Score:
        """The engine's ``final_score`` of ``game``'s position."""
        text = await self._ask_about(game, "final_score", timeout)
        return parse_score("final_score", text)

    async def final_status_list(self, game: Go, status: str = "dead", *, timeout: float | None = None) -> list[str]:
        """The engine's ``final_status_list dead`` (or ``alive``, ``seki``) of ``game``'s
        position, as kata points."""
        if status not in ("dead", "alive", "seki"):
            raise ValueError(f"the status is dead, alive or seki, not {status!r}")
        command = f"final_status_list {status}"
        text = await self._ask_about(game, command, timeout)
        return vertex_list(command, text, game.size["height"])

    async def _ask_about(self, game: Go, command: str, timeout: float | None) -> str:
        position = position_of(game)
        async with self._locked():
            deadline = self._deadline(timeout)
            await self._set_position(position, deadline, timeout)
            return check(command, await self._exchange(command, deadline, timeout))

    # Sending a position

    async def _set_position(self, position: Position, deadline: float | None, timeout: float | None) -> None:
        """Brings the engine to ``position``: the turns it lacks when it has the game so far;
        ``undo`` for turns taken back (when it knows ``undo`` and that is shorter); else the
        whole game again."""
        await self._ensure_started(deadline, timeout)
        sent, self._sent = self._sent, None  # unknown until done
        if sent is not None and sent.same_start(position):
            common = common_prefix(sent.turns, position.turns)
            extra = len(sent.turns) - common
            setup = len(position.black) + len(position.white)
            if extra == 0 or ("undo" in self.commands and extra - common < 3 + setup):
                if await self._undo(extra, deadline, timeout):
                    if position.komi is not None and position.komi != sent.komi:
                        await self._do(f"komi {position.komi:g}", deadline, timeout)
                    await self._play_turns(position, common, deadline, timeout)
                    self._sent = position
                    return
        await self._do(f"boardsize {position.size}", deadline, timeout)
        await self._do("clear_board", deadline, timeout)
        if position.komi is not None:
            await self._do(f"komi {position.komi:g}", deadline, timeout)
        await self._setup(position, deadline, timeout)
        await self._play_turns(position, 0, deadline, timeout)
        self._sent = position

    async def _undo(self, turns: int, deadline: float | None, timeout: float | None) -> bool:
        for _ in range(turns):
            if not (await self._exchange("undo", deadline, timeout)).ok:
                return False
        return True

    async def _setup(self, position: Position, deadline: float | None, timeout: float | None) -> None:
        """The stones on the board before the first turn: as ``fixed_handicap`` when they are
        its stones, ``set_free_handicap`` for another handicap, else played one by one."""
        black, white, size = position.black, position.white, position.size
        if not white and len(black) >= 2 and position.handicap == len(black):
            stones = len(black)
            if "fixed_handicap" in self.commands and fixed_handicap_points(size, stones) == black:
                command = f"fixed_handicap {stones}"
                placed = await self._do(command, deadline, timeout)
                if frozenset(vertex_list(command, placed, size)) == black:
                    return
                await self._do("clear_board", deadline, timeout)  # its points differ from gokata's
            if "set_free_handicap" in self.commands:
                await self._do("set_free_handicap " + " ".join(vertex(point) for point in sorted(black)), deadline, timeout)
                return
        for color, stones_of in (("black", black), ("white", white)):
            for point in sorted(stones_of):
                await self._do(f"play {color} {vertex(point)}", deadline, timeout)

    async def _play_turns(self, position: Position, start: int, deadline: float | None, timeout: float | None) -> None:
        for color, point in position.turns[start:]:
            await self._do(f"play {color} {vertex(point)}", deadline, timeout)

    async def _do(self, command: str, deadline: float | None, timeout: float | None) -> str:
        return check(command, await self._exchange(command, deadline, timeout))

    # Talking to the process

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()  # made in the loop that uses it
        return self._lock

    @staticmethod
    def _deadline(timeout: float | None) -> float | None:
        return None if timeout is None else asyncio.get_running_loop().time() + timeout

    async def _exchange(self, command: str, deadline: float | None, timeout: float | None) -> Reply:
        """Sends ``command`` and reads its reply before ``deadline``."""
        pipe = await self._ensure_started(deadline, timeout)
        log.debug("%s < %s", self.name, command)
        await pipe.write(command, command.encode("utf-8") + b"\n")
        lines = await self._wait(pipe.reply_lines(command), deadline, command, timeout)
        log.debug("%s > %s", self.name, " | ".join(lines))
        return make_reply(command, lines)

    async def _wait(self, work: Awaitable[Any], deadline: float | None, command: str, timeout: float | None) -> Any:
        """``work``'s result if it comes before ``deadline``; else the engine is killed and
        ``EngineTimeout`` raised. Cancelled, or the engine speaking no GTP, it is killed too:
        the next answer read would not be this command's."""
        try:
            if deadline is None:
                return await work
            remaining = deadline - asyncio.get_running_loop().time()
            return await asyncio.wait_for(work, max(remaining, 0.0))
        except asyncio.TimeoutError:
            await self._reap()
            raise EngineTimeout(command, timeout or 0.0) from None
        except EngineProtocolError:
            await self._reap()
            raise
        except asyncio.CancelledError:
            self.kill()
            raise

    async def _analysis(self, command: str, seconds: float) -> str:
        """Runs an ``lz-analyze``-like command for ``seconds``, stops it with an empty line,
        and returns its last report (``""`` if none came)."""
        pipe = self._pipe
        assert pipe is not None
        log.debug("%s < %s", self.name, command)
        await pipe.write(command, command.encode("utf-8") + b"\n")
        head = ""
        while not head.strip():
            head = await pipe.read_line(command)
        ok, _, text = parse_head(command, head)
        if not ok:
            rest = await pipe.reply_lines(command) if text else []
            raise EngineError(command, "\n".join([text, *rest]).strip())
        report = text if "info " in f"{text} " else ""
        loop = asyncio.get_running_loop()
        stop_at = loop.time() + seconds
        stopped = False
        while True:
            if not stopped and loop.time() >= stop_at:
                await pipe.write(command, b"\n")  # any input stops the analysis
                stopped = True
            try:
                if stopped:
                    line = await pipe.read_line(command)
                else:
                    line = await asyncio.wait_for(pipe.read_line(command), max(stop_at - loop.time(), 0.0))
            except asyncio.TimeoutError:
                continue
            if not line.strip():
                return report
            if line.lstrip().startswith("info"):
                report = line

    async def _ensure_started(self, deadline: float | None, timeout: float | None) -> EngineProcess:
        """The running process: started, and asked its name, version and commands, if it is not."""
        if self._closed:
            raise EngineError("", "", f"the engine {self.name!r} is closed")
        if self._pipe is not None and self._pipe.running:
            return self._pipe
        await self._reap()
        self._sent = None
        self._pipe = pipe = await EngineProcess.start(
            self.argv, self.name, cwd=self._cwd, env=self._env, stderr_lines=self._stderr_lines
        )
        self.starts += 1
        loop = asyncio.get_running_loop()
        start_deadline = None if self.start_timeout is None else loop.time() + self.start_timeout
        if deadline is not None and (start_deadline is None or deadline < start_deadline):
            start_deadline, budget = deadline, timeout
        else:
            budget = self.start_timeout
        answers = {}
        for command in ("name", "version", "list_commands"):
            answers[command] = await self._exchange(command, start_deadline, budget)
        if answers["name"].ok and answers["name"].text.strip():
            self.name = pipe.name = answers["name"].text.strip()
        self.version = answers["version"].text.strip() if answers["version"].ok else ""
        self.commands = frozenset(answers["list_commands"].text.split()) if answers["list_commands"].ok else frozenset()
        return pipe

    async def _reap(self) -> None:
        """Ends the process, if there is one (killed if it runs), and forgets it."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            self._sent = None
            await pipe.reap()
            self._last_stderr = list(pipe.stderr)


class _Opening:
    """What ``popen_gtp`` returns: awaited, the started engine; with ``async with``, the
    engine, closed at the end of the block."""

    def __init__(self, engine: AsyncGtpEngine) -> None:
        self.engine = engine

    def __await__(self) -> Generator[Any, None, AsyncGtpEngine]:
        return self.engine.start().__await__()

    async def __aenter__(self) -> AsyncGtpEngine:
        try:
            return await self.engine.start()
        except BaseException:
            await self.engine.close()
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.engine.close()


def popen_gtp(
    command: Command,
    *,
    start_timeout: float | None = 30.0,
    stderr_lines: int = STDERR_LINES,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> _Opening:
    """Starts a GTP engine for asyncio: ``async with popen_gtp(["gnugo", "--mode", "gtp"]) as
    engine:`` (closed at the end of the block), or ``engine = await popen_gtp(...)`` (then
    ``await engine.close()``)."""
    return _Opening(AsyncGtpEngine(command, start_timeout=start_timeout, stderr_lines=stderr_lines, cwd=cwd, env=env))
