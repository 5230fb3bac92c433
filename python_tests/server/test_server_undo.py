"""Undo: a player asks to take back its last turn, the opponent accepts or declines, or plays on
(which declines). The real server on both stores, raw WebSocket frames; the board after an undo
is checked against `gokata.Go` replaying the remaining turns. Also: the request survives
`kill -9` of the server, and crosses processes on one PostgreSQL database.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gokata import Go
from support.databases import Databases
from support.postgres_cluster import PostgresCluster
from support.server_process import Player, ServerProcess, fresh_name, play, sign_in, start_game

MOVE_TIME = 60.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("undo"), "server"), MOVE_TIME) as process:
        yield process


def board_of(moves: list[Any], size: int = 9) -> list[str]:
    """The rows, top first, of `.`, `x` and `o`, after ``moves`` (kata coordinates, None a pass)."""
    go = Go(size)
    for point in moves:
        if point is None:
            go.pass_turn()
        else:
            go.move(point)
    return ["".join(row) for row in go.board]


def ask(player: Player, game: str, ply: int) -> None:
    player.wire.send({"type": "undo", "game": game, "ply": ply})


def answer(player: Player, game: str, ply: int, accept: bool) -> None:
    player.wire.send({"type": "undo_answer", "game": game, "ply": ply, "accept": accept})


def test_an_accepted_undo_takes_back_the_turn_and_its_captures(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Uok")
    game = start["id"]
    watcher = server.connect()
    watcher.send({"type": "watch", "game": game})
    watcher.expect("state")
    # White 1A is captured by black 1B: taking 1B back brings 1A back.
    moves = ["2A", "1A", "1B"]
    for ply, point in enumerate(moves):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        played = play(mover, other, game, ply, point)
    assert played["captured"] == ["1A"]
    for _ in moves:
        watcher.expect("played")
    ask(black, game, 3)
    requested = {"type": "undo_requested", "game": game, "ply": 3, "by": "black"}
    assert black.wire.expect("undo_requested") == requested
    assert white.wire.expect("undo_requested") == requested
    answer(white, game, 3, True)
    undone = black.wire.expect("undone")["game"]
    assert white.wire.expect("undone")["game"] == undone
    assert watcher.expect("undone")["game"]["moves"] == ["2A", "1A"]
    assert undone["moves"] == ["2A", "1A"]
    assert undone["to_move"] == "black"
    assert undone["board"] == board_of(["2A", "1A"])
    assert undone["remaining_ms"] > MOVE_TIME * 1000 - 5_000, "a full move time again under per_move"
    # Play goes on from there, for the players and the watcher alike.
    played = play(black, white, game, 2, "5E")
    assert watcher.expect("played") == played
    state = server.get_json(f"/api/games/{game}")
    assert state["moves"] == ["2A", "1A", "5E"]
    status, sgf = server.get(f"/api/games/{game}.sgf")
    assert status == 200 and ";B[bi]" not in sgf and sgf.rstrip().endswith(";B[ah];W[ai];B[ee])"), sgf


def test_a_declined_undo_changes_nothing_and_is_told_to_the_requester(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Uno")
    game = start["id"]
    play(black, white, game, 0, "5E")
    ask(black, game, 1)
    black.wire.expect("undo_requested")
    white.wire.expect("undo_requested")
    answer(white, game, 1, False)
    assert black.wire.expect("undo_declined") == {"type": "undo_declined", "game": game, "ply": 1}
    white.wire.silent(0.3)
    assert server.get_json(f"/api/games/{game}")["moves"] == ["5E"]


def test_playing_on_declines_a_pending_request(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Ulapse")
    game = start["id"]
    play(black, white, game, 0, "5E")
    ask(black, game, 1)
    black.wire.expect("undo_requested")
    white.wire.expect("undo_requested")
    play(white, black, game, 1, "4D")
    assert black.wire.expect("undo_declined") == {"type": "undo_declined", "game": game, "ply": 1}
    answer(white, game, 1, True)
    assert "no undo request" in white.wire.expect("error")["message"]


def test_bad_requests_name_the_problem_and_change_nothing(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Ubad")
    game = start["id"]
    assert "not yours" in black.wire.error({"type": "undo", "game": game, "ply": 0}, "bad_request")["message"]
    play(black, white, game, 0, "5E")
    assert "not yours" in white.wire.error({"type": "undo", "game": game, "ply": 1}, "bad_request")["message"]
    assert "'ply'" in black.wire.error({"type": "undo", "game": game, "ply": 7}, "bad_request")["message"]
    assert "'accept'" in white.wire.error({"type": "undo_answer", "game": game, "ply": 1}, "bad_request")["message"]
    ask(black, game, 1)
    black.wire.expect("undo_requested")
    white.wire.expect("undo_requested")
    assert "already waiting" in black.wire.error({"type": "undo", "game": game, "ply": 1}, "bad_request")["message"]
    assert "opponent" in black.wire.error(
        {"type": "undo_answer", "game": game, "ply": 1, "accept": True}, "bad_request"
    )["message"]
    outsider = sign_in(server, fresh_name("Uout"))
    outsider.wire.error({"type": "undo", "game": game, "ply": 1}, "not_your_game")
    outsider.wire.error({"type": "undo", "game": "nosuchgame", "ply": 1}, "unknown_game")
    assert server.get_json(f"/api/games/{game}")["moves"] == ["5E"]


def test_a_player_asks_at_most_three_times_a_game(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Ulimit")
    game = start["id"]
    play(black, white, game, 0, "5E")
    for _ in range(3):
        ask(black, game, 1)
        black.wire.expect("undo_requested")
        white.wire.expect("undo_requested")
        answer(white, game, 1, False)
        black.wire.expect("undo_declined")
    refused = black.wire.error({"type": "undo", "game": game, "ply": 1}, "bad_request")
    assert "at most 3" in refused["message"]
    # The opponent has requests of its own.
    play(white, black, game, 1, "4D")
    ask(white, game, 2)
    assert black.wire.expect("undo_requested")["by"] == "white"


def test_a_pending_request_survives_kill_9_of_the_server(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path), MOVE_TIME) as server:
        black, white, start = start_game(server, "Ukill")
        game = start["id"]
        play(black, white, game, 0, "5E")
        play(white, black, game, 1, "4D")
        ask(white, game, 2)
        white.wire.expect("undo_requested")
        black.wire.expect("undo_requested")
        server.kill()
        server.restart()
        black = sign_in(server, black.name, black.token)
        white = sign_in(server, white.name, white.token)
        answer(black, game, 2, True)
        assert white.wire.expect("undone")["game"]["moves"] == ["5E"]
        assert black.wire.expect("undone")["game"]["to_move"] == "white"
        server.kill()
        server.restart()
        assert server.get_json(f"/api/games/{game}")["moves"] == ["5E"]


@pytest.mark.slow
def test_an_undo_crosses_processes_on_one_database(postgres: PostgresCluster) -> None:
    url = postgres.new_database()
    with ServerProcess(url, MOVE_TIME) as first, ServerProcess(url, MOVE_TIME) as second:
        black = sign_in(first, fresh_name("Uxb"))
        white = sign_in(second, fresh_name("Uxw"))
        watcher = second.connect()
        black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
        white.wire.send({"type": "seek", "size": 9, "color": "white"})
        game = white.wire.expect("start")["game"]["id"]
        black.wire.expect("start")
        watcher.send({"type": "watch", "game": game})
        watcher.expect("state")
        play(black, white, game, 0, "5E")
        watcher.expect("played")
        ask(black, game, 1)
        black.wire.expect("undo_requested")
        assert white.wire.expect("undo_requested", timeout=10)["by"] == "black"
        answer(white, game, 1, True)
        assert black.wire.expect("undone", timeout=10)["game"]["moves"] == []
        assert white.wire.expect("undone")["game"]["moves"] == []
        assert watcher.expect("undone", timeout=10)["game"]["moves"] == []
        # Then a decline across them, and a turn after it reaches everyone once.
        play(black, white, game, 0, "3C")
        assert watcher.expect("played")["ply"] == 0
        ask(black, game, 1)
        black.wire.expect("undo_requested")
        white.wire.expect("undo_requested", timeout=10)
        answer(white, game, 1, False)
        assert black.wire.expect("undo_declined", timeout=10)["ply"] == 1
        # Playing on through the other process declines a request too.
        ask(black, game, 1)
        black.wire.expect("undo_requested")
        white.wire.expect("undo_requested", timeout=10)
        play(white, black, game, 1, "4D")
        assert black.wire.expect("undo_declined", timeout=10) == {"type": "undo_declined", "game": game, "ply": 1}
