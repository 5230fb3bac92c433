"""``gokata connect``'s exchanges besides turns, against the real server (both stores) and an
opponent playing through ``gokata.client``: ``undo`` and the answers ``yes`` and ``no``, ``say``
and the chat shown as text, and a game scored by agreement (``--scoring agreement``): the
scoring phase shown (dead stones on the board, the score, who accepted), ``mark``, ``alive``,
``accept`` and ``resume``. Points are shown column letter first (``E5``) and read in either
form. At a pseudo-terminal, and one game from a piped script."""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from clients.test_client_at_a_terminal import Terminal
from clients.test_client_terminal import finish, lines, start
from clients.test_client_terminal_terms import connect_command
from gokata.client import Player, RemoteGame, connect
from support.clients import unique
from support.server_process import ServerProcess
from support.waiting import wait_until

WAIT = 30.0
# Black walls off the top of the board on row 5, white the bottom on row 4; a white stone at 7C
# is left alone in black's area: the server's proposal marks it dead.
WALLS = [point for column in "ABCDEFGHJ" for point in (f"5{column}", f"4{column}")]
TURNS: list[str | None] = [*WALLS, None, "7C", None, None]


def opponent(terminal: Terminal, url: str, color: str, **terms: Any) -> tuple[Player, RemoteGame]:
    """A Python-client player seeks ``color`` on ``terms`` and is paired with the terminal's
    seek (once the test saw it)."""
    them = connect(url, unique("py"))
    return them, them.seek(9, color, timeout=WAIT, **terms)


def test_undo_asked_and_answered_both_ways_and_chat(server: ServerProcess, tmp_path: Path) -> None:
    with Terminal(server.ws_url, unique("term"), tmp_path, "--color", "black", "--unrated") as terminal:
        terminal.expect("Seeking a 9x9 game")
        them, game = opponent(terminal, server.ws_url, "white", rated=False)
        with them:
            terminal.expect(r"Black to play \(turn 1\)")
            terminal.types("undo\n")
            terminal.expect_line("error: only your own last move can be taken back, while it is the last one played")
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            # My undo, accepted.
            terminal.types("undo\n")
            terminal.expect_line(f"Asked {them.name} to take back your move E5; waiting for the answer.")
            wait_until(lambda: game.undo_requested, WAIT, "the request")
            game.answer_undo(True)
            terminal.expect_line("Black's move E5 is taken back.")
            terminal.expect(r"(?m)^  5 \. \. \. \. \. \. \. \. \. 5$")
            terminal.expect(r"Black to play \(turn 1\)\. You have")
            # My undo, refused.
            terminal.types("c3\n")
            terminal.expect_line("Black plays C3.")
            terminal.types("undo\n")
            terminal.expect_line(f"Asked {them.name} to take back your move C3; waiting for the answer.")
            wait_until(lambda: game.undo_requested, WAIT, "the second request")
            game.answer_undo(False)
            terminal.expect_line(f"{them.name} did not take back your move C3: it stays.")
            # The opponent's, refused, then accepted.
            game.move("4D")
            terminal.expect_line("White plays D4.")
            terminal.types("yes\n")
            terminal.expect_line("error: yes: no request to take back a move waits for your answer")
            game.undo()
            terminal.expect_line(f"{them.name} asks to take back their move D4: type yes to take it back, or no to refuse (playing on refuses too).")
            terminal.types("no\n")
            terminal.expect_line(f"Refused: {them.name}'s move D4 stays.")
            assert game.wait_undo(WAIT) is False and game.moves == ["3C", "4D"]
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            game.wait(WAIT)
            game.move("6F")
            terminal.expect_line("White plays F6.")
            game.undo()
            terminal.expect(r"asks to take back their move F6")
            terminal.types("yes\n")
            terminal.expect_line("White's move F6 is taken back.")
            assert game.wait_undo(WAIT) is True and game.moves == ["3C", "4D", "5E"]
            # Chat, both ways, as text.
            terminal.types("say good game, <b>friend</b>\n")
            terminal.expect_line("You say: good game, <b>friend</b>")
            wait_until(lambda: game.messages, WAIT, "white to hear it")
            assert game.messages[0].text == "good game, <b>friend</b>"
            game.chat("thanks")
            terminal.expect_line(f"{them.name} says: thanks")
            terminal.types("say\n")
            terminal.expect_line("error: say what? (say TEXT)")
            terminal.types("resign\n")
            terminal.expect_line("You lose.")
            assert terminal.finish() == 0


