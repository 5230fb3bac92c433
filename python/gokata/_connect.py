"""The session behind ``gokata connect``: one person at this terminal plays a game on a
``gokata serve`` server, with the screens of ``gokata play``.

At a terminal every line is answered when it is typed: a point or a pass out of turn is refused
at once, the other commands work on either player's turn, and the status line's clock counts
down. From a pipe or a file, lines are a script: they are read while I am to act (on each of my
turns, and in the scoring phase while I have not accepted the marks as they stand).

Points are shown to the player column letter first (``C7``); either form is read."""

from __future__ import annotations

import threading
import time
from concurrent import futures
from typing import Callable, Optional, TypeVar, Union

from gokata._frames import people_point, people_points
from gokata._saved import load_last_game, load_token, save_last_game, save_token
from gokata._terminal import Keyboard, Screen
from gokata._time_control import TimeControl, clock_text, describe_time, duration_text
from gokata.client import (
    BadTokenError,
    ChatMessage,
    ConnectionFailedError,
    Marks,
    Over,
    Played,
    Player,
    RemoteGame,
    ServerError,
    UndoRequest,
    connect,
    websocket_url,
)

HELP = """\
Commands (one per line; a point or pass on your turn, the others at any time):
  C7 or 7C     play a stone there (column letter and row number, no I column)
  pass         pass; two passes in a row end the game (or, scored by agreement, start scoring)
  undo         ask your opponent to take back your last move (while it is the last one)
  yes, no      answer your opponent's request to take back their last move
  say TEXT     say something to your opponent (and whoever watches the game)
  resign       give up the game
  help         show this help
  quit         leave; the game goes on on the server, with your clock running
In the scoring phase (--scoring agreement, after two passes in a row):
  mark C7      mark the chain of stones at C7 dead (alive C7: alive again)
  accept       agree to the dead stones as marked; the game ends when both agree
  resume       go back to playing (the player who passed first is to move)"""

CHAT_SHOWN = 10
"""Chat messages of a game shown when the game is (re)joined: the last ones."""

SEEKING = {"human": "", "computer": " against the computer", "any": " against a person or the computer"}
"""How a seek for each kind of opponent is told (a person's, the default, as it always was)."""

TICK = 0.1
"""Seconds between two looks at the game, the connection and the clock while nothing is typed."""

Connect = Callable[[str, str, Optional[str]], Player]
T = TypeVar("T")


class ConnectionLost(Exception):
    """The server is gone for good: reported on one line, exit status 1."""


def _default_connect(url: str, name: str, token: str | None) -> Player:
    return connect(url, name, token)


