"""Differential tests of `gokata.Go` against GNU Go, an independent Go engine, over GTP.

GNU Go (``/usr/games/gnugo --mode gtp``) is started once for the module and reset between
games (``boardsize N`` and ``clear_board``). Seeded random games are played on both side by
side: after every turn the stones must agree (``list_stones`` against ``game.board``), every
move tried must be legal for both or refused by both (gokata raises `IllegalMoveError` and
changes nothing; GNU Go's ``play`` answers ``?`` and its ``is_legal`` says 0), and regularly
(every turn on boards up to 7x7, else every other or every fifth turn and after captures) the legality of
every point is compared: GNU Go's ``is_legal`` asked point by point for the side to move and
its ``all_legal`` for both colours, against gokata's ``is_legal``, ``illegal_reason`` and
``legal_moves``. The stones a move removes are also compared with gokata's ``captures()``.

Moves are drawn uniformly among gokata's legal moves (in an order of our own), with now and
then a pass, a random point that may be illegal (named in the GTP or the kata form, in either
case), an attempt at the immediate ko retake, and, with probability `P_SEEK_KO`, a move drawn
among the single-stone captures instead, because uniformly random games reach few kos.
Three kinds of games: alternating, explicit colours (a colour often plays twice), and games
interrupted by ``game.rollback(k)`` against ``undo`` k times.

What GNU Go 3.8 does over GTP, checked in `test_gnugo_plays_by_the_kata_rules` rather than
assumed (``play``, ``is_legal`` and ``all_legal`` all go through its ``is_allowed_move``):

* suicide is forbidden by default, of one stone and of several, and captures are made first;
* its default ko rule is simple ko: when a move captures exactly one stone and is left a
  single stone with that one liberty, the captured point is forbidden to the other colour
  for the next move only. Any move or pass (of either colour) lifts the ban, and ``undo``
  replays the game so brings it back. This is the same rule as the kata's "no move may
  recreate the position before the last turn", also when one colour plays twice;
* it accepts every board size from 1 to 19 (not 20 or more) and ``play`` takes the colour
  explicitly, so the same colour may play twice;
* ``undo`` undoes one move or pass, and fails on an empty history. GNU Go keeps 500 moves of
  history, then forgets the first 51, so the rollback games stay well short of that.

Besides agreeing with each other, both engines are checked against the ko bans worked out here
from the boards alone, so a ko rule missing from both would not go unnoticed, and each case
asserts that its games did reach captures and kos, so that the test cannot silently test
nothing. Per-case statistics are printed (visible with ``pytest -s``).

On a disagreement the failure shows the GTP commands that reproduce the game from a fresh
GNU Go, the same game as gokata calls, and both boards side by side.

When ``/usr/games/gnugo`` is missing the tests are skipped, except when the environment
variable ``CI`` is set (to anything but an empty string): CI installs GNU Go, so there they fail.
"""

from __future__ import annotations

import os
import random
import select
import subprocess
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Literal, Optional

import pytest

from gokata import Go, IllegalMoveError
from support.reference_model import simple_ko_point

