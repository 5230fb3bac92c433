"""`gokata serve --bot`: the server's own computer opponent, so that a lone player always has a
game. A real server process (SQLite, and two processes on one PostgreSQL database); the person
is the Python client asking for the computer. Tested: a game to two passes with every answer
in seconds; several games at once; the server killed with `kill -9` and restarted in the middle
of a game; one of two processes killed; a person's name refused for the bot.
"""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gokata
from gokata.client import Over, RemoteGame, connect
from support.expected import assert_shows
from support.postgres_cluster import PostgresCluster
from support.server_process import ServerProcess, fresh_name, gokata_command, sign_in
from support.waiting import wait_until

BOT = ("--bot",)
ANSWER_WITHIN = 5.0
"""Seconds the computer may take for a move on 9x9 (it thinks for at most three)."""


def play_to_the_end(game: RemoteGame, moves: int) -> tuple[Over, float]:
    """Plays ``moves`` quick moves, then passes on every turn; the end, and the longest the
    computer took to answer."""
    slowest, played, deadline = 0.0, 0, time.monotonic() + 180
    while not game.is_over:
        assert time.monotonic() < deadline, f"no end: {game.moves}"
        if game.my_turn:
            point = gokata.genmove(game.local_copy(), playouts=20, seed=played, threads=1) if played < moves else None
            if point is None:
                game.pass_turn()
            else:
                game.move(point)
            played += 1
            sent = time.monotonic()
            while not game.my_turn and not game.is_over:
                game.wait(timeout=ANSWER_WITHIN * 2)
            slowest = max(slowest, time.monotonic() - sent)
        else:
            game.wait(timeout=ANSWER_WITHIN * 2)
    return game.result(), slowest


@pytest.mark.slow
def test_a_lone_player_gets_a_game_with_the_computer_to_the_end(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0, BOT) as server:
        assert "the computer plays as gokata-bot" in server.lines[0]
        # The computer seeks once it has signed in, just after the server starts listening.
        [seek] = wait_until(lambda: server.get_json("/api/seeks")["seeks"], 10, "the computer's seek listed")
        assert_shows(seek, {
            "name": "gokata-bot", "size": [9, 13, 19], "color": "any", "opponent": "human", "bot": True,
            # The computer's seek asks nothing of the terms: rated, even, the server's move time.
            "rank": "6k?", "rated": True, "handicap": 0, "komi": 0.5,
            "time": {"system": "per_move", "move_ms": 60_000},
        })
        with connect(server.ws_url, fresh_name("Lone")) as person:
            game = person.seek(9, opponent="computer", timeout=10)
            computer_color = "white" if game.color == "black" else "black"
            assert game.opponent == "gokata-bot" and game.bots == {computer_color: True, game.color: False}
            over, slowest = play_to_the_end(game, moves=15)
        assert over.reason in ("passes", "resign"), over
        assert slowest < ANSWER_WITHIN, f"the computer took {slowest:.1f} s"
        assert server.get_json("/api/players/gokata-bot")["bot"] is True
        computer = [ply for ply in range(len(game.moves)) if (ply % 2 == 0) == (game.color == "white")]
        assert len([p for p in computer if game.moves[p] is not None]) >= 5, "the computer played stones"


@pytest.mark.slow
def test_several_people_play_the_computer_at_once(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0, BOT) as server:
        with connect(server.ws_url, fresh_name("Ann")) as ann, connect(server.ws_url, fresh_name("Ben")) as ben:
            with ThreadPoolExecutor(2) as pool:
                games = list(pool.map(lambda who: who.seek(9, opponent="computer", timeout=10), [ann, ben]))
                results = list(pool.map(lambda game: play_to_the_end(game, moves=6), games))
        assert len({game.id for game in games}) == 2
        for over, slowest in results:
            assert over.reason in ("passes", "resign") and slowest < ANSWER_WITHIN * 2


def test_a_person_asking_for_a_person_never_meets_the_computer(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0, BOT) as server:
        person = sign_in(server, fresh_name("Human"))
        person.wire.request({"type": "seek", "size": 9}, "seeking")
        person.wire.silent(1.0)  # no start
        waiting = {s["name"] for s in server.get_json("/api/seeks")["seeks"]}
        assert waiting == {"gokata-bot", person.name}
        person.wire.close()


@pytest.mark.slow
def test_the_server_killed_and_restarted_mid_game_the_computer_plays_on(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "s.sqlite3", 60.0, BOT).start()
    try:
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=10)
            for point in ("5E", "3C"):
                if point in game.legal_moves():
                    game.move(point)
                while not game.my_turn:
                    game.wait(timeout=10)
            played = game.move_number
            server.kill()
            server.restart()
            over, _ = play_to_the_end(game, moves=4)
        assert over.reason in ("passes", "resign") and len(game.moves) > played
        assert server.get_json(f"/api/games/{game.id}")["moves"] == game.moves
    finally:
        server.stop()
        server.kill()


def test_two_processes_with_the_bot_survive_one_killed(postgres: PostgresCluster) -> None:
    url = postgres.new_database()
    with ServerProcess(url, 60.0, BOT) as one, ServerProcess(url, 60.0, BOT) as other:
        with connect(other.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=10)
            game.move("5E")
            while not game.my_turn:
                game.wait(timeout=10)
            one.kill()
            over, slowest = play_to_the_end(game, moves=4)
        assert over.reason in ("passes", "resign") and slowest < ANSWER_WITHIN * 2
        moves = other.get_json(f"/api/games/{game.id}")["moves"]
        assert moves == game.moves


def test_a_persons_name_is_refused_for_the_bot(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    with ServerProcess(db, 60.0) as server:
        sign_in(server, "taken-name").wire.close()
    command = [*gokata_command(), "serve", "--port", "0", "--db", str(db), "--bot", "taken-name"]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert finished.returncode == 1
    assert '"taken-name" is the name of a person' in finished.stderr