class ConnectSession:
    """Signs ``name`` in at ``url``, seeks a game (or continues an unfinished one) and plays it,
    reading commands from ``keyboard``; everything is shown on ``screen``."""

    def __init__(
        self,
        url: str,
        name: str,
        token: str | None,
        size: int,
        color: str,
        screen: Screen,
        keyboard: Keyboard,
        connect_to: Connect = _default_connect,
        opponent: str = "human",
        *,
        rated: bool = True,
        time: TimeControl | None = None,
        handicap: Union[int, str, None] = None,
        komi: float | None = None,
        scoring: str = "all_alive",
    ) -> None:
        self.url = websocket_url(url)
        self.name = name
        self.token = token
        self.size = size
        self.color = color
        if opponent not in SEEKING:
            raise ValueError(f"opponent must be 'human', 'computer' or 'any', not {opponent!r}")
        self.opponent = opponent  # whom to seek
        self.rated, self.time, self.handicap, self.komi = rated, time, handicap, komi  # the seek's terms
        self.scoring = scoring
        self.screen = screen
        self.keyboard = keyboard
        self.connect_to = connect_to
        self.shown = 0  # turns already reported
        self.game: RemoteGame | None = None  # the game being played
        self.seeking = False
        self.connected = True  # as last reported
        self.opponent_connected = True  # as last reported
        self.board_shown = False  # whether the game's board was printed yet
        self.history_shown: list[Played] = []  # the turns as last reported
        self.chat_shown = 0  # chat messages shown
        self.marks_shown: Marks | None = None  # the scoring phase as last shown
        self.request_shown: UndoRequest | None = None  # the opponent's request as last shown
        self.undo_asked: Played | None = None  # my turn I asked to take back, until answered

    def run(self) -> None:
        """Plays until the game ends, ``quit`` or the end of the input. Raises ServerError if
        the server refuses the sign-in or the seek, ConnectionLost if it cannot be reached;
        says why on Ctrl-C (KeyboardInterrupt). What was typed and not read is dropped."""
        try:
            with self.sign_in() as player:
                game = self.find_game(player)
                if game is not None:
                    self.play(player, game)
        except ConnectionFailedError as error:
            raise ConnectionLost(str(error)) from error
        except KeyboardInterrupt:
            self.say("")
            self.say(self.interrupted())
            raise
        finally:
            self.keyboard.discard_typed()

    # Signing in

    def sign_in(self) -> Player:
        saved = None if self.token is not None else load_token(self.url, self.name)
        try:
            player = self.login(self.token if self.token is not None else saved)
        except BadTokenError:
            if saved is None:
                raise
            # The saved token no longer works (a new server database, say): register afresh.
            self.say(f"The saved token of {self.name} was refused; signing in as a new player.")
            player = self.login(None)
        if player.token is not None and player.token not in (self.token, saved):
            self.say(f"Registered {player.name}. Your token: {player.token}")
            try:
                where = str(save_token(self.url, player.name, player.token))
            except OSError as error:
                where = f"not saved ({error}): note it down"
            self.say(
                f"It is the only way back to this name; saved in {where}. From elsewhere: "
                f"gokata connect {self.url} --name {player.name} --token {player.token}"
            )
        else:
            rank = f"; rank {player.rank} (rating {player.rating:.0f})" if player.rank and player.rating is not None else ""
            self.say(f"Signed in as {player.name}: {_count(player.wins, 'win')}, {_count(player.losses, 'loss')}{rank}.")
        return player

    def login(self, token: str | None) -> Player:
        try:
            return self.connect_to(self.url, self.name, token)
        except (ConnectionFailedError, TimeoutError) as error:
            raise ConnectionLost(str(error)) from error

    # Finding a game

    def find_game(self, player: Player) -> RemoteGame | None:
        """An unfinished game to continue, else a new one if the player wants it."""
        unfinished = player.games
        if unfinished:
            game = unfinished[0]
            more = f" ({len(unfinished) - 1} more unfinished)" if len(unfinished) > 1 else ""
            self.say(f"Continuing game {game.id}{more}.")
            self.shown = game.move_number
            return game
        if self.report_ended_game(player) and not self.consent_to_seek():
            return None
        return self.seek(player)

    def report_ended_game(self, player: Player) -> bool:
        """Shows how the last game played here ended, if it ended while the player was away;
        whether it did."""
        game_id = load_last_game(self.url, player.name)
        if game_id is None:
            return False
        try:
            game = player.fetch_game(game_id)
        except (ServerError, TimeoutError):
            game = None  # gone with a new server database, say
        save_last_game(self.url, player.name, None)
        if game is None or not game.is_over:
            return False
        self.say(f"Your last game, {game.id} against {_opponent(game)}, ended while you were away.")
        self.results(player, game)
        return True

    def consent_to_seek(self) -> bool:
        """Asks before seeking a new game; whether the player wants one."""
        self.say(f"Type seek for a new {self.size}x{self.size} game, or quit.")
        while True:
            try:
                line = self.next_line(wanted=True)
            except EOFError:
                self.say("End of input: no new game.")
                return False
            answer = (line or "").strip()
            if answer.lower() in ("seek", "quit"):
                return answer.lower() == "seek"
            if answer:
                self.say(f"error: {answer!r}: type seek for a new game, or quit")

    def seek(self, player: Player) -> RemoteGame | None:
        """Seeks a game and waits for it; at a terminal, ``quit`` withdraws the seek."""
        colour = "either colour" if self.color == "any" else self.color
        stop = " Type quit to stop." if self.keyboard.interactive else ""
        self.seeking = True  # until the seek ends, for a word on Ctrl-C
        against = SEEKING[self.opponent] + self.terms()
        self.say(f"Seeking a {self.size}x{self.size} game{against}, playing {colour}; waiting for an opponent.{stop}")
        seeking = _in_background(
            lambda: player.seek(
                self.size,
                self.color,
                opponent=self.opponent,
                rated=self.rated,
                time=self.time,
                handicap=self.handicap,
                komi=self.komi,
                scoring=self.scoring,
            )
        )
        while not seeking.done():
            self.watch_connection(player)
            try:
                line = self.next_line(wanted=self.keyboard.interactive)
            except EOFError:
                line = "quit"
            if line is not None and self.while_seeking(line):
                self.withdraw(player, seeking)
                self.seeking = False
                return None
        self.seeking = False
        return seeking.result()

    def terms(self) -> str:
        """The seek's terms other than the defaults, in words: `` (unrated, 3 handicap stones,
        komi 6.5, byo-yomi 10:00 + 5 x 0:30)``; empty for a rated game on the server's clock."""
        words = [] if self.rated else ["unrated"]
        if self.handicap == "auto":
            words.append("handicap from the ranks")
        elif self.handicap:
            words.append(_count(int(self.handicap), "handicap stone"))
        if self.komi is not None:
            words.append(f"komi {self.komi:g}")
        if self.time is not None:
            words.append(describe_time(self.time))
        if self.scoring == "agreement":
            words.append("dead stones by agreement")
        return f" ({', '.join(words)})" if words else ""

    def while_seeking(self, line: str) -> bool:
        """Answers a line typed while seeking; True to stop seeking."""
        command = line.strip().lower()
        if command == "quit":
            return True
        if command == "help":
            self.say(HELP)
        elif command:
            self.say(f"error: {line.strip()!r}: no game yet, waiting for an opponent (quit stops seeking)")
        return False

    def withdraw(self, player: Player, seeking: futures.Future[RemoteGame]) -> None:
        """Withdraws the seek; says so, or that a game started first (and goes on)."""
        try:
            player.cancel()
            game = seeking.result(timeout=player.timeout)
        except (ServerError, TimeoutError, futures.TimeoutError):
            self.say("Stopped seeking.")
            return
        save_last_game(self.url, player.name, game.id)
        self.say(
            f"Game {game.id} against {_opponent(game)} started before the seek was withdrawn: "
            f"left it, and it goes on. {self.come_back()}"
        )

    # Playing

    def play(self, player: Player, game: RemoteGame) -> None:
        self.game = game
        save_last_game(self.url, player.name, game.id)
        self.announce(game)
        while not self.report(game):
            self.watch_connection(player)
            if not self.keyboard.typed_ahead():  # else the cursor is about to move
                self.screen.refresh()
            try:
                line = self.next_line(wanted=self.keyboard.interactive or _to_act(game))
            except EOFError:
                self.say(f"End of input: left game {game.id}, which goes on. {self.come_back()}")
                return
            if line is not None and self.handle(game, line):
                self.say(f"Left game {game.id}, which goes on. {self.come_back()}")
                return
        self.results(player, game)
        save_last_game(self.url, player.name, None)

    def announce(self, game: RemoteGame) -> None:
        size = game.size["height"]
        terms = ["rated" if game.rated else "unrated"]
        if game.handicap:
            terms.append(f"{_count(game.handicap, 'handicap stone')} (white moves first)")
        terms.append(f"komi {game.komi:g}")
        if game.time is not None:
            terms.append(describe_time(game.time))
        if game.scoring == "agreement":
            terms.append("dead stones by agreement")
        self.say(
            f"Game {game.id} on {size}x{size}: {_ranked(game, 'black')} (black) against {_ranked(game, 'white')} "
            f"(white); {', '.join(terms)}. You play {game.color}."
        )
        if self.shown == game.move_number and not game.is_over:
            self.show_board(game)  # else the turns played since are told first
        self.history_shown = game.history[: self.shown]
        self.chat_shown = max(0, len(game.messages) - CHAT_SHOWN)
        self.opponent_connected = game.opponent_connected or game.is_over
        if not self.opponent_connected:
            self.say(f"{_opponent(game)} is not connected (the clock runs on).")

    def next_line(self, wanted: bool) -> str | None:
        """A line typed, if ``wanted`` and one comes within a tick; else ``None`` after the
        tick. Raises EOFError at the end of the input."""
        if not wanted:
            time.sleep(TICK)
            return None
        line = self.keyboard.line(TICK)
        if line is not None and self.keyboard.interactive:
            self.screen.typed()
        return line

    def handle(self, game: RemoteGame, line: str) -> bool:
        """Carries out one line; True to quit. A mistake is reported and changes nothing."""
        words = line.split()
        if not words:
            return False
        command, args = words[0].lower(), words[1:]
        try:
            if command in ("pass", "resign", "help", "quit", "undo", "yes", "no", "accept", "resume") and args:
                raise ValueError(f"{command} takes no arguments")
            if command == "quit":
                return True
            if command == "help":
                self.say(HELP)
            elif command == "resign":
                game.resign()
            elif command == "pass":
                _check_turn(game, "your pass")
                game.pass_turn()
            elif command == "say":
                text = line.strip()[len(words[0]) :].strip()
                if not text:
                    raise ValueError("say what? (say TEXT)")
                game.chat(text)
            elif command in ("undo", "yes", "no"):
                self.undo(game, command)
            elif command in ("mark", "alive", "accept", "resume"):
                self.score(game, command, args)
            elif not any(c.isdigit() for c in command):
                raise ValueError(f"unknown command {words[0]!r} (type help for the commands)")
            elif args:
                raise ValueError("play one point per line")
            else:
                _check_turn(game, _point(words[0]))
                game.move(words[0])
        except (ValueError, TimeoutError) as error:  # ServerError and IllegalMoveError too
            self.say(f"error: {people_points(str(error))}")
        return False

    def undo(self, game: RemoteGame, command: str) -> None:
        """``undo`` asks to take back my last move; ``yes`` and ``no`` answer the opponent's
        request."""
        if command == "undo":
            history = game.history
            if game.is_over or not history or history[-1].color != game.color:
                raise ValueError("only your own last move can be taken back, while it is the last one played")
            game.undo()
            self.undo_asked = history[-1]
            self.say(f"Asked {_opponent(game)} to take back your {_turn(history[-1])}; waiting for the answer.")
            return
        request = game.undo_requested
        if request is None:
            raise ValueError(f"{command}: no request to take back a move waits for your answer")
        game.answer_undo(command == "yes")
        if command == "no":
            self.say(f"Refused: {_opponent(game)}'s {_turn(game.history[-1])} stays.")
        self.request_shown = None

    def score(self, game: RemoteGame, command: str, args: list[str]) -> None:
        """The scoring phase's commands: ``mark POINT``, ``alive POINT``, ``accept``, ``resume``."""
        if game.status != "scoring":
            how = "" if game.scoring == "agreement" else ", in a game scored by agreement (--scoring agreement)"
            raise ValueError(f"{command}: the dead stones are marked after two passes in a row{how}")
        if command in ("mark", "alive"):
            if len(args) != 1:
                raise ValueError(f"{command} takes one point: {command} C7")
            game.mark(args[0], dead=command == "mark")
        elif command == "accept":
            game.accept()
        else:
            game.resume()

    def watch_connection(self, player: Player) -> None:
        """Says when the connection drops and when it is back; raises ConnectionLost once
        the client gives up."""
        failure = player.failure
        if failure is not None:
            raise ConnectionLost(str(failure))
        connected = player.connected
        if connected == self.connected:
            return
        self.connected = connected
        if connected:
            self.say("Reconnected to the server.")
        else:
            self.say("Lost the connection to the server; reconnecting. The game and its clock go on there.")

    # Reports

    def report(self, game: RemoteGame) -> bool:
        """Prints the turns played since the last report, then the board and the status line
        (unless it is the last line already); True once the game is over."""
        over = game.is_over  # first: every turn of a game over is in its history
        history = game.history
        kept = 0
        while kept < min(len(history), self.shown) and _same(history[kept], self.history_shown[kept]):
            kept += 1
        for played in reversed(self.history_shown[kept : self.shown]):
            self.say(f"{played.color.capitalize()}'s {_turn(played)} is taken back.")
        taken_back = kept < self.shown
        new = history[kept:]
        self.shown, self.history_shown = len(history), history
        for played in new:
            self.say(_describe(played))
        if taken_back or any(played.point is not None for played in new) or (new and not self.board_shown):
            self.show_board(game)  # a stone played, or the first board (handicap stones)
        self.report_chat(game)
        if not over:
            self.report_undo(game)
            self.report_scoring(game)
            self.report_opponent(game)
        if not over and not self.screen.status_shown:
            self.say_turn(game)
        return over

    def report_chat(self, game: RemoteGame) -> None:
        """The chat messages since the last report, as text."""
        messages = game.messages
        for message in messages[self.chat_shown :]:
            self.say(_chat_line(game, message))
        self.chat_shown = len(messages)

    def report_undo(self, game: RemoteGame) -> None:
        """The opponent's request to take back a move, and the answer to mine."""
        request = game.undo_requested
        if request is not None and request != self.request_shown:
            history = game.history
            what = _turn(history[-1]) if history else "move"
            self.say(
                f"{_opponent(game)} asks to take back their {what}: type yes to take it back, or no to "
                "refuse (playing on refuses too)."
            )
        self.request_shown = request
        asked = self.undo_asked
        if asked is not None and not game.undo_pending:
            self.undo_asked = None
            if game.undo_accepted is False:
                self.say(f"{_opponent(game)} did not take back your {_turn(asked)}: it stays.")

    def report_scoring(self, game: RemoteGame) -> None:
        """The scoring phase: its start, the dead stones marked and the score at each change,
        who accepts; play resumed."""
        marks, before = game.marks, self.marks_shown
        if marks is None:
            if before is not None and game.status == "playing":
                self.marks_shown = None
                self.say(f"Back to play: {game.turn} ({_name(game, game.turn)}) to play.")
                self.show_board(game)
            return
        if marks == before:
            return
        self.marks_shown = marks
        if before is None:
            self.say(
                "Two passes in a row: time to agree on the dead stones. Change the marks with mark C7 or "
                "alive C7, agree with accept, or go back to play with resume."
            )
        if before is None or before.dead != marks.dead:
            self.say(_marked_board(game, marks))
            self.say(f"Marked dead: {_dead_stones(game, marks)}.")
            self.say(_score_line(marks))
        for color in ("black", "white"):
            if marks.accepted[color] and not (before is not None and before.accepted[color] and before.dead == marks.dead):
                self.say("You accept these marks." if color == game.color else f"{_name(game, color)} accepts these marks.")

    def show_board(self, game: RemoteGame) -> None:
        self.say(str(game).rstrip("\n"))
        self.board_shown = True

    def report_opponent(self, game: RemoteGame) -> None:
        """Says when the opponent leaves the server and when they are back."""
        connected = game.opponent_connected
        if connected == self.opponent_connected:
            return
        self.opponent_connected = connected
        opponent = _opponent(game)
        self.say(f"{opponent} is back." if connected else f"{opponent} left (the clock runs on).")

    def results(self, player: Player, game: RemoteGame) -> None:
        over = game.over
        assert over is not None
        self.say(_ending(over, self.marks_shown))
        winner = over.winner
        if over.score is not None:
            black, white, komi = over.score["black"], over.score["white"], over.score["komi"]
            self.say(f"Score: black {black:g}, white {white:g} + {komi:g} komi = {white + komi:g}.")
        if winner is None:
            self.say("A draw (jigo): neither wins.")
        else:
            self.say(f"{winner.capitalize()} ({_name(game, winner)}) wins {over.how}.")
            self.say("You win." if winner == game.color else "You lose.")
        if over.ratings is not None:
            changes = [
                f"{_name(game, color)} {change.before:.0f} -> {change.after:.0f} ({change.change:+.0f}), now {change.rank}"
                for color, change in over.ratings.items()
            ]
            self.say(f"Ratings: {'; '.join(changes)}.")
        if over.records is not None:
            records = [over.records[color] for color in ("black", "white")]
        else:
            records = [player.record()]
        summary = "; ".join(
            f"{_named(r.name, r.bot)} {_count(r.wins, 'win')}, {_count(r.losses, 'loss')}" for r in records
        )
        self.say(f"Records: {summary}.")

    def say_turn(self, game: RemoteGame) -> None:
        self.screen.status(lambda: _status_line(game))

    def interrupted(self) -> str:
        """What Ctrl-C leaves behind."""
        game = self.game
        if game is not None and not game.is_over:
            return f"Interrupted: left game {game.id}, which goes on. {_status_line(game)} {self.come_back()}"
        if self.seeking:
            return "Interrupted: stopped seeking."
        return "Interrupted."

    def come_back(self) -> str:
        return f"Come back with: gokata connect {self.url} --name {self.name}"

    def say(self, text: str) -> None:
        self.screen.say(text)


