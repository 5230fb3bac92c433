"""What the ``test_client_*`` suites share: the real ``gokata serve`` as a process (the
servers' tests' `ServerProcess`), unique player names, and a pairing helper. ``websockets`` is imported unconditionally: it is in the
``test`` extra, and without it these suites must fail, not be skipped."""

from __future__ import annotations

import itertools
import os
import socket
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import websockets  # noqa: F401  (required: a missing websockets fails these suites)

from gokata.client import Player, RemoteGame, connect
from conftest import Databases
from server_process import ServerProcess, gokata_command

MOVE_TIME = 60.0
"""Seconds a move of the shared server (long: no test waits for it)."""
LIMITS = ("--registrations-per-hour", "1000")
"""Every test registers names of its own, all from 127.0.0.1: more than the default 20."""

_names = itertools.count()


def unique(prefix: str) -> str:
    """A player name no other test uses (at most 20 characters)."""
    return f"{prefix[:7]}{next(_names)}_{uuid.uuid4().hex[:6]}"


def free_port() -> int:
    """A loopback port nothing listens on (for connection failures)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    """A server shared by a module's tests (each test uses names of its own)."""
    with ServerProcess(databases.new(tmp_path_factory.mktemp("serve"), "games"), MOVE_TIME, LIMITS) as process:
        yield process


@pytest.fixture()
def own_server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    """A server for one test alone; restarts keep its port, so clients can come back."""
    with ServerProcess(databases.new(tmp_path, "games"), MOVE_TIME, LIMITS) as process:
        yield process


def pair(url: str, size: int = 9) -> tuple[Player, Player, RemoteGame, RemoteGame]:
    """Two new players paired: (black player, white player, black's game, white's game)."""
    black = connect(url, unique("black"))
    white = connect(url, unique("white"))
    games = seek_both(black, white, size)
    return black, white, games[0], games[1]


def seek_both(black: Player, white: Player, size: int = 9) -> tuple[RemoteGame, RemoteGame]:
    """``black`` seeks black and ``white`` white, concurrently; their two views of the game."""
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(black.seek, size, "black", 30)
        time.sleep(0.05)  # usually the first to seek; either order pairs them
        white_game = white.seek(size, "white", timeout=30)
        black_game = waiting.result(timeout=30)
    assert black_game.id == white_game.id
    assert (black_game.color, white_game.color) == ("black", "white")
    return black_game, white_game


def settle(game: RemoteGame, turns: int, timeout: float = 10) -> None:
    """Waits until ``game`` has seen ``turns`` turns."""
    deadline = time.monotonic() + timeout
    while game.move_number < turns:
        assert time.monotonic() < deadline, f"game {game.id} stuck at {game.move_number} turns"
        time.sleep(0.01)


def environment(config: Path) -> dict[str, str]:
    """The environment for a ``gokata connect`` process keeping its tokens under ``config``."""
    return dict(os.environ, XDG_CONFIG_HOME=str(config), PYTHONUNBUFFERED="1")
