"""Engine processes that never outlive their Python process: the command line, the parent-death
signal (Linux), and the record a finalizer kills a process by when its engine is dropped unclosed
or Python exits."""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import signal
import sys
from collections.abc import Sequence
from typing import Callable, Union

Command = Union[str, Sequence[str]]
"""An engine's command line: a list of arguments, or one string split as a shell would."""

_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)
_PR_SET_PDEATHSIG = 1


def engine_argv(command: Command) -> list[str]:
    """The argument list of ``command``. A command named ``gokata`` that is not on the path is
    this Python's ``python -m gokata`` (as in a virtual environment that is not activated)."""
    argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
    if not argv:
        raise ValueError("an engine command is needed, such as 'gnugo --mode gtp'")
    if argv[0] == "gokata" and shutil.which("gokata") is None:
        argv = [sys.executable, "-m", "gokata", *argv[1:]]
    return argv


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


_PRCTL = _load_prctl()  # loaded once here: the child, between fork and exec, only calls it


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the kernel kill the child when the thread that starts it
    ends, or its whole process (even by ``kill -9``); ``None`` where that is not available."""
    prctl = _PRCTL
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(_KILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was asked for
            os._exit(1)

    return preexec


def kill_tree(pid: int) -> None:
    """Kills the engine started as ``pid`` and whatever it started: the engine leads a session
    of its own (``start_new_session``), so on POSIX its process group is killed whole (an engine
    started through a wrapper script dies with it). Elsewhere the process alone."""
    try:
        if os.name == "posix":
            os.killpg(pid, _KILL)
        else:
            os.kill(pid, _KILL)
    except OSError:
        pass


class Child:
    """A started process, killed by ``kill`` unless it has been reaped (``reaped`` is then
    called), so that a finalizer never signals a process id used again."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.running = True

    def reaped(self) -> None:
        self.running = False

    def kill(self) -> None:
        if self.running:
            self.running = False
            kill_tree(self.pid)
