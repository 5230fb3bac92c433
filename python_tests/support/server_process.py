"""The game server as a real process, and raw WebSocket/HTTP helpers to talk to it.

`ServerProcess` runs ``gokata serve`` (the command installed next to ``sys.executable``, else
``python -m gokata``) on a free loopback port (kept across restarts) and a given database file, reads the URL from its
first line of output, and can stop it with a signal or kill it outright. `Wire` is one WebSocket
connection speaking raw JSON frames with a timeout on every receive; `http_get` asks the HTTP
API. Nothing here knows the rules of the protocol beyond its framing: the tests do.

Every wait is bounded: a server that never starts, never answers or never exits fails the test.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from types import TracebackType
from typing import Any, Optional, Protocol

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

Frame = dict[str, Any]
"""One JSON frame, as decoded."""

START_TIMEOUT = 20.0
"""Seconds a server has to print its URL."""
RECV_TIMEOUT = 5.0
"""Seconds any expected frame may take."""


def gokata_command() -> list[str]:
    """The ``gokata`` command of this interpreter's environment, else ``python -m gokata``."""
    script = Path(sys.executable).parent / "gokata"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "gokata"]


class ServerProcess:
    """``gokata serve`` on ``127.0.0.1``, port 0, the database ``db`` (an SQLite file, or a
    PostgreSQL address); restartable on the same database.

    Use as a context manager, or call `start` and `stop`/`kill`. `lines` collects the process's
    standard output and `errors` its standard error, for messages on failure.
    """

    def __init__(
        self, db: Path | str, move_time: float = 300.0, extra_args: tuple[str, ...] = (), port: int = 0
    ) -> None:
        self.db = str(db)
        self.port = port
        """0 until the first start picks a free port, which restarts then keep, so that
        clients can come back to the same address."""
        self.move_time = move_time
        self.extra_args = extra_args
        self.process: Optional[subprocess.Popen[str]] = None
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.ws_url = ""
        self.http_url = ""
        self._first_line = threading.Event()
        self._readers: list[threading.Thread] = []

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> ServerProcess:
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the server is already running")
        self.lines, self.errors = [], []
        self._first_line = threading.Event()
        command = gokata_command() + [
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db,
            "--move-time",
            f"{self.move_time:g}",
            *self.extra_args,
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._drain, args=(self.process.stdout, self.lines, True), daemon=True),
            threading.Thread(target=self._drain, args=(self.process.stderr, self.errors, False), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        if not self._first_line.wait(START_TIMEOUT) or not self.lines:
            self.kill()
            raise RuntimeError(f"gokata serve did not start: {self.output()}")
        match = re.search(r"ws://127\.0\.0\.1:(\d+)/ws", self.lines[0])
        if match is None:
            self.kill()
            raise RuntimeError(f"no WebSocket URL in the first line: {self.output()}")
        self.port = int(match.group(1))
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.http_url = f"http://127.0.0.1:{self.port}"
        return self

    def _drain(self, stream: Any, into: list[str], first: bool) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))
            if first:
                self._first_line.set()
        if first:
            self._first_line.set()  # the process ended without a line

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def send_signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def suspend(self) -> None:
        """SIGSTOP, returning once every thread of the process has stopped (the signal takes
        effect on each thread as the kernel next schedules it)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        tasks = Path(f"/proc/{self.process.pid}/task")

        def stopped() -> bool:
            states = []
            for stat in tasks.glob("*/stat"):
                try:
                    # The state follows the command, which is in parentheses and may hold spaces.
                    states.append(stat.read_text().rsplit(")", 1)[1].split()[0])
                except (OSError, IndexError):
                    continue
            return bool(states) and all(state in "tT" for state in states)

        deadline = time.monotonic() + 10
        while not stopped():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the server (pid {self.process.pid}) did not stop on SIGSTOP")
            time.sleep(0.01)

    def wait(self, timeout: float) -> int:
        """The exit status, waiting up to ``timeout`` seconds (then TimeoutExpired)."""
        assert self.process is not None
        status = self.process.wait(timeout)
        for reader in self._readers:
            reader.join(2.0)
        return status

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        """Stops the server with ``signum`` and returns its exit status (killing it if it hangs)."""
        if not self.running():
            return self.wait(timeout) if self.process is not None else 0
        self.send_signal(signum)
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        """``kill -9``: no goodbye, no clean close."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10.0)
        for reader in self._readers:
            reader.join(2.0)

    def restart(self) -> ServerProcess:
        """Starts again on the same database and port (after `stop` or `kill`)."""
        return self.start()

    def output(self) -> str:
        return "stdout: " + " | ".join(self.lines) + " ; stderr: " + " | ".join(self.errors)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        if self.running():
            try:
                self.stop()
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    # -- talking to it -------------------------------------------------------------------

    def connect(self, source: Optional[str] = None) -> Wire:
        return Wire(self.ws_url, source=source)

    def get(self, path: str) -> tuple[int, Any]:
        return http_get(self.http_url + path)

    def get_json(self, path: str) -> Any:
        """The body of a GET that must succeed."""
        status, body = self.get(path)
        assert status == 200, (path, status, body)
        return body