def _check_turn(game: RemoteGame, what: str) -> None:
    """Refuses a turn out of turn, before anything is sent."""
    if game.status == "scoring":
        raise ValueError(f"the game is being scored: mark, alive, accept or resume (help); {what} was not played")
    if not game.my_turn and not game.is_over:
        raise ValueError(f"not your turn: {_opponent(game)} ({game.turn}) is to play; {what} was not played")


def _to_act(game: RemoteGame) -> bool:
    """Whether the player is to act: on its turn, or in the scoring phase until it has
    accepted the marks as they stand (when a script's next line is read)."""
    marks = game.marks
    return game.my_turn or (marks is not None and not marks.accepted[game.color])


def _point(typed: str) -> str:
    """A point as typed, as people write it: ``3c`` and ``c3`` are ``C3``."""
    return people_point(typed.upper())


def _same(one: Played, other: Played) -> bool:
    """Whether two reports are of the same turn (one may have been learnt from a state)."""
    return (one.ply, one.color, one.point) == (other.ply, other.color, other.point)


def _turn(played: Played) -> str:
    """``move E5`` or ``pass``."""
    return "pass" if played.point is None else f"move {people_point(played.point)}"


def _chat_line(game: RemoteGame, message: ChatMessage) -> str:
    """A chat message as text (any control character shown as ``?``)."""
    text = "".join("?" if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in message.text)
    if message.sender.lower() == (game.black if game.color == "black" else game.white).lower():
        who = "You say"
    elif message.channel == "watchers":
        who = f"{message.sender} (watching) says"
    else:
        who = f"{message.sender} says"
    return f"{who}: {text}"


