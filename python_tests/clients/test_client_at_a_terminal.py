"""``gokata connect`` at a pseudo-terminal, as a person runs it: lines typed at any moment, the
status line's clock redrawn in place, the server dropping and coming back, Ctrl-C; against the
real server and an opponent playing through ``gokata.client``."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Optional

import pytest

from gokata.client import Played, Player, RemoteGame, connect
from support.bot_player import BotPlayer
from support.clients import environment, unique
from support.server_process import ServerProcess, gokata_command
from support.waiting import wait_until_equal

WAIT = 30.0
"""Seconds any expected output may take."""
STATUS_REDRAWN = re.escape("\x1b7\x1b[1A\r") + "(?P<status>[^\x1b]*)" + re.escape("\x1b[K\x1b8")
"""The status line redrawn in place: the cursor saved, one row up, the text, the rest of the
row erased, the cursor back where the player types."""


class Terminal:
    """``gokata connect URL --name NAME OPTIONS`` on a pseudo-terminal of 100 columns, tokens
    under ``config``. What it prints (with the echo of what is typed) is collected as it
    comes; the test keeps the terminal's own end open, to see what a shell would read next."""

    def __init__(self, url: str, name: str, config: Path, *options: str) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        self.process = subprocess.Popen(
            gokata_command() + ["connect", url, "--name", name, *options],
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            env=environment(config),
            start_new_session=True,
        )
        self.output = ""
        self.read_up_to = 0  # what expect() has consumed
        self._changed = threading.Condition()
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                data = b""
            with self._changed:
                self.output += data.decode(errors="replace").replace("\r\n", "\n")
                self._changed.notify_all()
            if not data:
                return

    def types(self, text: str) -> None:
        """What the player types (a line ends with \\n)."""
        os.write(self.master, text.encode())

    def expect(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        """Waits for ``pattern`` (a regular expression) in the output after what earlier calls
        consumed; consumes up to the end of the match."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                match = re.compile(pattern).search(self.output, self.read_up_to)
                if match is not None:
                    self.read_up_to = match.end()
                    return match
                left = deadline - time.monotonic()
                assert left > 0, f"no {pattern!r} in {self.output[self.read_up_to:]!r}"
                self._changed.wait(left)

    def expect_line(self, text: str, timeout: float = WAIT) -> None:
        """Waits for a line that shows ``text`` (the status line may have been redrawn just
        before it was printed, which leaves the cursor at the line's start)."""
        redrawn = STATUS_REDRAWN.replace("?P<status>", "")
        self.expect(f"(?m)^(?:{redrawn})*{re.escape(text)}$", timeout)

    def finish(self, timeout: float = WAIT) -> int:
        """The exit status, once the program has ended."""
        return self.process.wait(timeout)

    def left_for_the_shell(self) -> str:
        """What the next program reading the terminal would read (typed and not read)."""
        if not select.select([self.slave], [], [], 0)[0]:
            return ""
        return os.read(self.slave, 4096).decode(errors="replace")

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.slave)
        os.close(self.master)


def opponent(terminal: Terminal, url: str, color: str) -> tuple[Player, RemoteGame]:
    """Once the terminal seeks a 9x9 game, a Python-client player seeks ``color`` and is paired
    with it: that player, and its view of the game."""
    terminal.expect("Seeking a 9x9 game")
    them = connect(url, unique("py"))
    return them, them.seek(9, color, timeout=WAIT)


def test_every_line_is_answered_when_it_is_typed(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    with Terminal(server.ws_url, me, tmp_path, "--color", "black") as terminal:
        them, game = opponent(terminal, server.ws_url, "white")
        with them:
            terminal.expect(r"Black to play \(turn 1\)\. You have \d:\d\d\.")
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            terminal.expect(rf"White to play \(turn 2\)\. Waiting for {them.name}, who has \d:\d\d\.")
            # White's turn: a point and a pass are refused at once; help is answered.
            terminal.types("3C\n")
            terminal.expect_line(f"error: not your turn: {them.name} (white) is to play; C3 was not played")
            terminal.types("pass\n")
            terminal.expect_line(f"error: not your turn: {them.name} (white) is to play; your pass was not played")
            terminal.types("help\n")
            terminal.expect("a point or pass on your turn, the others at any time")
            assert isinstance(game.wait(timeout=WAIT), Played)
            game.move("4D")
            terminal.expect_line("White plays D4.")
            terminal.expect(r"Black to play \(turn 3\)")
            # Black's turn: what is played is what is typed now, not what was refused before.
            terminal.types("6F\n")
            terminal.expect_line("Black plays F6.")
            played = game.wait(timeout=WAIT)
            assert isinstance(played, Played) and played.point == "6F"
            assert game.moves == ["5E", "4D", "6F"]
            # White's turn again: resign is carried out at once.
            terminal.types("resign\n")
            terminal.expect_line("Black resigns.")
            terminal.expect_line(f"White ({them.name}) wins by resignation.")
            terminal.expect_line("You lose.")
            assert terminal.finish() == 0
            assert game.result(timeout=WAIT).reason == "resign"
            assert game.moves == ["5E", "4D", "6F"]
            assert terminal.left_for_the_shell() == ""


def test_quit_leaves_at_once_and_nothing_typed_reaches_the_shell(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    with Terminal(server.ws_url, me, tmp_path, "--color", "black") as terminal:
        them, game = opponent(terminal, server.ws_url, "white")
        with them:
            terminal.expect(r"Black to play \(turn 1\)")
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            terminal.types("quit\n4E\nresign\n")  # on white's turn, in one go
            terminal.expect(rf"Left game {game.id}, which goes on\. Come back with: gokata connect ")
            assert terminal.finish() == 0
            assert terminal.left_for_the_shell() == ""
            assert game.moves == ["5E"] and not game.is_over
            game.sync()
            assert game.moves == ["5E"] and not game.is_over


def test_the_status_line_counts_down_in_place(server: ServerProcess, tmp_path: Path) -> None:
    with Terminal(server.ws_url, unique("term"), tmp_path, "--color", "white") as terminal:
        them, game = opponent(terminal, server.ws_url, "black")
        with them:
            waiting = rf"Black to play \(turn 1\)\. Waiting for {them.name}, who has (\d):(\d\d)\."
            first = terminal.expect(f"(?m)^{waiting}\n")
            redrawn = terminal.expect(STATUS_REDRAWN)
            clock = re.fullmatch(waiting, redrawn["status"])
            assert clock is not None, redrawn["status"]
            started, now = (int(m.group(1)) * 60 + int(m.group(2)) for m in (first, clock))
            assert started - 3 <= now < started  # a second less, normally
            terminal.types("pass\n")  # the player types below the status line, which stays
            terminal.expect_line(f"error: not your turn: {them.name} (black) is to play; your pass was not played")
            again = terminal.expect(STATUS_REDRAWN)
            assert again["status"].startswith("Black to play (turn 1). Waiting for ")


def test_the_server_dropping_and_coming_back_is_told(own_server: ServerProcess, tmp_path: Path) -> None:
    with Terminal(own_server.ws_url, unique("term"), tmp_path, "--color", "black") as terminal:
        them, game = opponent(terminal, own_server.ws_url, "white")
        with them:
            terminal.expect(r"Black to play \(turn 1\)")
            own_server.stop()
            terminal.expect_line("Lost the connection to the server; reconnecting. The game and its clock go on there.")
            terminal.expect(r"Black to play \(turn 1\)\. You have \d:\d\d\.")  # the clock still shown
            own_server.restart()
            terminal.expect_line("Reconnected to the server.")
            terminal.expect(r"Black to play \(turn 1\)\. You have \d:\d\d\.")
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            played = game.wait(timeout=WAIT)
            assert isinstance(played, Played) and played.point == "5E"
            # Ctrl-C: how the game stands, and how to come back to it.
            terminal.expect(rf"White to play \(turn 2\)\. Waiting for {them.name}")
            terminal.process.send_signal(signal.SIGINT)
            terminal.expect(
                rf"Interrupted: left game {game.id}, which goes on\. White to play \(turn 2\)\. "
                rf"Waiting for {them.name}, who has \d:\d\d\. Come back with: gokata connect {own_server.ws_url} "
            )
            assert terminal.finish() == 130
            assert not game.is_over


def test_quit_withdraws_a_seek_at_once(server: ServerProcess, tmp_path: Path) -> None:
    with Terminal(server.ws_url, unique("term"), tmp_path, "--size", "13") as terminal:
        terminal.expect(r"Seeking a 13x13 game, playing either colour; waiting for an opponent\. Type quit to stop\.")
        terminal.types("5E\n")
        terminal.expect_line("error: '5E': no game yet, waiting for an opponent (quit stops seeking)")
        terminal.types("quit\n")
        terminal.expect_line("Stopped seeking.")
        assert terminal.finish() == 0
    with connect(server.ws_url, unique("late")) as late:
        with pytest.raises(TimeoutError):
            late.seek(13, "any", timeout=0.5)  # nobody seeks any more


def test_the_opponent_leaving_and_coming_back_is_told(server: ServerProcess, tmp_path: Path) -> None:
    me = unique("term")
    with Terminal(server.ws_url, me, tmp_path, "--color", "black") as terminal:
        them, game = opponent(terminal, server.ws_url, "white")
        token = them.token
        assert token is not None
        terminal.expect(r"Black to play \(turn 1\)")
        them.close()
        terminal.expect_line(f"{them.name} left (the clock runs on).")
        with connect(server.ws_url, them.name, token):
            terminal.expect_line(f"{them.name} is back.")
        terminal.expect_line(f"{them.name} left (the clock runs on).")
        terminal.types("quit\n")
        terminal.expect(rf"Left game {game.id}, which goes on\.")
        assert terminal.finish() == 0
    # Back at the terminal while the opponent is still away: told with the game, then their return.
    with Terminal(server.ws_url, me, tmp_path) as terminal:
        terminal.expect_line(f"Continuing game {game.id}.")
        terminal.expect_line(f"{them.name} is not connected (the clock runs on).")
        with connect(server.ws_url, them.name, token) as back:
            terminal.expect_line(f"{them.name} is back.")
            back.game(game.id).resign()
            terminal.expect_line("White resigns.")
            assert terminal.finish() == 0


@pytest.mark.parametrize(
    ("opponent", "against"), [("computer", "against the computer"), ("any", "against a person or the computer")]
)
def test_a_person_plays_the_computer_shown_as_a_bot(
    server: ServerProcess, tmp_path: Path, opponent: str, against: str
) -> None:
    """``--opponent computer`` (or ``any``) meets a program waiting on the server; its name is
    marked as a bot's wherever it is printed; two passes end the game."""
    me, robot = unique("term"), unique("robot")
    with BotPlayer(server.ws_url, robot) as bot:
        with Terminal(server.ws_url, me, tmp_path, "--opponent", opponent, "--color", "black") as terminal:
            terminal.expect_line(f"Seeking a 9x9 game {against}, playing black; waiting for an opponent. Type quit to stop.")
            terminal.expect(
                rf"Game \w+ on 9x9: {me} \[6k\?\] \(black\) against {robot} \[bot\] \[6k\?\] \(white\); "
                r"rated, komi 0\.5, 1:00 a move\. You play black\."
            )
            terminal.expect(r"Black to play \(turn 1\)\. You have \d:\d\d\.")
            terminal.types("5E\n")
            terminal.expect_line("Black plays E5.")
            terminal.expect(r"(?m)^White (plays \w+|passes)\.$")  # the computer's answer
            terminal.expect(r"Black to play \(turn 3\)\. You have \d:\d\d\.")
            terminal.types("3C\n")
            terminal.expect_line("Black plays C3.")
            terminal.expect(r"Black to play \(turn 5\)")
            terminal.types("pass\n")
            terminal.expect_line("Black passes.")
            terminal.expect_line("Two passes in a row: the game is over.")
            ending = terminal.expect(rf"(?m)^(Black \({me}\)|White \({robot} \[bot\]\)) wins by [\d.]+ points?\.$")
            change = r"1500 -> (\d+) \(([+-]\d+)\), now \d+k\?"
            ratings = terminal.expect(rf"(?m)^Ratings: {me} {change}; {robot} \[bot\] {change}\.$")
            terminal.expect(rf"(?m)^Records: {me} \d+ wins?, \d+ loss(es)?; {robot} \[bot\] \d+ wins?, \d+ loss(es)?\.$")
            assert terminal.finish() == 0
        (game,) = bot.played
        over = game.result(timeout=WAIT)
        assert over.reason == "passes" and over.winner is not None and ending.group(0).startswith(over.winner.capitalize())
        assert ending.group(0).endswith(f" wins {over.how}.")
        assert over.ratings is not None and game.rated
        shown = [(int(ratings.group(n)), int(ratings.group(n + 1))) for n in (1, 3)]
        assert shown == [(round(r.after), round(r.change)) for r in over.ratings.values()]
        assert (int(ratings.group(2)) > 0) == (over.winner == "black")
        assert game.bots == {"black": False, "white": True} and game.moves[-2:] == [None, None]


def test_by_default_the_terminal_never_meets_a_bot(server: ServerProcess, tmp_path: Path) -> None:
    """A person's seek, as before the computer could be chosen, waits beside a program's
    instead of being paired with it."""
    me, robot = unique("term"), unique("robot")
    with BotPlayer(server.ws_url, robot):
        with Terminal(server.ws_url, me, tmp_path) as terminal:
            terminal.expect_line("Seeking a 9x9 game, playing either colour; waiting for an opponent. Type quit to stop.")

            def waiting() -> list[tuple[str, bool, str]]:
                seeks = server.get_json("/api/seeks")["seeks"]
                return sorted((seek["name"], seek["bot"], seek["opponent"]) for seek in seeks)

            both = sorted([(me, False, "human"), (robot, True, "human")])
            wait_until_equal(waiting, both, WAIT, "both seeks waiting")
            time.sleep(0.5)  # the sleep is the test: a wrong pairing of the two would be made by now
            assert len(waiting()) == 2, "neither seek was paired"
            terminal.types("quit\n")
            terminal.expect_line("Stopped seeking.")
            assert terminal.finish() == 0
