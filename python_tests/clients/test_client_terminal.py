"""``gokata connect``, the terminal client, fed piped input (a script: one line read on each of
its turns), against the real server and an opponent playing through ``gokata.client``. At a
terminal: test_client_at_a_terminal.py."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from gokata.client import Over, RemoteGame, connect
from support.clients import environment, free_port, unique
from support.command_runs import Run
from support.server_process import ServerProcess, gokata_command


def start(url: str, name: str, config: Path, *options: str, stdin: str = "") -> subprocess.Popen[str]:
    """``gokata connect URL --name NAME OPTIONS`` with ``stdin`` piped in, tokens under ``config``."""
    process = subprocess.Popen(
        gokata_command() + ["connect", url, "--name", name, *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(config),
    )
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    return process


def finish(process: subprocess.Popen[str], timeout: float = 60) -> Run:
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    out = process.stdout.read() if process.stdout else ""
    err = process.stderr.read() if process.stderr else ""
    return Run(process.returncode, out, err)


def lines(*commands: str) -> str:
    return "".join(command + "\n" for command in commands)


def opponent(
    url: str, name: str, color: str, turns: Sequence[str | None], until_over: bool = False
) -> Future[RemoteGame]:
    """A Python-client player in a thread: it seeks ``color`` and plays ``turns`` (None: pass)
    on its turns until they run out or the game ends (and, if ``until_over``, waits for the
    end); the future's result is its game."""

    def play() -> RemoteGame:
        with connect(url, name) as player:
            game = player.seek(9, color, timeout=30)
            for turn in turns:
                if isinstance(game.wait(timeout=30), Over):
                    break
                if turn is None:
                    game.pass_turn()
                else:
                    game.move(turn)
            if until_over:
                game.result(timeout=30)
            return game

    pool = ThreadPoolExecutor(1)
    future = pool.submit(play)
    pool.shutdown(wait=False)
    return future


def wait_for_line(process: subprocess.Popen[str], prefix: str) -> list[str]:
    """Reads the output until a line starting with ``prefix``; the lines read."""
    seen: list[str] = []

    def watch() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if line.startswith(prefix):
                return

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert seen and seen[-1].startswith(prefix), seen
    return seen


def test_a_game_with_a_capture_an_illegal_move_and_two_passes(server: ServerProcess, tmp_path: Path) -> None:
    me, them = unique("term"), unique("py")
    terminal = start(
        server.ws_url,
        me,
        tmp_path,
        "--color",
        "black",
        stdin=lines("help", "6E", "5e", "4E", "bogus", "5D 5F", "5D", "F5", "pass"),
    )
    white = opponent(server.ws_url, them, "white", ["5E", "9A", "9B", None], until_over=True)
    game = white.result(timeout=90)
    run = finish(terminal)
    assert run.status == 0, run.err + run.out
    assert run.err == ""
    # Signed in as a new player: the token is shown and saved for the next time.
    token = re.search(r"Your token: ([0-9a-f]{64})", run.out)
    assert token is not None, run.out
    saved = json.loads((tmp_path / "gokata" / "tokens.json").read_text())
    assert saved == {server.ws_url: {me.lower(): token.group(1)}}
    assert f"--name {me} --token {token.group(1)}" in run.out
    assert "pass; two passes in a row end the game" in run.out  # help
    assert "Seeking a 9x9 game, playing black" in run.out
    assert "You play black." in run.out and them in run.out
    # Both sides' turns, the capture, the refusals (still black to play after each).
    for line in ["Black plays E6.", "White plays E5.", "White plays A9.", "Black plays F5, capturing 1 stone: E5.",
                 "White passes.", "Black passes."]:
        assert line in run.lines, (line, run.out)
    assert len(run.errors) == 3, run.errors
    assert "E5" in run.errors[0] and "occupied" in run.errors[0]  # the server's message, points letter first
    assert run.errors[1:] == [
        "error: unknown command 'bogus' (type help for the commands)",
        "error: play one point per line",
    ]
    after = run.lines.index(run.errors[0]) + 1
    assert run.lines[after].startswith("Black to play (turn 3).")
    assert run.boards[0] == ["." * 9] * 9
    assert run.boards[-1][4] == "...x.x..."  # row 5 after the capture
    assert "....x...." == run.boards[-1][3] and "....x...." == run.boards[-1][5]
    assert re.search(r"Black to play \(turn 1\)\. You have \d+:\d\d\.", run.out)
    waiting = re.search(rf"White to play \(turn \d+\)\. Waiting for {them}, who has \d+:\d\d\.", run.out)
    assert waiting or "White plays B9." in run.lines  # unless white always answered at once
    # The end: reason, score, winner, records.
    assert "Two passes in a row: the game is over." in run.lines
    assert game.score is not None and game.winner == "black"
    black, white_area = game.score["black"], game.score["white"]
    assert f"Score: black {black:g}, white {white_area:g} + 0.5 komi = {white_area + 0.5:g}." in run.lines
    assert f"Black ({me}) wins by {black - white_area - 0.5:g} points." in run.lines
    assert "You win." in run.lines
    assert run.lines[-1] == f"Records: {me} 1 win, 0 losses; {them} 0 wins, 1 loss."


