"""`gokata serve`, signing in: hello, names, tokens; ping; the HTTP routes outside games.

One server for the module; every test uses names of its own.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from support.databases import Databases
from support.expected import assert_matches, assert_welcome, standing
from support.server_process import ServerProcess, fresh_name, sign_in

TOKEN = re.compile(r"[0-9a-f]{64}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("hello"), "server")) as process:
        yield process


def test_a_new_name_is_registered_with_a_fresh_token(server: ServerProcess) -> None:
    name = fresh_name("Reg")
    with server.connect() as wire:
        welcome = wire.request({"type": "hello", "name": name, "client": "extra fields are ignored"}, "welcome")
    assert welcome["name"] == name
    assert TOKEN.fullmatch(welcome["token"]), welcome
    assert (welcome["wins"], welcome["losses"], welcome["games"]) == (0, 0, [])
    # A new player's rating: 1500, deviation 350 (volatility 0.06), rank 6k, uncertain.
    assert_welcome(welcome, name)
    assert (welcome["rating"], welcome["deviation"], welcome["rank"]) == (1500, 350, "6k?")
    other = sign_in(server, fresh_name("Reg"))
    assert other.token != welcome["token"]
    other.wire.close()
    assert_matches(server.get_json(f"/api/players/{name}"), standing(name))
    assert standing(name) == {
        "name": name, "wins": 0, "losses": 0, "bot": False,
        "rating": 1500, "deviation": 350, "volatility": 0.06, "rank": "6k?", "rated_games": 0,
    }


def test_a_registered_name_comes_back_with_its_token_in_any_case(server: ServerProcess) -> None:
    name = fresh_name("Back")
    first = sign_in(server, name)
    first.wire.close()
    for spelling in (name, name.lower(), name.upper()):
        again = sign_in(server, spelling, first.token)
        assert again.name == name, "the name keeps the case it was registered with"
        assert again.token == first.token
        assert (again.welcome["wins"], again.welcome["losses"], again.welcome["games"]) == (0, 0, [])
        assert_welcome(again.welcome, name)
        again.wire.close()
    assert_matches(server.get_json(f"/api/players/{name.lower()}"), standing(name))


def test_a_player_may_be_connected_twice(server: ServerProcess) -> None:
    one = sign_in(server, fresh_name("Twice"))
    two = sign_in(server, one.name, one.token)
    one.wire.ping()
    two.wire.ping()
    one.wire.close()
    two.wire.close()


def test_a_registered_name_without_its_token_is_taken_whatever_the_case(server: ServerProcess) -> None:
    name = fresh_name("Taken")
    owner = sign_in(server, name)
    with server.connect() as wire:
        for spelling in (name, name.lower(), name.upper()):
            reply = wire.error({"type": "hello", "name": spelling}, "name_taken")
            assert "game" not in reply
        # A refused hello leaves the connection usable and not signed in: hello may come again.
        assert wire.request({"type": "hello", "name": name, "token": owner.token}, "welcome")["name"] == name
    owner.wire.close()


def test_a_wrong_token_is_refused(server: ServerProcess) -> None:
    name = fresh_name("Tok")
    owner = sign_in(server, name)
    wrong = ("0" if owner.token[0] != "0" else "1") + owner.token[1:]
    with server.connect() as wire:
        wire.error({"type": "hello", "name": name, "token": wrong}, "bad_token")
        wire.error({"type": "hello", "name": name, "token": ""}, "bad_token")
        wire.error({"type": "hello", "name": name, "token": owner.token.upper()}, "bad_token")
        # Still not signed in.
        wire.error({"type": "seek", "size": 9}, "bad_request")
    owner.wire.close()


def test_a_token_for_a_name_nobody_has_is_refused_and_registers_nothing(server: ServerProcess) -> None:
    name = fresh_name("Ghost")
    known = sign_in(server, fresh_name("Ghost"))
    with server.connect() as wire:
        wire.error({"type": "hello", "name": name, "token": known.token}, "bad_token")
        wire.error({"type": "hello", "name": name, "token": "f" * 64}, "bad_token")
    status, body = server.get(f"/api/players/{name}")
    assert status == 404 and isinstance(body["error"], str)
    # The name is still free.
    fresh = sign_in(server, name)
    assert fresh.name == name
    fresh.wire.close()
    known.wire.close()


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("", "not 0"),
        ("n" * 21, "not 21"),
        ("al ice", "' '"),
        ("é", "'é'"),
        ("a.b", "'.'"),
        ("<script>", "'<'"),
        ("tab\there", "'\\t'"),
    ],
)
def test_invalid_names_are_bad_requests_that_name_the_problem(server: ServerProcess, name: str, named: str) -> None:
    with server.connect() as wire:
        reply = wire.error({"type": "hello", "name": name}, "bad_request")
        assert named in reply["message"], reply
        wire.error({"type": "seek", "size": 9}, "bad_request")  # not signed in
    if name:
        assert server.get("/api/players/" + quote(name, safe=""))[0] == 404


def test_names_of_every_allowed_kind_and_length(server: ServerProcess) -> None:
    suffix = fresh_name("x")[-6:].replace("_", "-")
    for name in ("a" + suffix, "Z9_-" + suffix, ("L" * 20)[: 20 - len(suffix)] + suffix):
        player = sign_in(server, name)
        assert player.name == name and len(name) <= 20
        player.wire.close()


@pytest.mark.parametrize(
    "hello",
    [
        {"type": "hello"},
        {"type": "hello", "name": 7},
        {"type": "hello", "name": ["a"]},
        {"type": "hello", "name": "ok", "token": 12},
    ],
)
def test_hello_fields_of_the_wrong_type_are_bad_requests(server: ServerProcess, hello: dict[str, object]) -> None:
    with server.connect() as wire:
        wire.error(hello, "bad_request")
        wire.ping()


def test_a_second_hello_is_a_bad_request(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Second"))
    reply = player.wire.error({"type": "hello", "name": player.name, "token": player.token}, "bad_request")
    assert player.name in reply["message"]
    player.wire.error({"type": "hello", "name": fresh_name("Other")}, "bad_request")
    player.wire.request({"type": "cancel"}, "cancelled")  # still signed in as before
    player.wire.close()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "seek", "size": 9},
        {"type": "cancel"},
        {"type": "sync", "game": "abc"},
        {"type": "move", "game": "abc", "ply": 0, "point": "5E"},
        {"type": "pass", "game": "abc", "ply": 0},
        {"type": "resign", "game": "abc"},
    ],
)
def test_frames_before_hello_are_bad_requests(server: ServerProcess, frame: dict[str, object]) -> None:
    with server.connect() as wire:
        reply = wire.error(frame, "bad_request")
        assert "hello" in reply["message"]
        wire.ping()  # ping is answered before hello
        assert wire.request({"type": "hello", "name": fresh_name("Late")}, "welcome")


def test_ping_carries_t_back_with_the_server_clock(server: ServerProcess) -> None:
    with server.connect() as wire:
        for t in (1, "x", None, [1, {"a": 2}], {"nested": True}, 2.5):
            before = time.time() * 1000
            reply = wire.request({"type": "ping", "t": t}, "pong")
            after = time.time() * 1000
            assert reply["t"] == t
            assert before - 1000 <= reply["server_ms"] <= after + 1000
        assert wire.request({"type": "ping"}, "pong")["t"] is None


def test_health_and_404s(server: ServerProcess) -> None:
    assert server.get("/health") == (200, {"status": "ok"})
    for path in ("/nothing", "/api/players/", "/api", "/api/players", "/api/nothing/x"):
        status, body = server.get(path)
        assert status == 404, path
        assert isinstance(body, dict) and isinstance(body.get("error"), str), (path, body)
    status, body = server.get("/api/players/nobody-at-all")
    assert status == 404 and isinstance(body["error"], str)
    status, body = server.get("/api/games/nosuchgame12")
    assert status == 404 and isinstance(body["error"], str)
