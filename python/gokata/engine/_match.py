"""Matches between two GTP engines, refereed by gokata's rules (``gokata match``): games played
in parallel with colours alternating, each scored by area and by the engines' ``final_score``,
written as SGF, and tallied with 95% Wilson intervals."""

from __future__ import annotations

import asyncio
import datetime
import math
import os
import re
import tempfile
from collections import deque
from collections.abc import Awaitable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

from gokata._gokata import Go, read_sgf_collection
from gokata.engine._async import AsyncGtpEngine
from gokata.engine._gtp import EngineError, EngineTerminated, EngineTimeout, parse_score
from gokata.engine._process import Command

FORFEITS = ("illegal move", "timeout", "crash", "engine error")
"""How a game ends with a loss for a fault: an illegal move, no answer within the move time, the
engine's death, or any other fault (a refused command, an answer that is not GTP)."""
ENDINGS = ("two passes", "resignation", "move cap", *FORFEITS)
SGF_NAME = re.compile(r"game-(\d+)\.sgf\Z")

PathLike = Union[str, "os.PathLike[str]"]


def wilson_interval(points: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``points`` won (a draw is half) out of ``games``."""
    if games == 0:
        return (0.0, 1.0)
    p = points / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class GameRecord:
    """One game of a match. ``black`` is ``"A"`` or ``"B"``: which engine had black (A in odd
    games). ``result`` is the SGF ``RE``: ``"B+3.5"`` (area score), ``"W+R"`` (resignation),
    ``"B+T"`` (white's time ran out), ``"B+F"`` (white forfeited: an illegal move, a crash, an
    engine error), ``"0"`` (a draw). ``engine_scores``: each engine's ``final_score`` where it
    gave one (``"error: ..."`` when it failed)."""

    number: int
    black: str
    result: str
    ended_by: str
    moves: int
    black_name: str = ""
    white_name: str = ""
    detail: str = ""
    """Why the game ended abnormally (a forfeit, the move cap), in words."""
    engine_scores: dict[str, str] = field(default_factory=dict)
    sgf_path: Optional[str] = None

    @property
    def white(self) -> str:
        return "B" if self.black == "A" else "A"

    @property
    def winner(self) -> Optional[str]:
        """``"black"``, ``"white"``, or ``None`` for a draw."""
        return {"B": "black", "W": "white"}.get(self.result[:1])

    @property
    def winning_engine(self) -> Optional[str]:
        """``"A"``, ``"B"``, or ``None`` for a draw."""
        return None if self.winner is None else self.black if self.winner == "black" else self.white

    def points(self, engine: str) -> float:
        """1 for a win of ``engine`` (``"A"`` or ``"B"``), 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winning_engine is None else float(self.winning_engine == engine)

    def disagreements(self) -> dict[str, str]:
        """The engines whose ``final_score`` differs from the area score: ``"winner"`` (it
        names another) or ``"margin"``."""
        found: dict[str, str] = {}
        if self.ended_by not in ("two passes", "move cap"):
            return found
        for engine, text in self.engine_scores.items():
            try:
                score = parse_score("final_score", text)
            except EngineError:
                continue  # no score: nothing to compare
            if score.winner != self.winner:
                found[engine] = "winner"
            elif score.text != self.result:
                found[engine] = "margin"
        return found


@dataclass
class MatchResult:
    """A match's games and their tally. Engine ``"A"`` is the first command, ``"B"`` the
    second; ``names`` are how they call themselves (``name`` and ``version``)."""

    names: dict[str, str]
    size: int
    komi: float
    games: list[GameRecord]
    seconds_per_move: dict[str, float] = field(default_factory=dict)
    """Each engine's mean seconds a ``play`` (position and ``genmove``) in the games played now."""
    sgf_dir: Optional[str] = None
    resumed: int = 0
    """Games read back from ``sgf_dir`` rather than played."""

    def points(self, engine: str = "A", color: Optional[str] = None) -> tuple[float, int]:
        """``engine``'s wins (a draw counts half) and games, as ``color`` or overall."""
        games = [g for g in self.games if color is None or (g.black if color == "black" else g.white) == engine]
        return sum(g.points(engine) for g in games), len(games)

    def interval(self, engine: str = "A", color: Optional[str] = None) -> tuple[float, float]:
        return wilson_interval(*self.points(engine, color))

    def count(self, engine: str, outcome: str) -> int:
        """Games ``engine`` ``"won"``, ``"lost"`` or ``"drew"``."""
        other = "B" if engine == "A" else "A"
        wanted = {"won": engine, "lost": other, "drew": None}[outcome]
        return sum(1 for g in self.games if g.winning_engine == wanted)

    def abnormal(self) -> list[GameRecord]:
        """Games ended by a forfeit or the move cap."""
        return [g for g in self.games if g.ended_by in (*FORFEITS, "move cap")]

    def summary(self) -> str:
        """The tally as ``gokata match`` prints it."""
        lines = [f"{self.names['A']} (A) against {self.names['B']} (B): {len(self.games)} games on {self.size}x{self.size}, komi {self.komi:g}"]
        for engine in ("A", "B"):
            won, games = self.points(engine)
            low, high = self.interval(engine)
            lines.append(
                f"{self.names[engine]}: {self.count(engine, 'won')} won, {self.count(engine, 'lost')} lost, "
                f"{self.count(engine, 'drew')} drawn: {_rate(won, games)} (95% Wilson interval {low:.1%} to {high:.1%})"
            )
            parts = []
            for color in ("black", "white"):
                won, games = self.points(engine, color)
                low, high = self.interval(engine, color)
                parts.append(f"as {color} {won:g}/{games} = {_rate(won, games)} ({low:.1%} to {high:.1%})")
            lines.append("  " + "; ".join(parts))
        endings = {how: sum(1 for g in self.games if g.ended_by == how) for how in ENDINGS}
        lines.append("ended by: " + ", ".join(f"{how} {n}" for how, n in endings.items() if n))
        abnormal = self.abnormal()
        lines.append("abnormal ends:" + ("" if abnormal else " none"))
        lines += [f"  game {g.number}: {g.result}, {g.detail}" for g in abnormal]
        winners = [(g, e) for g in self.games for e, kind in g.disagreements().items() if kind == "winner"]
        margins = sorted({g.number for g in self.games if "margin" in g.disagreements().values()})
        lines.append("final_score naming another winner than the area score:" + ("" if winners else " none"))
        lines += [f"  game {g.number}: area {g.result}, {self.names[e]} {g.engine_scores[e]}" for g, e in winners]
        if margins:
            lines.append(f"final_score with another margin (same winner): games {', '.join(map(str, margins))}")
        if self.seconds_per_move:
            lines.append("seconds a move: " + ", ".join(f"{self.names[e]} {s:.3f}" for e, s in self.seconds_per_move.items()))
        if self.sgf_dir is not None:
            again = f" ({self.resumed} read back, {len(self.games) - self.resumed} played now)" if self.resumed else ""
            lines.append(f"SGF files in {self.sgf_dir}{again}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _rate(points: float, games: int) -> str:
    return f"{points / games:.1%}" if games else "-"


@dataclass
class _Seat:
    key: str
    engine: AsyncGtpEngine
    seconds: float = 0.0
    plays: int = 0


@dataclass(frozen=True)
class _Rules:
    size: int
    komi: float
    max_moves: int
    move_timeout: Optional[float]
    names: dict[str, str]


async def _play_game(number: int, seats: dict[str, _Seat], rules: _Rules) -> tuple[GameRecord, Go]:
    """One game, ``seats`` by colour; its record and the referee's board."""
    game = Go(rules.size)
    game.komi = rules.komi
    names = {color: rules.names[seat.key] for color, seat in seats.items()}
    record = GameRecord(number, seats["black"].key, "", "", 0, names["black"], names["white"])
    loop = asyncio.get_running_loop()
    for seat in seats.values():
        seat.engine.new_game()
    passes = 0
    while True:
        if game.move_number >= rules.max_moves:
            record.ended_by, record.detail = "move cap", f"the move cap ({rules.max_moves}) was reached: scored as it stood"
            break
        color = game.turn
        other, seat = ("W" if color == "black" else "B"), seats[color]
        started = loop.time()
        try:
            move = await seat.engine.play(game, timeout=rules.move_timeout)
        except EngineTimeout as error:
            return _forfeit(record, game, other, "T", "timeout", f"{names[color]} ({color}) {error}"), game
        except EngineTerminated as error:
            return _forfeit(record, game, other, "F", "crash", f"{names[color]} ({color}): {error}"), game
        except EngineError as error:
            return _forfeit(record, game, other, "F", "engine error", f"{names[color]} ({color}): {error}"), game
        finally:
            seat.seconds += loop.time() - started
            seat.plays += 1
        if move == "resign":
            record.result, record.ended_by, record.moves = f"{other}+R", "resignation", game.move_number
            return record, game
        if move is None:
            game.pass_turn()
            passes += 1
            if passes == 2:
                record.ended_by = "two passes"
                break
            continue
        why = game.illegal_reason(move)
        if why is not None:
            return _forfeit(record, game, other, "F", "illegal move", f"{names[color]} ({color}) played {move}, illegal here ({why})"), game
        game.move(move)
        passes = 0
    score = game.score(rules.komi)
    margin = score["black"] - score["white"] - rules.komi
    record.result = "0" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"
    record.moves = game.move_number
    for seat in seats.values():
        if "final_score" in seat.engine.commands:
            try:
                record.engine_scores[seat.key] = (await seat.engine.final_score(game, timeout=rules.move_timeout)).text
            except EngineError as error:
                record.engine_scores[seat.key] = f"error: {error}"
    return record, game


def _forfeit(record: GameRecord, game: Go, winner: str, why: str, ended_by: str, detail: str) -> GameRecord:
    """The game lost by the side that broke down: its turns so far are its moves."""
    record.result, record.ended_by, record.detail = f"{winner}+{why}", ended_by, " ".join(detail.split())
    record.moves = game.move_number
    return record


# SGF files


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def game_sgf(record: GameRecord, game: Go) -> str:
    """The game as SGF: ``PB``, ``PW``, ``KM``, ``RE``, ``GN``, ``DT``; in ``GC`` what the match
    knows of it (read back by ``--resume``); the reason of an abnormal end also as a comment
    (``C``) on the last node."""
    game.black_player, game.white_player = record.black_name, record.white_name
    game.result = record.result
    game.game_name = f"game {record.number}"
    game.date = datetime.date.today().isoformat()
    info = [f"gokata match game {record.number}: black {record.black}, white {record.white}", f"ended by: {record.ended_by}"]
    if record.detail:
        info.append(f"detail: {record.detail}")
    info += [f"final_score {engine}: {' '.join(text.split())}" for engine, text in sorted(record.engine_scores.items())]
    text = game.to_sgf().rstrip()
    assert text.startswith("(;") and text.endswith(")")
    text = f"(;GC[{_escape(chr(10).join(info))}]" + text[2:]
    if record.detail:
        text = text[:-1] + f"C[{_escape(record.detail)}])"
    return text + "\n"


def _write(path: Path, text: str) -> None:
    """Writes ``path`` whole or not at all (a run stopped midway leaves no half file)."""
    handle, temporary = tempfile.mkstemp(prefix=".game-", suffix=".tmp", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def read_game(path: Path, size: int, komi: float) -> GameRecord:
    """A finished game of an earlier run, from its SGF file; ``ValueError`` if it is not one
    of this match's games (another board, komi, or not written by ``gokata match``)."""
    number = int(SGF_NAME.match(path.name).group(1))  # type: ignore[union-attr]
    game = read_sgf_collection(path.read_text(encoding="utf-8"), strict=False)[0]
    if game.size != {"height": size, "width": size} or game.komi != komi:
        raise ValueError(f"{path} is a game on {game.size['height']}x{game.size['width']} with komi {game.komi}, not {size}x{size} with komi {komi:g}")
    info = dict(line.split(": ", 1) for line in "".join(game.properties.get("GC", [""])).splitlines() if ": " in line)
    head = next((key for key in info if key.startswith("gokata match game")), None)
    if head is None or game.result is None or info.get("ended by") not in ENDINGS:
        raise ValueError(f"{path} was not written by gokata match (no result, or no 'ended by' in its GC)")
    black = "A" if info[head].startswith("black A") else "B"
    moves = sum(1 for node in game.main_line() if node.move is not None)
    scores = {key.split()[-1]: value for key, value in info.items() if key.startswith("final_score ")}
    return GameRecord(
        number, black, game.result, info["ended by"], moves, game.black_player or "", game.white_player or "",
        info.get("detail", ""), scores, str(path),
    )  # fmt: skip


def finished_games(sgf_dir: Path, size: int, komi: float) -> dict[int, GameRecord]:
    return {
        record.number: record
        for path in sorted(sgf_dir.iterdir())
        if SGF_NAME.match(path.name)
        for record in [read_game(path, size, komi)]
    }


# The match


async def amatch(
    engine_a: Command,
    engine_b: Command,
    *,
    games: int = 2,
    size: int = 9,
    komi: float = 7.5,
    jobs: int = 1,
    sgf_dir: Optional[PathLike] = None,
    resume: bool = False,
    move_timeout: Optional[float] = None,
    max_moves: Optional[int] = None,
    on_game: Optional[Callable[[GameRecord], Any]] = None,
) -> MatchResult:
    """``match`` for asyncio."""
    if games < 1 or jobs < 1 or not 2 <= size <= 25:
        raise ValueError(f"games and jobs are 1 or more, and the size 2 to 25 (not {games}, {jobs}, {size})")
    folder = None if sgf_dir is None else Path(sgf_dir)
    done: dict[int, GameRecord] = {}
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        if not resume and any(SGF_NAME.match(path.name) for path in folder.iterdir()):
            raise ValueError(f"{folder} holds games of an earlier match: resume it (--resume), or choose another folder")
        done = {n: r for n, r in finished_games(folder, size, komi).items() if n <= games}
    elif resume:
        raise ValueError("resuming a match needs the folder of its SGF files")
    todo = deque(n for n in range(1, games + 1) if n not in done)
    width = max(4, len(str(games)))
    result = MatchResult({"A": _command_text(engine_a), "B": _command_text(engine_b)}, size, komi, [], sgf_dir=None if folder is None else str(folder))
    result.resumed = len(done)
    for record in done.values():
        result.names[record.black] = record.black_name or result.names[record.black]
        result.names[record.white] = record.white_name or result.names[record.white]
    pairs: list[dict[str, _Seat]] = []
    try:
        for _ in range(min(jobs, len(todo))):
            pairs.append({key: _Seat(key, AsyncGtpEngine(command)) for key, command in (("A", engine_a), ("B", engine_b))})
        await _all(seat.engine.start() for pair in pairs for seat in pair.values())
        if pairs:
            result.names = _names(pairs[0])
        rules = _Rules(size, komi, max_moves or 3 * size * size, move_timeout, result.names)

        async def work(pair: dict[str, _Seat]) -> None:
            while todo:
                number = todo.popleft()
                a_color, b_color = ("black", "white") if number % 2 == 1 else ("white", "black")
                record, game = await _play_game(number, {a_color: pair["A"], b_color: pair["B"]}, rules)
                if folder is not None:
                    path = folder / f"game-{number:0{width}d}.sgf"
                    _write(path, game_sgf(record, game))
                    record.sgf_path = str(path)
                done[number] = record
                if on_game is not None:
                    on_game(record)

        await _all(work(pair) for pair in pairs)
    finally:
        await asyncio.gather(*(seat.engine.close() for pair in pairs for seat in pair.values()), return_exceptions=True)
    result.games = [done[n] for n in sorted(done)]
    for key in ("A", "B"):
        seats = [pair[key] for pair in pairs]
        if sum(seat.plays for seat in seats):
            result.seconds_per_move[key] = sum(seat.seconds for seat in seats) / sum(seat.plays for seat in seats)
    return result


def match(engine_a: Command, engine_b: Command, **options: Any) -> MatchResult:
    """Plays ``games`` games (default 2) between two GTP engines (their command lines) on a
    ``size`` board (9) with ``komi`` (7.5), ``jobs`` at once (1), engine A black in odd games:
    each refereed by gokata's rules (an illegal move, a crash, an engine error or no answer
    within ``move_timeout`` seconds loses it), ended by two passes, a resignation or
    ``max_moves`` turns (default three times the points), scored by area and by the engines'
    ``final_score``. With ``sgf_dir`` each game is written there as ``game-0001.sgf``...;
    ``resume=True`` reads the games found there and plays only the others. ``on_game(record)``
    is called as each game ends. The options are ``amatch``'s."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(amatch(engine_a, engine_b, **options))
    with ThreadPoolExecutor(1) as pool:  # called from a running loop (a notebook): a loop of its own
        return pool.submit(asyncio.run, amatch(engine_a, engine_b, **options)).result()


def _command_text(command: Command) -> str:
    return command if isinstance(command, str) else " ".join(command)


def _names(pair: dict[str, _Seat]) -> dict[str, str]:
    names = {key: f"{seat.engine.name} {seat.engine.version}".strip() for key, seat in pair.items()}
    if names["A"] == names["B"]:
        names = {key: f"{name} ({key})" for key, name in names.items()}
    return names


async def _all(works: Iterable[Awaitable[Any]]) -> None:
    """Runs ``works`` at once; the first failure cancels the others and is raised."""
    tasks = [asyncio.ensure_future(work) for work in works]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