def test_leaving_and_coming_back_with_the_saved_token(server: ServerProcess, tmp_path: Path) -> None:
    me, them = unique("term"), unique("py")
    first = start(server.ws_url, me, tmp_path, "--color", "white", stdin=lines("4E", "quit"))
    black = opponent(server.ws_url, them, "black", ["5E", "3C"])
    run = finish(first)
    assert run.status == 0, run.err + run.out
    assert "White plays E4." in run.lines and "Black plays E5." in run.lines
    assert re.search(r"Left game \w+, which goes on\.", run.out), run.out
    game = black.result(timeout=60)  # black played 3C, then stopped waiting: the game goes on
    assert game.moves == ["5E", "4E", "3C"] and not game.is_over
    # Back without --token: the saved one is used, and the unfinished game continues.
    second = start(server.ws_url, me, tmp_path, stdin=lines("resign"))
    run = finish(second)
    assert run.status == 0, run.err + run.out
    assert f"Signed in as {me}: 0 wins, 0 losses; rank 6k? (rating 1500)." in run.lines
    assert f"Continuing game {game.id}." in run.lines
    assert run.boards[0][4] == "....x...." and run.boards[0][5] == "....o...."
    assert run.boards[0][6] == "..x......"
    assert "White resigns." in run.lines
    assert f"Black ({them}) wins by resignation." in run.lines  # the page's words
    assert "You lose." in run.lines
    (finished,) = server.get_json(f"/api/players/{me}/games")["games"]  # the server's account of it
    assert (finished["id"], finished["winner"], finished["rated"]) == (game.id, "black", True)
    ratings = finished["ratings"]
    black_after, white_after = round(ratings["black"]["after"]), round(ratings["white"]["after"])
    assert run.lines[-2] == (
        f"Ratings: {them} 1500 -> {black_after} ({black_after - 1500:+d}), now {ratings['black']['rank']}; "
        f"{me} 1500 -> {white_after} ({white_after - 1500:+d}), now {ratings['white']['rank']}."
    )
    assert run.lines[-1] == f"Records: {them} 1 win, 0 losses; {me} 0 wins, 1 loss."


def told_while_away(run: Run, me: str, game: RemoteGame) -> list[str]:
    """The lines that tell ``me`` (black) how ``game`` ended: white resigned while away."""
    return [
        f"Your last game, {game.id} against {game.white}, ended while you were away.",
        "White resigns.",
        f"Black ({me}) wins by resignation.",
        "You win.",
    ]


