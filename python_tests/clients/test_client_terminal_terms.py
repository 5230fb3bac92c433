"""``gokata connect`` with the server's terms (``--time``, ``--unrated``, ``--handicap``,
``--komi``), fed piped input, against the real server and an opponent on the same terms through
``gokata.client``: the seek's terms told, the ranks beside the names, the handicap stones on the
board with white first, the clocks in byo-yomi's form, a draw, and a usage error for a time
control it cannot read. (The ratings' change at the end of a rated game: test_client_terminal.py
and test_client_at_a_terminal.py.)"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gokata.client import Over, RemoteGame, connect
from support.clients import environment, unique
from support.command_runs import Run
from support.server_process import ServerProcess, gokata_command


def connect_command(url: str, name: str, config: Path, *options: str, stdin: str) -> Run:
    """``gokata connect URL --name NAME OPTIONS``, run to its end with ``stdin`` piped in."""
    done = subprocess.run(
        gokata_command() + ["connect", url, "--name", name, *options],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment(config),
        timeout=90,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def passer(url: str, name: str, color: str, **terms: Any) -> Future[RemoteGame]:
    """A Python-client player in a thread: seeks ``color`` on ``terms``, passes on each of its
    turns until the game is over; the future's result is its game."""

    def play() -> RemoteGame:
        with connect(url, name) as player:
            game = player.seek(9, color, timeout=60, **terms)
            while not isinstance(game.wait(timeout=60), Over):
                game.pass_turn()
            return game

    pool = ThreadPoolExecutor(1)
    future = pool.submit(play)
    pool.shutdown(wait=False)
    return future


def test_an_unrated_handicap_game_on_byoyomi(server: ServerProcess, tmp_path: Path) -> None:
    me, them = unique("term"), unique("py")
    options = ("--color", "black", "--time", "10m+5x30s", "--unrated", "--handicap", "3", "--komi", "6.5")
    white = passer(server.ws_url, them, "white", time="10m+5x30s", rated=False, handicap=3, komi=6.5)
    run = connect_command(server.ws_url, me, tmp_path, *options, stdin="pass\n")
    game = white.result(timeout=30)
    assert run.status == 0, run.err + run.out
    assert (game.handicap, game.komi, game.rated, game.time) == (
        3,
        6.5,
        False,
        {"system": "byoyomi", "main_ms": 600_000, "period_ms": 30_000, "periods": 5},
    )
    seeking = "Seeking a 9x9 game (unrated, 3 handicap stones, komi 6.5, byo-yomi 10:00 + 5 x 0:30), playing black;"
    assert any(line.startswith(seeking) for line in run.lines), run.out
    announced = (
        rf"Game {game.id} on 9x9: {me} \[6k\?\] \(black\) against {them} \[6k\?\] \(white\); unrated, "
        r"3 handicap stones \(white moves first\), komi 6\.5, byo-yomi 10:00 \+ 5 x 0:30\. You play black\."
    )
    assert any(re.fullmatch(announced, line) for line in run.lines), run.out
    assert run.boards[0][2] == "......x.." and run.boards[0][6] == "..x...x..", "the stones before the first turn"
    assert "White passes." in run.lines and "Black passes." in run.lines
    clock = r"\d+:\d\d \+ 5 x 0:30"
    status = rf"Black to play \(turn 2\)\. You have {clock}\. {them} has {clock}\."
    assert any(re.fullmatch(status, line) for line in run.lines), run.out
    assert "Score: black 81, white 0 + 6.5 komi = 6.5." in run.lines
    assert f"Black ({me}) wins by 74.5 points." in run.lines and "You win." in run.lines
    assert not any(line.startswith("Ratings:") for line in run.lines), "unrated: no rating moved"
    assert run.lines[-1] == f"Records: {me} 1 win, 0 losses; {them} 0 wins, 1 loss."


def test_a_draw_with_a_whole_number_komi(server: ServerProcess, tmp_path: Path) -> None:
    me, them = unique("term"), unique("py")
    white = passer(server.ws_url, them, "white", rated=False, komi=0)
    run = connect_command(server.ws_url, me, tmp_path, "--color", "black", "--unrated", "--komi", "0", stdin="pass\n")
    game = white.result(timeout=30)
    assert run.status == 0, run.err + run.out
    assert game.over is not None and game.over.winner is None and game.winner is None
    ending = run.lines[run.lines.index("Two passes in a row: the game is over.") :]
    assert ending == [
        "Two passes in a row: the game is over.",
        "Score: black 0, white 0 + 0 komi = 0.",
        "A draw (jigo): neither wins.",
        f"Records: {me} 0 wins, 0 losses; {them} 0 wins, 0 losses.",
    ], run.out


def test_a_time_control_it_cannot_read_is_a_usage_error(server: ServerProcess, tmp_path: Path) -> None:
    run = connect_command(server.ws_url, unique("term"), tmp_path, "--time", "10m+5x30", stdin="")
    assert run.status == 2 and run.out == ""
    assert "gokata connect: error: argument --time: time control '10m+5x30': a period, '30', is not a duration" in run.err
