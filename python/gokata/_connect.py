"""The session behind ``gokata connect``: one person at this terminal plays a game on a
``gokata serve`` server, with the screens of ``gokata play``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Optional, TextIO

from gokata.client import (
    BadTokenError,
    ConnectionFailedError,
    Played,
    Player,
    RemoteGame,
    ServerError,
    connect,
    websocket_url,
)

HELP = """\
Commands, read when it is your turn (one per line):
  7A or A7     play a stone there (row number and column letter, no I column)
  pass         pass; two passes in a row end the game
  resign       give up the game
  help         show this help
  quit         leave; the game goes on on the server, with your clock running"""

Connect = Callable[[str, str, Optional[str]], Player]


class ConnectionLost(Exception):
    """The server is gone for good: reported on one line, exit status 1."""


def tokens_file() -> Path:
    """Where tokens are kept: ``$XDG_CONFIG_HOME/gokata/tokens.json`` (default ``~/.config``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "gokata" / "tokens.json"


def _load_tokens() -> dict[str, dict[str, str]]:
    try:
        data = json.loads(tokens_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        url: {name: token for name, token in names.items() if isinstance(token, str)}
        for url, names in data.items()
        if isinstance(names, dict)
    }


def load_token(url: str, name: str) -> str | None:
    """The saved token of ``name`` on the server at ``url``, if any."""
    return _load_tokens().get(websocket_url(url), {}).get(name.lower())


def save_token(url: str, name: str, token: str) -> Path:
    """Saves the token of ``name`` on the server at ``url`` (readable by its owner only)."""
    path = tokens_file()
    tokens = _load_tokens()
    tokens.setdefault(websocket_url(url), {})[name.lower()] = token
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(tokens, file, indent=2, sort_keys=True)
        file.write("\n")
    os.replace(temporary, path)
    return path


def _default_connect(url: str, name: str, token: str | None) -> Player:
    return connect(url, name, token)


class ConnectSession:
    """Signs ``name`` in at ``url``, seeks a game (or continues an unfinished one) and plays it,
    reading commands from ``lines`` on my turns; everything is printed to ``out``."""

    def __init__(
        self,
        url: str,
        name: str,
        token: str | None,
        size: int,
        color: str,
        out: TextIO,
        connect_to: Connect = _default_connect,
    ) -> None:
        self.url = websocket_url(url)
        self.name = name
        self.token = token
        self.size = size
        self.color = color
        self.out = out
        self.connect_to = connect_to
        self.shown = 0  # turns already reported

    def run(self, lines: TextIO) -> None:
        """Plays until the game ends, ``quit`` or the end of ``lines``. Raises ServerError if
        the server refuses the sign-in or the seek, ConnectionLost if it cannot be reached."""
        with self.sign_in() as player:
            game = self.find_game(player)
            self.play(player, game, lines)

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
            self.say(f"Signed in as {player.name}: {_count(player.wins, 'win')}, {_count(player.losses, 'loss')}.")
        return player

    def login(self, token: str | None) -> Player:
        try:
            return self.connect_to(self.url, self.name, token)
        except (ConnectionFailedError, TimeoutError) as error:
            raise ConnectionLost(str(error)) from error

    def find_game(self, player: Player) -> RemoteGame:
        unfinished = player.games
        if unfinished:
            game = unfinished[0]
            more = f" ({len(unfinished) - 1} more unfinished)" if len(unfinished) > 1 else ""
            self.say(f"Continuing game {game.id}{more}.")
            self.shown = game.move_number
            return game
        colour = "either colour" if self.color == "any" else self.color
        self.say(f"Seeking a {self.size}x{self.size} game, playing {colour}; waiting for an opponent.")
        try:
            return player.seek(self.size, self.color)
        except ConnectionFailedError as error:
            raise ConnectionLost(str(error)) from error

    def play(self, player: Player, game: RemoteGame, lines: TextIO) -> None:
        size = game.size["height"]
        self.say(
            f"Game {game.id} on {size}x{size}: {game.black} (black) against {game.white} (white), "
            f"komi {game.komi:g}. You play {game.color}."
        )
        if self.shown == game.move_number and not game.is_over:
            self.show(game)  # else the turns played since the start are told first
        try:
            while not self.report(game):
                if not game.my_turn:
                    game.wait()
                    continue
                line = lines.readline()
                if not line:
                    self.say(f"End of input: left game {game.id}, which goes on. {self.come_back()}")
                    return
                if self.handle(game, line):
                    self.say(f"Left game {game.id}, which goes on. {self.come_back()}")
                    return
        except ConnectionFailedError as error:
            raise ConnectionLost(str(error)) from error
        self.results(player, game)

    def handle(self, game: RemoteGame, line: str) -> bool:
        """Carries out one line on my turn; True to quit. A mistake is reported and it is
        still my turn."""
        words = line.split()
        if not words:
            return False
        command, args = words[0].lower(), words[1:]
        try:
            if command in ("pass", "resign", "help", "quit") and args:
                raise ValueError(f"{command} takes no arguments")
            if command == "quit":
                return True
            if command == "help":
                self.say(HELP)
                self.say_turn(game)
            elif command == "pass":
                game.pass_turn()
            elif command == "resign":
                game.resign()
            elif not any(c.isdigit() for c in command):
                raise ValueError(f"unknown command {words[0]!r} (type help for the commands)")
            elif args:
                raise ValueError("play one point per line")
            else:
                game.move(words[0])
        except (ValueError, TimeoutError) as error:  # ServerError and IllegalMoveError too
            self.say(f"error: {error}")
            if not game.is_over:
                self.say_turn(game)
        return False

    def report(self, game: RemoteGame) -> bool:
        """Prints the turns played since the last report, then the board or whose turn it is;
        True once the game is over."""
        history = game.history
        new = history[self.shown :]
        self.shown = len(history)
        for played in new:
            self.say(_describe(played))
        over = game.is_over
        if any(played.point is not None for played in new):
            self.say(str(game).rstrip("\n"))
        if new and not over:
            self.say_turn(game)
        return over

    def results(self, player: Player, game: RemoteGame) -> None:
        over = game.over
        assert over is not None
        winner, loser = over.winner, "white" if over.winner == "black" else "black"
        if over.reason == "passes":
            self.say("Two passes in a row: the game is over.")
        elif over.reason == "resign":
            self.say(f"{loser.capitalize()} resigns.")
        elif over.reason == "timeout":
            self.say(f"{loser.capitalize()} ran out of time.")
        if over.score is not None:
            black, white, komi = over.score["black"], over.score["white"], over.score["komi"]
            margin = abs(black - white - komi)
            self.say(f"Score: black {black:g}, white {white:g} + {komi:g} komi = {white + komi:g}.")
            self.say(f"{winner.capitalize()} ({_name(game, winner)}) wins by {margin:g}.")
        else:
            self.say(f"{winner.capitalize()} ({_name(game, winner)}) wins by {over.reason}.")
        self.say("You win." if winner == game.color else "You lose.")
        if over.records is not None:
            records = [over.records[color] for color in ("black", "white")]
        else:
            records = [player.record()]
        summary = "; ".join(
            f"{r.name} {_count(r.wins, 'win')}, {_count(r.losses, 'loss')}" for r in records
        )
        self.say(f"Records: {summary}.")

    def show(self, game: RemoteGame) -> None:
        self.say(str(game).rstrip("\n"))
        self.say_turn(game)

    def say_turn(self, game: RemoteGame) -> None:
        turn = game.turn
        clock = _clock(game.remaining_ms)
        if turn == game.color:
            time_left = f" You have {clock}." if clock else ""
        else:
            time_left = f", who has {clock}" if clock else ""
            time_left = f" Waiting for {game.opponent}{time_left}."
        self.say(f"{turn.capitalize()} to play (turn {game.move_number + 1}).{time_left}")

    def come_back(self) -> str:
        return f"Come back with: gokata connect {self.url} --name {self.name}"

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def _describe(played: Played) -> str:
    player = played.color.capitalize()
    if played.point is None:
        return f"{player} passes."
    captured = list(played.captured)
    taking = f", capturing {_count(len(captured), 'stone')}: {' '.join(captured)}" if captured else ""
    return f"{player} plays {played.point}{taking}."


def _name(game: RemoteGame, color: str) -> str:
    return game.black if color == "black" else game.white


def _clock(remaining_ms: int | None) -> str:
    if remaining_ms is None:
        return ""
    seconds = (remaining_ms + 999) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def _count(n: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{n} {noun if n == 1 else plural}"


__all__ = ["ConnectSession", "ConnectionLost", "ServerError", "load_token", "save_token", "tokens_file"]