def test_a_game_that_ended_while_away_is_told_and_no_game_sought_unasked(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    with connect(server.ws_url, unique("py")) as them:
        first = start(server.ws_url, me, tmp_path, "--color", "black", stdin=lines("5E", "quit"))
        game = them.seek(9, "white", timeout=30)
        game.wait(timeout=30)
        game.move("4E")
        run = finish(first)
        assert run.status == 0 and f"Left game {game.id}, which goes on." in run.out, run.err + run.out
        game.resign()  # while black is away
        # Back: the end is told, and a new game is sought only once the player says so.
        second = start(server.ws_url, me, tmp_path, "--color", "black", stdin=lines("bogus", "seek"))
        seen = wait_for_line(second, "Seeking a 9x9 game")
        assert [line.rstrip("\n") for line in seen[1:-1]] == told_while_away(run, me, game) + [
            f"Records: {me} 1 win, 0 losses.",
            "Type seek for a new 9x9 game, or quit.",
            "error: 'bogus': type seek for a new game, or quit",
        ], seen
        game = them.seek(9, "white", timeout=30)  # the new game: black leaves at the end of input
        run = finish(second)
        assert run.status == 0 and f"End of input: left game {game.id}" in run.out, run.err + run.out
        game.resign()
    # Back again, and no new game wanted.
    run = finish(start(server.ws_url, me, tmp_path, stdin=lines("quit")))
    assert run.status == 0, run.err + run.out
    assert run.lines[1:] == told_while_away(run, me, game) + [
        f"Records: {me} 2 wins, 0 losses.",
        "Type seek for a new 9x9 game, or quit.",
    ], run.out
    # Told once: the next time, a game is sought at once.
    process = start(server.ws_url, me, tmp_path, "--size", "19")
    seen = wait_for_line(process, "Seeking a 19x19 game")
    assert len(seen) == 2, seen  # signed in, seeking
    process.send_signal(signal.SIGINT)
    run = finish(process)
    assert run.status == 130 and run.lines[-1] == "Interrupted: stopped seeking.", run.out


def test_end_of_input_leaves_the_game_going(server: ServerProcess, tmp_path: Path) -> None:
    me, them = unique("term"), unique("py")
    terminal = start(server.ws_url, me, tmp_path, "--color", "black", stdin=lines("5E"))
    white = opponent(server.ws_url, them, "white", ["4E"])
    run = finish(terminal)
    assert run.status == 0, run.err + run.out
    assert "White plays E4." in run.lines
    assert re.search(r"End of input: left game \w+, which goes on\.", run.out), run.out
    assert not white.result(timeout=60).is_over


def test_a_refused_saved_token_registers_the_name_afresh(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    (tmp_path / "gokata").mkdir()
    (tmp_path / "gokata" / "tokens.json").write_text(json.dumps({server.ws_url: {me.lower(): "f" * 64}}))
    process = start(server.ws_url, me, tmp_path, "--size", "13")
    seen = wait_for_line(process, "Seeking")
    process.send_signal(signal.SIGINT)
    run = finish(process)
    run.out = "".join(seen) + run.out
    assert run.status == 130
    assert f"The saved token of {me} was refused; signing in as a new player." in run.lines
    assert "Your token: " in run.out
    saved = json.loads((tmp_path / "gokata" / "tokens.json").read_text())
    assert saved[server.ws_url][me.lower()] != "f" * 64


def test_refusals_and_failures_are_one_line_and_status_1(server: ServerProcess, tmp_path: Path) -> None:
    taken = unique("taken")
    connect(server.ws_url, taken).close()
    run = finish(start(server.ws_url, taken, tmp_path))
    assert run.status == 1
    said = f'the name "{taken}" is taken: sign in with --token TOKEN, or pick another --name'
    assert run.err == f"gokata connect: {said}\n"  # once, not the server's words and a hint repeating them
    run = finish(start(server.ws_url, taken, tmp_path, "--token", "0" * 64))
    assert run.status == 1 and run.err.count("\n") == 1 and run.err.startswith("gokata connect: ")
    run = finish(start(server.ws_url, "two words", tmp_path))
    assert run.status == 1 and run.err.count("\n") == 1
    run = finish(start(f"127.0.0.1:{free_port()}", unique("alone"), tmp_path))
    assert run.status == 1 and run.out == ""
    assert run.err.count("\n") == 1 and run.err.startswith("gokata connect: cannot connect"), run.err
    run = finish(start(server.ws_url, unique("x"), tmp_path, "--size", "7"))
    assert run.status == 2 and "--size" in run.err  # refused by the argument parser


def test_ctrl_c_stops_the_client_with_status_130(server: ServerProcess, tmp_path: Path) -> None:
    process = start(server.ws_url, unique("waiter"), tmp_path, "--size", "19")
    assert wait_for_line(process, "Seeking")[-1].startswith("Seeking a 19x19 game")
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    run = finish(process)
    assert run.status == 130 and run.err == ""
    assert run.lines[-1] == "Interrupted: stopped seeking.", run.out  # a word, then the exit
    assert time.monotonic() - started < 10


def test_an_unknown_opponent_is_refused_naming_the_choices(tmp_path: Path) -> None:
    run = finish(start("ws://127.0.0.1:1/ws", unique("term"), tmp_path, "--opponent", "robot"))
    assert run.status == 2 and run.out == "", run
    assert "argument --opponent: invalid choice: 'robot' (choose from 'human', 'computer', 'any')" in run.err
