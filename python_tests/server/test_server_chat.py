"""Chat in a game: players to players and watchers, signed-in watchers to watchers only while the
game is on and to everyone after; its limits; its place in STATE and in the SGF (read back by
sgfmill, an independent reader); kept through `kill -9`; across processes on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sgfmill import sgf  # type: ignore[import-untyped]

from support.databases import Databases
from support.postgres_cluster import PostgresCluster
from support.server_process import Player, ServerProcess, fresh_name, play, sign_in, start_game

MOVE_TIME = 60.0
LIMITS = ("--registrations-per-hour", "1000")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("chat"), "server"), MOVE_TIME, LIMITS) as process:
        yield process


def say(player: Player, game: str, text: str) -> None:
    player.wire.send({"type": "chat", "game": game, "text": text})


def watching(server: ServerProcess, game: str, name: str) -> Player:
    watcher = sign_in(server, fresh_name(name))
    watcher.wire.send({"type": "watch", "game": game})
    watcher.wire.expect("state")
    return watcher


def test_players_talk_to_each_other_and_the_watchers(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cplay")
    game = start["id"]
    watcher = watching(server, game, "Cwatch")
    anonymous = server.connect()
    anonymous.send({"type": "watch", "game": game})
    anonymous.expect("state")
    play(black, white, game, 0, "5E")
    watcher.wire.expect("played")
    anonymous.expect("played")
    say(black, game, "  good luck  ")
    expected = {"type": "chat", "game": game, "from": black.name, "text": "good luck", "ply": 1, "channel": "players"}
    for wire in (black.wire, white.wire, watcher.wire, anonymous):
        frame = wire.expect("chat")
        assert frame["at_ms"] > 0
        del frame["at_ms"]
        assert frame == expected
    assert server.get_json(f"/api/games/{game}")["chat"][0]["text"] == "good luck"


def test_a_watchers_words_reach_only_watchers_until_the_game_ends(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cside")
    game = start["id"]
    kibitzer = watching(server, game, "Ckib")
    other = watching(server, game, "Coth")
    say(kibitzer, game, "black is winning")
    assert other.wire.expect("chat")["channel"] == "watchers"
    assert kibitzer.wire.expect("chat")["text"] == "black is winning"
    black.wire.silent(0.3)
    white.wire.silent(0.3)
    assert server.get_json(f"/api/games/{game}")["chat"] == [], "a player's view leaves the watchers' out"
    late = server.connect()
    late.send({"type": "watch", "game": game})
    assert [m["text"] for m in late.expect("state")["game"]["chat"]] == ["black is winning"]
    black.wire.send({"type": "resign", "game": game})
    black.wire.expect("over")
    white.wire.expect("over")
    say(kibitzer, game, "well played")
    assert black.wire.expect("chat")["channel"] == "players", "after the game, to everyone"
    assert white.wire.expect("chat")["text"] == "well played"
    texts = [m["text"] for m in server.get_json(f"/api/games/{game}")["chat"]]
    assert texts == ["black is winning", "well played"]


def test_a_sender_not_watching_hears_its_own_words(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cown")
    passer_by = sign_in(server, fresh_name("Cpass"))
    say(passer_by, start["id"], "hello there")
    assert passer_by.wire.expect("chat")["channel"] == "watchers"
    black.wire.silent(0.3)


def test_bad_messages_name_the_problem_and_the_rate_is_limited(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cbad")
    game = start["id"]
    for text, words in [("", "empty"), ("   ", "empty"), ("x" * 501, "501 characters"), ("a\nb", "U+000A")]:
        refused = black.wire.error({"type": "chat", "game": game, "text": text}, "bad_request")
        assert words in refused["message"], refused
    assert "'text'" in black.wire.error({"type": "chat", "game": game}, "bad_request")["message"]
    black.wire.error({"type": "chat", "game": "nosuchgame", "text": "hi"}, "unknown_game")
    anonymous = server.connect()
    anonymous.error({"type": "chat", "game": game, "text": "hi"}, "bad_request")
    say(black, game, "x" * 500)
    assert len(white.wire.expect("chat")["text"]) == 500
    black.wire.expect("chat")
    for n in range(4):
        say(black, game, f"message {n}")
        white.wire.expect("chat")
        black.wire.expect("chat")
    refused = black.wire.error({"type": "chat", "game": game, "text": "one too many"}, "rate_limited")
    assert "at most 5" in refused["message"]
    black.wire.ping()  # the connection stays open
    white.wire.silent(0.3)


def test_the_sgf_has_each_message_on_its_turn_and_it_survives_kill_9(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path), MOVE_TIME) as server:
        black, white, start = start_game(server, "Csgf")
        game = start["id"]
        say(black, game, "hello [friend]")
        white.wire.expect("chat")
        black.wire.expect("chat")
        play(black, white, game, 0, "5E")
        play(white, black, game, 1, "4D")
        say(white, game, "nice move: 5E")
        black.wire.expect("chat")
        white.wire.expect("chat")
        server.kill()
        server.restart()
        state = server.get_json(f"/api/games/{game}")
        assert [(m["from"], m["text"], m["ply"]) for m in state["chat"]] == [
            (black.name, "hello [friend]", 0),
            (white.name, "nice move: 5E", 2),
        ]
        status, text = server.get(f"/api/games/{game}.sgf")
        assert status == 200
        root = sgf.Sgf_game.from_string(text)
        nodes = root.get_main_sequence()
        assert nodes[0].get("C") == f"{black.name}: hello [friend]"
        assert nodes[2].get("C") == f"{white.name}: nice move: 5E"
        assert not nodes[1].has_property("C")


@pytest.mark.slow
def test_chat_crosses_processes_on_one_database(postgres: PostgresCluster) -> None:
    url = postgres.new_database()
    with ServerProcess(url, MOVE_TIME) as first, ServerProcess(url, MOVE_TIME) as second:
        black = sign_in(first, fresh_name("Cxb"))
        white = sign_in(second, fresh_name("Cxw"))
        black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
        white.wire.send({"type": "seek", "size": 9, "color": "white"})
        game = white.wire.expect("start")["game"]["id"]
        black.wire.expect("start")
        watcher = watching(first, game, "Cxv")
        say(white, game, "from the second")
        white.wire.expect("chat")
        assert black.wire.expect("chat", timeout=10)["text"] == "from the second"
        assert watcher.wire.expect("chat", timeout=10)["from"] == white.name
        say(watcher, game, "from a watcher")
        watcher.wire.expect("chat")
        white.wire.silent(0.5)
        late = second.connect()
        late.send({"type": "watch", "game": game})
        texts = [m["text"] for m in late.expect("state", timeout=10)["game"]["chat"]]
        assert texts == ["from the second", "from a watcher"]
