"""`gokata serve`, limits per client address and connections that say nothing.

Clients are told apart by their loopback source addresses (127.0.0.2 and up): the defaults
hold for every address, loopback included. A client over a limit is refused, and a player on
another address plays on as if nothing happened.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from support.databases import Databases
from support.server_process import ServerProcess, Wire, fresh_name, http_get, loopback_source, play, sign_in, start_game
from support.waiting import wait_until

REQUEST_TIME = 10.0
"""Seconds a connection has to send its first request (and a WebSocket its hello)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("limits"))) as process:
        yield process


def raw_socket(server: ServerProcess, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), 5, source_address=(source, 0))


def read_until_closed(sock: socket.socket, within: float) -> bytes:
    """Everything the server sends on ``sock`` until it closes it; fails if it is still open
    after ``within`` seconds."""
    sock.settimeout(within)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` (end of file or reset) within ``within`` seconds,
    reading and dropping whatever it sends first."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True
    return False


def plays_on(server: ServerProcess, moves: int = 6) -> None:
    """A game on fresh addresses goes on, each turn answered within the usual time."""
    black, white, state = start_game(server, "Lon")
    for ply in range(moves):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        play(mover, other, state["id"], ply, f"{ply + 1}A" if ply % 2 == 0 else f"{ply + 1}J")


@pytest.mark.slow  # waits out the server's fixed 10 s request time
def test_sockets_that_say_nothing_are_closed_while_others_play(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path), extra_args=("--max-connections-per-address", "1000")) as server:
        idle = "127.0.0.2"
        silent = [raw_socket(server, idle) for _ in range(150)]
        half_headers = [raw_socket(server, idle) for _ in range(150)]
        for sock in half_headers:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        no_hello = [Wire(server.ws_url, source=idle) for _ in range(100)]
        opened = time.monotonic()
        plays_on(server)  # on other addresses, meanwhile
        for sock in silent + half_headers:
            left = opened + REQUEST_TIME + 3 - time.monotonic()
            assert closed_by_server(sock, max(left, 0.1)), "a socket was still open after the request time"
            sock.close()
        for wire in no_hello:
            left = opened + REQUEST_TIME + 3 - time.monotonic()
            closed = wire.closed(max(left, 0.1))
            assert closed.rcvd is not None and closed.rcvd.code == 1008, closed
        assert time.monotonic() - opened < REQUEST_TIME + 3
        plays_on(server)


def test_connections_from_one_address_are_capped(server: ServerProcess) -> None:
    crowded = loopback_source()
    held = [Wire(server.ws_url, source=crowded) for _ in range(64)]
    for wire in held:  # watching, they are kept open without a hello
        wire.request({"type": "watch_lobby"}, "lobby")
    extra = raw_socket(server, crowded)
    extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = read_until_closed(extra, 5.0).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 429 "), head
    assert b"\r\nretry-after: 5" in head.lower(), head
    assert json.loads(body) == {
        "error": f"more than 64 connections from {crowded}: close one, or try again in 5 s"
    }, "the 65th connection from one address is told why, then closed"
    with pytest.raises(InvalidStatus) as refused:
        Wire(server.ws_url, source=crowded, timeout=2)
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers["Retry-After"] == "5"
    plays_on(server)  # nobody else notices
    held.pop().close()

    def admitted() -> Wire | None:
        """A 64th connection, once the server has let the closed one go (else None)."""
        try:
            return Wire(server.ws_url, source=crowded, timeout=2)
        except (ConnectionClosed, OSError, TimeoutError, InvalidHandshake):
            return None

    again = wait_until(admitted, 10, "a connection admitted in place of the one closed", every=0.1)
    again.ping()
    for wire in held + [again]:
        wire.close()


def test_new_names_from_one_address_are_limited(server: ServerProcess) -> None:
    busy = loopback_source()
    first = None
    for _ in range(20):
        wire = Wire(server.ws_url, source=busy)
        welcome = wire.request({"type": "hello", "name": fresh_name("Lreg")}, "welcome")
        first = first or (welcome["name"], welcome["token"])
        wire.close()
    wire = Wire(server.ws_url, source=busy)
    refused = wire.error({"type": "hello", "name": fresh_name("Lreg")}, "rate_limited")
    assert busy in refused["message"] and "try again in" in refused["message"], refused
    assert first is not None
    wire.request({"type": "hello", "name": first[0], "token": first[1]}, "welcome")  # a sign-in is no new name
    sign_in(server, fresh_name("Lother"))  # another address registers


def test_the_http_api_is_rate_limited_per_address(server: ServerProcess) -> None:
    eager = loopback_source()
    statuses = [http_get(f"{server.http_url}/api/players/nobody", source=eager)[0] for _ in range(60)]
    assert statuses[:40] == [404] * 40, "a burst of twice the rate a second is answered"
    assert 429 in statuses[40:], statuses
    status, body = http_get(f"{server.http_url}/api/players/nobody", source=eager)
    assert status == 429 and eager in body["error"], body
    assert http_get(f"{server.http_url}/api/players/nobody")[0] == 404, "other addresses are answered"
    assert http_get(f"{server.http_url}/health", source=eager)[0] == 200, "the page and health are not the API"
    time.sleep(1.1)  # the sleep is the test: the bucket refills with time
    assert http_get(f"{server.http_url}/api/players/nobody", source=eager)[0] == 404, "and it refills"


def test_behind_a_proxy_the_forwarded_address_is_the_client(tmp_path: Path, databases: Databases) -> None:
    extra = ("--behind-proxy", "--max-connections-per-address", "3")
    with ServerProcess(databases.new(tmp_path), extra_args=extra) as server:
        proxy = "127.0.0.2"  # every connection comes from the proxy

        def through_proxy(client: str) -> Wire:
            return Wire(server.ws_url, source=proxy, headers={"X-Forwarded-For": f"10.9.9.9, {client}"})

        mine = [through_proxy("203.0.113.7") for _ in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            through_proxy("203.0.113.7")
        assert refused.value.response.status_code == 429
        others = [through_proxy(f"203.0.113.{n}") for n in range(20, 26)]
        for wire in mine + others:
            wire.ping()
            wire.close()


def test_many_clients_at_once_are_each_within_their_limits(server: ServerProcess) -> None:
    """Forty clients on forty addresses, ten connections each, all at once: none is refused."""
    problems: list[str] = []

    def client() -> None:
        source = loopback_source()
        try:
            wires = [Wire(server.ws_url, source=source) for _ in range(10)]
            for wire in wires:
                wire.ping()
                wire.close()
        except Exception as error:  # reported below
            problems.append(f"{source}: {error!r}")

    threads = [threading.Thread(target=client) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not problems, problems


@pytest.mark.slow  # waits out the server's fixed 10 s request time
def test_a_request_trickled_after_an_answered_one_is_cut_off(server: ServerProcess) -> None:
    sock = raw_socket(server, loopback_source())
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.settimeout(5)
    assert sock.recv(4096).startswith(b"HTTP/1.1 200"), "the first request is answered"
    started = time.monotonic()
    closed = False
    for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: yes\r\n\r\n":
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            closed = True
            break
        if closed_by_server(sock, 1.0):
            closed = True
            break
        if time.monotonic() - started > REQUEST_TIME + 5:
            break
    sock.close()
    assert closed, "a request head sent a byte a second is cut off"
    assert time.monotonic() - started < REQUEST_TIME + 3
