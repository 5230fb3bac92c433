"""The two-player session behind ``gokata play``: one command per input line."""

from __future__ import annotations

from typing import Callable, TextIO

from gokata import Go

KOMI = 0.5
"""What white adds to its area, as on the server: with half a point there is no draw."""

PROMPT = "> "

HELP = """\
Commands (one per line):
  7A or A7     play a stone there (row number and column letter, no I column)
  pass         pass; two passes in a row end the game, scored by area with komi 0.5
  undo [n]     take back the last n turns (default 1)
  reset        clear the board and start again
  handicap n   place n black handicap stones (before the first turn)
  help         show this help
  quit         stop playing"""


class PlaySession:
    """Two people playing ``game``, typing commands; everything is printed to ``out``, with
    ``PROMPT`` before each command read when ``prompt`` (a person at a terminal)."""

    def __init__(self, game: Go, out: TextIO, prompt: bool = False) -> None:
        self.game = game
        self.out = out
        self.prompt = prompt
        # One entry per turn on record (a pass or not), so undo and reset keep it in step.
        self.passes: list[bool] = []
        self.over = False
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "pass": self.pass_turn,
            "undo": self.undo,
            "reset": self.reset,
            "handicap": self.handicap,
            "help": self.help,
            "quit": self.quit,
        }

    def run(self, lines: TextIO) -> bool:
        """Reads commands until two passes in a row, ``quit`` or the end of ``lines``; whether
        the game ended normally (two passes or ``quit``), not by the end of the input."""
        height, width = self.game.size["height"], self.game.size["width"]
        self.say(f"gokata: {height}x{width} board. Type help for the commands.")
        self.show()
        while True:
            if self.prompt:
                self.out.write(PROMPT)
                self.out.flush()
            line = lines.readline()
            if not line:
                break
            self.handle(line)
            if self.over:
                return True
        if self.prompt:
            self.say("")
        self.say(f"End of input: stopped after {_count(self.game.move_number, 'turn')}.")
        return False

    def handle(self, line: str) -> None:
        """Carries out one line; a mistake is reported and the same player is to play again."""
        words = line.split()
        if not words:
            return
        name, args = words[0].lower(), words[1:]
        try:
            if name in self.commands:
                self.commands[name](args)
            elif not any(c.isdigit() for c in name):
                raise ValueError(f"unknown command {words[0]!r} (type help for the commands)")
            elif args:
                raise ValueError("play one point per line")
            else:
                self.play(words[0])
        except ValueError as error:  # IllegalMoveError is a ValueError too
            self.say(f"error: {error}")
            self.say_turn()

    def play(self, point: str) -> None:
        player = self.game.turn.capitalize()
        captured = self.game.captures(point)  # raises, like move(), if the move is illegal
        self.game.move(point)
        self.passes.append(False)
        taking = f", capturing {_count(len(captured), 'stone')}: {' '.join(captured)}"
        self.say(f"{player} plays {_kata(point)}{taking if captured else ''}.")
        self.show()

    def pass_turn(self, args: list[str]) -> None:
        _no_arguments("pass", args)
        self.say(f"{self.game.turn.capitalize()} passes.")
        self.game.pass_turn()
        self.passes.append(True)
        if self.passes[-2:] == [True, True]:
            self.say("Two passes in a row: the game is over.")
            self.say_score()
            self.over = True
        else:
            self.say_turn()

    def undo(self, args: list[str]) -> None:
        turns = _number("undo", args, default=1)
        played = self.game.move_number
        if turns < 1:
            raise ValueError(f"undo {turns}: the number of turns must be at least 1")
        if turns > played:
            so_far = "no turn has" if played == 0 else f"only {_count(played, 'turn')} {'has' if played == 1 else 'have'}"
            raise ValueError(f"undo {turns}: {so_far} been played")
        self.game.rollback(turns)
        del self.passes[self.game.move_number :]
        self.say(f"Took back {_count(turns, 'turn')}.")
        self.show()

    def reset(self, args: list[str]) -> None:
        _no_arguments("reset", args)
        self.game.reset()
        self.passes.clear()
        self.say("New game on an empty board.")
        self.show()

    def handicap(self, args: list[str]) -> None:
        stones = _number("handicap", args)
        try:
            # No board takes more than 9; a number past any board is refused as 10 would be.
            self.game.handicap_stones(max(-1, min(stones, 10)))
        except ValueError as error:  # "handicap_stones(n) refused: why"
            raise ValueError(f"handicap {stones}: {str(error).partition(' refused: ')[2]}") from None
        self.say(f"Black has {_count(stones, 'handicap stone')}.")
        self.show()

    def help(self, args: list[str]) -> None:
        self.say(HELP)
        self.say_turn()

    def quit(self, args: list[str]) -> None:
        _no_arguments("quit", args)
        self.say(f"Stopped after {_count(self.game.move_number, 'turn')}.")
        self.over = True

    def show(self) -> None:
        self.say(str(self.game).rstrip("\n"))
        self.say_turn()

    def say_score(self) -> None:
        """The area score, komi added to white, and the winner."""
        score = self.game.score(KOMI)
        black, white = score["black"], score["white"]
        self.say(f"Score by area: black {black}, white {white} + {KOMI:g} komi = {white + KOMI:g}.")
        self.say(f"{score['winner'].capitalize()} wins by {abs(black - white - KOMI):g}.")

    def say_turn(self) -> None:
        self.say(f"{self.game.turn.capitalize()} to play (turn {self.game.move_number + 1}).")

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def _no_arguments(command: str, args: list[str]) -> None:
    if args:
        raise ValueError(f"{command} takes no arguments")


def _number(command: str, args: list[str], default: int | None = None) -> int:
    if len(args) > 1:
        raise ValueError(f"{command} takes one number, not {len(args)} arguments")
    if not args:
        if default is None:
            raise ValueError(f"{command} needs a number, like '{command} 2'")
        return default
    try:
        return int(args[0])
    except ValueError:
        raise ValueError(f"{command}: {args[0]!r} is not a whole number") from None


def _kata(point: str) -> str:
    """A point the engine took, in the kata form: ``"e5"`` and ``"5E"`` are both ``"5E"``."""
    point = point.strip().upper()
    return point[1:] + point[0] if point[0].isalpha() else point


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