def _marked_board(game: RemoteGame, marks: Marks) -> str:
    """The board with the stones marked dead as ``X`` and ``O``."""
    lines = str(game).rstrip("\n").split("\n")
    size = game.size["height"]
    for point in marks.dead:
        row, column = size - int(point[:-1]), "ABCDEFGHJKLMNOPQRSTUVWXYZ".index(point[-1])
        line = lines[row + 1]
        at = 4 + 2 * column
        lines[row + 1] = line[:at] + line[at].upper() + line[at + 1 :]
    return "\n".join(lines) + ("\n(X and O: stones marked dead)" if marks.dead else "")


def _dead_stones(game: RemoteGame, marks: Marks) -> str:
    """``C7 D7 (white), E5 (black)`` or ``none``."""
    by_color: dict[str, list[str]] = {"black": [], "white": []}
    for point in marks.dead:
        color = "black" if game.get_position(point) == "x" else "white"
        by_color[color].append(people_point(point))
    parts = [f"{' '.join(points)} ({color})" for color, points in by_color.items() if points]
    return ", ".join(parts) or "none"


def _score_line(marks: Marks) -> str:
    black, white, komi = marks.score["black"], marks.score["white"], marks.score["komi"]
    margin = black - white - komi
    lead = "even" if margin == 0 else f"{'black' if margin > 0 else 'white'} leads by {abs(margin):g}"
    return f"Score as marked: black {black:g}, white {white:g} + {komi:g} komi = {white + komi:g}: {lead}."


