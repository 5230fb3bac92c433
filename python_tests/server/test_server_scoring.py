"""Scoring by agreement: after two passes the server proposes the dead stones, the players mark
chains, accept, or resume; the agreed marks (or, when time runs out, the server's) decide. The
real server on both stores with raw frames; areas checked against `gokata.Go.score` of the board
with the dead stones taken off (a path apart from the server's). Also `kill -9` in the middle and
two processes on one PostgreSQL database.
"""

from __future__ import annotations

import time as clock
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gokata import Go
from support.databases import Databases
from support.postgres_cluster import PostgresCluster
from support.server_process import Player, ServerProcess, fresh_name, play, sign_in

MOVE_TIME = 60.0
LIMITS = ("--registrations-per-hour", "1000")
# Black walls off the top of the board on row 5, white the bottom on row 4; a white stone at 7C
# is left alone in black's area: dead.
WALLS = [point for column in "ABCDEFGHJ" for point in (f"5{column}", f"4{column}")]
TURNS: list[str | None] = [*WALLS, None, "7C", None, None]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("scoring"), "server"), MOVE_TIME, LIMITS) as process:
        yield process


def agreement_game(black_entry: Any, white_entry: Any, prefix: str) -> tuple[Player, Player, str]:
    black = sign_in(black_entry, fresh_name(prefix + "b"))
    white = sign_in(white_entry, fresh_name(prefix + "w"))
    seeking = black.wire.request({"type": "seek", "size": 9, "color": "black", "scoring": "agreement"}, "seeking")
    assert seeking["scoring"] == "agreement"
    white.wire.send({"type": "seek", "size": 9, "color": "white", "scoring": "agreement"})
    start = white.wire.expect("start", timeout=10)["game"]
    black.wire.expect("start", timeout=10)
    assert start["scoring"] == "agreement"
    return black, white, start["id"]


def play_to_scoring(black: Player, white: Player, game: str) -> dict[str, Any]:
    """The turns of `TURNS`; the `scoring` both players get after the second pass."""
    for ply, point in enumerate(TURNS):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        play(mover, other, game, ply, point)
    scoring = black.wire.expect("scoring", timeout=10)
    assert white.wire.expect("scoring", timeout=10) == scoring
    return scoring


def area(dead: list[str]) -> tuple[int, int]:
    go = Go(9)
    for point in TURNS:
        if point is None:
            go.pass_turn()
        else:
            go.move(point)
    rows = [["." if f"{9 - r}{'ABCDEFGHJ'[c]}" in dead else cell for c, cell in enumerate(row)]
            for r, row in enumerate(go.board)]
    score = Go.from_board(rows).score(komi=0.5)
    return score["black"], score["white"]


def test_the_server_proposes_the_dead_stones_and_the_agreed_marks_decide(server: ServerProcess) -> None:
    black, white, game = agreement_game(server, server, "Sok")
    watcher = server.connect()
    watcher.send({"type": "watch", "game": game})
    assert watcher.expect("state")["game"]["status"] == "playing"
    scoring = play_to_scoring(black, white, game)
    assert scoring["dead"] == ["7C"], scoring
    assert scoring["accepted"] == {"black": False, "white": False}
    black_area, white_area = area(["7C"])
    assert scoring["score"] == {"black": black_area, "white": white_area, "komi": 0.5}
    state = server.get_json(f"/api/games/{game}")
    assert (state["status"], state["marks"]["dead"]) == ("scoring", ["7C"])
    # White says its stone lives: every change clears the acceptances and is told to all.
    black.wire.send({"type": "accept", "game": game, "dead": ["7C"]})
    assert black.wire.expect("scoring")["accepted"] == {"black": True, "white": False}
    white.wire.expect("scoring")
    white.wire.send({"type": "mark", "game": game, "point": "7C", "dead": False})
    alive = white.wire.expect("scoring")
    assert (alive["dead"], alive["accepted"]) == ([], {"black": False, "white": False})
    assert black.wire.expect("scoring") == alive
    refused = white.wire.error({"type": "accept", "game": game, "dead": ["7C"]}, "bad_request")
    assert "not the set marked now" in refused["message"]
    white.wire.error({"type": "move", "game": game, "ply": len(TURNS), "point": "1A"}, "bad_request")
    black.wire.send({"type": "mark", "game": game, "point": "7C", "dead": True})
    black.wire.expect("scoring")
    white.wire.expect("scoring")
    black.wire.send({"type": "accept", "game": game, "dead": ["7C"]})
    black.wire.expect("scoring")
    white.wire.expect("scoring")
    white.wire.send({"type": "accept", "game": game, "dead": ["7C"]})
    over = white.wire.expect("over")
    assert black.wire.expect("over") == over
    assert (over["winner"], over["reason"]) == ("black", "score")
    assert over["score"] == {"black": black_area, "white": white_area, "komi": 0.5}
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["type"] != "over":
        seen.append(watcher.recv())
    kinds = [frame["type"] for frame in seen]
    assert kinds.count("played") == len(TURNS) and kinds.count("scoring") >= 5, kinds
    assert seen[-1] == over
    status, sgf = server.get(f"/api/games/{game}.sgf")
    assert f"RE[B+{black_area - white_area - 0.5}]" in sgf


