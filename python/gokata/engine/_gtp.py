"""The protocol core of ``gokata.engine``, without input or output: the faults, the framing of
GTP replies, vertices, analysis lines, scores, and a game's position as GTP sees it. The
asynchronous engine (``_async``) and through it the synchronous one use it; nothing here reads
or writes a pipe."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Optional, Union

from gokata._gokata import Go, read_sgf_collection

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""GTP's and the kata's column letters (no I)."""

Point = Optional[str]
"""A kata point such as ``"4D"``; ``None`` for a pass."""


class EngineError(Exception):
    """The engine answered ``?``: it refused ``command``; ``answer`` is what it said. Also the
    base of every other fault of an engine (catch the subclasses first to tell them apart)."""

    def __init__(self, command: str, answer: str, message: str | None = None) -> None:
        self.command = command
        self.answer = answer
        super().__init__(message or f"the engine refused {command!r}: {answer or '(no reason given)'}")


class EngineProtocolError(EngineError):
    """The engine answered something that is not GTP, or not what the command asks for (a
    vertex off the board, a score that is not a score); ``answer`` is what it sent."""

    def __init__(self, command: str, answer: str, why: str) -> None:
        super().__init__(command, answer, f"the engine's answer to {command!r} {why}: {answer[:200]!r}")