def _status_line(game: RemoteGame) -> str:
    """The status line: whose turn it is, with the clocks; in the scoring phase, who accepted."""
    marks = game.marks
    if marks is None:
        return _turn_line(game)
    mine, theirs = marks.accepted[game.color], marks.accepted["white" if game.color == "black" else "black"]
    if mine and theirs:
        agreed = "Both accepted."
    elif mine:
        agreed = f"You accepted; waiting for {_opponent(game)}."
    elif theirs:
        agreed = f"{_opponent(game)} accepted; type accept to agree."
    else:
        agreed = "Nobody has accepted yet."
    remaining = game.remaining_ms
    left = "" if remaining is None else f" {duration_text(remaining)} left to agree."
    return f"Scoring: {agreed}{left}"


def _in_background(call: Callable[[], T]) -> futures.Future[T]:
    """``call()`` in a daemon thread (which does not hold up the exit)."""
    future: futures.Future[T] = futures.Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name="gokata-seek", daemon=True).start()
    return future


def _turn_line(game: RemoteGame) -> str:
    """Whose turn it is, with the time left, in the form of the game's time control (and,
    but for a time a move, the other player's clock too): the status line."""
    turn, time, clocks, remaining = game.turn, game.time, game.clocks, game.remaining_ms
    clock = "" if remaining is None else clock_text(time, clocks.get(turn), remaining)
    other = "white" if turn == "black" else "black"
    waiting = clock_text(time, clocks.get(other)) if time and time.get("system") != "per_move" and other in clocks else ""
    if turn == game.color:
        time_left = f" You have {clock}." if clock else ""
        time_left += f" {_opponent(game)} has {waiting}." if waiting and clock else ""
    else:
        time_left = f", who has {clock}" if clock else ""
        time_left = f" Waiting for {_opponent(game)}{time_left}."
        time_left += f" You have {waiting}." if waiting and clock else ""
    return f"{turn.capitalize()} to play (turn {game.move_number + 1}).{time_left}"