GNUGO = "/usr/games/gnugo"
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""Column letters, left to right, in GTP and in gokata alike: there is no I."""
ANSWER_TIMEOUT = 60.0
"""Seconds to wait for one GTP answer before declaring GNU Go stuck."""
BATCH = 200
"""Commands sent before reading their answers, few enough that the answers fit in a pipe."""

Point = tuple[int, int]
"""(row, column), 0-based, row 0 at the top: an index into ``game.board``."""
Board = list[list[str]]
Color = Literal["black", "white"]
Ko = tuple[Point, Color]
"""A pending ko ban: the point, and the colour that may not play there."""


def other(color: Color) -> Color:
    return "white" if color == "black" else "black"


def as_color(text: str) -> Color:
    assert text in ("black", "white"), f"unexpected colour {text!r}"
    return "black" if text == "black" else "white"


def symbol(color: Color) -> str:
    return "x" if color == "black" else "o"


def vertex(size: int, point: Point) -> str:
    """GTP form: column letter, then row number counted from the bottom."""
    return f"{LETTERS[point[1]]}{size - point[0]}"


def kata(size: int, point: Point) -> str:
    """The kata form: row number counted from the bottom, then column letter."""
    return f"{size - point[0]}{LETTERS[point[1]]}"


def from_vertex(size: int, text: str) -> Point:
    column, row = LETTERS.index(text[0].upper()), int(text[1:])
    assert 0 <= column < size and 1 <= row <= size, f"vertex {text!r} is off the {size}x{size} board"
    return size - row, column


def from_kata(size: int, text: str) -> Point:
    row, column = int(text[:-1]), LETTERS.index(text[-1].upper())
    assert 0 <= column < size and 1 <= row <= size, f"point {text!r} is off the {size}x{size} board"
    return size - row, column


def all_points(size: int) -> list[Point]:
    return [(r, c) for r in range(size) for c in range(size)]


def ko_ban(before: Board, after: Board, point: Point, color: Color) -> Optional[Ko]:
    """The ko ban a move of ``color`` at ``point`` creates, from the boards alone: it captured
    exactly one stone and is left a single stone whose only liberty is that point (the
    reference model's `simple_ko_point`)."""
    opponent = symbol(other(color))
    removed = [p for p in all_points(len(before)) if before[p[0]][p[1]] == opponent and after[p[0]][p[1]] == "."]
    banned = simple_ko_point(after, *point, removed)
    return None if banned is None else (banned, other(color))


def render(board: Board) -> list[str]:
    size = len(board)
    lines = ["   " + " ".join(LETTERS[:size])]
    lines += [f"{size - r:2} " + " ".join(row) for r, row in enumerate(board)]
    return lines


def side_by_side(left: Board, right: Board, titles: tuple[str, str] = ("gokata", "GNU Go")) -> str:
    a, b = render(left), render(right)
    width = max(len(line) for line in a) + 4
    head = f"{titles[0]:<{width}}{titles[1]}"
    return "\n".join([head] + [f"{x:<{width}}{y}" for x, y in zip(a, b)])


# The GTP client


class GtpError(Exception):
    """GNU Go failed a command that must succeed, died, or stopped answering."""


class GnuGo:
    """A GNU Go process spoken to over GTP v2: one command per line, each answer ``= ...`` or
    ``? ...`` ending with an empty line. Commands can be sent in batches before their answers
    are read, which saves most of the round trips."""

    def __init__(self, path: str) -> None:
        self.process = subprocess.Popen(
            [path, "--mode", "gtp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert self.process.stdout is not None
        self._stdout = self.process.stdout.fileno()
        os.set_blocking(self._stdout, False)
        self._partial = b""
        self._answers: deque[bytes] = deque()
        self.commands = 0

    def _answer(self) -> tuple[bool, str]:
        while not self._answers:
            try:
                chunk = os.read(self._stdout, 1 << 16)
            except BlockingIOError:
                ready, _, _ = select.select([self._stdout], [], [], ANSWER_TIMEOUT)
                if not ready:
                    raise GtpError(f"GNU Go gave no answer within {ANSWER_TIMEOUT} s") from None
                continue
            if not chunk:
                raise GtpError(f"GNU Go exited with code {self.process.wait()}")
            *complete, self._partial = (self._partial + chunk.replace(b"\r", b"")).split(b"\n\n")
            self._answers.extend(complete)
        text = self._answers.popleft().decode()
        if text[:1] not in ("=", "?"):
            raise GtpError(f"malformed GTP answer {text!r}")
        return text[0] == "=", text[1:].strip()

    def send(self, commands: Sequence[str]) -> list[tuple[bool, str]]:
        """Each command's success and answer text, in order."""
        stdin = self.process.stdin
        assert stdin is not None
        answers: list[tuple[bool, str]] = []
        for start in range(0, len(commands), BATCH):
            chunk = commands[start : start + BATCH]
            try:
                stdin.write("".join(f"{command}\n" for command in chunk).encode())
                stdin.flush()
            except BrokenPipeError as error:
                raise GtpError(f"GNU Go exited with code {self.process.wait()}") from error
            answers += [self._answer() for _ in chunk]
        self.commands += len(commands)
        return answers

    def ask(self, command: str) -> str:
        """The answer to a command that must succeed."""
        ok, text = self.send([command])[0]
        if not ok:
            raise GtpError(f"GNU Go refused {command!r}: {text}")
        return text

    def close(self) -> None:
        try:
            self.send(["quit"])
        except GtpError:
            pass
        finally:
            for pipe in (self.process.stdin, self.process.stdout):
                if pipe is not None:
                    pipe.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def gnugo_missing() -> Optional[str]:
    """Why GNU Go cannot be used here, or None when it can."""
    if not os.access(GNUGO, os.X_OK):
        return f"GNU Go is not installed at {GNUGO} (apt-get install gnugo)"
    return None


def skip_or_fail_without_gnugo() -> None:
    reason = gnugo_missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, and CI must install it", pytrace=False)
    pytest.skip(f"{reason}; the GNU Go differential tests need it (they fail instead when CI is set)")


@pytest.fixture(scope="module")
def gnugo() -> Iterator[GnuGo]:
    skip_or_fail_without_gnugo()
    engine = GnuGo(GNUGO)
    try:
        assert engine.ask("protocol_version") == "2"
        assert "GNU Go" in engine.ask("name")
        known = set(engine.ask("list_commands").split())
        needed = {"boardsize", "clear_board", "play", "is_legal", "all_legal", "list_stones", "undo"}
        assert needed <= known, f"GNU Go lacks the GTP commands {sorted(needed - known)}"
        yield engine
    finally:
        engine.close()


def test_gnugo_is_available() -> None:
    """Fails in CI, and skips elsewhere, with the reason, when GNU Go is not installed."""
    skip_or_fail_without_gnugo()


# One game on both engines


@dataclass
class Stats:
    turns: int = 0
    moves: int = 0
    passes: int = 0
    same_colour_twice: int = 0
    captures: int = 0
    """Moves that captured."""
    stones_captured: int = 0
    ko_captures: int = 0
    """Moves that made a ko (captured one stone, leaving a single stone in atari)."""
    ko_bans_checked: int = 0
    """Turns on which the pending ko ban was confirmed by both engines."""
    ko_retakes_refused: int = 0
    """Immediate ko retakes attempted with ``play`` and refused by both."""
    illegal_attempts: int = 0
    random_points_played: int = 0
    full_checks: int = 0
    points_compared: int = 0
    ko_points_seen: int = 0
    suicide_points_seen: int = 0
    rollbacks: int = 0
    turns_undone: int = 0
    ko_bans_restored: int = 0
    """Rollbacks that came back to a pending ko ban, then confirmed by both engines."""

    def __str__(self) -> str:
        return ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self) if getattr(self, f.name))


@dataclass
class Duel:
    """A game played on gokata and on GNU Go at once, with its record for reproduction."""

    gtp: GnuGo
    size: int
    label: str
    stats: Stats
    game: Go = field(init=False)
    commands: list[str] = field(default_factory=list)
    """GTP commands that replay the game from a fresh GNU Go; refused moves as comments."""
    calls: list[str] = field(default_factory=list)
    """The same game as gokata calls."""
    ko_history: list[Optional[Ko]] = field(default_factory=list)
    """The pending ko ban after each turn on record (the first entry: before any turn)."""
    turn_history: list[Color] = field(default_factory=list)
    last_captured: bool = False
    points: dict[str, Point] = field(default_factory=dict)
    """GTP vertex to point, for parsing GNU Go's answers quickly."""

    def __post_init__(self) -> None:
        self.points = {vertex(self.size, p): p for p in all_points(self.size)}
        self.game = Go(self.size)
        self.gtp.ask(f"boardsize {self.size}")
        self.gtp.ask("clear_board")
        self.commands = [f"boardsize {self.size}", "clear_board"]
        self.calls = [f"game = Go({self.size})"]
        self.ko_history = [None]
        self.turn_history = ["black"]
        self.compare_boards("at the start")

    @property
    def turn(self) -> Color:
        return as_color(self.game.turn)

    @property
    def pending_ko(self) -> Optional[Ko]:
        return self.ko_history[-1]

    # Reporting

    STONES = ["list_stones black", "list_stones white"]

    def gnugo_board(self, answers: Optional[Sequence[tuple[bool, str]]] = None) -> Board:
        """GNU Go's stones as a board: from the answers to `STONES`, or asked now."""
        black, white = answers if answers is not None else self.gtp.send(self.STONES)
        if not (black[0] and white[0]):
            raise GtpError(f"list_stones failed: {black} {white}")
        board = [["."] * self.size for _ in range(self.size)]
        for colour, (_, text) in (("x", black), ("o", white)):
            for name in text.split():
                r, c = self.points[name] if name in self.points else from_vertex(self.size, name)
                assert board[r][c] == ".", f"GNU Go lists {name} twice"
                board[r][c] = colour
        return board

    def fail(self, problem: str, gnugo_board: Optional[Board] = None) -> None:
        board = gnugo_board if gnugo_board is not None else self.gnugo_board()
        message = [
            f"gokata and GNU Go disagree ({self.label}, after {len(self.ko_history) - 1} turns): {problem}",
            "",
            side_by_side(self.game.board, board),
            "",
            "GTP commands from a fresh `gnugo --mode gtp` that reproduce it:",
            *self.commands,
            "",
            "The same in gokata:",
            "from gokata import Go",
            *self.calls,
        ]
        raise AssertionError("\n".join(message))

    def compare_boards(self, when: str, answers: Optional[Sequence[tuple[bool, str]]] = None) -> Board:
        ours, theirs = self.game.board, self.gnugo_board(answers)
        if ours != theirs:
            self.fail(f"the stones differ {when}", theirs)
        return ours

    # Turns

    def _record(self, command: str, call: str, ko: Optional[Ko], turn_after: Color) -> None:
        self.commands.append(command)
        self.calls.append(call)
        self.ko_history.append(ko)
        self.turn_history.append(turn_after)
        self.stats.turns += 1
        if self.game.turn != turn_after:
            self.fail(f"after `{call}` gokata has {self.game.turn} to move, not {turn_after}")
        if self.game.move_number != len(self.ko_history) - 1:
            self.fail(f"after `{call}` gokata's move_number is {self.game.move_number}, not {len(self.ko_history) - 1}")

    def pass_turn(self) -> None:
        color = self.turn
        self.game.pass_turn()
        ok, text = self.gtp.send([f"play {color} pass"])[0]
        if not ok:
            self.fail(f"GNU Go refused `play {color} pass`: {text}")
        self._record(f"play {color} pass", "game.pass_turn()", None, other(color))
        self.stats.passes += 1
        self.last_captured = False
        self.compare_boards(f"after {color} passed")

    def play(self, color: Color, point: Point, name: Optional[str] = None, explicit: bool = True) -> bool:
        """Plays ``color`` at ``point`` on both, passing gokata ``name`` (default: the GTP
        form); through ``game.play(color, ...)`` or, when ``explicit`` is false (``color``
        must then be the side to move), ``game.move(...)``. Checks that both accept it, or
        both refuse it and change nothing; that ``is_legal``, ``illegal_reason`` and
        ``captures`` say the same beforehand; and that the stones agree afterwards.
        Returns whether the move was played."""
        assert explicit or color == self.game.turn
        gtp_name = vertex(self.size, point)
        coord = gtp_name if name is None else name
        before = self.game.board
        turn, number = self.turn, self.game.move_number
        legal = self.game.is_legal(coord, color)
        reason = self.game.illegal_reason(coord, color)
        if (reason is None) != legal:
            self.fail(f"gokata: is_legal({coord!r}, {color!r}) is {legal} but illegal_reason is {reason!r}")
        predicted: set[Point] = set()
        if legal:
            predicted = {from_kata(self.size, stone) for stone in self.game.captures(coord, color)}
        call = f"game.play({color!r}, {coord!r})" if explicit else f"game.move({coord!r})"
        try:
            if explicit:
                self.game.play(color, coord)
            else:
                self.game.move(coord)
            played = True
        except IllegalMoveError:
            played = False
        command = f"play {color} {gtp_name}"
        answers = self.gtp.send([f"is_legal {color} {gtp_name}", command, *self.STONES])
        (gtp_legal_ok, gtp_legal), (gtp_played, gtp_text) = answers[:2]
        if not gtp_legal_ok or gtp_legal not in ("0", "1"):
            self.fail(f"GNU Go answered `is_legal {color} {gtp_name}` with {gtp_legal!r}")
        if played != legal:
            self.fail(f"gokata: is_legal({coord!r}, {color!r}) is {legal} but `{call}` {'played' if played else 'raised'}")
        if gtp_played != (gtp_legal == "1"):
            self.fail(f"GNU Go: `is_legal {color} {gtp_name}` = {gtp_legal} but `{command}` answered {gtp_text!r}")
        if played != gtp_played:
            self.commands.append(f"# next: {command}")
            self.calls.append(f"# next: {call}")
            self.fail(
                f"{color} {gtp_name}: gokata says {'legal' if played else reason}, "
                f"GNU Go says {'legal' if gtp_played else 'illegal'}"
            )
        if not played:
            self.stats.illegal_attempts += 1
            self.commands.append(f"# {command}  -> refused by both ({reason})")
            self.calls.append(f"# {call}  -> IllegalMoveError ({reason})")
            if (self.game.board, self.game.turn, self.game.move_number) != (before, turn, number):
                self.fail(f"gokata's refused `{call}` changed the game")
            self.compare_boards(f"after both refused {command}", answers[2:])
            return False
        after = self.game.board
        ko = ko_ban(before, after, point, color)
        if color == turn:
            self.stats.moves += 1
        else:
            self.stats.same_colour_twice += 1
        self._record(command, call, ko, other(color))
        theirs = self.compare_boards(f"after {command}", answers[2:])
        opponent = symbol(other(color))
        removed = {p for p in all_points(self.size) if before[p[0]][p[1]] == opponent and theirs[p[0]][p[1]] == "."}
        if removed != predicted:
            self.fail(
                f"gokata's captures({coord!r}, {color!r}) predicted {sorted(kata(self.size, p) for p in predicted)} "
                f"but the move removed {sorted(kata(self.size, p) for p in removed)}"
            )
        self.last_captured = bool(removed)
        if removed:
            self.stats.captures += 1
            self.stats.stones_captured += len(removed)
        if ko is not None:
            self.stats.ko_captures += 1
        return True

    def rollback(self, k: int) -> None:
        """``game.rollback(k)`` against ``undo`` k times."""
        assert 0 < k < len(self.ko_history)
        self.game.rollback(k)
        answers = self.gtp.send(["undo"] * k)
        self.commands += ["undo"] * k
        self.calls.append(f"game.rollback({k})")
        del self.ko_history[-k:]
        del self.turn_history[-k:]
        refused = [text for ok, text in answers if not ok]
        if refused:
            self.fail(f"GNU Go refused `undo` ({refused[0]}) in {k} undos that gokata's rollback({k}) made")
        self.stats.rollbacks += 1
        self.stats.turns_undone += k
        self.compare_boards(f"after rollback({k}) and {k} undo")
        if self.game.turn != self.turn_history[-1] or self.game.move_number != len(self.ko_history) - 1:
            self.fail(
                f"after rollback({k}) gokata has {self.game.turn} to move at move {self.game.move_number}, "
                f"not {self.turn_history[-1]} at move {len(self.ko_history) - 1}"
            )
        if self.pending_ko is not None:
            self.stats.ko_bans_restored += 1

    # Legality

    def check_ko_ban(self) -> None:
        """The ko ban pending from the last move, worked out from the boards, holds in both."""
        if self.pending_ko is None:
            return
        point, banned = self.pending_ko
        name = vertex(self.size, point)
        reason = self.game.illegal_reason(name, banned)
        [(ok, answer)] = self.gtp.send([f"is_legal {banned} {name}"])
        if reason != "ko" or not ok or answer != "0":
            self.fail(
                f"the last move was a ko capture, so {banned} may not retake at {name} at once; "
                f"gokata's illegal_reason says {reason!r}, GNU Go's is_legal says {answer!r}"
            )
        self.stats.ko_bans_checked += 1

    def check_all_points(self) -> None:
        """Every point, for both colours: gokata's is_legal, illegal_reason and legal_moves
        against GNU Go's all_legal, and for the side to move also against GNU Go's is_legal
        asked point by point."""
        points = all_points(self.size)
        names = [vertex(self.size, p) for p in points]
        katas = {kata(self.size, p): name for p, name in zip(points, names)}
        mover: Color = self.turn
        colors: list[Color] = [mover, other(mover)]
        replies = self.gtp.send([f"is_legal {mover} {name}" for name in names] + [f"all_legal {c}" for c in colors])
        if not all(ok for ok, _ in replies):
            self.fail(f"GNU Go failed a legality query: {[text for ok, text in replies if not ok][0]}")
        pointwise = {name for name, (_, answer) in zip(names, replies) if answer == "1"}
        if {answer for _, answer in replies[: len(names)]} - {"0", "1"}:
            self.fail(f"GNU Go answered is_legal with {sorted({a for _, a in replies[: len(names)]})}")
        for color, (_, listed_by_gnugo) in zip(colors, replies[len(names) :]):
            theirs = set(listed_by_gnugo.split())
            if color == mover and theirs != pointwise:
                self.fail(f"GNU Go: `all_legal {color}` = {listed_by_gnugo!r} but is_legal: {sorted(pointwise)}")
            reasons = {name: self.game.illegal_reason(name, color) for name in names}
            ours = {name for name in names if self.game.is_legal(name, color)}
            listed = {katas[m] for m in self.game.legal_moves(color)}
            if ours != {name for name, reason in reasons.items() if reason is None} or listed != ours:
                self.fail(f"gokata: is_legal, illegal_reason and legal_moves({color!r}) disagree")
            if ours != theirs:
                details = [
                    f"{name}: gokata {'legal' if name in ours else reasons[name]}, "
                    f"GNU Go {'legal' if name in theirs else 'illegal'}"
                    for name in names
                    if (name in ours) != (name in theirs)
                ]
                self.fail(f"legality for {color} differs at " + "; ".join(details))
            self.stats.points_compared += len(names)
            self.stats.ko_points_seen += sum(reason == "ko" for reason in reasons.values())
            self.stats.suicide_points_seen += sum(reason == "suicide" for reason in reasons.values())
        self.stats.full_checks += 1


# The games


P_SEEK_KO = 0.3


def random_point_name(rng: random.Random, size: int, point: Point) -> str:
    """The point in a form gokata accepts: GTP or kata form, in either case."""
    name = vertex(size, point) if rng.random() < 0.5 else kata(size, point)
    return name.lower() if rng.random() < 0.3 else name


def sorted_legal(duel: Duel, color: Color) -> list[Point]:
    """gokata's legal moves as points, in an order of our own, so that the seeded games do not
    depend on the order gokata lists them in."""
    return sorted(from_kata(duel.size, m) for m in duel.game.legal_moves(color))


def play_turn(duel: Duel, rng: random.Random, color: Color, p_pass: float, p_random: float) -> None:
    """One turn of ``color``: maybe a ko retake attempt and a random point (both of which may
    be refused), then a uniformly random legal move of gokata's, or a pass. With probability
    ``P_SEEK_KO`` the move is drawn among the single-stone captures instead, when there are
    any: kos come from those, and uniformly random games on their own reach few kos."""
    explicit = color != duel.turn or rng.random() < 0.5
    if duel.pending_ko is not None and duel.pending_ko[1] == color and rng.random() < 0.5:
        point, _ = duel.pending_ko
        if duel.play(color, point, explicit=explicit):
            duel.fail(f"both accepted {color}'s immediate ko retake at {vertex(duel.size, point)}")
        duel.stats.ko_retakes_refused += 1
    if rng.random() < p_random:
        point = (rng.randrange(duel.size), rng.randrange(duel.size))
        if duel.play(color, point, random_point_name(rng, duel.size, point), explicit):
            duel.stats.random_points_played += 1
            return
    moves = sorted_legal(duel, color)
    if not moves or rng.random() < p_pass:
        duel.pass_turn()  # by the side to move, whatever ``color`` is
    else:
        if rng.random() < P_SEEK_KO:
            singles = [p for p in moves if len(duel.game.captures(kata(duel.size, p), color)) == 1]
            moves = singles or moves
        point = rng.choice(moves)
        duel.play(color, point, kata(duel.size, point) if rng.random() < 0.5 else None, explicit)


def full_check_due(duel: Duel, turn: int) -> bool:
    """Every turn on boards up to 7x7; on larger ones every other turn (9x9) or every fifth,
    and after every capture and ko."""
    every = 1 if duel.size <= 7 else 2 if duel.size <= 9 else 5
    return turn % every == 0 or duel.last_captured or duel.pending_ko is not None


@dataclass(frozen=True)
class Case:
    size: int
    seed: int
    games: int
    turns: int
    """Turns per game."""
    min_captures: int
    min_kos: int

    @property
    def id(self) -> str:
        return f"{self.size}x{self.size}-seed{self.seed}"


def report(name: str, case: Case, stats: Stats) -> None:
    print(f"\n{name}[{case.id}]: {case.games} games: {stats}")


def assert_coverage(case: Case, stats: Stats) -> None:
    assert stats.captures >= case.min_captures, f"only {stats.captures} captures in {case}: {stats}"
    assert stats.ko_captures >= case.min_kos, f"only {stats.ko_captures} ko captures in {case}: {stats}"
    if case.min_kos:
        assert stats.ko_bans_checked >= case.min_kos // 2, f"ko bans were hardly checked: {stats}"
        assert stats.ko_retakes_refused > 0, f"no ko retake was attempted: {stats}"


RANDOM_GAMES = [
    Case(1, 0, 2, 6, 0, 0),
    Case(2, 0, 10, 40, 80, 0),
    Case(3, 0, 10, 60, 70, 2),
    Case(4, 0, 10, 80, 80, 4),
    Case(4, 1, 10, 80, 75, 5),
    Case(5, 0, 10, 120, 100, 6),
    Case(5, 1, 10, 120, 100, 9),
    Case(5, 2, 10, 120, 100, 12),
    Case(7, 0, 6, 200, 100, 15),
    Case(7, 1, 6, 200, 90, 12),
    Case(9, 0, 3, 300, 60, 6),
    Case(9, 1, 3, 300, 65, 10),
    Case(13, 0, 2, 400, 60, 10),
    Case(19, 0, 1, 700, 55, 15),
]


@pytest.mark.parametrize("case", RANDOM_GAMES, ids=lambda case: case.id)
def test_random_games(gnugo: GnuGo, case: Case) -> None:
    """Alternating random games: the side to move plays a uniformly random legal move of
    gokata's, sometimes after trying a random point or the ko retake, or passes."""
    rng = random.Random(case.seed * 1000 + case.size)
    stats = Stats()
    for number in range(case.games):
        duel = Duel(gnugo, case.size, f"random game {number} of {case.id}", stats)
        for turn in range(case.turns):
            duel.check_ko_ban()
            if full_check_due(duel, turn):
                duel.check_all_points()
            play_turn(duel, rng, duel.turn, p_pass=0.02, p_random=0.15)
        duel.check_all_points()
    report("test_random_games", case, stats)
    assert_coverage(case, stats)


EXPLICIT_COLOUR_GAMES = [
    Case(3, 0, 8, 60, 50, 6),
    Case(4, 0, 8, 80, 55, 5),
    Case(5, 0, 8, 120, 80, 4),
    Case(5, 1, 8, 120, 70, 5),
    Case(7, 0, 5, 200, 80, 14),
    Case(9, 0, 2, 300, 45, 4),
    Case(13, 0, 1, 400, 35, 10),
    Case(19, 0, 1, 400, 20, 5),
]


@pytest.mark.parametrize("case", EXPLICIT_COLOUR_GAMES, ids=lambda case: case.id)
def test_explicit_colour_games(gnugo: GnuGo, case: Case) -> None:
    """Games where the colour of each move is drawn at random, so that a colour often plays
    twice in a row (``game.play(colour, ...)`` against ``play colour ...``)."""
    rng = random.Random(case.seed * 1000 + case.size + 500)
    stats = Stats()
    for number in range(case.games):
        duel = Duel(gnugo, case.size, f"explicit-colour game {number} of {case.id}", stats)
        for turn in range(case.turns):
            duel.check_ko_ban()
            if full_check_due(duel, turn):
                duel.check_all_points()
            color = duel.turn if rng.random() < 0.65 else other(duel.turn)
            play_turn(duel, rng, color, p_pass=0.03, p_random=0.15)
        duel.check_all_points()
    report("test_explicit_colour_games", case, stats)
    assert_coverage(case, stats)
    assert stats.same_colour_twice >= case.games * case.turns // 10, f"too few same-colour moves: {stats}"


MAX_UNDO = 449
"""GNU Go keeps 500 moves of history, then forgets the first 51: it can always undo 449."""

ROLLBACK_GAMES = [
    Case(3, 0, 10, 60, 60, 8),
    Case(5, 0, 10, 120, 90, 14),
    Case(5, 1, 10, 120, 85, 10),
    Case(7, 0, 6, 160, 65, 9),
    Case(9, 0, 3, 250, 50, 3),
    Case(19, 0, 1, 300, 2, 0),
]


@pytest.mark.parametrize("case", ROLLBACK_GAMES, ids=lambda case: case.id)
def test_rollback_against_undo(gnugo: GnuGo, case: Case) -> None:
    """Random games (with some same-colour moves and passes) interrupted by ``rollback(k)``
    against k GTP ``undo``; often back to just after a ko capture, whose ban must return."""
    assert case.turns < MAX_UNDO, "GNU Go could not undo that far"
    rng = random.Random(case.seed * 1000 + case.size + 900)
    stats = Stats()
    for number in range(case.games):
        duel = Duel(gnugo, case.size, f"rollback game {number} of {case.id}", stats)
        with pytest.raises(ValueError):
            duel.game.rollback(1)
        ok, _ = gnugo.send(["undo"])[0]
        assert not ok, "GNU Go undid a move on an empty history"
        for turn in range(case.turns):
            depth = len(duel.ko_history) - 1
            recent_kos = [k for k in range(1, min(depth, 8) + 1) if duel.ko_history[-1 - k] is not None]
            if recent_kos and duel.pending_ko is None and rng.random() < 0.3:
                duel.rollback(rng.choice(recent_kos))
            elif depth and rng.random() < 0.08:
                duel.rollback(rng.randint(1, min(depth, 8)))
            else:
                duel.check_ko_ban()
                color = duel.turn if rng.random() < 0.85 else other(duel.turn)
                play_turn(duel, rng, color, p_pass=0.03, p_random=0.1)
                continue
            duel.check_ko_ban()
            duel.check_all_points()
        if len(duel.ko_history) > 1:
            duel.rollback(len(duel.ko_history) - 1)
        assert duel.game.board == [["."] * case.size for _ in range(case.size)]
    report("test_rollback_against_undo", case, stats)
    assert_coverage(case, stats)
    assert stats.rollbacks >= case.games * case.turns // 20, f"too few rollbacks: {stats}"
    if case.min_kos:
        assert stats.ko_bans_restored > 0, f"no rollback came back to a ko ban: {stats}"


# GNU Go's rules, checked rather than assumed


def test_gnugo_plays_by_the_kata_rules(gnugo: GnuGo) -> None:
    """Fixed positions that pin down GNU Go's rules (and gokata's, the same) so that a GNU Go
    with other rules (allowed suicide, superko) fails here with a clear message."""
    sizes = [size for size in range(1, 20) if gnugo.send([f"boardsize {size}"])[0][0]]
    assert sizes == list(range(1, 20)), f"GNU Go accepts the board sizes {sizes}"
    assert not gnugo.send(["boardsize 20"])[0][0], "GNU Go accepts boardsize 20"

    stats = Stats()
    # Simple ko on 5x5: black C3 takes B3; white may not retake at once; after a move
    # elsewhere, or a pass, it may; undo brings the ban back.
    duel = Duel(gnugo, 5, "ko", stats)
    setup: list[tuple[Color, str]] = [
        ("black", "B4"), ("white", "C4"), ("black", "A3"), ("white", "B3"), ("black", "B2"), ("white", "C2")
    ]
    for color, name in setup:
        duel.play(color, from_vertex(5, name))
    duel.pass_turn()
    duel.play("white", from_vertex(5, "D3"))
    assert duel.play("black", from_vertex(5, "C3"))
    assert duel.pending_ko == (from_vertex(5, "B3"), "white")
    duel.check_ko_ban()
    assert gnugo.send(["is_legal white B3"])[0] == (True, "0"), "GNU Go allows the immediate ko retake"
    assert gnugo.send(["is_legal black B3"])[0] == (True, "1"), "GNU Go forbids filling the ko"
    assert not duel.play("white", from_vertex(5, "B3"))
    duel.check_all_points()
    duel.play("white", from_vertex(5, "E5"))  # a threat elsewhere, then the retake is legal
    assert gnugo.send(["is_legal white B3"])[0] == (True, "1")
    duel.check_all_points()
    duel.rollback(1)
    duel.check_ko_ban()  # the ban is back after undo
    duel.pass_turn()  # white passes: no more ban
    assert gnugo.send(["is_legal white B3"])[0] == (True, "1")
    assert duel.play("white", from_vertex(5, "B3"))
    assert duel.pending_ko == (from_vertex(5, "C3"), "black")
    duel.check_all_points()
    duel.check_ko_ban()

    # The same colour twice after a ko capture lifts the ban in both (one more stone on the
    # board, so the retake cannot recreate an earlier position).
    duel.rollback(2)
    duel.check_ko_ban()
    assert duel.play("black", from_vertex(5, "E1"))
    assert gnugo.send(["is_legal white B3"])[0] == (True, "1")
    duel.check_all_points()

    # Suicide of one stone and of several is refused; a move that captures is not (black C3
    # in the ko above had no liberty before its capture).
    duel = Duel(gnugo, 3, "suicide", stats)
    for name in ("A2", "B2", "C2"):
        duel.play("black", from_vertex(3, name))
    assert duel.play("white", from_vertex(3, "A1"))
    assert duel.play("white", from_vertex(3, "C1"))
    assert not duel.play("white", from_vertex(3, "B1")), "three-stone suicide"
    assert duel.game.illegal_reason("B1", "white") == "suicide"
    duel.check_all_points()
    assert duel.play("black", from_vertex(3, "B1")), "capture of A1 and C1"
    assert duel.game.board == [list("..."), list("xxx"), list(".x.")]
    duel.check_all_points()
    duel = Duel(gnugo, 3, "one-stone suicide", stats)
    duel.play("black", from_vertex(3, "A2"))
    duel.play("black", from_vertex(3, "B1"))
    assert not duel.play("white", from_vertex(3, "A1")), "one-stone suicide"
    assert duel.game.illegal_reason("A1", "white") == "suicide"
    duel.check_all_points()

    # A 1x1 board: no move is legal; passing is.
    duel = Duel(gnugo, 1, "1x1", stats)
    duel.check_all_points()
    assert not duel.play("black", (0, 0))
    duel.pass_turn()
    duel.check_all_points()
