"""What the clients' suites share: unique player names, a port nothing listens on, two players
paired, waiting for a game to see its turns, and the environment of a ``gokata connect``
process. The servers they play on are the fixtures of ``clients/conftest.py``."""

from __future__ import annotations

import itertools
import os
import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gokata.client import News, Player, RemoteGame, WatchedGame, connect
from support.waiting import wait_until

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


def pair(url: str, size: int = 9, **terms: Any) -> tuple[Player, Player, RemoteGame, RemoteGame]:
    """Two new players paired, on ``terms`` (`Player.seek`'s: ``rated=False``, ``scoring=``...):
    (black player, white player, black's game, white's game)."""
    black = connect(url, unique("black"))
    white = connect(url, unique("white"))
    games = seek_both(black, white, size, **terms)
    return black, white, games[0], games[1]


def seek_both(black: Player, white: Player, size: int = 9, **terms: Any) -> tuple[RemoteGame, RemoteGame]:
    """``black`` seeks black and ``white`` white on ``terms``, concurrently; their two views of
    the game."""
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(black.seek, size, "black", 30, **terms)  # either order pairs them
        white_game = white.seek(size, "white", timeout=30, **terms)
        black_game = waiting.result(timeout=30)
    assert black_game.id == white_game.id
    assert (black_game.color, white_game.color) == ("black", "white")
    return black_game, white_game


def settle(game: RemoteGame, turns: int, timeout: float = 10) -> None:
    """Waits until ``game`` has seen ``turns`` turns."""
    wait_until(lambda: game.move_number >= turns, timeout, f"game {game.id} to see {turns} turns")


def news_so_far(watched: WatchedGame, quiet: float = 0.3) -> list[News]:
    """The news of a watched game received so far: until none comes for ``quiet`` seconds."""
    items: list[News] = []
    try:
        for item in watched.news(timeout=quiet):
            items.append(item)
    except TimeoutError:
        pass
    return items


def environment(config: Path) -> dict[str, str]:
    """The environment for a ``gokata connect`` process keeping its tokens under ``config``."""
    return dict(os.environ, XDG_CONFIG_HOME=str(config), PYTHONUNBUFFERED="1")
