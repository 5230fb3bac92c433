"""A GTP engine in a child process, spoken to over its standard input and output: one command
at a time, each answer awaited with a deadline. Used by ``gokata bot`` (``_bridge``)."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Sequence

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


class EngineError(Exception):
    """The engine cannot go on as it is: it died, stopped answering in time, or answered
    something that is not GTP. Restart it."""


class EngineTimeout(EngineError):
    """No answer within the deadline."""


class EngineRefused(Exception):
    """The engine answered ``? message``: it is alive, and refused the command."""


class GtpEngine:
    """A running engine. ``command`` sends one command and returns its answer's text (after
    ``=``); raises :class:`EngineRefused` for ``?``, :class:`EngineError` otherwise."""

    def __init__(self, argv: Sequence[str], *, start_timeout: float = 30.0) -> None:
        self.argv = list(argv)
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            raise EngineError(f"cannot start {self.argv[0]!r}: {error}") from error
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, name="gtp-engine-reader", daemon=True).start()
        self.commands = set(self.command("list_commands", timeout=start_timeout).split())

    @property
    def pid(self) -> int:
        return self._process.pid

    def knows(self, command: str) -> bool:
        return command in self.commands

    def command(self, text: str, timeout: float) -> str:
        """Sends ``text`` and waits at most ``timeout`` seconds for the whole answer."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(text + "\n")
            stdin.flush()
        except (OSError, ValueError) as error:
            raise EngineError(f"the engine's input is closed: {error}") from error
        deadline = time.monotonic() + max(timeout, 0.0)
        answer: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                raise EngineTimeout(f"no answer to {text.split()[0]!r} in {timeout:.1f} s") from None
            if line is None:
                raise EngineError(f"the engine exited (status {self._process.poll()}) during {text!r}")
            line = line.rstrip("\r\n")
            if not answer and not line.strip():
                continue  # blank lines between answers
            if line.strip():
                answer.append(line)
                continue
            return _answer_text(text, answer)

    def close(self) -> None:
        """Asks the engine to quit, then kills it if it has not within a second."""
        if self._process.poll() is None:
            try:
                self.command("quit", timeout=1.0)
            except (EngineError, EngineRefused):
                pass
        try:
            self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        self._process.kill()
        try:
            self._process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            self._lines.put(line)
        self._lines.put(None)


def _answer_text(command: str, lines: list[str]) -> str:
    first = lines[0]
    if first.startswith("="):
        return "\n".join([first[1:].strip(), *lines[1:]]).strip()
    if first.startswith("?"):
        raise EngineRefused(first[1:].strip() or f"{command.split()[0]} refused")
    raise EngineError(f"not a GTP answer to {command!r}: {first[:80]!r}")


def gtp_vertex(point: str | None) -> str:
    """A kata point (``"4D"``) as a GTP vertex (``"D4"``); ``None`` is ``pass``."""
    if point is None:
        return "pass"
    return point[-1] + point[:-1]


def kata_point(vertex: str, size: int) -> str | None:
    """A GTP vertex (``"d4"``, ``"D4"``, ``"pass"``) as a kata point (``"4D"``), ``None`` for
    a pass; ``ValueError`` naming it when it is not a vertex of a ``size`` board."""
    text = vertex.strip().upper()
    if text == "PASS":
        return None
    column, row = text[:1], text[1:]
    if not column or column not in COLUMNS[:size] or not row.isdigit() or not 1 <= int(row) <= size:
        raise ValueError(f"{vertex!r} is not a point of a {size}x{size} board")
    return f"{int(row)}{column}"