def test_resume_goes_back_to_play_with_the_first_to_pass_to_move(server: ServerProcess) -> None:
    black, white, game = agreement_game(server, server, "Sres")
    play_to_scoring(black, white, game)
    white.wire.send({"type": "resume", "game": game})
    resumed = white.wire.expect("resumed")["game"]
    assert black.wire.expect("resumed")["game"]["moves"] == resumed["moves"]
    assert (resumed["status"], resumed["to_move"], resumed["marks"]) == ("playing", "black", None)
    # A pass right after a resume is not a second pass: two more start the next phase.
    play(black, white, game, len(TURNS), None)
    assert server.get_json(f"/api/games/{game}")["status"] == "playing"
    black.wire.error({"type": "resume", "game": game}, "bad_request")
    play(white, black, game, len(TURNS) + 1, None)
    assert black.wire.expect("scoring")["dead"] == ["7C"]


def test_the_scoring_phase_runs_on_no_players_clock(server: ServerProcess) -> None:
    """A turn sent in the scoring phase is refused, however long the phase has run: it is not
    charged to the sender's clock (here two seconds in all), nor can a turn be taken back."""
    time = {"system": "byoyomi", "main_ms": 1_000, "period_ms": 1_000, "periods": 1}
    black = sign_in(server, fresh_name("Sclkb"))
    white = sign_in(server, fresh_name("Sclkw"))
    terms = {"size": 9, "scoring": "agreement", "time": time, "rated": False}
    black.wire.request({"type": "seek", "color": "black", **terms}, "seeking")
    white.wire.send({"type": "seek", "color": "white", **terms})
    game = white.wire.expect("start")["game"]["id"]
    black.wire.expect("start")
    play(black, white, game, 0, None)
    play(white, black, game, 1, None)
    black.wire.expect("scoring")
    white.wire.expect("scoring")
    clock.sleep(2.5)
    refused = black.wire.error({"type": "pass", "game": game, "ply": 2}, "bad_request")
    assert "being scored" in refused["message"]
    refused = white.wire.error({"type": "undo", "game": game, "ply": 2}, "bad_request")
    assert "being scored" in refused["message"]
    assert server.get_json(f"/api/games/{game}")["status"] == "scoring"


