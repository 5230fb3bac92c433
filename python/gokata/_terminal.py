"""The terminal of ``gokata connect``: lines from the keyboard (or a pipe) whenever they come,
and a screen whose last line, the status line with the clock, is redrawn as the clock runs."""

from __future__ import annotations

import codecs
import os
import queue
import shutil
import sys
import threading
from typing import Callable, Optional, TextIO

if sys.platform != "win32":
    import termios

# Cursor controls of VT100 and every terminal since: save and restore the cursor, move it up
# (n rows), erase to the end of the row.
SAVE, RESTORE, ERASE = "\x1b7", "\x1b8", "\x1b[K"


def _up(rows: int) -> str:
    return f"\x1b[{rows}A"


class Keyboard:
    """The lines of the file descriptor ``fd``, read by a thread of their own as soon as they
    are typed (or piped), so that the caller can wait for a line and for other things at once.
    ``interactive`` when it is a terminal: a person typing."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.interactive = os.isatty(fd)
        self._lines: queue.Queue[Optional[str]] = queue.Queue()  # None: the end of the input
        self._ended = False
        threading.Thread(target=self._read, name="gokata-keyboard", daemon=True).start()

    def line(self, timeout: float) -> str | None:
        """The next line (without its end of line), or ``None`` if none comes within
        ``timeout`` seconds; raises EOFError at the end of the input."""
        if self._ended:
            raise EOFError
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            self._ended = True
            raise EOFError
        return line

    def typed_ahead(self) -> bool:
        """Whether a line (or the end of the input) is waiting to be read."""
        return not self._lines.empty()

    def discard_typed(self) -> None:
        """At exit: drops what was typed and not read, so that none of it reaches the shell."""
        if sys.platform != "win32" and self.interactive:
            try:
                termios.tcflush(self.fd, termios.TCIFLUSH)
            except termios.error:
                pass

    def _read(self) -> None:
        # os.read rather than sys.stdin: a thread blocked on a file object's lock would stop
        # the interpreter's exit.
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            pending += decoder.decode(data, final=not data)
            *lines, pending = pending.split("\n")
            for line in lines:
                self._lines.put(line.rstrip("\r"))
            if not data:
                if pending:
                    self._lines.put(pending)  # a last line without its end of line
                self._lines.put(None)
                return


class Screen:
    """Lines printed to ``out``; at a terminal (``live``), the status line printed last is
    redrawn in place when its text changes (the clock), the cursor staying on the line below,
    where the player types."""

    def __init__(self, out: TextIO, live: bool) -> None:
        self.out = out
        self.live = live
        self._status: Callable[[], str] | None = None  # the status line, while it is the last
        self._shown = ""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)
        self._status = None

    def status(self, text: Callable[[], str]) -> None:
        """Prints the status line, ``text()``, to be redrawn by :meth:`refresh`."""
        self._shown = text()
        self.say(self._shown)
        self._status = text

    @property
    def status_shown(self) -> bool:
        """Whether the status line is the last line printed."""
        return self._status is not None

    def typed(self) -> None:
        """A line was typed: the terminal's echo moved the cursor below it, so the status line
        is no longer the line above the cursor."""
        self._status = None

    def refresh(self) -> None:
        """Redraws the status line if it is still the last line and its text has changed."""
        if not self.live or self._status is None:
            return
        text = self._status()
        if text == self._shown:
            return
        rows = max(1, -(-len(self._shown) // shutil.get_terminal_size().columns))
        self.out.write(f"{SAVE}{_up(rows)}\r{text}{ERASE}{RESTORE}")
        self.out.flush()
        self._shown = text