class EngineTimeout(EngineError, TimeoutError):
    """No answer to ``command`` within ``timeout`` seconds: the engine was killed, and the
    next call starts it again."""

    def __init__(self, command: str, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(command, "", f"no answer to {command!r} within {timeout:g} s: the engine was killed")


class EngineTerminated(EngineError):
    """The engine died (or closed its output) during ``command``: ``returncode`` is its exit
    status (negative: the signal that killed it), ``stderr`` the last lines of its standard
    error. The next call starts it again."""

    def __init__(self, command: str, returncode: int | None, stderr: list[str]) -> None:
        self.returncode = returncode
        self.stderr = list(stderr)
        status = "still running" if returncode is None else f"status {returncode}"
        if returncode is not None and returncode < 0:
            status = f"killed by signal {-returncode}"
        tail = "; its last words on standard error: " + " | ".join(self.stderr[-5:]) if self.stderr else ""
        super().__init__(command, "", f"the engine exited ({status}) during {command!r}{tail}")


@dataclass(frozen=True)
class Candidate:
    """A move an analysing engine considers, as its last report gave it."""

    move: Point
    """Kata form (``"4D"``), ``None`` for a pass."""
    visits: int
    winrate: float
    """0 to 1, as the engine reports it (for the side to move, with ``lz-analyze`` and KataGo's
    default)."""
    prior: float | None = None
    """0 to 1, the policy's weight for the move, when the engine gives one."""
    pv: list[Point] = field(default_factory=list)
    """The expected line of play from this move on, kata form."""
    order: int | None = None
    score_lead: float | None = None
    """Points ahead for the side to move (``kata-analyze``'s ``scoreLead``)."""


@dataclass(frozen=True)
class Score:
    """A ``final_score`` answer: ``text`` as sent (``"B+3.5"``, ``"W+R"``, ``"0"``), the
    ``winner`` (``None`` for a draw) and the ``margin`` (``None`` when it is not a number)."""

    text: str
    winner: str | None
    margin: float | None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Reply:
    """One GTP reply: ``=`` (``ok``) or ``?``, its id if it had one, and its text."""

    ok: bool
    id: int | None
    text: str


_HEAD = re.compile(r"([=?])(\d*)(?:\s(.*))?\Z", re.DOTALL)


def clean_line(raw: Union[str, bytes]) -> str:
    """A line of the engine's output without its line ending (``\\n`` or ``\\r\\n``)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return text.rstrip("\r\n").replace("\r", "")


def parse_head(command: str, line: str) -> tuple[bool, int | None, str]:
    """The first line of a reply: ``(ok, id, text)``; ``EngineProtocolError`` when it starts
    with neither ``=`` nor ``?``."""
    match = _HEAD.match(line)
    if match is None:
        raise EngineProtocolError(command, line, "is not a GTP reply (it should start with '=' or '?')")
    sign, ident, text = match.groups()
    return sign == "=", int(ident) if ident else None, text or ""


def make_reply(command: str, lines: list[str]) -> Reply:
    """A reply from its lines (the empty line that ends it excluded, none empty before it)."""
    ok, ident, first = parse_head(command, lines[0])
    body = [first, *lines[1:]]
    if len(body) > 1 and not first.strip():
        body = body[1:]  # `= ` then a board, as `showboard` answers
    text = "\n".join(line.rstrip() for line in body)
    return Reply(ok, ident, text.strip() if len(body) == 1 else text.strip("\n"))


def check(command: str, reply: Reply) -> str:
    """The reply's text; ``EngineError`` if it is a ``?``."""
    if not reply.ok:
        raise EngineError(command, reply.text.strip())
    return reply.text


def command_name(command: str) -> str:
    words = command.split()
    return words[0] if words else ""


# Vertices


def vertex(point: Point) -> str:
    """A kata point (``"4D"``) as a GTP vertex (``"D4"``); ``None`` is ``pass``."""
    if point is None:
        return "pass"
    return point[-1].upper() + point[:-1]


def kata_point(text: str, size: int) -> Point:
    """A GTP vertex (``"d4"``, ``"D4"``, ``"pass"``) as a kata point (``"4D"``), ``None`` for
    a pass; ``ValueError`` naming it when it is not a vertex of a ``size`` board."""
    upper = text.strip().upper()
    if upper == "PASS":
        return None
    column, row = upper[:1], upper[1:]
    if not column or column not in COLUMNS[:size] or not row.isdigit() or not 1 <= int(row) <= size:
        raise ValueError(f"{text!r} is not a point of a {size}x{size} board")
    return f"{int(row)}{column}"


def move_answer(command: str, text: str, size: int) -> str | None:
    """A ``genmove`` answer: a kata point, ``None`` for a pass, ``"resign"``."""
    if text.strip().lower() == "resign":
        return "resign"
    try:
        return kata_point(text, size)
    except ValueError:
        raise EngineProtocolError(command, text, f"is not a move on a {size}x{size} board") from None


def vertex_list(command: str, text: str, size: int) -> list[str]:
    """The points of an answer that lists vertices (``final_status_list``, ``fixed_handicap``)."""
    points = []
    for word in text.split():
        try:
            point = kata_point(word, size)
        except ValueError:
            raise EngineProtocolError(command, text, f"lists {word!r}, not a point of a {size}x{size} board") from None
        if point is not None:
            points.append(point)
    return points


# Scores and analysis


def parse_score(command: str, text: str) -> Score:
    """``B+3.5``, ``W+R``, ``0`` (first word; any comment after it is left out)."""
    words = text.split()
    first = words[0] if words else ""
    if first in ("0", "Draw", "draw", "Jigo", "jigo"):
        return Score(first, None, 0.0)
    side, plus, amount = first.upper().partition("+")
    if side not in ("B", "W") or not plus:
        raise EngineProtocolError(command, text, "is not a score like B+3.5, W+R or 0")
    try:
        margin: float | None = float(amount)
    except ValueError:
        margin = None
    winner: str | None = "black" if side == "B" else "white"
    if margin == 0.0:
        winner = None
    return Score(first, winner, margin)


def _is_value(token: str) -> bool:
    """Whether a token of an ``info`` report is a value (a number, a vertex, ``pass``), not a key."""
    return not token.replace("_", "").isalpha() or token.lower() in ("pass", "resign")


def parse_analysis(command: str, line: str, size: int, scale: float) -> list[Candidate]:
    """The candidates of one report line, ``info move D4 visits 10 winrate 5000 ... pv D4 Q16
    info move ...``; ``scale`` divides win rates and priors (10,000 for ``lz-analyze``, 1 for
    ``kata-analyze``). Keys it does not know (``lcb``, ``ownership``...) are skipped."""
    candidates = []
    for chunk in re.split(r"(?:^|\s)info\s", " " + line):
        tokens = chunk.split()
        if not tokens:
            continue
        values: dict[str, list[str]] = {}
        i = 0
        while i < len(tokens):
            key, i = tokens[i], i + 1
            start = i
            while i < len(tokens) and _is_value(tokens[i]):
                i += 1
            values.setdefault(key, tokens[start:i])
        try:
            move = kata_point(values["move"][0], size)
            visits = int(values["visits"][0])
            winrate = float(values["winrate"][0]) / scale
            prior = float(values["prior"][0]) / scale if values.get("prior") else None
            order = int(values["order"][0]) if values.get("order") else None
            lead = float(values["scoreLead"][0]) if values.get("scoreLead") else None
            pv = [kata_point(word, size) for word in values.get("pv", [])]
        except (KeyError, IndexError, ValueError):
            raise EngineProtocolError(command, line, "has a report that is not 'info move M visits N winrate W ... pv ...'") from None
        candidates.append(Candidate(move, visits, winrate, prior, pv, order, lead))
    if any(candidate.order is None for candidate in candidates):
        return sorted(candidates, key=lambda candidate: -candidate.visits)
    return sorted(candidates, key=lambda candidate: candidate.order or 0)


# A game's position, as GTP sends it


@dataclass(frozen=True)
class Position:
    """What an engine needs of a game: the board size, komi (``None``: leave the engine's),
    the stones set up before the first turn, the handicap declared (``HA``), every turn as
    ``(colour, point)`` and the side to move."""

    size: int
    komi: float | None
    black: frozenset[str]
    white: frozenset[str]
    handicap: int
    turns: tuple[tuple[str, Point], ...]
    to_move: str

    def same_start(self, other: Position) -> bool:
        return (self.size, self.black, self.white, self.handicap) == (other.size, other.black, other.white, other.handicap)


def point_at(row: int, column: int, height: int) -> str:
    """The kata point of ``board[row][column]`` (rows top first)."""
    return f"{height - row}{COLUMNS[column]}"


def position_of(game: Go) -> Position:
    """``game``'s position for GTP: its start position (the game rolled back to its first turn),
    and its turns as its SGF record lists them. ``ValueError`` for a board GTP cannot carry (not
    square) or a record whose turns cannot be told."""
    height, width = game.size["height"], game.size["width"]
    if height != width:
        raise ValueError(f"GTP engines play on square boards, and this game is {height}x{width}")
    turns_played = game.move_number
    start = copy.copy(game)
    start.rollback(turns_played)
    black, white = set(), set()
    for r, row in enumerate(start.board):
        for c, stone in enumerate(row):
            if stone == "x":
                black.add(point_at(r, c, height))
            elif stone == "o":
                white.add(point_at(r, c, height))
    record = read_sgf_collection(game.to_sgf(), strict=False)[0]
    moves = [node.move for node in record.main_line() if node.move is not None]
    if len(moves) < turns_played:
        raise ValueError(f"the game's record lists {len(moves)} turns, and it has {turns_played}")
    turns = tuple(moves[len(moves) - turns_played :]) if turns_played else ()
    handicap = record.handicap or 0
    return Position(height, game.komi, frozenset(black), frozenset(white), handicap, turns, game.turn)


def fixed_handicap_points(size: int, stones: int) -> frozenset[str] | None:
    """Where ``Go.handicap_stones`` puts ``stones`` stones (GTP's ``fixed_handicap`` places),
    or ``None`` if it takes no such handicap on this size."""
    board = Go(size)
    try:
        board.handicap_stones(stones)
    except ValueError:
        return None
    return frozenset(
        point_at(r, c, size) for r, row in enumerate(board.board) for c, stone in enumerate(row) if stone == "x"
    )


def common_prefix(left: tuple[tuple[str, Point], ...], right: tuple[tuple[str, Point], ...]) -> int:
    length = 0
    for a, b in zip(left, right):
        if a != b:
            break
        length += 1
    return length