def _ending(over: Over, marks: Marks | None = None) -> str:
    if over.reason == "score":
        dead = " ".join(people_point(point) for point in marks.dead) if marks is not None else ""
        return f"The game is scored{f' with {dead} taken off as dead' if dead else ''}."
    if over.winner is None:
        return "Two passes in a row: the game is over."
    loser = "white" if over.winner == "black" else "black"
    if over.reason == "resign":
        return f"{loser.capitalize()} resigns."
    if over.reason == "timeout":
        return f"{loser.capitalize()} ran out of time."
    return "Two passes in a row: the game is over."


def _describe(played: Played) -> str:
    player = played.color.capitalize()
    if played.point is None:
        return f"{player} passes."
    captured = [people_point(point) for point in played.captured]
    taking = f", capturing {_count(len(captured), 'stone')}: {' '.join(captured)}" if captured else ""
    return f"{player} plays {people_point(played.point)}{taking}."


def _name(game: RemoteGame, color: str) -> str:
    """The name of the player of ``color``, marked if a program."""
    return _named(game.black if color == "black" else game.white, game.bots[color])


def _ranked(game: RemoteGame, color: str) -> str:
    """The name of the player of ``color``, marked if a program, and its rank at the start."""
    ranks = game.ranks or {}
    return _name(game, color) + (f" [{ranks[color]}]" if color in ranks else "")


def _opponent(game: RemoteGame) -> str:
    return _name(game, "white" if game.color == "black" else "black")


def _named(name: str, bot: bool) -> str:
    return f"{name} [bot]" if bot else name


def _count(n: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{n} {noun if n == 1 else plural}"


__all__ = ["ConnectSession", "ConnectionLost", "ServerError"]