def test_bad_frames_and_seeks_are_refused(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Sbad"))
    refused = player.wire.error({"type": "seek", "size": 9, "scoring": "japanese"}, "bad_request")
    assert "'scoring'" in refused["message"]
    robot = server.connect()
    robot.request({"type": "hello", "name": fresh_name("Srobot"), "bot": True}, "welcome")
    refused = robot.error({"type": "seek", "size": 9, "scoring": "agreement"}, "bad_request")
    assert "program" in refused["message"]
    # An agreement seek does not meet a seek counting every stone alive.
    other = sign_in(server, fresh_name("Sall"))
    player.wire.request({"type": "seek", "size": 9, "scoring": "agreement"}, "seeking")
    assert other.wire.request({"type": "seek", "size": 9}, "seeking")["scoring"] == "all_alive"
    player.wire.request({"type": "cancel"}, "cancelled")
    other.wire.request({"type": "cancel"}, "cancelled")
    black, white, game = agreement_game(server, server, "Smark")
    white.wire.error({"type": "mark", "game": game, "point": "5E", "dead": True}, "bad_request")
    play_to_scoring(black, white, game)
    assert "no stone" in black.wire.error({"type": "mark", "game": game, "point": "9A", "dead": True},
                                           "bad_request")["message"]
    assert "'dead'" in black.wire.error({"type": "mark", "game": game, "point": "7C"}, "bad_request")["message"]
    black.wire.error({"type": "accept", "game": game}, "bad_request")


def test_without_agreement_in_time_the_proposal_decides(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path), 3.0) as server:
        black, white, game = agreement_game(server, server, "Stime")
        for ply, point in enumerate(TURNS):
            mover, other = (black, white) if ply % 2 == 0 else (white, black)
            mover.wire.send({"type": "pass", "game": game, "ply": ply} if point is None
                            else {"type": "move", "game": game, "ply": ply, "point": point})
            mover.wire.expect("played")
            other.wire.expect("played")
        black.wire.expect("scoring")
        over = black.wire.expect("over", timeout=8)
        assert (over["reason"], over["winner"]) == ("score", "black")
        assert (over["score"]["black"], over["score"]["white"]) == area(["7C"])


def test_the_scoring_phase_survives_kill_9(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path), MOVE_TIME) as server:
        black, white, game = agreement_game(server, server, "Skill")
        play_to_scoring(black, white, game)
        white.wire.send({"type": "accept", "game": game, "dead": ["7C"]})
        white.wire.expect("scoring")
        server.kill()
        server.restart()
        state = server.get_json(f"/api/games/{game}")
        assert state["status"] == "scoring"
        assert state["marks"]["accepted"] == {"black": False, "white": True}
        black = sign_in(server, black.name, black.token)
        black.wire.send({"type": "accept", "game": game, "dead": ["7C"]})
        assert black.wire.expect("over")["reason"] == "score"


@pytest.mark.slow
def test_scoring_crosses_processes_on_one_database(postgres: PostgresCluster) -> None:
    url = postgres.new_database()
    with ServerProcess(url, MOVE_TIME) as first, ServerProcess(url, MOVE_TIME) as second:
        black, white, game = agreement_game(first, second, "Sx")
        scoring = play_to_scoring(black, white, game)
        assert scoring["dead"] == ["7C"]
        white.wire.send({"type": "mark", "game": game, "point": "7C", "dead": False})
        assert white.wire.expect("scoring")["dead"] == []
        assert black.wire.expect("scoring", timeout=10)["dead"] == []
        black.wire.send({"type": "resume", "game": game})
        black.wire.expect("resumed")
        assert white.wire.expect("resumed", timeout=10)["game"]["status"] == "playing"
        play(black, white, game, len(TURNS), "8H")
        play(white, black, game, len(TURNS) + 1, None)
        play(black, white, game, len(TURNS) + 2, None)
        assert black.wire.expect("scoring", timeout=10)["dead"] == ["7C"]
        white.wire.expect("scoring", timeout=10)
        # Both accept at once through two processes: neither acceptance overwrites the other;
        # one that raced the other is answered with the game's state, and sent again.
        accept = {"type": "accept", "game": game, "dead": ["7C"]}
        for player in (black, white):
            player.wire.send(accept)
        ended: dict[str, Any] = {}
        deadline = clock.monotonic() + 20
        while len(ended) < 2 and clock.monotonic() < deadline:
            for player in (black, white):
                if player.name in ended:
                    continue
                try:
                    frame = player.wire.recv(timeout=0.2)
                except TimeoutError:
                    continue
                if frame["type"] == "state" and frame["game"]["status"] == "scoring":
                    player.wire.send(accept)
                elif frame["type"] == "over":
                    ended[player.name] = frame
        assert [over["reason"] for over in ended.values()] == ["score", "score"], ended