_sources = itertools.count(2)


def loopback_source() -> str:
    """A loopback address no earlier connection of this process used (127.0.0.2 and up), so
    that each test connection is a client of its own to the server's limits per address."""
    n = next(_sources)
    while n % 256 in (0, 255):
        n = next(_sources)
    return f"127.{(n >> 16) % 256}.{(n >> 8) % 256}.{n % 256}"


def http_get(url: str, timeout: float = RECV_TIMEOUT, source: Optional[str] = None) -> tuple[int, Any]:
    """``(status, body)`` of a GET from ``source`` (a fresh loopback address if None), the body
    decoded from JSON if it is JSON; 4xx and 5xx answers are returned, not raised."""
    parts = urllib.parse.urlsplit(url)
    assert parts.hostname is not None and parts.port is not None, url
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=timeout, source_address=(source or loopback_source(), 0)
    )
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", path or "/")
        response = connection.getresponse()
        return int(response.status), _decoded(response.read())
    finally:
        connection.close()


def _decoded(body: bytes) -> Any:
    """JSON, or the text if it is not JSON."""
    text = body.decode(errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class Wire:
    """One WebSocket connection of raw JSON text frames, from ``source`` (a fresh loopback
    address if None); every receive has a timeout. `presence` frames (an opponent gone or back)
    are set aside, in ``presence``, unless a test expects them."""

    def __init__(
        self, url: str, timeout: float = RECV_TIMEOUT, source: Optional[str] = None, headers: Optional[dict[str, str]] = None
    ) -> None:
        self.timeout = timeout
        parts = urllib.parse.urlsplit(url)
        assert parts.hostname is not None and parts.port is not None, url
        self.source = source or loopback_source()
        sock = socket.create_connection((parts.hostname, parts.port), timeout, source_address=(self.source, 0))
        options: dict[str, Any] = dict(
            sock=sock, open_timeout=timeout, close_timeout=timeout, max_size=4 * 1024 * 1024, compression=None
        )
        if headers:
            options["additional_headers"] = headers
        connection = connect(url, **options)
        # Entered as a context manager: websockets >= 17.1 warns about connections that are not.
        self.ws: ClientConnection = connection.__enter__()
        self.presence: list[Frame] = []

    def send(self, frame: Frame) -> None:
        self.ws.send(json.dumps(frame))

    def send_raw(self, data: str | bytes) -> None:
        self.ws.send(data)

    def recv(self, timeout: Optional[float] = None, presence: bool = False) -> Frame:
        """The next frame (a `presence` one too only if ``presence``); fails after ``timeout``
        seconds (default: the connection's)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            text = self.ws.recv(timeout=max(0.0, deadline - time.monotonic()))
            assert isinstance(text, str), f"the server sent a binary frame: {text!r}"
            frame = json.loads(text)
            assert isinstance(frame, dict) and isinstance(frame.get("type"), str), text
            if frame["type"] != "presence" or presence:
                return frame
            self.presence.append(frame)

    def expect(self, kind: str, timeout: Optional[float] = None) -> Frame:
        """The next frame, which must have type ``kind``."""
        if kind == "presence" and self.presence:
            return self.presence.pop(0)
        frame = self.recv(timeout, presence=kind == "presence")
        assert frame["type"] == kind, f"expected {kind}, got {frame}"
        return frame

    def request(self, frame: Frame, kind: str) -> Frame:
        self.send(frame)
        return self.expect(kind)

    def error(self, frame: Frame | str | bytes, code: str) -> Frame:
        """Sends ``frame`` (raw if not a dict) and expects an error with ``code``."""
        if isinstance(frame, dict):
            self.send(frame)
        else:
            self.send_raw(frame)
        reply = self.expect("error")
        assert reply["code"] == code, f"expected {code}, got {reply}"
        assert isinstance(reply["message"], str) and reply["message"], reply
        return reply

    def silent(self, seconds: float = 0.2, presence: bool = False) -> None:
        """Nothing arrives for ``seconds`` (no `presence` frame either, if ``presence``)."""
        if presence:
            assert not self.presence, f"unexpected frames: {self.presence!r}"
        try:
            frame = self.recv(seconds, presence)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected frame: {frame!r}")

    def ping(self, t: Any = "alive") -> None:
        """A round trip: the connection is open and every earlier frame was handled."""
        reply = self.request({"type": "ping", "t": t}, "pong")
        assert reply["t"] == t, reply

    def sync(self, game: str) -> Frame:
        """The game's STATE."""
        state: Frame = self.request({"type": "sync", "game": game}, "state")["game"]
        return state

    def closed(self, timeout: Optional[float] = None) -> ConnectionClosed:
        """Reads until the server closes the connection; the ConnectionClosed seen."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the server did not close the connection")
            try:
                self.ws.recv(timeout=left)
            except ConnectionClosed as closed:
                return closed

    def close(self) -> None:
        """Closes and waits for the server's close frame (so the server has seen the close)."""
        self.ws.close()

    def __enter__(self) -> Wire:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()


class Entry(Protocol):
    """Where clients connect: a server process, or a proxy in front of several."""

    ws_url: str

    def running(self) -> bool: ...

    def connect(self, source: Optional[str] = None) -> Wire: ...


class Player:
    """A signed-in connection: `Wire` plus the name and token of its `welcome`."""

    def __init__(self, wire: Wire, welcome: Frame) -> None:
        self.wire = wire
        self.welcome = welcome
        self.name: str = welcome["name"]
        self.token: str = welcome["token"]


def sign_in(server: Entry, name: str, token: Optional[str] = None) -> Player:
    """A new connection that says hello as ``name`` (registering it without ``token``)."""
    wire = server.connect()
    hello: Frame = {"type": "hello", "name": name}
    if token is not None:
        hello["token"] = token
    welcome = wire.request(hello, "welcome")
    return Player(wire, welcome)


_names = itertools.count(1)


def fresh_name(prefix: str) -> str:
    """A name no other test of this process uses: ``prefix`` (at most 12 characters) and a number."""
    assert len(prefix) <= 12
    name = f"{prefix}_{next(_names)}"
    assert len(name) <= 20
    return name


def start_game(server: ServerProcess, prefix: str, size: int = 9) -> tuple[Player, Player, Frame]:
    """Two fresh players paired by colour (the first is black); the STATE of `start`."""
    black = sign_in(server, fresh_name(prefix + "b"))
    white = sign_in(server, fresh_name(prefix + "w"))
    black.wire.request({"type": "seek", "size": size, "color": "black"}, "seeking")
    white.wire.send({"type": "seek", "size": size, "color": "white"})
    state: Frame = white.wire.expect("start")["game"]
    assert black.wire.expect("start")["game"] == state
    assert (state["black"], state["white"]) == (black.name, white.name)
    return black, white, state


def play(mover: Player, other: Player, game: str, ply: int, point: Optional[str]) -> Frame:
    """``mover`` plays ``point`` (None: passes) as turn ``ply``; both receive the same `played`."""
    frame: Frame = {"type": "move", "game": game, "ply": ply, "point": point}
    if point is None:
        frame = {"type": "pass", "game": game, "ply": ply}
    mover.wire.send(frame)
    played = mover.wire.expect("played")
    assert other.wire.expect("played") == played
    assert (played["game"], played["ply"]) == (game, ply), played
    return played
