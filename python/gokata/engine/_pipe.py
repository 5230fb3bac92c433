"""One run of an engine's program for asyncio: started with pipes (and, on Linux, the kernel
told to kill it with the thread that starts it), its standard error's last lines kept, its
output read a line at a time, and reaped when it ends or is killed."""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import subprocess
import weakref
from collections.abc import Mapping
from typing import Any, NoReturn, Optional

from gokata.engine._gtp import EngineError, EngineProtocolError, EngineTerminated, clean_line, parse_head
from gokata.engine._process import Child, die_with_parent, kill_tree

log = logging.getLogger("gokata.engine")

LINE_LIMIT = 1 << 22
"""The longest line read from an engine, in bytes."""
EXIT_WAIT = 2.0
"""Seconds an engine that closed its output has to exit before it is killed."""


class EngineProcess:
    """A running engine process. ``write``, ``read_line`` and ``reply_lines`` raise
    ``EngineTerminated`` (after reaping it) when it has died."""

    def __init__(self, process: asyncio.subprocess.Process, name: str, stderr_lines: int) -> None:
        self.process = process
        self.name = name
        self.stderr: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self.doomed = False
        """Killed on purpose, not reaped yet."""
        self._child = Child(process.pid)
        self._finalizer = weakref.finalize(self, self._child.kill)  # dropped unreaped, or at exit
        assert process.stderr is not None
        self._stderr_task = asyncio.ensure_future(_collect(process.stderr, self.stderr, name))

    @classmethod
    async def start(
        cls, argv: list[str], name: str, *, cwd: Optional[str | os.PathLike[str]], env: Optional[Mapping[str, str]], stderr_lines: int
    ) -> EngineProcess:
        # A session (Windows: a process group) of its own: a Ctrl-C at the terminal goes to Python
        # alone, which then ends the engine, rather than killing the engine in the middle of a game.
        if os.name == "posix":
            apart: dict[str, Any] = {"start_new_session": True}
        else:
            apart = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=None if env is None else dict(env),
                limit=LINE_LIMIT,
                preexec_fn=die_with_parent(),
                **apart,
            )
        except OSError as error:
            raise EngineError(" ".join(argv), "", f"cannot start {argv[0]!r}: {error}") from error
        return cls(process, name, stderr_lines)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.returncode is None and not self.doomed

    def kill(self) -> None:
        """Kills it now; whatever waits for its output sees it end."""
        if self.process.returncode is None:
            self.doomed = True
            kill_tree(self.process.pid)

    async def write(self, command: str, text: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(text)
            await stdin.drain()
        except (OSError, RuntimeError):  # the engine is gone: its pipe is closed
            await self.terminated(command)

    async def read_line(self, command: str) -> str:
        """The next line of its output, without its line ending."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            raw = await stdout.readline()
        except ValueError:  # longer than LINE_LIMIT
            raise EngineProtocolError(command, "", f"has a line over {LINE_LIMIT} bytes") from None
        if not raw:
            await self.terminated(command)
        return clean_line(raw)

    async def reply_lines(self, command: str) -> list[str]:
        """The lines of one reply, up to the empty line that ends it (empty lines before it
        skipped); ``EngineProtocolError`` at once if its first line is not a reply's."""
        lines: list[str] = []
        while True:
            line = await self.read_line(command)
            if not line.strip():
                if lines:
                    return lines
                continue
            if not lines:
                parse_head(command, line)
            lines.append(line)

    async def terminated(self, command: str) -> NoReturn:
        """It closed its output: waits for its exit status (killing it if it runs on), then
        raises ``EngineTerminated``."""
        killed = False
        try:
            await asyncio.wait_for(asyncio.shield(self.process.wait()), EXIT_WAIT)
        except asyncio.TimeoutError:
            killed = True
        await self.reap()
        raise EngineTerminated(command, None if killed else self.process.returncode, list(self.stderr))

    async def reap(self) -> None:
        """Kills it if it runs, waits for it, keeps its last words on standard error, and
        closes its pipes."""
        self.kill()
        await self.process.wait()
        # What it started may outlive it (a wrapper script's children): its group goes too.
        kill_tree(self.process.pid)
        self._child.reaped()
        self._finalizer.detach()
        try:
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        except (asyncio.TimeoutError, Exception):
            self._stderr_task.cancel()
        transport = getattr(self.process, "_transport", None)
        if transport is not None:
            transport.close()


async def _collect(stream: asyncio.StreamReader, lines: collections.deque[str], name: str) -> None:
    """Keeps the last lines of an engine's standard error (and logs them at debug level)."""
    while True:
        try:
            raw = await stream.readline()
        except ValueError:  # a line over the limit: its start is dropped
            raw = await stream.read(LINE_LIMIT)
        if not raw:
            return
        line = clean_line(raw)
        lines.append(line)
        log.debug("%s: %s", name, line)
