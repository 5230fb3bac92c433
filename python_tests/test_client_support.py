"""What the ``test_client_*`` suites share: the real ``gokata serve`` as a process, unique
player names, and a pairing helper. ``websockets`` is imported unconditionally: it is in the
``test`` extra, and without it these suites must fail, not be skipped."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import websockets  # noqa: F401  (required: a missing websockets fails these suites)

from gokata.client import Player, RemoteGame, connect

MOVE_TIME = 60.0
"""Seconds a move of the shared server (long: no test waits for it)."""

_names = itertools.count()


def gokata_command() -> list[str]:
    """The installed script beside this Python if there is one, else ``python -m gokata``."""
    script = shutil.which("gokata", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "gokata"]


def unique(prefix: str) -> str:
    """A player name no other test uses (at most 20 characters)."""
    return f"{prefix[:7]}{next(_names)}_{uuid.uuid4().hex[:6]}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServeProcess:
    """``gokata serve`` on 127.0.0.1 with its own database; restartable on the same port."""

    def __init__(self, db: Path, move_time: float = MOVE_TIME, port: int = 0) -> None:
        self.db = db
        self.move_time = move_time
        self.port = port
        self.url = ""
        self.http_url = ""
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []
        self.start()

    def start(self) -> None:
        command = gokata_command() + [
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            str(self.db),
            "--move-time",
            f"{self.move_time:g}",
        ]
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.process = process
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(process.stdout.readline() if process.stdout else ""))
        reader.start()
        reader.join(timeout=60)
        line = first[0] if first else ""
        self.output.append(line)
        found = re.search(r"ws://[^\s,;)]+", line)
        if found is None:
            process.kill()
            rest = process.communicate(timeout=10)[0]
            pytest.fail(f"gokata serve did not print its URL: {line!r}{rest!r}")
        self.url = found.group(0)
        http = re.search(r"http://[^\s,;)]+", line)
        port = re.search(r":(\d+)/", self.url)
        assert port is not None, self.url
        self.port = int(port.group(1))
        self.http_url = http.group(0) if http else f"http://127.0.0.1:{self.port}/"
        # Keep draining the output so that the server never blocks on a full pipe.
        threading.Thread(target=self._drain, args=(process,), daemon=True).start()

    def _drain(self, process: subprocess.Popen[str]) -> None:
        if process.stdout is not None:
            for line in process.stdout:
                self.output.append(line)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Stops the server (SIGTERM: gracefully; SIGKILL: as a crash); its exit status."""
        process = self.process
        assert process is not None
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        self.process = None
        return process.returncode

    def restart(self) -> None:
        """A new server process on the same port and database."""
        self.start()

    def http_json(self, path: str) -> Any:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(self.http_url.rstrip("/") + path, timeout=10) as response:
            return json.load(response)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A server shared by a module's tests (each test uses names of its own)."""
    process = ServeProcess(tmp_path_factory.mktemp("serve") / "games.sqlite3")
    yield process
    if process.process is not None:
        process.stop()


@pytest.fixture()
def own_server(tmp_path: Path) -> Iterator[ServeProcess]:
    """A server for one test alone, on a fixed port so that it can be restarted."""
    process = ServeProcess(tmp_path / "games.sqlite3", port=free_port())
    yield process
    if process.process is not None:
        process.stop(signal.SIGKILL)


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
