"""A referee for two GTP engines: each is a subprocess spoken to over pipes, every reply read
and checked; a game is played on a `gokata.Go` board that checks every move, and scored by
both engines' ``final_score`` at the end. Used by ``test_gtp_gnugo.py`` and by
``benches/strength.py``."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from typing import Iterable, Optional

from gokata import Go

GNUGO = "/usr/games/gnugo"


class ProtocolError(Exception):
    """An engine answered something GTP does not allow, or failed a command it must accept."""


class GtpProcess:
    """An engine over GTP. ``ask`` returns ``(ok, text)``; ``send`` raises on a ``?`` reply."""

    def __init__(self, argv: list[str], name: str) -> None:
        self.name = name
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next_id = 1

    def ask(self, command: str) -> tuple[bool, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        ident = self.next_id
        self.next_id += 1
        self.process.stdin.write(f"{ident} {command}\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.process.stdout.readline()
            if line == "":
                raise ProtocolError(f"{self.name} closed its output after {command!r}")
            line = line.rstrip("\r\n")
            if line == "" and lines:
                break
            if line == "" and not lines:
                continue  # GNU Go never sends these, but GTP allows none before a reply
            lines.append(line)
        head = lines[0]
        status, _, rest = head.partition(" ")
        if status not in (f"={ident}", f"?{ident}"):
            raise ProtocolError(f"{self.name} answered {head!r} to {ident} {command!r}")
        text = "\n".join([rest, *lines[1:]]).strip()
        return status.startswith("="), text

    def send(self, command: str) -> str:
        ok, text = self.ask(command)
        if not ok:
            raise ProtocolError(f"{self.name} refused {command!r}: {text}")
        return text

    def close(self) -> None:
        try:
            self.send("quit")
        except (ProtocolError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def gnugo(level: int, seed: int) -> GtpProcess:
    return GtpProcess(
        [GNUGO, "--mode", "gtp", "--level", str(level), "--chinese-rules", "--seed", str(seed)], "GNU Go"
    )


def kata_coordinate(vertex: str, size: int) -> str:
    """``D4`` (GTP) as the kata's ``4D``."""
    return vertex[1:] + vertex[0].upper()


@dataclass
class GameResult:
    """How a game went. ``winner`` is ``"B"``, ``"W"`` or ``"0"`` (a draw or no agreement)."""

    winner: str
    resigned: Optional[str]
    moves: int
    scores: dict[str, str] = field(default_factory=dict)
    dead: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    genmoves: dict[str, int] = field(default_factory=dict)
    referee_score: Optional[float] = None
    vertices: list[str] = field(default_factory=list)
    """Every move as GTP gave it (``D4``, ``pass``), black's first."""

    @property
    def all_alive(self) -> bool:
        """Whether both engines found no dead stone at the end."""
        return bool(self.dead) and all(text == "" for text in self.dead.values())


def score_margin(text: str) -> float:
    """``B+3.5`` as 3.5, ``W+0.5`` as -0.5, ``0`` as 0."""
    if text == "0":
        return 0.0
    side, _, amount = text.partition("+")
    if side not in ("B", "W"):
        raise ProtocolError(f"a final_score like {text!r}")
    return float(amount) * (1 if side == "B" else -1)


def play_game(black: GtpProcess, white: GtpProcess, size: int = 9, komi: float = 7.5, max_moves: int = 400) -> GameResult:
    """One game, black to move first. Each move is checked on a `gokata.Go` board and must
    be accepted by the other engine; raises `ProtocolError` if anything goes wrong. After two
    passes both engines score; if they disagree, or either finds dead stones, play goes on with
    ``kgs-genmove_cleanup`` (dead stones are captured before passing), as on KGS, and they
    score again. The winner is the colour both engines' scores name, whether or not their
    margins agree; ``"0"`` if they name different winners (or a draw)."""
    engines = {"B": black, "W": white}
    for engine in engines.values():
        engine.send(f"boardsize {size}")
        engine.send("clear_board")
        engine.send(f"komi {komi}")
    game = _Game(Go(size), engines, size)
    resigned = game.play_until_two_passes("genmove", max_moves)
    if resigned is None and (len(game.score()) > 1 or any(game.dead.values())):
        resigned = game.play_until_two_passes("kgs-genmove_cleanup", max_moves)
    result = GameResult("0", resigned, game.moves, seconds=game.seconds, genmoves=game.genmoves, vertices=game.vertices)
    if resigned is not None:
        result.winner = "W" if resigned == "B" else "B"
        return result
    margins = game.score()
    result.scores, result.dead = game.scores, game.dead
    score = game.board.score(komi)
    result.referee_score = float(score["black"]) - float(score["white"]) - komi
    result.winner = agreed_winner(margins)
    return result


def agreed_winner(margins: Iterable[float]) -> str:
    """The colour every engine's score margin (black's) names, whatever the margins; ``"0"``
    if they name different colours or a draw."""
    margins = list(margins)
    if all(margin > 0 for margin in margins):
        return "B"
    if all(margin < 0 for margin in margins):
        return "W"
    return "0"


class _Game:
    """A game in progress between two engines, on a referee board."""

    def __init__(self, board: Go, engines: dict[str, GtpProcess], size: int) -> None:
        self.board, self.engines, self.size = board, engines, size
        self.seconds = {engine.name: 0.0 for engine in engines.values()}
        self.genmoves = {engine.name: 0 for engine in engines.values()}
        self.moves = 0
        self.vertices: list[str] = []
        self.color = "B"
        self.scores: dict[str, str] = {}
        self.dead: dict[str, str] = {}

    def play_until_two_passes(self, command: str, max_moves: int) -> Optional[str]:
        """Plays with ``command`` (``genmove`` or ``kgs-genmove_cleanup``) until two passes in
        a row or ``max_moves`` in all; the colour that resigned, if one did."""
        passes = 0
        while passes < 2 and self.moves < max_moves:
            color = self.color
            mover, other = self.engines[color], self.engines["W" if color == "B" else "B"]
            started = time.perf_counter()
            vertex = mover.send(f"{command} {color}")
            self.seconds[mover.name] += time.perf_counter() - started
            self.genmoves[mover.name] += 1
            if vertex.lower() == "resign":
                return color
            if vertex.lower() == "pass":
                self.board.pass_turn()
                passes += 1
            else:
                coordinate = kata_coordinate(vertex, self.size)
                if not self.board.is_legal(coordinate):
                    raise ProtocolError(f"{mover.name} played the illegal {vertex} (move {self.moves + 1})")
                self.board.move(coordinate)
                passes = 0
            other.send(f"play {color} {vertex}")
            self.vertices.append(vertex)
            self.moves += 1
            self.color = "W" if color == "B" else "B"
        return None

    def score(self) -> set[float]:
        """Both engines' ``final_score`` and dead stones; the set of their margins."""
        for engine in self.engines.values():
            self.scores[engine.name] = engine.send("final_score")
            self.dead[engine.name] = engine.send("final_status_list dead")
        return {score_margin(text) for text in self.scores.values()}
