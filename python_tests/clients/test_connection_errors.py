"""What the commands say when they cannot connect or serve, run as the real processes: a bad port
is named, a bare host means ``gokata serve``'s port 8080, the help's examples use that port, a
PostgreSQL database that cannot be reached says why and where, a server that cannot listen
leaves no database file behind, and a coordinate in column I is told the columns of the board."""

from __future__ import annotations

import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

import gokata
import gokata.client
from gokata.client import websocket_url
from support.clients import environment, free_port, unique
from support.server_process import ServerProcess, gokata_command


def run(*args: str, cwd: Path | None = None, config: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``gokata ARGS`` to its end, with no input; tokens under ``config`` if given."""
    return subprocess.run(
        gokata_command() + list(args),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=environment(config) if config is not None else None,
    )


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("127.0.0.1:99999", "the port must be 1 to 65535, not '99999'"),
        ("ws://127.0.0.1:70000/ws", "the port must be 1 to 65535, not '70000'"),
        ("http://[::1]:123456/", "the port must be 1 to 65535, not '123456'"),
        ("localhost:0", "the port must be 1 to 65535, not '0'"),
        ("localhost:http", "the port must be 1 to 65535, not 'http'"),
        ("localhost:", "the port must be 1 to 65535, not ''"),
        ("::1", "(an IPv6 address goes in brackets: [::1]:8080)"),
        ("ftp://example.org/", "(try ws://HOST:PORT/ws)"),
    ],
)
@pytest.mark.parametrize("command", ["connect", "bot"])
def test_a_bad_server_address_is_named_with_what_is_wrong(command: str, url: str, problem: str, tmp_path: Path) -> None:
    engine = ["--", "true"] if command == "bot" else []
    result = run(command, url, "--name", "someone", *engine, config=tmp_path)
    assert result.returncode == 1, result
    assert result.stderr == f"gokata {command}: not a server address: {url!r}{':' if problem[0] != '(' else ''} {problem}\n"
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == [], "nothing saved"


def test_a_bare_host_is_on_port_8080_and_every_other_form_is_kept() -> None:
    assert websocket_url("localhost") == "ws://localhost:8080/ws"
    assert websocket_url("127.0.0.1") == "ws://127.0.0.1:8080/ws"
    assert websocket_url("go.example.org/ws") == "ws://go.example.org:8080/ws"
    assert websocket_url("[::1]") == "ws://[::1]:8080/ws"
    # An explicit port, and a URL with a scheme (a server behind a proxy, on 80 or 443), as given.
    assert websocket_url("localhost:9000") == "ws://localhost:9000/ws"
    assert websocket_url("ws://localhost/ws") == "ws://localhost/ws"
    assert websocket_url("http://go.example.org/") == "ws://go.example.org/ws"
    assert websocket_url("https://go.example.org/go/") == "wss://go.example.org/go/ws"
    assert websocket_url("ws://127.0.0.1:8081/ws") == "ws://127.0.0.1:8081/ws"


def _port_8080_is_free() -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", 8080))
        except OSError:
            return False
        return True


def _output_until(process: subprocess.Popen[str], marker: str, timeout: float) -> str:
    """What ``process`` printed up to the line with ``marker`` (or its end, or the timeout)."""
    assert process.stdout is not None
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if marker in line:
                found.set()
                return
        found.set()

    threading.Thread(target=read, daemon=True).start()
    found.wait(timeout)
    return "".join(lines)


def test_gokata_connect_to_a_bare_host_reaches_the_server_on_port_8080(tmp_path: Path) -> None:
    if not _port_8080_is_free():
        pytest.skip("port 8080 is in use on this machine: no server of this test can listen there")
    # No server yet: the address tried is port 8080's.
    nobody = run("connect", "localhost", "--name", unique("early"), config=tmp_path / "early")
    assert nobody.returncode == 1
    assert nobody.stderr.startswith("gokata connect: cannot connect to ws://localhost:8080/ws: "), nobody.stderr
    with ServerProcess(tmp_path / "games.sqlite3", port=8080) as server:
        assert server.ws_url == "ws://127.0.0.1:8080/ws"
        name = unique("bare")
        process = subprocess.Popen(
            gokata_command() + ["connect", "localhost", "--name", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(tmp_path / "config"),
        )
        try:
            out = _output_until(process, "Seeking a 9x9 game", timeout=30)
        finally:
            process.kill()
            process.wait(10)
        assert f"Registered {name}." in out, out
        assert f"gokata connect ws://localhost:8080/ws --name {name}" in out, out
        assert "Seeking a 9x9 game" in out, out
        status, player = server.get(f"/api/players/{name}")
        assert status == 200 and player["name"] == name, (status, player)


def test_the_help_and_the_client_examples_use_port_8080() -> None:
    result = run("bot", "--help")
    assert result.returncode == 0
    assert "Example: gokata bot ws://localhost:8080/ws --name gnugo-bot" in " ".join(result.stdout.split())
    assert ":8000" not in result.stdout
    assert gokata.client.__doc__ is not None
    assert 'connect("ws://localhost:8080/ws", "alice")' in gokata.client.__doc__
    assert ":8000" not in gokata.client.__doc__
    for command in ("connect", "bot"):
        assert "HOST (port 8080)" in " ".join(run(command, "--help").stdout.split())


def test_a_postgres_database_that_cannot_be_reached_says_why_and_where(tmp_path: Path) -> None:
    port = free_port()
    result = run("serve", "--port", "0", "--db", f"postgresql://nobody@127.0.0.1:{port}/nodb", cwd=tmp_path)
    assert result.returncode == 1, result
    assert result.stderr.startswith(
        f"gokata serve: cannot use the database postgresql://nobody@127.0.0.1:{port}/nodb: "
        f"PostgreSQL: cannot connect to 127.0.0.1:{port}: error connecting to server: Connection refused"
    ), result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_cannot_listen_makes_no_database_file(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), cwd=tmp_path)  # the default database, gokata.sqlite3
        assert result.returncode == 1, result
        assert result.stderr.startswith(f"gokata serve: cannot listen on 127.0.0.1:{port}: "), result.stderr
        assert list(tmp_path.iterdir()) == [], "no gokata.sqlite3 made"
        other = run("serve", "--port", str(port), "--db", str(tmp_path / "sub" / "games.db"), cwd=tmp_path)
        assert other.returncode == 1 and "cannot listen on" in other.stderr, other
        assert list(tmp_path.iterdir()) == []
    # Once the port is free, the same command makes the database and serves.
    with ServerProcess(tmp_path / "games.sqlite3", port=port) as server:
        assert server.port == port
        deadline = time.monotonic() + 10
        while not (tmp_path / "games.sqlite3").exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)


@pytest.mark.parametrize(("size", "columns"), [(5, "A-E"), (8, "A-H"), (9, "A-H, J"), (19, "A-H, J-T"), (25, "A-H, J-Z")])
def test_column_i_is_told_the_columns_of_the_board(size: int, columns: str) -> None:
    result = subprocess.run(
        gokata_command() + ["play", "--size", str(size)], input="3I\nquit\n", capture_output=True, text=True, timeout=60
    )
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert errors == [f'error: invalid coordinate "3I": there is no column I; the columns are {columns}'], result.stdout
    with pytest.raises(ValueError, match=re.escape(f"there is no column I; the columns are {columns}")):
        gokata.Go(size).move("3I")
