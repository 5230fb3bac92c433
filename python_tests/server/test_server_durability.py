"""`gokata serve`, durability: ``kill -9`` mid-game and right after a game's end, then a restart
on the same database; a clean stop by SIGTERM or SIGINT. Each test has servers of its own.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import pytest
from websockets.exceptions import ConnectionClosed

from gokata import Go
from support.databases import Databases
from support.expected import Ledger, assert_matches, assert_welcome
from support.server_process import Frame, Player, ServerProcess, fresh_name, gokata_command, play, sign_in, start_game
from support.waiting import wait_until


def rows(go: Go) -> list[str]:
    return ["".join(row) for row in go.board]


def play_all(black: Player, white: Player, game: str, points: Sequence[Optional[str]], first_ply: int = 0) -> None:
    for ply, point in enumerate(points, first_ply):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        play(mover, other, game, ply, point)


def local_game(points: list[Optional[str]], size: int = 9) -> Go:
    go = Go(size)
    for point in points:
        if point is None:
            go.pass_turn()
        else:
            go.move(point)
    return go


def integrity(databases: Databases, db: str) -> None:
    """The database is sound (the server has exited): an SQLite file passes its integrity check;
    on PostgreSQL every game's turn count is its turns', and the wins and losses add up to the
    finished games."""
    if databases.kind == "sqlite":
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        connection.close()
        return
    name = db.rsplit("/", 1)[1]
    counts = databases.cluster.psql(
        "SELECT (SELECT count(*) FROM games g WHERE plies <> (SELECT count(*) FROM turns t WHERE t.game = g.id)),"
        " (SELECT count(*) FROM games WHERE status = 'over'),"
        " (SELECT coalesce(sum(wins), 0) FROM players), (SELECT coalesce(sum(losses), 0) FROM players)",
        name,
    )
    wrong, over, wins, losses = (int(n) for n in counts.strip().split("|"))
    assert (wrong, wins, losses) == (0, over, over), counts


def test_kill_9_mid_game_then_restart_loses_no_acknowledged_turn(tmp_path: Path, databases: Databases) -> None:
    move_time = 10.0
    db = databases.new(tmp_path)
    server = ServerProcess(db, move_time)
    with server:
        black, white, start = start_game(server, "Dkill")
        game = start["id"]
        acknowledged: list[Optional[str]] = ["3A", "2A", "2B", "1A", "1B", "5E", None, "6F"]
        play_all(black, white, game, acknowledged)
        waiting = sign_in(server, fresh_name("Dseek"))
        waiting.wire.request({"type": "seek", "size": 9, "color": "any"}, "seeking")
        # Black's clock runs: 7.6 s left of 10 (synced now and then, not to flood the server).
        wait_until(lambda: black.wire.sync(game)["remaining_ms"] <= 7600, 10, "black's clock at 7.6 s", every=0.25)
        # One more move, sent but not acknowledged: the kill may come before or after its commit.
        black.wire.send({"type": "move", "game": game, "ply": 8, "point": "7G"})
        server.kill()
        killed = time.monotonic()
        assert server.process is not None and server.process.returncode == -signal.SIGKILL

        server.restart()
        restarted = time.monotonic()
        back = sign_in(server, black.name, black.token)
        assert [g["id"] for g in back.welcome["games"]] == [game]
        state = back.welcome["games"][0]
        assert state["moves"][:8] == acknowledged, "every acknowledged turn is there"
        assert state["moves"] in (acknowledged, acknowledged + ["7G"])
        assert state["board"] == rows(local_game(state["moves"]))
        assert state["status"] == "playing"
        assert state["move_time_ms"] == 10000
        if databases.kind == "sqlite":
            # The one server restarted: the player to move has the full move time again.
            assert state["remaining_ms"] >= 10000 - 1000 - 1000 * (time.monotonic() - restarted), state["remaining_ms"]
        else:
            # The database's clock ran on through the restart (another process could have
            # served the game meanwhile); a dead process's seeks go within 3 seconds.
            assert state["remaining_ms"] <= 10000 - 1000 * (time.monotonic() - killed) + 50, state["remaining_ms"]
            wait_until(
                lambda: waiting.name not in [seek["name"] for seek in server.get_json("/api/seeks")["seeks"]],
                max(0.1, killed + 3.5 - time.monotonic()),
                "the dead process's seek to go",
            )
        # Seeks do not survive a restart: a new seek waits.
        other = sign_in(server, fresh_name("Dseek"))
        other.wire.request({"type": "seek", "size": 9, "color": "any"}, "seeking")
        other.wire.request({"type": "cancel"}, "cancelled")

        white2 = sign_in(server, white.name, white.token)
        assert [g["moves"] for g in white2.welcome["games"]] == [state["moves"]]
        # The move sent before the kill is sent again with the same ply: harmless either way.
        back.wire.send({"type": "move", "game": game, "ply": 8, "point": "7G"})
        reply = back.wire.recv()
        if reply["type"] == "played":
            assert state["moves"] == acknowledged
            assert white2.wire.expect("played") == reply
        else:
            assert reply["type"] == "state" and reply["game"]["moves"] == acknowledged + ["7G"], reply
        moves = acknowledged + ["7G"]
        # The game is finished: two passes, scored.
        play(white2, back, game, 9, "4D")
        play(back, white2, game, 10, None)
        play(white2, back, game, 11, None)
        over = back.wire.expect("over")
        assert white2.wire.expect("over") == over
        moves += ["4D", None, None]
        score = local_game(moves).score(komi=0.5)
        assert (over["winner"], over["reason"]) == (score["winner"], "passes")
        assert over["score"] == {"black": score["black"], "white": score["white"], "komi": 0.5}
        status, final = server.get(f"/api/games/{game}")
        assert status == 200 and final["moves"] == moves and final["status"] == "over"
    integrity(databases, db)


def test_kill_9_right_after_the_end_keeps_the_result_and_the_records_once(tmp_path: Path, databases: Databases) -> None:
    db = databases.new(tmp_path)
    server = ServerProcess(db)
    with server:
        black, white, start = start_game(server, "Dend")
        game = start["id"]
        moves: list[Optional[str]] = ["5E", "4D", "5D", "4E", None]
        play_all(black, white, game, moves)
        white.wire.send({"type": "pass", "game": game, "ply": 5})
        assert white.wire.expect("played")["ply"] == 5
        over = white.wire.expect("over")
        server.kill()  # at once, after the `over` was received

        server.restart()
        score = local_game(moves + [None]).score(komi=0.5)
        assert (over["winner"], over["score"]) == (score["winner"], {"black": score["black"], "white": score["white"], "komi": 0.5})
        status, state = server.get(f"/api/games/{game}")
        assert status == 200
        assert (state["status"], state["winner"], state["reason"], state["score"], state["remaining_ms"]) == (
            "over", over["winner"], "passes", over["score"], None
        )
        assert state["moves"] == moves + [None]
        win, loss = (black, white) if over["winner"] == "black" else (white, black)
        ledger = Ledger()
        ratings = ledger.finish(black.name, white.name, over["winner"])
        ledger.check_over(over, black.name, white.name, ratings)

        def counted_once() -> None:
            for who in (win, loss):
                assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))

        counted_once()
        again = sign_in(server, win.name, win.token)
        won = ledger.of(win.name)
        assert_welcome(again.welcome, win.name, wins=1, losses=0, rating=won.rating)
        assert again.welcome["games"] == []
        # The finished game stays finished: a late turn gets the state.
        assert again.wire.request({"type": "pass", "game": game, "ply": 6}, "state")["game"]["status"] == "over"
        # Restart once more: still counted once.
        server.stop()
        server.restart()
        counted_once()
    integrity(databases, db)


def goodbye_then_close(wire_frames: list[Frame], closed: ConnectionClosed) -> None:
    assert wire_frames and wire_frames[-1]["type"] == "goodbye", wire_frames
    assert isinstance(wire_frames[-1]["reason"], str)
    assert closed.rcvd is not None and closed.rcvd.code == 1012, closed


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_server_cleanly(tmp_path: Path, databases: Databases, signum: int) -> None:
    db = databases.new(tmp_path)
    server = ServerProcess(db)
    with server:
        black, white, start = start_game(server, "Dstop")
        game = start["id"]
        play_all(black, white, game, ["5E", "4D", "3C"])
        seeker = sign_in(server, fresh_name("Dstop"))
        seeker.wire.request({"type": "seek", "size": 13}, "seeking")
        anonymous = server.connect()  # no hello yet
        anonymous.ping()
        stopping = time.monotonic()
        server.send_signal(signum)
        for wire in (black.wire, white.wire, seeker.wire, anonymous):
            frames: list[Frame] = []
            try:
                while True:
                    frames.append(wire.recv())
            except ConnectionClosed as closed:
                goodbye_then_close(frames, closed)
        assert server.wait(10) == 0
        assert time.monotonic() - stopping < 5, "the server stops quickly"
        assert server.lines[-1].endswith("stopped"), server.output()
        integrity(databases, db)

        server.restart()
        back = sign_in(server, black.name, black.token)
        assert [g["moves"] for g in back.welcome["games"]] == [["5E", "4D", "3C"]]
        white2 = sign_in(server, white.name, white.token)
        play(white2, back, game, 3, "6F")
        server.stop(signum)
    integrity(databases, db)
    server.restart()
    try:
        status, state = server.get(f"/api/games/{game}")
        assert status == 200 and state["moves"] == ["5E", "4D", "3C", "6F"]
    finally:
        assert server.stop() == 0


def test_a_half_sent_request_does_not_hold_the_server_open(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path)) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as stalled:
            stalled.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
            # A request on a later connection answered: the server has accepted the stalled one.
            assert server.get("/health")[0] == 200
            started = time.monotonic()
            assert server.stop(signal.SIGTERM, timeout=15) == 0
            assert time.monotonic() - started < 8, "the stalled request held the server open"


@pytest.mark.parametrize("move_time", ["0.0005", "0", "-1", "nan", "soon"])
def test_a_move_time_under_a_millisecond_is_refused(tmp_path: Path, move_time: str) -> None:
    command = gokata_command() + ["serve", "--port", "0", "--db", str(tmp_path / "x.sqlite3"), "--move-time", move_time]
    run = subprocess.run(command, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "--move-time" in run.stderr and move_time in run.stderr, run.stderr
    assert not (tmp_path / "x.sqlite3").exists(), "nothing is created before the arguments are good"


def test_the_python_server_refuses_a_move_time_under_a_millisecond(tmp_path: Path) -> None:
    from gokata import Server

    with pytest.raises(ValueError, match="0.0005"):
        Server(port=0, db=str(tmp_path / "x.sqlite3"), move_time=0.0005)
