"""The synchronous GTP engine: the asynchronous one run on an event loop of its own, in a
thread (as python-chess's ``SimpleEngine`` does). That thread starts the engine's process,
which the kernel then kills if the thread ends first (Linux)."""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Coroutine, Mapping
from types import TracebackType
from typing import Any, Optional, TypeVar

from gokata._gokata import Go
from gokata.engine._async import QUIT_WAIT, STDERR_LINES, AsyncGtpEngine
from gokata.engine._gtp import Candidate, EngineError, Score
from gokata.engine._process import Command

T = TypeVar("T")


class GtpEngine:
    """A GTP engine in a child process: ``with GtpEngine(["gnugo", "--mode", "gtp"]) as
    engine: engine.play(game)``. Started here (``name``, ``version`` and ``list_commands``
    asked within ``start_timeout`` seconds); killed at the end of the ``with`` block, by
    ``close``, when the object is dropped, when Python exits, and (Linux) when Python is killed.
    Safe to share between threads (one command at a time). Points are in the kata form
    (``"4D"``: row, then column letter), ``None`` for a pass.

    Faults: ``EngineError`` for a ``?`` answer, ``EngineProtocolError`` for an answer that is
    not GTP, ``EngineTimeout`` when ``timeout`` passes (the engine is killed), ``EngineTerminated``
    when it dies; after the last two the next call starts it again."""

    def __init__(
        self,
        command: Command,
        *,
        start_timeout: float | None = 30.0,
        stderr_lines: int = STDERR_LINES,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._engine = AsyncGtpEngine(command, start_timeout=start_timeout, stderr_lines=stderr_lines, cwd=cwd, env=env)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"gtp-{self._engine.name}", daemon=True)
        self._thread.start()
        self._stopper = weakref.finalize(self, _stop, self._loop, self._thread, self._engine)
        try:
            self._run(self._engine.start())
        except BaseException:
            self._stopper()
            raise

    # What the engine said of itself

    @property
    def argv(self) -> list[str]:
        return self._engine.argv

    @property
    def name(self) -> str:
        """Its answer to ``name``."""
        return self._engine.name

    @property
    def version(self) -> str:
        return self._engine.version

    @property
    def commands(self) -> frozenset[str]:
        """Its ``list_commands``."""
        return self._engine.commands

    def knows(self, command: str) -> bool:
        """Whether ``command`` is in the engine's ``list_commands``."""
        return self._engine.knows(command)

    @property
    def pid(self) -> int | None:
        return self._engine.pid

    @property
    def starts(self) -> int:
        """How many times its process was started (more than once after faults)."""
        return self._engine.starts

    @property
    def stderr(self) -> list[str]:
        """The last lines its process wrote on its standard error."""
        return self._engine.stderr

    # Commands (each as AsyncGtpEngine's)

    def send(self, command: str, *, timeout: float | None = None) -> str:
        """One command; its answer's text (after ``=``)."""
        return self._run(self._engine.send(command, timeout=timeout))

    def play(self, game: Go, *, timeout: float | None = None) -> Optional[str]:
        """The engine's move for ``game``'s side to move: a kata point, ``None`` for a pass, or
        ``"resign"``; only what changed since the last call is sent."""
        return self._run(self._engine.play(game, timeout=timeout))

    def analyze(self, game: Go, seconds: float = 1.0, *, timeout: float | None = None) -> list[Candidate]:
        """The candidates after ``seconds`` of ``kata-analyze`` or ``lz-analyze``."""
        return self._run(self._engine.analyze(game, seconds, timeout=timeout))

    def final_score(self, game: Go, *, timeout: float | None = None) -> Score:
        return self._run(self._engine.final_score(game, timeout=timeout))

    def final_status_list(self, game: Go, status: str = "dead", *, timeout: float | None = None) -> list[str]:
        return self._run(self._engine.final_status_list(game, status, timeout=timeout))

    def new_game(self) -> None:
        """The next call sends the whole game (``clear_board``...), never ``undo``."""
        self._run(_call(self._engine.new_game))

    def kill(self) -> None:
        """Kills the process now; the next call starts it again."""
        self._run(_call(self._engine.kill))

    def close(self, timeout: float = QUIT_WAIT) -> None:
        """``quit``, then the process killed if it has not ended within ``timeout`` seconds;
        the engine's thread ends. Nothing more can be asked of it; closing again does nothing."""
        if not self._stopper.alive:
            return
        try:
            self._run(self._engine.close(timeout))
        finally:
            self._stopper()

    def __enter__(self) -> GtpEngine:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<GtpEngine {self.name} {self.version} pid={self.pid}>"

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        if not self._stopper.alive:
            work.close()
            raise EngineError("", "", f"the engine {self.name!r} is closed")
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()  # the engine is killed: its answer would come too late
            raise


async def _call(function: Any) -> None:
    function()


def _stop(loop: asyncio.AbstractEventLoop, thread: threading.Thread, engine: AsyncGtpEngine) -> None:
    """Ends the engine's process (if ``close`` did not), then its thread and its loop."""
    if loop.is_closed():
        return
    if thread is threading.current_thread():  # dropped unclosed, and collected in its own thread
        engine.kill()
        loop.call_soon(loop.stop)
        return
    if thread.is_alive():
        try:
            asyncio.run_coroutine_threadsafe(engine.abort(), loop).result(timeout=10.0)
        except Exception:  # noqa: S110 (a finalizer must not raise; the kernel kills it anyway)
            engine.kill()
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5.0)
    if not thread.is_alive():
        loop.close()