def test_a_game_scored_by_agreement_at_a_terminal(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    options = ("--color", "black", "--scoring", "agreement")
    with Terminal(server.ws_url, me, tmp_path, *options) as terminal:
        terminal.expect_line("Seeking a 9x9 game (dead stones by agreement), playing black; waiting for an opponent. Type quit to stop.")
        them, game = opponent(terminal, server.ws_url, "white", scoring="agreement")
        with them:
            terminal.expect(r"; rated, komi 0\.5, 1:00 a move, dead stones by agreement\. You play black\.")
            for ply, point in enumerate(TURNS):
                if ply % 2 == 0:
                    terminal.expect(rf"Black to play \(turn {ply + 1}\)")
                    terminal.types("pass\n" if point is None else f"{point}\n")
                else:
                    game.wait(WAIT)
                    game.pass_turn() if point is None else game.move(point)
            terminal.expect_line(
                "Two passes in a row: time to agree on the dead stones. Change the marks with mark C7 or alive C7, "
                "agree with accept, or go back to play with resume."
            )
            terminal.expect(r"(?m)^  7 \. \. O \. \. \. \. \. \. 7$")  # the dead stone shown as such
            terminal.expect_line("(X and O: stones marked dead)")
            terminal.expect_line("Marked dead: C7 (white).")
            terminal.expect_line("Score as marked: black 45, white 36 + 0.5 komi = 36.5: black leads by 8.5.")
            terminal.expect(r"Scoring: Nobody has accepted yet\. (0:[0-5]\d|1:00) left to agree\.")
            # The opponent says its stone lives; the terminal marks it dead again, in kata form.
            game.mark("7C", dead=False)
            terminal.expect_line("Marked dead: none.")
            terminal.types("pass\n")
            terminal.expect_line("error: the game is being scored: mark, alive, accept or resume (help); your pass was not played")
            terminal.types("mark 7c\n")
            terminal.expect_line("Marked dead: C7 (white).")
            game.accept()
            terminal.expect_line(f"{them.name} accepts these marks.")
            terminal.expect(rf"Scoring: {them.name} accepted; type accept to agree\.")
            # Back to play, then two passes again, and both accept.
            terminal.types("resume\n")
            terminal.expect_line(f"Back to play: black ({me}) to play.")
            terminal.types("H8\n")
            terminal.expect_line("Black plays H8.")
            game.wait(WAIT)
            game.pass_turn()
            terminal.expect_line("White passes.")
            terminal.types("pass\n")
            terminal.expect_line("Marked dead: C7 (white).")
            terminal.types("alive C7\n")
            terminal.expect_line("Marked dead: none.")
            terminal.types("mark C7\n")
            terminal.expect_line("Marked dead: C7 (white).")
            terminal.types("accept\n")
            terminal.expect_line("You accept these marks.")
            terminal.expect(rf"Scoring: You accepted; waiting for {them.name}\.")
            wait_until(lambda: game.marks and game.marks.accepted["black"], WAIT, "white to see black accept")
            game.accept()
            terminal.expect_line("The game is scored with C7 taken off as dead.")
            terminal.expect_line("Score: black 45, white 36 + 0.5 komi = 36.5.")
            terminal.expect_line(f"Black ({me}) wins by 8.5 points.")
            terminal.expect_line("You win.")
            assert terminal.finish() == 0
        assert game.result(WAIT).reason == "score"


def test_a_script_seeks_agreement_says_something_and_accepts(server: ServerProcess, tmp_path: Path) -> None:
    """From a pipe, lines are read while the player is to act: on its turns, then in the
    scoring phase until it has accepted the marks as they stand."""
    me, name = unique("term"), unique("py")
    black_turns = [point for ply, point in enumerate(TURNS) if ply % 2 == 0]
    script = lines(*["pass" if point is None else str(point) for point in black_turns], "say well played", "accept")
    terminal = start(server.ws_url, me, tmp_path, "--color", "black", "--scoring", "agreement", stdin=script)

    def white() -> RemoteGame:
        with connect(server.ws_url, name) as player:
            game = player.seek(9, "white", timeout=WAIT, scoring="agreement")
            for point in [point for ply, point in enumerate(TURNS) if ply % 2 == 1]:
                game.wait(WAIT)
                game.pass_turn() if point is None else game.move(point)
            wait_until(lambda: game.marks and game.marks.accepted["black"], WAIT, "the script to accept")
            game.accept()
            game.result(WAIT)
            return game

    with ThreadPoolExecutor(1) as pool:
        playing: Future[RemoteGame] = pool.submit(white)
        game = playing.result(timeout=90)
    run = finish(terminal)
    assert run.status == 0, run.out + run.err
    assert "Seeking a 9x9 game (dead stones by agreement), playing black" in run.out
    for line in ["Black plays E5.", "White plays C7.", "Marked dead: C7 (white).", "You say: well played",
                 "You accept these marks.", "The game is scored with C7 taken off as dead.", "You win."]:
        assert line in run.lines, (line, run.out)
    assert run.errors == []
    assert [(m.sender, m.text) for m in game.messages] == [(me, "well played")]
    assert re.search(r"(?m)^Black \(\S+\) wins by 8\.5 points\.$", run.out), run.out
    assert game.reason == "score"


def test_a_scoring_it_does_not_know_is_a_usage_error(server: ServerProcess, tmp_path: Path) -> None:
    run = connect_command(server.ws_url, unique("term"), tmp_path, "--scoring", "japanese", stdin="")
    assert run.status == 2 and run.out == ""
    assert "argument --scoring: invalid choice: 'japanese'" in run.err
